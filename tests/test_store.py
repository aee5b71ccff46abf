"""The store (api/SERVICE.md): migrations, the append-only hash-chained log, tokens, rounds, alerts, review jobs."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("alembic")

from api.store import NotFoundError, Store, StoreInputError  # noqa: E402
from api.store.migrate import head_revision  # noqa: E402

ALERT = {"type": "mtd_underpaid", "seat": 3, "t_s": 12.3, "frame": 369, "expected": 20, "observed": 15,
         "evidence": "evidence/r0-mtd_underpaid-s3.jpg"}


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "pitwatch.db"


@pytest.fixture
def store(db_path: Path) -> Store:
    store = Store(f"sqlite:///{db_path}")
    store.migrate()
    yield store
    store.close()


def fill(store: Store, n: int = 5) -> list[int]:
    return [store.append("bj-07", "table_status", {"n": i, "state": "live"}, t_s=float(i), frame=i).id
            for i in range(n)]


def raw(db_path: Path) -> sqlite3.Connection:
    """The database file opened by hand, as someone tampering with it would."""
    return sqlite3.connect(db_path, isolation_level=None)


def drop_triggers(conn: sqlite3.Connection) -> None:
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger' AND tbl_name='events'").fetchall():
        conn.execute(f"DROP TRIGGER {name}")


def schema(db_path: Path) -> list[tuple]:
    with raw(db_path) as conn:
        return conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()


def test_migrate_brings_a_fresh_database_to_the_newest_revision(store: Store):
    assert store.revision() == head_revision()


def test_a_second_migrate_changes_nothing(store: Store, db_path: Path):
    before = schema(db_path)
    store.migrate()
    assert schema(db_path) == before
    assert store.revision() == head_revision()


def test_the_database_runs_in_wal_mode(store: Store, db_path: Path):
    with raw(db_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_an_appended_log_verifies(store: Store):
    fill(store)
    assert store.verify() == []
    assert store.verify_summary() == (5, [])


def test_each_event_is_chained_to_the_one_before(store: Store):
    first, second = (store.append("bj-07", "table_status", {"n": i}) for i in range(2))
    assert first.prev_hash == "0" * 64
    assert second.prev_hash == first.hash


def test_altering_one_stored_row_makes_verify_name_exactly_that_row(store: Store, db_path: Path):
    ids = fill(store)
    with raw(db_path) as conn:
        drop_triggers(conn)
        conn.execute("UPDATE events SET payload = ? WHERE id = ?", ('{"n": 99, "state": "live"}', ids[2]))
    problems = store.verify()
    assert len(problems) == 1
    assert problems[0].startswith(f"event {ids[2]}:")


def test_removing_a_row_from_the_middle_is_detected(store: Store, db_path: Path):
    ids = fill(store)
    with raw(db_path) as conn:
        drop_triggers(conn)
        conn.execute("DELETE FROM events WHERE id = ?", (ids[2],))
    problems = store.verify()
    assert len(problems) == 1 and problems[0].startswith(f"event {ids[3]}: prev_hash")


def test_cutting_rows_off_the_end_is_detected(store: Store, db_path: Path):
    ids = fill(store)
    with raw(db_path) as conn:
        drop_triggers(conn)
        conn.execute("DELETE FROM events WHERE id = ?", (ids[-1],))
    assert [line.split(":")[0] for line in store.verify()] == ["chain head"]


@pytest.mark.parametrize("statement", ["UPDATE events SET kind = 'x'", "DELETE FROM events"])
def test_sqlite_refuses_to_rewrite_events(store: Store, db_path: Path, statement: str):
    fill(store, 2)
    with raw(db_path) as conn, pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute(statement)
    assert store.verify_summary() == (2, [])


def test_the_same_dedup_key_twice_stores_one_event(store: Store):
    first = store.append("bj-07", "round", {"index": 0}, review_id=1, dedup_key="review:1:round:0")
    again = store.append("bj-07", "round", {"index": 0}, review_id=1, dedup_key="review:1:round:0")
    assert again == first
    assert len(store.rounds()) == 1


def test_appends_from_8_threads_keep_the_chain_intact(store: Store, db_path: Path, concurrent_appends):
    other = Store(f"sqlite:///{db_path}")  # a second Store on the same file: writers must queue across pools
    errors = concurrent_appends(lambda worker: store if worker % 2 else other, per_thread=25)
    other.close()
    assert errors == []
    assert store.verify_summary() == (200, [])


def test_tokens_are_stored_only_as_their_hash(store: Store, db_path: Path):
    token = store.create_token(role="viewer", name="ops-1")
    store.close()  # checkpoint the WAL; the -wal file is read as well in case it was not
    files = [p for p in db_path.parent.iterdir() if p.name.startswith(db_path.name)]
    stored = b"".join(p.read_bytes() for p in files)
    assert token.encode() not in stored
    from api.auth import hash_token
    assert hash_token(token).encode() in stored


def test_a_token_stands_for_its_role_and_name(store: Store):
    token = store.create_token(role="investigator", name="ops-1")
    principal = store.principal_for(token)
    assert (principal.name, principal.role) == ("ops-1", "investigator")


def test_an_unknown_or_revoked_token_stands_for_nobody(store: Store):
    token = store.create_token(role="admin")
    assert store.principal_for("not-a-token") is None
    store.revoke_token(store.principal_for(token).token_id)
    assert store.principal_for(token) is None


def test_an_unknown_role_is_bad_input(store: Store):
    with pytest.raises(StoreInputError, match="role must be one of viewer, investigator, admin"):
        store.create_token(role="boss")


def test_alerts_filter_by_table_type_seat_and_time(store: Store):
    store.append("bj-07", "alert", ALERT, utc="2026-11-01T10:00:00Z")
    store.append("bj-07", "alert", {**ALERT, "type": "past_posting", "seat": 1}, utc="2026-11-01T11:00:00Z")
    store.append("bj-08", "alert", {**ALERT, "type": "dealing_order", "seat": "dealer"}, utc="2026-11-01T12:00:00Z")
    assert [a["type"] for a in store.alerts(table="bj-07")] == ["mtd_underpaid", "past_posting"]
    assert [a["table"] for a in store.alerts(type="dealing_order")] == ["bj-08"]
    assert [a["type"] for a in store.alerts(seat=3)] == ["mtd_underpaid"]
    assert [a["type"] for a in store.alerts(seat="dealer")] == ["dealing_order"]
    assert [a["type"] for a in store.alerts(since="2026-11-01T10:30:00Z", until="2026-11-01T11:30:00+00:00")] \
        == ["past_posting"]


def test_an_alert_comes_back_with_its_payload_and_id(store: Store):
    stored = store.append("bj-07", "alert", ALERT)
    (alert,) = store.alerts()
    assert alert["id"] == stored.id and alert["table"] == "bj-07"
    assert {k: alert[k] for k in ALERT} == ALERT
    assert alert["acknowledged"] is False and alert["ack"] is None


def test_acknowledging_an_alert_adds_an_ack_and_filters_by_it(store: Store):
    first = store.append("bj-07", "alert", ALERT).id
    second = store.append("bj-07", "alert", {**ALERT, "seat": 4}).id
    acked = store.acknowledge(first, by="ops-1", comment="paid the difference")
    assert acked["acknowledged"] and acked["ack"]["by"] == "ops-1"
    assert [a["id"] for a in store.alerts(acknowledged=True)] == [first]
    assert [a["id"] for a in store.alerts(acknowledged=False)] == [second]


def test_a_second_ack_keeps_the_first(store: Store):
    alert_id = store.append("bj-07", "alert", ALERT).id
    store.acknowledge(alert_id, by="ops-1", comment="first")
    again = store.acknowledge(alert_id, by="ops-2", comment="second")
    assert again["ack"]["comment"] == "first"
    assert len(store.events(kind="ack")) == 1


def test_acknowledging_an_unknown_alert_is_not_found(store: Store):
    with pytest.raises(NotFoundError):
        store.acknowledge(404, by="ops-1", comment="")


def test_rounds_filter_by_table_and_review(store: Store):
    store.append("bj-07", "round", {"index": 0, "start_s": 1.2}, review_id=1)
    store.append("bj-08", "round", {"index": 0, "start_s": 2.0}, review_id=2)
    assert [r["table"] for r in store.rounds(review_id=2)] == ["bj-08"]
    assert [r["review_id"] for r in store.rounds(table="bj-07")] == [1]
    one = store.rounds()[0]
    assert store.round(one["id"]) == one
    assert store.round(999) is None


def test_a_payload_that_is_not_plain_json_is_refused(store: Store):
    with pytest.raises(StoreInputError, match="payload"):
        store.append("bj-07", "round", {"t": float("nan")})
    assert store.verify_summary() == (0, [])


def test_review_job_state_changes_are_logged(store: Store):
    job = store.create_job("videos/a.mp4", "tables/bj-07.yaml", by="ops-1")
    assert (job["state"], job["progress"]) == ("queued", 0.0)
    store.update_job(job["id"], progress=0.5)
    done = store.update_job(job["id"], state="done", progress=1.0, out_dir="out/1")
    assert (done["state"], done["out_dir"]) == ("done", "out/1")
    states = [e.payload["state"] for e in store.events(kind="review_status")]
    assert states == ["queued", "done"]


def test_update_job_refuses_unknown_fields_and_bad_values(store: Store):
    job_id = store.create_job("a.mp4", "t.yaml", by="ops-1")["id"]
    with pytest.raises(StoreInputError, match="unknown field"):
        store.update_job(job_id, colour="red")
    with pytest.raises(StoreInputError, match="progress"):
        store.update_job(job_id, progress=1.5)
    with pytest.raises(StoreInputError, match="state"):
        store.update_job(job_id, state="paused")
    with pytest.raises(NotFoundError):
        store.update_job(job_id + 1, state="running")


def test_a_url_that_is_not_a_database_url_is_bad_input():
    with pytest.raises(StoreInputError, match="not a database URL"):
        Store("not a url")


def test_the_migrations_ship_as_package_data():
    import tomllib

    from setuptools import find_packages

    repo = Path(__file__).resolve().parents[1]
    config = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages = find_packages(str(repo), include=config["packages"]["find"]["include"])
    assert {"api.store", "api.store.migrations", "api.store.migrations.versions"} <= set(packages)
    assert "*.mako" in config["package-data"]["*"]


@pytest.mark.parametrize("column, value", [("payload", "{not json"), ("created_at", "yesterday")])
def test_a_stored_value_that_no_longer_parses_is_named_not_a_crash(store: Store, db_path: Path, column, value):
    ids = fill(store, 3)
    with raw(db_path) as conn:
        drop_triggers(conn)
        conn.execute(f"UPDATE events SET {column} = ? WHERE id = ?", (value, ids[1]))
    problems = store.verify()
    assert len(problems) == 1 and problems[0].startswith(f"event {ids[1]}:")


def test_the_migrations_create_exactly_the_schema_the_code_uses(store: Store):
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from sqlalchemy import create_engine

    from api.store.schema import metadata

    engine = create_engine(store.url)
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), metadata) == []
    engine.dispose()
