"""``Store``: the only thing that touches the database (api/SERVICE.md).

One Store is shared by every thread of the service (a worker per table, review-job threads, the web
server); each call takes its own connection and transaction, and appends are serialised so the hash chain
stays a single line.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping

from api.store import jobs as _jobs
from api.store import log as _log
from api.store import migrate as _migrate
from api.store import tokens as _tokens
from api.store import views as _views
from api.store.database import Database
from api.store.errors import NotFoundError, StoreInputError
from api.store.records import Principal, StoredEvent


class Store:
    """The pitwatch store at ``url`` (``sqlite:///path.db`` in WAL mode, or ``postgresql://...``).

    Call :meth:`migrate` once before use. Raises StoreInputError for a URL that is not a database URL or
    whose driver is not installed.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self._db = Database(url)

    # -- schema ----------------------------------------------------------------------------------
    def migrate(self) -> None:
        """Create or upgrade the schema to the newest migration (``alembic upgrade head``); a no-op when current."""
        _migrate.upgrade(self._db)

    def revision(self) -> str | None:
        """The schema revision the database is at (None before :meth:`migrate`)."""
        return _migrate.current_revision(self._db)

    def close(self) -> None:
        """Close pooled connections (the Store can still be used afterwards; it reconnects)."""
        self._db.dispose()

    # -- tokens and sessions ---------------------------------------------------------------------
    def create_token(self, role: str, name: str | None = None) -> str:
        """A new token for ``role`` (viewer|investigator|admin); only its sha256 is stored.

        Raises StoreInputError for an unknown role.
        """
        return _tokens.create_token(self._db, role, name)

    def principal_for(self, token: str) -> Principal | None:
        """The principal of a token, or None when unknown or revoked."""
        return _tokens.principal_for(self._db, token)

    def tokens(self) -> list[dict[str, Any]]:
        """Every token's id, name, role, created_at and revoked (never the token itself)."""
        return _tokens.list_tokens(self._db)

    def revoke_token(self, token_id: int) -> None:
        """Revoke a token and end its sessions. Raises NotFoundError for an unknown id."""
        _tokens.revoke_token(self._db, token_id)

    def create_session(self, principal: Principal, ttl_s: int = _tokens.SESSION_TTL_S) -> str:
        """Start a login session; returns the session id for the cookie (only its hash is stored)."""
        return _tokens.create_session(self._db, principal, ttl_s)

    def principal_for_session(self, session_id: str) -> Principal | None:
        """The principal of a live session, or None when unknown, expired or its token was revoked."""
        return _tokens.principal_for_session(self._db, session_id)

    def end_session(self, session_id: str) -> None:
        """Forget a session (logout); unknown ids are ignored."""
        _tokens.end_session(self._db, session_id)

    # -- the event log ---------------------------------------------------------------------------
    def append(self, table_id: str | None, kind: str, payload: Mapping[str, Any], t_s: float | None = None,
               frame: int | None = None, utc: datetime | str | None = None, review_id: int | None = None,
               dedup_key: str | None = None) -> StoredEvent:
        """Append an event to the hash-chained log and return it as stored.

        ``t_s`` seconds from the source's start, ``frame`` its index, ``utc`` ISO 8601 (or a datetime).
        The same ``dedup_key`` twice returns the first stored event instead of a duplicate.
        Raises StoreInputError for a bad kind, a non-JSON payload, an alert without a ``type``, an ack
        without an ``alert_id``, or a bad ``utc``.
        """
        return _log.append(self._db, table_id, kind, payload, t_s=t_s, frame=frame, utc=utc,
                           review_id=review_id, dedup_key=dedup_key)

    def events(self, kind: str | None = None, table: str | None = None, after_id: int | None = None,
               limit: int | None = None) -> list[StoredEvent]:
        """Stored events in id order: of one kind or table, after an id (for followers), at most ``limit``."""
        with self._db.read() as conn:
            return _log.read_events(conn, kind=kind, table_id=table, after_id=after_id, limit=limit)

    def verify(self) -> list[str]:
        """Recompute the chain: [] when it holds, else one line per bad row naming its id and what is wrong."""
        return _log.verify(self._db)[1]

    def verify_summary(self) -> tuple[int, list[str]]:
        """(number of events, problem lines) — what ``pitwatch verify-log`` prints."""
        return _log.verify(self._db)

    # -- rounds and alerts -----------------------------------------------------------------------
    def rounds(self, table: str | None = None, since: datetime | str | None = None,
               until: datetime | str | None = None, review_id: int | None = None,
               limit: int | None = None) -> list[dict]:
        """Rounds (payload + ``id``, ``table``, ``review_id``, ``recorded_at``), oldest first.

        ``since``/``until`` (ISO 8601 or datetime) filter on the event's UTC time (its ``utc``, else when it
        was stored); ``limit`` keeps the newest. Raises StoreInputError for a bad time.
        """
        with self._db.read() as conn:
            return _views.rounds(conn, table=table, since=since, until=until, review_id=review_id, limit=limit)

    def round(self, round_id: int) -> dict | None:
        """One round by id, or None."""
        with self._db.read() as conn:
            return _views.round_by_id(conn, _as_id(round_id, "round id"))

    def alerts(self, table: str | None = None, since: datetime | str | None = None,
               until: datetime | str | None = None, type: str | None = None, seat: int | str | None = None,
               acknowledged: bool | None = None, review_id: int | None = None,
               limit: int | None = None) -> list[dict]:
        """Alerts (payload + ``id``, ``table``, ``review_id``, ``recorded_at``, ``acknowledged``, ``ack``).

        Oldest first; the filters are as for :meth:`rounds`, plus ``type``, ``seat`` (a number or "dealer")
        and ``acknowledged`` (an "ack" event names the alert).
        """
        with self._db.read() as conn:
            return _views.alerts(conn, table=table, since=since, until=until, type=type, seat=seat,
                                 acknowledged=acknowledged, review_id=review_id, limit=limit)

    def alert(self, alert_id: int) -> dict | None:
        """One alert by id (with ``acknowledged`` and ``ack``), or None."""
        with self._db.read() as conn:
            return _views.alert_by_id(conn, _as_id(alert_id, "alert id"))

    def acknowledge(self, alert_id: int, by: str, comment: str = "") -> dict:
        """Acknowledge an alert with an "ack" event; returns the alert with its ack.

        Acknowledging twice keeps the first ack. Raises NotFoundError for an unknown alert.
        """
        alert_id = _as_id(alert_id, "alert id")
        alert = self.alert(alert_id)
        if alert is None:
            raise NotFoundError(f"no alert with id {alert_id}")
        self.append(alert["table"], "ack", {"alert_id": alert_id, "by": by, "comment": comment or ""},
                    review_id=alert["review_id"], dedup_key=f"ack:{alert_id}")
        return self.alert(alert_id)

    def log_access(self, principal_name: str, resource: str) -> StoredEvent:
        """Record that ``principal_name`` opened ``resource`` (evidence access), as an "access" event."""
        return self.append(None, "access", {"by": principal_name, "resource": resource})

    # -- review jobs -----------------------------------------------------------------------------
    def create_job(self, source_path: str, table_path: str, by: str, out_dir: str | None = None) -> dict:
        """A queued review job (dict: id, state, progress, source_path, table_path, out_dir, error,
        created_by, created_at, updated_at)."""
        return _jobs.create_job(self._db, source_path, table_path, by, out_dir)

    def update_job(self, job_id: int, **fields: Any) -> dict:
        """Change ``state``, ``progress`` (0..1), ``out_dir`` or ``error``; returns the job.

        A change of state is appended as a "review_status" event. Raises NotFoundError for an unknown
        job and StoreInputError for an unknown field or bad value.
        """
        return _jobs.update_job(self._db, _as_id(job_id, "job id"), **fields)

    def job(self, job_id: int) -> dict | None:
        """One review job, or None."""
        return _jobs.get_job(self._db, _as_id(job_id, "job id"))

    def jobs(self, state: str | None = None) -> list[dict]:
        """Every review job (or those in ``state``), newest first."""
        return _jobs.list_jobs(self._db, state)


def _as_id(value: Any, what: str) -> int:
    """An integer id from an int or its decimal text. Raises StoreInputError otherwise."""
    try:
        return int(value)
    except (TypeError, ValueError):
        raise StoreInputError(f"{what}: expected an integer, got {value!r}") from None
