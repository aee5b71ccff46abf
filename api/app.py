"""The surveillance service: ``create_app(settings)`` -> a FastAPI app (``pitwatch serve``).

Routes (every one needs a token -- ``Authorization: Bearer <token>`` or the login page's session cookie --
except ``/healthz`` and the login form; the role each needs is in its OpenAPI description):

=========================================  ============  =============================================
route                                      role          what
=========================================  ============  =============================================
GET  /healthz                              none          liveness
GET/POST /login, POST /logout              none          the login form (api/auth.py)
GET  /, /tables/{id}                       viewer        the wall view and the table view (api/pages/)
GET  /openapi.json, /docs                  viewer        the API's schema and a page that lists it
GET  /api/tables[/{id}]                    viewer        live status per table
POST /api/tables, DELETE /api/tables/{id}  admin         serve another table file / stop serving one
GET  /api/tables/{id}/stream.mjpg          viewer        live frames with boxes, labels, zone values
GET  /api/tables/{id}/snapshot.jpg         viewer        the latest such frame (wall-view thumbnails)
WS   /api/tables/{id}/events               viewer        events, alerts and per-frame boxes as JSON
GET  /api/rounds                           viewer        stored rounds (filters: table, since, until)
GET  /api/rounds/{id}                      investigator  one round's full record, evidence URLs
GET  /api/alerts                           viewer        stored alerts (filters below)
POST /api/alerts/{id}/ack                  viewer        acknowledge with a comment (who and when kept)
GET  /api/evidence/{path}                  investigator  evidence images, clips (each access logged)
/api/reviews...                            investigator  review jobs: upload or name a video, follow,
                                                         fetch report.json/html, annotated.mp4, cancel
POST /api/calibration                      admin         layout + point pairs -> calibration JSON
GET  /metrics                              viewer        Prometheus
=========================================  ============  =============================================
"""

from __future__ import annotations

import asyncio
import html
import logging
import os
import re
import tempfile
import uuid
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Optional

from fastapi import (Body, Depends, FastAPI, HTTPException, Path as PathParam, Query, Request, WebSocket,
                     WebSocketDisconnect, status)
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from api.auth import authenticate, log_evidence_access, login_router, require_role
from api.errors import bad_input_types
from api.jobs import ReviewJobs
from api.metrics import Metrics
from api.store import NotFoundError, Principal, Store, StoreInputError
from api.workers import TableConfigError, TableWorker, Workers
from api.workers import alert_json as _alert_out
from api.workers import round_json as _round_out

log = logging.getLogger("pitwatch.serve")

PAGES = Path(__file__).resolve().parent / "pages"
SAMPLES = Path(__file__).resolve().parent / "samples"
MAX_ID = 2**62
VIDEO_SUFFIXES = (".mp4", ".mov", ".mkv", ".avi", ".m4v", ".webm", ".ts", ".mpg", ".mpeg")
ALERT_TYPE_PATTERN = r"^[a-z][a-z_]{1,47}$"
SEAT_PATTERN = r"^([1-9]|dealer)$"
TABLE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$"

viewer = require_role("viewer")
investigator = require_role("investigator")
admin = require_role("admin")


# ------------------------------------------------------------------------------------------------
# settings


class Settings(BaseModel):
    """What ``pitwatch serve`` is told (command-line options; ``$PITWATCH_DB`` for the database).

    Attributes:
        data_dir: the service's folder: the database (by default), evidence, review jobs, uploads.
        db_url: database URL (default: ``$PITWATCH_DB``, else ``sqlite:///DATA_DIR/pitwatch.db``).
        tables: table files to serve (each names its ``source``; ``loop: true`` and ``observer: oracle`` optional).
        upload_limit_bytes: largest video upload accepted (413 above it).
        analyse_fps: frames analysed per second, live and in review jobs.
        realtime: pace video-file sources to their timestamps (always on outside tests).
        media_roots: folders a review job may name a server-side video or table file in (default: the data
            folder, the bundled samples and the working directory).
        start_workers / start_jobs: start the table threads and the review-job thread on start-up.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    data_dir: Path = Path("pitwatch-data")
    db_url: Optional[str] = None
    tables: list[Path] = Field(default_factory=list)
    upload_limit_bytes: int = 2 * 1024**3
    analyse_fps: float = 10.0
    realtime: bool = True
    media_roots: Optional[list[Path]] = None
    start_workers: bool = True
    start_jobs: bool = True
    drift_every: int = 2
    preview_width: int = 960
    evidence_width: int = 960
    mjpeg_fps: float = 10.0
    threads: Optional[int] = None

    def database_url(self) -> str:
        if self.db_url:
            return self.db_url
        env = os.environ.get("PITWATCH_DB")
        if env:
            return env
        return f"sqlite:///{(Path(self.data_dir) / 'pitwatch.db').as_posix()}"

    def roots(self) -> list[Path]:
        roots = self.media_roots if self.media_roots is not None else [Path(self.data_dir), SAMPLES, Path.cwd()]
        return [Path(r).resolve() for r in roots]


# ------------------------------------------------------------------------------------------------
# response models


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    tables: int
    version: str


class TableStatus(BaseModel):
    """A served table, as it stands now."""

    model_config = ConfigDict(extra="allow")

    id: str
    table_file: str
    source: str = Field(description="the source as configured (file, URL or camera index)")
    source_state: str = Field(description="starting, playing, reconnecting, ended, stopped or error")
    source_reason: Optional[str] = None
    observer: str = Field(description="detector or oracle (the render's own readings)")
    phase: str = Field(description="the open round's phase (betting, deal, ...) or idle")
    round_index: Optional[int] = None
    fps_analysed: float
    frames_read: int
    frames_analysed: int
    frames_dropped: int
    last_frame_t_s: Optional[float] = None
    last_frame_utc: Optional[str] = None
    open_alerts: int = Field(description="alerts of this table not yet acknowledged")
    current_round: Optional[dict[str, Any]] = None


class AddTable(BaseModel):
    path: str = Field(description="a table file on the server (its source, observer and loop fields are used)",
                      min_length=1, max_length=4096)


class Ack(BaseModel):
    by: Optional[str] = None
    comment: Optional[str] = None
    at: Optional[str] = None
    event_id: Optional[int] = None


class AlertOut(BaseModel):
    """A stored alert (contracts: review alerts) with its id, table, evidence URLs and acknowledgement."""

    model_config = ConfigDict(extra="allow")

    id: int
    table: Optional[str] = None
    type: str
    seat: Optional[int | str] = None
    t_s: Optional[float] = None
    frame: Optional[int] = None
    expected: Any = None
    observed: Any = None
    message: Optional[str] = None
    rule: Optional[str] = None
    review_id: Optional[int] = None
    round_index: Optional[int] = None
    utc: Optional[str] = None
    recorded_at: Optional[str] = None
    evidence_url: Optional[str] = None
    clip_url: Optional[str] = None
    acknowledged: bool = False
    ack: Optional[Ack] = None


class RoundOut(BaseModel):
    """A stored round (contracts: review rounds) with its id, table and the alerts' evidence URLs."""

    model_config = ConfigDict(extra="allow")

    id: int
    table: Optional[str] = None
    index: int
    start_s: float
    end_s: Optional[float] = None
    dealer: dict[str, Any]
    seats: list[dict[str, Any]]
    alerts: list[dict[str, Any]]
    review_id: Optional[int] = None
    utc: Optional[str] = None
    recorded_at: Optional[str] = None


class AckIn(BaseModel):
    comment: str = Field("", max_length=2000, description="what the operator saw or did")


class ReviewByPath(BaseModel):
    video: str = Field(min_length=1, max_length=4096, description="a video file on the server")
    table: str = Field(min_length=1, max_length=4096,
                       description="a served table's id, or a table file on the server")
    annotated: bool = Field(True, description="write annotated.mp4")
    observer: Optional[Literal["detector", "oracle"]] = Field(
        None, description="default: the table file's observer field, else detector")


class JobOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: int
    state: str = Field(description="queued, running, done, failed or cancelled")
    progress: float
    source_path: str
    table_path: str
    error: Optional[str] = None
    created_by: Optional[str] = None
    created_at: Optional[str] = None
    updated_at: Optional[str] = None
    files: dict[str, str] = Field(default_factory=dict, description="URLs of the review's files, once written")


class CalibrationIn(BaseModel):
    layout: Optional[str] = Field(None, max_length=200, description="a shipped layout id (or give table)")
    table: Optional[str] = Field(None, max_length=200, description="a served table's id: its layout is used")
    image_size: tuple[int, int] = Field(description="width, height in pixels")
    points: list[dict[str, Any]] = Field(description='[{"image": [u, v], "layout": [x, y] or "seat2.main"}], '
                                                     'at least 4', max_length=500)


# ------------------------------------------------------------------------------------------------
# the app


def create_app(settings: Settings | None = None, store: Store | None = None) -> FastAPI:
    """The service. Opens (and migrates) the store, loads the table files (TableConfigError for a bad one)
    and, on start-up, starts a worker thread per table and the review-job thread."""
    settings = settings or Settings()
    data_dir = Path(settings.data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    if store is None:
        store = Store(settings.database_url())
        store.migrate()
    metrics = Metrics()
    workers = Workers()
    for path in settings.tables:
        workers.add(_make_worker(path, store, settings, metrics), start=False)
    jobs = ReviewJobs(store, data_dir, metrics, analyse_fps=settings.analyse_fps, threads=settings.threads)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.closing.clear()
        if settings.start_workers:
            for w in workers.all():
                if not w.alive:
                    w.start()
        if settings.start_jobs:
            jobs.recover()
            jobs.start()
        try:
            yield
        finally:
            app.state.closing.set()
            await run_in_threadpool(workers.stop_all)
            await run_in_threadpool(jobs.stop)

    app = FastAPI(title="pitwatch", version=_version(), lifespan=lifespan, openapi_url=None, docs_url=None,
                  redoc_url=None,
                  description="Computer-vision monitor for casino blackjack tables: live tables, rounds, alerts, "
                              "evidence and review jobs. Every route needs a bearer token (or the login page's "
                              "session cookie) except /healthz and the login form.")
    app.state.store = store
    app.state.settings = settings
    app.state.metrics = metrics
    app.state.workers = workers
    app.state.jobs = jobs
    app.state.closing = asyncio.Event()
    app.include_router(login_router())
    _errors(app)
    _routes(app)
    return app


def _make_worker(path, store, settings: Settings, metrics) -> TableWorker:
    return TableWorker(path, store, settings.data_dir, metrics, analyse_fps=settings.analyse_fps,
                       realtime=settings.realtime, evidence_width=settings.evidence_width,
                       preview_width=settings.preview_width, drift_every=settings.drift_every,
                       threads=settings.threads)


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("pitwatch")
    except Exception:  # noqa: BLE001 - not installed: a checkout
        return "0"


def _errors(app: FastAPI) -> None:
    async def bad(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=status.HTTP_400_BAD_REQUEST)

    async def missing(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=status.HTTP_404_NOT_FOUND)

    for exc_type in (StoreInputError, TableConfigError, *bad_input_types()):
        app.add_exception_handler(exc_type, bad)
    app.add_exception_handler(NotFoundError, missing)

    async def login_needed(request: Request, exc: _LoginNeeded) -> HTMLResponse:
        target = html.escape(str(request.url.path))
        body = (f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=/login">'
                f'<title>sign in</title><p>{target} needs a token: <a href="/login">sign in</a>.</p>')
        return HTMLResponse(body, status_code=401, headers={"WWW-Authenticate": "Bearer"})

    app.add_exception_handler(_LoginNeeded, login_needed)


class _LoginNeeded(Exception):
    pass


def page_viewer(request: Request) -> Principal:
    """Pages: like ``require_role("viewer")`` but a browser without a session is sent to the login form
    (the answer is still 401)."""
    principal = authenticate(request)
    if principal is None:
        raise _LoginNeeded()
    request.state.principal = principal
    return principal


_PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; media-src 'self'; "
                               "connect-src 'self' ws: wss:; style-src 'self'; script-src 'self'; "
                               "frame-ancestors 'none'; form-action 'self'",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
}
_STATIC_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
                 ".svg": "image/svg+xml", ".png": "image/png", ".ico": "image/x-icon"}


def _page(name: str, principal: Principal, **values: str) -> HTMLResponse:
    text = (PAGES / name).read_text(encoding="utf-8")
    values = {"user": principal.name, "role": principal.role, **values}
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", html.escape(str(value), quote=True))
    return HTMLResponse(text, headers=_PAGE_HEADERS)


def _routes(app: FastAPI) -> None:
    store: Store = app.state.store
    settings: Settings = app.state.settings
    workers: Workers = app.state.workers
    jobs: ReviewJobs = app.state.jobs
    metrics: Metrics = app.state.metrics
    data_dir = Path(settings.data_dir).resolve()

    def worker_or_404(table_id: str) -> TableWorker:
        w = workers.get(table_id)
        if w is None:
            known = ", ".join(sorted(workers.by_id)) or "none"
            raise HTTPException(404, f"no table {table_id!r} is served (served: {known})")
        return w

    # -- public ---------------------------------------------------------------------------------

    @app.get("/healthz", response_model=Health, tags=["service"], summary="Liveness (no token needed)")
    def healthz() -> Health:
        return Health(tables=len(workers.by_id), version=app.version)

    # -- schema and docs ------------------------------------------------------------------------

    @app.get("/openapi.json", include_in_schema=False)
    def openapi(_: Principal = Depends(viewer)) -> JSONResponse:
        return JSONResponse(app.openapi())

    @app.get("/docs", response_class=HTMLResponse, tags=["pages"], summary="API reference page (viewer)")
    def docs(principal: Principal = Depends(page_viewer)) -> HTMLResponse:
        return _page("docs.html", principal)

    # -- pages ----------------------------------------------------------------------------------

    @app.get("/", response_class=HTMLResponse, tags=["pages"], summary="Wall view: every table (viewer)")
    def wall(principal: Principal = Depends(page_viewer)) -> HTMLResponse:
        return _page("wall.html", principal)

    @app.get("/tables/{table_id}", response_class=HTMLResponse, tags=["pages"],
             summary="Table view: video with boxes, alert feed, round timeline (viewer)")
    def table_page(table_id: str = PathParam(max_length=64),
                   principal: Principal = Depends(page_viewer)) -> HTMLResponse:
        worker_or_404(table_id)
        return _page("table.html", principal, table=table_id)

    @app.get("/static/{name}", include_in_schema=False)
    def static(name: str, _: Principal = Depends(page_viewer)) -> Response:
        path = PAGES / name
        if "/" in name or name.startswith(".") or path.suffix not in _STATIC_TYPES or not path.is_file():
            raise HTTPException(404, f"no static file {name!r}")
        return Response(path.read_bytes(), media_type=_STATIC_TYPES[path.suffix],
                         headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"})

    # -- tables ---------------------------------------------------------------------------------

    def table_status(w: TableWorker) -> TableStatus:
        s = w.status()
        s["open_alerts"] = len(store.alerts(table=w.id, acknowledged=False))
        return TableStatus(**s)

    @app.get("/api/tables", response_model=list[TableStatus], tags=["tables"],
             summary="Every served table's live status (viewer)")
    def list_tables(_: Principal = Depends(viewer)) -> list[TableStatus]:
        return [table_status(w) for w in workers.all()]

    @app.get("/api/tables/{table_id}", response_model=TableStatus, tags=["tables"],
             summary="One table's live status with its open round (viewer)")
    def get_table(table_id: str = PathParam(max_length=64), _: Principal = Depends(viewer)) -> TableStatus:
        return table_status(worker_or_404(table_id))

    @app.post("/api/tables", response_model=TableStatus, status_code=201, tags=["tables"],
              summary="Serve another table file (admin)",
              responses={400: {"description": "the table file cannot be served (the message says why)"},
                         409: {"description": "a table with that id is already served"}})
    def add_table(body: AddTable, _: Principal = Depends(admin)) -> TableStatus:
        path = _server_path(body.path, settings, "path")
        worker = _make_worker(path, store, settings, metrics)
        if workers.get(worker.id) is not None:
            raise HTTPException(409, f"table {worker.id!r} is already served")
        workers.add(worker, start=settings.start_workers)
        return table_status(worker)

    @app.delete("/api/tables/{table_id}", status_code=204, tags=["tables"], summary="Stop serving a table (admin)")
    def remove_table(table_id: str = PathParam(max_length=64), _: Principal = Depends(admin)) -> Response:
        w = worker_or_404(table_id)
        workers.by_id.pop(w.id, None)
        w.stop(timeout=5.0)
        return Response(status_code=204)

    @app.get("/api/tables/{table_id}/snapshot.jpg", tags=["tables"], response_class=Response,
             summary="The latest analysed frame with boxes and zone values, as JPEG (viewer)",
             responses={200: {"content": {"image/jpeg": {}}}, 404: {"description": "unknown table or no frame yet"}})
    async def snapshot(table_id: str = PathParam(max_length=64), width: int = Query(480, ge=64, le=1920),
                       _: Principal = Depends(viewer)) -> Response:
        w = worker_or_404(table_id)
        got = await run_in_threadpool(w.preview_jpeg, width, 70)
        if got is None:
            raise HTTPException(404, f"table {table_id!r} has no frame yet (source {w.source_state})")
        return Response(got[1], media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/api/tables/{table_id}/stream.mjpg", tags=["tables"], response_class=StreamingResponse,
             summary="Live frames with boxes, card labels and zone values (MJPEG, viewer)",
             responses={200: {"content": {"multipart/x-mixed-replace; boundary=frame": {}}}})
    async def stream(request: Request, table_id: str = PathParam(max_length=64),
                     width: int = Query(960, ge=64, le=1920), fps: float = Query(10.0, gt=0, le=30),
                     max_frames: Optional[int] = Query(None, ge=1, le=100000,
                                                       description="stop after this many frames"),
                     _: Principal = Depends(viewer)) -> StreamingResponse:
        w = worker_or_404(table_id)
        if w._preview is None:
            reason = f"its worker is not running (source {w.source_state})" if not w.alive else \
                f"no frame yet (source {w.source_state}{': ' + w.source_reason if w.source_reason else ''})"
            raise HTTPException(404, f"table {table_id!r} has no video: {reason}")

        async def frames():
            sent, last_seq = 0, -1
            period = 1.0 / min(fps, settings.mjpeg_fps or fps)
            last_new = asyncio.get_running_loop().time()
            while not app.state.closing.is_set():
                w.want_preview()
                got = await run_in_threadpool(w.preview_jpeg, width, 75)
                now = asyncio.get_running_loop().time()
                if got is not None and got[0] != last_seq:
                    last_seq, data = got
                    last_new = now
                    yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(data)).encode()
                           + b"\r\n\r\n" + data + b"\r\n")
                    sent += 1
                    if max_frames is not None and sent >= max_frames:
                        return
                elif not w.alive or now - last_new > 10.0:
                    return  # the source stalled: end the stream (the page reconnects)
                if await request.is_disconnected():
                    return
                await asyncio.sleep(period)

        return StreamingResponse(frames(), media_type="multipart/x-mixed-replace; boundary=frame",
                                 headers={"Cache-Control": "no-store"})

    @app.websocket("/api/tables/{table_id}/events")
    async def events_ws(websocket: WebSocket, table_id: str, token: Optional[str] = None) -> None:
        principal = store.principal_for(token) if token else authenticate(websocket)
        if principal is None:
            await websocket.close(code=status.WS_1008_POLICY_VIOLATION, reason="a valid token is needed")
            return
        w = workers.get(table_id)
        if w is None:
            await websocket.close(code=4404, reason=f"no table {table_id!r} is served")
            return
        await websocket.accept()
        sub = w.hub.subscribe()
        metrics.ws_clients.labels(w.id).inc()
        try:
            await websocket.send_json({"type": "hello", "table": w.id, "user": principal.name,
                                       "role": principal.role, "status": _jsonable(w.status())})
            receiver = asyncio.ensure_future(websocket.receive_text())
            while not app.state.closing.is_set():
                getter = asyncio.ensure_future(sub.queue.get())
                done, _ = await asyncio.wait({getter, receiver}, timeout=15.0,
                                             return_when=asyncio.FIRST_COMPLETED)
                if receiver in done:
                    getter.cancel()
                    try:
                        receiver.result()
                    except (WebSocketDisconnect, RuntimeError):
                        break
                    receiver = asyncio.ensure_future(websocket.receive_text())  # pings from the page
                    continue
                if getter in done:
                    msg = getter.result()
                    w.want_preview()
                    await websocket.send_json(msg)
                else:
                    getter.cancel()
                    await websocket.send_json({"type": "ping"})
            receiver.cancel()
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            w.hub.unsubscribe(sub)
            metrics.ws_clients.labels(w.id).dec()
            try:
                await websocket.close()
            except Exception:  # noqa: BLE001 - the client is already gone
                pass

    # -- rounds and alerts ----------------------------------------------------------------------

    def check_range(since: datetime | None, until: datetime | None) -> tuple[datetime | None, datetime | None]:
        """The filters as naive UTC (the store's convention); 400 for a range that is empty or out of bounds."""
        out = []
        for name, value in (("since", since), ("until", until)):
            try:
                out.append(None if value is None else _naive_utc(value))
            except (OverflowError, ValueError):
                raise HTTPException(400, f"{name}: {value.isoformat()} is out of range") from None
        if out[0] is not None and out[1] is not None and out[0] > out[1]:
            raise HTTPException(400, f"since ({since.isoformat()}) is after until ({until.isoformat()})")
        return out[0], out[1]

    @app.get("/api/rounds", response_model=list[RoundOut], tags=["rounds"],
             summary="Stored rounds, newest last (viewer)")
    def list_rounds(table: Optional[str] = Query(None, max_length=64, description="a table id"),
                    since: Optional[datetime] = Query(None, description="ISO 8601; UTC where no zone is given"),
                    until: Optional[datetime] = Query(None, description="ISO 8601; UTC where no zone is given"),
                    review_id: Optional[int] = Query(None, ge=1, le=MAX_ID),
                    limit: int = Query(200, ge=1, le=5000, description="the newest this many"),
                    _: Principal = Depends(viewer)) -> list[dict]:
        since, until = check_range(since, until)
        return [_round_out(r) for r in store.rounds(table=table, since=since, until=until, review_id=review_id,
                                                    limit=limit)]

    @app.get("/api/rounds/{round_id}", response_model=RoundOut, tags=["rounds"],
             summary="One round's full record with evidence URLs (investigator)")
    def get_round(round_id: int = PathParam(ge=1, le=MAX_ID), _: Principal = Depends(investigator)) -> dict:
        r = store.round(round_id)
        if r is None:
            raise HTTPException(404, f"no round with id {round_id}")
        return _round_out(r)

    @app.get("/api/alerts", response_model=list[AlertOut], tags=["alerts"],
             summary="Stored alerts, newest last (viewer)")
    def list_alerts(table: Optional[str] = Query(None, max_length=64, description="a table id"),
                    since: Optional[datetime] = Query(None, description="ISO 8601; UTC where no zone is given"),
                    until: Optional[datetime] = Query(None, description="ISO 8601; UTC where no zone is given"),
                    type: Optional[str] = Query(None, pattern=ALERT_TYPE_PATTERN,
                                                description="an alert type, e.g. mtd_underpaid"),
                    seat: Optional[str] = Query(None, pattern=SEAT_PATTERN, description="1-9 or dealer"),
                    acknowledged: Optional[bool] = Query(None),
                    review_id: Optional[int] = Query(None, ge=1, le=MAX_ID),
                    limit: int = Query(200, ge=1, le=5000, description="the newest this many"),
                    _: Principal = Depends(viewer)) -> list[dict]:
        since, until = check_range(since, until)
        return [_alert_out(a) for a in store.alerts(table=table, since=since, until=until, type=type, seat=seat,
                                                    acknowledged=acknowledged, review_id=review_id, limit=limit)]

    @app.post("/api/alerts/{alert_id}/ack", response_model=AlertOut, tags=["alerts"],
              summary="Acknowledge an alert with a comment; who and when are kept (viewer)")
    def ack_alert(alert_id: int = PathParam(ge=1, le=MAX_ID), body: AckIn = Body(default_factory=AckIn),
                  principal: Principal = Depends(viewer)) -> dict:
        if store.alert(alert_id) is None:
            raise HTTPException(404, f"no alert with id {alert_id}")
        alert = _alert_out(store.acknowledge(alert_id, by=principal.name, comment=body.comment))
        w = workers.get(alert.get("table") or "")
        if w is not None:
            w.hub.publish({"type": "ack", "table": w.id, "alert": alert})
        return alert

    @app.get("/api/evidence/{path:path}", tags=["evidence"], response_class=FileResponse,
             summary="An evidence image or clip, or a review's file (investigator; every access is logged)",
             responses={200: {"content": {"image/jpeg": {}, "video/mp4": {}}}})
    def evidence(request: Request, path: str = PathParam(max_length=1024),
                 principal: Principal = Depends(investigator)) -> FileResponse:
        target = _evidence_file(data_dir, path)
        log_evidence_access(request, principal, f"/api/evidence/{path}")
        return FileResponse(target)

    # -- review jobs ----------------------------------------------------------------------------

    upload_doc = {
        "requestBody": {
            "required": True,
            "content": {
                "multipart/form-data": {"schema": {
                    "type": "object", "required": ["video", "table"],
                    "properties": {
                        "video": {"type": "string", "format": "binary", "description": "the video file"},
                        "table": {"type": "string", "description": "a served table's id or a table file on "
                                                                   "the server"},
                        "annotated": {"type": "boolean", "default": True},
                        "observer": {"type": "string", "enum": ["detector", "oracle"]}}}},
                "application/json": {"schema": ReviewByPath.model_json_schema()},
            },
        }
    }

    @app.post("/api/reviews", response_model=JobOut, status_code=202, tags=["reviews"],
              summary="Start a review job: upload a video (multipart) or name one on the server (JSON) "
                      "(investigator)",
              openapi_extra=upload_doc,
              responses={400: {"description": "bad table or path"}, 413: {"description": "upload too large"},
                         415: {"description": "not a video"}})
    async def create_review(request: Request, principal: Principal = Depends(investigator)) -> dict:
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype == "multipart/form-data":
            video, table_path, annotated, observer = await _receive_upload(request, settings, workers)
        elif ctype == "application/json":
            try:
                raw = await request.json()
            except ValueError:
                raise HTTPException(400, "the body is not valid JSON") from None
            try:
                body = ReviewByPath.model_validate(raw)
            except ValueError as exc:
                raise HTTPException(422, _validation_message(exc)) from None
            video = _server_path(body.video, settings, "video")
            table_path = _table_path(body.table, settings, workers)
            annotated, observer = body.annotated, body.observer
            await run_in_threadpool(_check_video, video, table_path, observer)
        else:
            raise HTTPException(415, "send multipart/form-data (fields video, table) or application/json "
                                     '({"video": path, "table": id or path})')
        job = jobs.submit(video, table_path, principal.name, no_video=not annotated, observer=observer)
        return _job_out(job, jobs)

    @app.get("/api/reviews", response_model=list[JobOut], tags=["reviews"], summary="Review jobs (investigator)")
    def list_reviews(state: Optional[Literal["queued", "running", "done", "failed", "cancelled"]] = None,
                     _: Principal = Depends(investigator)) -> list[dict]:
        return [_job_out(j, jobs) for j in store.jobs(state=state)]

    @app.get("/api/reviews/{job_id}", response_model=JobOut, tags=["reviews"],
             summary="One review job: state, progress, files (investigator)")
    def get_review(job_id: int = PathParam(ge=1, le=MAX_ID), _: Principal = Depends(investigator)) -> dict:
        job = store.job(job_id)
        if job is None:
            raise HTTPException(404, f"no review job with id {job_id}")
        return _job_out(job, jobs)

    @app.post("/api/reviews/{job_id}/cancel", response_model=JobOut, tags=["reviews"],
              summary="Cancel a queued or running review job (investigator)")
    def cancel_review(job_id: int = PathParam(ge=1, le=MAX_ID), _: Principal = Depends(investigator)) -> dict:
        if store.job(job_id) is None:
            raise HTTPException(404, f"no review job with id {job_id}")
        return _job_out(jobs.cancel(job_id), jobs)

    review_types = {"report.json": "application/json", "report.html": "text/html; charset=utf-8",
                    "annotated.mp4": "video/mp4"}

    @app.get("/api/reviews/{job_id}/{name}", tags=["reviews"], response_class=FileResponse,
             summary="A review's report.json, report.html or annotated.mp4 (investigator; access logged)",
             responses={200: {"content": {"application/json": {}, "text/html": {}, "video/mp4": {}}}})
    def review_file(request: Request, job_id: int = PathParam(ge=1, le=MAX_ID),
                    name: Literal["report.json", "report.html", "annotated.mp4"] = PathParam(),
                    principal: Principal = Depends(investigator)) -> FileResponse:
        return _review_file(request, principal, job_id, name, review_types[name])

    @app.get("/api/reviews/{job_id}/evidence/{name}", tags=["reviews"], response_class=FileResponse,
             summary="A review's evidence file, as report.html links it (investigator; access logged)",
             responses={200: {"content": {"image/jpeg": {}, "video/mp4": {}}}})
    def review_evidence(request: Request, job_id: int = PathParam(ge=1, le=MAX_ID),
                        name: str = PathParam(pattern=r"^[A-Za-z0-9_.\-]{1,200}$"),
                        principal: Principal = Depends(investigator)) -> FileResponse:
        return _review_file(request, principal, job_id, f"evidence/{name}", None)

    def _review_file(request, principal, job_id: int, rel: str, media_type: str | None) -> FileResponse:
        job = store.job(job_id)
        if job is None:
            raise HTTPException(404, f"no review job with id {job_id}")
        target = _evidence_file(data_dir, f"reviews/{job_id}/{rel}")
        log_evidence_access(request, principal, f"/api/reviews/{job_id}/{rel}")
        headers = {"Content-Security-Policy": "default-src 'self'; style-src 'unsafe-inline'; img-src 'self'; "
                                              "media-src 'self'"} if rel == "report.html" else None
        return FileResponse(target, media_type=media_type, headers=headers)

    # -- calibration ----------------------------------------------------------------------------

    @app.post("/api/calibration", tags=["calibration"], response_model=dict[str, Any],
              summary="Calibration from point pairs: layout + pixels <-> layout positions (admin)")
    def calibration(body: CalibrationIn, _: Principal = Depends(admin)) -> dict:
        from calibration.homography import CalibrationError
        from calibration.layout import LayoutError, builtin_layout
        from calibration.points import PointPair, _layout_position, _pixel, calibrate_points

        if (body.layout is None) == (body.table is None):
            raise HTTPException(400, "give either layout (a shipped layout id) or table (a served table's id)")
        if body.table is not None:
            layout = worker_or_404(body.table).table.layout
        else:
            try:
                layout = builtin_layout(body.layout)
            except (LayoutError, KeyError, ValueError, OSError) as exc:
                raise HTTPException(400, f"layout: {exc}") from None
        w, h = body.image_size
        if not (16 <= w <= 16384 and 16 <= h <= 16384):
            raise HTTPException(400, f"image_size: {w}x{h} is not a camera frame size")
        try:
            pairs = []
            for k, item in enumerate(body.points):
                where = f"points[{k}]"
                if "image" not in item or "layout" not in item:
                    raise CalibrationError(f"{where}: needs 'image' and 'layout'")
                pairs.append(PointPair(_pixel(item["image"], where),
                                       _layout_position(item["layout"], layout, where), where))
            result = calibrate_points(pairs, layout, (w, h), source="points")
        except CalibrationError as exc:
            raise HTTPException(400, str(exc)) from None
        return result.to_json()

    # -- metrics --------------------------------------------------------------------------------

    @app.get("/metrics", tags=["service"], response_class=Response, summary="Prometheus metrics (viewer)",
             responses={200: {"content": {"text/plain": {}}}})
    def prometheus(_: Principal = Depends(viewer)) -> Response:
        return Response(metrics.render(), media_type=metrics.content_type)


# ------------------------------------------------------------------------------------------------
# helpers


def _naive_utc(value: datetime) -> datetime:
    from datetime import timezone

    return value.astimezone(timezone.utc).replace(tzinfo=None) if value.tzinfo else value


def _jsonable(value: Any) -> Any:
    import json

    return json.loads(json.dumps(value, default=str))


def _validation_message(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if errors:
        parts = []
        for e in errors():
            loc = ".".join(str(x) for x in e.get("loc", ()))
            parts.append(f"{loc}: {e.get('msg')}" if loc else str(e.get("msg")))
        return "; ".join(parts)
    return str(exc)


def _job_out(job: dict, jobs: ReviewJobs) -> dict:
    out = dict(job)
    files: dict[str, str] = {}
    folder = jobs.out_dir(job["id"])
    for name in ("report.json", "report.html", "annotated.mp4"):
        if (folder / name).is_file():
            files[name] = f"/api/reviews/{job['id']}/{name}"
    out["files"] = files
    out.pop("out_dir", None)
    return out


def _evidence_file(data_dir: Path, rel: str) -> Path:
    """A file under DATA/live or DATA/reviews (never the database, uploads or anything outside)."""
    rel = rel.replace("\\", "/")
    parts = [p for p in rel.split("/") if p]
    if not parts or parts[0] not in ("live", "reviews") or any(p in (".", "..") or p.startswith(".") for p in parts):
        raise HTTPException(404, f"no evidence file {rel!r}")
    target = (data_dir / Path(*parts)).resolve()
    try:
        target.relative_to(data_dir)
    except ValueError:
        raise HTTPException(404, f"no evidence file {rel!r}") from None
    if not target.is_file() or target.name.endswith(".tmp"):
        raise HTTPException(404, f"no evidence file {rel!r}")
    return target


def _server_path(text: str, settings: Settings, field: str) -> Path:
    """A file named by a client, which must lie under one of the media roots."""
    if "\x00" in text:
        raise HTTPException(400, f"{field}: not a path")
    path = Path(text)
    if not path.is_absolute():
        path = Path.cwd() / path
    try:
        path = path.resolve()
    except (OSError, RuntimeError):
        raise HTTPException(400, f"{field}: {text!r} is not a usable path") from None
    roots = settings.roots()
    if not any(path == r or r in path.parents for r in roots):
        raise HTTPException(400, f"{field}: {text} is outside the folders the service may read "
                                 f"({', '.join(str(r) for r in roots)})")
    if not path.is_file():
        raise HTTPException(400, f"{field}: no such file {text}")
    return path


def _table_path(text: str, settings: Settings, workers: Workers) -> Path:
    """A served table's id, or a table file on the server."""
    w = workers.get(text)
    if w is not None:
        return w.table_path.resolve()
    if re.match(TABLE_ID_PATTERN, text) and not text.endswith((".yaml", ".yml")) and "/" not in text:
        known = ", ".join(sorted(workers.by_id)) or "none"
        raise HTTPException(400, f"table: no served table {text!r} (served: {known}) and not a table file path")
    return _server_path(text, settings, "table")


def _check_video(video: Path, table_path: Path, observer: str | None) -> None:
    """The table file loads and is calibrated, the video opens with PyAV and its frames fit the calibration."""
    from calibration.table import TableFileError, load_table
    from vision.sources import SourceError, VideoFileSource

    try:
        table = load_table(table_path)
        calib = table.require_calibration()
    except TableFileError as exc:
        raise HTTPException(400, f"table: {exc}") from None
    if (observer or table.extra.get("observer")) == "oracle" and not (table_path.parent / "synth.json").is_file():
        raise HTTPException(400, f"table: observer oracle needs the render's synth.json beside {table_path}")
    try:
        src = VideoFileSource(video)
    except SourceError as exc:
        raise HTTPException(415, f"video: {_short_path_msg(exc, video)}") from None
    frames = src.frames()
    try:
        first = next(frames, None)
    except Exception as exc:  # noqa: BLE001 - any decoder failure means "not a video we can read"
        raise HTTPException(415, f"video: {video.name} cannot be decoded: {exc}") from None
    finally:
        frames.close()
    if first is None:
        raise HTTPException(415, f"video: {video.name}: no frame could be decoded")
    w, h = calib.image_size
    if (src.width, src.height) != (w, h):
        raise HTTPException(400, f"video: frames are {src.width}x{src.height} but the table's calibration is for "
                                 f"{w}x{h}: wrong table file or camera")


def _short_path_msg(exc: Exception, video: Path) -> str:
    return str(exc).replace(str(video), video.name)


async def _receive_upload(request: Request, settings: Settings, workers: Workers):
    """Parse a multipart upload with a hard size limit (413), save the video under DATA/uploads/."""
    limit = settings.upload_limit_bytes
    length = request.headers.get("content-length")
    if length is not None:
        try:
            if int(length) > limit + 64 * 1024:
                raise HTTPException(413, f"the upload is {int(length)} bytes; the limit is {limit} bytes")
        except ValueError:
            raise HTTPException(400, "bad Content-Length header") from None
    received = 0
    receive = request._receive

    async def counting_receive():
        nonlocal received
        message = await receive()
        if message.get("type") == "http.request":
            received += len(message.get("body", b""))
            if received > limit + 64 * 1024:
                raise HTTPException(413, f"the upload is over the limit of {limit} bytes")
        return message

    request._receive = counting_receive
    try:
        form = await request.form(max_files=1, max_fields=10)
    except HTTPException:
        raise
    except Exception as exc:  # noqa: BLE001 - python-multipart / starlette parse errors
        raise HTTPException(400, f"the multipart body cannot be read: {exc}") from None
    try:
        upload = form.get("video")
        table = form.get("table")
        if upload is None or isinstance(upload, str):
            raise HTTPException(422, "video: a file field named 'video' is needed")
        if not isinstance(table, str) or not table.strip():
            raise HTTPException(422, "table: a served table's id or a table file path is needed")
        annotated_raw = form.get("annotated", "true")
        if not isinstance(annotated_raw, str) or annotated_raw.lower() not in ("true", "false", "1", "0", "yes",
                                                                             "no", "on", "off"):
            raise HTTPException(422, "annotated: true or false")
        annotated = annotated_raw.lower() in ("true", "1", "yes", "on")
        observer = form.get("observer") or None
        if observer is not None and observer not in ("detector", "oracle"):
            raise HTTPException(422, "observer: detector or oracle")
        table_path = _table_path(table.strip(), settings, workers)
        name = Path(upload.filename or "upload.mp4").name
        suffix = Path(name).suffix.lower()
        if suffix not in VIDEO_SUFFIXES:
            suffix = ".mp4"
        folder = Path(settings.data_dir) / "uploads"
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{uuid.uuid4().hex}{suffix}"
        size = 0
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".upload.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                while True:
                    chunk = await upload.read(1024 * 1024)
                    if not chunk:
                        break
                    size += len(chunk)
                    if size > limit:
                        raise HTTPException(413, f"the upload is over the limit of {limit} bytes")
                    out.write(chunk)
            if size == 0:
                raise HTTPException(415, "video: the uploaded file is empty")
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    finally:
        await form.close()
    try:
        await run_in_threadpool(_check_video, target, table_path, observer)
    except HTTPException:
        target.unlink(missing_ok=True)
        raise
    return target, table_path, annotated, observer


__all__ = ["Settings", "create_app", "page_viewer"]
