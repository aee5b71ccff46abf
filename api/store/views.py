"""Rounds and alerts: events of kind "round" and "alert", read back as the API's dicts.

An alert is acknowledged when an "ack" event names it; alerts are never changed in place.
Filters run in SQL on the columns derived at append time.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping

from sqlalchemy import Connection, Select, and_, exists, select

from api.store.log import parse_utc
from api.store.schema import events


def _meta(row: Mapping[str, Any]) -> dict[str, Any]:
    """The payload plus the row's id, table, review and times (the payload's own t_s/frame/utc win)."""
    out = dict(row["payload"])
    out["id"] = row["id"]
    out["table"] = row["table_id"]
    out["review_id"] = row["review_id"]
    for name in ("t_s", "frame", "utc"):
        if out.get(name) is None and row[name] is not None:
            out[name] = row[name]
    out["recorded_at"] = row["created_at"].isoformat(timespec="microseconds") + "Z"
    return out


def _time_range(query: Select, since: datetime | str | None, until: datetime | str | None) -> Select:
    if since is not None:
        query = query.where(events.c.occurred_at >= parse_utc(since, "since"))
    if until is not None:
        query = query.where(events.c.occurred_at <= parse_utc(until, "until"))
    return query


def _latest(query: Select, limit: int | None) -> Select:
    # the newest `limit` rows, handed back oldest first
    if limit is None:
        return query.order_by(events.c.id)
    inner = query.order_by(events.c.id.desc()).limit(int(limit)).subquery()
    return select(inner).order_by(inner.c.id)


def rounds(conn: Connection, *, table: str | None = None, since: datetime | str | None = None,
           until: datetime | str | None = None, review_id: int | None = None,
           limit: int | None = None) -> list[dict[str, Any]]:
    """Stored rounds, oldest first (the newest ``limit`` when given). Times filter on the event's UTC time."""
    query = select(events).where(events.c.kind == "round")
    if table is not None:
        query = query.where(events.c.table_id == table)
    if review_id is not None:
        query = query.where(events.c.review_id == int(review_id))
    query = _latest(_time_range(query, since, until), limit)
    return [_meta(row) for row in conn.execute(query).mappings()]


def round_by_id(conn: Connection, round_id: int) -> dict[str, Any] | None:
    """One round by its event id, or None."""
    row = conn.execute(select(events).where(events.c.kind == "round", events.c.id == int(round_id))) \
        .mappings().first()
    return None if row is None else _meta(row)


def _ack_of(conn: Connection, alert_ids: list[int]) -> dict[int, dict[str, Any]]:
    """The first ack of each alert id that has one."""
    if not alert_ids:
        return {}
    query = (select(events).where(events.c.kind == "ack", events.c.ref_id.in_(alert_ids))
             .order_by(events.c.id))
    found: dict[int, dict[str, Any]] = {}
    for row in conn.execute(query).mappings():
        found.setdefault(row["ref_id"], {
            "by": row["payload"].get("by"), "comment": row["payload"].get("comment"),
            "at": row["created_at"].isoformat(timespec="microseconds") + "Z", "event_id": row["id"]})
    return found


def _with_ack(conn: Connection, rows: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    acks = _ack_of(conn, [row["id"] for row in rows])
    out = []
    for row in rows:
        alert = _meta(row)
        alert["ack"] = acks.get(row["id"])
        alert["acknowledged"] = alert["ack"] is not None
        out.append(alert)
    return out


def alerts(conn: Connection, *, table: str | None = None, since: datetime | str | None = None,
           until: datetime | str | None = None, type: str | None = None, seat: int | str | None = None,
           acknowledged: bool | None = None, review_id: int | None = None,
           limit: int | None = None) -> list[dict[str, Any]]:
    """Stored alerts, oldest first (the newest ``limit`` when given), each with ``acknowledged`` and ``ack``.

    ``seat`` matches a seat number or ``"dealer"``; ``type`` an alert type (contracts: review).
    """
    query = select(events).where(events.c.kind == "alert")
    if table is not None:
        query = query.where(events.c.table_id == table)
    if review_id is not None:
        query = query.where(events.c.review_id == int(review_id))
    if type is not None:
        query = query.where(events.c.alert_type == type)
    if seat is not None:
        query = query.where(events.c.seat == str(seat))
    if acknowledged is not None:
        acks = events.alias("acks")
        has_ack = exists().where(and_(acks.c.kind == "ack", acks.c.ref_id == events.c.id))
        query = query.where(has_ack if acknowledged else ~has_ack)
    query = _latest(_time_range(query, since, until), limit)
    return _with_ack(conn, list(conn.execute(query).mappings()))


def alert_by_id(conn: Connection, alert_id: int) -> dict[str, Any] | None:
    """One alert by its event id (with ``acknowledged`` and ``ack``), or None."""
    row = conn.execute(select(events).where(events.c.kind == "alert", events.c.id == int(alert_id))) \
        .mappings().first()
    return None if row is None else _with_ack(conn, [row])[0]
