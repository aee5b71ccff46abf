"""Payout stacks followed one by one by their base on the layout (vision.stack_tracking)."""

from vision.stack_tracking import STACK_GONE_S, STACK_MATCH_MM, PayoutStackTracker

ZONE = "seat3.payout"
FRONT, BEHIND = (500.0, 650.0), (500.0, 610.0)  # two stacks touching: 40 mm apart, a chip's width
GONE = int(STACK_GONE_S * 10) + 1  # analysed frames (10 a second) a stack must be unseen to be gone


def _feed(frames, rise_s=0.3, fall_s=0.6):
    """``frames``: per analysed frame (10 a second), the stacks seen: [(position, value), ...]."""
    tracker, out = PayoutStackTracker(rise_s, fall_s), []
    for f, stacks in enumerate(frames + [[]] * GONE):
        out += tracker.update(ZONE, f, f / 10, [(x, y, v) for (x, y), v in stacks])
    return out


def _left(out):
    return [(c.after, c.since_t_s, c.t_s) for c in out if c.kind == "stack_left"]


def test_a_stack_read_wrong_beside_another_and_right_alone_leaves_at_the_value_it_was_read_last():
    """4K seed 7234 r1: the $99 bonus payout behind the $225 read $149 while stage 1 missed the $225, unvalued
    when it showed again, $99 once the $225 was taken."""
    frames = ([[(FRONT, 225)]] * 5 + [[(FRONT, 225), (BEHIND, None)]] * 10 + [[(BEHIND, 149)]] * 3
              + [[(FRONT, 225), (BEHIND, None)]] * 4 + [[(BEHIND, 99)]] * 4)
    assert _left(_feed(frames)) == [(225, 0.0, 2.1), (99, 0.5, 2.5)]


def test_a_stack_read_unvalued_last_leaves_unvalued():
    frames = [[(BEHIND, 99)]] * 4 + [[(BEHIND, None)]] * 3
    assert _left(_feed(frames)) == [(None, 0.0, 0.6)]


def test_a_value_read_for_less_than_rise_s_is_not_the_stacks_value():
    frames = [[(BEHIND, None)]] * 3 + [[(BEHIND, 99)]] * 3
    assert _left(_feed(frames)) == [(None, 0.0, 0.5)]


def test_a_stack_read_lower_for_less_than_fall_s_as_a_hand_comes_over_it_leaves_at_its_value_before():
    frames = [[(BEHIND, 15)]] * 20 + [[(BEHIND, 10)]] * 3
    assert [after for after, _, _ in _left(_feed(frames))] == [15]


def test_a_stack_hidden_by_an_arm_for_a_second_is_not_gone():
    frames = [[(BEHIND, None)]] * 4 + [[]] * 10 + [[(BEHIND, 14)]] * 4
    assert [(c.kind, c.after) for c in _feed(frames)] == [("stack_seen", None), ("stack_left", 14)]


def test_a_stack_seen_again_where_it_stood_after_it_was_reported_gone_is_the_same_stack_seen_again():
    moved = (FRONT[0] + STACK_MATCH_MM - 5, FRONT[1])
    out = _feed([[(FRONT, 75)]] * 4 + [[]] * 40 + [[(moved, 75)]] * 4)
    assert [c.kind for c in out] == ["stack_seen", "stack_left", "stack_seen", "stack_left"]
    assert {(c.stack, c.since_t_s) for c in out} == {(0, 0.0)}


def test_two_stacks_a_chips_width_apart_are_two_stacks():
    out = _feed([[(FRONT, 75), (BEHIND, 15)]] * 4)
    assert sorted(after for after, _, _ in _left(out)) == [15, 75]
    assert len({c.stack for c in out}) == 2


def _totals(frames):
    """``frames``: per analysed frame (10 a second), the stacks seen [(position, value), ...]; the detector's total
    is their sum (``None`` where one is unvalued). Returns the area's total per frame as corrected."""
    from vision.stack_tracking import HiddenPayoutStacks

    hidden, out = HiddenPayoutStacks(), []
    for f, stacks in enumerate(frames):
        values = [v for _, v in stacks]
        total = None if None in values else float(sum(values))
        out.append(hidden.total(ZONE, f / 10, total, [(x, y, v) for (x, y), v in stacks]))
    return out


def test_a_payout_lost_as_the_next_is_set_down_touching_it_still_counts():
    """4K seed 7261 r1: the $75 main payout lost as the $17 bonus payout was set down in front of it (stage 1
    boxed the two as one): the area holds $92, not $17."""
    totals = _totals([[(BEHIND, 75)]] * 8 + [[(FRONT, 17)]] * 8)
    assert totals[8:13] == [17.0] * 5 and totals[13:] == [92.0] * 3  # once the $17 read the same for 0.5 s


def test_a_payout_read_lower_beside_the_next_one_set_down_touching_it_keeps_its_value():
    """4K seed 7324 r1: a $30 payout read $5 once the $14 was set down in front of it: $44 in all."""
    assert _totals([[(BEHIND, 30)]] * 8 + [[(BEHIND, 5), (FRONT, 14)]] * 8)[-3:] == [44.0] * 3


def test_a_payout_boxed_anew_a_little_off_is_not_counted_twice():
    moved = (BEHIND[0], BEHIND[1] + STACK_MATCH_MM + 2)  # beyond matching, nearer than another stack stands
    assert _totals([[(BEHIND, 75)]] * 8 + [[(moved, 75)]] * 8)[-3:] == [75.0] * 3


def test_a_payout_read_only_a_moment_is_not_kept():
    assert _totals([[(BEHIND, 75)]] * 3 + [[(FRONT, 17)]] * 8)[-3:] == [17.0] * 3


def test_a_hidden_payout_is_no_longer_counted_once_the_stack_in_front_of_it_is_taken():
    totals = _totals([[(BEHIND, 75)]] * 8 + [[(FRONT, 17)]] * 8 + [[]] * 3)
    assert totals[-4] == 92.0 and totals[-1] == 0.0


def test_a_payout_drawn_across_the_area_by_its_player_is_not_counted_twice():
    """The $75 drawn 40 mm towards the player (a new stack for the tracker, read $75 where it now stands)."""
    assert _totals([[(BEHIND, 75)]] * 8 + [[(FRONT, 75)]] * 8)[-3:] == [75.0] * 3


def test_a_payout_drawn_and_misread_under_the_players_hand_for_a_moment_is_not_counted_twice():
    """Read $70 for 0.3 s where it now stands, then $75: the same stack."""
    totals = _totals([[(BEHIND, 75)]] * 8 + [[(FRONT, 70)]] * 3 + [[(FRONT, 75)]] * 8)
    assert max(totals) == 75.0


def test_a_payout_boxed_loosely_off_its_base_for_a_moment_is_not_counted_twice():
    off = (BEHIND[0], BEHIND[1] + 35.0)  # the dealer's hand in the box, its top chips under it: $70
    totals = _totals([[(BEHIND, 75)]] * 8 + [[(off, 70)]] * 3 + [[(BEHIND, 75)]] * 8)
    assert max(totals) == 75.0


def test_a_payout_cut_into_two_stacks_is_not_counted_twice():
    """The dealer cuts the $75 into $50 and $25 side by side: the area still holds $75."""
    beside = (BEHIND[0] + 40.0, BEHIND[1])
    assert max(_totals([[(BEHIND, 75)]] * 8 + [[(BEHIND, 50), (beside, 25)]] * 8)) == 75.0


def test_two_payouts_coloured_up_into_one_stack_are_not_counted_again():
    """$50 and $25 replaced by one $75 stack set in front of them."""
    beside = (BEHIND[0] + 40.0, BEHIND[1])
    assert max(_totals([[(BEHIND, 50), (beside, 25)]] * 8 + [[(FRONT, 75)]] * 8)) == 75.0


def test_a_wager_drawn_into_the_payout_area_as_the_payout_is_taken_is_not_a_payout_in_front_of_it():
    """The player takes the $75 and, in the same moment, draws his $50 main wager off its spot beside where it
    stood: the area holds $50 (vision.tracking feeds the wagers gone from the seat's spots)."""
    from vision.tracking import ZoneTracker

    tracker = ZoneTracker([ZONE, "seat3.main"], rise_s=0.15, fall_s=0.6)
    frames = [([(BEHIND, 75)], 50)] * 8 + [([(FRONT, 50)], 0)] * 10
    for f, (stacks, main) in enumerate(frames):
        tracker.update(f, f / 10, {}, {ZONE: sum(v for _, v in stacks), "seat3.main": main},
                       chip_stacks={ZONE: [(x, y, v) for (x, y), v in stacks]})
    assert tracker.state[ZONE].chips == 50


def test_a_hidden_payout_is_forgotten_while_its_area_is_seen_empty_even_where_no_stack_is_listed():
    """The detector lists no payout area that holds no stack: the tracker still feeds it as empty, so a stack hidden
    before the player took both does not come back with the next payout set down where the front one stood."""
    from vision.tracking import ZoneTracker

    tracker = ZoneTracker([ZONE], rise_s=0.15, fall_s=0.6)
    frames = [[(BEHIND, 20)]] * 8 + [[(FRONT, 75)]] * 10 + [[]] * 40 + [[(FRONT, 15)]] * 10
    for f, stacks in enumerate(frames):
        tracker.update(f, f / 10, {}, {ZONE: sum(v for _, v in stacks)} if stacks else {},
                       chip_stacks={ZONE: [(x, y, v) for (x, y), v in stacks]} if stacks else {})
    assert tracker.state[ZONE].chips == 15
