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


def feed(frames):
    """Feed (labels, marks) per analysed frame at 10 fps, each card's point its first mark; returns the changes."""
    tracker = ZoneTracker([ZONE], rise_s=0.15, fall_s=0.6, by_position=True)
    out = []
    for f, (labels, marks) in enumerate(frames):
        points = [m[0] for m in marks]
        out += [(c.kind, c.label) for c in tracker.update(f, f / 10, {ZONE: labels}, {}, {ZONE: points},
                                                          {ZONE: marks})]
    return out


def test_a_card_still_sliding_into_place_is_one_card():
    """Read where it lands, then 15-30 mm further on in the next frames (further than a card is matched)."""
    frames = [(["QS"], [[(1112.0, 516.0)]]), (["QS"], [[(1098.0, 530.0)]]), (["QS"], [[(1085.0, 545.0)]])]
    frames += [(["QS"], [[(1058.0, 516.0), (1117.0, 563.0)]])] * 8
    assert feed(frames) == [("card_arrived", "QS")]


def test_two_corners_of_a_new_card_read_as_two_cards_are_one_card():
    """In its first frames its two corner indices, 80 mm apart, are not grouped and read differently."""
    tl, br = (1253.0, 450.0), (1334.0, 473.0)
    frames = [(["QS", "QC"], [[tl], [br]])] * 3 + [(["QS"], [[tl, br]])] * 6
    assert feed(frames) == [("card_arrived", "QS")]


def test_a_corner_half_covered_by_the_next_card_and_misread_is_not_a_card():
    """The 5D's upper corner, under the KC dealt over it, reads KH 3 mm from where it always lay."""
    tl, br = (1253.0, 425.0), (1334.0, 446.0)
    kc = [(1255.0, 451.0), (1334.0, 473.0)]
    frames = [(["5D"], [[tl, br]])] * 6 + [(["KH", "5D", "KC"], [[(1251.0, 423.0)], [(1335.0, 448.0)], kc])] * 30
    assert feed(frames) == [("card_arrived", "5D"), ("card_arrived", "KC")]


def test_an_index_read_on_a_court_cards_picture_is_not_a_card():
    tl, br = (1058.0, 516.0), (1117.0, 563.0)
    frames = [(["QS"], [[tl, br]])] * 4 + [(["QS", "QC"], [[tl, br], [(1083.0, 518.0)]])] * 10
    assert feed(frames) == [("card_arrived", "QS")]


def test_an_index_of_the_other_colour_on_a_cards_face_is_the_next_card_dealt_over_it():
    """Seed 7124: the JS dealt over the 7H, its index on the 7H's face; the 7H's face shows only hearts."""
    corners = [(1118.8, 566.6), (1054.0, 511.2)]
    frames = [(["7H"], [corners])] * 4 + [(["JS", "7H"], [[(1044.2, 536.3)], corners])] * 10
    assert feed(frames) == [("card_arrived", "7H"), ("card_arrived", "JS")]


def test_a_face_down_card_partly_covered_by_a_card_dealt_over_it_stays_one_card():
    """Its box centre, the visible part's, moves 13 mm when the face-up card lands over it (Switch Hands)."""
    frames = [(["BACK"], [[(1170.0, 589.0)]])] * 6 + [(["BACK", "5H"], [[(1175.0, 601.0)], [(1175.0, 497.0)]])] * 10
    assert feed(frames) == [("card_arrived", "BACK"), ("card_arrived", "5H")]


def test_a_second_face_down_card_squared_on_the_first_is_seen_as_its_step_2b_6_d():
    """4K seed 7169 r2: the box centre of seat 3's only card, face down, stepped 12 mm a pass after it was dealt
    and stayed there: Switch Hands' second face-down card laid on the first."""
    frames = [(["BACK"], [[(1177.0, 585.0)]])] * 6 + [(["BACK"], [[(1173.0, 596.0)]])] * 6
    assert feed(frames) == [("card_arrived", "BACK"), ("card_squared", "BACK")]


def test_switch_hands_pair_turned_face_up_squared_shows_two_cards_at_opposite_corners_2b_6_f():
    """4K seed 7238 r1: the face-down pair kept, squared, turned face up where it lay: the 9D's index at one corner
    and the KS's at the opposite one, a card's diagonal apart, each read every frame. Two cards, not one card's two
    corners voting 9D against KS."""
    frames = [(["BACK"], [[(1177.0, 585.0)]])] * 6 + [(["BACK"], [[(1169.0, 597.0)]])] * 6
    frames += [(["9D"], [[(1209.0, 605.0)]])] * 2 + [(["KS", "9D"], [[(1131.0, 578.0)], [(1209.0, 605.0)]])] * 10
    changes = [c for c in feed(frames) if c[0] == "card_arrived"]
    assert changes == [("card_arrived", "BACK"), ("card_arrived", "9D"), ("card_arrived", "KS")]


def test_a_face_a_cards_diagonal_from_a_face_down_card_read_in_the_same_frame_is_a_card_of_its_own_2b_6_e():
    """4K seed 7202 r0, Switch Hands: the face-down pair, hidden under the 6C, shows again in the frame the JS is laid
    over the 6C; the JS's corner lies 68 mm from the pair's box centre. A face-down card has no index corner for
    the JS to be, so the JS is dealt."""
    six = [(1208.7, 514.0), (1140.1, 477.0)]
    frames = [(["6C"], [six])] * 6
    frames += [(["BACK", "JS", "6C"], [[(1169.8, 598.1)], [(1201.5, 537.7), (1131.3, 500.6)], [six[0]]])] * 10
    assert feed(frames) == [("card_arrived", "6C"), ("card_arrived", "BACK"), ("card_arrived", "JS")]


def test_the_hole_card_turned_over_where_it_lay_is_relabelled_not_a_second_card():
    """4K seed 7313 r0: the dealer's hole card, face down, is turned over 0.3 s after it was dealt: its top corner
    reads ``unreadable`` 24 mm from the card back's centre, and its face at the opposite corner, 78 mm off."""
    frames = [(["BACK"], [[(895.9, 244.8)]])] * 3
    frames += [(["unreadable", "KS"], [[(902.6, 221.5)], [(952.9, 281.3)]])] * 3
    frames += [(["KS"], [[(901.8, 218.0), (953.3, 281.1)]])] * 6
    changes = feed(frames)
    assert ("card_arrived", "KS") not in changes
    assert changes[-1] == ("card_relabelled", "KS")


def test_the_face_down_card_left_when_its_pair_is_turned_over_is_not_taken_for_the_turned_card_2b_6_f():
    """4K seed 7177 r0, Switch Hands: of the face-down pair kept, the 2H is turned over beside the 8C, whose box
    centre, uncovered, lies 34 mm from where the pair's did, then the 8C too. A card dealt face up is not turned
    face down: the face-down reading is the 8C, and the 8C is dealt."""
    frames = [(["BACK"], [[(693.6, 583.4)]])] * 8 + [([], [])] * 2
    frames += [(["2H"], [[(723.7, 620.5)]])] * 3 + [(["BACK"], [[(684.6, 616.0)]])] * 3
    frames += [(["2H", "8C"], [[(724.4, 620.8), (678.2, 551.0)], [(703.6, 632.1), (678.9, 546.0)]])] * 10
    changes = feed(frames)
    assert ("card_relabelled", "8C") in changes or ("card_arrived", "8C") in changes
    assert changes.count(("card_arrived", "2H")) == 1


def test_a_face_down_card_that_flickers_in_place_is_not_a_second_card():
    frames = ([(["BACK"], [[(1177.0, 585.0)]])] * 6 + [(["BACK"], [[(1173.0, 596.0)]])]
              + [(["BACK"], [[(1177.0, 585.0)]])] * 6)
    assert feed(frames) == [("card_arrived", "BACK")]


def test_the_last_cards_picked_up_leave_even_when_frames_with_no_card_come_without_positions():
    """A detector frame with no card anywhere has no positions to give: the zone still empties."""
    tracker = ZoneTracker([ZONE], rise_s=0.15, fall_s=0.6, by_position=True)
    changes = []
    for f in range(20):
        if f < 6:
            changes += tracker.update(f, f / 10, {ZONE: ["7H"]}, {}, {ZONE: [HERE]})
        else:
            changes += tracker.update(f, f / 10, {}, {}, None)
    assert [(c.kind, c.label) for c in changes] == [("card_arrived", "7H"), ("card_left", "7H")]


def test_a_stack_that_cannot_be_valued_hidden_for_a_moment_has_not_gone():
    """Unvalued (None) to nothing is a departure: it waits fall_s like any other, not rise_s."""
    tracker = ZoneTracker(["seat2.main"], rise_s=0.15, fall_s=0.6)
    frames = [{"seat2.main": None}] * 6 + [{}] * 4 + [{"seat2.main": None}] * 6
    changes = [c for f, chips in enumerate(frames) for c in tracker.update(f, f / 10, {}, chips)]
    assert [(c.before, c.after) for c in changes] == [(0, None)]


def test_a_stack_misread_higher_for_a_moment_is_read_back_as_quickly_as_it_rose():
    """A $30 wager read as one $1,000 chip for 0.3 s under the dealer's arm (4K seed 7174 r1): the fall back to
    $30 undoes a rise begun under fall_s before, so it is confirmed after rise_s, not fall_s."""
    tracker = ZoneTracker(["seat3.main"], rise_s=0.15, fall_s=0.6)
    frames = [{"seat3.main": 30}] * 5 + [{"seat3.main": 1000}] * 3 + [{"seat3.main": 30}] * 10
    changes = [(f, c) for f, chips in enumerate(frames) for c in tracker.update(f, f / 10, {}, chips)]
    assert [(c.before, c.after, c.frame, f) for f, c in changes] == [(0, 30, 0, 2), (30, 1000, 5, 7), (1000, 30, 8, 10)]


def test_an_unvalued_stack_read_lower_for_a_moment_is_read_unvalued_again_as_quickly():
    """1080p seed 7050 r1: an unvalued $150 wager read $75 for 0.3 s as a payout was set beside it; the fall back to
    unvalued undoes that rise and is confirmed after rise_s."""
    tracker = ZoneTracker(["seat2.main"], rise_s=0.15, fall_s=0.6)
    frames = [{"seat2.main": None}] * 5 + [{"seat2.main": 75}] * 3 + [{"seat2.main": None}] * 10
    changes = [(f, c) for f, chips in enumerate(frames) for c in tracker.update(f, f / 10, {}, chips)]
    assert [(c.before, c.after, c.frame, f) for f, c in changes] == [(0, None, 0, 2), (None, 75, 5, 7), (75, None, 8, 10)]


def test_a_payout_the_wagers_misread_value_set_beside_an_unvalued_wager_stays_a_payout():
    """4K seed 7238 r1: an unvalued $150 wager read $75 for 0.3 s as a $75 payout was set beside it; the spot still
    shows its stack, so the payout is not the wager moved into the payout area."""
    tracker = ZoneTracker(["seat3.main", "seat3.payout"], rise_s=0.15, fall_s=0.6)
    frames = ([{"seat3.main": None}] * 5 + [{"seat3.main": 75, "seat3.payout": None}] * 3
              + [{"seat3.main": None, "seat3.payout": 75}] * 10)
    changes = [c for f, chips in enumerate(frames) for c in tracker.update(f, f / 10, {}, chips)]
    assert tracker.state["seat3.main"].chips is None and tracker.state["seat3.payout"].chips == 75
    assert [(c.zone, c.before, c.after) for c in changes if c.zone == "seat3.main"][-1] == ("seat3.main", 75, None)


def test_a_wager_seen_in_the_payout_area_as_its_spot_empties_is_kept_on_its_spot():
    """A stack boxed loosely, its base found beside the spot: the same value gone from the spot and new beside it."""
    tracker = ZoneTracker(["seat3.main", "seat3.payout"], rise_s=0.15, fall_s=0.6)
    frames = [{"seat3.main": 40}] * 5 + [{"seat3.payout": 40}] * 3 + [{"seat3.main": 40}] * 3
    for f, chips in enumerate(frames):
        tracker.update(f, f / 10, {}, chips)
    assert tracker.state["seat3.main"].chips == 40 and tracker.state["seat3.payout"].chips == 0


def test_a_payout_read_high_for_a_moment_settles_as_quickly_as_it_rose():
    """4K seed 7256 r1: $225 paid, read $267 for 0.3 s as $17 more was set beside it, then $242: the fall part of the
    way back undoes an overshoot, confirmed after rise_s like the rise, so the round engine sees both together."""
    tracker = ZoneTracker(["seat5.payout"], rise_s=0.15, fall_s=0.6)
    frames = [{"seat5.payout": 225}] * 5 + [{"seat5.payout": 267}] * 3 + [{"seat5.payout": 242}] * 10
    changes = [(f, c) for f, chips in enumerate(frames) for c in tracker.update(f, f / 10, {}, chips)]
    assert [(c.before, c.after, f) for f, c in changes] == [(0, 225, 2), (225, 267, 7), (267, 242, 10)]


def test_a_payout_first_valued_high_for_a_moment_settles_as_quickly_as_it_rose():
    """4K seed 7299 r0: a payout stack unvalued for 7 s, read $155 for 0.3 s as the dealer's hand left it, then $150:
    a fall to a value held OVERSHOOT_HOLD_S, from a reading first valued where it was unvalued, is that rise
    overshooting too, confirmed before fall_s, so the round engine sees the $150 before it counts the $155 (a false
    `mtd_overpaid` otherwise)."""
    tracker = ZoneTracker(["seat1.payout"], rise_s=0.15, fall_s=0.6)
    frames = [{"seat1.payout": None}] * 5 + [{"seat1.payout": 155}] * 3 + [{"seat1.payout": 150}] * 10
    changes = [(f, c) for f, chips in enumerate(frames) for c in tracker.update(f, f / 10, {}, chips)]
    assert [(c.before, c.after, f) for f, c in changes] == [(0, None, 2), (None, 155, 7), (155, 150, 11)]


def test_a_stack_taken_soon_after_it_was_placed_still_waits_fall_s():
    """Only a fall back to the value before the rise is quick: a wager placed and then gone waits fall_s."""
    tracker = ZoneTracker(["seat3.main"], rise_s=0.15, fall_s=0.6)
    frames = [{"seat3.main": 30}] * 5 + [{"seat3.main": 10}] * 10
    changes = [(f, c) for f, chips in enumerate(frames) for c in tracker.update(f, f / 10, {}, chips)]
    assert [(c.before, c.after, f) for f, c in changes] == [(0, 30, 2), (30, 10, 11)]


def test_printed_art_read_once_as_a_card_stays_unreadable():
    """Layout text read unreadable frame after frame, and once as 5H while a card passed over it."""
    frames = [(["unreadable"], [HERE])] * 8 + [(["5H"], [HERE])] + [(["unreadable"], [HERE])] * 20
    changes, tracker = run(frames)
    assert [c for c in changes if c[0] == "card_relabelled"] == []
    assert tracker.state[ZONE].cards == {"unreadable": 1}


NEXT = (522.0, 303.0)  # the next card's index, 22 mm off: it lies over part of the first card's index


def test_a_card_read_in_the_clear_keeps_its_face_once_another_card_covers_its_index():
    """Seed 7125 at 4K: an AD read for 2 s, then an 8C dealt over it; the AD's half-hidden index reads 4D."""
    frames = [(["AD"], [HERE])] * 20 + [(["8C", "4D"], [NEXT, HERE])] * 40
    changes, _ = run(frames)
    assert changes == [("card_arrived", "AD", None), ("card_arrived", "8C", None)]


def test_a_card_misread_as_it_landed_is_still_read_anew_after_another_covers_it():
    frames = [(["8C"], [HERE])] * 4 + [(["6C", "5D"], [HERE, NEXT])] * 40
    changes, _ = run(frames)
    assert ("card_relabelled", "6C", "8C") in changes


def test_a_card_read_alike_briefly_is_not_read_as_the_other_colour_once_a_card_lies_beside_it():
    """4K seed 7170 r0: a 6D read 6D in its 5 frames alone, then 6S for seconds once the 10S beside it showed; too
    few readings for its face to stand, but a suit of the other colour is the neighbour's ink, not its own."""
    frames = [(["6D"], [HERE])] * 5 + [(["6S", "10S"], [HERE, NEXT])] * 40
    changes, tracker = run(frames)
    assert changes == [("card_arrived", "6D", None), ("card_arrived", "10S", None)]


def test_a_card_reported_unreadable_is_not_named_by_a_vote_its_readings_split():
    """4K seed 7193 r1: an 8S unreadable for seconds, read 8S twice and then QS three times as the dealer's hand
    swept it up: two faces read nearly as often are a guess, and the card stays unreadable."""
    frames = [(["unreadable"], [HERE])] * 8 + [(["8S"], [HERE])] * 2 + [(["unreadable"], [HERE])] * 5 + \
        [(["QS"], [HERE])] * 3 + [(["unreadable"], [HERE])] * 10
    changes, tracker = run(frames)
    assert changes == [("card_arrived", "unreadable", None)]


def test_the_next_cards_index_laid_beside_a_cards_corner_is_a_card_not_its_print():
    """4K seed 7224 r1: a 5C whose two indices are both in view; the 2S dealt beside it has its index 28 mm from the
    5C's upper one, 0.89 of the way along the 5C's diagonal: that is a card of its own, not a pip read as an index."""
    five = [(1208.6, 514.4), (1138.9, 472.2)]
    two = (1132.5, 499.3)
    frames = [(["5C"], [(1175.8, 496.4)], [five])] * 6 + [(["5C", "2S"], [(1175.8, 496.4), two], [five, [two]])] * 8
    tracker = ZoneTracker([ZONE], rise_s=0.15, fall_s=0.6, by_position=True)
    changes = [(c.kind, c.label) for f, (labels, points, marks) in enumerate(frames)
               for c in tracker.update(f, f / 10, {ZONE: labels}, {}, {ZONE: points}, {ZONE: marks})]
    assert changes == [("card_arrived", "5C"), ("card_arrived", "2S")]


def test_a_card_read_alike_in_every_frame_before_another_covers_it_keeps_its_face():
    """1080p seed 7006: a 7H read 7H in each of its 10 analysed frames, then the 9S dealt over it; its half-hidden
    index read JH for 1.8 s. Ten readings that agree stand as fifteen do."""
    frames = [(["7H"], [HERE])] * 10 + [(["9S", "JH"], [NEXT, HERE])] * 40
    changes, _ = run(frames)
    assert changes == [("card_arrived", "7H", None), ("card_arrived", "9S", None)]


def test_a_card_covered_before_it_is_confirmed_keeps_the_face_it_showed_in_the_clear():
    """4K seed 7116 r2 (Switch Hands): the face-down pair turned over, the AH read AH in the 3 analysed frames
    before the 7S was spread over its index, then 4H for 4 s."""
    frames = [(["AH"], [HERE])] * 3 + [(["7S", "4H"], [NEXT, HERE])] * 40
    changes, _ = run(frames)
    assert changes == [("card_arrived", "AH", None), ("card_arrived", "7S", None)]


def test_a_card_read_two_ways_before_it_is_confirmed_and_covered_is_read_by_the_vote():
    frames = [(["AH"], [HERE]), (["4H"], [HERE]), (["AH"], [HERE])] + [(["7S", "4H"], [NEXT, HERE])] * 40
    changes, _ = run(frames)
    assert changes[-1] == ("card_relabelled", "4H", "AH") or ("card_arrived", "4H", None) in changes


def test_a_card_read_two_ways_before_another_covers_it_is_still_read_anew():
    frames = ([(["8C"], [HERE])] * 6 + [(["6C"], [HERE])] * 4) + [(["6C", "5D"], [HERE, NEXT])] * 40
    changes, _ = run(frames)
    assert ("card_relabelled", "6C", "8C") in changes


def test_a_cards_other_corner_set_aside_on_the_card_under_it_since_it_came_is_that_card():
    """Seed 7119 at 4K: the 7C dealt over the 7D; its top-left index, on the 7D's face, read unreadable and set aside
    as print from the moment the 7C came, then read 7C while a hand hid the 7C's other corner: not a hit."""
    seven_d = [(945.0, 517.0), (996.0, 583.0)]
    frames = [(["7D"], [seven_d])] * 10
    frames += [(["7D", "7C", "unreadable"], [seven_d, [(982.0, 609.0)], [(932.0, 549.0)]])] * 14
    frames += [(["7D", "7C"], [seven_d, [(932.0, 549.0)]])] * 10
    assert feed(frames) == [("card_arrived", "7D"), ("card_arrived", "7C")]


def test_a_card_of_the_same_identity_dealt_later_a_diagonal_away_is_another_card():
    """Seed 7115 at 4K: a second 3D laid 72 mm from the seat's first, seconds later, is a hit."""
    first = [(1000.0, 500.0), (1050.0, 566.0)]
    frames = [(["3D"], [first])] * 30
    frames += [(["3D", "unreadable"], [first, [(1020.0, 530.0)]])] * 3  # the hit sliding in over the first 3D
    frames += [(["3D", "3D"], [first, [(1072.0, 500.0)]])] * 10
    assert feed(frames) == [("card_arrived", "3D"), ("card_arrived", "3D")]


def test_a_card_dealt_over_another_with_an_index_on_its_corner_is_dealt():
    """Seed 7019 at 1080p: the 2H laid over the 7C is grouped with the 7C's lower corner (its three marks), while
    the 7C is read as itself at its upper corner; the 2H is a card of its own, not a second look at the 7C."""
    c7 = [(638.6, 422.4), (645.1, 499.0)]
    frames = [(["7C", "unreadable"], [[c7[0]], [c7[1]]])] * 9
    frames += [(["2H", "7C"], [[(616.5, 428.1), (645.3, 498.9), (619.5, 510.3)], [(639.7, 419.6)]])] * 20
    assert feed(frames) == [("card_arrived", "7C"), ("card_arrived", "2H")]


def test_a_court_cards_picture_misread_beside_its_index_is_still_that_card():
    """Seed 7012 at 1080p: a QS with marks on its picture; a reading QD on one of them and one more picture mark
    (not a card's two corners) is the queen's art, while the QS is read at its corners."""
    qs = [(1303.0, 382.0), (1390.0, 395.0), (1324.0, 366.0), (1356.0, 423.0)]
    frames = [(["QS"], [qs])] * 3 + [(["QS", "QD"], [[qs[0], qs[1]], [(1355.0, 422.0), (1337.0, 354.0)]])] * 20
    assert feed(frames) == [("card_arrived", "QS")]


def test_a_card_dealt_over_the_corners_of_two_cards_is_dealt():
    """Its reading lies on a corner of each card under it; both are read as themselves at their other corners."""
    c7, d9 = [(600.0, 400.0), (660.0, 465.0)], [(760.0, 400.0), (820.0, 465.0)]
    new = [(700.0, 480.0), (760.0, 545.0), (661.0, 466.0), (821.0, 466.0)]
    frames = [(["7C", "9D"], [c7, d9])] * 9 + [(["2H", "7C", "9D"], [new, [c7[0]], [d9[0]]])] * 20
    assert feed(frames) == [("card_arrived", "7C"), ("card_arrived", "9D"), ("card_arrived", "2H")]


def test_a_card_whose_corners_are_known_does_not_take_the_next_cards_corner():
    """Seed 7001 at 1080p: for one frame the grouping read the QD with the corner of the KC dealt over it, 27 mm from
    the QD's own; the QD's two corners, a diagonal apart, were known, so that mark is not the QD's and the KC,
    read at that corner from then on, is dealt."""
    qd = [(1333.0, 447.0), (1255.0, 426.0), (1297.0, 442.0)]
    frames = [(["QD"], [qd])] * 20
    frames += [(["QD", "unreadable", "KC"], [qd, [(1285.0, 373.0)], [(1325.0, 385.0)]])] * 2
    frames += [(["QD", "KC"], [[(1333.0, 448.0), (1256.0, 453.0), (1254.0, 424.0), (1279.0, 414.0)],
                               [(1325.0, 385.0), (1332.0, 471.0)]])]
    frames += [(["QD", "KC"], [[(1333.0, 448.0), (1254.0, 424.0), (1279.0, 414.0)],
                               [(1256.0, 453.0), (1332.0, 471.0)]])] * 20
    assert feed(frames) == [("card_arrived", "QD"), ("card_arrived", "KC")]


def test_a_hits_corner_misread_beside_a_pair_turned_long_ago_is_no_second_card():
    """Switch Hands, the squared face-down pair kept and turned (9D read in place), then a QH hit laid over it whose
    far corner reads 6H for 0.5 s: no face-down pair lies there any more, so the 6H is the QH's corner."""
    p, a, b = (1169.0, 597.0), (1235.0, 655.0), (1160.0, 630.0)
    frames = [(["BACK"], [(1177.0, 585.0)])] * 6 + [(["BACK"], [p])] * 6 + [(["9D"], [p])] * 10
    frames += [(["9D", "QH"], [p, a])] + [(["9D", "QH", "6H"], [p, a, b])] * 5 + [(["9D", "QH"], [p, a])] * 10
    changes, _ = run(frames)
    assert [c for c in changes if c[0] == "card_arrived"] == [("card_arrived", "BACK", None),
                                                                 ("card_arrived", "QH", None)]


def test_an_index_boxed_twice_and_misread_does_not_outvote_the_card_both_ends_read():
    """4K seed 7274 r0: a JD read at both corners, its top index also boxed a second time 8 mm off and read 7D;
    then the JD's top index boxed twice 9 mm apart, both boxes 7D, its bottom one JD: the card is the JD."""
    top, top2, bottom = (946.9, 523.5), (945.8, 515.1), (997.9, 588.8)
    frames = [(["7D", "JD"], [[top2], [bottom, top]])] * 5 + [(["7D", "7D", "JD"], [[top2], [top], [bottom]])] * 14
    frames += [(["JD"], [[bottom, top]])] * 5
    assert feed(frames) == [("card_arrived", "JD")]


def test_a_one_corner_reading_beside_a_card_read_at_two_corners_is_still_a_card_of_its_own():
    """A card fanned beside the JD lies with its index 18 mm from the JD's top index: a card, not a second box."""
    top, bottom = (946.9, 523.5), (997.9, 588.8)
    frames = [(["JD"], [[bottom, top]])] * 5 + [(["JD", "5H"], [[bottom, top], [(935.8, 509.3)]])] * 10
    assert feed(frames) == [("card_arrived", "JD"), ("card_arrived", "5H")]
