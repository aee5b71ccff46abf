"""Stage 2 (corner-index reader), grouping of corners into physical cards, and chip-stack reading."""

from __future__ import annotations


import numpy as np
import pytest

from rules.cards import CARD_LABELS, UNREADABLE
from vision.card_reader import CROP_SIZE, DEFAULT_READER, CardReader, index_crop, mean_of_turns, softmax, square_crop
from vision.chips import ChipColour, classify_colour, read_stack
from vision.detections import Detections
from vision.grouping import group_cards

needs_reader = pytest.mark.skipif(not DEFAULT_READER.is_file(), reason="committed models/card_reader.onnx absent")


def one_hot(label: str, p: float = 0.97) -> np.ndarray:
    v = np.full(52, (1 - p) / 51, np.float32)
    v[CARD_LABELS.index(label)] = p
    return v


def corners(boxes, probs, zone=None) -> Detections:
    d = Detections(xyxy=np.array(boxes, np.float32), class_id=np.zeros(len(boxes)), score=np.ones(len(boxes)),
                   zone=[zone] * len(boxes))
    d.data["probs"] = np.array(list(probs) + [None], dtype=object)[:-1]
    return d


def test_the_crop_is_square_and_centred_on_the_index():
    image = np.zeros((200, 200, 3), np.uint8)
    image[90:110, 95:105] = 255  # a 10 x 20 px white index
    crop = index_crop(image, [95, 90, 105, 110])
    assert crop.shape == (CROP_SIZE, CROP_SIZE, 3)
    centre = crop[CROP_SIZE // 2 - 2:CROP_SIZE // 2 + 2, CROP_SIZE // 2 - 2:CROP_SIZE // 2 + 2]
    assert (centre == 255).all()
    assert crop[0, 0].max() == 0  # the margin shows the surroundings, not the index


def test_an_upright_square_cuts_the_same_pixels_as_its_box():
    rng = np.random.default_rng(0)
    image = rng.integers(0, 255, (200, 200, 3), dtype=np.uint8)
    image = np.ascontiguousarray(np.repeat(np.repeat(image[::4, ::4], 4, 0), 4, 1))  # smooth enough to compare
    square = np.array([[80, 80], [120, 80], [120, 120], [80, 120]], np.float32)
    a, b = square_crop(image, square), index_crop(image, [80, 80, 120, 120])
    assert np.abs(a.astype(int) - b.astype(int)).mean() < 6  # bilinear-then-average vs area resampling


def test_a_turned_square_is_warped_upright():
    image = np.zeros((200, 200, 3), np.uint8)
    image[95:105, 60:140] = 255  # a horizontal bar
    c, h = np.array([100.0, 100.0]), 40.0
    u, v = np.array([0.0, 1.0]), np.array([-1.0, 0.0])  # the square turned 90 degrees
    square = np.array([c - h * u - h * v, c + h * u - h * v, c + h * u + h * v, c - h * u + h * v], np.float32)
    crop = square_crop(image, square)
    mid = CROP_SIZE // 2
    assert crop[mid - 8:mid + 8, mid, 0].min() == 255 and crop[mid, 2, 0] == 0  # now a vertical bar


def test_a_large_index_is_shrunk_by_averaging_not_sampled():
    image = np.zeros((400, 400, 3), np.uint8)
    image[:, ::2] = 255  # stripes one pixel wide: a sampled shrink shows them, an averaged one is grey
    crop = square_crop(image, np.array([[50, 50], [350, 50], [350, 350], [50, 350]], np.float32))
    assert 90 < crop.mean() < 165 and crop.std() < 40


def test_a_crop_at_the_frame_edge_does_not_fail():
    image = np.full((50, 50, 3), 7, np.uint8)
    assert index_crop(image, [-10, -10, 5, 20]).shape == (CROP_SIZE, CROP_SIZE, 3)


def test_two_corners_of_one_card_are_listed_once():
    # top-left and bottom-right index of a 7H about 4 index heights apart
    d = corners([[100, 100, 110, 120], [150, 170, 160, 190]], [one_hot("7H"), one_hot("7H")])
    cards = group_cards(d)
    assert [c.label for c in cards] == ["7H"]
    assert d.group.tolist() == [0, 0]
    assert cards[0].box.tolist() == [100, 100, 160, 190]


def test_two_different_cards_side_by_side_stay_two():
    d = corners([[100, 100, 110, 120], [130, 100, 140, 120]], [one_hot("7H"), one_hot("8S")])
    assert sorted(c.label for c in group_cards(d)) == ["7H", "8S"]


def test_same_card_far_apart_is_two_cards():
    d = corners([[100, 100, 110, 120], [600, 100, 610, 120]], [one_hot("KD"), one_hot("KD")])
    assert [c.label for c in group_cards(d)] == ["KD", "KD"]


def test_a_doubtful_corner_is_unreadable_not_a_guess():
    p = np.full(52, 1 / 52, np.float32)
    p[CARD_LABELS.index("QS")] += 0.1
    cards = group_cards(corners([[0, 0, 10, 20]], [p / p.sum()]), threshold=0.5)
    assert [c.label for c in cards] == [UNREADABLE]


def test_a_read_corner_lends_its_reading_to_a_doubtful_partner():
    weak = np.full(52, 0.3 / 51, np.float32)
    weak[CARD_LABELS.index("9C")] = 0.45  # alone this corner is unreadable
    d = corners([[100, 100, 110, 120], [150, 170, 160, 190]], [one_hot("9C"), weak / weak.sum()])
    assert [c.label for c in group_cards(d)] == ["9C"]


def test_a_corner_read_surely_is_not_halved_by_its_partner_whose_suit_lies_under_the_next_card():
    # seed 7281 at 4K: a QH's corners read 0.74 and, its suit under the 7S, 0.08; their mean fell under the threshold
    sure = np.full(52, 0.14 / 50, np.float32)
    sure[[CARD_LABELS.index("QH"), CARD_LABELS.index("QD")]] = (0.74, 0.12)
    flat = np.full(52, 0.72 / 49, np.float32)
    flat[[CARD_LABELS.index(c) for c in ("QD", "QS", "QH")]] = (0.12, 0.08, 0.08)
    d = corners([[0, 0, 10, 20], [40, 60, 50, 80]], [sure, flat / flat.sum()], zone="seat3.cards")
    cards = group_cards(d, threshold=0.4675, positions_mm=at_mm(d, [[100, 100], [153, 169]]))
    assert [c.label for c in cards] == ["QH"] and d.group.tolist() == [0, 0]


def at_mm(d: Detections, points) -> np.ndarray:
    """Layout mm of each detection, as a calibrated frame gives them to the grouping."""
    return np.array(points, np.float64)


def test_two_corners_a_card_diagonal_apart_on_the_layout_are_one_card():
    d = corners([[0, 0, 10, 20], [40, 60, 50, 80]], [one_hot("5S"), one_hot("5S")], zone="seat1.cards")
    cards = group_cards(d, positions_mm=at_mm(d, [[100, 100], [153, 169]]))  # 87 mm apart
    assert [c.label for c in cards] == ["5S"]


def test_one_index_detected_twice_is_one_card():
    d = corners([[0, 0, 10, 20], [1, 1, 11, 21]], [one_hot("QH"), one_hot("QH")], zone="seat1.cards")
    assert [c.label for c in group_cards(d, positions_mm=at_mm(d, [[100, 100], [103, 101]]))] == ["QH"]


def test_a_court_mark_inside_a_card_whose_corners_show_is_not_another_card():
    # J of diamonds: corner indices 87 mm apart and the picture's own "J" mark between them
    d = corners([[0, 0, 10, 20], [40, 60, 50, 80], [10, 40, 20, 60]], [one_hot("JD")] * 3, zone="seat1.cards")
    cards = group_cards(d, positions_mm=at_mm(d, [[100, 100], [153, 169], [110, 160]]))
    assert [c.label for c in cards] == ["JD"]
    assert d.group.tolist() == [0, 0, 0]


def test_a_second_card_of_the_same_identity_fanned_under_it_stays_a_card():
    # a 7H under another 7H, 18 mm up and left: its corner lies outside the top card
    d = corners([[0, 0, 10, 20], [40, 60, 50, 80], [10, 40, 20, 60]], [one_hot("7H")] * 3, zone="seat1.cards")
    cards = group_cards(d, positions_mm=at_mm(d, [[100, 100], [153, 169], [84, 92]]))
    assert [c.label for c in cards] == ["7H", "7H"]


def test_two_cards_of_one_identity_dealt_one_over_the_other_are_two_places_not_one():
    """Seed 7012 at 1080p: a pair of 7D to one seat. Their four corners all read 7D and pair crosswise too (each a
    card's diagonal apart); paired so, both cards lay at one place and the second was never dealt."""
    d = corners([[0, 0, 10, 20], [40, 60, 50, 80], [40, 40, 50, 60], [0, 20, 10, 40]], [one_hot("7D")] * 4,
                zone="seat2.cards")
    cards = group_cards(d, positions_mm=at_mm(d, [[1303, 382], [1392, 420], [1391, 396], [1305, 407]]))
    centres = sorted(tuple(np.round(np.asarray([[1303, 382], [1392, 420], [1391, 396], [1305, 407]])[
        list(c.members)].mean(0))) for c in cards)
    assert [c.label for c in cards] == ["7D", "7D"]
    assert centres == [(1347.0, 389.0), (1348.0, 414.0)]


def test_twin_cards_whose_crossed_pairs_sit_nearer_the_usual_diagonal_are_still_parted():
    """A deck whose indices sit 75 mm apart, the second card 15.5 mm off the first: paired crosswise the corners lie
    73 and 80 mm apart (nearer the band's middle than 75 and 75) and put both cards at one place. They are parted."""
    points = [[100.0, 100.0], [175.0, 100.0], [103.57, 115.06], [178.57, 115.06]]
    d = corners([[0, 0, 10, 20], [40, 0, 50, 20], [0, 10, 10, 30], [40, 10, 50, 30]], [one_hot("9H")] * 4,
                zone="seat4.cards")
    cards = group_cards(d, positions_mm=at_mm(d, points))
    centres = sorted(tuple(np.round(np.asarray(points)[list(c.members)].mean(0), 1)) for c in cards)
    assert centres == [(137.5, 100.0), (141.1, 115.1)]


def test_two_fanned_cards_a_finger_apart_are_not_paired_as_one_card():
    d = corners([[0, 0, 10, 20], [15, 8, 25, 28]], [one_hot("7H"), one_hot("7H")], zone="seat1.cards")
    assert len(group_cards(d, positions_mm=at_mm(d, [[100, 100], [116, 109]]))) == 2


def test_a_face_down_card_is_a_back():
    d = Detections(xyxy=[[0, 0, 60, 90]], class_id=[1], score=[0.9])
    assert [c.label for c in group_cards(d)] == ["BACK"]


def test_softmax_rows_sum_to_one():
    p = softmax(np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]))
    assert np.allclose(p.sum(1), 1) and p[1].tolist() == pytest.approx([1 / 3] * 3)


CHIPS = [ChipColour(1, (236, 234, 228)), ChipColour(5, (196, 30, 36)), ChipColour(25, (24, 130, 64))]


def test_chip_colour_reads_the_nearest_denomination():
    assert classify_colour(np.array([190, 40, 40]), CHIPS)[0] == 5
    assert classify_colour(np.array([30, 125, 70]), CHIPS)[0] == 25


def test_a_colour_far_from_every_chip_is_no_denomination():
    assert classify_colour(np.array([30, 40, 200]), CHIPS)[0] is None


def test_straight_overhead_a_stack_is_not_counted():
    from calibration.camera import PinholeCamera

    cam = PinholeCamera.looking_at(target=(500, 500), tilt_deg=0, yaw_deg=0, width=640, height=480, cover_mm=1500)
    image = np.zeros((480, 640, 3), np.uint8)
    image[230:250, 310:330] = (36, 30, 196)  # BGR red
    r = read_stack(image, np.array([310, 230, 330, 250], np.float32), CHIPS, cam, (500, 500))
    assert r.count is None and r.value is None and "per chip" in r.note


def test_a_box_wider_than_one_chip_is_not_counted():
    from calibration.camera import PinholeCamera
    from vision.chips import chip_geometry

    cam = PinholeCamera.looking_at(target=(500, 500), tilt_deg=35, yaw_deg=0, width=1920, height=1080, cover_mm=900)
    ppc, ellipse_h, chip_w = chip_geometry(cam, (500, 500))
    assert ppc >= 2
    image = np.zeros((1080, 1920, 3), np.uint8)
    image[:, :] = (36, 30, 196)  # red everywhere: colour is not the question here
    cx, cy = cam.project([[500, 500, 0.0]])[0]
    h = ellipse_h + 3 * ppc
    loose = np.array([cx - chip_w, cy - h, cx + chip_w, cy + ellipse_h / 2], np.float32)  # twice a chip's width
    r = read_stack(image, loose, CHIPS, cam, (500, 500))
    assert r.count is None and r.value is None and "wide" in r.note


def test_without_a_camera_pose_the_count_is_null_with_a_note():
    image = np.zeros((100, 100, 3), np.uint8)
    image[40:60, 40:60] = (64, 130, 24)
    r = read_stack(image, np.array([40, 40, 60, 60], np.float32), CHIPS)
    assert r.count is None and r.note
    assert r.layers == [{"denomination": 25, "count": None}]


@needs_reader
def test_the_committed_reader_loads_with_its_calibration():
    from vision.card_reader import CardReader

    reader = CardReader()
    assert reader.temperature > 0 and 0 < reader.threshold < 1
    labels, score, p = reader.read(np.full((100, 100, 3), 128, np.uint8), np.array([[40, 35, 60, 65]]))
    assert p.shape == (1, 52) and np.isclose(p.sum(), 1, atol=1e-4)
    assert labels[0] in CARD_LABELS or labels[0] == UNREADABLE


def rendered_qh() -> tuple[np.ndarray, np.ndarray]:
    """A rendered QH face ((H, W, 3) uint8) and its top-left index box ((4,) xyxy px)."""
    pytest.importorskip("datasets.cards", reason="renderer absent")
    from datasets.cards import get_deck

    deck = get_deck("proc-duplex-std")
    face = np.ascontiguousarray(deck.face("QH", 2.0)[..., :3])
    ppm = face.shape[1] / 63.5
    return face, np.array([v * ppm for v in deck.index_boxes("QH").top_left])


@needs_reader
def test_the_reader_reads_a_rendered_index():
    face, box = rendered_qh()
    labels, score, _ = CardReader().read(face, box[None])
    assert labels[0] == "QH", (labels, score)


@needs_reader
def test_live_readings_of_an_unchanged_index_square_are_reused_not_recomputed():
    from vision.card_reader import CardReader

    reader = CardReader()
    calls = []
    real_read = reader.read
    reader.read = lambda *a, **k: calls.append(len(a[1])) or real_read(*a, **k)
    img = np.full((100, 100, 3), 128, np.uint8)

    def dets(squares):
        n = len(squares)
        d = Detections(xyxy=np.tile(np.array([[40, 35, 60, 65]], np.float32), (n, 1)),
                       class_id=np.zeros(n, np.int64), score=np.ones(n, np.float32))
        d.data["index_square"] = np.array(squares, np.float32)
        return d

    a = [[40, 35], [60, 35], [60, 65], [40, 65]]
    b = [[10, 10], [30, 10], [30, 30], [10, 30]]
    cache: dict = {}
    first = reader.read_detections(img, dets([a]), cache=cache)
    second = reader.read_detections(img, dets([a, b]), cache=cache)
    assert calls == [1, 1]  # only the new square is read the second time
    assert second.label[0] == first.label[0] and len(cache) == 2


def test_readings_at_four_turns_are_only_sure_where_the_sure_ones_agree():
    sure_7h, sure_7d, unsure = one_hot("7H", 0.9), one_hot("7D", 0.9), np.full(52, 1 / 52, np.float32)
    agree = mean_of_turns(np.stack([sure_7h, unsure, sure_7h, unsure])[:, None])[0]
    differ = mean_of_turns(np.stack([sure_7h, unsure, sure_7d, unsure])[:, None])[0]
    assert CARD_LABELS[int(agree.argmax())] == "7H" and agree.max() > 0.45
    assert differ.max() < 0.25


@needs_reader
def test_a_reader_refuses_a_turn_that_is_not_a_quarter_turn():
    with pytest.raises(ValueError, match="multiples of 90"):
        CardReader(DEFAULT_READER, turns=(0, 45))


@needs_reader
def test_the_committed_reader_reads_at_the_turns_it_was_calibrated_for():
    reader = CardReader(DEFAULT_READER)
    assert reader.turns == (0, 90, 180, 270) and reader.combine == "mean"


class TurnedLogits:
    """A stand-in reader session: a crop's logits depend on its turn (its first pixel row's brightness) and on
    whether it is ``bright`` (sure of 7H at 0 and 180 degrees) or dark (unsure there); records each batch's size."""

    def __init__(self):
        self.batches = []

    def run(self, _, feeds):
        blob = next(iter(feeds.values()))  # (B, 3, H, W) float32 in 0-1
        self.batches.append(len(blob))
        out = np.zeros((len(blob), 52), np.float32)
        for i, crop in enumerate(blob):
            bright = crop.mean() > 0.5
            upright_row = crop[0, 0].mean() > crop[0, -1].mean()  # the marked row on top: turned 0 (or 180: bottom)
            out[i, CARD_LABELS.index("7H")] = 12.0 if bright else 0.2
            out[i, CARD_LABELS.index("7D")] = 0.0 if bright or upright_row else 0.3
        return [out]


def turned_crop(bright: bool) -> np.ndarray:
    crop = np.full((CROP_SIZE, CROP_SIZE, 3), 200 if bright else 40, np.uint8)
    crop[0] = 255  # marks the crop's top row, so a quarter turn reads differently from an upright one
    return crop


@needs_reader
def test_a_crop_sure_upright_and_upside_down_is_not_read_at_the_quarter_turns():
    reader = CardReader(DEFAULT_READER)
    reader.session = fake = TurnedLogits()
    p = reader.probabilities([turned_crop(True), turned_crop(True)])
    assert fake.batches == [4]  # two crops at two turns, no second batch
    assert CARD_LABELS[int(p[0].argmax())] == "7H" and p[0].max() >= 0.99


@needs_reader
def test_a_crop_unsure_at_first_is_read_at_all_four_turns_and_averaged_as_before():
    early, every = CardReader(DEFAULT_READER), CardReader(DEFAULT_READER, early_sure=None)
    early.session, every.session = TurnedLogits(), TurnedLogits()
    crops = [turned_crop(True), turned_crop(False), turned_crop(False)]
    p_early, p_every = early.probabilities(crops), every.probabilities(crops)
    assert early.session.batches == [6, 4] and every.session.batches == [12]  # only the two unsure crops again
    np.testing.assert_array_equal(p_early[1:], p_every[1:])
    assert p_early[0].argmax() == p_every[0].argmax()


@needs_reader
def test_a_reader_read_at_one_turn_has_no_early_exit():
    assert CardReader(DEFAULT_READER, turns=(0,), combine="best").early_sure is None


def test_two_corners_that_read_the_same_card_pair_a_little_closer_than_the_usual_band():
    # a card turned towards a seat at the end of the arc: its two indices 74 mm apart on the layout
    d = corners([[0, 0, 10, 20], [40, 60, 50, 80]], [one_hot("9C"), one_hot("9C")], zone="seat6.cards")
    cards = group_cards(d, positions_mm=at_mm(d, [[594, 451], [597, 376]]))
    assert [c.label for c in cards] == ["9C"]


def kd_and_a_back(back_mm) -> list[str]:
    """A KD with both corners read (at 837,512 and 874,585 mm) and a stage-1 BACK box centred at ``back_mm``: the
    labels of the physical cards grouped."""
    d = corners([[0, 0, 10, 20], [40, 60, 50, 80]], [one_hot("KD"), one_hot("KD")], zone="seat4.cards")
    back = Detections(xyxy=np.array([[15, 20, 35, 60]], np.float32), class_id=np.array([1]), score=np.array([0.8]),
                      zone=["seat4.cards"])
    back.data["probs"] = np.array([None], dtype=object)
    both = Detections.merge([d, back])
    return sorted(c.label for c in group_cards(both, positions_mm=at_mm(both, [[837, 512], [874, 585], back_mm])))


def test_a_card_back_found_on_the_picture_of_a_face_up_card_is_dropped():
    assert kd_and_a_back([856, 544]) == ["KD"]  # stage 1 saw BACK in the middle of the KD


def test_a_card_back_beside_a_face_up_card_is_kept():
    assert kd_and_a_back([930, 544]) == ["BACK", "KD"]


def a_back_and_an_index_at_its_corner(p: float, box=(18, 29, 57, 62)) -> list[str]:
    """A stage-1 BACK box with one index read as 10H at probability ``p`` at its top-left corner: the labels."""
    d = corners([list(box)], [one_hot("10H", p)], zone="seat3.cards")
    back = Detections(xyxy=np.array([[0, 0, 305, 296]], np.float32), class_id=np.array([1]), score=np.array([0.8]),
                      zone=["seat3.cards"])
    back.data["probs"] = np.array([None], dtype=object)
    both = Detections.merge([d, back])
    return sorted(c.label for c in group_cards(both, positions_mm=at_mm(both, [[1134, 557], [1170, 598]])))


def test_a_card_backs_print_read_unsurely_as_an_index_is_not_a_card():
    assert a_back_and_an_index_at_its_corner(0.57) == ["BACK"]


def test_the_print_of_the_front_one_of_two_backs_under_one_box_is_not_a_card():
    """Seed 7113 at 4K: one BACK box round two face-down cards; the front card's corner lies 22 % into the box."""
    assert a_back_and_an_index_at_its_corner(0.55, box=(49, 48, 89, 80)) == ["BACK"]


def test_the_corner_of_a_turned_back_midway_along_its_boxs_edge_is_not_a_card():
    """Seed 7116 at 4K: two turned backs under one box; the second's corner lies 12 % below the box's top edge,
    34 % from its nearest side, and stage 1's box of it sticks out above the back's box."""
    assert a_back_and_an_index_at_its_corner(0.54, box=(100, -10, 170, 40)) == ["BACK"]


def test_the_edge_of_a_second_back_peeking_out_of_the_front_ones_box_is_not_a_card():
    """Seed 7129 at 4K: stage 1 boxed only the front one of two face-down cards; the other's edge, above the box,
    read as 8H at 0.79."""
    assert a_back_and_an_index_at_its_corner(0.79, box=(52, -23, 107, 11)) == ["BACK"]


def test_an_index_unsurely_read_in_the_middle_of_a_back_is_kept():
    assert a_back_and_an_index_at_its_corner(0.54, box=(130, 130, 170, 170)) == ["10H", "BACK"]


def test_an_index_read_surely_on_a_face_down_card_is_a_card_lying_on_it():
    assert a_back_and_an_index_at_its_corner(0.97) == ["10H", "BACK"]


def a_lone_index_on_the_layouts_words(p: float) -> list[str]:
    """One index read as 7H at probability ``p``, centred on the layout's printed words: the labels."""
    d = corners([[0, 0, 10, 20]], [one_hot("7H", p)], zone="dealer.cards")
    return [c.label for c in group_cards(d, positions_mm=at_mm(d, [[1100, 346]]), on_print=np.array([True]))]


def test_a_glyph_of_the_layouts_words_read_unsurely_as_an_index_is_not_a_card():
    assert a_lone_index_on_the_layouts_words(0.55) == []


def test_a_card_read_surely_on_the_layouts_words_is_a_card_lying_on_them():
    assert a_lone_index_on_the_layouts_words(0.97) == ["7H"]


def test_the_lower_half_of_an_index_boxed_again_and_read_unsurely_is_that_index():
    """Seed 7117 at 4K: stage 1 boxed a 3S's corner whole (read 3S at 0.99) and its lower half over a pip of the card
    above it (read unreadable at 0.15): one card, the 3S."""
    d = corners([[2621, 628, 2699, 701], [2627, 665, 2692, 726]], [one_hot("3S", 0.99), one_hot("9D", 0.15)],
                zone="seat2.cards")
    cards = group_cards(d, positions_mm=at_mm(d, [[1380, 382], [1379, 394]]))
    assert [(c.label, round(c.score, 2)) for c in cards] == [("3S", 0.99)]


def test_two_indices_read_surely_one_inside_the_others_box_stay_two_cards():
    d = corners([[0, 0, 40, 40], [10, 10, 50, 50]], [one_hot("3S"), one_hot("9D")], zone="seat2.cards")
    cards = group_cards(d, positions_mm=at_mm(d, [[1380, 382], [1390, 392]]))
    assert sorted(c.label for c in cards) == ["3S", "9D"]


def a_jack_and_a_reading_beside_it(label: str, p: float, mm=(984, 521)) -> list[str]:
    """A JH read surely by its one corner in view (at 945,523 mm, the rest under the next card) and another index
    read as ``label`` at probability ``p`` at ``mm``: the labels of the cards grouped."""
    d = corners([[0, 0, 10, 20], [30, 0, 40, 20]], [one_hot("JH", 0.99), one_hot(label, p)], zone="seat4.cards")
    return sorted(c.label for c in group_cards(d, positions_mm=at_mm(d, [[945, 523], list(mm)])))


def test_a_court_cards_picture_read_unsurely_as_its_rank_in_another_suit_is_not_a_card():
    """Seed 7121 at 4K: the top of a JH's picture, above the 5S dealt over it, read JD at 0.5-0.66."""
    assert a_jack_and_a_reading_beside_it("JD", 0.6) == ["JH"]


def test_another_court_card_of_that_rank_read_surely_beside_it_is_a_card():
    assert a_jack_and_a_reading_beside_it("JD", 0.95) == ["JD", "JH"]


def test_an_unsure_reading_of_another_rank_beside_a_court_card_is_kept():
    assert a_jack_and_a_reading_beside_it("7D", 0.6) == ["7D", "JH"]


def test_an_unsure_reading_of_that_rank_a_card_away_is_kept():
    assert a_jack_and_a_reading_beside_it("JD", 0.6, mm=(1030, 523)) == ["JD", "JH"]


def a_king_and_a_mark_on_its_face(label: str, p: float) -> list[str]:
    """A KS with both corners read (87 mm apart) and another index read as ``label`` at ``p`` beside its crown."""
    d = corners([[0, 0, 10, 20], [40, 60, 50, 80], [10, 20, 20, 40]], [one_hot("KS"), one_hot("KS"), one_hot(label, p)],
                zone="dealer.cards")
    return [c.label for c in group_cards(d, positions_mm=at_mm(d, [[100, 100], [153, 169], [112, 126]]))]


def test_a_mark_on_a_court_cards_face_read_unsurely_as_another_card_is_not_a_card():
    """Seeds 7115 and 7126 at 4K: the pip beside a king's crown read unreadable for seconds, dealt out of turn."""
    assert a_king_and_a_mark_on_its_face("JC", 0.33) == ["KS"]


def test_a_card_read_surely_across_a_cards_face_is_a_card():
    assert sorted(a_king_and_a_mark_on_its_face("5D", 0.97)) == ["5D", "KS"]


def test_a_box_read_unsurely_between_two_cards_indices_does_not_make_them_one_card():
    """Rendered hold-out seed 9003: stage 1 boxed an 8H's index (read 8H at 0.98), the 6D's index dealt over it 12 mm
    on (6D at 0.99), and a third box across both (unsure: 6D at 0.36). The third box is part of each; it must not
    chain the two into one card, which read 6D and lost the 8H."""
    unsure = np.full(52, 0.44 / 50, np.float32)
    unsure[CARD_LABELS.index("6D")], unsure[CARD_LABELS.index("8H")] = 0.36, 0.2
    d = corners([[1539, 301, 1568, 330], [1545, 303, 1578, 336], [1555, 311, 1583, 339]],
                [one_hot("8H", 0.98), unsure, one_hot("6D", 0.99)], zone="seat2.cards")
    cards = group_cards(d, positions_mm=at_mm(d, [[1353, 394], [1358, 397], [1363, 401]]))
    assert sorted(c.label for c in cards) == ["6D", "8H"]


def _six_of_diamonds_over(label: str, under_box) -> list:
    """A 6D whose two corners show (top-left index, bottom-right index at 753-823 x 1259-1343 px, as in 4K seed
    7117) and a lone index ``label`` boxed at ``under_box``, 14 mm right of the bottom-right one."""
    d = corners([[702, 1060, 767, 1141], [753, 1259, 823, 1343], under_box],
                [one_hot("6D"), one_hot("6D"), one_hot(label, 0.91)], zone="seat5.cards")
    return group_cards(d, positions_mm=at_mm(d, [[686, 545], [709, 619], [722, 616]]))


def test_an_index_half_under_a_cards_corner_reading_its_rank_in_another_suit_is_unreadable():
    """Step 8: the AH under the 6D's corner read 6H (the 6's ink in its crop): not a card, unreadable."""
    cards = _six_of_diamonds_over("6H", [787, 1245, 868, 1341])
    assert sorted(c.label for c in cards) == ["6D", UNREADABLE]


def test_an_index_half_under_a_cards_corner_reading_another_rank_stays_a_card():
    cards = _six_of_diamonds_over("AH", [787, 1245, 868, 1341])
    assert sorted(c.label for c in cards) == ["6D", "AH"]


def test_an_index_clear_of_the_cards_corners_reading_its_rank_stays_a_card():
    """A 6H fanned beside the 6D, its index box clear of the 6D's corner: a second six, read as it shows."""
    cards = _six_of_diamonds_over("6H", [840, 1245, 905, 1330])
    assert sorted(c.label for c in cards) == ["6D", "6H"]


def test_a_sure_index_half_under_a_cards_corner_reading_its_rank_stays_a_card():
    """A second six fanned tight beside the 6D, its own index read at 0.995: a card of that rank, as it reads."""
    d = corners([[702, 1060, 767, 1141], [753, 1259, 823, 1343], [787, 1245, 868, 1341]],
                [one_hot("6D"), one_hot("6D"), one_hot("6H", 0.995)], zone="seat5.cards")
    cards = group_cards(d, positions_mm=at_mm(d, [[686, 545], [709, 619], [722, 616]]))
    assert sorted(c.label for c in cards) == ["6D", "6H"]


def _ace_of_diamonds_over_a_three(extra_box, extra_probs, extra_mm) -> list[str]:
    """Seed 7117 at 4K (Switch Hands, frame 146): an AD whose two corners show (read 0.997 and 0.60), squared over a
    3D, and one more index box: the labels of the cards grouped."""
    d = corners([[1328, 1224, 1371, 1296], [1461, 1380, 1521, 1461], extra_box],
                [one_hot("AD", 0.997), one_hot("AD", 0.60), extra_probs], zone="seat4.cards")
    return sorted(c.label for c in group_cards(d, positions_mm=at_mm(d, [[905.8, 605.7], [956.7, 664.6], extra_mm])))


def test_another_cards_index_beside_a_corner_and_as_large_is_not_part_of_that_corner():
    """The 3D's lower index, peeking out 20 px beside the AD's, boxed as large and read unsurely (3D 0.25, AD 0.25),
    its centre inside the AD's box: another card's index, not part of the AD's (which it joined, and the 3D left the
    tracker for five frames)."""
    tied = np.full(52, 0.505 / 50, np.float32)
    tied[CARD_LABELS.index("3D")], tied[CARD_LABELS.index("AD")] = 0.249, 0.246
    assert _ace_of_diamonds_over_a_three([1482, 1364, 1540, 1449], tied, [963.6, 659.8]) == ["AD", UNREADABLE]


def test_a_cards_corner_boxed_again_loosely_and_read_unsurely_as_that_card_is_that_card():
    """A box round the AD's top corner and the 3D's corner above it, read AD at 0.77, 13 mm from the AD's index and
    a quarter under its box: that corner boxed again, not a second AD."""
    assert _ace_of_diamonds_over_a_three([1342, 1188, 1410, 1277], one_hot("AD", 0.773), [914.9, 595.7]) == ["AD"]


def test_a_second_card_of_that_identity_fanned_tight_and_read_surely_is_a_card():
    assert _ace_of_diamonds_over_a_three([1342, 1188, 1410, 1277], one_hot("AD", 0.995), [914.9, 595.7]) == ["AD", "AD"]


def test_without_a_calibration_an_unsure_box_as_large_inside_a_sure_one_is_still_that_index():
    """On uncalibrated photos the boxes of one index come in any size (the webcam frames of real-cards-zk7wu): an
    unsure box centred inside a sure one joins it whatever its size."""
    tied = np.full(52, 0.505 / 50, np.float32)
    tied[CARD_LABELS.index("3D")], tied[CARD_LABELS.index("AD")] = 0.249, 0.246
    d = corners([[1461, 1380, 1521, 1461], [1482, 1364, 1540, 1449]], [one_hot("AD", 0.9), tied], zone=None)
    assert [c.label for c in group_cards(d)] == ["AD"]


def test_two_corners_a_diagonal_apart_whose_readings_overlap_are_one_card_though_one_reads_another_suit():
    """Seed 7109 at 4K: a KD's top corner read KD at 0.98, its other corner (the next card's ink beside it) KH 0.54 /
    KD 0.37. The surer gives KH only 0.01, under the least agreement; but the two readings overlap (Bhattacharyya
    0.7): one card, read KD, not a KD and a KH dealt to the seat."""
    top, other = one_hot("KD", 0.984), np.full(52, 0.092 / 50, np.float32)
    top[CARD_LABELS.index("KH")] = 0.013
    other[CARD_LABELS.index("KH")], other[CARD_LABELS.index("KD")] = 0.536, 0.372
    d = corners([[850, 820, 915, 873], [811, 1008, 881, 1067]], [top, other], zone="seat5.cards")
    cards = group_cards(d, positions_mm=at_mm(d, [[616.2, 429.7], [618.9, 511.1]]))
    assert [c.label for c in cards] == ["KD"]


def test_two_cards_read_surely_a_diagonal_apart_stay_two_cards():
    d = corners([[850, 820, 915, 873], [811, 1008, 881, 1067]], [one_hot("KD", 0.98), one_hot("KH", 0.9)],
                zone="seat5.cards")
    cards = group_cards(d, positions_mm=at_mm(d, [[616.2, 429.7], [618.9, 511.1]]))
    assert sorted(c.label for c in cards) == ["KD", "KH"]
