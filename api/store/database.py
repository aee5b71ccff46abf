"""Connecting to the database: one engine per Store, safe to share between threads.

SQLite gets WAL mode, foreign keys, a busy timeout and explicit transactions: reads begin a deferred
transaction, writes ``BEGIN IMMEDIATE`` so that two writers queue on the busy timeout instead of failing when
one upgrades a read lock. Writers in one process also queue on a lock, which keeps the wait off SQLite's
busy loop. Every other back end (PostgreSQL) uses the driver's own transactions.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError
from sqlalchemy.pool import StaticPool

from api.store.errors import StoreInputError

#: How long a SQLite writer waits for another process's write to finish, in milliseconds.
BUSY_TIMEOUT_MS = 30_000

_WRITE_OPTION = "pitwatch_write"

#: The database when neither --db nor PITWATCH_DB says otherwise (relative to the working directory).
DEFAULT_URL = "sqlite:///pitwatch-data/pitwatch.db"


def default_url() -> str:
    """The database URL to use: ``$PITWATCH_DB`` when set, else :data:`DEFAULT_URL`."""
    return os.environ.get("PITWATCH_DB") or DEFAULT_URL


class Database:
    """An engine plus the rules for read and write transactions.

    Raises StoreInputError when ``url`` is not a database URL or names a driver that is not installed.
    """

    def __init__(self, url: str) -> None:
        try:
            parsed = make_url(url)
        except ArgumentError:
            raise StoreInputError(f"database URL: not a database URL: {url!r}") from None
        self.url = url
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        self._write_lock = threading.Lock()
        try:
            self.engine = self._sqlite_engine(parsed) if self.is_sqlite else create_engine(parsed, pool_pre_ping=True)
        except (NoSuchModuleError, ModuleNotFoundError) as exc:
            raise StoreInputError(f"database URL {url!r}: no driver for it is installed ({exc})") from None

    @staticmethod
    def _sqlite_engine(parsed) -> Engine:
        memory = parsed.database in (None, "", ":memory:")
        if not memory:
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        kwargs = {"connect_args": {"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000}}
        if memory:  # one shared connection, or every checkout would see a different empty database
            kwargs["poolclass"] = StaticPool
        engine = create_engine(parsed, **kwargs)

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection, _record) -> None:
            # hand transaction control to the "begin" hook below (pysqlite's own BEGIN is always deferred)
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            if not memory:
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn: Connection) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(_WRITE_OPTION) else "BEGIN")

        return engine

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A connection in a read transaction (rolled back at the end)."""
        with self.engine.connect() as conn:
            with conn.begin():
                yield conn

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A connection in a write transaction: committed when the block ends, rolled back on an exception.

        Writers in this process run one at a time; on SQLite the transaction is ``BEGIN IMMEDIATE``.
        """
        with self._write_lock:
            with self.engine.connect() as conn:
                conn.execution_options(**{_WRITE_OPTION: True})
                with conn.begin():
                    yield conn

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()
