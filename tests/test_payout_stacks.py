"""Side-bet payouts valued from their own stack (vision.stack_tracking, RoundEngine._stack_left; 13:69F-2.20(j)):
table situations found by a review of the rule, each once a wrong result.

Most tests run the tracker and the engine together, frame by frame at 10 a second, with the production tracker
settings (rise_s 0.15 s, fall_s 0.6 s: vision.review_cli), the cards fed as zone changes as in test_round_engine.
"""

from tests.test_round_engine import BJ6
from vision.rounds import RoundEngine
from vision.stack_tracking import PayoutStackTracker
from vision.tracking import ZoneChange, ZoneTracker

FRONT, BEHIND = (500.0, 650.0), (500.0, 610.0)  # two payout stacks touching: a chip's width apart
ZONES = ["seat3.main", "seat3.bonus", "seat3.payout"]

# seat 3's AS JH (a blackjack) against the 2C, hole card 9D turned at 5 s
BLACKJACK = [(20, "card_arrived", "seat3.cards", "AS"), (26, "card_arrived", "dealer.cards", "2C"),
             (32, "card_arrived", "seat3.cards", "JH"), (36, "card_arrived", "dealer.cards", "BACK"),
             (50, "card_left", "dealer.cards", "BACK"), (51, "card_arrived", "dealer.cards", "9D")]


def _total(stacks):
    if not stacks:
        return 0
    if any(v is None for _, v in stacks):
        return None
    return sum(v for _, v in stacks)


def _run(payout_frames, main=50, bonus=1, cards=BLACKJACK, tail_s=4.0):
    """``payout_frames``: per analysed frame, the stacks seen in seat 3's payout area [(position, value)]. The
    payout area's total is what the detector gives with them (unvalued if any stack is). Returns the alerts."""
    tracker = ZoneTracker(ZONES, rise_s=0.15, fall_s=0.6)
    engine = RoundEngine(BJ6, "t", fps=10, latency_s=0.7)
    frames = payout_frames + [[]] * int(tail_s * 10)
    for f, stacks in enumerate(frames):
        t = f / 10
        chs = tracker.update(f, t, {}, {"seat3.main": main, "seat3.bonus": bonus, "seat3.payout": _total(stacks)},
                             chip_stacks={"seat3.payout": [(x, y, v) for (x, y), v in stacks]})
        chs += [ZoneChange(kind, z, f, t, f, t, label=label) for ff, kind, z, label in cards if ff == f]
        chs.sort(key=lambda c: c.t_s)
        engine.step(f, t, chs)
    engine.finish(len(frames) + 20, len(frames) / 10 + 2)
    return [(a.type, a.seat, a.expected, a.observed) for r in engine.rounds for a in r.alerts]


def _main_then_bonus_behind(main_payout=75, bonus_payout=15):
    """Frames 0-59 nothing in the payout area; 60-79 the main payout alone (valued); 80-119 the bonus payout set
    down just behind it, unvalued (its bottom chips hidden by the front stack), the front one still read."""
    return ([[]] * 60 + [[(FRONT, main_payout)]] * 20
            + [[(FRONT, main_payout), (BEHIND, None)]] * 40)


def test_sanity_a_bonus_payout_behind_the_main_one_valued_alone_and_taken_cleanly_raises_nothing():
    """The rule's own case (4K seed 7234 r1), run through the tracker: the $15 bonus payout is right."""
    frames = _main_then_bonus_behind() + [[(BEHIND, 15)]] * 20
    assert _run(frames) == []


def test_a_bonus_payout_read_low_under_the_players_hand_as_it_is_picked_up_is_paid_in_full_2_20_j():
    """The $15 bonus payout ($1 bonus on a blackjack) stands behind the $75 main payout, unvalued; the player takes
    the $75, the $15 stands alone and is read $15 for 2 s; the player's hand then comes over it to pick it up: the top
    chips hidden, it reads $10 for 0.3 s (as the tracker's OVERSHOOT_HOLD_S documents for a hand over a stack), then
    it is gone. Paid in full: no alert."""
    frames = _main_then_bonus_behind() + [[(BEHIND, 15)]] * 20 + [[(BEHIND, 10)]] * 3
    assert _run(frames) == []


def test_tracker_a_stack_read_lower_for_a_moment_as_a_hand_covers_it_leaves_at_its_value_before():
    """The tracker alone (production settings): a stack read $15 for 2 s, $10 for 0.3 s under the hand that takes
    it, then gone, leaves at $15 (a fall held under fall_s is no fall for a zone total either)."""
    tracker = PayoutStackTracker(rise_s=0.15, fall_s=0.6)
    frames = [[(BEHIND, 15)]] * 20 + [[(BEHIND, 10)]] * 3 + [[]] * 20
    out = [c for f, st in enumerate(frames)
           for c in tracker.update("seat3.payout", f, f / 10, [(x, y, v) for (x, y), v in st])]
    assert [c.after for c in out if c.kind == "stack_left"] == [15]


def test_a_bonus_payout_hidden_by_the_dealers_arm_for_a_second_is_still_valued_when_the_player_takes_it_2_20_j():
    """The $14 bonus payout (of $15 due) stands unvalued behind the $75 main payout; the dealer's arm reaches over
    the payout area (paying the next seat) and hides both stacks for 1 s; they show again where they stood; the
    player takes the $75, the bonus payout is read $14 alone, then taken. Underpaid."""
    frames = (_main_then_bonus_behind()[:110] + [[]] * 10 + [[(FRONT, 75), (BEHIND, None)]] * 30
              + [[(BEHIND, 14)]] * 20)
    assert _run(frames) == [("bonus_underpaid", 3, 15, 14)]


def test_a_bonus_payout_larger_than_the_main_payout_in_front_of_it_is_valued_whole_when_it_stands_alone_2_20_j():
    """$10 main and $5 bonus on a blackjack: $15 main payout, $75 bonus payout (5 -> 75), set down just behind the
    $15, unvalued. The player takes the $15; the $75 stands alone and is read $75, then taken. Paid right: no alert."""
    frames = _main_then_bonus_behind(main_payout=15, bonus_payout=75) + [[(BEHIND, 75)]] * 20
    assert _run(frames, main=10, bonus=5) == []


def test_the_main_payout_set_down_just_before_the_bonus_payout_is_not_taken_for_it_2_20_j():
    """The dealer sets the $75 main payout down and, 0.4 s later, the $15 bonus payout just behind it (both
    from the same hand): the area reads $75 for 0.4 s, then unvalued. The player takes the $75 (read alone: $75),
    then the $15. Paid right: no alert."""
    frames = ([[]] * 60 + [[(FRONT, 75)]] * 4 + [[(FRONT, 75), (BEHIND, None)]] * 40
              + [[(BEHIND, 15)]] * 20)
    assert _run(frames) == []


def test_two_stacks_first_seen_in_the_same_frame_are_both_remembered_as_standing_2_20_j():
    """The dealer sets the $14 bonus payout down behind the $75 main payout; in the first frame stage 1 boxes the
    new stack twice (the dealer's hand and the stack: two boxes, bases 45 mm apart), so the tracker follows a
    second stack for that one frame. It goes (unvalued) 0.6 s later; the real stack stands on, is read $14 alone
    once the player takes the $75, and is taken. Underpaid."""
    ghost = (BEHIND[0], BEHIND[1] - 45.0)
    frames = (_main_then_bonus_behind()[:80] + [[(FRONT, 75), (BEHIND, None), (ghost, None)]]
              + _main_then_bonus_behind()[81:] + [[(BEHIND, 14)]] * 20)
    assert _run(frames) == [("bonus_underpaid", 3, 15, 14)]


def test_a_bonus_payout_whose_base_is_placed_30_mm_off_for_a_second_under_the_players_hand_is_still_valued_2_20_j():
    """The $14 bonus payout stands unvalued behind the $75 main payout. The player's hand takes the $75: for 0.8 s
    stage 1's box of the bonus stack takes in the hand, and its base is placed 30 mm forward (where the $75 stood);
    then the hand is gone, the bonus payout is read $14 where it stands, and is taken. Underpaid."""
    jumped = (BEHIND[0], BEHIND[1] + 30.0)
    frames = (_main_then_bonus_behind() + [[(jumped, None)]] * 8 + [[(BEHIND, 14)]] * 20)
    assert _run(frames) == [("bonus_underpaid", 3, 15, 14)]


def test_a_bonus_payout_set_down_as_two_stacks_is_paid_what_the_two_come_to_2_20_j():
    """$5 bonus on a blackjack: $75 due (5 -> 75), paid in reds sized as two stacks, $50 and $25, set down behind
    the $75 main payout (unvalued, touching it). The player takes the $75 main payout (the two read $50 and $25
    alone), then the $25, then the $50. Paid in full: no alert."""
    second = (BEHIND[0] + 40.0, BEHIND[1])
    frames = ([[]] * 60 + [[(FRONT, 75)]] * 20 + [[(FRONT, 75), (BEHIND, None)]]
              + [[(FRONT, 75), (BEHIND, None), (second, None)]] * 39
              + [[(BEHIND, 50), (second, 25)]] * 20 + [[(BEHIND, 50)]] * 20)
    assert _run(frames, bonus=5) == []


def test_payouts_drawn_a_few_centimetres_towards_the_player_are_unreadable_never_a_wrong_amount_2_20_j():
    """The $14 bonus payout stands unvalued behind the $75 main payout; the player draws both stacks 40 mm towards
    himself in one movement (a chip's width: beyond STACK_MATCH_MM, so the tracker follows them as new stacks), then
    takes the $75; the bonus payout is read $14 alone and taken. The moved $75 is a stack first seen after the bonus
    payout was placed, as the moved bonus payout is: which of them is its payout cannot be told, so its amount is not
    checked (`unreadable`) rather than guessed."""
    moved_front, moved_behind = (FRONT[0] + 40.0, FRONT[1]), (BEHIND[0] + 40.0, BEHIND[1])
    frames = (_main_then_bonus_behind() + [[(moved_front, 75), (moved_behind, None)]] * 30
              + [[(moved_behind, 14)]] * 20)
    assert [a[:2] for a in _run(frames)] == [("unreadable", 3)]


def test_a_bonus_payout_boxed_with_the_main_payout_it_touches_is_valued_once_seen_apart_2_20_j():
    """4K seed 7308 r2: the $14 bonus payout set touching the $75 main payout is boxed with it as one stack that
    cannot be counted, where the main payout stood; it is first seen apart, and read, once the player took the $75."""
    frames = [[]] * 60 + [[(FRONT, 75)]] * 20 + [[(FRONT, None)]] * 40 + [[(BEHIND, 14)]] * 20
    assert _run(frames) == [("bonus_underpaid", 3, 15, 14)]
