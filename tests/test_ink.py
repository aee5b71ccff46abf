"""A red card's index is printed in red ink: an index showing none is read among the black cards (vision.ink)."""

from __future__ import annotations

import numpy as np
import pytest

from rules.cards import CARD_LABELS
from vision.ink import black_ink_only, frame_in_colour


def paper_with_ink(ink_bgr, paper_bgr=(235, 235, 235), size=40):
    crop = np.empty((size, size, 3), np.uint8)
    crop[:] = paper_bgr
    crop[12:28, 14:19] = ink_bgr   # a rank stroke
    crop[14:20, 22:28] = ink_bgr   # a suit pip
    return crop


def test_black_ink_on_white_paper_is_black():
    assert black_ink_only([paper_with_ink((20, 20, 20))]).tolist() == [True]


def test_red_ink_is_not_black():
    assert black_ink_only([paper_with_ink((40, 40, 200))]).tolist() == [False]


def test_dull_red_ink_under_a_webcams_blue_cast_is_still_red():
    # the paper reads bluish and the red ink brownish-grey; balanced on the paper the ink is red
    assert black_ink_only([paper_with_ink((105, 95, 135), paper_bgr=(205, 185, 175))]).tolist() == [False]


def test_a_black_faced_card_is_not_judged():
    # most of the middle dark: no index printed on a light card (a novelty deck's black face, a card back)
    crop = np.full((40, 40, 3), 25, np.uint8)
    crop[:6] = 235
    crop[-6:] = 235
    crop[:, :6] = 235
    assert black_ink_only([crop]).tolist() == [False]


def test_no_crops_no_verdicts():
    assert black_ink_only([]).shape == (0,)


def test_a_monochrome_frame_shows_no_colour():
    grey = np.random.default_rng(0).integers(0, 255, (1080, 1920), np.uint8)
    assert not frame_in_colour(np.dstack([grey] * 3))


def test_a_frame_of_green_felt_is_in_colour():
    felt = np.zeros((1080, 1920, 3), np.uint8)
    felt[:] = (60, 120, 30)
    assert frame_in_colour(felt)


def test_the_reader_never_names_a_red_card_for_an_index_with_no_red_ink(monkeypatch):
    from vision.card_reader import CardReader

    reader = CardReader()
    p = np.full(len(CARD_LABELS), 0.001, np.float32)
    p[CARD_LABELS.index("4D")] = 0.6   # the martinabeleda photos' 4C, read as a diamond
    p[CARD_LABELS.index("4C")] = 0.3
    monkeypatch.setattr(reader, "probabilities", lambda crops: np.stack([p] * len(crops)))
    frame = np.zeros((400, 400, 3), np.uint8)
    frame[:] = (60, 120, 30)                              # green felt
    frame[100:140, 100:140] = paper_with_ink((20, 20, 20))  # a black index
    labels, score, probs = reader.read(frame, np.array([[104, 104, 136, 136]], np.float32))
    assert labels.tolist() == ["unreadable"]
    assert probs[0, CARD_LABELS.index("4D")] == 0.0
    assert probs[0, CARD_LABELS.index("4C")] == pytest.approx(0.3)
