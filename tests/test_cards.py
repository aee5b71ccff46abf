"""Card notation (contracts: "Cards") and card values (13:69F-2.2)."""

import pytest

from rules.cards import ALL_CARDS, BACK, CARD_LABELS, UNREADABLE, Card, UnknownCardError, parse_card, parse_label


def test_contract_notation_round_trips_every_card():
    assert [str(parse_card(label)) for label in CARD_LABELS] == list(CARD_LABELS)
    assert len(set(ALL_CARDS)) == 52


def test_input_is_case_insensitive_and_accepts_t_for_ten():
    assert parse_card("th") == Card("10", "H")
    assert parse_card("qs") == Card("Q", "S")
    assert parse_card(" 10c ") == Card("10", "C")


def test_ten_jack_queen_king_are_distinct_ranks_worth_ten_points():
    tens = [parse_card(x) for x in ("10H", "JH", "QH", "KH")]
    assert len({c.rank for c in tens}) == 4
    assert {c.points for c in tens} == {10}


def test_ace_counts_one_point_before_hand_arithmetic():
    assert parse_card("AS").points == 1


@pytest.mark.parametrize("bad", ["", "1H", "11H", "10X", "ZZ", "K", "BACK", "unreadable", "KHH", None, 10])
def test_anything_else_is_a_clear_error(bad):
    with pytest.raises(UnknownCardError):
        parse_card(bad)


def test_labels_include_back_and_unreadable():
    assert parse_label("back") == BACK
    assert parse_label("UNREADABLE") == UNREADABLE
    assert parse_label("as") == Card("A", "S")
