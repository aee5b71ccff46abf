"""Drift watch: a bumped camera is flagged with its shift in mm; an unmoved one never is."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import PinholeCamera
from calibration.drift import DriftWatch
from calibration.evaluate import bumped_camera
from calibration.homography import CalibrationResult
from calibration.layout import builtin_layout

render = pytest.importorskip("datasets.render")
from datasets.effects import Effects  # noqa: E402
from datasets.scene import ChipLayer, ChipStack, HandOccluder, PlacedCard, TableState  # noqa: E402

LAYOUT = builtin_layout("blackjack-7-mtd-bonus")
CAM = PinholeCamera.looking_at((950, 480), 25, 10, 1920, 1080, 1700, 2000)
CAL = CalibrationResult(CAM.homography(), (1920, 1080), LAYOUT.id)
IN_PLAY = TableState(
    cards=(PlacedCard("KH", True, (950, 250)), PlacedCard("5S", False, (1000, 260))),
    chips=(ChipStack(LAYOUT.zone("seat3.main").circle.center, (ChipLayer(25, 6),), "seat3.main"),),
    hands=(HandOccluder(((1150, 0), (1250, 0), (1300, 420), (1180, 440))),),
)


def _frame(cam, state=IN_PLAY, seed=0, **fx):
    return render.render_frame(LAYOUT, state, cam, render.Style(effects=Effects(**fx)), rng=seed).image


def test_an_unmoved_camera_is_never_flagged_under_changing_light_and_hands():
    watch = DriftWatch(CAL, LAYOUT)
    frames = [_frame(CAM, IN_PLAY, k, lighting=0.1 * k, brightness=0.7 + 0.15 * k, noise=1 + k) for k in range(4)]
    frames.append(_frame(CAM, TableState(), 9))
    for k in range(40):
        report = watch.check(frames[k % len(frames)])
        assert not report.camera_moved and report.event is None
        assert report.shift_mm is not None and report.shift_mm < 1.0


@pytest.mark.parametrize("kind, seed", [("shift", 1), ("turn", 2)])
def test_a_bumped_camera_is_flagged_within_a_second_with_its_shift(kind, seed):
    watch = DriftWatch(CAL, LAYOUT)
    cam2 = bumped_camera(CAM, np.random.default_rng(seed), kind)
    spots = watch.spot_mm
    true = np.sqrt(np.mean(np.sum((CAL.to_mm(cam2.project(spots)) - spots) ** 2, axis=1)))
    frame = _frame(cam2)
    events = [watch.check(frame).event for _ in range(watch.confirm_checks)]
    # checks every third frame at 30 fps: confirm_checks checks take 0.4 s of video
    assert events[-1] == "camera_moved" and events[:-1] == [None] * (watch.confirm_checks - 1)
    assert watch.state == "moved"
    assert abs(watch.measure(frame).shift_mm - true) < max(1.5, 0.1 * true)


def test_one_odd_frame_does_not_flag_a_camera():
    watch = DriftWatch(CAL, LAYOUT)
    moved = _frame(bumped_camera(CAM, np.random.default_rng(3), "shift"))
    still = _frame(CAM)
    for f in [still, moved, still, moved, moved, still, moved]:
        assert watch.check(f).event is None


def test_a_dark_frame_is_a_lost_camera_not_a_moved_one():
    watch = DriftWatch(CAL, LAYOUT, lost_checks=5)
    dark = np.zeros((1080, 1920, 3), np.uint8)
    events = [watch.check(dark).event for _ in range(5)]
    assert events[-1] == "camera_lost" and watch.state == "lost" and not watch.check(dark).camera_moved
    still = _frame(CAM)
    events = [watch.check(still).event for _ in range(watch.clear_checks)]
    assert events[-1] == "camera_restored" and watch.state == "ok"


def test_the_check_takes_a_work_sized_frame_too():
    watch = DriftWatch(CAL, LAYOUT)
    small = watch.work_image(_frame(CAM))
    assert small.shape == (watch.work_size[1], watch.work_size[0])
    assert watch.measure(small).shift_mm < 1.0


def test_templates_cut_from_a_reference_frame_measure_the_same_shift():
    empty = _frame(CAM, TableState())
    watch = DriftWatch(CAL, LAYOUT, reference=empty)
    assert watch.measure(_frame(CAM)).shift_mm < 0.5
    cam2 = bumped_camera(CAM, np.random.default_rng(4), "shift")
    spots = watch.spot_mm
    true = np.sqrt(np.mean(np.sum((CAL.to_mm(cam2.project(spots)) - spots) ** 2, axis=1)))
    assert abs(watch.measure(_frame(cam2)).shift_mm - true) < max(1.5, 0.1 * true)
