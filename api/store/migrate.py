"""Running the Alembic migrations in ``migrations/`` from code (no alembic.ini on disk)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text

from api.store.database import Database

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def alembic_config() -> Config:
    """An Alembic Config pointing at the packaged migrations."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def head_revision() -> str:
    """The newest migration's revision id."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(db: Database) -> str | None:
    """The revision the database is at, or None for an empty database."""
    with db.read() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(db: Database, revision: str = "head") -> None:
    """Bring the database up to ``revision`` (a no-op when it is there already).

    Runs in one write transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL: under an advisory lock) so two
    processes starting at once do not both create the tables.
    """
    config = alembic_config()
    with db.write() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(7407)"))  # any fixed number: "pitwatch migrate"
        config.attributes["connection"] = conn
        command.upgrade(config, revision)
