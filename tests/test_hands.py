"""Hand totals, blackjack and bust (13:69F-2.2, 2B.1)."""

from rules.cards import parse_cards
from rules.hands import hand_total, is_blackjack, is_bust


def test_ace_counts_eleven_unless_that_busts_the_hand():
    assert hand_total(parse_cards(["AS", "6D"])).total == 17
    assert hand_total(parse_cards(["AS", "6D"])).soft
    assert hand_total(parse_cards(["AS", "6D", "9C"])).total == 16
    assert not hand_total(parse_cards(["AS", "6D", "9C"])).soft


def test_two_aces_are_twelve_not_blackjack():
    assert hand_total(parse_cards(["AS", "AH"])).total == 12
    assert not is_blackjack(parse_cards(["AS", "AH"]))


def test_blackjack_is_ace_with_any_ten_value_rank_in_either_order():
    for ten in ("10H", "JC", "QD", "KS"):
        assert is_blackjack(parse_cards(["AS", ten]))
        assert is_blackjack(parse_cards([ten, "AS"]))


def test_no_blackjack_after_a_split_or_with_three_cards():
    assert not is_blackjack(parse_cards(["AS", "KH"]), after_split=True)
    assert not is_blackjack(parse_cards(["5S", "6H", "KH"]))


def test_bust_over_twenty_one():
    assert is_bust(parse_cards(["KS", "QH", "2C"]))
    assert not is_bust(parse_cards(["KS", "AH", "QC"]))


def test_a_dealer_stands_on_hard_17_and_soft_18_under_any_house_rule():
    from rules.hands import dealer_stands

    assert dealer_stands(parse_cards(["KS", "7D"]))
    assert dealer_stands(parse_cards(["AS", "7D"]))
    assert dealer_stands(parse_cards(["KS", "6D", "9C"]))  # bust: no more cards


def test_a_dealer_may_still_draw_to_16_or_a_soft_17():
    from rules.hands import dealer_stands

    assert not dealer_stands(parse_cards(["KS", "6D"]))
    assert not dealer_stands(parse_cards(["AS", "6D"]))  # "Dealer must hit a soft 17" at some tables (69E-1.10C)
