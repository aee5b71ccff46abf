"""The same store on PostgreSQL: a throwaway server is started where PostgreSQL is installed.

Set PITWATCH_TEST_POSTGRES_URL to use a server of your own (each test creates and drops its own database).
Skips with a reason where neither a URL nor PostgreSQL's initdb/pg_ctl (and the psycopg driver) is there.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("psycopg", reason="the psycopg driver (serve extra) is not installed")

from sqlalchemy import create_engine, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from api.store import Store  # noqa: E402
from api.store.migrate import head_revision  # noqa: E402


def _pg_tool(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _as_postgres_user(args: list[str]) -> list[str]:
    # initdb refuses to run as root; CI and developers' machines run tests as root
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        if runuser is None:
            pytest.skip("running as root and runuser is missing: cannot start a PostgreSQL server")
        return [runuser, "-u", "postgres", "--", *args]
    return args


@pytest.fixture(scope="module")
def server_url() -> str:
    """A URL of a PostgreSQL server's maintenance database (started here and stopped afterwards if need be)."""
    given = os.environ.get("PITWATCH_TEST_POSTGRES_URL")
    if given:
        yield given
        return
    initdb, pg_ctl = _pg_tool("initdb"), _pg_tool("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL (initdb, pg_ctl) is not installed and PITWATCH_TEST_POSTGRES_URL is not set")
    folder = Path(tempfile.mkdtemp(prefix="pitwatch-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    data = folder / "data"
    port = "55433"
    try:
        subprocess.run(_as_postgres_user([initdb, "-D", str(data), "-A", "trust", "-U", "pitwatch"]),
                       check=True, capture_output=True, timeout=120)
        subprocess.run(_as_postgres_user([pg_ctl, "-D", str(data), "-l", str(folder / "log"), "-w", "-o",
                                          f"-k {folder} -p {port} -c listen_addresses=''", "start"]),
                       check=True, capture_output=True, timeout=60)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.skip(f"could not start a throwaway PostgreSQL server: {exc}")
    try:
        yield f"postgresql://pitwatch@/postgres?host={folder}&port={port}"
    finally:
        subprocess.run(_as_postgres_user([pg_ctl, "-D", str(data), "-m", "immediate", "stop"]),
                       capture_output=True, timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def store(server_url: str) -> Store:
    """A Store on a fresh database of its own, migrated."""
    name = f"pitwatch_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    store = Store(make_url(server_url).set(database=name).render_as_string(hide_password=False))
    store.migrate()
    yield store
    store.close()
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    admin.dispose()


def sql(store: Store, statement: str, **params) -> None:
    engine = create_engine(store.url)
    try:
        with engine.begin() as conn:
            conn.execute(text(statement), params)
    finally:
        engine.dispose()


def test_migrate_on_postgresql_reaches_head_and_a_second_migrate_is_a_no_op(store: Store):
    store.migrate()
    assert store.revision() == head_revision()


def test_the_migrations_create_exactly_the_schema_the_code_uses_on_postgresql(store: Store):
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from api.store.schema import metadata

    engine = create_engine(store.url)
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), metadata) == []
    engine.dispose()


def test_appends_from_8_threads_keep_the_chain_intact_on_postgresql(store: Store, concurrent_appends):
    errors = concurrent_appends(lambda worker: store, per_thread=20)
    assert errors == []
    assert store.verify_summary() == (160, [])


@pytest.mark.parametrize("statement", ["UPDATE events SET kind = 'x'", "DELETE FROM events"])
def test_postgresql_refuses_to_rewrite_events(store: Store, statement: str):
    store.append("bj-07", "table_status", {"n": 1})
    with pytest.raises(Exception, match="append-only"):
        sql(store, statement)
    assert store.verify_summary() == (1, [])


def test_altering_one_row_on_postgresql_makes_verify_name_exactly_that_row(store: Store):
    ids = [store.append("bj-07", "table_status", {"n": i}).id for i in range(4)]
    sql(store, "ALTER TABLE events DISABLE TRIGGER events_append_only")
    sql(store, "UPDATE events SET payload = CAST(:p AS json) WHERE id = :id", p='{"n": 42}', id=ids[1])
    problems = store.verify()
    assert len(problems) == 1 and problems[0].startswith(f"event {ids[1]}:")


def test_alerts_dedup_and_acks_on_postgresql(store: Store):
    alert = {"type": "mtd_underpaid", "seat": 3, "t_s": 12.3, "expected": 20, "observed": 15}
    first = store.append("bj-07", "alert", alert, utc="2026-11-01T10:00:00Z", dedup_key="review:1:alert:0")
    assert store.append("bj-07", "alert", alert, dedup_key="review:1:alert:0") == first
    store.append("bj-07", "alert", {**alert, "seat": "dealer", "type": "dealing_order"})
    store.acknowledge(first.id, by="ops-1", comment="ok")
    assert [a["id"] for a in store.alerts(acknowledged=True, seat=3, since="2026-11-01T09:00:00Z")] == [first.id]
    assert [a["type"] for a in store.alerts(acknowledged=False)] == ["dealing_order"]
    assert store.verify() == []
