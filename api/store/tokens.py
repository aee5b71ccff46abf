"""API tokens and login sessions. Only sha256 of a token or session id is ever stored."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from api.store.database import Database
from api.store.errors import NotFoundError, StoreInputError
from api.store.log import utcnow
from api.store.records import Principal, role_rank
from api.store.schema import sessions, tokens

#: How long a login session lasts, in seconds (one shift plus some).
SESSION_TTL_S = 12 * 3600


def hash_secret(secret: str) -> str:
    """sha256 hex of a token or session id (what the database stores)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_secret() -> str:
    """A fresh random token or session id: 32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


def create_token(db: Database, role: str, name: str | None = None) -> str:
    """Store a new token's hash with ``role`` and return the token itself (it is not kept anywhere).

    Raises StoreInputError for an unknown role or an empty name.
    """
    role_rank(role)
    if name is not None and not name.strip():
        raise StoreInputError("name: must not be empty")
    token = new_secret()
    with db.write() as conn:
        new_id = conn.execute(insert(tokens).values(
            token_hash=hash_secret(token), role=role, name=name or "", created_at=utcnow(), revoked=False,
        )).inserted_primary_key[0]
        if not name:  # a readable default that is unique without asking the caller
            conn.execute(update(tokens).where(tokens.c.id == new_id).values(name=f"{role}-{new_id}"))
    return token


def _principal(conn: Connection, token_hash: str) -> Principal | None:
    row = conn.execute(select(tokens).where(tokens.c.token_hash == token_hash, tokens.c.revoked.is_(False))) \
        .mappings().first()
    return None if row is None else Principal(name=row["name"], role=row["role"], token_id=row["id"])


def principal_for(db: Database, token: str) -> Principal | None:
    """The principal a token stands for, or None when it is unknown or revoked."""
    if not token:
        return None
    with db.read() as conn:
        return _principal(conn, hash_secret(token))


def list_tokens(db: Database) -> list[dict[str, Any]]:
    """Every token's id, name, role, creation time and whether it is revoked (never the token)."""
    with db.read() as conn:
        rows = conn.execute(select(tokens.c.id, tokens.c.name, tokens.c.role, tokens.c.created_at,
                                   tokens.c.revoked).order_by(tokens.c.id)).mappings().all()
    return [{**row, "created_at": row["created_at"].isoformat(timespec="seconds") + "Z"} for row in rows]


def revoke_token(db: Database, token_id: int) -> None:
    """Revoke a token and end its sessions. Raises NotFoundError for an unknown id."""
    with db.write() as conn:
        done = conn.execute(update(tokens).where(tokens.c.id == int(token_id)).values(revoked=True)).rowcount
        if not done:
            raise NotFoundError(f"no token with id {token_id}")
        conn.execute(delete(sessions).where(sessions.c.token_id == int(token_id)))


def create_session(db: Database, principal: Principal, ttl_s: int = SESSION_TTL_S) -> str:
    """Start a login session for ``principal``; returns the session id for the cookie (only its hash is kept).

    Expired sessions are removed on the way.
    """
    session_id = new_secret()
    now = utcnow()
    with db.write() as conn:
        conn.execute(delete(sessions).where(sessions.c.expires_at < now))
        conn.execute(insert(sessions).values(id_hash=hash_secret(session_id), token_id=principal.token_id,
                                             created_at=now, expires_at=now + timedelta(seconds=ttl_s)))
    return session_id


def principal_for_session(db: Database, session_id: str) -> Principal | None:
    """The principal of a live session, or None when it is unknown, expired or its token was revoked."""
    if not session_id:
        return None
    with db.read() as conn:
        row = conn.execute(
            select(tokens.c.token_hash).select_from(sessions.join(tokens, sessions.c.token_id == tokens.c.id))
            .where(sessions.c.id_hash == hash_secret(session_id), sessions.c.expires_at > utcnow())
        ).first()
        return None if row is None else _principal(conn, row[0])


def end_session(db: Database, session_id: str) -> None:
    """Forget a session (logout). Unknown ids are ignored."""
    with db.write() as conn:
        conn.execute(delete(sessions).where(sessions.c.id_hash == hash_secret(session_id)))
