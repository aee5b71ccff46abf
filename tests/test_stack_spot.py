"""A wager boxed together with the printed ring around its betting spot is still that spot's wager."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from calibration.camera import PinholeCamera
from calibration.homography import CalibrationResult
from calibration.layout import builtin_layout
from calibration.zones import ZoneMap
from vision.chips import StackReading
from vision.detections import Detections
from vision.detector import FrameResult, _stack_base
from vision.review import DetectorObserver

LAYOUT = builtin_layout("blackjack-7-mtd-bonus")
CAM = PinholeCamera.looking_at((950, 500), 30.0, 0.0, 3840, 2160, 3400, 1800, 0.0)
ZONES = ZoneMap(LAYOUT, CalibrationResult(CAM.homography(), (3840, 2160), LAYOUT.id))


def _ring_box(zone: str, margin_mm: float = 12.0) -> np.ndarray:
    """(4,) xyxy px around a betting spot's printed ring and a short stack standing in it."""
    c, r = LAYOUT.zone(zone).circle.center, LAYOUT.zone(zone).circle.radius + margin_mm
    a = np.linspace(0, 2 * math.pi, 72, endpoint=False)
    uv = CAM.project(np.column_stack([c[0] + r * np.cos(a), c[1] + r * np.sin(a), np.zeros(len(a))]))
    top = CAM.project([[c[0], c[1], -15.0]])
    uv = np.vstack([uv, top])
    return np.r_[uv.min(axis=0), uv.max(axis=0)]


def test_a_box_around_the_ring_fits_a_stack_outside_the_spot():
    # why the detector's spot is needed: a stack fitted to the loose box stands on the ring's near side
    assert ZONES.zone_of_boxes([_ring_box("seat2.main")], "chip") != ["seat2.main"]


def test_the_detector_reads_a_box_around_the_ring_as_standing_on_the_spot():
    table = SimpleNamespace(layout=LAYOUT)
    base, spot = _stack_base(table, _ring_box("seat2.main"), None, np.linalg.inv(CAM.homography()))
    assert spot == "seat2.main"
    assert np.allclose(base, LAYOUT.zone("seat2.main").circle.center)


def test_the_observer_puts_a_stack_read_on_a_spot_on_that_spot():
    dets = Detections(xyxy=_ring_box("seat2.main")[None].astype(np.float32), class_id=np.array([2]),
                      score=np.array([0.5], np.float32), zone=np.array(["seat2.main"], object))
    result = FrameResult(dets, [], [(0, StackReading(4, 40, []))], {0: "seat2.main"})
    observer = DetectorObserver(lambda image, table: result, None, ZONES)
    obs = observer.observe(SimpleNamespace(image=None))
    assert obs.chips == {"seat2.main": 40}


def test_a_box_around_two_wagers_is_not_read_as_a_third_stack():
    from vision.detector import _outer_boxes_dropped

    boxes = np.array([[1511, 1483, 1786, 1757], [1448, 1315, 2120, 1924], [1776, 1863, 1895, 1980],
                      [457, 1678, 681, 1879]], np.float32)  # main, both together, match-the-dealer, another seat's
    assert _outer_boxes_dropped(boxes, np.arange(4)).tolist() == [0, 2, 3]


def test_a_face_down_card_boxed_twice_tightly_and_loosely_is_one_card():
    from vision.detections import Detections
    from vision.detector import _outer_backs_dropped

    # seed 7113 at 4K: a burn card near the frame's edge, boxed around the card and again around it with felt
    d = Detections(xyxy=np.array([[568, 0, 783, 140], [513, 0, 842, 195], [600, 300, 700, 420]], np.float32),
                   class_id=np.array([1, 1, 1]), score=np.array([0.59, 0.48, 0.7], np.float32))
    kept = _outer_backs_dropped(d)
    assert kept.xyxy.tolist() == [[568, 0, 783, 140], [600, 300, 700, 420]]


def test_two_overlapping_face_down_cards_stay_two():
    from vision.detections import Detections
    from vision.detector import _outer_backs_dropped

    d = Detections(xyxy=np.array([[100, 100, 200, 240], [150, 120, 250, 260]], np.float32),
                   class_id=np.array([1, 1]), score=np.array([0.8, 0.7], np.float32))
    assert len(_outer_backs_dropped(d)) == 2


def test_a_face_down_box_on_an_empty_betting_spot_is_the_printed_spot_not_a_card():
    from vision.detector import _backs_on_spots_dropped

    # bundled sample, seat 3: the new stage 1 boxed the empty dark match-the-dealer and bonus spots as BACK
    d = Detections(xyxy=np.zeros((3, 4), np.float32), class_id=np.array([1, 1, 1]),
                   score=np.array([0.34, 0.32, 0.9], np.float32))
    d.data["layout_mm"] = np.array([[1314.9, 769.6], [1212.7, 810.3], [1200.0, 560.0]])  # mtd, bonus, seat 3 cards
    kept = _backs_on_spots_dropped(d, LAYOUT)
    assert kept.score.tolist() == [np.float32(0.9)]


def _silhouette_box(base_mm, chips: int, crop_deg: float) -> np.ndarray:
    """(4, 2) image px: the corners of the box, in a seat crop turned ``crop_deg`` on the layout, round the
    layout-plane silhouette of a stack of ``chips`` chips standing at ``base_mm`` (what stage 1 boxes)."""
    from vision.chips import CHIP_DIAMETER_MM, CHIP_THICKNESS_MM

    a = np.linspace(0, 2 * math.pi, 72, endpoint=False)
    rim = np.column_stack([base_mm[0] + CHIP_DIAMETER_MM / 2 * np.cos(a), base_mm[1] + CHIP_DIAMETER_MM / 2 * np.sin(a)])
    top = CAM.project(np.column_stack([rim, np.full(len(a), -chips * CHIP_THICKNESS_MM)]))
    Hinv = np.linalg.inv(CAM.homography())
    top_mm = (Hinv @ np.column_stack([top, np.ones(len(top))]).T).T
    outline = np.vstack([rim, top_mm[:, :2] / top_mm[:, 2:]])
    t = math.radians(crop_deg)
    turn = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    local = outline @ turn
    (x1, y1), (x2, y2) = local.min(0), local.max(0)
    corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]) @ turn.T
    uv = (CAM.homography() @ np.column_stack([corners, np.ones(4)]).T).T
    return uv[:, :2] / uv[:, 2:]


def test_a_tall_payout_stack_off_the_spots_stands_where_its_silhouette_begins():
    # seed 7134 at 4K: a $275 payout of nine chips, its box's centre 12 mm behind its base, past the base search
    import cv2

    from datasets.rounds import TableGeometry
    from vision.detector import _silhouette_base

    Hinv = np.linalg.inv(CAM.homography())
    for seat, crop_deg in ((2, 0.0), (3, 20.0), (5, 35.0), (6, 45.0)):
        payout = TableGeometry(LAYOUT).payout_place(seat, "main")
        corners = cv2.perspectiveTransform(_silhouette_box(payout, 12, crop_deg)[None], Hinv)[0]
        assert math.dist(corners.mean(0), payout) > 9.0  # why the box's centre will not do
        assert math.dist(_silhouette_base(corners, CAM, slack_mm=0.0), payout) < 0.5


def test_the_detector_reads_a_payout_stack_within_the_base_search_of_its_base():
    from datasets.rounds import TableGeometry
    from vision.chip_side import SEARCH_MM

    table = SimpleNamespace(layout=LAYOUT, camera=CAM)
    for chips in (1, 6, 12):
        payout = TableGeometry(LAYOUT).payout_place(5, "bonus")
        box = _silhouette_box(payout, chips, 35.0)
        base, spot = _stack_base(table, np.r_[box.min(0), box.max(0)], box, np.linalg.inv(CAM.homography()), box)
        # a box exactly round the silhouette is 3 mm tighter than stage 1's (STACK_BOX_SLACK_MM): at most 3 x 1.41 mm
        assert spot is None and math.dist(base, payout) < 4.5 < SEARCH_MM
