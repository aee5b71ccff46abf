"""A review's zone readings kept on disk and audited again without the detector (vision/observation_log.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from vision.observation_log import ObservationLogError, RecordingObserver, read_observations, replay
from vision.review import Observation


class Scripted:
    """An observer that shows one card on seat 3 and a $25 wager from the third frame on."""

    tracks_by_position = True

    def observe(self, frame) -> Observation:
        if frame.index < 2:
            return Observation(chips={"seat3.main": 25}, card_points={}, card_marks={})
        return Observation(cards={"seat3.cards": ["7H"]}, chips={"seat3.main": 25, "seat3.payout": None},
                           card_points={"seat3.cards": [(500.0, 300.0)]},
                           card_marks={"seat3.cards": [[(480.0, 270.0), (533.0, 339.0)]]},
                           chip_stacks={"seat3.payout": [(540.0, 610.0, None)]})


def record(path, frames=12, finish=True):
    rec = RecordingObserver(Scripted(), path, {"video": "v.mp4"})
    for i in range(frames):
        rec.observe(SimpleNamespace(index=i, t_s=i / 10))
    if finish:
        rec.close(frames, frames - 1, (frames - 1) / 10)
    else:
        rec.abort()


def test_readings_read_back_are_the_readings_written(tmp_path):
    record(tmp_path / "obs.jsonl")
    log = read_observations(tmp_path / "obs.jsonl")
    assert log.header["tracks_by_position"] is True and log.header["video"] == "v.mp4"
    assert len(log.frames) == 12 and log.end["frames_read"] == 12
    frame, t_s, obs = log.frames[5]
    assert (frame, t_s, obs.cards, obs.chips) == (5, 0.5, {"seat3.cards": ["7H"]},
                                                   {"seat3.main": 25, "seat3.payout": None})
    assert obs.card_marks["seat3.cards"] == [[(480.0, 270.0), (533.0, 339.0)]]
    assert obs.chip_stacks == {"seat3.payout": [(540.0, 610.0, None)]}


def test_a_replay_gives_the_round_the_readings_show(tmp_path):
    from rules.profile import TableProfile
    from vision.rounds import RoundEngine
    from vision.tracking import ZoneTracker

    record(tmp_path / "obs.jsonl")
    tracker = ZoneTracker(["seat3.cards", "seat3.main"], rise_s=0.15, fall_s=0.6, by_position=True)
    engine = RoundEngine(TableProfile(game="blackjack", decks=6), "t", fps=10, latency_s=0.5)
    list(replay(read_observations(tmp_path / "obs.jsonl"), tracker, engine))
    assert engine.rounds[0].seats[3].dealt == ["7H"] and engine.rounds[0].seats[3].wagers == {"main": 25}


def test_a_review_cut_short_keeps_every_reading_before_the_cut(tmp_path):
    path = tmp_path / "obs.jsonl"
    record(path, finish=False)
    text = path.read_text()
    path.write_text(text[: len(text) - 20])  # the last line cut in the middle
    log = read_observations(path)
    assert log.end is None and len(log.frames) == 11


def test_a_file_that_is_not_an_observations_file_is_refused(tmp_path):
    (tmp_path / "x.jsonl").write_text('{"frame": 0}\n')
    with pytest.raises(ObservationLogError, match="not a pitwatch observations file"):
        read_observations(tmp_path / "x.jsonl")
    with pytest.raises(ObservationLogError, match="cannot read"):
        read_observations(tmp_path / "missing.jsonl")
