"""Exact house edges, replaying the published tables (rules.md §3.3, §4.2)."""

from fractions import Fraction

import pytest

from rules.edge import (
    blackjack_probability,
    bonus_house_advantage,
    bonus_payout_range,
    mtd_event_counts,
    mtd_house_edge,
    mtd_match_distribution,
    mtd_statistics,
)


@pytest.mark.parametrize("decks,spanish,unsuited,suited,edge", [
    (6, False, 4, 11, Fraction(1958, 48205)),
    (8, False, 3, 14, Fraction(3156, 85905)),
    (6, True, 4, 9, Fraction(1254, 41041)),
    (8, True, 3, 12, Fraction(2184, 73153)),
])
def test_nj_minimum_paytables_have_the_exact_published_house_edge(decks, spanish, unsuited, suited, edge):
    assert mtd_house_edge(decks, unsuited, suited, spanish) == edge


@pytest.mark.parametrize("decks,spanish,counts", [
    (6, False, (10, 90, 1440, 153, 5184, 41328, 48205)),
    (8, False, (21, 168, 2688, 276, 9216, 73536, 85905)),
    (6, True, (10, 90, 1320, 153, 4752, 34716, 41041)),
    (8, True, (21, 168, 2464, 276, 8448, 61776, 73153)),
])
def test_combination_counts_match_the_rules_table(decks, spanish, counts):
    c = mtd_event_counts(decks, spanish)
    assert (c.two_suited, c.suited_unsuited, c.one_suited, c.two_unsuited, c.one_unsuited, c.none, c.total) == counts


@pytest.mark.parametrize("decks,spanish,unsuited,suited,hit_pct,sd,break_even", [
    (6, False, 4, 11, 14.266, 2.630, 12.263),
    (8, False, 3, 14, 14.398, 2.971, 15.089),
    (6, True, 4, 9, 15.411, 2.448, 9.877),
    (8, True, 3, 12, 15.552, 2.748, 12.817),
])
def test_hit_frequency_sd_and_break_even_odds(decks, spanish, unsuited, suited, hit_pct, sd, break_even):
    st = mtd_statistics(decks, unsuited, suited, spanish)
    assert round(float(st.hit_frequency) * 100, 3) == hit_pct
    assert round(st.standard_deviation, 3) == sd
    assert round(float(st.break_even_suited_odds), 3) == break_even


def test_wizard_of_odds_two_deck_4_19_return():
    c = mtd_event_counts(2)
    assert (c.two_suited, c.suited_unsuited, c.one_suited, c.two_unsuited, c.one_unsuited, c.none, c.total) == (
        0, 6, 96, 15, 576, 4560, 5253)
    assert round(float(-mtd_house_edge(2, 4, 19)), 6) == -0.033124


def test_wizard_of_odds_four_deck_4_12_counts_and_return():
    c = mtd_event_counts(4)
    assert (c.two_suited, c.suited_unsuited, c.one_suited, c.two_unsuited, c.one_unsuited, c.none, c.total) == (
        3, 36, 576, 66, 2304, 18336, 21321)
    assert round(float(-mtd_house_edge(4, 4, 12)), 6) == -0.048403


@pytest.mark.parametrize("decks,p0,p1,p2,s0,s1,s2", [
    (1, .884706, .112941, .002353, .875116, .122109, .002775),
    (2, .868075, .127927, .003998, .857335, .137962, .004703),
    (6, .857338, .137413, .005248, .845886, .147950, .006165),
    (8, .856015, .138572, .005413, .844477, .149167, .006357),
])
def test_zero_one_two_match_probabilities(decks, p0, p1, p2, s0, s1, s2):
    d = mtd_match_distribution(decks)
    s = mtd_match_distribution(decks, spanish=True)
    assert [round(float(d[k]), 6) for k in (0, 1, 2)] == [p0, p1, p2]
    assert [round(float(s[k]), 6) for k in (0, 1, 2)] == [s0, s1, s2]


@pytest.mark.parametrize("decks,exact", [
    (1, Fraction(32, 663)), (2, Fraction(64, 1339)), (3, Fraction(96, 2015)), (4, Fraction(128, 2691)),
    (5, Fraction(160, 3367)), (6, Fraction(192, 4043)), (7, Fraction(224, 4719)), (8, Fraction(256, 5395)),
])
def test_probability_of_blackjack(decks, exact):
    assert blackjack_probability(decks) == exact


def test_spanish_deck_blackjack_probability():
    assert blackjack_probability(6, spanish=True) == Fraction(12, 287)


@pytest.mark.parametrize("payout,includes,ha_pct", [(15, False, 24.02), (15, True, 28.77), (20, False, 0.27),
                                                    (20, True, 5.02), (21, False, -4.48), (21, True, 0.27)])
def test_bonus_house_advantage_six_decks(payout, includes, ha_pct):
    assert round(float(bonus_house_advantage(payout, 1, 6, includes)) * 100, 2) == ha_pct


def test_bonus_house_advantage_eight_decks_15_dollars():
    assert round(float(bonus_house_advantage(15, 1, 8)) * 100, 2) == 24.08
    assert round(float(bonus_house_advantage(15, 1, 8, True)) * 100, 2) == 28.82


@pytest.mark.parametrize("decks,wager,includes,lo,hi", [
    (6, 1, False, 14, 20), (6, 1, True, 15, 21), (6, 5, False, 69, 100), (6, 5, True, 74, 105),
])
def test_legal_bonus_payout_range_before_dollar_limits(decks, wager, includes, lo, hi):
    assert bonus_payout_range(wager, decks, includes) == (lo, hi)
