"""The blackjack bonus wager, 13:69F-2.20."""

from rules.bonus import blackjack_bonus_payout
from rules.cards import parse_card as c
from rules.profile import TableProfile
from rules.settle import SeatHand, settle_round

POSTED = {"1": 15, "5": 75}


def _bonus(up, cards, wager, profile=None, hole=None):
    p = profile or TableProfile(game="blackjack", decks=6, bonus_payout=POSTED)
    r = settle_round(p, c(up), [SeatHand(1, tuple(c(x) for x in cards), {"main": 10, "bonus": wager})],
                     dealer_hole=c(hole) if hole else None)
    return r, r.seats[0].bonus


def test_ace_and_ten_value_card_in_either_order_wins_the_posted_payout_2_20_d():
    assert _bonus("7D", ["10D", "AC"], 1)[1].payout == 15
    assert _bonus("7D", ["AD", "QC"], 5)[1].payout == 75


def test_two_aces_or_two_ten_value_cards_lose():
    assert _bonus("7D", ["AS", "AH"], 1)[1].outcome == "lose"
    assert _bonus("7D", ["KS", "QS"], 1)[1].outcome == "lose"


def test_paid_whatever_the_dealer_holds_including_blackjack_2_20_i():
    assert _bonus("KC", ["10H", "AH"], 5, hole="AD")[1].payout == 75


def test_only_one_or_five_dollar_wagers_2_20_a():
    r, bonus = _bonus("7D", ["AS", "KH"], 2)
    assert bonus.outcome == "void"
    assert [(v.kind, v.rule) for v in r.violations] == [("wager", "13:69F-2.20(a)")]


def test_posted_payout_below_the_five_dollar_floor_is_a_config_violation_2_20_j():
    p = TableProfile(game="blackjack", decks=6, bonus_payout={"1": 4, "5": 75})
    r, bonus = _bonus("7D", ["AS", "KH"], 1, profile=p)
    assert bonus.outcome == "void"
    assert [v.rule for v in r.violations] == ["13:69F-2.20(j)"]


def test_house_advantage_above_thirty_percent_is_a_config_violation_2_20_k():
    p = TableProfile(game="blackjack", decks=6, bonus_payout={"1": 10, "5": 75})
    assert [v.rule for v in _bonus("7D", ["AS", "KH"], 1, profile=p)[0].violations] == ["13:69F-2.20(k)"]


def test_negative_house_advantage_is_a_config_violation_2_20_k():
    p = TableProfile(game="blackjack", decks=6, bonus_payout={"1": 25, "5": 75})
    assert [v.rule for v in _bonus("7D", ["AS", "KH"], 1, profile=p)[0].violations] == ["13:69F-2.20(k)"]


def test_twenty_one_dollars_is_legal_only_when_the_payout_includes_the_stake():
    to = TableProfile(game="blackjack", decks=6, bonus_payout={"1": 21})
    for_ = TableProfile(game="blackjack", decks=6, bonus_payout={"1": 21}, bonus_payout_includes_wager=True)
    assert [v.rule for v in to.config_violations()] == ["13:69F-2.20(k)"]
    assert for_.config_violations() == []
    assert _bonus("7D", ["AS", "KH"], 1, profile=for_)[1].payout == 20


def test_not_beside_multiple_action_progressive_streak_20_point_optional_or_in_between_2_20_l():
    for section in ("2.18", "2.19", "2.22", "2.24", "2.25", "2.26"):
        p = TableProfile(game="blackjack", decks=6, bonus_payout=POSTED, other_wagers=[section])
        assert [v.rule for v in p.config_violations()] == ["13:69F-2.20(l)"], section


def test_without_a_fixed_posted_payout_the_winner_gets_the_regulation_range():
    p = TableProfile(game="blackjack", decks=6)
    bonus = _bonus("7D", ["AS", "KH"], 1, profile=p)[1]
    assert (bonus.outcome, bonus.payout, bonus.payout_min, bonus.payout_max) == ("win", None, 5, 1000)


def test_split_hands_never_win():
    assert blackjack_bonus_payout([c("AS"), c("KH"), c("2C")], 1, 15).outcome == "lose"
