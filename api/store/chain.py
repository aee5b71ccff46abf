"""The hash chain: what a row's hash covers and how it is computed.

``hash = sha256(prev_hash + canonical JSON of the row's content)``, where the content is every stored column
except ``id`` and ``hash`` and canonical JSON is ``json.dumps(sort_keys=True, separators=(",", ":"))``.
The first row's ``prev_hash`` is :data:`GENESIS`.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any, Mapping

from api.store.errors import StoreInputError

GENESIS = "0" * 64

#: The hashed columns of an event row, in no particular order (canonical JSON sorts them).
CONTENT_COLUMNS: tuple[str, ...] = (
    "table_id", "kind", "payload", "t_s", "frame", "utc", "review_id", "dedup_key",
    "created_at", "occurred_at", "alert_type", "seat", "ref_id", "prev_hash",
)


def canonical_json(value: Any) -> str:
    """Canonical JSON text of ``value``. Raises StoreInputError for values JSON cannot hold (NaN, objects)."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StoreInputError(f"payload is not plain JSON: {exc}") from None


def _plain(value: Any) -> Any:
    # datetimes are stored naive UTC; microseconds always shown so the text does not depend on the value
    if isinstance(value, datetime):
        return value.isoformat(timespec="microseconds")
    return value


def row_content(row: Mapping[str, Any]) -> dict[str, Any]:
    """The hashed part of an event row (a mapping with at least :data:`CONTENT_COLUMNS`)."""
    return {name: _plain(row[name]) for name in CONTENT_COLUMNS}


def event_hash(prev_hash: str, content: Mapping[str, Any]) -> str:
    """sha256 hex of ``prev_hash`` followed by the canonical JSON of ``content``."""
    return hashlib.sha256((prev_hash + canonical_json(dict(content))).encode("utf-8")).hexdigest()
