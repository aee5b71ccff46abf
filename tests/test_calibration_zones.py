"""Zones in the image: polygons, the zone of a card or chip stack, rectified zone crops."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.camera import PinholeCamera
from calibration.homography import CalibrationResult
from calibration.layout import builtin_layout
from calibration.zones import CHIP_RADIUS_MM, ZoneMap

LAYOUT = builtin_layout("blackjack-7-mtd-bonus")


def _zone_map(tilt=35.0, yaw=0.0, roll=0.0):
    cam = PinholeCamera.looking_at((950, 500), tilt, yaw, 1920, 1080, 1700, 1800, roll)
    return cam, ZoneMap(LAYOUT, CalibrationResult(cam.homography(), (1920, 1080), LAYOUT.id))


def _stack_box(cam, base, height_mm):
    a = np.linspace(0, 2 * math.pi, 72, endpoint=False)
    ring = np.column_stack([base[0] + CHIP_RADIUS_MM * np.cos(a), base[1] + CHIP_RADIUS_MM * np.sin(a)])
    pts = np.vstack([np.column_stack([ring, np.zeros(len(a))]), np.column_stack([ring, np.full(len(a), -height_mm)])])
    uv = cam.project(pts)
    return np.r_[uv.min(axis=0), uv.max(axis=0)]


def test_zone_polygons_land_where_the_camera_sees_them():
    cam, zm = _zone_map(25, 40)
    poly = np.asarray(LAYOUT.zone("seat3.payout").polygon)
    assert np.allclose(zm.polygon_px("seat3.payout"), cam.project(poly), atol=1e-6)
    assert set(zm.polygons_px()) == {z.name for z in LAYOUT.zones}


def test_a_card_goes_to_the_zone_under_the_centre_of_its_box():
    cam, zm = _zone_map(30, 15)
    for zone in ("seat2.cards", "dealer.cards", "seat6.cards"):
        c = np.asarray(LAYOUT.zone(zone).centroid)
        quad = c + np.array([[-31.75, -44.45], [31.75, -44.45], [31.75, 44.45], [-31.75, 44.45]])
        px = cam.project(quad)
        box = np.r_[px.min(axis=0), px.max(axis=0)]
        assert zm.zone_of_boxes([box], "card") == [zone]


def test_the_base_of_a_chip_stack_decides_its_spot_not_the_bottom_of_its_box():
    # a tall stack standing near the front edge of a match-the-dealer spot, seen from 35 degrees:
    # the bottom-centre of its box lies a chip radius in front of the base, outside the spot
    cam, zm = _zone_map(35, 0)
    spot = LAYOUT.zone("seat4.mtd").circle
    base = (spot.center[0], spot.center[1] + 10.0)
    box = _stack_box(cam, base, 60.0)
    assert zm.zone_of_boxes([box], "chip") == ["seat4.mtd"]
    assert np.allclose(zm.stack_base_mm([box])[0], base, atol=1.0)
    bottom_centre = zm.calibration.to_mm([[(box[0] + box[2]) / 2, box[3]]])[0]
    assert np.linalg.norm(bottom_centre - spot.center) > spot.radius


@pytest.mark.parametrize("tilt, yaw, roll", [(0, 0, 0), (20, 180, 3), (35, 95, -2)])
def test_the_stack_base_is_found_under_any_view(tilt, yaw, roll):
    cam, zm = _zone_map(tilt, yaw, roll)
    bases = [(1000.0, 600.0), (700.0, 700.0), (1300.0, 450.0)]
    boxes = [_stack_box(cam, b, h) for b, h in zip(bases, (3.3, 30.0, 66.0))]
    assert np.allclose(zm.stack_base_mm(boxes), bases, atol=1.0)


def test_a_spot_wins_over_the_larger_zone_it_lies_in_and_nothing_is_none():
    _, zm = _zone_map()
    main = LAYOUT.zone("seat5.main").circle.center
    assert zm.zone_of_mm([main, (950.0, 250.0), (-500.0, -500.0)]) == ["seat5.main", "dealer.cards", None]


def test_a_card_overhanging_its_zone_still_counts_for_its_seat():
    cam, zm = _zone_map(20, 0)
    zone = LAYOUT.zone("seat4.cards")
    poly = np.asarray(zone.polygon)
    # a card centred 20 mm beyond the edge of the card zone nearest the dealer
    edge_mid = (poly[0] + poly[1]) / 2  # the edge towards the dealer
    outward = edge_mid - np.asarray(zone.centroid)
    centre = edge_mid + outward / np.linalg.norm(outward) * 20
    quad = centre + np.array([[-31.75, -44.45], [31.75, -44.45], [31.75, 44.45], [-31.75, 44.45]])
    px = cam.project(quad)
    box = np.r_[px.min(axis=0), px.max(axis=0)]
    assert zm.zone_of_mm([centre]) == [None]
    assert zm.zone_of_boxes([box], "card") == ["seat4.cards"]


def test_a_zone_crop_is_top_down_at_a_fixed_scale_and_maps_back():
    cam, zm = _zone_map(30, 20)
    # a frame whose pixel values encode the felt position: x mm in channel 0, y mm in channel 1 (coarsely)
    v, u = np.mgrid[0:1080, 0:1920]
    mm = zm.calibration.to_mm(np.column_stack([u.ravel(), v.ravel()])).reshape(1080, 1920, 2)
    frame = np.zeros((1080, 1920, 3), np.uint8)
    frame[..., 0] = np.clip(mm[..., 0] / 10, 0, 255)
    frame[..., 1] = np.clip(mm[..., 1] / 5, 0, 255)
    crop = zm.crop(frame, ["seat3.mtd", "seat3.bonus", "seat3.main"], px_per_mm=2.0, margin_mm=10)
    x1, y1, x2, y2 = zm.zones_bounds_mm(["seat3.mtd", "seat3.bonus", "seat3.main"], 10)
    assert crop.image.shape[:2] == (math.ceil((y2 - y1) * 2), math.ceil((x2 - x1) * 2))
    h, w = crop.image.shape[:2]
    centre_mm = crop.points_to_mm([[w / 2, h / 2]])[0]
    assert abs(int(crop.image[h // 2, w // 2, 0]) - centre_mm[0] / 10) <= 1.5
    assert abs(int(crop.image[h // 2, w // 2, 1]) - centre_mm[1] / 5) <= 1.5
    box_crop = np.array([[10.0, 20.0, 90.0, 60.0]])
    assert np.allclose(crop.boxes_to_mm(box_crop), [[x1 + 5, y1 + 10, x1 + 45, y1 + 30]])
    corners_mm = np.array([[x1 + 5, y1 + 10], [x1 + 45, y1 + 30]])
    frame_box = crop.boxes_to_frame(box_crop)[0]
    px = cam.project(np.array([[x1 + 5, y1 + 10], [x1 + 45, y1 + 10], [x1 + 45, y1 + 30], [x1 + 5, y1 + 30]]))
    assert np.allclose(frame_box, np.r_[px.min(axis=0), px.max(axis=0)], atol=1e-6)
    assert corners_mm.shape == (2, 2)


def test_a_calibration_for_another_layout_is_refused():
    cam = PinholeCamera.looking_at((950, 500), 20, 0)
    with pytest.raises(ValueError, match="layout"):
        ZoneMap(LAYOUT, CalibrationResult(cam.homography(), (1920, 1080), "switch-hands-7"))


def test_a_stack_whose_base_lies_within_a_chip_radius_outside_a_spot_still_stands_on_it():
    """A loose box puts the fitted base just outside the spot; a stack that far out still overlaps the spot."""
    cam, zm = _zone_map(30, 0)
    spot = LAYOUT.zone("seat4.main").circle
    near = np.array([[spot.center[0] + spot.radius + 15.0, spot.center[1]]])  # towards the seat's right: bare felt
    far = np.array([[spot.center[0] + spot.radius + 60.0, spot.center[1]]])
    assert zm.zone_of_mm(near, CHIP_RADIUS_MM) == ["seat4.main"]
    assert zm.zone_of_mm(far, CHIP_RADIUS_MM) != ["seat4.main"]


def test_the_glyphs_of_blackjack_pays_3_to_2_lie_on_the_printed_words():
    layout = builtin_layout("spanish21-6-mtd")
    # the "2" and the "B" at the arc's two ends (radius 375 mm about the dealer), then the dealer's cards and a seat
    assert layout.on_printed_words([(1100, 346), (765, 332), (871, 251), (700, 600)]) == [True, True, False, False]


def test_straight_printed_words_cover_only_their_own_line():
    from calibration.layout import PrintedText

    words = PrintedText(text="MATCH THE DEALER", center=(100.0, 100.0), height_mm=7.0)
    # 16 characters x 0.75 x 7 mm = 84 mm long, 10.5 mm across
    assert words.covers([(100, 100), (141, 104), (146, 100), (100, 106)]) == [True, True, False, False]


def _shifted(dy_px: float) -> np.ndarray:
    """A homography that puts the whole layout in a 1920 x 1080 frame, moved ``dy_px`` pixels up."""
    return np.array([[1.0, 0, 10], [0, 1.0, 40 - dy_px], [0, 0, 1]])


def test_the_discard_rack_is_in_view_where_the_frame_holds_it():
    from calibration.zones import zones_in_view

    assert zones_in_view(LAYOUT, _shifted(0), (1920, 1080), "discard")


def test_the_discard_rack_a_frame_cuts_at_its_far_edge_is_still_in_view():
    from calibration.zones import zones_in_view

    rack = np.asarray(LAYOUT.zones[[z.kind for z in LAYOUT.zones].index("discard")].polygon)
    top = rack[:, 1].min()
    cut = top + 40 + 0.15 * np.ptp(rack[:, 1])  # 15 % of the rack above the frame
    assert zones_in_view(LAYOUT, _shifted(cut), (1920, 1080), "discard")
    assert not zones_in_view(LAYOUT, _shifted(top + 40 + 0.5 * np.ptp(rack[:, 1])), (1920, 1080), "discard")


def test_a_layout_without_the_zone_kind_has_none_in_view():
    from calibration.zones import zones_in_view

    assert not zones_in_view(LAYOUT, _shifted(0), (1920, 1080), "no_such_kind")
