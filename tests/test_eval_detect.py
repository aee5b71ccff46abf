"""How `pitwatch eval detect` matches true corner indices to detections (vision.evaluate)."""

import numpy as np

from vision.detections import Detections
from vision.detector import FrameResult
from vision.evaluate import Tally, _iou, _match_indices
from vision.grouping import PhysicalCard


def _result(xyxy, square, label):
    d = Detections(xyxy=np.array([xyxy], np.float32), class_id=np.array([0]), score=np.array([0.9], np.float32))
    d.label[0] = label
    d.data["index_square"] = np.array([square], np.float32)
    card = PhysicalCard(label=label, score=0.9, box=d.xyxy[0], zone=None, members=(0,))
    return FrameResult(d, [card], [])


def test_an_index_boxed_in_a_turned_crop_is_matched_by_its_centre_not_its_loose_image_box():
    truth = np.array([[100, 100, 110, 120]], np.float32)  # a 10 x 20 px index
    # stage 1's box of a turned box: 3x too wide in the image, centred on the index
    res = _result([90, 98, 120, 122], [[97, 102], [113, 102], [113, 118], [97, 118]], "QS")
    assert _iou(truth, res.dets.xyxy)[0, 0] < 0.3
    tally = Tally()
    assert _match_indices(tally, res, truth, ["QS"]) == ["QS"]
    assert tally.at_target == [1, 1]


def test_a_detection_beside_the_index_is_no_match():
    truth = np.array([[100, 100, 110, 120]], np.float32)
    res = _result([140, 100, 150, 120], [[140, 100], [150, 100], [150, 120], [140, 120]], "QS")
    assert _match_indices(Tally(), res, truth, ["QS"]) == [None]


def test_per_design_frames_are_reported_apart_from_the_held_out_design(tmp_path):
    """`eval detect --per-design N`: training deck designs on new seeds, one set each, beside the hold-out."""
    from vision.evaluate import run_eval

    result = run_eval(tmp_path, holdout=1, real=False, per_design=1, designs=("proc-roboto-large",),
                      log=open(tmp_path / "log.txt", "w"))
    assert set(result["sets"]) == {"rendered", "rendered:proc-roboto-large"}
    design = result["sets"]["rendered:proc-roboto-large"]
    assert design["deck"] == "proc-roboto-large" and 0.0 <= design["card_identity"] <= 1.0


def test_cards_whose_every_index_is_half_covered_are_scored_apart_as_well():
    """The issue's per-card identity counts every card with an index at least half in view; a card whose indices
    are all half under the next card dealt may show its rank and not its suit, so the whole-index figure is given
    beside it."""
    tally = Tally()
    tally.add_card(True, 24.0, whole=True)
    tally.add_card(False, 24.0, whole=False)
    tally.add_card(False, 12.0, whole=True)  # under the target's index height: in neither figure at 20 px
    s = tally.summary()
    assert (s["card_identity_index_ge_20px"], s["cards_with_index_ge_20px"]) == (0.5, 2)
    assert (s["card_identity_index_whole_ge_20px"], s["cards_with_index_whole_ge_20px"]) == (1.0, 1)


def test_cards_that_show_a_rank_but_no_suit_are_scored_apart_as_well():
    """A card whose only index in view has its suit under the next card cannot be named; the figure over the cards
    that show a suit is given beside the issue's."""
    tally = Tally()
    tally.add_card(True, 24.0, suit_shows=True)
    tally.add_card(False, 24.0, suit_shows=False)
    s = tally.summary()
    assert (s["card_identity_index_ge_20px"], s["cards_with_index_ge_20px"]) == (0.5, 2)
    assert (s["card_identity_suit_in_view_ge_20px"], s["cards_with_suit_in_view_ge_20px"]) == (1.0, 1)


def _stack(outline, visible=1.0):
    from types import SimpleNamespace

    return SimpleNamespace(outline=np.array(outline, np.float64), visible=visible)


def test_a_stack_shows_its_side_only_when_wholly_in_frame_and_uncovered():
    """The chip figures at >= 2 px per chip are also given for stacks whose whole side is in view: the frame's edge
    or a card over the stack hides part of its side."""
    from vision.evaluate import stack_in_view

    square = [[100, 100], [140, 100], [140, 150], [100, 150]]
    assert stack_in_view(_stack(square), 1920, 1080)
    assert not stack_in_view(_stack([[1900, 100], [1940, 100], [1940, 150], [1900, 150]]), 1920, 1080)
    assert not stack_in_view(_stack(square, visible=0.6), 1920, 1080)


def test_each_chip_band_counts_apart_the_stacks_in_full_view():
    from vision.evaluate import _tally_stack

    band = {"stacks": 0, "value_exact": 0, "abstained": 0, "wrong": 0,
            "in_view": {"stacks": 0, "value_exact": 0, "abstained": 0, "wrong": 0}}
    _tally_stack(band, "value_exact", True)
    _tally_stack(band, "abstained", False)
    assert (band["stacks"], band["value_exact"], band["abstained"]) == (2, 1, 1)
    assert band["in_view"] == {"stacks": 1, "value_exact": 1, "abstained": 0, "wrong": 0}
