"""Initial schema: events (append-only, hash-chained), chain_head, tokens, sessions, jobs.

Revision ID: 0001
Revises:
Create Date: 2026-11-01

The events table refuses UPDATE and DELETE: triggers on SQLite, a trigger function on PostgreSQL.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

GENESIS = "0" * 64

_SQLITE_TRIGGERS = {
    "events_no_update": "BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END",
    "events_no_delete": "BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END",
}

_PG_FUNCTION = """
CREATE OR REPLACE FUNCTION pitwatch_events_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only';
END;
$$ LANGUAGE plpgsql
"""


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(64), nullable=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("t_s", sa.Float(precision=53), nullable=True),
        sa.Column("frame", sa.Integer, nullable=True),
        sa.Column("utc", sa.String(40), nullable=True),
        sa.Column("review_id", sa.Integer, nullable=True),
        sa.Column("dedup_key", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("occurred_at", sa.DateTime, nullable=False),
        sa.Column("alert_type", sa.String(48), nullable=True),
        sa.Column("seat", sa.String(16), nullable=True),
        sa.Column("ref_id", sa.Integer, nullable=True),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.UniqueConstraint("dedup_key", name="uq_events_dedup_key"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_events_kind_table_time", "events", ["kind", "table_id", "occurred_at"])
    op.create_index("ix_events_kind_review", "events", ["kind", "review_id"])
    op.create_index("ix_events_kind_ref", "events", ["kind", "ref_id"])

    chain_head = op.create_table(
        "chain_head",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("last_event_id", sa.Integer, nullable=True),
        sa.Column("last_hash", sa.String(64), nullable=False),
    )
    op.bulk_insert(chain_head, [{"id": 1, "last_event_id": None, "last_hash": GENESIS}])

    op.create_table(
        "tokens",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("revoked", sa.Boolean, nullable=False),
        sa.UniqueConstraint("token_hash", name="uq_tokens_token_hash"),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("token_id", sa.Integer, sa.ForeignKey("tokens.id", name="fk_sessions_token"), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("expires_at", sa.DateTime, nullable=False),
    )
    op.create_table(
        "jobs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("progress", sa.Float, nullable=False),
        sa.Column("source_path", sa.Text, nullable=False),
        sa.Column("table_path", sa.Text, nullable=False),
        sa.Column("out_dir", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("created_by", sa.String(100), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
        sqlite_autoincrement=True,
    )

    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for name, body in _SQLITE_TRIGGERS.items():
            op.execute(f"CREATE TRIGGER {name} {body}")
    elif dialect == "postgresql":
        op.execute(_PG_FUNCTION)
        op.execute("CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON events "
                   "FOR EACH STATEMENT EXECUTE FUNCTION pitwatch_events_append_only()")


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for name in _SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    elif dialect == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS events_append_only ON events")
        op.execute("DROP FUNCTION IF EXISTS pitwatch_events_append_only()")
    for table in ("jobs", "sessions", "tokens", "chain_head", "events"):
        op.drop_table(table)
