"""The renderer: felt drawing, card and chip geometry, occlusion truth, and clear errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import PinholeCamera
from calibration.chipset import ChipSetError, default_chipset, load_chipset
from calibration.layout import LayoutError, builtin_layout, load_layout
from datasets.effects import Effects
from datasets.felt import draw_layout_topdown
from datasets.render import Renderer, Style, card_to_felt, render_frame
from datasets.scene import CARD_H_MM, CARD_W_MM, ChipLayer, ChipStack, HandOccluder, PlacedCard, TableState

LAYOUT = builtin_layout("blackjack-7-mtd-bonus")
CLEAN = Style(effects=Effects.none())


def cam(tilt=0.0, w=640, h=360, cover=700.0, target=(950.0, 300.0)):
    return PinholeCamera.looking_at(target, tilt, 0, w, h, cover)


def test_felt_is_drawn_from_the_layout_at_its_scale():
    img = draw_layout_topdown(LAYOUT, px_per_mm=0.5)
    assert img.shape == (500, 950, 3) and img.dtype == np.uint8
    felt_bgr = np.array(LAYOUT.felt_rgb[::-1])
    # the felt colour fills the middle of the table, away from any print
    assert np.abs(img[100, 475].astype(int) - felt_bgr).max() < 30


def test_felt_prints_each_spot_ring_in_the_print_colour():
    img = draw_layout_topdown(LAYOUT, px_per_mm=1.0)
    ink = np.array(LAYOUT.print_rgb[::-1])
    for spot in LAYOUT.spots():
        x, y = spot.circle.center
        r = spot.circle.radius
        ring = img[int(round(y)), int(round(x + r)) - 1 : int(round(x + r)) + 2].astype(int)
        assert np.abs(ring - ink).sum(-1).min() < 60, spot.name


def test_felt_prints_the_words_of_the_layout():
    img = draw_layout_topdown(LAYOUT, px_per_mm=1.0).astype(int)
    ink = np.array(LAYOUT.print_rgb[::-1])
    for text in LAYOUT.texts:
        x, y = text.center
        h = text.height_mm
        patch = img[int(y - h): int(y + h), int(x - 3 * h): int(x + 3 * h)]
        assert (np.abs(patch - ink).sum(-1) < 80).mean() > 0.03, text.text


def test_a_card_lies_where_its_quad_says():
    c = cam()
    card = PlacedCard("7D", True, (950, 300), 30.0)
    res = render_frame(LAYOUT, TableState(cards=(card,)), c, CLEAN)
    corners = np.array([[0, 0], [CARD_W_MM, 0], [CARD_W_MM, CARD_H_MM], [0, CARD_H_MM], [CARD_W_MM / 2, CARD_H_MM / 2]])
    felt = (card_to_felt(card) @ np.c_[corners, np.ones(5)].T).T[:, :2]
    expected = c.project(felt)
    np.testing.assert_allclose(res.cards[0].quad, expected[:4], atol=1e-6)
    cx, cy = expected[4].round().astype(int)
    assert res.image[cy, cx].mean() > 150  # the white face, not the green felt


def test_a_lone_face_up_card_shows_both_corner_indices_inside_its_quad():
    res = render_frame(LAYOUT, TableState(cards=(PlacedCard("10H", True, (950, 300), 15.0),)), cam(25), CLEAN)
    truth = res.cards[0]
    assert truth.label == "10H" and truth.face_up and len(truth.index_boxes) == 2
    x1, y1, x2, y2 = truth.quad[:, 0].min(), truth.quad[:, 1].min(), truth.quad[:, 0].max(), truth.quad[:, 1].max()
    for b in truth.index_boxes:
        assert x1 - 1 <= b[0] < b[2] <= x2 + 1 and y1 - 1 <= b[1] < b[3] <= y2 + 1


def test_a_face_down_card_is_labelled_back_without_indices():
    res = render_frame(LAYOUT, TableState(cards=(PlacedCard("AS", False, (950, 300)),)), cam(), CLEAN)
    assert res.cards[0].label == "BACK" and res.cards[0].card == "AS" and res.cards[0].index_boxes == []


def test_a_card_on_top_hides_the_index_it_covers():
    under = PlacedCard("5C", True, (950, 300), 0.0, layer=0)
    # the same place turned half a turn would cover everything; a card shifted along x covers one long side
    over = PlacedCard("KD", True, (950 - 40, 300), 0.0, layer=1)
    res = render_frame(LAYOUT, TableState(cards=(under, over)), cam(), CLEAN)
    assert len(res.cards[1].index_boxes) == 2
    assert len(res.cards[0].index_boxes) == 1
    assert min(res.cards[0].index_visible) < 0.5


def test_the_next_card_over_a_tall_index_s_suit_leaves_its_rank_in_view_and_its_suit_hidden():
    # a jumbo index runs 2-27 mm from the card's end, its suit from 17 mm: a card laid 20 mm along covers the suit only
    under = PlacedCard("4C", True, (950, 300), 0.0, layer=0)
    over = PlacedCard("9D", True, (950, 280), 0.0, layer=1)
    style = Style(deck="proc-roboto-large", effects=Effects.none())
    res = render_frame(LAYOUT, TableState(cards=(under, over)), cam(), style)
    top_left = res.cards[0]
    assert top_left.index_visible[0] >= 0.5 and top_left.suit_visible[0] < 0.5
    assert res.cards[1].suit_visible == [1.0, 1.0]


def test_the_later_layer_is_drawn_on_top_whatever_the_list_order():
    a = PlacedCard("5C", True, (950, 300), 0.0, layer=1)
    b = PlacedCard("KD", True, (950 - 40, 300), 0.0, layer=0)
    res = render_frame(LAYOUT, TableState(cards=(a, b)), cam(), CLEAN)
    assert len(res.cards[0].index_boxes) == 2 and len(res.cards[1].index_boxes) == 1


def test_a_hand_over_a_corner_hides_that_index():
    card = PlacedCard("QS", True, (950, 300), 0.0)
    free = render_frame(LAYOUT, TableState(cards=(card,)), cam(), CLEAN).cards[0]
    bx = free.index_boxes[0]
    c = cam()
    felt = np.linalg.solve(c.homography(), np.array([(bx[0] + bx[2]) / 2, (bx[1] + bx[3]) / 2, 1.0]))
    fx, fy = felt[:2] / felt[2]
    hand = HandOccluder(((fx - 30, fy - 30), (fx + 30, fy - 30), (fx + 30, fy + 30), (fx - 30, fy + 30)), 0.5)
    res = render_frame(LAYOUT, TableState(cards=(card,), hands=(hand,)), c, CLEAN)
    assert len(res.cards[0].index_boxes) == 1


def test_a_chip_stack_reports_its_layers_value_and_zone():
    spot = LAYOUT.zone("seat4.main")
    stack = ChipStack(spot.circle.center, (ChipLayer(25, 2), ChipLayer(5, 3)))
    res = render_frame(LAYOUT, TableState(chips=(stack,)), cam(20, target=spot.circle.center), CLEAN)
    t = res.chips[0]
    assert t.layers == [(25, 2), (5, 3)] and t.count == 5 and t.value == 65 and t.zone == "seat4.main"


def test_a_tall_stack_shows_its_side_under_an_oblique_camera():
    spot = LAYOUT.zone("seat4.main").circle.center
    stack = ChipStack(spot, (ChipLayer(100, 20),))

    def height(tilt):
        b = render_frame(LAYOUT, TableState(chips=(stack,)), cam(tilt, target=spot), CLEAN).chips[0].box
        return b[3] - b[1], b[2] - b[0]

    h0, w0 = height(0)
    h40, w40 = height(40)
    assert abs(h0 - w0) < 0.1 * w0  # from straight above a stack is a disc
    assert h40 > 1.2 * w40 * np.cos(np.radians(40))  # the side adds to the height


def test_a_chip_stack_covers_the_card_under_it():
    card = PlacedCard("9H", True, (950, 300), 0.0)
    free = render_frame(LAYOUT, TableState(cards=(card,)), cam(), CLEAN).cards[0]
    b = free.index_boxes[0]
    c = cam()
    p = np.linalg.solve(c.homography(), np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, 1.0]))
    stack = ChipStack((p[0] / p[2], p[1] / p[2]), (ChipLayer(5, 2),))
    res = render_frame(LAYOUT, TableState(cards=(card,), chips=(stack,)), c, CLEAN)
    assert len(res.cards[0].index_boxes) == 1


def test_the_same_rng_seed_renders_the_same_pixels():
    state = TableState(cards=(PlacedCard("AH", True, (950, 300), 10.0),), chips=(ChipStack((1000, 330), (ChipLayer(1, 3),)),))
    style = Style(effects=Effects(noise=3.0, glare=0.5, glare_p=1.0))
    a = Renderer(LAYOUT, cam(20), style).render(state, 5).image
    b = Renderer(LAYOUT, cam(20), style).render(state, 5).image
    assert np.array_equal(a, b)


def test_an_unknown_chip_colour_is_a_clear_error(tmp_path):
    path = tmp_path / "chips.yaml"
    path.write_text("chips:\n  - colour: white\n    denomination: 1\n  - colour: teal-ish\n    denomination: 5\n")
    with pytest.raises(ChipSetError, match=r"chips\.yaml: chips\.1\.colour: unknown chip colour 'teal-ish'"):
        load_chipset(path)


def test_the_default_chip_set_maps_colours_to_denominations():
    cs = default_chipset()
    assert [(c.colour, c.denomination) for c in cs.chips] == [
        ("white", 1), ("red", 5), ("green", 25), ("black", 100), ("purple", 500), ("orange", 1000)]
    with pytest.raises(ChipSetError, match="no 'blue' chip"):
        cs.denomination("blue")


def test_a_denomination_missing_from_the_chip_set_is_a_clear_error():
    stack = ChipStack((950, 300), (ChipLayer(7, 1),))
    with pytest.raises(ChipSetError, match=r"no \$7 chip"):
        render_frame(LAYOUT, TableState(chips=(stack,)), cam(), CLEAN)


def test_overlapping_spots_in_a_layout_are_a_clear_error(tmp_path):
    text = (LAYOUT.model_dump_json())
    import json

    data = json.loads(text)
    spots = [z for z in data["zones"] if z["circle"]]
    spots[1]["circle"]["center"] = spots[0]["circle"]["center"]
    spots[1]["polygon"] = []
    path = tmp_path / "bad.yaml"
    import yaml

    path.write_text(yaml.safe_dump(data))
    with pytest.raises(LayoutError, match="overlap"):
        load_layout(path)


def test_an_unknown_deck_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown deck design 'no-such-deck'"):
        Renderer(LAYOUT, cam(), Style(deck="no-such-deck"))
