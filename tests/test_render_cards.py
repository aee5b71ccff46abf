"""Card art: every design names itself, and both corner indices of every card hold the card's ink."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.cards import TEXTURE_PX_PER_MM, get_deck, list_back_designs, list_deck_designs, render_index_crop
from datasets.cards.procedural import PROCEDURAL_DESIGNS
from datasets.cards.svg_decks import available_svg_decks
from rules.cards import CARD_LABELS, parse_card


def _index_ink(deck, card: str) -> list[float]:
    """Fraction of each corner-index box holding ink of the card's colour: the design's own red or black ink
    for procedural decks; red for hearts and diamonds and near-black otherwise for the SVG art."""
    face = deck.face(card)[..., :3].astype(int)
    paper = np.median(face[face.shape[0] // 2 - 4 : face.shape[0] // 2 + 4, 20:40].reshape(-1, 3), axis=0)
    red = parse_card(card).is_red
    design = getattr(deck, "design", None)
    out = []
    for x1, y1, x2, y2 in deck.index_boxes(card).as_list():
        s = TEXTURE_PX_PER_MM
        patch = face[int(y1 * s) : int(np.ceil(y2 * s)), int(x1 * s) : int(np.ceil(x2 * s))]
        b, g, r = patch[..., 0], patch[..., 1], patch[..., 2]
        inked = np.abs(patch - paper).sum(-1) > 120
        if design is not None:
            ink = np.array(design.red_bgr if red else design.black_bgr)
            coloured = np.abs(patch - ink).sum(-1) < 90
        else:
            coloured = (r > g + 60) & (r > b + 60) if red else (np.maximum(np.maximum(b, g), r) < 110)
        out.append(float((inked & coloured).mean()))
    return out


def test_designs_have_stable_names():
    names = list_deck_designs(include_svg=False)
    assert names == [d.name for d in PROCEDURAL_DESIGNS]
    assert len(set(names)) == len(names) >= 8
    assert {"proc-duplex-std", "proc-fjalla-jumbo", "proc-roboto-large"} <= set(names)


def test_several_backs_exist():
    assert len(list_back_designs(include_svg=False)) >= 6


@pytest.mark.parametrize("design", [d.name for d in PROCEDURAL_DESIGNS])
def test_both_corner_indices_of_every_procedural_card_hold_its_ink(design):
    deck = get_deck(design)
    for card in CARD_LABELS:
        top, bottom = _index_ink(deck, card)
        assert top > 0.08 and bottom > 0.08, (design, card, top, bottom)


@pytest.mark.parametrize("design", ["proc-caladea-std", "proc-roboto-large", "proc-fjalla-jumbo"])
def test_a_procedural_card_s_suit_box_is_the_foot_of_its_index_and_holds_the_suit_ink(design):
    deck = get_deck(design)
    s = TEXTURE_PX_PER_MM
    for card in ("10C", "QH", "4S"):
        face = deck.face(card)[..., :3].astype(int)
        for (ix1, iy1, ix2, iy2), (x1, y1, x2, y2) in zip(deck.index_boxes(card).as_list(),
                                                          deck.suit_boxes(card).as_list()):
            # to a tenth of a mm: the index box takes the rank-suit gap unrounded, the drawing rounds it to a pixel
            assert ix1 - 0.1 <= x1 < x2 <= ix2 + 0.1 and iy1 - 0.1 <= y1 < y2 <= iy2 + 0.1
            # the upright index's suit sits at its foot, the turned one's at its head: it is not the rank
            assert (y2 > iy2 - 0.1) if iy1 < 44 else (y1 < iy1 + 0.1)
            patch = face[int(y1 * s): int(np.ceil(y2 * s)), int(x1 * s): int(np.ceil(x2 * s))]
            assert (np.abs(patch - face[8, 32]).sum(-1) > 120).mean() > 0.15, (design, card)


def test_the_bottom_index_is_the_top_index_turned_half_a_turn():
    deck = get_deck("proc-roboto-std")
    face = deck.face("QS")[..., :3]
    turned = face[::-1, ::-1]
    (x1, y1, x2, y2) = deck.index_boxes("QS").top_left
    s = TEXTURE_PX_PER_MM
    a = face[int(y1 * s) : int(y2 * s), int(x1 * s) : int(x2 * s)].astype(int)
    b = turned[int(y1 * s) : int(y2 * s), int(x1 * s) : int(x2 * s)].astype(int)
    assert np.abs(a - b).mean() < 12


@pytest.mark.parametrize("design", ["svg-kennard-standard", "svg-kennard-bigface", "svg-saulspatz-jumbo"])
def test_both_corner_indices_of_every_svg_card_hold_its_ink(design, shared_dir):
    if design not in available_svg_decks():
        pytest.skip(f"{design}: art or rasteriser not available here")
    deck = get_deck(design)
    for card in CARD_LABELS:
        top, bottom = _index_ink(deck, card)
        assert top > 0.08 and bottom > 0.08, (design, card, top, bottom)


def test_an_index_crop_is_square_and_reproducible():
    a = render_index_crop("10D", "proc-lato-std", 3, 48)
    b = render_index_crop("10D", "proc-lato-std", 3, 48)
    assert a.shape == (48, 48, 3) and a.dtype == np.uint8 and np.array_equal(a, b)


def test_an_upright_clean_crop_shows_red_ink_for_a_red_card():
    crop = render_index_crop("AH", "proc-duplex-std", 0, 64, upright=True, photometric=False).astype(int)
    b, g, r = crop[..., 0], crop[..., 1], crop[..., 2]
    assert ((r > g + 80) & (r > b + 80)).mean() > 0.05


def test_the_readers_extra_training_decks_do_not_change_what_a_seed_renders():
    from datasets.cards import list_deck_designs
    from datasets.cards.procedural import PROCEDURAL_DESIGNS, TRAINING_DESIGNS

    assert list_deck_designs(include_svg=False) == [d.name for d in PROCEDURAL_DESIGNS]
    extra = list_deck_designs(include_svg=False, include_training=True)[len(PROCEDURAL_DESIGNS):]
    assert extra == [d.name for d in TRAINING_DESIGNS]


def test_a_training_deck_draws_every_card():
    from datasets.cards import get_deck

    deck = get_deck("proc-stix-std")
    assert deck.face("10C", 4.0).shape[2] == 4
    assert len(deck.index_boxes("QD").as_list()) == 2
