"""Shoe composition: 52-card decks, Spanish 21 48-card decks without 10s (rules.md §3.2)."""

import pytest

from rules.cards import parse_card
from rules.shoe import ShoeComposition


def test_six_standard_decks_hold_312_cards_six_of_each():
    shoe = ShoeComposition(6)
    assert shoe.total == 312 == len(shoe.cards())
    assert shoe.count(parse_card("10H")) == 6


def test_spanish_decks_hold_no_tens_but_keep_jacks_queens_kings():
    shoe = ShoeComposition(8, spanish=True)
    assert shoe.total == 384 == len(shoe.cards())
    assert not shoe.can_hold(parse_card("10S"))
    assert all(shoe.can_hold(parse_card(c)) for c in ("JS", "QS", "KS"))
    assert all(c.rank != "10" for c in shoe.cards())


def test_shuffle_is_reproducible_from_the_seed():
    assert ShoeComposition(6).shuffled(7) == ShoeComposition(6).shuffled(7)
    assert ShoeComposition(6).shuffled(7) != ShoeComposition(6).shuffled(8)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_deck_count_must_be_a_positive_whole_number(bad):
    with pytest.raises(ValueError):
        ShoeComposition(bad)
