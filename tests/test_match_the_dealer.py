"""Match-the-dealer: 13:69F-2.23 (blackjack) and 13:69F-19.6 (Spanish 21)."""

from fractions import Fraction

from rules.cards import parse_card as c
from rules.match_the_dealer import match_the_dealer_payout
from rules.profile import MtdOdds, TableProfile
from rules.settle import SeatHand, settle_round

SIX = MtdOdds(unsuited=4, suited=11)


def test_a_card_of_the_up_cards_rank_and_suit_is_a_suited_match_paid_11_to_1():
    r = match_the_dealer_payout(c("KH"), [c("KH"), c("7C")], 5, SIX)
    assert (r.outcome, r.payout) == ("win", 55)
    assert r.matches[0].suited


def test_same_rank_other_suit_is_an_unsuited_match_paid_4_to_1():
    assert match_the_dealer_payout(c("KH"), [c("KS"), c("7C")], 5, SIX).payout == 20


def test_ten_value_cards_match_only_their_own_rank_2_23_a():
    assert match_the_dealer_payout(c("10H"), [c("JH"), c("5D")], 5, SIX).outcome == "lose"
    assert match_the_dealer_payout(c("KH"), [c("QH"), c("JH")], 25, SIX).outcome == "lose"
    assert match_the_dealer_payout(c("10H"), [c("10S"), c("2C")], 5, SIX).payout == 20


def test_each_matching_card_is_paid_2_23_a_2():
    assert match_the_dealer_payout(c("KH"), [c("KH"), c("KH")], 5, SIX).payout == 110
    assert match_the_dealer_payout(c("KH"), [c("KH"), c("KC")], 5, SIX).payout == 75
    assert match_the_dealer_payout(c("KH"), [c("KC"), c("KH")], 5, SIX).payout == 75


def test_eight_deck_minimum_odds_are_3_and_14():
    p = TableProfile(game="blackjack", decks=8)
    assert p.effective_mtd_odds() == MtdOdds(unsuited=3, suited=14)
    r = settle_round(p, c("7S"), [SeatHand(1, (c("7S"), c("7D")), {"mtd": 25})])
    assert r.seats[0].mtd.payout == 425


def test_posted_odds_above_the_minimum_are_paid_as_posted():
    p = TableProfile(game="blackjack", decks=6, mtd_odds={"unsuited": 5, "suited": 12})
    r = settle_round(p, c("KH"), [SeatHand(1, (c("KS"), c("7C")), {"mtd": 5})])
    assert r.seats[0].mtd.payout == 25


def test_the_hole_card_never_matches():
    p = TableProfile(game="spanish21", decks=6, mtd_max=100)
    r = settle_round(p, c("5H"), [SeatHand(1, (c("KH"), c("KS")), {"main": 25, "mtd": 5})], dealer_hole=c("KH"))
    assert r.seats[0].mtd.outcome == "lose"


def test_spanish21_minimum_odds_are_4_and_9_with_six_decks_3_and_12_with_eight():
    assert TableProfile(game="spanish21", decks=6).effective_mtd_odds() == MtdOdds(unsuited=4, suited=9)
    assert TableProfile(game="spanish21", decks=8).effective_mtd_odds() == MtdOdds(unsuited=3, suited=12)


def test_spanish21_wager_at_least_one_dollar_19_6_b():
    p = TableProfile(game="spanish21", decks=6, mtd_max=100)
    r = settle_round(p, c("KH"), [SeatHand(1, (c("KS"), c("5C")), {"main": 25, "mtd": 0.5})])
    assert r.seats[0].mtd.outcome == "void"
    assert [(v.kind, v.rule) for v in r.violations] == [("wager", "13:69F-19.6(b)")]


def test_spanish21_wager_not_above_the_main_wager_19_6_b_1():
    p = TableProfile(game="spanish21", decks=8, mtd_max=500)
    r = settle_round(p, c("KH"), [SeatHand(1, (c("KS"), c("5C")), {"main": 25, "mtd": 26})])
    assert r.seats[0].mtd.outcome == "void"
    assert r.violations[0].rule == "13:69F-19.6(b)1"


def test_spanish21_wager_not_above_the_posted_maximum_19_6_b_2():
    p = TableProfile(game="spanish21", decks=6, mtd_max=100)
    r = settle_round(p, c("KH"), [SeatHand(1, (c("KS"), c("5C")), {"main": 200, "mtd": 150})])
    assert r.violations[0].rule == "13:69F-19.6(b)2"


def test_a_ten_in_a_spanish21_shoe_is_a_card_violation():
    p = TableProfile(game="spanish21", decks=6)
    r = settle_round(p, c("KH"), [SeatHand(2, (c("10S"), c("5C")), {"main": 25, "mtd": 5})])
    assert r.seats[0].mtd.outcome == "void"
    assert [(v.kind, v.seat) for v in r.violations] == [("card", 2)]


def test_a_ten_up_card_in_spanish21_voids_the_round_table_wide():
    p = TableProfile(game="spanish21", decks=6)
    r = settle_round(p, c("10H"), [SeatHand(2, (c("9S"), c("5C")), {"main": 25, "mtd": 5})])
    assert r.seats[0].mtd.outcome == "void"
    assert r.violations[0].kind == "card" and r.violations[0].seat is None


def test_payouts_are_exact_to_the_cent():
    r = match_the_dealer_payout(c("KH"), [c("KS"), c("7C")], Fraction(5, 2), SIX)
    assert r.payout == 10
