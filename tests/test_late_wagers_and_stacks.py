"""Table situations a review found two rules got wrong: a side bet first valued later in the deal taken as the wager
(RoundEngine._unvalued_wager_change, now only before the seat's second card and not undone at once), and a new stack
in an unvalued payout area taken as another payout (tried and withdrawn: these four are what it got wrong)."""

from tests.test_payout_stacks import BEHIND, BLACKJACK, FRONT, ZONES, _run, _total
from tests.test_round_engine import BJ6, S21, Table
from vision.rounds import RoundEngine
from vision.tracking import ZoneChange, ZoneTracker

# --- rule 1: RoundEngine._unvalued_wager_change, a side bet valued late ---------------------------------------------


def _tracked(reads, cards, profile=BJ6):
    """Production tracker settings (rise_s 0.15, fall_s 0.6) fed per-zone readings at 10 fps; the round engine
    (latency 0.7 s) fed its changes and the scripted cards. Returns (engine, alerts)."""
    tracker = ZoneTracker(list(reads), rise_s=0.15, fall_s=0.6)
    engine = RoundEngine(profile, "t", fps=10, latency_s=0.7)
    n = max(len(v) for v in reads.values())
    for f in range(n):
        t = f / 10
        chs = tracker.update(f, t, {}, {z: v[min(f, len(v) - 1)] for z, v in reads.items()})
        chs += [ZoneChange("card_arrived", z, f, t, f, t, label=label) for ff, z, label in cards if ff == f]
        chs.sort(key=lambda c: c.t_s)
        engine.step(f, t, chs)
    engine.finish(n + 20, n / 10 + 2)
    return engine, [(a.type, a.seat, a.expected, a.observed) for r in engine.rounds for a in r.alerts]


def test_an_unvalued_side_bet_misread_high_for_a_moment_under_the_dealers_arm_is_not_taken_as_the_wager():
    """Seat 3's $5 match-the-dealer wager cannot be counted at the first card (KH at 1 s). At 2.5 s the dealer's arm,
    reaching across to deal the up card, is read over the spot as one $1,000 chip for 0.3 s (as 4K seed 7174 r1 read
    a $30 main wager), the spot is unvalued again under the arm, then read $5 for good; KH 7C against the KS, the $20
    unsuited-match payout paid right. A value read for 0.3 s and undone is no wager: no `pinching` ($1,000 -> $5),
    no `mtd_underpaid` ($4,000 due)."""
    cards = [(10, "seat3.cards", "KH"), (16, "dealer.cards", "KS"), (40, "seat3.cards", "7C"),
             (46, "dealer.cards", "BACK")]
    mtd = [None] * 25 + [1000] * 3 + [None] * 7 + [5] * 100
    engine, alerts = _tracked({"seat3.main": [25], "seat3.mtd": mtd, "seat3.payout": [0] * 60 + [20] * 80}, cards)
    assert not [a for a in alerts if a[0] in ("pinching", "mtd_underpaid")]
    assert engine.rounds[0].to_json()["seats"][0]["wagers"]["mtd"] in (None, 5)


def test_spanish21_an_mtd_payout_read_with_its_unvalued_wager_before_an_unseen_hole_card_is_no_pinching_19_6():
    """Spanish 21, seat 3's KH 7C against the KS: a winning match-the-dealer wager that cannot be counted. The hole
    card is slid under the up card unseen (seeds 7106, 7047), so the side bets are not known due. The dealer sets the
    $20 payout touching the $5 wager: the spot reads $25 (as 4K seed 7259 r1 read a payout with its wager); the player
    takes the $20 and the spot reads $5; the first hit. The $25 is not the wager (the seat's two cards were dealt
    before it was read), so its going back to $5 is no `pinching`."""
    t = (Table(S21).chips_to("seat3.main", 25).chips_to("seat3.mtd", None)
         .deal(("seat3.cards", "KH"), ("dealer.cards", "KS"), ("seat3.cards", "7C")))
    t.chips_to("seat3.mtd", 25).wait(1.0).chips_to("seat3.mtd", 5).card("seat3.cards", "2D").wait(3.0)
    assert not [a for a in t.alerts if a[0] == "pinching"]


def test_chips_added_to_an_unvalued_mtd_wager_once_the_seats_cards_match_the_up_card_are_not_taken_as_the_wager():
    """Seats 3 and 5; seat 3's match-the-dealer stack cannot be counted at the first card. Seat 3 holds KH, the up
    card is the KS, seat 3's second card the 7C: its match is decided, but the side bets are not due until seat 5's
    second card. The player adds $20 to the $5 stack (past-posting), which is then read $25 for the first time. The
    dealer pays $20, right on the $5 wagered. Read only after the seat's own cards and the up card decide it, the
    stack cannot be told from chips added: it stays unvalued (`unreadable`), and no `mtd_underpaid` ($100 due)."""
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", None).chips_to("seat5.main", 25)
    t.deal(("seat3.cards", "KH"), ("seat5.cards", "4D"), ("dealer.cards", "KS"), ("seat3.cards", "7C"))
    t.chips_to("seat3.mtd", 25).deal(("seat5.cards", "9S"), ("dealer.cards", "BACK"))
    t.chips_to("seat3.payout", 20).wait(3.0)
    assert not [a for a in t.alerts if a[0] == "mtd_underpaid"]
    assert t.engine.rounds[0].seats[3].wagers.get("mtd") is None


# --- a new stack in an unvalued payout area is not taken for a payout (a rule tried and withdrawn) ----------------

BESIDE = (FRONT[0] + 45.0, FRONT[1])        # a stack set beside the main payout
BEHIND_BOTH = (FRONT[0] + 22.0, FRONT[1] - 40.0)  # the bonus payout, set behind the two


def test_a_blackjack_paid_as_even_money_then_the_half_beside_it_is_not_taken_for_the_bonus_payout_2_20_j():
    """$50 main and $1 bonus, a blackjack: the dealer pays the even money, $50, as a stack that cannot be counted,
    then 1 s later the half, $25, as a second stack beside it; then the $15 bonus payout behind the two. The player
    takes the $50, then the $25 and the $15. All right: the $25 is not the bonus payout (no `bonus_overpaid`, $40 of
    $15)."""
    frames = ([[]] * 60 + [[(FRONT, None)]] * 10 + [[(FRONT, None), (BESIDE, None)]] * 20
              + [[(FRONT, None), (BESIDE, None), (BEHIND_BOTH, None)]] * 30
              + [[(BESIDE, 25), (BEHIND_BOTH, 15)]] * 20 + [[(BEHIND_BOTH, 15)]] * 20)
    assert _run(frames) == []


def test_a_short_main_payout_made_up_with_a_second_stack_is_not_taken_for_the_bonus_payout_2_20_j():
    """$50 main and $1 bonus, a blackjack: the dealer sets $70 (uncounted), sees it short and adds $5 beside it 1 s
    later, then pays the $15 bonus behind them. All right ($75 and $15): the $5 is not the bonus payout (no
    `bonus_overpaid`, $20 of $15)."""
    frames = ([[]] * 60 + [[(FRONT, None)]] * 10 + [[(FRONT, None), (BESIDE, None)]] * 20
              + [[(FRONT, None), (BESIDE, None), (BEHIND_BOTH, None)]] * 30
              + [[(BESIDE, 5), (BEHIND_BOTH, 15)]] * 20 + [[(BEHIND_BOTH, 15)]] * 20)
    assert _run(frames) == []


def test_the_uncounted_main_payout_drawn_towards_the_player_is_not_taken_for_the_bonus_payout_2_20_j():
    """The $75 main payout on seat 3's blackjack cannot be counted; waiting for the bonus (paid after the round,
    2.20(f)), the player draws it 40 mm towards himself (a new stack for the tracker, first seen while the old one
    still counts as standing), his hand on it for 1 s; it is then read $75. The dealer sets the $15 bonus payout
    behind; the player takes the $75, then the $15. All right: the drawn $75 is not the bonus payout (no
    `bonus_overpaid`, $90 of $15)."""
    drawn = (FRONT[0], FRONT[1] + 40.0)
    frames = ([[]] * 60 + [[(FRONT, None)]] * 20 + [[(drawn, None)]] * 10 + [[(drawn, 75)]] * 25
              + [[(drawn, 75), (BEHIND, None)]] * 30 + [[(BEHIND, 15)]] * 20)
    assert _run(frames) == []


def test_the_players_main_wager_drawn_into_the_payout_area_is_not_taken_for_the_bonus_payout_2_20_j():
    """The $75 main payout on seat 3's blackjack ($50 main, $1 bonus) cannot be counted. Waiting for the bonus
    payout, the player draws his $50 main wager off its spot into the payout area, beside the $75 (the main spot
    reads empty as the stack appears there). The dealer sets the $15 bonus payout behind; the player takes the $75
    and his $50, then the $15. His wager is not the bonus payout (no `bonus_overpaid`, $65 of $15)."""
    own = (FRONT[0], FRONT[1] + 45.0)
    frames = ([[]] * 60 + [[(FRONT, None)]] * 20 + [[(FRONT, None), (own, None)]] * 5
              + [[(FRONT, None), (own, 50)]] * 25 + [[(FRONT, None), (own, 50), (BEHIND, None)]] * 30
              + [[(own, 50), (BEHIND, 15)]] * 20 + [[(BEHIND, 15)]] * 20)
    main = [50] * 80 + [0] * 300
    tracker = ZoneTracker(ZONES, rise_s=0.15, fall_s=0.6)
    engine = RoundEngine(BJ6, "t", fps=10, latency_s=0.7)
    frames += [[]] * 40
    for f, stacks in enumerate(frames):
        t = f / 10
        chs = tracker.update(f, t, {}, {"seat3.main": main[f], "seat3.bonus": 1, "seat3.payout": _total(stacks)},
                             chip_stacks={"seat3.payout": [(x, y, v) for (x, y), v in stacks]})
        chs += [ZoneChange(kind, z, f, t, f, t, label=label) for ff, kind, z, label in BLACKJACK if ff == f]
        chs.sort(key=lambda c: c.t_s)
        engine.step(f, t, chs)
    engine.finish(len(frames) + 20, len(frames) / 10 + 2)
    assert [(a.type, a.seat) for r in engine.rounds for a in r.alerts] == []
