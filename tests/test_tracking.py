"""Per-zone tracking of cards by their place on the layout: one physical card, one card, whatever it was read as."""

from __future__ import annotations

from vision.tracking import ZoneTracker

ZONE = "seat3.cards"
HERE, THERE = (500.0, 300.0), (540.0, 320.0)


def run(frames, fall_s=0.6):
    """Feed (labels, points) per analysed frame at 10 fps; returns every change as (kind, label, previous)."""
    tracker = ZoneTracker([ZONE], rise_s=0.15, fall_s=fall_s, by_position=True)
    out = []
    for f, (labels, points) in enumerate(frames):
        for ch in tracker.update(f, f / 10, {ZONE: labels}, {}, {ZONE: points}):
            out.append((ch.kind, ch.label, ch.previous))
    return out, tracker


def test_a_card_first_seen_unreadable_then_read_is_one_card():
    frames = [(["unreadable"], [HERE])] * 2 + [(["QD"], [HERE])] * 8
    changes, _ = run(frames)
    assert [c for c in changes if c[0] == "card_arrived"] == [("card_arrived", "QD", None)]


def test_a_card_read_two_ways_is_one_card_named_by_the_vote():
    frames = [(["KC"], [HERE]), (["KH"], [HERE]), (["KC"], [HERE]), (["KC"], [HERE]), (["KH"], [HERE])] * 2
    changes, tracker = run(frames)
    assert changes == [("card_arrived", "KC", None)]
    assert tracker.state[ZONE].cards == {"KC": 1}


def test_a_misread_outvoted_later_is_reported_as_the_same_card_read_anew():
    frames = [(["5D"], [HERE])] * 3 + [(["QD"], [HERE])] * 10
    changes, _ = run(frames)
    assert changes == [("card_arrived", "5D", None), ("card_relabelled", "QD", "5D")]


def test_a_face_down_card_turned_over_in_place_is_relabelled_not_replaced():
    frames = [(["BACK"], [HERE])] * 5 + [(["9S"], [HERE])] * 6
    changes, _ = run(frames)
    assert changes == [("card_arrived", "BACK", None), ("card_relabelled", "9S", "BACK")]


def test_a_card_hidden_for_a_moment_by_the_dealers_hand_does_not_leave():
    frames = [(["7H"], [HERE])] * 4 + [([], [])] * 3 + [(["7H"], [HERE])] * 4
    changes, _ = run(frames)
    assert changes == [("card_arrived", "7H", None)]


def test_a_card_gone_longer_than_fall_s_has_left():
    frames = [(["7H"], [HERE])] * 4 + [([], [])] * 8
    changes, tracker = run(frames)
    assert changes == [("card_arrived", "7H", None), ("card_left", "7H", None)]
    assert not tracker.state[ZONE].cards


def test_two_cards_in_two_places_are_two_cards_even_when_read_alike():
    frames = [(["7H", "7H"], [HERE, THERE])] * 5
    changes, tracker = run(frames)
    assert changes == [("card_arrived", "7H", None)] * 2
    assert tracker.state[ZONE].cards == {"7H": 2}


def test_a_one_frame_flicker_makes_no_card():
    frames = [(["JS"], [HERE])] + [([], [])] * 10
    changes, _ = run(frames)
    assert changes == []


def test_a_card_whose_corner_another_card_covers_is_still_the_same_card():
    """Both corners seen, then only the top-left one once the next card is dealt over it: its point jumps 44 mm."""
    tracker = ZoneTracker([ZONE], rise_s=0.15, fall_s=0.6, by_position=True)
    tl, br, nxt = (480.0, 270.0), (533.0, 339.0), (498.0, 279.0)
    changes = []
    for f in range(12):
        if f < 5:
            cards, points, marks = ["5D"], [(506.5, 304.5)], [[tl, br]]
        else:
            cards, points, marks = ["5D", "KC"], [tl, (524.0, 314.0)], [[tl], [nxt, (551.0, 348.0)]]
        changes += tracker.update(f, f / 10, {ZONE: cards}, {}, {ZONE: points}, {ZONE: marks})
    assert [(c.kind, c.label) for c in changes] == [("card_arrived", "5D"), ("card_arrived", "KC")]


def test_something_read_in_every_other_frame_never_becomes_a_card():
    """Printed layout art read as a face-down card now and then: seen often, never steadily."""
    frames = [(["BACK"], [HERE]), ([], [])] * 10
    changes, _ = run(frames)
    assert changes == []


def test_a_card_read_as_two_cards_in_one_frame_stays_one_card():
    """Its corners not grouped in one frame (two readings), after frames that showed both on one card."""
    tl, br = (480.0, 270.0), (533.0, 339.0)
    tracker = ZoneTracker([ZONE], rise_s=0.15, fall_s=0.6, by_position=True)
    changes = []
    for f in range(10):
        if f < 5 or f > 6:
            cards, points, marks = ["8H"], [(506.5, 304.5)], [[tl, br]]
        else:
            cards, points, marks = ["8H", "8H"], [tl, br], [[tl], [br]]
        changes += tracker.update(f, f / 10, {ZONE: cards}, {}, {ZONE: points}, {ZONE: marks})
    assert [(c.kind, c.label) for c in changes] == [("card_arrived", "8H")]
