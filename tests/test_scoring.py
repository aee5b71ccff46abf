"""Scoring a review against its truth (`pitwatch eval review`)."""

import pytest

from vision.scoring import score_video, summarise


def _report(up, seats, alerts=()):
    return {"rounds": [{"index": 0, "start_s": 1.0, "end_s": 9.0, "dealer": {"up": up, "cards": [up]},
                        "seats": seats, "alerts": list(alerts)}]}


TRUTH = _report("KH", [{"seat": 3, "cards": ["10S", "7C"], "hits": [], "wagers": {"main": 25}}])


def test_a_round_read_exactly_is_right():
    s = summarise([score_video(TRUTH, TRUTH)])
    assert s["round_accuracy"] == 1.0 and s["seat_first_two_accuracy"] == 1.0 and s["seat_wagers_accuracy"] == 1.0


def test_a_wager_the_camera_could_not_value_scores_as_wrong_not_as_a_crash():
    got = _report("KH", [{"seat": 3, "cards": ["10S", "7C"], "hits": [], "wagers": {"main": None}}])
    s = summarise([score_video(TRUTH, got)])
    assert s["round_accuracy"] == 0.0
    assert s["up_card_accuracy"] == 1.0 and s["seat_first_two_accuracy"] == 1.0 and s["seat_wagers_accuracy"] == 0.0


def test_a_switch_hands_pair_is_scored_as_a_hand_whatever_order_it_was_turned_in():
    from vision.scoring import _hand

    assert _hand(["KH", "8C"]) == _hand(["8C", "KH"]) and _hand(None) is None


def test_replaying_kept_readings_needs_the_folder_they_were_kept_in():
    from typer.testing import CliRunner

    from api.cli import app

    res = CliRunner().invoke(app, ["eval", "review", "--seeds", "1", "--replay"])
    assert res.exit_code != 0 and "--replay needs --keep" in str(res.exception)


def test_replaying_kept_readings_refuses_another_reader_which_would_need_the_videos_read_again(tmp_path):
    from typer.testing import CliRunner

    from api.cli import app
    from vision.card_reader import FP32_READER

    if not FP32_READER.is_file():
        pytest.skip("committed models/card_reader.onnx absent")
    res = CliRunner().invoke(app, ["eval", "review", "--seeds", "1", "--replay", "--keep", str(tmp_path),
                                   "--reader", str(FP32_READER)])
    assert res.exit_code != 0 and "need the videos read again" in str(res.exception)


def test_a_round_whose_only_difference_is_a_wager_reported_unvalued_is_right_or_unvalued_not_right():
    got = _report("KH", [{"seat": 3, "cards": ["10S", "7C"], "hits": [], "wagers": {"main": None}}])
    s = summarise([score_video(TRUTH, got)])
    assert s["rounds_right"] == 0 and s["rounds_right_or_unvalued"] == 1


def test_a_wager_valued_wrong_is_neither():
    got = _report("KH", [{"seat": 3, "cards": ["10S", "7C"], "hits": [], "wagers": {"main": 20}}])
    s = summarise([score_video(TRUTH, got)])
    assert s["rounds_right"] == 0 and s["rounds_right_or_unvalued"] == 0
