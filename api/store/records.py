"""Records that leave the store: principals (who is asking) and stored events.

Plain frozen dataclasses so callers (the web app, the CLI, the workers) never hold a database row.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from api.store.errors import StoreInputError

#: Roles from least to most trusted; a higher role may do what a lower one may (api/SERVICE.md).
ROLES: tuple[str, ...] = ("viewer", "investigator", "admin")

#: States a review job can be in.
JOB_STATES: tuple[str, ...] = ("queued", "running", "done", "failed", "cancelled")


def role_rank(role: str) -> int:
    """Position of ``role`` in :data:`ROLES` (0 = viewer). Raises StoreInputError for an unknown role."""
    try:
        return ROLES.index(role)
    except ValueError:
        raise StoreInputError(f"role must be one of {', '.join(ROLES)}, not {role!r}") from None


@dataclass(frozen=True)
class Principal:
    """Who is asking: the token's name, its role and the token's id in the store."""

    name: str
    role: str
    token_id: int

    def may(self, role: str) -> bool:
        """True when this principal's role is ``role`` or higher. Raises StoreInputError for an unknown role."""
        return role_rank(self.role) >= role_rank(role)


@dataclass(frozen=True)
class StoredEvent:
    """One row of the append-only event log, as stored (ids, hashes and times included).

    ``t_s`` is seconds from the start of the source, ``frame`` its 0-based frame index, ``utc`` the ISO 8601
    wall-clock time where the source knows it; ``created_at`` is when the store wrote the row (naive UTC).
    """

    id: int
    table_id: str | None
    kind: str
    payload: dict[str, Any]
    t_s: float | None
    frame: int | None
    utc: str | None
    review_id: int | None
    dedup_key: str | None
    created_at: datetime
    prev_hash: str
    hash: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``created_at`` as ISO 8601 with a ``Z``)."""
        out = asdict(self)
        out["created_at"] = self.created_at.isoformat(timespec="microseconds") + "Z"
        return out
