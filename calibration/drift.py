"""Drift watch: does the layout still sit where the calibration says?  (``camera_moved``)

A cheap check meant for every few frames of a video.  The frame is shrunk to a
work width (640 px by default: ~3 mm per pixel on a whole table) and each printed
betting circle -- plus each end of a printed arc -- is looked for near where the
calibration puts it by normalised cross-correlation with a template drawn from
the layout itself (or cut from a reference frame when one is given).  The anchors
found give a robust (RANSAC) similarity motion of the image; applied to the spot
centres it says how far, in millimetres on the felt, the layout has moved.  Hands,
cards and chips hide some anchors or pull them astray, so the camera counts as
unmoved while two or more anchors sit in place and no more than one more moved
together, and a motion needs three anchors that moved, half of those found and a
third of those in view.  Where the layout is not found near its place (a big
bump) the whole frame is searched (phase correlation) and each anchor farther out.

Hysteresis keeps an unmoved camera from being flagged: ``camera_moved`` needs
``confirm_checks`` checks in a row above ``enter_mm`` and clears only after
``clear_checks`` in a row below ``exit_mm``.  When too few circles are found for
``lost_checks`` checks in a row the state becomes ``lost`` (``camera_lost``).

Example:
    >>> watch = DriftWatch(calibration, layout)                      # doctest: +SKIP
    >>> for i, frame in enumerate(frames):                           # doctest: +SKIP
    ...     if i % 3 == 0:
    ...         report = watch.check(frame)
    ...         if report.event == "camera_moved":
    ...             print(i, report.shift_mm)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

from calibration.homography import CalibrationResult
from calibration.layout import Layout

DriftState = Literal["ok", "moved", "lost"]


@dataclass(frozen=True)
class DriftMeasurement:
    """One frame's measurement, before hysteresis.

    Attributes:
        shift_mm: RMS displacement of the in-view spot centres, mm on the felt (``None`` when too few anchors were found).
        max_shift_mm: the largest of those displacements, mm.
        anchors_found: anchors that agree with the fitted motion.
        anchors_total: anchors in view.
        global_search: whether the wide (whole-frame) search was needed.
        problem: why no shift was measured: ``layout not found`` (too few anchors: counts towards
            ``camera_lost``) or ``anchors disagree`` (no motion carried by most anchors: counts for nothing).
    """

    shift_mm: float | None
    max_shift_mm: float | None
    anchors_found: int
    anchors_total: int
    global_search: bool = False
    problem: str | None = None


@dataclass(frozen=True)
class DriftReport:
    """One check: the measurement plus the watch's state.

    Attributes:
        state: ``ok``, ``moved`` or ``lost``.
        camera_moved: ``state == "moved"``.
        event: ``camera_moved``, ``camera_lost`` or ``camera_restored`` on the check where the state changes, else ``None``.
        elapsed_ms: time this check took, milliseconds.
    """

    measurement: DriftMeasurement
    state: DriftState
    camera_moved: bool
    event: str | None
    elapsed_ms: float

    @property
    def shift_mm(self) -> float | None:
        return self.measurement.shift_mm


@dataclass(frozen=True)
class _Anchor:
    name: str
    point: np.ndarray  # (2,) work-image pixels where the calibration puts it
    template: np.ndarray  # float32
    half: int
    mask: np.ndarray  # float32, 1 where the template counts


class DriftWatch:
    """Per-frame check that the layout sits where the calibration says.

    Args:
        calibration: the camera's calibration.
        layout: its layout.
        work_width: width, pixels, the frame is shrunk to for the check.
        search_mm: how far (mm on the felt) each anchor is looked for around its place.
        enter_mm: shift above which a check counts towards ``camera_moved``.
        exit_mm: shift below which a check counts towards clearing it.
        confirm_checks: checks in a row above ``enter_mm`` before ``camera_moved``.
        clear_checks: checks in a row below ``exit_mm`` before the state returns to ``ok``.
        lost_checks: checks in a row without enough anchors before ``camera_lost``.
        min_score: weakest correlation peak accepted for an anchor.
        max_anchors: most anchors searched per check (spread over the view; each costs ~0.5 ms).
        reference: optional (H, W, 3) frame of the calibrated, unoccluded table to cut templates from
            (default: templates drawn from the layout).

    Raises:
        ValueError: for a calibration of another layout.
    """

    def __init__(self, calibration: CalibrationResult, layout: Layout, *, work_width: int = 640,
                 search_mm: float = 30.0, enter_mm: float = 3.0, exit_mm: float = 1.5, confirm_checks: int = 4,
                 clear_checks: int = 20, lost_checks: int = 50, min_score: float = 0.5, max_anchors: int = 12,
                 reference: np.ndarray | None = None):
        if calibration.layout_id != layout.id:
            raise ValueError(f"calibration is for layout {calibration.layout_id!r}, not {layout.id!r}")
        self.calibration = calibration
        self.layout = layout
        w, h = calibration.image_size
        self.factor = min(1.0, work_width / w)
        self.work_size = (max(1, round(w * self.factor)), max(1, round(h * self.factor)))
        self.enter_mm, self.exit_mm = enter_mm, exit_mm
        self.confirm_checks, self.clear_checks, self.lost_checks = confirm_checks, clear_checks, lost_checks
        self.min_score = min_score
        centre = np.asarray(layout.table_center, np.float64) + np.array([0.0, layout.table_radius * 0.5])
        scale = float(calibration.px_per_mm([centre])[0]) * self.factor
        self.search_px = max(4, int(math.ceil(search_mm * scale)))
        self.model = self._draw_model()
        ref = None
        if reference is not None:
            ref = self.work_image(reference)
        # templates see only the printed line and a few mm either side: the words and tints
        # printed in and around a spot are not in the model and would pull the match off centre
        band = self._draw_model(extra_mm=10.0) > 0.05
        self.anchors = self._spread(self._make_anchors(ref if ref is not None else self.model, band), max_anchors)
        self.spot_mm = np.array([z.circle.center for z in layout.spots()], np.float64)
        self.spot_px = self._to_work(self.spot_mm)
        inside = self._inside(self.spot_px, 0)
        self.spot_mm, self.spot_px = self.spot_mm[inside], self.spot_px[inside]
        if len(self.spot_mm) == 0 and self.anchors:  # no spot in view: measure the shift at the anchors
            self.spot_px = np.array([a.point for a in self.anchors])
            self.spot_mm = self._to_mm(self.spot_px)
        self.state: DriftState = "ok"
        self._run_moved = self._run_still = self._run_lost = 0

    # --- geometry -------------------------------------------------------------------
    # pixel centres sit at integer coordinates: shrinking by f maps x to (x + 0.5) f - 0.5
    def _to_work(self, points_mm: np.ndarray) -> np.ndarray:
        return (self.calibration.to_pixels(points_mm) + 0.5) * self.factor - 0.5

    def _to_mm(self, points_work: np.ndarray) -> np.ndarray:
        return self.calibration.to_mm((np.asarray(points_work, np.float64) + 0.5) / self.factor - 0.5)

    def _inside(self, P: np.ndarray, margin: float) -> np.ndarray:
        w, h = self.work_size
        return np.isfinite(P).all(axis=1) & (P[:, 0] >= margin) & (P[:, 1] >= margin) & (P[:, 0] < w - margin) & \
            (P[:, 1] < h - margin)

    def work_image(self, frame: np.ndarray) -> np.ndarray:
        """A frame of this camera (full size, or already work-sized) as the (h, w) float32 grey work image."""
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        if (grey.shape[1], grey.shape[0]) != self.work_size:
            grey = cv2.resize(grey, self.work_size, interpolation=cv2.INTER_AREA)
        return grey.astype(np.float32)

    def _draw_model(self, extra_mm: float = 0.0) -> np.ndarray:
        """The layout's ink (spot rings, arcs) drawn in the work image, float32 0..1, slightly blurred.

        ``extra_mm`` widens every line (for the masks that keep a template to the ring itself).
        """
        w, h = self.work_size
        img = np.zeros((h, w), np.float32)
        shift = 4
        k = 1 << shift
        lines: list[tuple[np.ndarray, bool, float]] = []
        for z in self.layout.spots():
            c = z.circle
            a = np.linspace(0, 2 * math.pi, 96, endpoint=False)
            lines.append((np.column_stack([c.center[0] + c.radius * np.cos(a), c.center[1] + c.radius * np.sin(a)]),
                          True, 3.5))
        for arc in self.layout.arcs:
            n = max(8, int(abs(arc.end_deg - arc.start_deg)))
            a = np.radians(np.linspace(arc.start_deg, arc.end_deg, n))
            lines.append((np.column_stack([arc.center[0] + arc.radius * np.cos(a), arc.center[1] + arc.radius * np.sin(a)]),
                          False, arc.width_mm))
        for pts, closed, width_mm in lines:
            P = self._to_work(pts)
            if not np.isfinite(P).all():
                continue
            scale = float(np.median(self.calibration.px_per_mm(pts))) * self.factor
            th = max(1, int(round((width_mm + extra_mm) * scale)))
            cv2.polylines(img, [np.round(P * k).astype(np.int32)], closed, 1.0, th, cv2.LINE_AA, shift)
        return cv2.GaussianBlur(img, (0, 0), 0.7)

    def _make_anchors(self, source: np.ndarray, band: np.ndarray) -> list[_Anchor]:
        """Templates around each spot circle and each arc end, cut from ``source`` (work image)."""
        items: list[tuple[str, np.ndarray, float]] = []
        for z in self.layout.spots():
            c = z.circle
            items.append((z.name, np.asarray(c.center, np.float64), c.radius * 1.35))
        for i, arc in enumerate(self.layout.arcs):
            for end, deg in (("start", arc.start_deg), ("end", arc.end_deg)):
                a = math.radians(deg)
                p = np.array([arc.center[0] + arc.radius * math.cos(a), arc.center[1] + arc.radius * math.sin(a)])
                items.append((f"arc{i}.{end}", p, 40.0))
        anchors = []
        for name, p_mm, half_mm in items:
            p = self._to_work(p_mm[None])[0]
            scale = float(self.calibration.px_per_mm(p_mm[None])[0]) * self.factor
            half = max(5, int(math.ceil(half_mm * scale)))
            if not self._inside(p[None], half + self.search_px + 2)[0]:
                continue
            x, y = int(round(p[0])), int(round(p[1]))
            t = source[y - half: y + half + 1, x - half: x + half + 1].astype(np.float32)
            m = band[y - half: y + half + 1, x - half: x + half + 1].astype(np.float32)
            if t.shape != (2 * half + 1, 2 * half + 1) or float(t[m > 0].std()) < 1e-3:
                continue
            anchors.append(_Anchor(name, np.array([x, y], np.float64), t.copy(), half, m.copy()))
        return anchors

    @staticmethod
    def _spread(anchors: list[_Anchor], k: int) -> list[_Anchor]:
        """At most ``k`` anchors, far apart (farthest-point order from the first)."""
        if len(anchors) <= k:
            return anchors
        P = np.array([a.point for a in anchors])
        chosen = [int(np.argmin(P[:, 0] + P[:, 1]))]
        d = np.linalg.norm(P - P[chosen[0]], axis=1)
        while len(chosen) < k:
            i = int(np.argmax(d))
            chosen.append(i)
            d = np.minimum(d, np.linalg.norm(P - P[i], axis=1))
        return [anchors[i] for i in sorted(chosen)]

    # --- measuring ------------------------------------------------------------------
    def _search(self, img: np.ndarray, offset: np.ndarray, reach: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Look for every anchor within ``reach`` x the search radius of its place + ``offset``.

        Returns:
            ((K, 2) expected points, (K, 2) found points (NaN where not found), (K,) found mask), work pixels.
        """
        R = int(round(self.search_px * reach))
        h, w = img.shape
        src = np.array([a.point for a in self.anchors])
        dst = np.full_like(src, np.nan)
        ok = np.zeros(len(self.anchors), bool)
        for k, a in enumerate(self.anchors):
            cx, cy = int(round(a.point[0] + offset[0])), int(round(a.point[1] + offset[1]))
            # the search window, clipped to the frame (it must still hold the template)
            x0, y0 = max(0, cx - a.half - R), max(0, cy - a.half - R)
            x1, y1 = min(w, cx + a.half + R + 1), min(h, cy + a.half + R + 1)
            if x1 - x0 < 2 * a.half + 3 or y1 - y0 < 2 * a.half + 3:
                continue
            res = cv2.matchTemplate(img[y0:y1, x0:x1], a.template, cv2.TM_CCOEFF_NORMED, mask=a.mask)
            _, peak, _, (px, py) = cv2.minMaxLoc(res)
            if peak < self.min_score or px in (0, res.shape[1] - 1) or py in (0, res.shape[0] - 1):
                continue
            # sub-pixel peak: a parabola through the peak and its neighbours along each axis
            def vertex(m1, m0, p1):
                d = m1 - 2 * m0 + p1
                return 0.0 if d >= 0 else 0.5 * (m1 - p1) / d
            sx = vertex(res[py, px - 1], res[py, px], res[py, px + 1])
            sy = vertex(res[py - 1, px], res[py, px], res[py + 1, px])
            dst[k] = (x0 + px + sx + a.half, y0 + py + sy + a.half)
            ok[k] = True
        return src, dst, ok

    def measure(self, frame: np.ndarray) -> DriftMeasurement:
        """Measure the layout's displacement in one frame (no hysteresis).

        Args:
            frame: (H, W, 3) BGR or (H, W) grey frame of this camera, at full size or already at the work size.
        """
        img = self.work_image(frame)
        total = len(self.anchors)
        if total == 0:
            return DriftMeasurement(None, None, 0, 0, problem="layout not found")
        best = self._fit(*self._search(img, np.zeros(2)), total, False)
        weak_move = best.shift_mm is not None and best.shift_mm > self.exit_mm and best.anchors_found < 0.5 * total
        if best.shift_mm is None or weak_move:
            # the layout is not found where it should be, or few anchors agree on a move: a big
            # move?  Look for the whole layout (one shift for the whole frame), then for each
            # anchor farther on its own (a turn is not a pure shift); keep the answer most
            # anchors agree on.  An unmoved answer near the calibrated places is never replaced.
            win = cv2.createHanningWindow(self.work_size, cv2.CV_32F)
            bg = cv2.GaussianBlur(img, (0, 0), 8)
            (dx, dy), _ = cv2.phaseCorrelate(self.model, img - bg, win)
            tries = [self._search(img, np.zeros(2), reach=3.0)]
            if np.isfinite(dx) and np.isfinite(dy):
                tries.append(self._search(img, np.array([dx, dy])))
            for found in tries:
                m = self._fit(*found, total, True)
                if (m.shift_mm is not None, m.anchors_found) > (best.shift_mm is not None, best.anchors_found):
                    best = m
        return best

    def _fit(self, src: np.ndarray, dst: np.ndarray, ok: np.ndarray, total: int, wide: bool) -> DriftMeasurement:
        """The layout's shift from anchors expected at ``src`` and found at ``dst`` (where ``ok``), work pixels."""
        n_ok = int(ok.sum())
        if n_ok < max(3, 0.3 * total):
            return DriftMeasurement(None, None, n_ok, total, wide, "layout not found")
        s, d = src[ok], dst[ok]
        # A bump moves every visible anchor the same way; a hand, card or chip over a ring
        # pulls one or two astray.  So the camera counts as unmoved while two or more anchors
        # sit where the calibration puts them and no more than one fewer moved together, and
        # a motion must be carried by three anchors that moved, half of those found and a
        # third of all.
        still = np.linalg.norm(d - s, axis=1) < 0.6
        M, inl = cv2.estimateAffinePartial2D(s, d, method=cv2.RANSAC, ransacReprojThreshold=1.0, maxIters=500,
                                             refineIters=10)
        n_in = 0 if M is None else int(inl.sum())
        # anchors that carry the motion and did move (a near-identity fit also "explains" the still ones)
        n_move = 0 if M is None else int((inl.ravel().astype(bool) & ~still).sum())
        if still.sum() >= 2 and still.sum() >= n_move - 1:
            # unmoved: the shift is what the anchors in place show (no extrapolation from a few)
            disp = np.linalg.norm(self._to_mm(d[still]) - self._to_mm(s[still]), axis=1)
            return DriftMeasurement(float(np.sqrt(np.mean(disp**2))), float(disp.max()), int(still.sum()), total, wide)
        if M is None or n_move < 3 or n_in < math.ceil(0.5 * n_ok):
            return DriftMeasurement(None, None, n_in, total, wide, "anchors disagree")
        if n_in < 0.3 * total:
            # too little of the layout to say it moved (most anchors hidden, or a wide search
            # that locked onto the wrong rings)
            return DriftMeasurement(None, None, n_in, total, wide, "layout not found")
        moved = self.spot_px @ M[:, :2].T + M[:, 2]
        disp = np.linalg.norm(self._to_mm(moved) - self.spot_mm, axis=1)
        return DriftMeasurement(float(np.sqrt(np.mean(disp**2))), float(disp.max()), n_in, total, wide)

    # --- hysteresis -----------------------------------------------------------------
    def check(self, frame: np.ndarray) -> DriftReport:
        """Measure one frame and update the state (see the module docstring for the hysteresis)."""
        t0 = time.perf_counter()
        m = self.measure(frame)
        event = None
        if m.shift_mm is None and m.problem == "layout not found":
            self._run_lost += 1
            self._run_moved = self._run_still = 0
        elif m.shift_mm is None:  # anchors disagree: evidence for nothing
            self._run_lost = self._run_moved = self._run_still = 0
        elif m.shift_mm > self.enter_mm:
            self._run_moved += 1
            self._run_lost = self._run_still = 0
        elif m.shift_mm < self.exit_mm:
            self._run_still += 1
            self._run_lost = self._run_moved = 0
        else:  # between the thresholds: evidence for neither
            self._run_lost = self._run_moved = self._run_still = 0
        if self.state != "moved" and self._run_moved >= self.confirm_checks:
            self.state, event = "moved", "camera_moved"
        elif self.state == "ok" and self._run_lost >= self.lost_checks:
            self.state, event = "lost", "camera_lost"
        elif self.state != "ok" and self._run_still >= self.clear_checks:
            self.state, event = "ok", "camera_restored"
        return DriftReport(m, self.state, self.state == "moved", event, (time.perf_counter() - t0) * 1000)

    def reset(self) -> None:
        """Back to ``ok`` with empty counters (after a recalibration)."""
        self.state = "ok"
        self._run_moved = self._run_still = self._run_lost = 0


class EveryNthCheck:
    """A :class:`DriftWatch` checked on every ``n``-th analysed frame only (its hysteresis counts checks).

    A camera knocked out of place stays out of place: checking a few times a second is enough, and
    each check costs a shrunk frame and a dozen template searches.
    """

    class _Quiet:
        event = None
        shift_mm = None

    def __init__(self, watch: DriftWatch, n: int) -> None:
        self.watch = watch
        self.n = max(1, int(n))
        self.i = 0

    def check(self, image):
        self.i += 1
        if self.i % self.n:
            return self._Quiet()
        return self.watch.check(image)
