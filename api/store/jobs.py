"""Review jobs: a row per job, and a "review_status" event in the log for every change of state."""

from __future__ import annotations

from typing import Any, Mapping

from sqlalchemy import insert, select, update

from api.store import log
from api.store.database import Database
from api.store.errors import NotFoundError, StoreInputError
from api.store.records import JOB_STATES
from api.store.schema import jobs

#: Fields update_job may change.
UPDATABLE = ("state", "progress", "out_dir", "error")


def _as_dict(row: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(row)
    for name in ("created_at", "updated_at"):
        out[name] = row[name].isoformat(timespec="seconds") + "Z"
    return out


def _check(fields: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(fields) - set(UPDATABLE))
    if unknown:
        raise StoreInputError(f"update_job: unknown field(s) {', '.join(unknown)}; allowed: {', '.join(UPDATABLE)}")
    out = dict(fields)
    if "state" in out and out["state"] not in JOB_STATES:
        raise StoreInputError(f"state must be one of {', '.join(JOB_STATES)}, not {out['state']!r}")
    if "progress" in out:
        try:
            out["progress"] = float(out["progress"])
        except (TypeError, ValueError):
            raise StoreInputError(f"progress must be a number from 0 to 1, not {out['progress']!r}") from None
        if not 0.0 <= out["progress"] <= 1.0:
            raise StoreInputError(f"progress must be from 0 to 1, not {out['progress']}")
    for name in ("out_dir", "error"):
        if name in out and out[name] is not None:
            out[name] = str(out[name])
    return out


def create_job(db: Database, source_path: str, table_path: str, by: str, out_dir: str | None = None) -> dict:
    """Record a queued review job; returns it as a dict (id, state, progress, paths, error, who, times)."""
    if not str(source_path).strip() or not str(table_path).strip():
        raise StoreInputError("create_job: source_path and table_path must not be empty")
    now = log.utcnow()
    with db.write() as conn:
        job_id = conn.execute(insert(jobs).values(
            state="queued", progress=0.0, source_path=str(source_path), table_path=str(table_path),
            out_dir=None if out_dir is None else str(out_dir), error=None, created_by=by,
            created_at=now, updated_at=now)).inserted_primary_key[0]
        log.append_in(conn, None, "review_status", {"job_id": job_id, "state": "queued", "by": by},
                      review_id=job_id)
    return get_job(db, job_id)


def get_job(db: Database, job_id: int) -> dict | None:
    """One job as a dict, or None."""
    with db.read() as conn:
        row = conn.execute(select(jobs).where(jobs.c.id == int(job_id))).mappings().first()
    return None if row is None else _as_dict(row)


def list_jobs(db: Database, state: str | None = None) -> list[dict]:
    """Every job (or those in ``state``), newest first."""
    query = select(jobs).order_by(jobs.c.id.desc())
    if state is not None:
        query = query.where(jobs.c.state == state)
    with db.read() as conn:
        return [_as_dict(row) for row in conn.execute(query).mappings()]


def update_job(db: Database, job_id: int, **fields: Any) -> dict:
    """Change a job's state, progress, out_dir or error; a change of state is appended to the log.

    Raises NotFoundError for an unknown job, StoreInputError for an unknown field or a bad value.
    """
    values = _check(fields)
    with db.write() as conn:
        before = conn.execute(select(jobs.c.state).where(jobs.c.id == int(job_id))).first()
        if before is None:
            raise NotFoundError(f"no review job with id {job_id}")
        conn.execute(update(jobs).where(jobs.c.id == int(job_id)).values(**values, updated_at=log.utcnow()))
        if "state" in values and values["state"] != before[0]:
            payload = {"job_id": int(job_id), "state": values["state"], "from": before[0]}
            if values.get("error"):
                payload["error"] = values["error"]
            log.append_in(conn, None, "review_status", payload, review_id=int(job_id))
    return get_job(db, job_id)
