"""``pitwatch token create`` and ``pitwatch verify-log`` as the contracts describe them."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from api.store import Store  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def pitwatch(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PITWATCH_DB"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "api.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, check=False)


def test_token_create_prints_the_token_alone_on_the_last_line_and_it_authenticates(tmp_path: Path):
    proc = pitwatch("token", "create", "--role", "investigator", "--name", "inv-1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    token = proc.stdout.splitlines()[-1]
    assert token == token.strip() and len(token) >= 40
    db = tmp_path / "pitwatch-data" / "pitwatch.db"  # the default database, relative to the working directory
    principal = Store(f"sqlite:///{db}").principal_for(token)
    assert (principal.name, principal.role) == ("inv-1", "investigator")


def test_token_create_with_a_bad_role_exits_2_with_one_line(tmp_path: Path):
    proc = pitwatch("token", "create", "--role", "boss", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "role" in proc.stderr


def test_verify_log_on_an_intact_log_exits_0_with_a_summary(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'pw.db'}"
    store = Store(url)
    store.migrate()
    for i in range(3):
        store.append("bj-07", "table_status", {"n": i})
    store.close()
    proc = pitwatch("verify-log", "--db", url, cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.strip() == "3 events, chain intact"


def test_verify_log_on_an_altered_log_exits_1_naming_the_row(tmp_path: Path):
    path = tmp_path / "pw.db"
    store = Store(f"sqlite:///{path}")
    store.migrate()
    ids = [store.append("bj-07", "table_status", {"n": i}).id for i in range(3)]
    store.close()
    with sqlite3.connect(path, isolation_level=None) as conn:
        conn.execute("DROP TRIGGER events_no_update")
        conn.execute("UPDATE events SET t_s = 99.0 WHERE id = ?", (ids[1],))
    proc = pitwatch("verify-log", "--db", f"sqlite:///{path}", cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"event {ids[1]}:")


def test_verify_log_without_a_database_exits_2(tmp_path: Path):
    proc = pitwatch("verify-log", "--db", f"sqlite:///{tmp_path / 'missing.db'}", cwd=tmp_path)
    assert proc.returncode == 2
    assert "missing.db" in proc.stderr
