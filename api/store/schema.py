"""The database schema (SQLAlchemy Core tables). Migrations in ``migrations/versions`` create the same tables.

Datetimes are naive UTC everywhere (SQLite keeps no zone; one convention for both back ends keeps the
hashes reproducible).
"""

from __future__ import annotations

from sqlalchemy import (JSON, Boolean, Column, DateTime, Float, ForeignKey, Index, Integer, MetaData, String, Table,
                        Text, UniqueConstraint)

metadata = MetaData()

#: The append-only, hash-chained log. Every stored record (round, alert, ack, status, access) is a row here.
#: ``occurred_at``, ``alert_type``, ``seat`` and ``ref_id`` are derived from the payload at append time so that
#: filters run in SQL; they are part of the hashed content, so editing them is detected too.
events = Table(
    "events", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(64), nullable=True),
    Column("kind", String(32), nullable=False),
    Column("payload", JSON, nullable=False),
    Column("t_s", Float(precision=53), nullable=True),
    Column("frame", Integer, nullable=True),
    Column("utc", String(40), nullable=True),
    Column("review_id", Integer, nullable=True),
    Column("dedup_key", String(200), nullable=True),
    Column("created_at", DateTime, nullable=False),
    Column("occurred_at", DateTime, nullable=False),
    Column("alert_type", String(48), nullable=True),
    Column("seat", String(16), nullable=True),
    Column("ref_id", Integer, nullable=True),
    Column("prev_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False),
    UniqueConstraint("dedup_key", name="uq_events_dedup_key"),
    Index("ix_events_kind_table_time", "kind", "table_id", "occurred_at"),
    Index("ix_events_kind_review", "kind", "review_id"),
    Index("ix_events_kind_ref", "kind", "ref_id"),
    sqlite_autoincrement=True,  # ids are never reused, even after someone deletes the last row by hand
)

#: One row (id 1): the last event's id and hash. Appends lock it (SELECT ... FOR UPDATE on PostgreSQL) and
#: verify() compares it with the log's end, so cutting rows off the end is detected.
chain_head = Table(
    "chain_head", metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("last_event_id", Integer, nullable=True),
    Column("last_hash", String(64), nullable=False),
)

#: API tokens: only sha256(token) is stored.
tokens = Table(
    "tokens", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("token_hash", String(64), nullable=False),
    Column("role", String(16), nullable=False),
    Column("name", String(100), nullable=False),
    Column("created_at", DateTime, nullable=False),
    Column("revoked", Boolean, nullable=False, default=False),
    UniqueConstraint("token_hash", name="uq_tokens_token_hash"),
    sqlite_autoincrement=True,
)

#: Login sessions (the page's cookie): only sha256(session id) is stored.
sessions = Table(
    "sessions", metadata,
    Column("id_hash", String(64), primary_key=True),
    Column("token_id", Integer, ForeignKey("tokens.id", name="fk_sessions_token"), nullable=False),
    Column("created_at", DateTime, nullable=False),
    Column("expires_at", DateTime, nullable=False),
)

#: Review jobs; their state changes are also appended to the log as "review_status" events.
jobs = Table(
    "jobs", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("state", String(16), nullable=False),
    Column("progress", Float, nullable=False, default=0.0),
    Column("source_path", Text, nullable=False),
    Column("table_path", Text, nullable=False),
    Column("out_dir", Text, nullable=True),
    Column("error", Text, nullable=True),
    Column("created_by", String(100), nullable=False),
    Column("created_at", DateTime, nullable=False),
    Column("updated_at", DateTime, nullable=False),
    sqlite_autoincrement=True,
)
