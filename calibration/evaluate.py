"""Measure calibration on rendered frames: ``python -m calibration.evaluate`` (or ``pitwatch eval-calibration``).

Three measurements (issue 4's "done when"), each on frames from the renderer
(:mod:`datasets.render`) with known cameras:

* **auto** -- automatic calibration over random poses (tilt 0-35 degrees, yaw
  any, 1080p, varied felt and print colours, fonts, light, blur, noise, JPEG):
  RMS error, mm, of the layout's points in view (zone corners and spot centres)
  mapped through the true camera and back through the estimate.  Poses are drawn
  until at least ``min_circles`` betting circles lie wholly in view (the
  automatic method needs them; the count of rejected draws is reported).
* **zones** -- zone of every card and chip stack in the renderer's own random
  scenes (:func:`datasets.scenes.random_scene`) against the scene truth, with the
  true calibration and with one made automatically from the empty table.
* **drift** -- the drift watch on 10 minutes of an unmoved camera (checks every
  third frame at 30 fps) and on cameras bumped by 1-2 cm or 1-2 degrees.  The
  watch's own input is simulated: 1080p renders of tables in play are shrunk once
  to the work size and every check gets its own light level, light gradient,
  sensor noise, blur and extra occluding hands, cards and chips drawn at the work
  size, so 18,000 frames need not be rendered at 1080p.

Output: a summary on stderr and the full figures as JSON (``--out``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from calibration.auto import calibrate_auto
from calibration.camera import PinholeCamera
from calibration.drift import DriftWatch
from calibration.homography import CalibrationError, CalibrationResult, apply_homography
from calibration.layout import Layout, builtin_layout
from calibration.zones import STACK_SPILL_MM, ZoneMap


# --- helpers --------------------------------------------------------------------------
def summary(values) -> dict:
    """Median, 90th percentile, max, mean and count of a list of numbers (NaN-free)."""
    v = np.asarray([x for x in values if x is not None and np.isfinite(x)], np.float64)
    if len(v) == 0:
        return {"n": 0}
    return {"n": int(len(v)), "median": round(float(np.median(v)), 4), "p90": round(float(np.percentile(v, 90)), 4),
            "max": round(float(v.max()), 4), "mean": round(float(v.mean()), 4)}


def layout_points(layout: Layout) -> np.ndarray:
    """(N, 2) mm: every zone polygon vertex and spot centre (the points whose error the evaluation measures)."""
    pts = [p for z in layout.zones if z.circle is None for p in z.polygon]
    pts += [z.circle.center for z in layout.spots()]
    return np.asarray(pts, np.float64)


def homography_error_mm(H_est: np.ndarray, camera: PinholeCamera, layout: Layout) -> tuple[float, float, int]:
    """(RMS, max, count): layout points in view, mm, true camera -> pixels -> estimated homography -> mm."""
    P = layout_points(layout)
    px = camera.project(P)
    ok = np.isfinite(px).all(axis=1) & (px[:, 0] >= 0) & (px[:, 1] >= 0) & (px[:, 0] < camera.width) & \
        (px[:, 1] < camera.height)
    back = apply_homography(np.linalg.inv(H_est), px[ok])
    err = np.linalg.norm(back - P[ok], axis=1)
    if len(err) == 0:
        return float("nan"), float("nan"), 0
    return float(np.sqrt(np.mean(err**2))), float(err.max()), int(ok.sum())


def circles_in_view(layout: Layout, camera: PinholeCamera, margin_px: float = 3.0) -> int:
    """How many printed betting circles lie wholly inside the image."""
    n = 0
    for z in layout.spots():
        px = camera.project(np.asarray(z.circle.polygon(32)))
        if np.isfinite(px).all() and (px >= margin_px).all() and (px[:, 0] < camera.width - margin_px).all() and \
                (px[:, 1] < camera.height - margin_px).all():
            n += 1
    return n


def sample_pose(rng: np.random.Generator, layout: Layout, width: int = 1920, height: int = 1080,
                tilt_range: tuple[float, float] = (0.0, 35.0), min_circles: int = 4) -> tuple[PinholeCamera, int]:
    """A random camera over the table with at least ``min_circles`` circles in view; returns (camera, draws needed).

    Tilt uniform in ``tilt_range``, yaw uniform over the full turn, roll N(0, 2),
    1.3-2.3 m of felt across the image at 1.7-2.6 m from the aim point, aimed
    near the middle of the betting area.
    """
    for draws in range(1, 1000):
        cam = PinholeCamera.looking_at(
            (layout.table_center[0] + float(rng.normal(0, 120)), float(rng.uniform(380, 560))),
            float(rng.uniform(*tilt_range)), float(rng.uniform(0, 360)), width, height,
            float(rng.uniform(1300, 2300)), float(rng.uniform(1700, 2600)), float(rng.normal(0, 2)))
        if circles_in_view(layout, cam) >= min_circles:
            return cam, draws
    raise RuntimeError("no pose with enough circles in view")


def felt_style(layout: Layout, rng: np.random.Generator, camera: PinholeCamera):
    """A random renderer style (colours, font, light, blur, noise, JPEG) on the printed felt."""
    from datasets.scenes import random_style

    return replace(random_style(layout, rng, camera), surface="felt")


def _log(log, msg: str) -> None:
    if log is not None:
        print(msg, file=log, flush=True)


# --- automatic calibration ----------------------------------------------------------------
def eval_auto(poses: int = 50, seed: int = 0, in_play: bool = False, layouts: list[str] | None = None,
              log=None) -> dict:
    """Automatic calibration over ``poses`` random poses (see the module docstring).

    Args:
        in_play: put a random table state (cards, chips, hands) on the felt instead of an empty table.
    """
    from calibration.chipset import default_chipset
    from datasets.render import render_frame
    from datasets.scene import TableState
    from datasets.scenes import random_state

    rng = np.random.default_rng([seed, 4, int(in_play)])
    ids = layouts or ["blackjack-7-mtd-bonus", "spanish21-6-mtd", "switch-hands-7"]
    rows = []
    for i in range(poses):
        layout = builtin_layout(ids[i % len(ids)])
        cam, draws = sample_pose(rng, layout)
        style = felt_style(layout, rng, cam)
        state = random_state(layout, rng, default_chipset().denominations) if in_play else TableState()
        image = render_frame(layout, state, cam, style, rng=i).image
        t0 = time.perf_counter()
        row = {"pose": i, "layout": layout.id, "draws": draws, "circles_in_view": circles_in_view(layout, cam)}
        try:
            cal = calibrate_auto(image, layout)
            row["seconds"] = time.perf_counter() - t0
            rms, mx, n = homography_error_mm(cal.homography, cam, layout)
            row.update(ok=True, rms_mm=rms, max_mm=mx, points=n, reported_mm=cal.reprojection_error_mm,
                       circles_matched=cal.extra.get("circles_matched"))
        except CalibrationError as exc:
            row.update(ok=False, seconds=time.perf_counter() - t0, error=str(exc))
        rows.append(row)
        _log(log, f"auto{' in play' if in_play else ''} {i:3d} {layout.id:22s} "
                  + (f"rms {row['rms_mm']:.3f} mm max {row['max_mm']:.2f} ({row['circles_matched']} circles) "
                     f"{row['seconds']:.2f} s" if row["ok"] else f"FAILED: {row['error']}"))
    ok = [r for r in rows if r["ok"]]
    return {
        "poses": poses, "in_play": in_play, "solved": len(ok),
        "within_2mm": sum(1 for r in ok if r["rms_mm"] <= 2.0),
        "rms_mm": summary([r["rms_mm"] for r in ok]), "max_mm": summary([r["max_mm"] for r in ok]),
        "reported_mm": summary([r["reported_mm"] for r in ok]), "seconds": summary([r["seconds"] for r in rows]),
        "pose_draws_per_pose": summary([r["draws"] for r in rows]), "rows": rows,
    }


# --- zones ----------------------------------------------------------------------------------
def _inside(box, w, h, margin=1.0) -> bool:
    return box[0] >= margin and box[1] >= margin and box[2] <= w - margin and box[3] <= h - margin


def eval_zones(scenes: int = 200, seed: int = 0, auto: bool = True, log=None) -> dict:
    """Zone of every card and chip stack in ``scenes`` random scenes against the truth (see the module docstring).

    Cards are assigned by the centre of the box around their quad (the whole card,
    as the detector reports it), chip stacks by the base fitted to their box; only
    things wholly in the frame count (a clipped box is not the thing's box).
    """
    from datasets.render import render_frame
    from datasets.scene import TableState
    from datasets.scenes import random_scene

    tally = {k: {"agree": 0, "total": 0} for k in (
        "cards", "chips", "auto_cards", "auto_chips", "cards_vs_true_centre", "scene_truth_centre_outside_its_zone",
        "chips_bottom_centre", "chips_box_centre", "cards_visible_box")}
    wrong: list[dict] = []
    auto_fail = auto_tried = 0
    auto_rms = []
    auto_failures: list[dict] = []
    for i in range(scenes):
        sc = random_scene(seed, i)
        layout, cam = sc.layout, sc.camera
        res = render_frame(layout, sc.state, cam, sc.style, rng=i)
        w, h = cam.width, cam.height
        maps = {"": ZoneMap(layout, CalibrationResult(cam.homography(), (w, h), layout.id))}
        if auto and sc.style.surface == "felt":
            auto_tried += 1
            empty = render_frame(layout, TableState(), cam, sc.style, rng=i).image
            try:
                cal = calibrate_auto(empty, layout)
                maps["auto_"] = ZoneMap(layout, cal)
                auto_rms.append(homography_error_mm(cal.homography, cam, layout)[0])
            except CalibrationError as exc:
                auto_fail += 1
                tilt = math.degrees(math.acos(min(1.0, abs(float(cam.R[2, 2])))))
                auto_failures.append({"scene": i, "layout": layout.id, "size": [w, h], "tilt_deg": round(tilt, 1),
                                      "circles_in_view": circles_in_view(layout, cam), "error": str(exc)})
        for prefix, zm in maps.items():
            # the zone the scene says, and the zone the thing's true centre lies in (layout.zone_at)
            cards = [(c, np.r_[c.quad.min(axis=0), c.quad.max(axis=0)], layout.zone_at(p.center))
                     for p, c in zip(sc.state.cards, res.cards) if c.zone is not None]
            cards = [(c, b, g) for c, b, g in cards if _inside(b, w, h)]
            if cards:
                got = zm.zone_of_boxes(np.array([b for _, b, _ in cards]), "card")
                for (c, b, geo), g in zip(cards, got):
                    tally[f"{prefix}cards"]["total"] += 1
                    tally[f"{prefix}cards"]["agree"] += g == c.zone
                    if prefix == "":
                        tally["cards_vs_true_centre"]["total"] += 1
                        tally["cards_vs_true_centre"]["agree"] += g == (geo.name if geo else c.zone)
                        tally["scene_truth_centre_outside_its_zone"]["total"] += 1
                        tally["scene_truth_centre_outside_its_zone"]["agree"] += (geo.name if geo else None) != c.zone
                    if g != c.zone:
                        wrong.append({"scene": i, "calibration": prefix or "true", "kind": "card", "truth": c.zone,
                                      "true_centre_in": geo.name if geo else None, "got": g,
                                      "box": np.round(b, 1).tolist()})
            chips = [(c, layout.zone_at(p.center)) for p, c in zip(sc.state.chips, res.chips)
                     if c.zone is not None and c.box is not None and _inside(c.box, w, h)]
            if chips:
                B = np.array([c.box for c, _ in chips], np.float64)
                got = zm.zone_of_boxes(B, "chip")
                for (c, geo), g, b in zip(chips, got, B):
                    tally[f"{prefix}chips"]["total"] += 1
                    tally[f"{prefix}chips"]["agree"] += g == c.zone
                    if g != c.zone:
                        wrong.append({"scene": i, "calibration": prefix or "true", "kind": "chip", "truth": c.zone,
                                      "true_centre_in": geo.name if geo else None, "got": g,
                                      "box": np.round(b, 1).tolist()})
                chips = [c for c, _ in chips]
                if prefix == "":
                    for name, pts in (("chips_bottom_centre", np.column_stack([(B[:, 0] + B[:, 2]) / 2, B[:, 3]])),
                                      ("chips_box_centre", np.column_stack([(B[:, 0] + B[:, 2]) / 2,
                                                                            (B[:, 1] + B[:, 3]) / 2]))):
                        for c, g in zip(chips, zm.zone_of_points(pts, STACK_SPILL_MM)):
                            tally[name]["total"] += 1
                            tally[name]["agree"] += g == c.zone
            if prefix == "":
                vis = [c for c in res.cards if c.zone is not None and c.box is not None and c.visible >= 0.5
                       and _inside(c.box, w, h)]
                if vis:
                    for c, g in zip(vis, zm.zone_of_boxes(np.array([c.box for c in vis]), "card")):  # noqa: B007
                        tally["cards_visible_box"]["total"] += 1
                        tally["cards_visible_box"]["agree"] += g == c.zone
        _log(log, f"zones {i:3d} {layout.id:22s} {w}x{h} " + " ".join(
            f"{k} {v['agree']}/{v['total']}" for k, v in tally.items() if v["total"]))
    rates = {k: {**v, "rate": round(v["agree"] / v["total"], 5) if v["total"] else None} for k, v in tally.items()}
    kinds = ("ellipse(s) that could be", "matched", "ambiguous", "do not line up", "residual")
    reasons = {k: sum(1 for f in auto_failures if k in f["error"]) for k in kinds}
    return {"scenes": scenes, "rates": rates, "auto_calibrated": auto_tried - auto_fail, "auto_failed": auto_fail,
            "auto_rms_mm": summary(auto_rms), "auto_failure_reasons": reasons,
            "auto_failed_with_4_circles_in_view": sum(1 for f in auto_failures if f["circles_in_view"] >= 4),
            "auto_failures": auto_failures, "disagreements": wrong[:50]}


# --- drift ----------------------------------------------------------------------------------
def bumped_camera(cam: PinholeCamera, rng: np.random.Generator, kind: str) -> PinholeCamera:
    """``cam`` bumped: ``shift`` moves its centre 10-20 mm in a random direction, ``turn`` rotates it 1-2 degrees
    about a random axis through its centre."""
    C = cam.center_mm
    R = cam.R
    if kind == "shift":
        d = rng.normal(size=3)
        C = C + d / np.linalg.norm(d) * rng.uniform(10, 20)
    else:
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        rvec = axis * math.radians(rng.uniform(1, 2))
        R = cv2.Rodrigues(rvec)[0] @ R
    return PinholeCamera(K=cam.K, R=R, t=-R @ C, width=cam.width, height=cam.height)


def _true_shift_mm(cal: CalibrationResult, cam2: PinholeCamera, spots_mm: np.ndarray) -> float:
    d = np.linalg.norm(cal.to_mm(cam2.project(spots_mm)) - spots_mm, axis=1)
    return float(np.sqrt(np.mean(d**2)))


class _WorkFrames:
    """Frames at the drift watch's work size: a few real renders, varied per check (see the module docstring)."""

    def __init__(self, watch: DriftWatch, frames: list[np.ndarray], rng: np.random.Generator):
        self.watch = watch
        self.pool = [watch.work_image(f) for f in frames]
        self.rng = rng
        w, h = watch.work_size
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        self.xx, self.yy = xx / w - 0.5, yy / h - 0.5
        self.scale = float(watch.calibration.px_per_mm([watch.layout.table_center])[0]) * watch.factor

    def frame(self, t_s: float, light: float) -> np.ndarray:
        """One check's input at video time ``t_s`` under overall light level ``light``.

        The scene (pool frame and extra occluders) holds for a random spell (mean 2 s)
        as a resting hand or a dealt card would; light, noise and blur change every check.
        """
        rng = self.rng
        if t_s >= getattr(self, "_until", -1.0):
            self._until = t_s + float(rng.exponential(2.0))
            self._scene = self._occlude(self.pool[int(rng.integers(len(self.pool)))].copy())
        return self._light(self._scene, light)

    def _occlude(self, img: np.ndarray) -> np.ndarray:
        rng = self.rng
        s = self.scale
        h, w = img.shape
        # extra occluders: the dealer's arms reaching in, loose cards, chip stacks (grey levels of skin, paper, chips)
        for _ in range(int(rng.choice([0, 0, 1, 1, 2]))):
            x0, y0 = rng.uniform(0, w), rng.uniform(-0.2, 0.2) * h
            x1, y1 = rng.uniform(0.1, 0.9) * w, rng.uniform(0.15, 0.85) * h
            shade = float(rng.uniform(90, 200))
            cv2.line(img, (int(x0), int(y0)), (int(x1), int(y1)), shade, max(2, int(70 * s)), cv2.LINE_AA)
            cv2.circle(img, (int(x1), int(y1)), max(2, int(55 * s)), shade, -1, cv2.LINE_AA)
        for _ in range(int(rng.integers(0, 9))):
            c = (rng.uniform(0, w), rng.uniform(0, h))
            box = cv2.boxPoints((c, (63.5 * s, 88.9 * s), float(rng.uniform(0, 180))))
            cv2.fillConvexPoly(img, np.round(box).astype(np.int32), float(rng.uniform(180, 250)), cv2.LINE_AA)
        for _ in range(int(rng.integers(0, 6))):
            c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            cv2.circle(img, c, max(2, int(19.5 * s)), float(rng.uniform(30, 220)), -1, cv2.LINE_AA)
        return img

    def _light(self, img: np.ndarray, light: float) -> np.ndarray:
        rng = self.rng
        # light: level, a gradient in a random direction, sensor noise, now and then motion blur
        a = rng.uniform(0, 2 * math.pi)
        grad = 1 + rng.uniform(0, 0.3) * (self.xx * math.cos(a) + self.yy * math.sin(a))
        img = img * (light * grad) + rng.uniform(-10, 10)
        if rng.random() < 0.1:
            k = int(rng.choice([3, 5]))  # odd: a centred blur, no half-pixel shift
            kern = np.zeros((k, k), np.float32)
            kern[k // 2] = 1.0 / k
            img = cv2.filter2D(img, -1, kern)
        img = img + rng.normal(0, rng.uniform(1, 4), img.shape).astype(np.float32)
        return np.clip(img, 0, 255).astype(np.float32)


def _render_pool(layout: Layout, cam: PinholeCamera, style, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    from calibration.chipset import default_chipset
    from datasets.render import render_frame
    from datasets.scenes import random_hand, random_state

    frames = []
    denoms = default_chipset().denominations
    for k in range(n):
        state = random_state(layout, rng, denoms)
        if not state.hands:
            state = replace(state, hands=tuple(random_hand(layout, rng, list(state.cards))))
        frames.append(render_frame(layout, state, cam, style, rng=int(rng.integers(1 << 30))).image)
    return frames


def eval_drift(minutes: float = 10.0, cameras: int = 3, moves: int = 60, seed: int = 0, fps: float = 30.0,
               every: int = 3, pool: int = 12, log=None, **watch_kw) -> dict:
    """The drift watch on unmoved cameras (``minutes`` each) and on ``moves`` bumped cameras (see the module docstring)."""
    ids = ["blackjack-7-mtd-bonus", "spanish21-6-mtd", "switch-hands-7"]
    check_hz = fps / every
    still = []
    check_ms, full_ms = [], []
    for k in range(cameras):
        rng = np.random.default_rng([seed, 5, k])  # one generator per camera: each case replays alone
        layout = builtin_layout(ids[k % len(ids)])
        cam, _ = sample_pose(rng, layout)
        style = felt_style(layout, rng, cam)
        frames = _render_pool(layout, cam, style, rng, pool)
        cal = CalibrationResult(cam.homography(), (cam.width, cam.height), layout.id)
        watch = DriftWatch(cal, layout, **watch_kw)
        for f in frames[:5]:
            t0 = time.perf_counter()
            watch.measure(f)
            full_ms.append((time.perf_counter() - t0) * 1000)
        src = _WorkFrames(watch, frames, rng)
        n_checks = int(minutes * 60 * check_hz)
        events, shifts, lost = [], [], 0
        phase = rng.uniform(0, 2 * math.pi)
        for c in range(n_checks):
            t = c / check_hz
            # the room's light: a slow swing of +-25 %, and a dimmed spell (40 % down) for 20 s every 3 minutes
            light = 1 + 0.25 * math.sin(2 * math.pi * t / 90 + phase)
            if (t % 180) > 160:
                light *= 0.6
            rep = watch.check(src.frame(t, light))
            check_ms.append(rep.elapsed_ms)
            if rep.measurement.shift_mm is None:
                lost += 1
            else:
                shifts.append(rep.measurement.shift_mm)
            if rep.event:
                events.append({"t_s": round(t, 2), "event": rep.event})
        still.append({"layout": layout.id, "checks": n_checks, "minutes": minutes, "events": events,
                      "camera_moved_events": sum(e["event"] == "camera_moved" for e in events),
                      "checks_without_measurement": lost, "shift_mm": summary(shifts)})
        _log(log, f"drift still {k}: {n_checks} checks, events {events}, shift {summary(shifts)}")

    moved = []
    for k in range(moves):
        rng = np.random.default_rng([seed, 6, k])
        layout = builtin_layout(ids[k % len(ids)])
        cam, _ = sample_pose(rng, layout)
        kind = "shift" if k % 2 == 0 else "turn"
        cam2 = bumped_camera(cam, rng, kind)
        style = felt_style(layout, rng, cam)
        cal = CalibrationResult(cam.homography(), (cam.width, cam.height), layout.id)
        watch = DriftWatch(cal, layout, **watch_kw)
        before = _WorkFrames(watch, _render_pool(layout, cam, style, rng, 2), rng)
        after = _WorkFrames(watch, _render_pool(layout, cam2, style, rng, 3), rng)
        true_shift = _true_shift_mm(cal, cam2, watch.spot_mm)
        for c in range(int(2 * check_hz)):
            watch.check(before.frame(c / check_hz, 1.0))
        flagged_s, measured = None, []
        for c in range(int(3 * check_hz)):
            rep = watch.check(after.frame(c / check_hz, 1.0))
            if rep.measurement.shift_mm is not None:
                measured.append(rep.measurement.shift_mm)
            if rep.camera_moved and flagged_s is None:
                flagged_s = (c + 1) / check_hz
        moved.append({"layout": layout.id, "kind": kind, "true_shift_mm": round(true_shift, 2),
                      "measured_shift_mm": round(float(np.median(measured)), 2) if measured else None,
                      "flagged_after_s": flagged_s})
        _log(log, f"drift move {k}: {kind} true {true_shift:.1f} mm measured "
                  f"{moved[-1]['measured_shift_mm']} flagged after {flagged_s} s")
    enter = watch_kw.get("enter_mm", DriftWatch.__init__.__kwdefaults__["enter_mm"])
    big = [m for m in moved if m["true_shift_mm"] > enter * 1.5]
    return {
        "check_every_frames": every, "fps": fps, "work_width": watch_kw.get("work_width", 640),
        "still": still,
        "still_camera_moved_events": sum(s["camera_moved_events"] for s in still),
        "moves": len(moved),
        "flagged_within_1s": sum(1 for m in moved if m["flagged_after_s"] is not None and m["flagged_after_s"] <= 1.0),
        "moves_shift_over_1.5x_enter": len(big),
        "flagged_within_1s_of_those": sum(1 for m in big if m["flagged_after_s"] is not None and m["flagged_after_s"] <= 1.0),
        "flag_delay_s": summary([m["flagged_after_s"] for m in moved]),
        "true_shift_mm": summary([m["true_shift_mm"] for m in moved]),
        "shift_error_mm": summary([abs(m["measured_shift_mm"] - m["true_shift_mm"]) for m in moved
                                   if m["measured_shift_mm"] is not None]),
        "check_ms_work_size": summary(check_ms), "check_ms_from_1080p": summary(full_ms),
        "moved_rows": moved,
    }


# --- command line ---------------------------------------------------------------------------
def run(poses: int = 50, scenes: int = 200, minutes: float = 10.0, moves: int = 60, seed: int = 0,
        parts: tuple[str, ...] = ("auto", "play", "zones", "drift"), log=sys.stderr) -> dict:
    """Run the chosen measurements; returns every figure (see the module docstring)."""
    out: dict = {"seed": seed}
    if "auto" in parts:
        out["auto"] = eval_auto(poses, seed, in_play=False, log=log)
    if "play" in parts:
        out["auto_in_play"] = eval_auto(max(1, poses // 2), seed, in_play=True, log=log)
    if "zones" in parts:
        out["zones"] = eval_zones(scenes, seed, log=log)
    if "drift" in parts:
        out["drift"] = eval_drift(minutes=minutes, moves=moves, seed=seed, log=log)
    return out


def _headline(res: dict) -> str:
    lines = []
    for key in ("auto", "auto_in_play"):
        if key in res:
            a = res[key]
            lines.append(f"{key}: solved {a['solved']}/{a['poses']}, within 2 mm RMS {a['within_2mm']}; "
                         f"rms mm {a['rms_mm']}; time s {a['seconds']}")
    if "zones" in res:
        z = res["zones"]
        lines.append("zones: " + ", ".join(f"{k} {v['agree']}/{v['total']}" for k, v in z["rates"].items() if v["total"])
                     + f"; auto-calibrated {z['auto_calibrated']}, failed {z['auto_failed']}")
    if "drift" in res:
        d = res["drift"]
        lines.append(f"drift: still camera_moved events {d['still_camera_moved_events']} over "
                     f"{sum(s['minutes'] for s in d['still'])} min; moves flagged within 1 s {d['flagged_within_1s']}/"
                     f"{d['moves']} (of those shifting > 1.5x threshold: {d['flagged_within_1s_of_those']}/"
                     f"{d['moves_shift_over_1.5x_enter']}); delay s {d['flag_delay_s']}; check ms {d['check_ms_work_size']}"
                     f" (from 1080p {d['check_ms_from_1080p']})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m calibration.evaluate", description=__doc__.split("\n\n")[0])
    p.add_argument("--poses", type=int, default=50)
    p.add_argument("--scenes", type=int, default=200)
    p.add_argument("--minutes", type=float, default=10.0, help="unmoved video per camera (3 cameras)")
    p.add_argument("--moves", type=int, default=60)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--parts", default="auto,play,zones,drift")
    p.add_argument("--out", type=Path, default=None, help="JSON file for every figure")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    res = run(a.poses, a.scenes, a.minutes, a.moves, a.seed, tuple(a.parts.split(",")), None if a.quiet else sys.stderr)
    if a.out:
        from calibration.homography import atomic_write_text

        atomic_write_text(a.out, json.dumps(res, indent=1, default=float))
    print(_headline(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
