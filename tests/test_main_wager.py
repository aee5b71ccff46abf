"""Main wager settlement, with Switch Hands' blackjack against blackjack paid 1 to 2 (13:69F-2B.6(k))."""

from rules.cards import parse_card as c
from rules.cards import parse_cards
from rules.profile import TableProfile
from rules.settle import SeatHand, settle_round


def _main(game, up, hole_or_cards, cards, wager=10, hits=()):
    p = TableProfile(game=game, decks=6)
    kw = {"dealer_cards": parse_cards(hole_or_cards)} if isinstance(hole_or_cards, list) else {"dealer_hole": c(hole_or_cards)}
    r = settle_round(p, c(up), [SeatHand(1, parse_cards(cards), {"main": wager}, parse_cards(list(hits)))], **kw)
    return r.seats[0].main


def test_switch_hands_blackjack_against_dealer_blackjack_pays_one_to_two():
    m = _main("switch_hands", "AD", "QC", ["AS", "KH"], 10)
    assert (m.outcome, m.payout) == ("win", 5)


def test_switch_hands_one_to_two_on_25_dollars_is_twelve_fifty():
    assert _main("switch_hands", "AD", "QC", ["AS", "KH"], 25).payout * 100 == 1250


def test_standard_blackjack_against_dealer_blackjack_pushes():
    assert _main("blackjack", "AD", "QC", ["AS", "KH"]).outcome == "push"


def test_player_blackjack_pays_three_to_two():
    m = _main("blackjack", "9D", "QC", ["AS", "KH"], 10)
    assert (m.outcome, m.payout) == ("win", 15)


def test_player_bust_loses_even_when_the_dealer_busts():
    m = _main("blackjack", "9D", ["9D", "5C", "KS"], ["KS", "6H"], hits=["QD"])
    assert m.outcome == "lose"


def test_dealer_under_seventeen_with_only_the_hole_card_known_leaves_the_wager_open():
    assert _main("blackjack", "9D", "5C", ["KS", "8H"]).outcome == "open"


def test_higher_total_wins_even_money_equal_totals_push():
    assert _main("blackjack", "9D", ["9D", "8C"], ["KS", "9H"]).payout == 10
    assert _main("blackjack", "9D", ["9D", "9C"], ["KS", "8H"]).outcome == "push"
    assert _main("blackjack", "9D", ["9D", "KC"], ["KS", "8H"]).outcome == "lose"
