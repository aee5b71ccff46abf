"""Shoe composition: N standard decks of 52, or Spanish 21 decks of 48 (no 10s).

The composition is the exact count of each identity in a full shoe; the
probability code (:mod:`rules.edge`) and the renderer's shuffled shoes both
start from it, so a round can never show a card its shoe cannot hold.

Example:
    >>> from rules.cards import parse_card
    >>> shoe = ShoeComposition(decks=6, spanish=True)
    >>> shoe.total, shoe.count(parse_card("KH")), shoe.can_hold(parse_card("10H"))
    (288, 6, False)
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from rules.cards import ALL_CARDS, Card


@dataclass(frozen=True, slots=True)
class ShoeComposition:
    """``decks`` decks of 52 cards, or of 48 when ``spanish`` (the four 10s removed).

    Raises:
        ValueError: when ``decks`` is not a positive integer.
    """

    decks: int
    spanish: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.decks, int) or isinstance(self.decks, bool) or self.decks < 1:
            raise ValueError(f"decks must be a positive whole number, got {self.decks!r}")

    @property
    def deck_size(self) -> int:
        return 48 if self.spanish else 52

    @property
    def total(self) -> int:
        """Cards in the full shoe."""
        return self.deck_size * self.decks

    def can_hold(self, card: Card) -> bool:
        """Whether this shoe contains ``card`` at all (a 10 cannot be in a Spanish shoe)."""
        return not (self.spanish and card.rank == "10")

    def count(self, card: Card) -> int:
        """Copies of ``card`` in the full shoe."""
        return self.decks if self.can_hold(card) else 0

    def identities(self) -> tuple[Card, ...]:
        """The distinct cards this shoe holds (52, or 48 for Spanish decks)."""
        return tuple(c for c in ALL_CARDS if self.can_hold(c))

    def cards(self) -> list[Card]:
        """Every card of the full shoe, unshuffled (length :attr:`total`)."""
        return [c for c in self.identities() for _ in range(self.decks)]

    def shuffled(self, seed: int) -> list[Card]:
        """The full shoe shuffled reproducibly from an integer ``seed``."""
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        cards = self.cards()
        random.Random(seed).shuffle(cards)
        return cards
