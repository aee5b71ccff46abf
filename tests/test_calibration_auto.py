"""Automatic calibration from the printed layout (betting circles and arcs) on rendered 1080p frames."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.auto import (asymmetry_contrast, asymmetry_samples, calibrate_auto, detect_ellipses, layout_circles,
                              print_mask)
from calibration.camera import PinholeCamera
from calibration.evaluate import homography_error_mm
from calibration.homography import CalibrationError
from calibration.layout import builtin_layout

render = pytest.importorskip("datasets.render")
from datasets.effects import Effects  # noqa: E402
from datasets.scene import ChipLayer, ChipStack, HandOccluder, PlacedCard, TableState  # noqa: E402


def _frame(layout, cam, state=TableState(), effects=Effects()):
    return render.render_frame(layout, state, cam, render.Style(effects=effects), rng=1).image


@pytest.mark.parametrize(
    "layout_id, tilt, yaw, cover",
    [
        ("blackjack-7-mtd-bonus", 0.0, 0.0, 2100),     # straight down, the whole table
        ("spanish21-6-mtd", 35.0, 140.0, 1800),        # steep, from the dealer's left
        ("switch-hands-7", 20.0, 250.0, 1600),         # only some seats in view
    ],
)
def test_the_printed_layout_gives_the_homography_within_2_mm(layout_id, tilt, yaw, cover):
    layout = builtin_layout(layout_id)
    cam = PinholeCamera.looking_at((950, 480), tilt, yaw, 1920, 1080, cover, 2000, 1.0)
    cal = calibrate_auto(_frame(layout, cam), layout)
    rms, worst, n = homography_error_mm(cal.homography, cam, layout)
    assert n > 10
    assert rms < 2.0 and worst < 5.0
    assert cal.layout_id == layout_id and cal.image_size == (1920, 1080) and cal.method == "auto"
    assert cal.reprojection_error_mm < 1.0


def test_a_table_in_play_still_calibrates():
    layout = builtin_layout("blackjack-7-mtd-bonus")
    cam = PinholeCamera.looking_at((950, 500), 25, 10, 1920, 1080, 1700, 2000)
    spots = [z for z in layout.spots()]
    state = TableState(
        cards=(PlacedCard("KH", True, (950, 250)), PlacedCard("7C", True, (1010, 250))),
        chips=tuple(ChipStack(z.circle.center, (ChipLayer(25, 4),), z.name) for z in spots[::3]),
        hands=(HandOccluder(((700, 0), (800, 0), (820, 300), (720, 320))),),
    )
    cal = calibrate_auto(_frame(layout, cam, state, Effects(noise=3.0, lighting=0.3)), layout)
    assert homography_error_mm(cal.homography, cam, layout)[0] < 2.0


def test_a_frame_without_the_layout_is_refused_saying_what_was_found():
    layout = builtin_layout("blackjack-7-mtd-bonus")
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 255, (1080, 1920, 3), dtype=np.uint8)
    with pytest.raises(CalibrationError, match=r"not found in .*found \d+ ellipse"):
        calibrate_auto(noise, layout)
    felt = np.full((1080, 1920, 3), (60, 96, 22), np.uint8)
    with pytest.raises(CalibrationError, match="betting circles"):
        calibrate_auto(felt, layout)


def test_too_few_circles_in_view_is_refused_with_the_count_matched():
    layout = builtin_layout("blackjack-7-mtd-bonus")
    seat = layout.zone("seat1.main").circle.center
    cam = PinholeCamera.looking_at((seat[0] + 40, seat[1] + 120), 10, 0, 1920, 1080, 300, 2000)
    with pytest.raises(CalibrationError, match=r"matched \d+ of 21 betting circles|found \d+ ellipse"):
        calibrate_auto(_frame(layout, cam), layout)


def test_each_printed_ring_is_one_ellipse_of_the_right_size():
    layout = builtin_layout("spanish21-6-mtd")
    cam = PinholeCamera.looking_at((950, 450), 0, 0, 1920, 1080, 2100, 2000)
    found = detect_ellipses(_frame(layout, cam))
    px_per_mm = 1920 / 2100
    sizes = sorted(e.size / px_per_mm for e in found)
    main = [s for s in sizes if 40 < s < 52]
    side = [s for s in sizes if 24 < s < 34]
    assert len(main) == 6 and len(side) == 6
    assert len(layout_circles(layout)) == 12


def test_the_arc_ends_and_words_tell_the_seats_apart():
    # the circles repeat seat by seat about the dealer: a homography turned one seat about
    # the table centre fits them as well, but not the arc ends and the words along the arcs
    layout = builtin_layout("blackjack-7-mtd-bonus")
    cam = PinholeCamera.looking_at((950, 450), 15, 0, 1920, 1080, 2000, 2000)
    mask = print_mask(_frame(layout, cam))
    cx, cy = layout.table_center
    a = math.radians(130 / 6)
    T = np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1.0]])
    turn = T @ np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1.0]]) @ np.linalg.inv(T)
    samples = asymmetry_samples(layout)
    assert asymmetry_contrast(cam.homography(), mask, samples) > 0.4
    assert asymmetry_contrast(cam.homography() @ turn, mask, samples) < 0.15


def test_a_view_that_only_the_seat_pattern_fixes_is_refused_as_ambiguous():
    # seats 5-7 and their side bets, no arc end and no words in view: a seat off fits as well
    layout = builtin_layout("blackjack-7-mtd-bonus")
    cam = PinholeCamera.looking_at((400, 750), 10, 0, 1920, 1080, 900, 2000)
    with pytest.raises(CalibrationError, match="ambiguous: 6 of 21 betting circles matched two ways"):
        calibrate_auto(_frame(layout, cam), layout)
