"""Live tables: one :class:`TableWorker` thread per table, running :func:`vision.review.live_events`.

Each worker::

    source (file paced to real time, looping; RTSP; camera)  -- reopened with back-off when it drops
      -> live_events (observer -> tracker -> round engine, drift watch)   the same engine as review
      -> ReviewSink (evidence JPEG + H.264 clip per alert, under DATA/live/<table>/<run>/)
      -> store (rounds and alerts, with dedup keys), WebSocket subscribers (events + per-frame boxes),
         metrics, the preview frame behind the MJPEG stream and the wall view's thumbnails.

A dropped source raises one ``camera_lost`` alert per outage (stored, with the last frame as evidence)
and is reopened after 1, 2, 4 ... ``max_backoff_s`` seconds; a drift of the layout raises
``camera_moved`` through :class:`calibration.drift.DriftWatch`.

Times: the engine sees one continuous clock (``t_s`` keeps growing across reopens and loops), and every
frame carries the wall-clock ``utc`` at which it was shown, so stored events can be filtered by time.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import cv2
import numpy as np

from vision.report import ReviewSink
from vision.sources import Frame, FrameSource, SourceError, Stopped

log = logging.getLogger("pitwatch.serve")

SOURCE_STATES = ("starting", "playing", "reconnecting", "ended", "stopped", "error")
LIVE_ROUNDS_KEPT = 50
"""Finished rounds a worker keeps in memory (the store keeps every round): bounded memory over a shift."""


class TableConfigError(ValueError):
    """A table file the service cannot serve (the message names the file and field)."""


# ------------------------------------------------------------------------------------------------
# fan-out to WebSocket subscribers


class Subscription:
    """One subscriber's queue on its own event loop; the oldest message is dropped when it is full."""

    def __init__(self, loop: asyncio.AbstractEventLoop, maxsize: int = 512) -> None:
        self.loop = loop
        self.queue: asyncio.Queue = asyncio.Queue(maxsize)
        self.dropped = 0

    def _put(self, msg: dict) -> None:
        if self.queue.full():
            try:
                self.queue.get_nowait()
                self.dropped += 1
            except asyncio.QueueEmpty:  # pragma: no cover - raced with the reader
                pass
        self.queue.put_nowait(msg)


class Hub:
    """Thread-safe fan-out: any thread publishes, each subscriber reads on its own asyncio loop."""

    def __init__(self) -> None:
        self._subs: list[Subscription] = []
        self._lock = threading.Lock()

    def subscribe(self, maxsize: int = 512) -> Subscription:
        sub = Subscription(asyncio.get_running_loop(), maxsize)
        with self._lock:
            self._subs.append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            if sub in self._subs:
                self._subs.remove(sub)

    @property
    def count(self) -> int:
        return len(self._subs)

    def publish(self, msg: dict) -> None:
        with self._lock:
            subs = list(self._subs)
        for sub in subs:
            try:
                sub.loop.call_soon_threadsafe(sub._put, msg)
            except RuntimeError:  # its loop is closed: the client is gone
                self.unsubscribe(sub)


# ------------------------------------------------------------------------------------------------
# sources


class LiveSource(FrameSource):
    """The table's source as one endless stream of frames on one clock.

    Files are paced to their timestamps (real time) and, with ``loop``, start again at the end; any
    source that cannot be opened or stops with a reason is reopened after an exponential back-off.
    Frames that would be shown more than ``max_lag_s`` late are skipped undecoded, as a live camera
    drops them when the reader falls behind.

    Args:
        open_source: makes a fresh :class:`vision.sources.FrameSource` (raises SourceError).
        is_file: a video file (paced, may loop) rather than a live stream.
        on_state: called with (state, reason) when the source's state changes.
        on_lost: called with (reason, last frame or None) once per outage.
        stop: set to end the stream.
    """

    def __init__(self, open_source: Callable[[], FrameSource], *, is_file: bool, loop: bool, realtime: bool = True,
                 max_backoff_s: float = 30.0, max_lag_s: float = 0.5, stop: threading.Event | None = None,
                 on_state: Callable[[str, str | None], None] | None = None,
                 on_lost: Callable[[str, Frame | None], None] | None = None,
                 on_drop: Callable[[], None] | None = None, on_reopen: Callable[[], None] | None = None) -> None:
        self.open_source = open_source
        self.is_file = is_file
        self.loop = loop
        self.realtime = realtime
        self.max_backoff_s = max_backoff_s
        self.max_lag_s = max_lag_s
        self.stop = stop or threading.Event()
        self.on_state = on_state or (lambda s, r: None)
        self.on_lost = on_lost or (lambda r, f: None)
        self.on_drop = on_drop or (lambda: None)
        self.on_reopen = on_reopen or (lambda: None)
        self.name = "live"
        self.fps = 0.0
        self.expected_frames = None
        self.stopped = None
        self.last: Frame | None = None
        self.loops = 0
        self.offset = 0.0     # engine t_s minus the file's own t_s for the frame being yielded (files)

    def frames(self) -> Iterator[Frame]:
        index = 0
        t_off = 0.0                     # files: added to the inner source's t_s (loops, reopens)
        wall0: float | None = None      # monotonic time at which engine t=0 was shown
        utc0: datetime | None = None
        backoff = 1.0
        outage = False
        opened_once = False
        while not self.stop.is_set():
            reason = ""
            try:
                src = self.open_source()
            except SourceError as exc:
                reason, src = str(exc), None
            if src is None:
                backoff = self._outage(reason, backoff, outage)
                outage = True
                if backoff < 0:
                    break
                continue
            if opened_once:
                self.on_reopen()
            opened_once = True
            self.fps = src.fps or self.fps or 30.0
            got, last_inner = 0, 0.0
            try:
                for f in src.frames():
                    if self.stop.is_set():
                        break
                    now = time.monotonic()
                    if self.is_file:
                        t = t_off + f.t_s
                    else:  # live sources: wall-clock time, continuous across reopens
                        t = 0.0 if wall0 is None else now - wall0
                    if wall0 is None or (got == 0 and now - (wall0 + t) > self.max_lag_s):
                        # first frame ever, or the first after an outage: it is shown now
                        wall0, utc0 = now - t, datetime.now(timezone.utc) - timedelta(seconds=t)
                    got += 1
                    last_inner = f.t_s
                    if self.realtime and self.is_file:
                        due = wall0 + t
                        if due > now:
                            if self.stop.wait(due - now):
                                break
                        elif now - due > self.max_lag_s:
                            self.on_drop()    # behind real time: skip it undecoded, as a camera would
                            continue
                    if got == 1 or outage:
                        outage, backoff = False, 1.0
                        self.on_state("playing", None)
                    frame = Frame(index, t, utc=utc0 + timedelta(seconds=t), convert=(lambda f=f: f.image))
                    self.last = frame
                    self.offset = t - f.t_s
                    index += 1
                    yield frame
            except Exception as exc:  # noqa: BLE001 - a source failing mid-stream is a drop, not a crash
                src.stopped = Stopped(got, last_inner, f"{type(exc).__name__}: {exc}")
            if self.stop.is_set():
                break
            if self.is_file:
                t_off += last_inner + 1.0 / self.fps
            stopped = src.stopped
            if self.is_file and got > 0 and (stopped is None or "ends early" in stopped.reason):
                if self.loop:
                    self.loops += 1
                    continue
                self.on_state("ended", "end of the video file (loop: true in the table file plays it again)")
                break
            reason = stopped.reason if stopped is not None else "the source delivered no frame"
            backoff = self._outage(reason, backoff, outage)
            outage = True
            if backoff < 0:
                break
        if self.stop.is_set():
            self.on_state("stopped", None)

    def _outage(self, reason: str, backoff: float, outage: bool) -> float:
        """Report the outage (once), wait ``backoff``; returns the next back-off, or -1 when stopped."""
        if not outage:
            self.on_lost(reason, self.last)
        self.on_state("reconnecting", f"{reason}; retrying in {backoff:.0f} s")
        if self.stop.wait(backoff):
            return -1.0
        return min(self.max_backoff_s, backoff * 2)


# ------------------------------------------------------------------------------------------------
# observers


class OracleBoxesObserver:
    """The render's truth readings (``observer: oracle``) with boxes drawn where the cards and stacks lie.

    Wraps :class:`datasets.oracle.OracleObserver` and projects each card's outline and each chip stack's
    base through the table's calibration, so the live view shows boxes and labels as the detector would.
    """

    def __init__(self, oracle, calibration, offset: Callable[[], float] = lambda: 0.0) -> None:
        self.oracle = oracle
        self.calibration = calibration
        self.offset = offset

    def observe(self, frame: Frame):
        from datasets.scene import CARD_H_MM, CARD_W_MM, CHIP_DIAMETER_MM

        # the script's clock is the video file's own (a looping file starts again at 0)
        frame = Frame(frame.index, frame.t_s - self.offset(), convert=lambda: frame.image, utc=frame.utc)
        obs = self.oracle.observe(frame)
        state = self.oracle.script.timeline.state_at(frame.t_s)
        hw, hh = CARD_W_MM / 2, CARD_H_MM / 2
        for c in state.cards:
            if c.zone is None:
                continue
            a = math.radians(c.angle_deg)
            ca, sa = math.cos(a), math.sin(a)
            corners = [(c.center[0] + x * ca - y * sa, c.center[1] + x * sa + y * ca)
                       for x, y in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh))]
            px = self.calibration.to_pixels(corners)
            box = np.array([*px.min(axis=0), *px.max(axis=0)], np.float32)
            obs.boxes.append((c.card if c.face_up else "BACK", box, (60, 220, 255)))
        r = CHIP_DIAMETER_MM / 2
        for st in state.chips:
            if st.zone is None:
                continue
            px = self.calibration.to_pixels([(st.center[0] + dx, st.center[1] + dy)
                                             for dx, dy in ((-r, -r), (r, -r), (r, r), (-r, r))])
            box = np.array([*px.min(axis=0), *px.max(axis=0)], np.float32)
            obs.boxes.append((f"${st.value}", box, (80, 255, 80)))
        return obs


class _TimedObserver:
    """Measures each observation (the inference latency metric)."""

    def __init__(self, inner, on_time: Callable[[float], None]) -> None:
        self.inner = inner
        self.on_time = on_time
        self.tracks_by_position = getattr(inner, "tracks_by_position", False)

    def observe(self, frame: Frame):
        t0 = time.perf_counter()
        obs = self.inner.observe(frame)
        self.on_time(time.perf_counter() - t0)
        return obs


# ------------------------------------------------------------------------------------------------
# the worker


def load_served_table(path: str | Path):
    """Load a table file for serving and check that its source can be found.

    Returns:
        (the :class:`calibration.table.Table`, its resolved source: int camera, URL text or Path).

    Raises:
        TableConfigError: naming the file and what is wrong (no calibration, no source, a source file
            that does not exist, an unknown observer).
    """
    from calibration.table import TableFileError, load_table

    try:
        table = load_table(path)
        table.require_calibration()
    except TableFileError as exc:
        raise TableConfigError(str(exc)) from exc
    loc = table.source_location()
    if loc is None:
        raise TableConfigError(f"{table.path}: field 'source' is missing: serve needs a camera index, an "
                               "rtsp:// URL or a video file")
    if isinstance(loc, Path) and not loc.is_file():
        raise TableConfigError(f"{table.path}: field 'source': no such video file {loc}")
    observer = str(table.extra.get("observer") or "detector")
    if observer not in ("detector", "oracle"):
        raise TableConfigError(f"{table.path}: field 'observer' must be detector or oracle, got {observer!r}")
    if observer == "oracle" and not (Path(table.path).parent / "synth.json").is_file():
        raise TableConfigError(f"{table.path}: field 'observer': oracle needs the render's synth.json beside the "
                               "table file")
    loop = table.extra.get("loop", False)
    if not isinstance(loop, bool):
        raise TableConfigError(f"{table.path}: field 'loop' must be true or false, got {loop!r}")
    return table, loc


class LiveSink(ReviewSink):
    """The review's evidence sink, with the frame in each file name (a live run may raise the same
    table-wide alert many times; each keeps its own evidence)."""

    def evidence_stem(self, alert) -> str:
        stem = super().evidence_stem(alert)
        return stem if alert.round_index < 0 else f"{stem}-f{alert.frame}"  # (the table's alerts carry it already)


@dataclass
class _Preview:
    seq: int
    t_s: float
    image: np.ndarray                        # downscaled BGR
    scale: float
    boxes: list                              # (label, box in preview px, colour)
    zone_values: dict[str, str]
    alerts: list                             # recent Alert objects
    jpeg: dict[tuple, bytes] = field(default_factory=dict)


class TableWorker:
    """One table: a thread running the live engine over its source.

    Args:
        table_path: the table file (``source``, optional ``loop: true`` and ``observer: oracle``).
        store: the :class:`api.store.Store`.
        data_dir: the service's data folder (evidence under ``live/<table>/<run>/``).
        metrics: :class:`api.metrics.Metrics`.
        analyse_fps: frames analysed per second of video.
        realtime: pace files to their timestamps (off only for tests that want speed).
        drift_every: check the drift watch on every n-th analysed frame (0: no drift watch).
    """

    def __init__(self, table_path: str | Path, store, data_dir: str | Path, metrics=None, *,
                 analyse_fps: float = 10.0, realtime: bool = True, evidence_width: int = 960,
                 preview_width: int = 960, drift_every: int = 2, max_backoff_s: float = 30.0,
                 threads: int | None = None) -> None:
        self.table, self.source_loc = load_served_table(table_path)
        self.table_path = Path(table_path)
        self.id = self.table.id
        self.store = store
        self.data_dir = Path(data_dir)
        self.metrics = metrics
        self.analyse_fps = analyse_fps
        self.realtime = realtime
        self.evidence_width = evidence_width
        self.preview_width = preview_width
        self.drift_every = drift_every
        self.max_backoff_s = max_backoff_s
        self.threads = threads
        self.observer_kind = str(self.table.extra.get("observer") or "detector")
        self.loop = bool(self.table.extra.get("loop", False))
        self.run_id = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        self.out_rel = Path("live") / _safe(self.id) / self.run_id
        self.hub = Hub()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.source_state = "starting"
        self.source_reason: str | None = None
        self.error: str | None = None
        self.frames_read = 0
        self.frames_analysed = 0
        self.frames_dropped = 0
        self.last_t_s: float | None = None
        self.last_utc: datetime | None = None
        self.phase = "idle"
        self.round_index: int | None = None
        self.current_round: dict | None = None
        self._analysed_times: deque[float] = deque(maxlen=64)
        self._preview: _Preview | None = None
        self._preview_seq = 0
        self._preview_wanted_until = 0.0
        self._last_preview = 0.0
        self._recent_alerts: list = []
        self._engine = None
        self._wall0: float | None = None
        self.delays: deque[float] = deque(maxlen=2000)     # event delays, seconds (load script)
        self.started_at = datetime.now(timezone.utc)

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run_safe, name=f"table-{self.id}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- status ---------------------------------------------------------------------------------

    def fps(self) -> float:
        times = list(self._analysed_times)
        now = time.monotonic()
        recent = [t for t in times if now - t <= 5.0]
        if len(recent) < 2:
            return 0.0
        span = max(now - recent[0], 1e-6)
        return round(len(recent) / span, 2)

    def status(self) -> dict:
        return {"id": self.id, "table_file": str(self.table_path), "source": str(self.source_loc),
                "source_state": self.source_state, "source_reason": self.source_reason,
                "observer": self.observer_kind, "loop": self.loop, "phase": self.phase,
                "round_index": self.round_index, "fps_analysed": self.fps(),
                "frames_read": self.frames_read, "frames_analysed": self.frames_analysed,
                "frames_dropped": self.frames_dropped, "last_frame_t_s": self.last_t_s,
                "last_frame_utc": self.last_utc.isoformat() if self.last_utc else None,
                "run_id": self.run_id, "error": self.error, "current_round": self.current_round}

    # -- preview (MJPEG, thumbnails) --------------------------------------------------------------

    def want_preview(self, seconds: float = 5.0) -> None:
        """A viewer is watching: keep the preview at the analysed rate for ``seconds``."""
        self._preview_wanted_until = time.monotonic() + seconds

    def preview_jpeg(self, width: int | None = None, quality: int = 75, overlay: bool = True) -> tuple[int, bytes] | None:
        """(sequence number, JPEG) of the latest preview with boxes, labels, zone values and recent alerts."""
        from vision.report import draw_overlay
        from vision.review import Observation

        self.want_preview()
        p = self._preview
        if p is None:
            return None
        width = int(width or p.image.shape[1])
        key = (width, quality, overlay)
        data = p.jpeg.get(key)
        if data is None:
            img = p.image
            if overlay:
                polys = self._zone_polys_preview(p.scale)
                img = draw_overlay(img, Observation(boxes=p.boxes), polys, p.zone_values, p.alerts, p.t_s)
            if width < img.shape[1]:
                h = int(round(img.shape[0] * width / img.shape[1]))
                img = cv2.resize(img, (width, h), interpolation=cv2.INTER_AREA)
            ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
            if not ok:  # pragma: no cover
                return None
            data = enc.tobytes()
            p.jpeg[key] = data
        return p.seq, data

    _polys_cache: tuple[float, dict] | None = None

    def _zone_polys_preview(self, scale: float) -> dict:
        cache = self._polys_cache
        if cache is None or cache[0] != scale:
            from calibration.zones import ZoneMap

            polys = ZoneMap(self.table.layout, self.table.require_calibration()).polygons_px()
            cache = (scale, {k: v * scale for k, v in polys.items()})
            self._polys_cache = cache
        return cache[1]

    # -- the loop -----------------------------------------------------------------------------------

    def _open(self) -> FrameSource:
        from vision.sources import open_source

        return open_source(self.source_loc)

    def _observer(self, source: LiveSource):
        from vision.review_cli import LIVE_SETTLE_FRAMES, detector_observer, oracle_observer

        if self.observer_kind == "oracle":
            return OracleBoxesObserver(oracle_observer(self.table), self.table.require_calibration(),
                                       offset=lambda: source.offset)
        return detector_observer(self.table, self.threads, settle_frames=LIVE_SETTLE_FRAMES)

    def _run_safe(self) -> None:
        try:
            self._run()
        except Exception as exc:  # noqa: BLE001 - a worker must say why it stopped, not vanish
            log.exception("table %s: worker failed", self.id)
            self.error = f"{type(exc).__name__}: {exc}"
            self._set_state("error", self.error)

    def _set_state(self, state: str, reason: str | None) -> None:
        changed = state != self.source_state
        self.source_state, self.source_reason = state, reason
        if self.metrics is not None:
            self.metrics.source_up.labels(self.id).set(1 if state == "playing" else 0)
        if changed:
            self.hub.publish({"type": "status", "table": self.id, "source_state": state, "reason": reason})

    def _run(self) -> None:
        from calibration.drift import DriftWatch, EveryNthCheck
        from calibration.zones import ZoneMap
        from vision.review import live_events
        from vision.review_cli import build_engine

        calib = self.table.require_calibration()
        is_file = isinstance(self.source_loc, Path)
        source = LiveSource(self._open, is_file=is_file, loop=self.loop, realtime=self.realtime,
                            max_backoff_s=self.max_backoff_s, stop=self._stop, on_state=self._set_state,
                            on_lost=self._on_lost, on_drop=self._on_drop, on_reopen=self._on_reopen)
        observer = _TimedObserver(self._observer(source), self._on_inference)
        fps = 30.0
        if is_file:  # the engine wants the frame rate up front
            try:
                from vision.sources import VideoFileSource

                probe = VideoFileSource(self.source_loc)
                fps = probe.fps or fps
                probe._container.close()
            except SourceError:
                pass
        tracker, engine = build_engine(self.table, fps, keep_rounds=LIVE_ROUNDS_KEPT,
                                       by_position=getattr(observer, "tracks_by_position", False))
        self._engine = engine
        self._source = source
        out_dir = self.data_dir / self.out_rel
        zone_polys = ZoneMap(self.table.layout, calib).polygons_px()
        self._sink = LiveSink(out_dir, fps, zone_polys=zone_polys, annotated=False, width=self.evidence_width)
        drift = EveryNthCheck(DriftWatch(calib, self.table.layout), self.drift_every) if self.drift_every else None
        for frame, obs, events in live_events(source, observer, engine, tracker, self.analyse_fps, drift=drift):
            self.frames_read += 1
            self.last_t_s, self.last_utc = round(frame.t_s, 3), frame.utc
            if self.metrics is not None:
                self.metrics.frames_read.labels(self.id).inc()
            self._sink(frame, obs, events, engine)
            if obs is not None:
                self.frames_analysed += 1
                self._analysed_times.append(time.monotonic())
                if self.metrics is not None:
                    self.metrics.frames_analysed.labels(self.id).inc()
                    self.metrics.fps.labels(self.id).set(self.fps())
                self._update_phase(engine)
                self._maybe_preview(frame, obs, engine)
                if self.hub.count:
                    self.hub.publish(self._frame_message(frame, obs))
            if events:
                self._handle(events, engine, frame)
            if self._stop.is_set():
                break
        self._sink.close()
        if not self._stop.is_set() and self.source_state not in ("ended", "error"):
            self._set_state("stopped", source.stopped.reason if source.stopped else None)

    # -- callbacks from the source (worker thread) ----------------------------------------------

    def _on_inference(self, seconds: float) -> None:
        if self.metrics is not None:
            self.metrics.inference.labels(self.id).observe(seconds)

    def _on_drop(self) -> None:
        self.frames_dropped += 1
        if self.metrics is not None:
            self.metrics.frames_dropped.labels(self.id).inc()

    def _on_reopen(self) -> None:
        if self.metrics is not None:
            self.metrics.reopens.labels(self.id).inc()

    def _on_lost(self, reason: str, last: Frame | None) -> None:
        """The source dropped or cannot be opened: one ``camera_lost`` alert per outage."""
        engine = self._engine
        if engine is None:
            return
        frame_i = last.index if last is not None else 0
        t_s = last.t_s if last is not None else 0.0
        events = engine.camera_alert("camera_lost", frame_i, t_s, None, f"the video source dropped: {reason}")
        if last is not None:
            try:
                self._sink(last, None, events, engine)
            except Exception:  # noqa: BLE001 - evidence is best effort when the source is gone
                log.exception("table %s: evidence for camera_lost", self.id)
        self._handle(events, engine, None)

    # -- events -> store, subscribers, metrics ------------------------------------------------------

    def _update_phase(self, engine) -> None:
        r = engine.current
        self.phase = r.phase if r is not None else "idle"
        self.round_index = r.index if r is not None else None

    def _handle(self, events: list, engine, frame: Frame | None) -> None:
        for ev in events:
            delay = None
            if frame is not None and frame.utc is not None:
                shown = frame.utc - timedelta(seconds=frame.t_s - ev.t_s)
                delay = (datetime.now(timezone.utc) - shown).total_seconds()
            if delay is not None and delay >= 0:
                self.delays.append(delay)
                if self.metrics is not None:
                    self.metrics.event_delay.labels(self.id).observe(delay)
            if ev.kind == "alert":
                self._store_alert(ev.data["alert"])
            elif ev.kind == "round_ended":
                self._store_round(engine, ev.round_index)
            else:
                self.hub.publish({"type": "event", "table": self.id, "kind": ev.kind, "t_s": round(ev.t_s, 3),
                                  "frame": ev.frame, "round_index": ev.round_index, "data": _plain(ev.data)})
        r = engine.current
        self.current_round = r.to_json() if r is not None else None
        self._update_phase(engine)
        self.hub.publish({"type": "round", "table": self.id, "phase": self.phase, "round": self.current_round})

    def _store_alert(self, alert) -> None:
        payload = alert.to_json()
        payload["round_index"] = alert.round_index
        payload["evidence_base"] = self.out_rel.as_posix()
        payload["source"] = "live"
        key = (f"live:{self.id}:{self.run_id}:alert:{alert.round_index}:{alert.type}:{alert.seat}:"
               f"{alert.wager}:{alert.frame}")
        stored = self.store.append(self.id, "alert", payload, t_s=alert.t_s, frame=alert.frame,
                                   utc=alert.utc or self._utc_of(alert.t_s), dedup_key=key)
        if self.metrics is not None:
            self.metrics.alerts.labels(self.id, alert.type).inc()
        self._recent_alerts = [a for a in self._recent_alerts if alert.raised_t_s - a.raised_t_s < 6.0] + [alert]
        out = alert_json(dict(stored.payload, id=stored.id, table=self.id, acknowledged=False, ack=None,
                              utc=stored.utc, recorded_at=stored.created_at.isoformat() + "Z"))
        self.hub.publish({"type": "alert", "table": self.id, "alert": out})

    def _store_round(self, engine, index: int) -> None:
        r = next((x for x in reversed(engine.rounds) if x.index == index), None)
        if r is None:
            return
        payload = r.to_json()
        payload["evidence_base"] = self.out_rel.as_posix()
        payload["source"] = "live"
        stored = self.store.append(self.id, "round", payload, t_s=r.start_s, frame=r.start_frame,
                                   utc=self._utc_of(r.start_s),
                                   dedup_key=f"live:{self.id}:{self.run_id}:round:{index}")
        self.hub.publish({"type": "round_ended", "table": self.id,
                          "round": round_json(dict(stored.payload, id=stored.id, table=self.id, utc=stored.utc))})

    def _utc_of(self, t_s: float) -> datetime | None:
        last = self._source.last if getattr(self, "_source", None) is not None else None
        if last is None or last.utc is None:
            return None
        return last.utc - timedelta(seconds=last.t_s - t_s)

    # -- per-frame outputs ----------------------------------------------------------------------

    def _maybe_preview(self, frame: Frame, obs, engine) -> None:
        from vision.report import _zone_values

        now = time.monotonic()
        if now > self._preview_wanted_until and now - self._last_preview < 1.0:
            return
        self._last_preview = now
        img = frame.image
        h, w = img.shape[:2]
        scale = min(1.0, self.preview_width / w)
        small = img if scale == 1.0 else cv2.resize(img, (int(round(w * scale)), int(round(h * scale))),
                                                    interpolation=cv2.INTER_AREA)
        boxes = [(label, np.asarray(box, np.float32) * scale, colour) for label, box, colour in obs.boxes]
        recent = [a for a in self._recent_alerts if frame.t_s - a.raised_t_s < 6.0]
        self._preview_seq += 1
        self._preview = _Preview(self._preview_seq, frame.t_s, small, scale, boxes, dict(_zone_values(engine)),
                                 recent)

    def _frame_message(self, frame: Frame, obs) -> dict:
        calib = self.table.require_calibration()
        w, h = calib.image_size
        return {"type": "frame", "table": self.id, "frame": frame.index, "t_s": round(frame.t_s, 3),
                "utc": frame.utc.isoformat() if frame.utc else None, "size": [w, h],
                "boxes": [{"label": label, "box": [round(float(v), 1) for v in box],
                           "kind": "chips" if label.startswith("$") or label == "chips?" else "card"}
                          for label, box, _ in obs.boxes],
                "cards": obs.cards, "chips": {k: _plain(v) for k, v in obs.chips.items()},
                "phase": self.phase, "round_index": self.round_index, "fps": self.fps()}


def _url_of(base: str | None, rel: str | None) -> str | None:
    return f"/api/evidence/{base}/{rel}" if base and rel else None


def alert_json(a: dict) -> dict:
    """A stored alert as the API hands it out: with ``evidence_url`` and ``clip_url``."""
    out = dict(a)
    out["evidence_url"] = _url_of(a.get("evidence_base"), a.get("evidence"))
    out["clip_url"] = _url_of(a.get("evidence_base"), a.get("clip"))
    return out


def round_json(r: dict) -> dict:
    """A stored round as the API hands it out: each alert with its evidence URLs."""
    out = dict(r)
    out["alerts"] = [alert_json(dict(a, evidence_base=r.get("evidence_base"))) for a in r.get("alerts", [])]
    return out


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "table"


def _plain(value: Any) -> Any:
    """JSON-ready copy of engine event data (alerts, deal events, fractions)."""
    from fractions import Fraction

    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, Fraction):
        return float(value) if value.denominator != 1 else int(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        return _plain(asdict(value))
    return str(value)


class Workers:
    """The set of table workers, by table id."""

    def __init__(self) -> None:
        self.by_id: dict[str, TableWorker] = {}
        self._lock = threading.Lock()

    def add(self, worker: TableWorker, start: bool = True) -> TableWorker:
        with self._lock:
            if worker.id in self.by_id:
                raise TableConfigError(f"{worker.table_path}: table id {worker.id!r} is already served "
                                       f"(from {self.by_id[worker.id].table_path})")
            self.by_id[worker.id] = worker
        if start:
            worker.start()
        return worker

    def get(self, table_id: str) -> TableWorker | None:
        return self.by_id.get(table_id)

    def all(self) -> list[TableWorker]:
        return list(self.by_id.values())

    def stop_all(self) -> None:
        for w in self.all():
            w._stop.set()
        for w in self.all():
            w.stop()
