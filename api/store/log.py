"""The append-only, hash-chained event log: append, read back, verify.

There is no update or delete here, on purpose. On SQLite the migration also adds triggers that refuse
UPDATE and DELETE on ``events``; on PostgreSQL a trigger function does the same.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Any, Iterator, Mapping

from sqlalchemy import Connection, insert, select, update

from api.store.chain import GENESIS, canonical_json, event_hash, row_content
from api.store.database import Database
from api.store.errors import StoreInputError
from api.store.records import StoredEvent
from api.store.schema import chain_head, events

_KIND = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


def utcnow() -> datetime:
    """Now as a naive UTC datetime (the store's convention)."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


def parse_utc(value: datetime | str, field: str) -> datetime:
    """A datetime or ISO 8601 text as naive UTC (a value without a zone is taken as UTC).

    Raises StoreInputError naming ``field`` when the text is not ISO 8601.
    """
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            raise StoreInputError(f"{field}: not an ISO 8601 time: {value!r}") from None
    if not isinstance(value, datetime):
        raise StoreInputError(f"{field}: expected an ISO 8601 time, got {type(value).__name__}")
    if value.tzinfo is not None:
        value = value.astimezone(timezone.utc).replace(tzinfo=None)
    return value


def _derived(kind: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """Columns derived from the payload so that SQL can filter on them."""
    out: dict[str, Any] = {"alert_type": None, "seat": None, "ref_id": None}
    if kind == "alert":
        if not isinstance(payload.get("type"), str) or not payload["type"]:
            raise StoreInputError("alert payload: 'type' must be a non-empty string")
        out["alert_type"] = payload["type"]
        if payload.get("seat") is not None:
            out["seat"] = str(payload["seat"])
    elif kind == "ack":
        try:
            out["ref_id"] = int(payload["alert_id"])
        except (KeyError, TypeError, ValueError):
            raise StoreInputError("ack payload: 'alert_id' must be an alert's id") from None
    return out


def _stored(row: Mapping[str, Any]) -> StoredEvent:
    return StoredEvent(id=row["id"], table_id=row["table_id"], kind=row["kind"], payload=row["payload"],
                       t_s=row["t_s"], frame=row["frame"], utc=row["utc"], review_id=row["review_id"],
                       dedup_key=row["dedup_key"], created_at=row["created_at"], prev_hash=row["prev_hash"],
                       hash=row["hash"])


def append(db: Database, table_id: str | None, kind: str, payload: Mapping[str, Any], *, t_s: float | None = None,
           frame: int | None = None, utc: datetime | str | None = None, review_id: int | None = None,
           dedup_key: str | None = None) -> StoredEvent:
    """Append one event in its own write transaction and return it as stored.

    With a ``dedup_key`` already in the log, nothing is written and the stored event is returned.
    Raises StoreInputError for a bad kind, a payload that is not a JSON object, or a bad time.
    """
    with db.write() as conn:
        return append_in(conn, table_id, kind, payload, t_s=t_s, frame=frame, utc=utc, review_id=review_id,
                         dedup_key=dedup_key)


def append_in(conn: Connection, table_id: str | None, kind: str, payload: Mapping[str, Any], *,
              t_s: float | None = None, frame: int | None = None, utc: datetime | str | None = None,
              review_id: int | None = None, dedup_key: str | None = None) -> StoredEvent:
    """:func:`append` inside a write transaction the caller holds (``Database.write()``), so a change and
    its event commit together."""
    if not isinstance(kind, str) or not _KIND.match(kind):
        raise StoreInputError(f"kind: expected a short lower-case name, got {kind!r}")
    if not isinstance(payload, Mapping):
        raise StoreInputError(f"payload: expected a JSON object, got {type(payload).__name__}")
    # store exactly what is hashed: the payload after a round trip through canonical JSON
    plain = json.loads(canonical_json(dict(payload)))
    utc_text = None
    occurred = None
    if utc is not None:
        occurred = parse_utc(utc, "utc")
        utc_text = utc if isinstance(utc, str) else occurred.isoformat() + "Z"
    derived = _derived(kind, plain)
    if dedup_key is not None:
        found = conn.execute(select(events).where(events.c.dedup_key == dedup_key)).mappings().first()
        if found is not None:
            return _stored(found)
    # the chain head row is the lock that serialises appends (FOR UPDATE on PostgreSQL; SQLite's write lock)
    head = conn.execute(select(chain_head).where(chain_head.c.id == 1).with_for_update()).mappings().one()
    now = utcnow()
    row: dict[str, Any] = {
        "table_id": table_id, "kind": kind, "payload": plain,
        "t_s": None if t_s is None else float(t_s), "frame": None if frame is None else int(frame),
        "utc": utc_text, "review_id": None if review_id is None else int(review_id), "dedup_key": dedup_key,
        "created_at": now, "occurred_at": occurred or now, **derived, "prev_hash": head["last_hash"],
    }
    row["hash"] = event_hash(row["prev_hash"], row_content(row))
    new_id = conn.execute(insert(events).values(**row)).inserted_primary_key[0]
    conn.execute(update(chain_head).where(chain_head.c.id == 1).values(last_event_id=new_id, last_hash=row["hash"]))
    return _stored({**row, "id": new_id})


def read_events(conn: Connection, *, kind: str | None = None, table_id: str | None = None,
                after_id: int | None = None, limit: int | None = None) -> list[StoredEvent]:
    """Events in id order, optionally of one kind or table, after an id, at most ``limit`` of them."""
    query = select(events).order_by(events.c.id)
    if kind is not None:
        query = query.where(events.c.kind == kind)
    if table_id is not None:
        query = query.where(events.c.table_id == table_id)
    if after_id is not None:
        query = query.where(events.c.id > after_id)
    if limit is not None:
        query = query.limit(limit)
    return [_stored(row) for row in conn.execute(query).mappings()]


#: Rows read per query while verifying.
_VERIFY_BATCH = 1000


def _rows_in_order(conn: Connection) -> Iterator[tuple[Mapping[str, Any], Mapping[str, Any] | None, str | None]]:
    """Every row as (id/prev_hash/hash, full row or None, why the full row cannot be read), in id order.

    A value edited by hand may not parse as its column's type (a date that is not a date, a payload that is
    not JSON); such a row is reported, not allowed to stop the check.
    """
    last = 0
    while True:
        heads = conn.execute(select(events.c.id, events.c.prev_hash, events.c.hash).where(events.c.id > last)
                             .order_by(events.c.id).limit(_VERIFY_BATCH)).mappings().all()
        if not heads:
            return
        try:
            full = conn.execute(select(events).where(events.c.id.between(heads[0]["id"], heads[-1]["id"]))
                                .order_by(events.c.id)).mappings().all()
            rows = {row["id"]: row for row in full}
            for head in heads:
                yield head, rows.get(head["id"]), None
        except (ValueError, TypeError):  # read the batch row by row to find the unreadable one(s)
            for head in heads:
                try:
                    row = conn.execute(select(events).where(events.c.id == head["id"])).mappings().one()
                    yield head, row, None
                except (ValueError, TypeError) as exc:
                    yield head, None, f"{type(exc).__name__}: {exc}"
        last = heads[-1]["id"]


def verify(db: Database) -> tuple[int, list[str]]:
    """Recompute the chain: (number of events, one line per problem). No lines means the chain holds.

    Each line names the event id and what is wrong: a hash that does not match the row's content
    (the row was altered), a ``prev_hash`` that does not match the event before it (a row was removed or
    inserted), a value that cannot be read back, or a chain head that does not match the log's last row
    (rows cut off the end).
    """
    problems: list[str] = []
    count = 0
    expected_prev, prev_id = GENESIS, None
    with db.read() as conn:
        for head, row, unreadable in _rows_in_order(conn):
            count += 1
            where = f"event {head['id']}"
            if head["prev_hash"] != expected_prev:
                before = f"event {prev_id}" if prev_id is not None else "the start of the log"
                problems.append(f"{where}: prev_hash does not match the hash of {before} "
                                f"(a row before it was removed, inserted or altered)")
            if unreadable is not None or row is None:
                problems.append(f"{where}: a stored value cannot be read back (the row was altered: {unreadable})")
            else:
                try:
                    recomputed = event_hash(head["prev_hash"], row_content(row))
                except StoreInputError as exc:
                    recomputed = None
                    problems.append(f"{where}: content cannot be hashed (the row was altered: {exc})")
                if recomputed is not None and recomputed != head["hash"]:
                    problems.append(f"{where}: hash does not match its content (the row was altered)")
            # go on from the stored hash so one altered row is named once, not every row after it
            expected_prev, prev_id = head["hash"], head["id"]
        chain = conn.execute(select(chain_head).where(chain_head.c.id == 1)).mappings().first()
    if chain is None:
        problems.append("chain head: missing (the chain_head row was deleted)")
    elif chain["last_event_id"] != prev_id or chain["last_hash"] != expected_prev:
        problems.append(f"chain head: records event {chain['last_event_id']} as the last, but the log ends at "
                        f"event {prev_id} (rows were removed from the end or the head was altered)")
    return count, problems
