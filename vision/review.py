"""One engine, two drivers: review a recorded video, or follow a live source.

Every analysed frame goes the same way::

    frame -> observer (detector, or a script's truth in tests) -> zone readings
          -> ZoneTracker (stable zone states) -> RoundEngine (rounds, settlements, alerts) -> sinks

:func:`run_engine` is the loop; :func:`live_events` is the same loop as a generator
for the service; :mod:`vision.report` is the sink that writes the review's files.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Iterator, Protocol

import numpy as np

from vision.rounds import Event, RoundEngine
from vision.sources import Frame, FrameSource, Stopped
from vision.tracking import ZoneTracker


@dataclass
class Observation:
    """What one analysed frame shows, zone by zone.

    Attributes:
        cards: zone -> labels of the cards seen in it (``10H``, ``BACK``, ``unreadable``).
        chips: zone -> chip value in dollars (``None`` where a stack was seen but not valued).
        boxes: drawables for the annotated video: (label, (4,) xyxy px, colour BGR).
        card_points: zone -> (x, y) mm of each card in ``cards`` (same order), where known.
        card_marks: zone -> per card in ``cards`` (same order), the (x, y) mm of each of its corner indices seen
            (a face-down card: its box centre). A card's point moves when a card dealt over it hides one of its
            corners; its corners do not, so the tracker follows cards by these where given.
        chip_stacks: zone -> each stack seen in it: (x, y) mm of its base on the layout and its value in dollars
            (``None``: not valued), where the detector placed stacks on the layout (a calibrated camera); the
            tracker follows payout stacks one by one by these (:mod:`vision.stack_tracking`).
    """

    cards: dict[str, list[str]] = field(default_factory=dict)
    chips: dict[str, float | None] = field(default_factory=dict)
    boxes: list[tuple[str, np.ndarray, tuple[int, int, int]]] = field(default_factory=list)
    card_points: dict[str, list[tuple[float, float]]] | None = None
    card_marks: dict[str, list[list[tuple[float, float]]]] | None = None
    chip_stacks: dict[str, list[tuple[float, float, float | None]]] | None = None


class Observer(Protocol):
    """Turns a frame into zone readings (the detector, or a script's truth)."""

    def observe(self, frame: Frame) -> Observation: ...


class DetectorObserver:
    """The ONNX detector (:class:`vision.detector.FrameReader`) as an observer.

    Args:
        reader: a FrameReader; table: its :class:`vision.detector.TableView`.
        zone_map: optional :class:`calibration.zones.ZoneMap` to place cards and chip
            stacks in zones (by card centre and stack base); the detector's own zones otherwise.
    """

    tracks_by_position = True
    """Its readings of one card differ from frame to frame: the tracker follows cards by place and votes."""

    def __init__(self, reader, table, zone_map=None) -> None:
        self.reader = reader
        self.table = table
        self.zone_map = zone_map

    def observe(self, frame: Frame) -> Observation:
        result = self.reader(frame.image, self.table)
        obs = Observation()
        card_boxes = np.array([c.box for c in result.cards], np.float32).reshape(-1, 4)
        if self.zone_map is None:
            card_zones, card_mm = [c.zone for c in result.cards], None
        elif not len(card_boxes):
            card_zones, card_mm = [], np.zeros((0, 2))
        else:
            card_zones, card_mm = self.zone_map.place_boxes(card_boxes, "card")
        marks = None
        if card_mm is not None:
            obs.card_points, obs.card_marks = {}, {}  # placed on the layout, even when there is no card at all
            marks = _corner_marks_mm(result, card_mm)
        for i, (c, zone) in enumerate(zip(result.cards, card_zones)):
            obs.boxes.append((c.label, np.asarray(c.box, np.float32), (60, 220, 255)))
            if zone:
                obs.cards.setdefault(zone, []).append(c.label)
                if card_mm is not None:
                    obs.card_points.setdefault(zone, []).append((float(card_mm[i][0]), float(card_mm[i][1])))
                    obs.card_marks.setdefault(zone, []).append(marks[i])
        rows = [row for row, _ in result.chips]
        chip_boxes = result.dets.xyxy[rows] if rows else np.zeros((0, 4), np.float32)
        # a stack the detector read standing on a betting spot is that spot's wager, whatever its box; the others
        # are placed by the base fitted to their box
        spots = result.stack_spots
        if self.zone_map is None:
            chip_zones = [spots.get(r, result.dets.zone[r]) for r in rows]
        else:
            fit = [i for i, r in enumerate(rows) if r not in spots]
            fitted = iter(self.zone_map.zone_of_boxes(chip_boxes[fit], "chip") if fit else [])
            chip_zones = [spots[r] if r in spots else next(fitted) for r in rows]
        bases = getattr(result, "stack_bases", None) or {}
        if bases or getattr(self.table, "camera", None) is not None:
            obs.chip_stacks = {}  # stacks placed on the layout: none this frame is none seen
        for (row, reading), zone in zip(result.chips, chip_zones):
            value = getattr(reading, "value", None)
            obs.boxes.append((f"${value}" if value is not None else "chips?", result.dets.xyxy[row], (80, 255, 80)))
            if zone and row in bases:
                x, y = bases[row]
                obs.chip_stacks.setdefault(zone, []).append((round(x, 1), round(y, 1), value))
            if zone:
                if value is None or obs.chips.get(zone, 0) is None:
                    obs.chips[zone] = None
                else:
                    obs.chips[zone] = obs.chips.get(zone, 0) + value
        return obs


def _corner_marks_mm(result, card_mm: np.ndarray) -> list[list[tuple[float, float]]]:
    """Per card of ``result``: layout mm of each corner index it was read from (the detector's ``layout_mm``),
    or its point ((N, 2) ``card_mm``) for a face-down card or a frame read without a table."""
    d = result.dets
    mm = d.data.get("layout_mm")
    out = []
    for i, c in enumerate(result.cards):
        pts = [] if mm is None else [(float(mm[m][0]), float(mm[m][1])) for m in c.members if d.class_id[m] == 0]
        out.append(pts or [(float(card_mm[i][0]), float(card_mm[i][1]))])
    return out


@dataclass
class EngineRun:
    """What a run produced: the engine (rounds, alerts), frames read and analysed, the last frame read (index,
    seconds), and where it stopped."""

    engine: RoundEngine
    frames_read: int = 0
    frames_analysed: int = 0
    last_t_s: float = 0.0
    last_index: int = 0
    stopped: Stopped | None = None
    seconds: float = 0.0
    detect_seconds: float = 0.0


FrameHook = Callable[[Frame, Observation | None, list[Event], RoundEngine], None]


def run_engine(source: FrameSource, observer: Observer, engine: RoundEngine, tracker: ZoneTracker,
               analyse_fps: float = 10.0, on_frame: FrameHook | None = None,
               progress: Callable[[int, float], None] | None = None, drift=None) -> EngineRun:
    """Drive the engine over every frame of ``source``.

    Args:
        source: frames in.
        observer: turns analysed frames into zone readings.
        engine, tracker: the round engine and the zone tracker.
        analyse_fps: frames analysed per second of video (the rest are passed to ``on_frame`` only,
            for the annotated video).
        on_frame: called for every frame with its observation (``None`` when not analysed) and events.
        progress: called with (frames read, video seconds) now and then.
        drift: a :class:`calibration.drift.DriftWatch`, checked on every analysed frame; a moved or
            lost camera raises ``camera_moved`` / ``camera_lost``.

    Returns:
        An :class:`EngineRun`; what was processed is kept even when the source stops early.
    """
    run = EngineRun(engine=engine)
    step = 1.0 / analyse_fps if analyse_fps > 0 else 0.0
    next_t = 0.0
    t_start = time.perf_counter()
    last_frame: Frame | None = None
    for frame in source.frames():
        run.frames_read += 1
        last_frame = frame
        run.last_t_s = frame.t_s
        run.last_index = frame.index
        obs = None
        events: list[Event] = []
        if frame.t_s + 1e-6 >= next_t:
            t0 = time.perf_counter()
            obs = observer.observe(frame)
            run.detect_seconds += time.perf_counter() - t0
            run.frames_analysed += 1
            changes = tracker.update(frame.index, frame.t_s, obs.cards, obs.chips, obs.card_points, obs.card_marks,
                                     obs.chip_stacks)
            events = engine.step(frame.index, frame.t_s, changes, frame.utc)
            if drift is not None:
                events += _check_camera(drift, frame, engine)
            next_t = (int(frame.t_s / step + 1e-6) + 1) * step if step else 0.0
        if on_frame is not None:
            on_frame(frame, obs, events, engine)
        if progress is not None and run.frames_read % 30 == 0:
            progress(run.frames_read, frame.t_s)
    if last_frame is not None:
        events = engine.finish(last_frame.index, last_frame.t_s, tracker.finish(last_frame.index, last_frame.t_s))
        if on_frame is not None and events:
            on_frame(last_frame, None, events, engine)
    run.stopped = source.stopped
    run.seconds = time.perf_counter() - t_start
    return run


def _check_camera(drift, frame: Frame, engine: RoundEngine) -> list[Event]:
    report = drift.check(frame.image)
    if report.event in ("camera_moved", "camera_lost"):
        shift = None if report.shift_mm is None else round(float(report.shift_mm), 1)
        what = f"the layout has moved {shift} mm from where the calibration puts it" if shift is not None else \
            "the layout can no longer be found in the frame"
        return engine.camera_alert(report.event, frame.index, frame.t_s, shift, what + ": recalibrate")
    return []


def live_events(source: FrameSource, observer: Observer, engine: RoundEngine, tracker: ZoneTracker,
                analyse_fps: float = 10.0, drift=None) -> Iterator[tuple[Frame, Observation | None, list[Event]]]:
    """The same loop as :func:`run_engine`, as a generator for a live source.

    Yields (frame, observation or ``None``, events decided at this frame); each alert event
    carries ``raised_t_s``, so the delay from the decidable frame to the alert is
    ``alert.raised_t_s - alert.t_s``.  ``drift``: as in :func:`run_engine`.
    """
    step = 1.0 / analyse_fps if analyse_fps > 0 else 0.0
    next_t = 0.0
    last: Frame | None = None
    for frame in source.frames():
        last = frame
        obs, events = None, []
        if frame.t_s + 1e-6 >= next_t:
            obs = observer.observe(frame)
            changes = tracker.update(frame.index, frame.t_s, obs.cards, obs.chips, obs.card_points, obs.card_marks,
                                     obs.chip_stacks)
            events = engine.step(frame.index, frame.t_s, changes, frame.utc)
            if drift is not None:
                events += _check_camera(drift, frame, engine)
            next_t = (int(frame.t_s / step + 1e-6) + 1) * step if step else 0.0
        yield frame, obs, events
    if last is not None:
        yield last, None, engine.finish(last.index, last.t_s, tracker.finish(last.index, last.t_s))


class FrameBuffer:
    """The last ``seconds`` of frames (downscaled), for evidence images and clips, and one frame a second for
    ``sparse_seconds`` before them.

    Most alerts are raised within a second of the frame they name, but some are decided long after it: a side-bet
    payout counted from its own stack once the stack in front of it was taken (up to
    :data:`vision.rounds.STACK_WAIT_S` later). Their evidence image should show the table at the alert's frame, not
    the oldest frame a short clip buffer still holds; a frame a second keeps that within half a second for little
    memory (a 960 px frame is 1.5 MB).

    Args:
        seconds: every frame added is kept this long (the evidence clips are cut from these).
        width: frames wider than this are shrunk to it, pixels.
        sparse_seconds: how long the one-a-second frames are kept after ``seconds`` (0: none).
        sparse_every_s: the spacing of those frames, seconds.
    """

    def __init__(self, seconds: float = 4.0, width: int = 960, sparse_seconds: float = 0.0,
                 sparse_every_s: float = 1.0) -> None:
        self.seconds = seconds
        self.width = width
        self.sparse_seconds = sparse_seconds
        self.sparse_every_s = sparse_every_s
        self.frames: deque[tuple[int, float, np.ndarray]] = deque()
        self.sparse: deque[tuple[int, float, np.ndarray]] = deque()

    def add(self, frame: Frame, image: np.ndarray | None = None) -> None:
        import cv2

        img = frame.image if image is None else image
        h, w = img.shape[:2]
        if w > self.width:
            img = cv2.resize(img, (self.width, int(round(h * self.width / w / 2)) * 2), interpolation=cv2.INTER_AREA)
        self.frames.append((frame.index, frame.t_s, img))
        while self.frames and frame.t_s - self.frames[0][1] > self.seconds:
            old = self.frames.popleft()
            if self.sparse_seconds > 0 and (not self.sparse or old[1] - self.sparse[-1][1] >= self.sparse_every_s - 1e-6):
                self.sparse.append(old)
        while self.sparse and frame.t_s - self.sparse[0][1] > self.seconds + self.sparse_seconds:
            self.sparse.popleft()

    def nearest(self, index: int) -> np.ndarray | None:
        """The kept frame (H, W, 3) uint8 whose source frame index is nearest ``index``; None before any frame."""
        kept = [*self.sparse, *self.frames]
        if not kept:
            return None
        return min(kept, key=lambda f: abs(f[0] - index))[2]

    def between(self, t0: float, t1: float) -> list[np.ndarray]:
        """Every frame of the last ``seconds`` from ``t0`` to ``t1`` (seconds of video), oldest first."""
        return [img for _, t, img in self.frames if t0 <= t <= t1]
