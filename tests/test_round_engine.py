"""The round engine's audit, replayed from zone changes (no pixels): 13:69F-2.23, 19.6, 2.20, 2B.6."""

import pytest

from rules.profile import TableProfile
from vision.rounds import RoundEngine
from vision.tracking import ZoneChange, ZoneTracker

BJ6 = TableProfile(game="blackjack", decks=6, side_bets=["mtd", "bonus"], bonus_payout={"1": 15, "5": 75},
                   main_max=500)


class Table:
    """A scripted sequence of zone changes, fed to the engine in time order."""

    def __init__(self, profile=BJ6, **engine_options):
        self.engine = RoundEngine(profile, "t", fps=10, latency_s=0.5, **engine_options)
        self.t = 0.0
        self.chips: dict[str, float] = {}

    def _feed(self, ch: ZoneChange):
        self.engine.step(int(ch.t_s * 10), ch.t_s, [ch])
        self.engine.step(int((ch.t_s + 0.5) * 10), ch.t_s + 0.5, [])

    def chips_to(self, zone, value):
        self.t += 1.0
        before = self.chips.get(zone, 0)
        self.chips[zone] = value
        self._feed(ZoneChange("chips", zone, int(self.t * 10), self.t, 0, self.t, before=before, after=value))
        return self

    def card(self, zone, label, kind="card_arrived"):
        self.t += 1.0
        self._feed(ZoneChange(kind, zone, int(self.t * 10), self.t, 0, self.t, label=label))
        return self

    def deal(self, *steps):
        for zone, label in steps:
            self.card(zone, label)
        return self

    def pick_up(self, *zones_labels):
        for zone, label in zones_labels:
            self.card(zone, label, "card_left")
        self.engine.finish(int(self.t * 10) + 20, self.t + 2)
        return self

    def at_once(self, dt, *zone_values):
        """Chip changes seen together ``dt`` seconds on, fed in one step without letting time pass after it."""
        self.t += dt
        changes = []
        for zone, value in zone_values:
            before, self.chips[zone] = self.chips.get(zone, 0), value
            changes.append(ZoneChange("chips", zone, int(self.t * 10), self.t, 0, self.t, before=before, after=value))
        self.engine.step(int(self.t * 10), self.t, changes)
        return self

    def wait(self, seconds):
        self.t += seconds
        self.engine.step(int(self.t * 10), self.t, [])
        return self

    @property
    def alerts(self):
        return [(a.type, a.seat, a.expected, a.observed) for r in self.engine.rounds for a in r.alerts]


def standard_deal(seat_cards, up, hole="BACK", seat=3):
    return [(f"seat{seat}.cards", seat_cards[0]), ("dealer.cards", up), (f"seat{seat}.cards", seat_cards[1])], \
           [("dealer.cards", hole)]


def test_unsuited_match_paid_short_is_mtd_underpaid_2_23_f():
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first).chips_to("seat3.payout", 15)
    assert ("mtd_underpaid", 3, 20, 15) in t.alerts


def _mtd_payout_read_with_the_wager(back_after_s):
    """Seat 3's KH 7C against the KS (an unsuited match: $20 due on $5); the payout, set touching the $25 wager,
    seen unvalued, then read with the wager as $40 and no payout; the two read apart ``back_after_s`` on."""
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first)
    t.at_once(1.0, ("seat3.payout", None)).at_once(0.3, ("seat3.main", 40), ("seat3.payout", 0))
    t.at_once(back_after_s, ("seat3.main", 25), ("seat3.payout", None)).wait(1.5)
    return t


def test_a_match_the_dealer_payout_read_with_the_wager_it_touches_is_counted_once_read_apart_2_23_f():
    """4K seed 7259 r1: a $12 payout set touching a $50 wager read as a $62 wager, with no payout, for 2 s (there,
    $3 was due: overpaid): no past-posting; the payout is what the wager grew by, here $15 of the $20 due."""
    t = _mtd_payout_read_with_the_wager(2.0)
    assert [a[:2] for a in t.alerts] == [("mtd_underpaid", 3)]
    assert ("mtd_underpaid", 3, 20, 15) in t.alerts


def test_a_wager_grown_as_its_payout_went_and_still_grown_is_past_posting_2_3():
    t = _mtd_payout_read_with_the_wager(5.0)
    assert ("past_posting", 3, 25, 40) in t.alerts


def test_correct_mtd_payout_raises_nothing():
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first).chips_to("seat3.payout", 20)
    assert t.alerts == []


def test_losing_mtd_collected_after_a_hit_is_settled_late_2_23_e():
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = (Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first).deal(*hole)
         .card("seat3.cards", "2D").chips_to("seat3.mtd", 0))
    assert [a[0] for a in t.alerts] == ["mtd_settled_late"]


def _losing_mtd_gone_near_the_first_hit(gone_after_hit_s):
    """Seat 3's losing match-the-dealer wager seen gone ``gone_after_hit_s`` after the first hit is first seen (both
    changes seen together, held for ordering)."""
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first).deal(*hole)
    hit = t.t + 1.0
    gone = hit + gone_after_hit_s
    t.t = max(hit, gone)
    t.engine.step(int(t.t * 10), t.t, [
        ZoneChange("card_arrived", "seat3.cards", int(hit * 10), hit, 0, hit, label="2D"),
        ZoneChange("chips", "seat3.mtd", int(gone * 10), gone, 0, gone, before=5, after=0)])
    t.wait(2.0)
    return t


def test_a_losing_mtd_seen_collected_six_tenths_of_a_second_before_the_hit_was_settled_in_time_2_23_e():
    """4K seed 7208 r1: taken 0.6 s before the hit card was first seen; every wager collected late on the kept
    round videos was seen gone 0.3 s or more after it."""
    assert _losing_mtd_gone_near_the_first_hit(-0.6).alerts == []


def test_a_losing_mtd_seen_collected_just_before_the_hit_may_be_late_behind_the_same_hand_2_23_e():
    assert [a[0] for a in _losing_mtd_gone_near_the_first_hit(-0.2).alerts] == ["mtd_settled_late"]


def test_losing_mtd_never_collected_is_reported_after_pick_up():
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = (Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first).deal(*hole)
         .pick_up(("seat3.cards", "5H"), ("seat3.cards", "7C"), ("dealer.cards", "KS"), ("dealer.cards", "BACK")))
    assert ("mtd_not_collected", 3, 5, 0) in t.alerts


def test_chips_added_to_a_wager_after_the_first_card_are_past_posting():
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first[:1]).chips_to("seat3.mtd", 10)
    assert ("past_posting", 3, 5, 10) in t.alerts


def test_a_losing_mtd_stack_carried_across_the_main_spot_is_no_past_posting():
    # 4K seed 7124: the dealer slid the collected match-the-dealer chips past the main wager, read there for 0.3 s
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = (Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first)
         .at_once(1.0, ("seat3.mtd", 0), ("seat3.main", 30)).at_once(0.3, ("seat3.main", 25)).wait(2.0))
    assert t.alerts == []


def test_chips_added_as_a_stack_is_collected_and_left_there_are_still_past_posting():
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first).at_once(
        1.0, ("seat3.mtd", 0), ("seat3.main", 30)).wait(2.0)
    assert ("past_posting", 3, 25, 30) in t.alerts


def test_a_wager_misread_higher_for_a_moment_as_a_hand_crosses_it_is_no_past_posting():
    # 4K seed 7174 r1: the dealer's arm over a $30 main wager, read as one $1,000 chip for 0.3 s
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = (Table().chips_to("seat3.main", 30).deal(*first)
         .at_once(1.0, ("seat3.main", 1000)).at_once(0.3, ("seat3.main", 30)).wait(2.0))
    assert t.alerts == []


def test_a_wager_read_lower_for_a_moment_is_no_pinching():
    # 1080p seed 7050 r1: a $150 wager, unvalued under the dealer's hand, read $75 for 0.3 s as a payout was set down
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = (Table().chips_to("seat3.main", 150).deal(*first).chips_to("seat3.main", None)
         .at_once(1.0, ("seat3.main", 75)).at_once(0.3, ("seat3.main", None)).wait(2.0))
    assert not [a for a in t.alerts if a[0] == "pinching"]


def test_chips_added_and_taken_back_a_second_later_are_still_past_posting_2_3():
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = (Table().chips_to("seat3.main", 30).deal(*first)
         .at_once(1.0, ("seat3.main", 60)).at_once(1.0, ("seat3.main", 30)).wait(2.0))
    assert ("past_posting", 3, 30, 60) in t.alerts


def test_a_hole_card_read_unreadable_is_the_card_turned_over_when_a_face_next_shows_2_6():
    # 1080p seed 7025: the dealer's face-down second card read `unreadable`, lost from view (slid under the up card);
    # the 7D turned over was taken for a third card, the dealer's hand never known, and the losing wager collected
    # was called pinching
    first, hole = standard_deal(["9D", "9C"], "3C", hole="unreadable")
    t = (Table().chips_to("seat3.main", 20).deal(*first).deal(*hole)
         .card("dealer.cards", "unreadable", "card_left").card("dealer.cards", "7D")
         .card("dealer.cards", "10C").chips_to("seat3.main", 0).wait(8.0))
    assert t.engine.rounds[0].dealer == ["3C", "7D", "10C"]
    assert t.alerts == []


def test_chips_taken_from_a_wager_before_settlement_are_pinching():
    t = Table().chips_to("seat3.main", 25).deal(("seat3.cards", "5H")).chips_to("seat3.main", 10)
    assert ("pinching", 3, 25, 10) in t.alerts


def test_a_wager_that_cannot_be_valued_for_a_moment_is_not_pinched_or_past_posted():
    """A hand half over the stack, a card dealt in front of it: the camera loses the value, not the chips."""
    t = Table().chips_to("seat3.main", 25).deal(("seat3.cards", "5H")).chips_to("seat3.main", None)
    t.t += 8.0  # longer than the engine waits for a settling moment
    t.chips_to("seat3.main", 25)
    assert not [a for a in t.alerts if a[0] in ("pinching", "past_posting")]


def test_dealer_card_before_the_first_base_card_breaks_the_deal_order():
    t = Table().chips_to("seat3.main", 25).deal(("dealer.cards", "KS"))
    assert [a[0:2] for a in t.alerts] == [("dealing_order", "dealer")]


def test_bonus_wager_of_two_dollars_is_over_limit_2_20_a():
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.bonus", 2).deal(("seat3.cards", "5H"))
    assert [(a[0], a[1], a[3]) for a in t.alerts] == [("wager_over_limit", 3, 2)]


def test_spanish21_mtd_above_the_main_wager_is_over_limit_19_6_b():
    p = TableProfile(game="spanish21", decks=6, mtd_max=100)
    t = Table(p).chips_to("seat2.main", 10).chips_to("seat2.mtd", 25).deal(("seat2.cards", "5H"))
    assert [(a[0], a[1], a[2], a[3]) for a in t.alerts] == [("wager_over_limit", 2, 10, 25)]


def test_bonus_blackjack_paid_after_the_round_at_the_posted_payout_2_20_f():
    first, hole = standard_deal(["AH", "KC"], "7S")
    t = (Table().chips_to("seat3.main", 10).chips_to("seat3.bonus", 1).deal(*first).deal(*hole)
         .card("dealer.cards", "BACK", "card_left").card("dealer.cards", "9D")  # hole card turned: dealer 16
         .card("dealer.cards", "5C")                                            # dealer draws to 21
         .chips_to("seat3.payout", 15)                                          # main: blackjack 3 to 2
         .chips_to("seat3.payout", 27))                                         # bonus: $12 instead of $15
    assert ("bonus_underpaid", 3, 15, 12) in t.alerts


def _blackjack_with_a_bonus(main, bonus):
    """Seat 3's blackjack (AH KC) against the dealer's 7S, 9D, 5C, with ``main`` and ``bonus`` wagered."""
    first, hole = standard_deal(["AH", "KC"], "7S")
    return (Table().chips_to("seat3.main", main).chips_to("seat3.bonus", bonus).deal(*first).deal(*hole)
            .card("dealer.cards", "BACK", "card_left").card("dealer.cards", "9D").card("dealer.cards", "5C"))


def test_a_main_payout_read_short_as_it_is_set_down_is_not_split_with_the_bonus_2_20():
    """4K seed 7206: a $50 main payout read $45, then $50 0.3 s later; the $5 was taken for a bonus paid on a losing
    bonus wager (bonus_overpaid). The stack still being set down is counted whole, for the main wager."""
    first, hole = standard_deal(["8H", "4D"], "4S")
    t = (Table().chips_to("seat3.main", 50).chips_to("seat3.bonus", 5).deal(*first).deal(*hole)
         .card("dealer.cards", "BACK", "card_left").card("dealer.cards", "JS").card("dealer.cards", "AH")
         .card("dealer.cards", "7D").chips_to("seat3.bonus", 0))
    t.at_once(1.0, ("seat3.payout", 45)).at_once(0.3, ("seat3.payout", 50)).wait(3.0)
    assert t.engine.rounds[0].seats[3].observed_payout == {"main": 50}
    assert not [a for a in t.alerts if a[0].startswith("bonus_")]


def test_a_bonus_payout_first_valued_with_the_main_payout_is_the_rest_beyond_the_main_payout_due_2_20_f():
    """4K seed 7247 r0: the match-the-dealer payout counted during the deal; after the dealer's hand, the main
    payout and the bonus payout set beside it are first valued together: what lies beyond the main payout due ($30
    on a $20 blackjack) is the bonus's, $13, short of its $15."""
    t = Table().chips_to("seat3.main", 20).chips_to("seat3.mtd", 10).chips_to("seat3.bonus", 1)
    t.deal(("seat3.cards", "AC"), ("dealer.cards", "QC"), ("seat3.cards", "QD"), ("dealer.cards", "BACK"))
    mtd = t.engine.rounds[0].seats[3].expected["mtd"].payout
    t.chips_to("seat3.payout", mtd)
    t.card("dealer.cards", "BACK", "card_left").card("dealer.cards", "7S")
    t.at_once(1.0, ("seat3.payout", None)).at_once(1.0, ("seat3.payout", mtd + 43)).wait(1.5)
    assert t.engine.rounds[0].seats[3].observed_payout == {"mtd": mtd, "main": 30, "bonus": 13}
    assert ("bonus_underpaid", 3, 15, 13) in t.alerts


def test_a_payout_read_high_for_a_moment_is_counted_on_the_reading_it_settles_to_2_20_j():
    """4K seed 7256 r1: the bonus payout set beside the main one read $42 over it for 0.3 s, then $17: the bonus
    was underpaid, not overpaid."""
    t = _blackjack_with_a_bonus(150, 1).chips_to("seat3.payout", 225)
    t.at_once(1.0, ("seat3.payout", 267)).at_once(0.3, ("seat3.payout", 238)).wait(1.5)
    assert t.engine.rounds[0].seats[3].observed_payout.get("bonus") == 13
    assert [a for a in t.alerts if a[0].startswith("bonus_")] == [("bonus_underpaid", 3, 15, 13)]


def test_a_main_payout_valued_over_what_is_due_is_not_split_with_a_bonus_paid_after_it_2_20_f():
    """$30 due on a $20 blackjack, the main payout read $35 as it stands alone (the main wager overpaid, or a chip
    misread: not the bonus's), then the $15 bonus payout set beside it: the bonus was paid in full."""
    t = _blackjack_with_a_bonus(20, 1).chips_to("seat3.payout", 35).wait(1.5).chips_to("seat3.payout", 50).wait(1.5)
    assert t.engine.rounds[0].seats[3].observed_payout.get("bonus") == 15
    assert not [a for a in t.alerts if a[0].startswith("bonus_")]


def test_a_bonus_payout_placed_after_the_players_winnings_were_taken_is_the_bonuss_2_20_f():
    """Seed 7013 at 1080p: the main wager's $75 blackjack payout taken up with the wager, then the bonus's $75
    placed beside the spot 5 s later. It pays the bonus, though no larger than what the payout zone showed before:
    no bonus_underpaid."""
    t = _blackjack_with_a_bonus(50, 5).chips_to("seat3.payout", 75)  # main: blackjack 3 to 2
    t.at_once(1.0, ("seat3.payout", 0), ("seat3.main", 0)).wait(4.0)  # the player takes wager and winnings
    t.chips_to("seat3.payout", 75)                                     # bonus: 15 to 1
    assert t.engine.rounds[0].seats[3].observed_payout.get("bonus") == 75
    assert not [a for a in t.alerts if a[0].startswith("bonus_")]


def test_a_payout_hidden_a_moment_by_the_dealers_hand_is_not_counted_again_2_20_f():
    """The main wager's $15 payout hidden for a second and seen again is the same stack; the bonus's $15 placed on
    it makes $30 there: the bonus paid $15, as posted."""
    t = _blackjack_with_a_bonus(10, 1).chips_to("seat3.payout", 15)
    t.at_once(0.7, ("seat3.payout", 0)).at_once(1.0, ("seat3.payout", 15)).wait(0.5)
    t.chips_to("seat3.payout", 30)
    assert t.engine.rounds[0].seats[3].observed_payout.get("bonus") == 15
    assert not [a for a in t.alerts if a[0].startswith("bonus_")]


def test_the_round_records_first_two_cards_up_card_and_wagers():
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first).deal(*hole)
    r = t.engine.rounds[0].to_json()
    assert r["dealer"]["up"] == "KS"
    assert r["seats"] == [{"seat": 3, "cards": ["KH", "7C"], "hits": [], "wagers": {"main": 25, "mtd": 5},
                           "mtd": {"outcome": "win", "expected_payout": 20, "observed_payout": 0}}]


def test_a_live_engine_keeps_only_its_last_rounds_in_memory_but_numbers_every_round():
    from vision.rounds import RoundEngine

    engine = RoundEngine(TableProfile(game="blackjack", decks=8), "bj-01", keep_rounds=2)
    for k in range(5):
        engine._open_round(float(k), k)
        engine._close_round(k + 0.5, complete=True)
    assert [r.index for r in engine.rounds] == [2, 3, 4]


def test_a_wager_the_camera_cannot_value_still_seats_the_player_and_says_so():
    """A stack on the spot whose value could not be read: the seat plays, nothing is assumed, an alert says why."""
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = Table().chips_to("seat3.main", None).chips_to("seat3.mtd", 5).deal(*first)
    seat = t.engine.rounds[0].to_json()["seats"][0]
    assert seat["seat"] == 3 and seat["cards"] == ["KH", "7C"]
    assert seat["wagers"] == {"mtd": 5, "main": None}
    unreadable = [a for r in t.engine.rounds for a in r.alerts if a.type == "unreadable"]
    assert [(a.seat, a.wager) for a in unreadable] == [(3, "main")]


def test_a_wager_valued_a_moment_after_the_first_card_is_the_seats_wager():
    """The camera counts a stack a few frames after the dealer's hand left it (4K seed 7100): read within
    LATE_VALUE_S of the first card, before any side bet is due, it is the wager, and nothing is unreadable."""
    t = Table().chips_to("seat3.main", None).chips_to("seat3.mtd", 5).card("seat3.cards", "KH")
    t.at_once(0.6, ("seat3.main", 40)).deal(("dealer.cards", "KS"), ("seat3.cards", "7C"))
    seat = t.engine.rounds[0].to_json()["seats"][0]
    assert seat["wagers"] == {"main": 40, "mtd": 5}
    assert not [a for a in t.alerts if a[0] == "unreadable"]


def test_a_wager_valued_late_is_announced_to_live_viewers():
    t = Table().chips_to("seat3.main", None).card("seat3.cards", "KH")
    events = t.engine.step(int((t.t + 0.6) * 10), t.t + 0.6, [ZoneChange(
        "chips", "seat3.main", int((t.t + 0.6) * 10), t.t + 0.6, 0, t.t + 0.6, before=None, after=40)])
    events += t.engine.step(int((t.t + 1.2) * 10), t.t + 1.2, [])
    assert [e.data for e in events if e.kind == "wager_valued"] == [{"seat": 3, "wager": "main", "amount": 40}]


def test_a_wager_valued_late_is_checked_against_the_table_limit():
    t = Table().chips_to("seat3.main", None).card("seat3.cards", "KH")
    t.at_once(0.6, ("seat3.main", 600)).deal(("dealer.cards", "KS"), ("seat3.cards", "7C"))
    assert ("wager_over_limit", 3, 500, 600) in t.alerts


def test_a_wager_still_unvalued_a_second_after_the_first_card_is_unreadable_from_then():
    """Its limits went unchecked when they applied; the main wager, its stack on the spot all along, is what it is
    read as later in the deal (what pinching is judged against)."""
    t = Table().chips_to("seat3.main", None).card("seat3.cards", "KH")
    first = t.t
    t.at_once(1.5, ("seat3.main", 40)).deal(("dealer.cards", "KS"), ("seat3.cards", "7C"))
    [alert] = [a for r in t.engine.rounds for a in r.alerts if a.type == "unreadable"]
    assert (alert.seat, alert.wager, alert.t_s) == (3, "main", first + 1.0)
    assert t.engine.rounds[0].to_json()["seats"][0]["wagers"] == {"main": 40}


def test_a_side_bet_first_valued_later_in_the_deal_before_it_falls_due_is_the_wager_2_23_f():
    """4K seed 7298 r1: a $5 match-the-dealer wager unvalued from the betting to 1.6 s after the first card, its
    stack on the spot all along, then read $5 before the seat's second card: that is the wager, and its payout is
    checked (here $15 paid of the $20 due on an unsuited match, KH 7C against the KS). It stays `unreadable` in the
    alerts: its limit was not checked when it applied."""
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", None).card("seat3.cards", "KH")
    t.at_once(1.5, ("seat3.mtd", 5)).deal(("dealer.cards", "KS"), ("seat3.cards", "7C")).chips_to("seat3.payout", 15)
    assert t.engine.rounds[0].to_json()["seats"][0]["wagers"] == {"main": 25, "mtd": 5}
    assert [a[:2] for a in t.alerts] == [("unreadable", 3), ("mtd_underpaid", 3)]


def test_a_side_bet_first_valued_once_it_fell_due_stays_unvalued():
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", None).card("seat3.cards", "KH")
    t.deal(("dealer.cards", "KS"), ("seat3.cards", "7C")).at_once(1.0, ("seat3.mtd", 5))
    assert t.engine.rounds[0].to_json()["seats"][0]["wagers"] == {"main": 25, "mtd": None}


def test_an_unvalued_wager_hidden_by_the_dealing_hand_then_valued_is_not_pinched():
    """The dealer's hand over the unvalued stack reads as an empty spot, then the stack is counted: the empty
    reading was the hand, not a collection, so nothing was taken from the wager (13:69F-2.3)."""
    t = Table().chips_to("seat3.main", None).card("seat3.cards", "KH")
    t.at_once(0.3, ("seat3.main", 0)).at_once(0.3, ("seat3.main", 40)).wait(0.5)
    t.deal(("dealer.cards", "KS"), ("seat3.cards", "7C"), ("dealer.cards", "BACK"))
    t.card("dealer.cards", "BACK", "card_left").card("dealer.cards", "9D").wait(8.0)
    assert t.engine.rounds[0].to_json()["seats"][0]["wagers"] == {"main": 40}
    assert not [a for a in t.alerts if a[0] in ("pinching", "unreadable")]


def test_an_unvalued_wager_hidden_at_the_first_card_and_valued_when_seen_again_is_the_seats_wager():
    t = Table().chips_to("seat3.main", None).at_once(0.9, ("seat3.main", 0)).card("seat3.cards", "KH")
    t.at_once(0.5, ("seat3.main", 40)).deal(("dealer.cards", "KS"), ("seat3.cards", "7C"))
    assert t.engine.rounds[0].to_json()["seats"][0]["wagers"] == {"main": 40}
    assert not [a for a in t.alerts if a[0] == "unreadable"]


def test_a_side_bet_read_after_match_the_dealer_is_due_is_not_taken_for_the_wager_2_23_e():
    """Match-the-dealer falls due at the seat's second card: a stack read after that, even within LATE_VALUE_S of the
    first card, is not the wager it was at the first card, and the wager stays unreadable."""
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", None)
    t.t += 1.0
    for dt, zone, label in [(0.0, "seat3.cards", "KH"), (0.2, "dealer.cards", "KS"), (0.4, "seat3.cards", "7C")]:
        t.engine.step(int((t.t + dt) * 10), t.t + dt,
                      [ZoneChange("card_arrived", zone, int((t.t + dt) * 10), t.t + dt, 0, t.t + dt, label=label)])
    t.t += 0.4
    t.at_once(0.3, ("seat3.mtd", 5)).wait(3.0)
    assert t.engine.rounds[0].to_json()["seats"][0]["wagers"] == {"main": 25, "mtd": None}
    assert [(a[0], a[1]) for a in t.alerts if a[0] == "unreadable"] == [("unreadable", 3)]


def test_a_wager_unvalued_until_the_round_ends_gives_one_unreadable_alert():
    t = Table().chips_to("seat3.main", None).card("seat3.cards", "KH").pick_up(("seat3.cards", "KH"))
    assert [a[0] for a in t.alerts].count("unreadable") == 1


def test_an_unvalued_main_wager_is_never_judged_over_the_limit():
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = Table().chips_to("seat3.main", None).deal(*first)
    assert [a[0] for a in t.alerts] == ["unreadable"]


def test_a_card_seen_on_a_betting_spot_does_not_hold_the_round_open():
    """A face-down "card" on a printed spot (a detector's phantom) is not a dealt card: pick-up still ends the round."""
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).card("seat3.main", "BACK").deal(*first).deal(*hole)
    for zone, label in [("seat3.cards", "5H"), ("seat3.cards", "7C"), ("dealer.cards", "KS"), ("dealer.cards", "BACK")]:
        t.card(zone, label, "card_left")
    t.engine.step(int((t.t + 3) * 10), t.t + 3, [])
    assert t.engine.rounds[0].pickup_done_s is not None


def test_a_bonus_spot_uncovered_mid_round_does_not_hold_the_round_open():
    """A bonus winner's cards lie face up under the wager (2.20(f)): a face-down "card" on a bonus spot, the printed
    spot showing once its wager is collected, neither holds the round open nor opens a new one."""
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.bonus", 5).deal(*first).deal(*hole)
    t.chips_to("seat3.bonus", 0).card("seat3.bonus", "BACK")
    for zone, label in [("seat3.cards", "5H"), ("seat3.cards", "7C"), ("dealer.cards", "KS"), ("dealer.cards", "BACK")]:
        t.card(zone, label, "card_left")
    t.engine.step(int((t.t + 3) * 10), t.t + 3, [])
    assert len(t.engine.rounds) == 1 and t.engine.rounds[0].pickup_done_s is not None


def test_a_card_seen_before_any_wager_is_placed_is_no_rounds_card():
    """Cards are dealt only to spots with a wager: one seen on a bare layout (printed art read as a card) opens no
    round and does not keep the next round from ending."""
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = Table().card("dealer.cards", "7C").chips_to("seat3.main", 25).deal(*first).deal(*hole)
    assert t.engine.rounds[0].dealer == ["KS", "BACK"]
    for zone, label in [("seat3.cards", "5H"), ("seat3.cards", "7C"), ("dealer.cards", "KS"), ("dealer.cards", "BACK")]:
        t.card(zone, label, "card_left")
    t.engine.step(int((t.t + 3) * 10), t.t + 3, [])
    assert len(t.engine.rounds) == 1 and t.engine.rounds[0].pickup_done_s is not None


def test_a_card_read_anew_in_the_same_place_is_the_same_card_not_a_hit():
    """A misread (10C) corrected when the hand moves off the card (10S) replaces the reading; no third card."""
    engine = RoundEngine(BJ6, "t", fps=10, latency_s=0.7)  # the hold covers the 0.6 s a departure takes to confirm
    here = (500.0, 300.0)
    seq = [ZoneChange("chips", "seat3.main", 10, 1.0, 10, 1.0, before=0, after=25),
           ZoneChange("card_arrived", "seat3.cards", 20, 2.0, 22, 2.2, label="10C", position=here),
           ZoneChange("card_arrived", "dealer.cards", 30, 3.0, 32, 3.2, label="KS", position=(500.0, 100.0)),
           ZoneChange("card_left", "seat3.cards", 40, 4.0, 46, 4.6, label="10C", position=here),
           ZoneChange("card_arrived", "seat3.cards", 40, 4.0, 42, 4.2, label="10S", position=(503.0, 301.0))]
    for f in range(10, 80):
        t = f / 10
        engine.step(f, t, [c for c in seq if c.confirmed_frame == f])
    seat = engine.rounds[0].seats[3]
    assert seat.dealt == ["10S"] and seat.hits == []


def test_a_first_card_read_anew_after_the_side_bets_came_due_is_settled_as_read_2_23():
    """7C misread as 7H under a 7C up card: the unsuited match the misread promised is a suited match."""
    engine = RoundEngine(BJ6, "t", fps=10, latency_s=0.7)
    here = (500.0, 300.0)
    seq = [ZoneChange("chips", "seat3.main", 10, 1.0, 10, 1.0, before=0, after=25),
           ZoneChange("chips", "seat3.mtd", 12, 1.2, 12, 1.2, before=0, after=5),
           ZoneChange("card_arrived", "seat3.cards", 20, 2.0, 22, 2.2, label="7H", position=here),
           ZoneChange("card_arrived", "dealer.cards", 30, 3.0, 32, 3.2, label="7C", position=(500.0, 100.0)),
           ZoneChange("card_arrived", "seat3.cards", 35, 3.5, 37, 3.7, label="KH", position=(520.0, 310.0)),
           ZoneChange("card_left", "seat3.cards", 40, 4.0, 46, 4.6, label="7H", position=here),
           ZoneChange("card_arrived", "seat3.cards", 40, 4.0, 42, 4.2, label="7C", position=(503.0, 301.0))]
    for f in range(10, 80):
        engine.step(f, f / 10, [c for c in seq if c.confirmed_frame == f])
    seat = engine.rounds[0].seats[3]
    assert seat.dealt == ["7C", "KH"]
    expected = seat.expected["mtd"]
    assert [m.suited for m in expected.matches] == [True] and expected.payout == 5 * expected.matches[0].odds


def _replay(seq, until=80):
    engine = RoundEngine(BJ6, "t", fps=10, latency_s=0.7)
    for f in range(10, until):
        engine.step(f, f / 10, [c for c in seq if c.confirmed_frame == f])
    return engine


def test_a_card_dealt_unreadable_and_read_in_place_takes_its_reading():
    here = (500.0, 300.0)
    engine = _replay([ZoneChange("chips", "seat3.main", 10, 1.0, 10, 1.0, before=0, after=25),
                      ZoneChange("card_arrived", "seat3.cards", 20, 2.0, 25, 2.5, label="unreadable", position=here),
                      ZoneChange("card_relabelled", "seat3.cards", 27, 2.7, 29, 2.9, label="QD", position=here,
                                 previous="unreadable")])
    seat = engine.rounds[0].seats[3]
    assert seat.dealt == ["QD"]
    assert [label for _, label, _ in engine.rounds[0].deal] == ["QD"]


def test_the_hole_card_turned_over_in_place_is_the_dealers_second_card():
    first, _ = standard_deal(["9H", "7C"], "10S")
    seq = [ZoneChange("chips", "seat3.main", 10, 1.0, 10, 1.0, before=0, after=25)]
    t = 2.0
    for zone, label in first + [("dealer.cards", "BACK")]:
        seq.append(ZoneChange("card_arrived", zone, int(t * 10), t, int(t * 10) + 2, t + 0.2, label=label,
                              position=(500.0, 100.0 if zone.startswith("dealer") else 300.0 + t)))
        t += 1.0
    seq.append(ZoneChange("card_relabelled", "dealer.cards", int(t * 10), t, int(t * 10) + 2, t + 0.2, label="6D",
                          position=(500.0, 100.0), previous="BACK"))
    engine = _replay(seq, until=int(t * 10) + 20)
    r = engine.rounds[0] if engine.rounds else engine.current
    assert r.dealer == ["10S", "6D"] and r.hole_revealed_s is not None


S21 = TableProfile(game="spanish21", decks=6, side_bets=["mtd"])


def test_a_hit_after_a_hole_card_the_camera_never_saw_is_a_hit_not_a_dealing_order_break():
    first, _ = standard_deal(["5H", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).deal(*first).card("seat3.cards", "9D")
    r = t.engine.rounds[0]
    assert t.alerts == [] and r.seats[3].hits == ["9D"] and r.dealer == ["KS", "BACK"]


def test_spanish21_mtd_comes_due_at_an_unseen_hole_card_19_6_d():
    first, _ = standard_deal(["KS", "7C"], "KS")
    t = (Table(S21).chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first)
         .card("seat3.cards", "2D").chips_to("seat3.payout", 20))
    r = t.engine.rounds[0]
    assert r.sidebets_due_s == 5.0  # the last card seen in the deal: the hole card came right after it
    assert r.seats[3].expected["mtd"].outcome == "win"
    assert "mtd_settled_late" in [a[0] for a in t.alerts]  # paid after the hit


def test_spanish21_mtd_paid_short_before_the_unseen_hole_card_is_known_is_underpaid_19_6_e():
    """Seed 7106 at 4K: the hole card was never seen, so the match-the-dealer wager came due only when the first hit
    ended the deal; the payout placed before that is judged then."""
    first, _ = standard_deal(["KH", "7C"], "KS")
    t = (Table(S21).chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first)
         .chips_to("seat3.payout", 10).card("seat3.cards", "2D"))
    assert t.engine.rounds[0].seats[3].expected["mtd"].outcome == "win"
    assert [a for a in t.alerts if a[0] == "mtd_underpaid"] == [("mtd_underpaid", 3, 20, 10)]


def test_spanish21_a_losing_mtd_collected_before_the_hole_card_is_seen_shows_it_was_dealt_19_6_d():
    """1080p seed 7047 r1: the hole card, dealt under the dealer's hand, was first seen 2 s after the losing match-
    the-dealer wager was collected. Collected only after the dealer's second card (19.6), the wager shows that card was
    dealt: no pinching, and the hole card seen later face down is that card, not a card beyond the deal."""
    first, _ = standard_deal(["KH", "7C"], "AS")
    t = (Table(S21).chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).chips_to("seat2.main", 25)
         .chips_to("seat2.mtd", 5).deal(("seat2.cards", "9C"), *first[:2], ("seat2.cards", "6C"), first[2])
         .chips_to("seat3.mtd", 0).wait(1.0).card("dealer.cards", "BACK").chips_to("seat2.mtd", 0).wait(8.0))
    r = t.engine.rounds[0]
    assert r.dealer == ["AS", "BACK"] and r.first_extra_card_s is None
    assert t.alerts == []


def test_spanish21_mtd_paid_in_full_before_the_unseen_hole_card_is_known_raises_nothing():
    first, _ = standard_deal(["KH", "7C"], "KS")
    t = (Table(S21).chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first)
         .chips_to("seat3.payout", 20).card("seat3.cards", "2D"))
    assert t.alerts == []


def test_a_card_to_a_seat_whose_wager_the_camera_missed_is_dealt_in_order():
    t = (Table().chips_to("seat3.main", 25)
         .deal(("seat1.cards", "5H"), ("seat3.cards", "7C"), ("dealer.cards", "KS"),
               ("seat1.cards", "2D"), ("seat3.cards", "9S")))
    assert t.alerts == []


def test_layout_art_read_as_a_card_in_the_dealers_zone_before_the_deal_is_no_card_and_stays_none():
    art = ZoneChange("card_arrived", "dealer.cards", 0, 0.5, 0, 0.5, label="unreadable", position=(766.0, 333.0))
    gone = ZoneChange("card_left", "dealer.cards", 0, 4.5, 0, 4.5, label="unreadable", position=(766.0, 333.0))
    back = ZoneChange("card_arrived", "dealer.cards", 0, 5.5, 0, 5.5, label="unreadable", position=(767.0, 331.0))
    t = Table().chips_to("seat3.main", 25)
    t._feed(art)
    t.deal(("seat3.cards", "5H"), ("dealer.cards", "KS"))
    t.t = 4.5
    t._feed(gone)  # the dealer's hand over it
    t.t = 5.5
    t._feed(back)
    t.deal(("seat3.cards", "7C"))
    r = t.engine.rounds[0]
    assert r.dealer == ["KS"] and r.seats[3].dealt == ["5H", "7C"] and t.alerts == []


def test_no_card_is_turned_over_during_the_deal_2b_6_d():
    """Switch Hands: a face-up card landing as a face-down card's reading moves is a new card, not that one turned."""
    sh = TableProfile(game="blackjack", decks=6, deal_order="switch_hands")
    t = Table(sh).chips_to("seat3.main", 25).deal(("seat3.cards", "BACK"), ("seat3.cards", "BACK"))
    t.card("seat3.cards", "BACK", "card_left")
    t.card("seat3.cards", "JC")
    assert t.engine.rounds[0].seats[3].dealt == ["BACK", "BACK", "JC"]


def test_a_losing_mtd_the_camera_cannot_value_is_still_judged_late_when_collected_after_a_hit_2_23_e():
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = (Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", None).deal(*first).deal(*hole)
         .card("seat3.cards", "2D").chips_to("seat3.mtd", 0))
    assert "mtd_settled_late" in [a[0] for a in t.alerts]
    assert t.engine.rounds[0].seats[3].expected["mtd"].outcome == "lose"


def test_a_winning_mtd_paid_with_a_stack_the_camera_cannot_value_is_not_reported_unpaid():
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = (Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first).chips_to("seat3.payout", None)
         .deal(*hole).pick_up(("seat3.cards", "KH"), ("seat3.cards", "7C"), ("dealer.cards", "KS"),
                              ("dealer.cards", "BACK")))
    kinds = [a[0] for a in t.alerts]
    assert "mtd_underpaid" not in kinds and "unreadable" in kinds  # its amount cannot be checked, and it says so


def test_a_wager_read_for_a_moment_in_its_payout_area_has_not_moved():
    from vision.tracking import ZoneTracker

    tracker = ZoneTracker(["seat2.main", "seat2.payout"], rise_s=0.15, fall_s=0.6)
    frames = [{"seat2.main": 200}] * 5 + [{"seat2.payout": 200}] * 3 + [{"seat2.main": 200}] * 5
    changes = [c for f, chips in enumerate(frames) for c in tracker.update(f, f / 10, {}, chips)]
    assert [(c.zone, c.after) for c in changes] == [("seat2.main", 200)]


def test_winnings_slid_onto_the_spot_between_rounds_are_a_move():
    from vision.tracking import ZoneTracker

    tracker = ZoneTracker(["seat2.main", "seat2.payout"], rise_s=0.15, fall_s=0.6)
    frames = [{"seat2.payout": 50}] * 5 + [{"seat2.main": 50}] * 10
    changes = [c for f, chips in enumerate(frames) for c in tracker.update(f, f / 10, {}, chips)]
    assert ("seat2.main", 50) in [(c.zone, c.after) for c in changes]


def read_twice_as_it_lands(first: str, then: str) -> Table:
    """Seat 3's first card seen arriving as ``first`` and again, 0.1 s later, as ``then``; the deal goes on."""
    t = Table().chips_to("seat3.main", 25)
    t.card("seat3.cards", first)
    t._feed(ZoneChange("card_arrived", "seat3.cards", 0, t.t + 0.1, 0, t.t + 0.1, label=then))
    return t.deal(("dealer.cards", "KS"), ("seat3.cards", "7C"))


def test_a_card_read_twice_as_it_lands_is_dealt_once():
    t = read_twice_as_it_lands("5H", "5H")
    assert t.engine.rounds[0].seats[3].dealt == ["5H", "7C"] and t.alerts == []


def test_a_card_read_unreadable_as_it_lands_then_read_is_one_card_with_its_reading():
    t = read_twice_as_it_lands("unreadable", "10H")
    assert t.engine.rounds[0].seats[3].dealt == ["10H", "7C"] and t.alerts == []


def test_a_hole_card_first_seen_turned_over_was_dealt_right_after_the_last_card_before_it_19_6_d():
    first, _ = standard_deal(["KS", "7C"], "KS")
    t = Table(S21).chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first).card("dealer.cards", "9H")
    assert t.engine.rounds[0].sidebets_due_s == 5.0


def test_a_side_bet_whose_seat_the_camera_saw_no_main_wager_on_never_stops_the_audit():
    """Seat 3's main wager unseen: its match-the-dealer wager comes due with one card seen; it is unreadable."""
    t = Table().chips_to("seat3.mtd", 5).chips_to("seat4.main", 25)
    t.deal(("seat3.cards", "5H"), ("seat4.cards", "9C"), ("dealer.cards", "KS"), ("seat4.cards", "7D"))
    assert ("unreadable", 3, None, None) in t.alerts


def test_a_bonus_paid_beside_the_main_payout_where_the_two_cannot_be_counted_is_not_reported_unpaid():
    """The $75 main payout is counted; the bonus stack placed touching it makes one stack nobody can count."""
    t = (Table().chips_to("seat3.main", 50).chips_to("seat3.bonus", 1)
         .deal(("seat3.cards", "AS"), ("dealer.cards", "2C"), ("seat3.cards", "JH"), ("dealer.cards", "BACK")))
    t.card("dealer.cards", "BACK", "card_left").card("dealer.cards", "9D")
    t.chips_to("seat3.payout", 75).chips_to("seat3.payout", None)
    t.pick_up(("seat3.cards", "AS"), ("seat3.cards", "JH"), ("dealer.cards", "2C"), ("dealer.cards", "9D"))
    kinds = [a[0] for a in t.alerts]
    assert "bonus_underpaid" not in kinds and ("unreadable", 3) in [a[:2] for a in t.alerts]


def _dealer_faces_03_s_apart(second: str, at: tuple[float, float]):
    """Seat 3's 7C 9D against the 2H, the hole card dealt unseen under the dealer's hand; then the KS shows where
    it was turned over and ``second`` 0.3 s later at ``at`` (mm)."""
    first, _ = standard_deal(["7C", "9D"], "2H")
    t = Table().chips_to("seat3.main", 20).deal(*first)
    for label, position, dt in (("KS", (928.0, 250.0), 0.5), (second, at, 0.3)):
        t.t += dt
        t.engine.step(int(t.t * 10), t.t, [ZoneChange("card_arrived", "dealer.cards", int(t.t * 10), t.t, 0, t.t,
                                                      label=label, position=position)])
    return t.wait(1.0)


def test_cards_the_dealer_draws_in_quick_succession_beside_each_other_are_two_cards_2_2():
    """4K seed 7249 r0: the dealer's KS turned over and a 2S drawn 0.3 s later, laid 58 mm beside it: the 2S is a
    card drawn, not the KS read again (the dealer's 2H KS 2S 9C is 23, not 21)."""
    t = _dealer_faces_03_s_apart("2S", (986.0, 250.0)).card("dealer.cards", "9C")
    assert t.engine.rounds[0].dealer == ["2H", "KS", "2S", "9C"]


def test_a_face_read_anew_where_the_dealers_last_card_lies_is_that_card_2_2():
    t = _dealer_faces_03_s_apart("KC", (935.0, 252.0))
    assert t.engine.rounds[0].dealer == ["2H", "KS"]


SH = TableProfile(game="blackjack", decks=6, deal_order="switch_hands")


def test_a_second_card_first_seen_tucked_under_the_bonus_wager_is_the_players_2_20():
    """1080p seed 7023: the dealer's hand hid seat 3's KC as it was dealt, and the AD KC were tucked under the bonus
    wager before the hole card: the blackjack is the seat's first two cards and the bonus is due, not unreadable."""
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.bonus", 1)
    t.deal(("seat3.cards", "AD"), ("dealer.cards", "KS"))
    t.card("seat3.cards", "AD", "card_left").card("seat3.bonus", "AD").card("seat3.bonus", "KC")
    t.deal(("dealer.cards", "BACK"))
    s = t.engine.rounds[0].seats[3]
    assert sorted(s.first_two) == ["AD", "KC"] and s.expected["bonus"].outcome == "win"
    assert not [a for a in t.alerts if a[0] == "unreadable"]


def test_a_card_tucked_under_the_bonus_wager_reads_a_second_card_recorded_unreadable_2_20():
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.bonus", 1)
    t.deal(("seat3.cards", "AD"), ("dealer.cards", "KS"), ("seat3.cards", "unreadable"), ("dealer.cards", "BACK"))
    t.card("seat3.bonus", "AD").card("seat3.bonus", "KC")
    assert sorted(t.engine.rounds[0].seats[3].first_two) == ["AD", "KC"]


def test_a_second_card_first_seen_tucked_under_the_bonus_wager_keeps_the_deal_in_order_2_6_2_20():
    """4K seed 7156 r1: seat 5's AC was seen too briefly on the spot before it and the JC went under the bonus
    wager; seat 2's hit later is not a card out of turn, and the hit before the match-the-dealer settlement is."""
    t = Table().chips_to("seat2.main", 25).chips_to("seat2.mtd", 5).chips_to("seat5.main", 10)
    t.chips_to("seat5.bonus", 1)
    t.deal(("seat2.cards", "QD"), ("seat5.cards", "JC"), ("dealer.cards", "JS"), ("seat2.cards", "5C"))
    t.card("seat5.cards", "JC", "card_left").card("seat5.bonus", "JC").card("seat5.bonus", "AC")
    assert t.engine.rounds[0].seats[5].dealt[:2] == ["JC", "AC"]
    t.deal(("seat2.cards", "8H"))
    t.chips_to("seat2.mtd", 0)
    kinds = [a[:2] for a in t.alerts]
    assert ("dealing_order", 2) not in kinds and ("mtd_settled_late", 2) in kinds


def test_a_bonus_wager_read_anew_over_the_winners_tucked_cards_is_not_past_posting_2_20_f():
    """4K seed 7162 r1: a $1 bonus wager set back on the winner's AD JD read $26 (the cards' edges under it)."""
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.bonus", 1)
    t.deal(("seat3.cards", "AD"), ("dealer.cards", "9S"), ("seat3.cards", "JD"), ("dealer.cards", "BACK"))
    t.card("seat3.cards", "AD", "card_left").card("seat3.bonus", "AD").card("seat3.bonus", "JD")
    t.chips_to("seat3.bonus", 26)
    assert t.alerts == []


def test_a_bonus_wager_read_anew_as_the_second_card_is_first_seen_tucked_under_it_is_not_past_posting_2_20_f():
    """4K seed 7230 r0: seat 4's JC was seen 0.3 s on the spot, then tucked with the AS under the $5 bonus wager,
    which read $7 over them in the same frame as the JC was first seen there."""
    t = Table().chips_to("seat4.main", 150).chips_to("seat4.bonus", 5)
    t.deal(("seat4.cards", "AS"), ("dealer.cards", "AD"))
    t.card("seat4.cards", "AS", "card_left")
    t.t += 1.0
    t.chips["seat4.bonus"] = 7
    t.engine.step(int(t.t * 10), t.t, [
        ZoneChange("chips", "seat4.bonus", int(t.t * 10), t.t, 0, t.t, before=5, after=7),
        ZoneChange("card_arrived", "seat4.bonus", int(t.t * 10), t.t, 0, t.t, label="AS"),
        ZoneChange("card_arrived", "seat4.bonus", int(t.t * 10), t.t, 0, t.t, label="JC")])
    t.wait(1.0)
    assert sorted(t.engine.rounds[0].seats[4].first_two) == ["AS", "JC"]
    assert t.alerts == []


def test_a_bonus_wager_read_anew_once_the_winners_hand_left_its_spot_is_not_past_posting_2_20_f():
    """4K seed 7343 r0: seat 3's AH QD were moved from the spot under the $1 bonus wager, never read there (the
    stack hid them), and the wager on them read $3: the chips stand on cards, none were added."""
    t = Table().chips_to("seat3.main", 20).chips_to("seat3.bonus", 1)
    t.deal(("seat3.cards", "AH"), ("dealer.cards", "9S"), ("seat3.cards", "QD"))
    t.card("seat3.cards", "AH", "card_left").card("seat3.cards", "QD", "card_left")
    t.chips_to("seat3.bonus", 3)
    assert t.alerts == []


def test_chips_added_to_a_winning_bonus_wager_while_the_hand_is_on_its_spot_are_past_posting_2_20():
    t = Table().chips_to("seat3.main", 20).chips_to("seat3.bonus", 1)
    t.deal(("seat3.cards", "AH"), ("dealer.cards", "9S"), ("seat3.cards", "QD"))
    t.chips_to("seat3.bonus", 3)
    assert ("past_posting", 3, 1, 3) in t.alerts


def test_chips_added_to_a_bonus_wager_with_no_cards_under_it_are_past_posting_2_20():
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.bonus", 1)
    t.deal(("seat3.cards", "AD"), ("dealer.cards", "9S"), ("seat3.cards", "JD"), ("dealer.cards", "BACK"))
    t.chips_to("seat3.bonus", 26)
    assert ("past_posting", 3, 1, 26) in t.alerts


def _switch_hands_face_up_after_the_squared_pair(face_at):
    t = Table(SH).chips_to("seat2.main", 50).chips_to("seat4.main", 100)
    t.t += 1.0
    back = ZoneChange("card_arrived", "seat2.cards", int(t.t * 10), t.t, 0, t.t, label="BACK",
                      position=(1373.0, 460.0))
    t._feed(back)
    t.card("seat4.cards", "BACK").card("seat2.cards", "BACK", "card_squared")
    t.t += 0.3
    t.engine.step(int(t.t * 10), t.t, [ZoneChange("card_arrived", "seat2.cards", int(t.t * 10), t.t, 0, t.t,
                                                  label="AC", position=face_at)])
    t.wait(1.0).card("seat4.cards", "BACK", "card_squared")
    return t


def test_switch_hands_a_face_dealt_away_from_the_face_down_pair_is_a_card_out_of_turn_2b_6_d():
    """4K seed 7255 r1: an AC dealt face up to seat 2, 88 mm from its face-down pair, 0.3 s after its second
    face-down card and before seat 4's: the card out of turn is seat 2's, not the back's print read as an index."""
    t = _switch_hands_face_up_after_the_squared_pair((1342.0, 377.0))
    assert [a[:2] for a in t.alerts] == [("dealing_order", 2)]


def test_switch_hands_a_face_read_on_the_face_down_pair_is_the_backs_print_2b_6_d():
    t = _switch_hands_face_up_after_the_squared_pair((1380.0, 470.0))
    assert t.alerts == []


def test_switch_hands_second_face_down_cards_seen_squared_show_the_first_pass_out_of_order_2b_6_d():
    """4K seed 7169 r2: seat 6 got the first card; with each seat's second face-down card seen as its first one
    stepping, seat 3's first card is not taken for its second."""
    t = Table(SH).chips_to("seat3.main", 40).chips_to("seat6.main", 60)
    t.deal(("seat6.cards", "BACK"), ("seat3.cards", "BACK"))
    t.card("seat3.cards", "BACK", "card_squared").card("seat6.cards", "BACK", "card_squared")
    assert [a[:2] for a in t.alerts] == [("dealing_order", 6)]
    alert = t.engine.rounds[0].alerts[0]
    assert (alert.expected, alert.observed, alert.t_s) == (3, 6, 3.0)  # at seat 6's card, not when it was known


def test_switch_hands_face_down_passes_in_order_seen_squared_raise_nothing_2b_6_d():
    t = Table(SH).chips_to("seat3.main", 40).chips_to("seat6.main", 60)
    t.deal(("seat3.cards", "BACK"), ("seat6.cards", "BACK"))
    t.card("seat3.cards", "BACK", "card_squared").card("seat6.cards", "BACK", "card_squared")
    t.deal(("seat3.cards", "5H"), ("seat6.cards", "4H"), ("dealer.cards", "3H"), ("seat3.cards", "5S"),
           ("seat6.cards", "6D"), ("dealer.cards", "BACK"))
    assert t.alerts == []
    assert t.engine.rounds[0].seats[3].dealt[:2] == ["BACK", "BACK"]


def test_a_main_wager_first_valued_later_in_the_deal_and_then_cut_is_pinching_2_3():
    """4K seed 7167 r2: a $50 main wager on its spot all along, valued only 3 s after the first card, cut to $20."""
    t = Table().chips_to("seat3.main", None)
    t.deal(("seat3.cards", "9D"), ("dealer.cards", "2D"), ("seat3.cards", "9C"))
    t.chips_to("seat3.main", 50).chips_to("seat3.main", 20)
    assert t.engine.rounds[0].seats[3].wagers["main"] == 50
    assert ("pinching", 3, 50, 20) in t.alerts


def test_a_main_wager_back_on_its_spot_after_it_was_gone_is_not_valued_late_2_3():
    t = Table().chips_to("seat3.main", None)
    t.deal(("seat3.cards", "9D"), ("dealer.cards", "2D"))
    t.chips_to("seat3.main", 0).chips_to("seat3.main", 50)
    assert "main" not in t.engine.rounds[0].seats[3].wagers


SWITCH = TableProfile(game="switch_hands", decks=6)  # a burn card after a new shoe (2B.6(c))
SH_DEAL = (("seat3.cards", "BACK"), ("seat3.cards", "5D"), ("dealer.cards", "3C"), ("seat3.cards", "5S"),
           ("dealer.cards", "BACK"))  # the second face-down card squared on the first, unseen


def test_switch_hands_a_new_shoe_dealt_without_a_burn_card_in_view_is_a_dealing_order_alert_2b_6_c():
    """Seed 7005 (1080p): the first round of a new shoe opens with a card to seat 6, and no card went into the
    discard rack the camera watches."""
    t = Table(SWITCH, discard_in_view=True).chips_to("seat3.main", 25).deal(*SH_DEAL)
    assert [a[:2] for a in t.alerts] == [("dealing_order", 3)]
    alert = t.engine.rounds[0].alerts[0]
    assert (alert.expected, alert.observed, alert.rule) == ("burn", 3, "13:69F-2B.6(c)")


def test_switch_hands_a_burn_card_seen_going_into_the_discard_rack_opens_the_deal_2b_6_c():
    t = Table(SWITCH, discard_in_view=True).chips_to("seat3.main", 25).card("discard", "BACK").deal(*SH_DEAL)
    assert t.alerts == []


def test_switch_hands_a_burn_card_the_camera_cannot_see_go_in_is_taken_as_hidden_2b_6_c():
    t = Table(SWITCH).chips_to("seat3.main", 25).deal(*SH_DEAL)
    assert t.alerts == []


def test_switch_hands_face_down_pair_never_seen_is_the_pair_kept_when_the_face_up_pair_goes_2b_6_f():
    """The face-down pair lay squared under the face-up cards, unseen; the face-up pair is taken away and two faces
    show: the player kept the face-down pair."""
    t = Table(SH).chips_to("seat3.main", 25)
    t.deal(("seat3.cards", "5D"), ("dealer.cards", "3C"), ("seat3.cards", "5S"), ("dealer.cards", "BACK"))
    t.card("seat3.cards", "5D", "card_left").card("seat3.cards", "5S", "card_left")
    t.card("seat3.cards", "KD").card("seat3.cards", "7D")
    s = t.engine.rounds[0].seats[3]
    assert sorted(s.first_two) == ["7D", "KD"] and s.hits == []


def test_switch_hands_the_face_down_pair_read_as_faces_in_place_is_the_pair_kept_2b_6_f():
    """Seed 7108 at 4K: the face-down pair, squared, seen as one face-down card; once the face-up pair is taken away
    one of the pair shows as a new card and the face-down reading itself turns into the other."""
    t = Table(SH).chips_to("seat3.main", 25)
    t.deal(("seat3.cards", "BACK"), ("dealer.cards", "BACK"), ("seat3.cards", "5D"), ("dealer.cards", "3C"),
           ("seat3.cards", "5S"))
    t.card("seat3.cards", "5D", "card_left").card("seat3.cards", "5S", "card_left")
    t.card("seat3.cards", "KD")
    t.t += 0.3
    t._feed(ZoneChange("card_relabelled", "seat3.cards", int(t.t * 10), t.t, 0, t.t, label="7D", previous="BACK"))
    s = t.engine.rounds[0].seats[3]
    assert sorted(s.first_two) == ["7D", "KD"] and s.hits == []


def _switched_with_one_card_shown():
    """4K seed 7141 r0: the face-up pair taken away, the face-down pair turned over squared, its top card read in
    place (AD) and the card under it never."""
    t = Table(SH).chips_to("seat3.main", 25)
    t.deal(("seat3.cards", "BACK"), ("dealer.cards", "BACK"), ("seat3.cards", "5H"), ("dealer.cards", "3C"),
           ("seat3.cards", "9S"))
    t.card("seat3.cards", "5H", "card_left").card("seat3.cards", "9S", "card_left")
    t.t += 1.0
    t._feed(ZoneChange("card_relabelled", "seat3.cards", int(t.t * 10), t.t, 0, t.t, label="AD", previous="BACK"))
    return t


def _switched_first_card_read_anew(first: str, anew: str):
    """Switch Hands, seat 3 switches: the face-up QD 9D taken away, the pair kept's ``first`` card turned, the
    face-down card seen gone, and 0.7 s on the tracker reports ``first`` read anew as ``anew``."""
    t = Table(SH).chips_to("seat3.main", 30)
    t.deal(("seat3.cards", "BACK"), ("dealer.cards", "BACK"))
    t.card("seat3.cards", "BACK", "card_squared")
    t.deal(("seat3.cards", "QD"), ("dealer.cards", "QS"), ("seat3.cards", "9D"))
    t.card("seat3.cards", "QD", "card_left").card("seat3.cards", "9D", "card_left")
    t.card("seat3.cards", first).card("seat3.cards", "BACK", "card_left")
    t.t += 0.7
    t._feed(ZoneChange("card_relabelled", "seat3.cards", int(t.t * 10), t.t, 0, t.t, label=anew, previous=first))
    return t


def test_switch_hands_the_second_card_of_the_pair_kept_turned_on_the_first_is_read_with_it_2b_6_f():
    """4K seed 7246 r1: the AS of the face-down pair turned, then the KC turned over squared on it; the tracker
    reported the face-down card gone and the AS read anew as KC. The pair kept is AS KC."""
    s = _switched_first_card_read_anew("AS", "KC").engine.rounds[0].seats[3]
    assert sorted(s.first_two) == ["AS", "KC"] and s.hits == []


def _face_down_pair_kept_and_its_second_card_slid(second_again: str, arrival_first: bool = False):
    """4K seed 7192 r0 (layout mm as the detector placed them): seat 2's face-down pair squared, the face-up 4S 2H
    taken away, the 8S (the pair's second card) turned and slid off the first: seen at one end of its slide, then at
    the other as the face-down reading and the first 8S reading leave in one frame (``second_again`` there), then the
    4H it uncovered."""
    t = Table(SH).chips_to("seat2.main", 30)

    def at(t_s, *changes):
        t.engine.step(int(t_s * 10), t_s, [ZoneChange(kind, "seat2.cards", int(t_s * 10), t_s, int(t_s * 10), t_s,
                                                      label=label, position=pos) for kind, label, pos in changes])

    at(3.2, ("card_arrived", "BACK", (1378.0, 458.0)))
    at(3.4, ("card_arrived", "BACK", (1360.0, 60.0)))
    t.engine.step(34, 3.4, [ZoneChange("card_arrived", "dealer.cards", 34, 3.4, 34, 3.4, label="BACK")])
    at(5.1, ("card_squared", "BACK", (1373.0, 472.0)))
    at(7.0, ("card_arrived", "4S", (1342.0, 377.0)))
    t.engine.step(80, 8.0, [ZoneChange("card_arrived", "dealer.cards", 80, 8.0, 80, 8.0, label="5H")])
    at(9.4, ("card_arrived", "2H", (1343.0, 401.0)))
    at(11.6, ("card_left", "4S", (1342.0, 377.0)), ("card_left", "2H", (1343.0, 401.0)))
    at(12.2, ("card_arrived", "8S", (1416.0, 467.0)))
    left = [("card_left", "BACK", (1373.0, 472.0)), ("card_left", "8S", (1416.0, 467.0))]
    arrived = [("card_arrived", second_again, (1329.0, 455.0))]
    at(12.6, *(arrived + left if arrival_first else left + arrived))
    at(12.9, ("card_arrived", "4H", (1376.0, 485.0)))
    t.engine.step(140, 14.0, [])
    return t.engine.rounds[0].seats[2]


@pytest.mark.parametrize("arrival_first", [False, True])
def test_switch_hands_the_card_turned_and_slid_off_the_first_is_one_card_not_two_2b_6_f(arrival_first):
    s = _face_down_pair_kept_and_its_second_card_slid("8S", arrival_first)
    assert sorted(s.first_two) == ["4H", "8S"] and s.hits == []


def test_switch_hands_another_face_where_the_pair_lay_as_the_face_down_reading_leaves_is_the_other_card_2b_6_f():
    """The same frames, but the face showing as the face-down reading leaves is another card: the pair's first card
    turned, not the 8S moved; the 4H then is a hit."""
    s = _face_down_pair_kept_and_its_second_card_slid("9D")
    assert sorted(s.first_two) == ["8S", "9D"] and s.hits == ["4H"]


def test_switch_hands_one_card_of_the_face_down_pair_shown_after_the_face_up_pair_left_is_the_pair_kept_2b_6_f():
    s = _switched_with_one_card_shown().engine.rounds[0].seats[3]
    assert sorted(s.first_two) == ["AD", "unreadable"] and s.hits == []


def test_switch_hands_the_second_card_of_the_kept_pair_read_later_completes_it_2b_6_f():
    t = _switched_with_one_card_shown()
    t.card("seat3.cards", "JS")
    s = t.engine.rounds[0].seats[3]
    assert sorted(s.first_two) == ["AD", "JS"] and s.hits == []


def test_switch_hands_a_face_showing_as_one_card_of_the_face_up_pair_is_taken_away_is_the_pair_kept_2b_6_f():
    """Seed 7107 at 4K: the dealer takes the face-up pair away one card at a time and turns the unseen face-down
    pair over meanwhile; the first face shows while one face-up card still lies there."""
    t = Table(SH).chips_to("seat3.main", 25)
    t.deal(("seat3.cards", "4S"), ("dealer.cards", "4H"), ("seat3.cards", "AD"), ("dealer.cards", "BACK"))
    t.card("seat3.cards", "AD", "card_left").card("seat3.cards", "6H")
    t.card("seat3.cards", "4S", "card_left").card("seat3.cards", "10S")
    s = t.engine.rounds[0].seats[3]
    assert sorted(s.first_two) == ["10S", "6H"] and s.hits == []


def test_switch_hands_a_card_arriving_long_after_a_face_up_card_was_lost_is_a_hit():
    """Seed 7108 at 4K: a face-up card, covered as the next was dealt, missed for seconds; the card that comes then is
    a hit, not the face-down pair turned over."""
    t = Table(SH).chips_to("seat3.main", 25)
    t.deal(("seat3.cards", "5S"), ("dealer.cards", "JD"), ("seat3.cards", "AD"), ("dealer.cards", "BACK"))
    t.card("seat3.cards", "5S", "card_left")
    t.t += 3.0
    t.card("seat3.cards", "9S")
    s = t.engine.rounds[0].seats[3]
    assert s.first_two == ["5S", "AD"] and s.hits == ["9S"]


def test_switch_hands_a_card_laid_where_the_face_down_pair_was_taken_away_is_a_hit_2b_6_f():
    """Seed 7127 at 4K: the player kept the face-up pair; the face-down pair left the layout, and the hit dealt
    later lies where it lay."""
    def at(kind, label, mm):
        t.t += 1.0
        t._feed(ZoneChange(kind, "seat3.cards", int(t.t * 10), t.t, 0, t.t, label=label, position=mm))

    t = Table(SH).chips_to("seat3.main", 25)
    at("card_arrived", "BACK", (940.0, 621.0))
    at("card_arrived", "4S", (948.0, 509.0))
    t.card("dealer.cards", "KD")
    at("card_arrived", "2D", (960.0, 561.0))
    t.card("dealer.cards", "BACK")
    at("card_left", "BACK", (937.0, 641.0))
    t.t += 0.6  # the hit comes 1.6 s after the pair went, 40 mm from where it lay
    at("card_arrived", "9C", (945.0, 581.0))
    s = t.engine.rounds[0].seats[3]
    assert s.first_two == ["4S", "2D"] and s.hits == ["9C"]


def test_a_winning_bonus_hidden_while_its_cards_are_put_under_it_is_not_collected_2_20_f():
    """The winner's cards go under the bonus wager until it is paid after the round; the dealer's hand hides the
    stack meanwhile. Its payout, after the cards are picked up, is still its payout."""
    t = (Table().chips_to("seat3.main", 50).chips_to("seat3.bonus", 1)
         .deal(("seat3.cards", "AS"), ("dealer.cards", "2C"), ("seat3.cards", "JH"), ("dealer.cards", "BACK")))
    t.chips_to("seat3.bonus", 0)
    t.card("dealer.cards", "BACK", "card_left").card("dealer.cards", "9D")
    t.chips_to("seat3.payout", 75).chips_to("seat3.bonus", 1)
    t.card("seat3.cards", "AS", "card_left").card("seat3.cards", "JH", "card_left")
    t.card("dealer.cards", "2C", "card_left").card("dealer.cards", "9D", "card_left")
    t.chips_to("seat3.payout", 100)  # $25 for a $1 bonus that pays 15 to 1
    t.pick_up()
    assert [a[:4] for a in t.alerts] == [("bonus_overpaid", 3, 15, 25)]


def test_a_card_seen_on_the_dealers_spot_before_every_player_has_a_card_is_not_the_up_card():
    """Layout text read `unreadable` in the dealer's zone, confirmed after the first player's card came."""
    t = Table().chips_to("seat1.main", 25).chips_to("seat3.main", 25)
    t.card("seat1.cards", "5H")
    t._feed(ZoneChange("card_arrived", "dealer.cards", 0, t.t - 0.3, 0, t.t + 0.5, label="unreadable",
                       position=(766.0, 333.0)))
    t.deal(("seat3.cards", "7H"), ("dealer.cards", "2C"))
    r = t.engine.rounds[0]
    assert r.dealer == ["2C"] and t.alerts == []


def test_a_card_past_the_deals_length_is_play_not_a_dealing_order_break():
    """The hole card seen unreadable, then a card read twice: the deal has all its cards; the next is a hit."""
    first, _ = standard_deal(["5H", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).deal(*first, ("dealer.cards", "unreadable")).card("dealer.cards", "6H")
    assert [a[0] for a in t.alerts] == []


def test_a_losing_mtd_seen_but_not_valued_and_never_collected_is_reported_2_23_e():
    """The camera saw a stack on the spot but could not count it: the wager's outcome is still the cards', so a
    loser left standing through the pick-up is not collected, whatever its amount (beside a $60 main wager, above
    the match-the-dealer maximum, it is not read as a wager over the limit)."""
    first, hole = standard_deal(["10S", "10D"], "8S")
    t = (Table().chips_to("seat3.main", 60).chips_to("seat3.mtd", None).deal(*first).deal(*hole)
         .pick_up(("seat3.cards", "10S"), ("seat3.cards", "10D"), ("dealer.cards", "8S"), ("dealer.cards", "BACK")))
    assert ("mtd_not_collected", 3, None, 0) in t.alerts


def test_a_players_second_card_never_seen_before_the_hole_card_was_dealt_out_of_sight_not_out_of_order():
    """2.6: the hole card is the deal's last card. Seat 5's second card, laid on its first under the dealer's hand,
    was never seen: the hole card is no dealing-order fault, seat 5's second card is unreadable, and seat 3's losing
    match-the-dealer wager collected after the last card seen is a collection, not pinching."""
    t = (Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).chips_to("seat5.main", 25)
         .deal(("seat3.cards", "5H"), ("seat5.cards", "QS"), ("dealer.cards", "KD"), ("seat3.cards", "7C"))
         .chips_to("seat3.mtd", 0).card("dealer.cards", "BACK"))
    t.engine.step(int((t.t + 8) * 10), t.t + 8, [])
    assert t.alerts == []
    r = t.engine.current
    assert r.seats[5].dealt == ["QS", "unreadable"] and r.phase == "play"


def test_a_wager_hidden_under_the_dealers_hand_at_the_first_card_is_still_the_seats_wager():
    """The dealer's hand, dealing the first card, covers seat 4's wager for a moment: the stack seen again is the
    same wager (no past-posting), and the seat is in the round."""
    t = Table().chips_to("seat3.main", 25).chips_to("seat4.main", 20)
    t.t -= 0.5  # the stack goes 0.5 s before the first card
    t.chips_to("seat4.main", 0)
    t.t -= 0.5
    t.card("seat3.cards", "5H")
    t.chips_to("seat4.main", 20)
    t.deal(("seat4.cards", "9D"), ("dealer.cards", "KS"), ("seat3.cards", "7C"), ("seat4.cards", "QC"))
    assert t.alerts == []
    assert t.engine.current.seats[4].wagers == {"main": 20}


def test_a_wager_taken_back_just_before_the_first_card_is_no_wager():
    t = Table().chips_to("seat3.main", 25).chips_to("seat4.main", 20)
    t.t -= 0.5
    t.chips_to("seat4.main", 0)
    t.t -= 0.5
    t.deal(("seat3.cards", "5H"), ("dealer.cards", "KS"), ("seat3.cards", "7C"), ("dealer.cards", "BACK"))
    t.engine.step(int((t.t + 4) * 10), t.t + 4, [])
    assert t.alerts == []
    assert 4 not in t.engine.current.seats


def test_a_face_down_reading_on_a_players_cards_after_the_deal_is_no_hit_2_23_e():
    """Hits come face up: a card's back glimpsed on seat 3's cards after the deal is no card beyond the initial
    deal, so the losing match-the-dealer wager collected after it is not settled late."""
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = (Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first).deal(*hole)
         .card("seat3.cards", "BACK").chips_to("seat3.mtd", 0))
    assert t.alerts == []
    assert t.engine.current.seats[3].hits == []


def test_a_seat_dealt_cards_whose_wager_the_camera_missed_is_in_the_report_2_6():
    """Cards are dealt only to betting spots with a wager (2.6): a seat dealt cards stood a main wager, unvalued."""
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = (Table().chips_to("seat3.main", 25)
         .deal(("seat3.cards", "5H"), ("seat4.cards", "9D"), ("dealer.cards", "KS"), ("seat3.cards", "7C"),
               ("seat4.cards", "QC"), ("dealer.cards", "BACK")))
    seats = {s["seat"]: s for s in t.engine.current.to_json()["seats"]}
    assert seats[4]["cards"] == ["9D", "QC"] and seats[4]["wagers"] == {"main": None}


def test_a_card_seen_arriving_on_the_dealers_standing_hand_is_no_dealer_card_2_2():
    """The dealer draws no card to 18 (13:69F-2.2): a card seen arriving in the dealer's area once the hole card is
    turned over is one in the dealer's hand at the pick-up, first seen face down then read: it is not the dealer's,
    and the round ends when the cards are gone."""
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).deal(*first).deal(*hole)
    t.t += 1.0
    t._feed(ZoneChange("card_relabelled", "dealer.cards", int(t.t * 10), t.t, 0, t.t, label="8D", previous="BACK"))
    t.card("dealer.cards", "BACK")  # passing over the layout in the dealer's hand
    t.t += 1.0
    t._feed(ZoneChange("card_relabelled", "dealer.cards", int(t.t * 10), t.t, 0, t.t, label="7D", previous="BACK"))
    for zone, label in (("seat3.cards", "5H"), ("seat3.cards", "7C"), ("dealer.cards", "KS"),
                        ("dealer.cards", "8D"), ("dealer.cards", "7D")):
        t.card(zone, label, "card_left")
    t.engine.step(int((t.t + 5) * 10), t.t + 5, [])
    r = t.engine.rounds[0]
    assert r.dealer == ["KS", "8D"] and r.phase == "closing"


def test_a_wager_valued_then_not_valued_is_the_value_read_at_the_first_card():
    """A $25 wager read, then read as a stack that cannot be valued (a hand's shadow over it) before the first card:
    nothing says it changed, so the round's wager is $25, not an unvalued one."""
    first, hole = standard_deal(["5H", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.main", None).deal(*first)
    assert t.engine.current.seats[3].wagers == {"main": 25} and t.alerts == []


def test_a_second_card_of_the_same_identity_where_an_unreadable_glimpse_of_the_first_left_is_dealt_2_6():
    """Seed 7114: seat 3 is dealt JS, glimpsed unreadable beside it as it settles (the same card); later a second JS
    (six-deck shoe) lands where that glimpse was, as the glimpse's track leaves: a second card, not a re-reading of
    one never dealt."""
    t = Table().chips_to("seat3.main", 25)
    steps = [
        (2.0, [ZoneChange("card_arrived", "seat3.cards", 20, 2.0, 0, 2.0, label="JS", position=(765.0, 525.0)),
               ZoneChange("card_arrived", "seat3.cards", 20, 2.0, 0, 2.0, label="unreadable",
                          position=(755.0, 551.0))]),
        (3.0, [ZoneChange("card_arrived", "dealer.cards", 30, 3.0, 0, 3.0, label="KS", position=(870.0, 250.0))]),
        (4.0, [ZoneChange("card_left", "seat3.cards", 40, 4.0, 0, 4.0, label="unreadable", position=(755.0, 551.0)),
               ZoneChange("card_arrived", "seat3.cards", 40, 4.0, 0, 4.0, label="JS", position=(751.0, 559.0))]),
        (5.0, [ZoneChange("card_arrived", "dealer.cards", 50, 5.0, 0, 5.0, label="BACK", position=(920.0, 250.0))]),
    ]
    for at, changes in steps:
        t.engine.step(int(at * 10), at, changes)
        t.engine.step(int(at * 10) + 5, at + 0.5, [])
    t.engine.step(80, 8.0, [])
    assert t.engine.current.seats[3].dealt == ["JS", "JS"] and t.alerts == []


def test_a_payout_read_while_the_dealer_is_still_placing_it_is_judged_when_placed_2_23_f():
    """Seed 7125: the $20 match-the-dealer payout read at $5 for 0.3 s as its chips went down: no underpayment."""
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first)
    at = t.t + 1.0
    t.engine.step(int(at * 10), at, [ZoneChange("chips", "seat3.payout", int(at * 10), at, 0, at, before=0, after=5)])
    t.engine.step(int(at * 10) + 3, at + 0.3, [ZoneChange("chips", "seat3.payout", int(at * 10) + 3, at + 0.3, 0,
                                                          at + 0.3, before=5, after=20)])
    t.engine.step(int(at * 10) + 20, at + 2.0, [])
    assert t.alerts == []
    assert t.engine.current.seats[3].observed_payout["mtd"] == 20


def test_a_payout_stack_seen_unvalued_then_valued_pays_one_wager_2_20_j():
    """Seed 7125: the main wager's $25 payout, first seen as a stack that could not be valued, then valued: one
    payout of the main wager, not a second payout taken for the losing bonus (a false bonus_overpaid)."""
    first, hole = standard_deal(["KH", "9C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.bonus", 1).deal(*first).deal(*hole).chips_to("seat3.bonus", 0)
    t.t += 1.0
    t._feed(ZoneChange("card_relabelled", "dealer.cards", int(t.t * 10), t.t, 0, t.t, label="8D", previous="BACK"))
    t.chips_to("seat3.payout", None).chips_to("seat3.payout", 25)
    assert t.alerts == []
    s = t.engine.current.seats[3]
    assert s.observed_payout == {"main": 25} and not s.paid_unvalued


def test_a_dealers_second_card_read_unreadable_does_not_open_the_dealers_hand_19_6_d():
    """Seed 7115 at 4K: the hole card, glimpsed as the dealer slid it in, was read `unreadable` face up; the winning
    match-the-dealer payout placed next is that wager's, not the main wager's, and it is paid in full."""
    first, _ = standard_deal(["KH", "7C"], "KS")
    t = (Table(S21).chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first)
         .card("dealer.cards", "unreadable").chips_to("seat3.payout", 20))
    r = t.engine.rounds[0]
    assert r.hole_revealed_s is None
    assert r.seats[3].observed_payout == {"mtd": 20}
    assert [a for a in t.alerts if a[0].startswith("mtd_")] == []


def _at_once(t: Table, *changes, zone: str = "seat2.cards"):
    """Several changes the tracker confirmed at one instant, fed in the order given (the order it reported them)."""
    t.t += 1.0
    t.engine.step(int(t.t * 10), t.t, [ZoneChange(kind, zone, int(t.t * 10), t.t, 0, t.t, label=label,
                                                  position=mm) for kind, label, mm in changes])
    t.engine.step(int((t.t + 0.5) * 10), t.t + 0.5, [])


def _switch_hands_deal_at_seat2():
    t = Table(SH).chips_to("seat2.main", 50)
    _at_once(t, ("card_arrived", "BACK", (1374.0, 460.0)))
    _at_once(t, ("card_arrived", "2H", (1342.0, 377.0)))
    t.card("dealer.cards", "AS")
    _at_once(t, ("card_arrived", "8H", (1343.0, 401.0)))
    t.card("dealer.cards", "BACK")
    return t


def test_switch_hands_a_face_shown_as_the_face_up_pair_is_taken_away_in_the_same_instant_is_the_pair_kept_2b_6_f():
    """Seed 7127 at 4K: the dealer takes the face-up pair away and turns the face-down pair over in one movement; the
    tracker reported the first face (still turning, 46 mm from where the pair lay) before the pair's departures."""
    t = _switch_hands_deal_at_seat2()
    _at_once(t, ("card_arrived", "10H", (1419.0, 472.0)), ("card_left", "2H", (1342.0, 377.0)),
             ("card_left", "8H", (1343.0, 401.0)))
    _at_once(t, ("card_left", "BACK", (1370.0, 472.0)), ("card_arrived", "QS", (1393.0, 477.0)))
    s = t.engine.rounds[0].seats[2]
    assert sorted(s.first_two) == ["10H", "QS"] and s.hits == []


def test_switch_hands_a_hit_landing_over_a_card_of_the_pair_kept_just_after_it_turned_is_a_hit_2b_6_f():
    """4K seed 7185 r0: the pair kept turned (9C, QS); a second later the hit lands over the QS, whose index is lost
    in that instant: the hit is a hit, not the QS read anew."""
    t = _switch_hands_deal_at_seat2()
    _at_once(t, ("card_left", "2H", (1342.0, 377.0)), ("card_left", "8H", (1343.0, 401.0)))
    _at_once(t, ("card_arrived", "9C", (1396.0, 456.0)), ("card_left", "BACK", (1370.0, 472.0)))
    _at_once(t, ("card_arrived", "QS", (1331.0, 448.0)))
    _at_once(t, ("card_arrived", "5D", (1300.0, 418.0)), ("card_left", "QS", (1331.0, 448.0)))
    s = t.engine.rounds[0].seats[2]
    assert sorted(s.first_two) == ["9C", "QS"] and s.hits == ["5D"]


def test_switch_hands_a_face_read_with_a_players_face_down_card_is_the_backs_print_2b_6_d():
    """Seed 7127 at 4K: a lattice back's corner read 10H in the instant the player's first face-down card landed.
    The first two cards to a player come face down (13:69F-2B.6(d)): the card stays face down, and the deal, in
    order, raises no dealing_order alert."""
    t = Table(SH).chips_to("seat2.main", 50).chips_to("seat3.main", 25)
    _at_once(t, ("card_arrived", "BACK", (1374.0, 473.0)), ("card_arrived", "10H", (1419.0, 472.0)))
    t.deal(("seat3.cards", "BACK"), ("seat3.cards", "BACK"))
    r = t.engine.rounds[0]
    assert r.seats[2].dealt == ["BACK"]
    assert [(e.recipient, e.face_up) for e, _, _ in r.deal] == [(2, False), (3, False), (3, False)]
    assert not [a for a in t.alerts if a[0] == "dealing_order"]


def test_a_relabel_reads_anew_the_card_of_that_reading_lying_where_it_is():
    """Seed 7103 at 4K (black-faced deck): the second card and the hit both first read `unreadable`; the second card,
    read 10H where it lies, is the one read anew (not the later hit), so match-the-dealer is judged on 10H."""
    def at(kind, zone, label, mm, previous=None):
        t.t += 1.0
        t._feed(ZoneChange(kind, zone, int(t.t * 10), t.t, 0, t.t, label=label, position=mm, previous=previous))

    t = Table().chips_to("seat3.main", 40)
    at("card_arrived", "seat3.cards", "5C", (1176.0, 508.0))
    t.card("dealer.cards", "10S")
    at("card_arrived", "seat3.cards", "unreadable", (1168.0, 531.0))
    t.card("dealer.cards", "BACK")
    at("card_arrived", "seat3.cards", "unreadable", (1190.0, 572.0))
    at("card_relabelled", "seat3.cards", "10H", (1170.0, 530.0), previous="unreadable")
    s = t.engine.rounds[0].seats[3]
    assert s.first_two == ["5C", "10H"] and s.hits == ["unreadable"]
    assert [label for _, label, _ in t.engine.rounds[0].deal] == ["5C", "10S", "10H", "BACK"]


def _back_read_unreadable_at_seat3(t: Table) -> None:
    """In one instant, an unreadable index read where seat 3's face-down card lies, and its face-down reading gone."""
    _at_once(t, ("card_arrived", "unreadable", (1172.0, 586.0)), ("card_left", "BACK", (1167.0, 595.0)),
             zone="seat3.cards")


def test_switch_hands_an_unreadable_index_where_a_face_down_card_lies_is_its_back_2b_6_d():
    """Seed 7010 at 1080p: during the deal the player's face-down card was read, for two seconds, as an unreadable
    index where it lay, its face-down reading gone meanwhile. Switch Hands turns no card over during the deal and
    deals none face up there: it is the back, not a card dealt out of turn."""
    t = Table(SH).chips_to("seat3.main", 150).chips_to("seat4.main", 40)
    t.card("seat3.cards", "BACK").card("seat4.cards", "BACK").card("seat3.cards", "9S")
    _back_read_unreadable_at_seat3(t)
    t.card("seat4.cards", "7H")
    r = t.engine.rounds[0]
    assert r.seats[3].dealt == ["BACK", "9S"]
    assert not [a for a in t.alerts if a[0] == "dealing_order"]


def test_a_winning_bonus_paid_just_after_its_wager_is_taken_up_with_the_cards_is_not_reported_unpaid_2_20_f():
    """Seed 7013 at 1080p, where no stack could be counted: the bonus wager hidden as the winner's cards went under it
    (taken for its settlement), the cards and the wager taken up together after the round, and the bonus payout
    placed 0.4 s later. The round's end waits for the payout seen, and that payout is the bonus's, not nothing:
    no bonus_underpaid."""
    t = (Table().chips_to("seat3.main", None).chips_to("seat3.bonus", None)
         .deal(("seat3.cards", "AS"), ("dealer.cards", "2C"), ("seat3.cards", "JH"), ("dealer.cards", "BACK")))
    t.chips_to("seat3.bonus", 0).chips_to("seat3.bonus", None)  # hidden as the cards go under it, seen again
    t.card("dealer.cards", "BACK", "card_left").card("dealer.cards", "9D")
    t.chips_to("seat3.payout", None).chips_to("seat3.payout", 0)  # the main wager's blackjack, paid and taken
    t.card("dealer.cards", "2C", "card_left").card("dealer.cards", "9D", "card_left")
    t0 = t.t + 1.0
    held = [ZoneChange("card_left", "seat3.cards", 0, t0, 0, t0, label="AS"),
            ZoneChange("card_left", "seat3.cards", 0, t0, 0, t0, label="JH"),
            ZoneChange("chips", "seat3.bonus", 0, t0 + 0.1, 0, t0 + 0.1, before=None, after=0),
            ZoneChange("chips", "seat3.payout", 0, t0 + 0.4, 0, t0 + 0.4, before=0, after=None)]
    for k in range(40):  # 10 frames a second; each change reported as it is confirmed
        now = round(t0 + 0.1 * k, 1)
        t.engine.step(int(now * 10), now, [c for c in held if abs(c.t_s - now) < 0.05])
    t.engine.finish(int(now * 10) + 20, now + 2)
    assert "bonus_underpaid" not in [a[0] for a in t.alerts]


def test_a_match_the_dealer_payout_placed_before_a_hit_and_first_counted_after_it_is_not_late_2_23_e():
    """Seed 7012 at 1080p: the winning match-the-dealer payout seen before the first hit as a stack that could not
    be counted, counted once the hand was clear, after the hit: settled in time, paid in full."""
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first).deal(*hole)
    t.chips_to("seat3.payout", None)
    t.card("seat3.cards", "4D")  # the first hit
    t.chips_to("seat3.payout", 20)
    assert [a for a in t.alerts if a[0].startswith("mtd_")] == []


def test_spanish_21_a_payout_placed_once_the_players_hold_two_cards_means_the_hole_card_was_dealt_19_6_d():
    """Seed 7106 at 4K: the hole card slid under the up card, never seen; the winning match-the-dealer wager paid
    short. The payout itself shows the hole card was dealt: the wager is judged then, not at the first hit."""
    t = Table(S21).chips_to("seat3.main", 50).chips_to("seat3.mtd", 25)
    t.deal(("seat3.cards", "6D"), ("dealer.cards", "3H"), ("seat3.cards", "3C"))
    t.chips_to("seat3.payout", 50)  # a suited match pays more; no hit dealt yet
    assert ("mtd_underpaid", 3) in [a[:2] for a in t.alerts]


def test_spanish_21_a_payout_to_a_seat_without_match_the_dealer_does_not_end_the_deal():
    """A payout before the hole card to a seat with no match-the-dealer wager says nothing of the hole card; the hole
    card, dealt in view next, is the deal's last card, not a card beyond it."""
    t = Table(S21).chips_to("seat3.main", 50).chips_to("seat4.main", 25).chips_to("seat4.mtd", 5)
    t.deal(("seat3.cards", "6D"), ("seat4.cards", "9C"), ("dealer.cards", "3H"), ("seat3.cards", "3C"),
           ("seat4.cards", "KD"))
    t.chips_to("seat3.payout", 50)
    t.card("dealer.cards", "BACK").chips_to("seat4.mtd", 0)  # the losing match-the-dealer wager collected
    r = t.engine.rounds[0]
    assert r.dealer == ["3H", "BACK"] and r.first_extra_card_s is None
    assert "mtd_settled_late" not in [a[0] for a in t.alerts]


@pytest.mark.parametrize("hit", ["5D", "QS"])
def test_switch_hands_a_card_of_the_kept_pair_covered_as_a_hit_lands_is_not_read_anew_as_the_hit(hit):
    """Long after the pair was turned, the dealer's hand covers one of it as the hit lands: the hit is a hit, even
    one of the identity of the card it covers (QS over the QS kept: multi-deck shoes)."""
    t = _switch_hands_deal_at_seat2()
    _at_once(t, ("card_left", "2H", (1342.0, 377.0)), ("card_left", "8H", (1343.0, 401.0)))
    _at_once(t, ("card_arrived", "9C", (1396.0, 456.0)), ("card_left", "BACK", (1370.0, 472.0)))
    _at_once(t, ("card_arrived", "QS", (1393.0, 477.0)))
    t.t += 5.0
    _at_once(t, ("card_arrived", hit, (1380.0, 500.0)), ("card_left", "QS", (1393.0, 477.0)))
    s = t.engine.rounds[0].seats[2]
    assert sorted(s.first_two) == ["9C", "QS"] and s.hits == [hit]


def test_switch_hands_a_face_seen_as_the_dealers_hole_card_lands_is_not_swallowed_as_a_backs_print():
    """The face-down passes' rule is for players' cards: at the dealer's hole card, a face read in the same instant
    is, as before, the card turned on its way."""
    t = Table(SH).chips_to("seat3.main", 25)
    t.deal(("seat3.cards", "BACK"), ("seat3.cards", "5D"), ("dealer.cards", "3C"), ("seat3.cards", "5S"))
    t.card("dealer.cards", "BACK")
    t.t -= 0.8  # the face read 0.2 s after the hole card
    t.card("dealer.cards", "9D")
    assert t.engine.rounds[0].dealer == ["3C", "9D"]


def test_a_hit_read_anew_leaves_the_deal_record_alone():
    """A hit first read unreadable, read anew as 10H where it lies, with a second card of the deal unseen (no
    place known): the hit becomes 10H and the deal record keeps the unseen card as it was."""
    t = Table().chips_to("seat3.main", 40)
    t.deal(("seat3.cards", "5C"), ("dealer.cards", "10S"), ("seat3.cards", "unreadable"), ("dealer.cards", "BACK"))
    t.card("seat3.cards", "unreadable")
    t.engine.current.seats[3].dealt_at[-1] = None  # the second card's place not known
    t.t += 1.0
    t._feed(ZoneChange("card_relabelled", "seat3.cards", int(t.t * 10), t.t, 0, t.t, label="10H",
                       previous="unreadable", position=(1190.0, 572.0)))
    s = t.engine.rounds[0].seats[3]
    assert s.hits == ["10H"] and s.dealt == ["5C", "unreadable"]
    assert [label for _, label, _ in t.engine.rounds[0].deal] == ["5C", "10S", "unreadable", "BACK"]


def test_switch_hands_a_face_up_card_laid_on_the_face_down_pair_in_its_turn_is_a_card_however_first_read_2b_6_d():
    """The face-up card laid squarely on the player's face-down pair hides it, and is first read unreadable: in its
    turn that is the card dealt, not the back's print, and its reading follows."""
    t = Table(SH).chips_to("seat3.main", 25)
    t.card("seat3.cards", "BACK")
    _back_read_unreadable_at_seat3(t)
    t.t -= 0.5
    t.card("dealer.cards", "3C")  # the deal goes on: the dealer's up card
    t._feed(ZoneChange("card_relabelled", "seat3.cards", int(t.t * 10), t.t, 0, t.t, label="9S",
                       previous="unreadable", position=(1172.0, 586.0)))
    assert t.engine.rounds[0].seats[3].dealt == ["BACK", "9S"]
    assert not [a for a in t.alerts if a[0] == "dealing_order"]


def _switch_hands_face_down_pass_over_the_dealer(stays_s: float | None):
    """Seats 2 and 5 wagered at a Switch Hands table; each has its first face-down card, seat 2 its second. Seat 5's
    second card is seen face down on the dealer's spot on its way (``stays_s`` there; ``None``: it never leaves)."""
    t = Table(SH).chips_to("seat2.main", 50).chips_to("seat5.main", 25)
    _at_once(t, ("card_arrived", "BACK", (1374.0, 460.0)), zone="seat2.cards")
    _at_once(t, ("card_arrived", "BACK", (700.0, 460.0)), zone="seat5.cards")
    _at_once(t, ("card_arrived", "BACK", (1380.0, 470.0)), zone="seat2.cards")
    _at_once(t, ("card_arrived", "BACK", (950.0, 180.0)), zone="dealer.cards")
    if stays_s is not None:
        t.wait(stays_s - 1.0)
        _at_once(t, ("card_left", "BACK", (950.0, 180.0)), zone="dealer.cards")
    _at_once(t, ("card_arrived", "BACK", (700.0, 470.0)), zone="seat5.cards")
    return t


def test_switch_hands_a_face_down_card_carried_over_the_dealers_spot_is_no_dealers_card_2b_6_d():
    """1080p seed 7016: a player's face-down card seen 0.6 s on the dealer's spot on its way to the seat. The dealer's
    first card is the up card, face up (13:69F-2B.6(d)); one face down there that leaves at once was passing over."""
    t = _switch_hands_face_down_pass_over_the_dealer(stays_s=0.6)
    r = t.engine.rounds[0]
    assert r.dealer == []
    assert [(e.recipient, e.face_up) for e, _, _ in r.deal] == [(2, False), (5, False), (2, False), (5, False)]
    assert not [a for a in t.alerts if a[0] == "dealing_order"]


def test_switch_hands_a_face_down_card_that_stays_as_the_dealers_first_card_breaks_the_deal_2b_6_d():
    """Judged a second late, it is dealt at its own time: before seat 5's card seen since."""
    t = _switch_hands_face_down_pass_over_the_dealer(stays_s=None)
    r = t.engine.rounds[0]
    assert r.dealer == ["BACK"]
    assert [(e.recipient, e.face_up) for e, _, _ in r.deal] == [(2, False), (5, False), (2, False), ("dealer", False),
                                                                (5, False)]
    assert ("dealing_order", "dealer") in [a[:2] for a in t.alerts]


def test_switch_hands_two_cards_carried_over_the_dealers_spot_one_after_the_other_are_no_dealers_cards_2b_6_d():
    t = Table(SH).chips_to("seat2.main", 50).chips_to("seat5.main", 25)
    _at_once(t, ("card_arrived", "BACK", (1374.0, 460.0)), zone="seat2.cards")
    _at_once(t, ("card_arrived", "BACK", (700.0, 460.0)), zone="seat5.cards")
    _at_once(t, ("card_arrived", "BACK", (1000.0, 180.0)), zone="dealer.cards")
    t.wait(-0.4)
    _at_once(t, ("card_left", "BACK", (1000.0, 180.0)), ("card_arrived", "BACK", (950.0, 185.0)), zone="dealer.cards")
    t.wait(-0.4)
    _at_once(t, ("card_left", "BACK", (950.0, 185.0)), zone="dealer.cards")
    assert t.engine.rounds[0].dealer == []
    assert not [a for a in t.alerts if a[0] == "dealing_order"]


def test_the_dealers_up_card_first_seen_face_down_and_read_as_its_face_is_the_up_card_2_6():
    """A card held as perhaps passing over the dealer's spot and relabelled to its face 0.4 s on is the up card."""
    t = Table().chips_to("seat3.main", 25).card("seat3.cards", "KH").card("dealer.cards", "BACK")
    at = t.t + 0.4
    t.engine.step(int(at * 10), at, [ZoneChange("card_relabelled", "dealer.cards", int(at * 10), at, 0, at, label="9S",
                                                previous="BACK")])
    t.wait(2.0)
    r = t.engine.rounds[0]
    assert r.dealer == ["9S"]
    assert not [a for a in t.alerts if a[0] == "dealing_order"]


def test_a_payout_counted_a_moment_after_it_was_seen_unvalued_is_checked_not_reported_unreadable_2_23_f():
    """4K seed 7125: the $20 match-the-dealer payout read unvalued for 0.3 s as the dealer set it down, then $20."""
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first)
    t.at_once(1.0, ("seat3.payout", None)).at_once(0.3, ("seat3.payout", 20)).wait(2.0)
    assert t.alerts == []
    assert t.engine.rounds[0].seats[3].observed_payout["mtd"] == 20


def test_a_bonus_payout_touching_the_main_payout_and_read_again_at_its_value_is_still_unreadable():
    """The $75 main payout is counted; the bonus stack set down touching it reads unvalued, then the zone reads $75
    again (the bonus stack not counted): no payout will be counted for the bonus, so its amount is not checked."""
    t = (Table().chips_to("seat3.main", 50).chips_to("seat3.bonus", 1)
         .deal(("seat3.cards", "AS"), ("dealer.cards", "2C"), ("seat3.cards", "JH"), ("dealer.cards", "BACK")))
    t.card("dealer.cards", "BACK", "card_left").card("dealer.cards", "9D")
    t.chips_to("seat3.payout", 75).at_once(1.0, ("seat3.payout", None)).at_once(0.3, ("seat3.payout", 75)).wait(2.0)
    assert ("unreadable", 3) in [a[:2] for a in t.alerts]


def test_a_payout_never_valued_is_reported_unreadable():
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first)
    t.at_once(1.0, ("seat3.payout", None)).wait(2.0)
    assert [a[:2] for a in t.alerts] == [("unreadable", 3)]


def test_a_payout_unvalued_for_most_of_a_second_then_counted_is_checked_not_reported_unreadable_2_23_f():
    """4K seed 7134 round 2: a match-the-dealer payout read unvalued for 0.8 s under the dealer's hand, then
    counted: its amount is checked (here $15 for the $20 due), and nothing is reported unreadable (LATE_VALUE_S)."""
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first)
    t.at_once(1.0, ("seat3.payout", None)).wait(0.7).at_once(0.1, ("seat3.payout", 15)).wait(2.0)
    assert t.alerts == [("mtd_underpaid", 3, 20, 15)]


def test_a_payout_still_unvalued_a_second_on_is_unreadable_from_then():
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first)
    seen = t.t + 1.0
    t.at_once(1.0, ("seat3.payout", None)).wait(3.0)
    [alert] = [a for r in t.engine.rounds for a in r.alerts]
    assert (alert.type, alert.seat, alert.wager, alert.t_s) == ("unreadable", 3, "mtd", seen + 1.0)


UNCOUNTABLE = {"seat3.mtd": 1.2}  # seat 3's match-the-dealer spot: 1.2 px per chip from this camera


def test_a_wager_on_a_spot_too_flat_to_count_is_said_once_for_the_table_not_every_round():
    t = Table(uncountable_spots=UNCOUNTABLE)
    for up in ("KS", "9S"):
        t.chips_to("seat3.main", 25).chips_to("seat3.mtd", None).deal(
            ("seat3.cards", "KH"), ("dealer.cards", up), ("seat3.cards", "7C"), ("dealer.cards", "BACK"))
        t.chips_to("seat3.mtd", 0).chips_to("seat3.main", 0)
        t.card("dealer.cards", "BACK", "card_left").card("dealer.cards", "9D").pick_up(
            ("seat3.cards", "KH"), ("seat3.cards", "7C"), ("dealer.cards", "9D"), ("dealer.cards", up))
        t.engine.step(int((t.t + 3) * 10), t.t + 3, [])
        t.t += 3
    assert [r.to_json()["seats"][0]["wagers"] for r in t.engine.rounds] == [{"main": 25, "mtd": None}] * 2
    assert not [a for a in t.alerts if a[0] == "unreadable"]
    [said] = t.engine.table_alerts
    assert (said.type, said.seat, said.wager, said.round_index) == ("unreadable", 3, "mtd", -1)
    assert "1.2 px per chip" in said.message


def test_a_payout_on_a_wager_too_flat_to_count_is_unreadable_in_its_round_2_23_f():
    """The match-the-dealer wager cannot be counted, so neither can what it should be paid: the payout is not
    checked, and the round says so."""
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = Table(uncountable_spots=UNCOUNTABLE).chips_to("seat3.main", 25).chips_to("seat3.mtd", None).deal(*first)
    t.at_once(1.0, ("seat3.payout", 40)).wait(2.0)
    assert [a[:2] for a in t.alerts] == [("unreadable", 3)]
    assert "payout of $40 could not be checked" in t.engine.rounds[0].alerts[0].message


def test_an_unvalued_wager_on_a_countable_spot_is_still_unreadable_in_its_round():
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = Table(uncountable_spots=UNCOUNTABLE).chips_to("seat3.main", None).deal(*first).wait(2.0)
    assert [a[:2] for a in t.alerts] == [("unreadable", 3)] and not t.engine.table_alerts


def test_a_face_down_card_that_stays_on_the_dealers_spot_is_not_lost_when_layout_art_there_is_hidden_2_6():
    """Layout art read as a card back, set aside before any wager, is hidden by a hand 0.4 s after a card lands face
    down on the dealer's spot 94 mm from it: the art's going is not the card's."""
    t = Table()
    _at_once(t, ("card_arrived", "BACK", (1000.0, 120.0)), zone="dealer.cards")
    t.chips_to("seat3.main", 25).card("seat3.cards", "KH")
    _at_once(t, ("card_arrived", "BACK", (950.0, 200.0)), zone="dealer.cards")
    at = t.t - 1.0 + 0.4
    t.engine.step(int(at * 10), at, [ZoneChange("card_left", "dealer.cards", int(at * 10), at, 0, at, label="BACK",
                                                position=(1000.0, 120.0))])
    t.wait(2.0)
    assert t.engine.rounds[0].dealer == ["BACK"]


def test_a_face_down_card_that_stays_as_the_dealers_first_card_is_the_card_out_of_order_not_the_next_one_2_6():
    """Held a second to be judged, it is still processed before the seat's card dealt 0.6 s after it, so the alert
    names the dealer's card, not the seat's."""
    t = Table().chips_to("seat3.main", 25).card("seat3.cards", "KH")
    t.t += 1.0
    t.engine.step(int(t.t * 10), t.t, [ZoneChange("card_arrived", "dealer.cards", int(t.t * 10), t.t, 0, t.t,
                                                  label="BACK")])
    at = t.t + 0.6
    t.engine.step(int(at * 10), at, [ZoneChange("card_arrived", "seat3.cards", int(at * 10), at, 0, at, label="7C")])
    t.wait(3.0)
    r = t.engine.rounds[0]
    assert [e.recipient for e, _, _ in r.deal] == [3, "dealer", 3]
    assert [a[:2] for a in t.alerts if a[0] == "dealing_order"] == [("dealing_order", "dealer")]


def test_a_round_does_not_close_while_a_card_on_the_dealers_spot_is_being_judged():
    """The seat's only card hidden under the dealer's hand for 1.3 s as a face-down card lands on the dealer's spot
    and stays: the table is not clear (the held card lies on it), so the round goes on and its deal is checked whole.
    Fed every 0.1 s, as a video is."""
    engine = RoundEngine(BJ6, "t", fps=10, latency_s=0.5)
    script = {10: ZoneChange("chips", "seat3.main", 10, 1.0, 0, 1.0, before=0, after=25)}
    for f, kind, zone, label in ((20, "card_arrived", "seat3.cards", "KH"), (25, "card_left", "seat3.cards", "KH"),
                                 (26, "card_arrived", "dealer.cards", "BACK"), (38, "card_arrived", "seat3.cards", "KH"),
                                 (45, "card_arrived", "seat3.cards", "7C"), (55, "card_arrived", "dealer.cards", "9S")):
        script[f] = ZoneChange(kind, zone, f, f / 10, 0, f / 10, label=label)
    for f in range(0, 81):
        engine.step(f, f / 10, [script[f]] if f in script else [])
    engine.finish(81, 8.1)
    assert len(engine.rounds) == 1
    assert [a.type for a in engine.rounds[0].alerts] == ["dealing_order"]
    assert engine.rounds[0].alerts[0].seat == "dealer"


def test_a_payout_read_with_its_wager_then_read_apart_at_its_value_is_counted_once_2_23_f():
    """The merge of 4K seed 7259 r1, the payout read at its value ($15) once the dealer's hand squares the two apart:
    counted by that reading, not again as the wager's growth."""
    first, _ = standard_deal(["KH", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first)
    t.at_once(1.0, ("seat3.payout", None)).at_once(0.3, ("seat3.main", 40), ("seat3.payout", 0))
    t.at_once(1.5, ("seat3.main", 25), ("seat3.payout", 15)).wait(1.5)
    assert t.engine.rounds[0].seats[3].observed_payout == {"mtd": 15}
    assert t.alerts == [("mtd_underpaid", 3, 20, 15)]


def test_a_payout_seen_gone_a_frame_before_its_wager_grows_is_read_with_it_2_23_f():
    """Which of the two changes the camera sees first is chance: the payout's going 0.1 s before the growth."""
    first, _ = standard_deal(["KH", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first)
    t.at_once(1.0, ("seat3.payout", None)).at_once(0.2, ("seat3.payout", 0)).at_once(0.1, ("seat3.main", 40))
    t.at_once(2.0, ("seat3.main", 25), ("seat3.payout", None)).wait(1.5)
    assert t.alerts == [("mtd_underpaid", 3, 20, 15)]


def test_a_payout_read_lower_for_a_moment_and_back_is_counted_at_its_value_2_20_j():
    """$225 paid on a $150 blackjack, the $15 bonus payout beside it ($240, right); the dealer's fingers hide part
    of the stack for 0.3 s ($230), then $240 again: paid in full."""
    t = _blackjack_with_a_bonus(150, 1).chips_to("seat3.payout", 225)
    t.at_once(1.0, ("seat3.payout", 240)).at_once(0.3, ("seat3.payout", 230)).at_once(0.3, ("seat3.payout", 240))
    t.wait(1.5)
    assert t.engine.rounds[0].seats[3].observed_payout.get("bonus") == 15
    assert not [a for a in t.alerts if a[0].startswith("bonus_")]


def test_chips_added_to_a_bonus_wager_during_the_deal_over_the_spots_print_are_past_posting_2_20():
    """The printed bonus circle read face down (print, no card), the player adds $25 to the $1 bonus on seeing the
    ace: no face was tucked there, so the growth is chips added."""
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.bonus", 1).card("seat3.bonus", "BACK")
    t.deal(("seat3.cards", "AD"), ("dealer.cards", "9S")).chips_to("seat3.bonus", 26)
    assert ("past_posting", 3, 1, 26) in t.alerts


def test_switch_hands_the_backs_print_on_the_squared_second_card_is_no_card_2b_6_d():
    """Seat 2's second face-down card seen squared on the first 25 mm along, its back's print read 40 mm from there
    (65 mm from where the first arrived): the print, not a card dealt out of turn."""
    t = Table(SH).chips_to("seat2.main", 50).chips_to("seat4.main", 100)
    t.t += 1.0
    t._feed(ZoneChange("card_arrived", "seat2.cards", int(t.t * 10), t.t, 0, t.t, label="BACK",
                       position=(1373.0, 460.0)))
    t.card("seat4.cards", "BACK")
    t.t += 1.0
    t._feed(ZoneChange("card_squared", "seat2.cards", int(t.t * 10), t.t, 0, t.t, label="BACK",
                       position=(1373.0, 485.0)))
    t.t += 0.3
    t.engine.step(int(t.t * 10), t.t, [ZoneChange("card_arrived", "seat2.cards", int(t.t * 10), t.t, 0, t.t,
                                                  label="10H", position=(1373.0, 525.0))])
    t.wait(1.0).card("seat4.cards", "BACK", "card_squared")
    assert t.alerts == []


def test_switch_hands_a_turned_card_misread_then_read_anew_is_one_card_and_the_other_still_comes_2b_6_f():
    """The pair kept's first card read 8H, read anew 6H (the same suit: a misread outvoted), then the other card, 9C:
    the pair kept is 6H 9C, no hit."""
    t = _switched_first_card_read_anew("8H", "6H").card("seat3.cards", "9C")
    s = t.engine.rounds[0].seats[3]
    assert sorted(s.first_two) == ["6H", "9C"] and s.hits == []


# multi-deck shoes: a face of the identity of a card leaving the spot in that instant is no card moved but in
# Switch Hands' pair kept being turned


def test_a_hit_of_the_same_identity_landing_over_the_card_it_covers_is_a_hit():
    """Six decks: seat 3 holds 4D 8S; the hit is another 8S, laid over the first 8S so that its index is lost in the
    instant the hit is first seen (as in 4K seed 7185 r0, there with a 5D).
    The hit must count (4D 8S 8S = 20), and the losing match-the-dealer wager collected after it is settled late."""
    def at(kind, label, mm):
        t.t += 1.0
        t._feed(ZoneChange(kind, "seat3.cards", int(t.t * 10), t.t, 0, t.t, label=label, position=mm))

    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5)
    at("card_arrived", "4D", (1176.0, 508.0))
    t.card("dealer.cards", "KS")
    at("card_arrived", "8S", (1168.0, 531.0))
    t.card("dealer.cards", "BACK")
    _at_once(t, ("card_arrived", "8S", (1190.0, 572.0)), ("card_left", "8S", (1168.0, 531.0)), zone="seat3.cards")
    t.chips_to("seat3.mtd", 0)
    s = t.engine.rounds[0].seats[3]
    assert s.first_two == ["4D", "8S"] and s.hits == ["8S"]
    assert "mtd_settled_late" in [a[0] for a in t.alerts]


def test_switch_hands_the_pair_kept_holding_a_card_of_the_face_up_pairs_identity_is_the_pair_kept_2b_6_f():
    """test_switch_hands_a_face_shown_as_the_face_up_pair_is_taken_away_in_the_same_instant_is_the_pair_kept_2b_6_f
    (4K seed 7127: the face-up pair taken away and the face-down pair turned in one movement), with the face-down
    pair holding an 8H like the face-up pair's 8H (six decks). The 8H shown is the pair kept's card, not the
    face-up 8H moved: the pair kept is 8H QS."""
    t = _switch_hands_deal_at_seat2()  # face-up 2H 8H
    _at_once(t, ("card_arrived", "8H", (1419.0, 472.0)), ("card_left", "2H", (1342.0, 377.0)),
             ("card_left", "8H", (1343.0, 401.0)))
    _at_once(t, ("card_left", "BACK", (1370.0, 472.0)), ("card_arrived", "QS", (1393.0, 477.0)))
    s = t.engine.rounds[0].seats[2]
    assert sorted(s.first_two) == ["8H", "QS"] and s.hits == []


def _tracked(main_reads, cards):
    """The tracker (review_cli's rise_s/fall_s) fed seat 3's main wager readings at 10 fps, the round engine
    (latency 0.7 s) fed its changes and the scripted cards."""
    tracker = ZoneTracker(["seat3.main"], rise_s=0.15, fall_s=0.6)
    engine = RoundEngine(BJ6, "t", fps=10, latency_s=0.7)
    changes_seen = []
    for f, v in enumerate(main_reads):
        t = f / 10
        chs = tracker.update(f, t, {}, {"seat3.main": v})
        changes_seen += [(c.before, c.after) for c in chs]
        chs += [ZoneChange("card_arrived", z, f, t, f, t, label=label) for ff, z, label in cards if ff == f]
        engine.step(f, t, chs)
    engine.finish(len(main_reads) + 20, len(main_reads) / 10 + 2)
    return changes_seen, [(a.type, a.seat, a.expected, a.observed) for r in engine.rounds for a in r.alerts]


def test_a_wager_seen_again_and_read_low_for_a_moment_under_the_dealers_hand_is_no_change():
    """A $100 main wager valued at the first card; the dealer's hand, dealing, hides it (unvalued) for 1 s, uncovers
    it ($100 for 0.4 s), then covers part of it ($75 for 0.3 s, some chips hidden) and all of it again (unvalued) for
    1 s before it shows $100 again. Nothing was taken: a lower reading held 0.3 s, then hidden, is no change (confirmed
    as an overshoot of the rise from unvalued it would be a false `pinching`)."""
    reads = [100] * 25 + [None] * 10 + [100] * 4 + [75] * 3 + [None] * 10 + [100] * 60
    cards = [(10, "seat3.cards", "10C"), (16, "dealer.cards", "8S"), (30, "seat3.cards", "9D"),
             (36, "dealer.cards", "BACK")]
    changes, alerts = _tracked(reads, cards)
    assert (100, 75) not in changes
    assert not [a for a in alerts if a[0] == "pinching"]


def test_tracker_a_stack_first_valued_then_read_lower_for_a_moment_then_hidden_keeps_its_value():
    """The tracker alone: unvalued, $100 for 0.4 s, $75 for 0.3 s, unvalued again. The $75 lasted under fall_s and
    is not what the stack was before the rise (it was unvalued): a hand over part of the stack, not an overshoot."""
    tracker = ZoneTracker(["seat3.main"], rise_s=0.15, fall_s=0.6)
    frames = [{"seat3.main": None}] * 5 + [{"seat3.main": 100}] * 4 + [{"seat3.main": 75}] * 3 \
        + [{"seat3.main": None}] * 10
    changes = [c for f, chips in enumerate(frames) for c in tracker.update(f, f / 10, {}, chips)]
    assert (100, 75) not in [(c.before, c.after) for c in changes]


def test_a_payout_read_low_for_a_moment_as_the_dealers_hand_squares_it_is_paid_in_full_2_23_f():
    """Seat 3's KH 7C against the KS (unsuited match: $20 due on $5). The dealer sets the $20 payout down: unvalued
    under the hand for 0.8 s, $20 for 0.4 s, $15 for 0.3 s as the fingers come back to square it (a chip hidden),
    unvalued under the hand for 1 s, then $20 for good. Paid right: no alert (the $15 confirmed as an overshoot of the
    rise from unvalued would be a false `mtd_underpaid`)."""
    tracker = ZoneTracker(["seat3.main", "seat3.mtd", "seat3.payout"], rise_s=0.15, fall_s=0.6)
    engine = RoundEngine(BJ6, "t", fps=10, latency_s=0.7)
    cards = [(20, "seat3.cards", "KH"), (26, "dealer.cards", "KS"), (32, "seat3.cards", "7C"),
             (36, "dealer.cards", "BACK")]
    payout = [0] * 50 + [None] * 8 + [20] * 4 + [15] * 3 + [None] * 10 + [20] * 60
    for f, p in enumerate(payout):
        t = f / 10
        chs = tracker.update(f, t, {}, {"seat3.main": 25, "seat3.mtd": 5, "seat3.payout": p})
        chs += [ZoneChange("card_arrived", z, f, t, f, t, label=label) for ff, z, label in cards if ff == f]
        engine.step(f, t, chs)
    engine.finish(len(payout) + 20, len(payout) / 10 + 2)
    assert [(a.type, a.seat) for r in engine.rounds for a in r.alerts] == []


def _payout_stack(t, kind, value=None, since=None, at=(500.0, 600.0)):
    """A change of one stack of seat 3's payout area (:mod:`vision.stack_tracking`) at the table's time."""
    return ZoneChange(kind, "seat3.payout", int(t.t * 10), t.t, 0, t.t, after=value, position=at,
                      since_t_s=t.t if since is None else since, stack=int(at[0] * 1000 + at[1]))


def _bonus_paid_behind_the_main_payout():
    """Seat 3's blackjack (AS JH, $50 main, $1 bonus: $15 due, 2.20(f)) against the 2C 9D; the $75 main payout
    counted as a stack of its own, then the bonus payout set down just behind it: the area reads unvalued (4K seed
    7234 r1: the back stack's bottom chips hidden by the front one). Returns (table, when the bonus was placed)."""
    t = (Table().chips_to("seat3.main", 50).chips_to("seat3.bonus", 1)
         .deal(("seat3.cards", "AS"), ("dealer.cards", "2C"), ("seat3.cards", "JH"), ("dealer.cards", "BACK")))
    t.card("dealer.cards", "BACK", "card_left").card("dealer.cards", "9D")
    t.t += 1.0
    t.engine.step(int(t.t * 10), t.t, [_payout_stack(t, "stack_seen", at=(500.0, 650.0))])
    t.at_once(0.0, ("seat3.payout", 75)).wait(0.5)
    t.t += 1.0
    t.engine.step(int(t.t * 10), t.t, [_payout_stack(t, "stack_seen")])
    placed = t.t
    t.at_once(0.0, ("seat3.payout", None)).wait(3.0)
    return t, placed


def test_a_bonus_payout_set_behind_the_main_payout_is_valued_once_seen_clear_2_20_j():
    """Unvalued while it stands behind the main payout, the bonus payout is read $14 once the player took the $75
    and it stood alone, then taken: underpaid, and not `unreadable`."""
    t, placed = _bonus_paid_behind_the_main_payout()
    assert t.alerts == []  # still standing, still to be valued
    t.t += 1.0
    t.engine.step(int(t.t * 10), t.t, [_payout_stack(t, "stack_left", 14, since=placed)])
    t.at_once(0.0, ("seat3.payout", 14)).wait(2.0)
    assert t.alerts == [("bonus_underpaid", 3, 15, 14)]
    [alert] = t.engine.rounds[0].alerts
    assert alert.t_s == placed  # when it was paid; raised once it was seen clear


def test_a_stack_standing_before_the_bonus_was_paid_is_not_its_payout_2_20_j():
    """The $75 main payout, taken away at its value (a stack first seen before the bonus payout), says nothing of
    the bonus payout's amount: it is still `unreadable` once its own stack is taken unvalued."""
    t, placed = _bonus_paid_behind_the_main_payout()
    t.t += 1.0
    t.engine.step(int(t.t * 10), t.t, [_payout_stack(t, "stack_left", 75, since=placed - 1.0, at=(500.0, 650.0))])
    t.wait(3.0)
    assert t.alerts == []  # the bonus payout's stack still stands
    t.t += 1.0
    t.engine.step(int(t.t * 10), t.t, [_payout_stack(t, "stack_left", None, since=placed)])
    t.at_once(0.0, ("seat3.payout", 0)).wait(3.0)
    assert [a[:2] for a in t.alerts] == [("unreadable", 3)]


def test_an_unvalued_bonus_payout_taken_away_unvalued_is_unreadable_from_a_second_after_it_was_paid():
    t, placed = _bonus_paid_behind_the_main_payout()
    t.t += 1.0
    t.engine.step(int(t.t * 10), t.t, [_payout_stack(t, "stack_left", None, since=placed)])
    t.at_once(0.0, ("seat3.payout", 0)).wait(3.0)
    [alert] = t.engine.rounds[0].alerts
    assert (alert.type, alert.seat, alert.wager, alert.t_s) == ("unreadable", 3, "bonus", placed + 1.0)


def _cards_and_wager_taken(t):
    """The dealer picks up seat 3's AS JH and the 2C 9D; the player then takes the main wager (the round closes)."""
    for zone, label in (("seat3.cards", "AS"), ("seat3.cards", "JH"), ("dealer.cards", "2C"), ("dealer.cards", "9D")):
        t.card(zone, label, "card_left")
    t.wait(3.0).chips_to("seat3.main", 0).chips_to("seat3.bonus", 0)
    return t


def test_a_bonus_payout_still_standing_when_the_round_closes_is_valued_as_the_player_takes_it_2_20_j():
    """4K seed 7234 r1: the player took the main wager (the round closed), then the $225, then the $99 bonus
    payout, read right only then."""
    t, placed = _bonus_paid_behind_the_main_payout()
    _cards_and_wager_taken(t)
    assert t.engine.current is None and t.alerts == []
    t.t += 1.0
    t.engine.step(int(t.t * 10), t.t, [_payout_stack(t, "stack_left", 14, since=placed)])
    t.at_once(0.0, ("seat3.payout", 0)).wait(2.0)
    assert t.alerts == [("bonus_underpaid", 3, 15, 14)]


def test_a_stack_first_seen_once_the_next_round_is_dealt_is_not_the_last_rounds_bonus_payout_2_20_j():
    """The last round's bonus payout stands unvalued; the next round is bet and dealt; a stack then first seen in
    seat 3's payout area is that round's (a match-the-dealer payout), not the last round's bonus payout."""
    t, placed = _bonus_paid_behind_the_main_payout()
    _cards_and_wager_taken(t)
    t.chips_to("seat3.main", 25).card("seat3.cards", "9C")
    t.t += 1.0
    t.engine.step(int(t.t * 10), t.t, [_payout_stack(t, "stack_left", 20, since=t.t - 0.5, at=(540.0, 600.0))])
    t.engine.finish(int(t.t * 10) + 20, t.t + 2)
    assert [(a.type, a.seat) for a in t.engine.rounds[0].alerts] == [("unreadable", 3)]


def test_an_unvalued_bonus_payout_whose_stack_never_leaves_is_unreadable_after_stack_wait_s():
    from vision.rounds import STACK_WAIT_S

    t, placed = _bonus_paid_behind_the_main_payout()
    t.wait(STACK_WAIT_S)
    assert [a[:2] for a in t.alerts] == [("unreadable", 3)]


def test_a_main_payout_set_down_after_an_unvalued_match_the_dealer_payout_is_not_counted_for_it_2_23_f():
    """Seat 3's KH 7C against the KS: an unsuited match, $20 due on $5, paid $15 as a stack that cannot be counted
    (set touching the wager); the dealer busts, and the $25 main payout is set down beside it, unvalued too. Taken
    away, the two stacks read $15 and $25: the match-the-dealer payout is the $15 (13:69F-2.23(f)), not the two."""
    first, hole = standard_deal(["KH", "7C"], "KS")
    t = Table().chips_to("seat3.main", 25).chips_to("seat3.mtd", 5).deal(*first)
    t.t += 1.0
    t.engine.step(int(t.t * 10), t.t, [_payout_stack(t, "stack_seen")])
    mtd_at = t.t
    t.at_once(0.0, ("seat3.payout", None)).wait(1.5)
    t.deal(*hole).card("dealer.cards", "BACK", "card_left").card("dealer.cards", "5D").card("dealer.cards", "8C")
    t.t += 1.0
    t.engine.step(int(t.t * 10), t.t, [_payout_stack(t, "stack_seen", at=(540.0, 600.0))])
    t.wait(2.0)
    t.t += 1.0
    t.engine.step(int(t.t * 10), t.t, [_payout_stack(t, "stack_left", 15, since=mtd_at),
                                      _payout_stack(t, "stack_left", 25, since=t.t - 3.0, at=(540.0, 600.0))])
    t.at_once(0.0, ("seat3.payout", 0)).wait(3.0)
    assert t.alerts == [("mtd_underpaid", 3, 20, 15)]


def test_a_busted_hands_wager_collected_before_the_dealers_hand_is_played_is_no_pinching_2_2():
    """4K seed 7344 r1: seat 3's QS 2C and a KC hit, 22, bust: the dealer takes its wager at once, before turning the
    hole card; that is its settlement (the hand lost), not pinching."""
    first, hole = standard_deal(["QS", "2C"], "10H")
    t = Table().chips_to("seat3.main", 20).deal(*first).deal(*hole).card("seat3.cards", "KC")
    t.chips_to("seat3.main", 0).wait(8.0)
    t.card("dealer.cards", "BACK", "card_left").card("dealer.cards", "8H").wait(2.0)
    assert not [a for a in t.alerts if a[0] == "pinching"]


def test_a_wager_taken_before_the_dealers_hand_is_played_from_a_hand_not_bust_is_pinching_2_3():
    first, hole = standard_deal(["QS", "2C"], "10H")
    t = Table().chips_to("seat3.main", 20).deal(*first).deal(*hole).card("seat3.cards", "5C")
    t.chips_to("seat3.main", 0).wait(8.0)
    t.card("dealer.cards", "BACK", "card_left").card("dealer.cards", "8H").wait(2.0)
    assert [a[:2] for a in t.alerts] == [("pinching", 3)]


def test_a_pair_split_and_hit_past_21_in_all_is_not_taken_for_a_bust_2_2():
    """8D 8C split: two hands, their cards all on one seat's spot here; 8D 8C 10S 9H is no bust of one hand."""
    first, hole = standard_deal(["8D", "8C"], "10H")
    t = Table().chips_to("seat3.main", 20).deal(*first).deal(*hole).card("seat3.cards", "10S").card("seat3.cards", "9H")
    t.chips_to("seat3.main", 0).wait(8.0)
    t.card("dealer.cards", "BACK", "card_left").card("dealer.cards", "8H").wait(2.0)
    assert [a[:2] for a in t.alerts] == [("pinching", 3)]
