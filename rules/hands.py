"""Blackjack hand arithmetic: totals (hard/soft), blackjack, bust (13:69F-2.2, 2B.1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from rules.cards import RANK_POINTS, Card


@dataclass(frozen=True, slots=True)
class HandTotal:
    """A hand's best total; ``soft`` when an ace is counted as 11 in it."""

    total: int
    soft: bool

    @property
    def bust(self) -> bool:
        return self.total > 21


def hand_total(cards: Sequence[Card]) -> HandTotal:
    """Best total of ``cards``: each ace counts 11 unless that takes the hand over 21 (13:69F-2.2)."""
    hard = 0
    ace = False
    for c in cards:
        hard += RANK_POINTS[c.rank]
        ace = ace or c.rank == "A"
    if ace and hard + 10 <= 21:
        return HandTotal(hard + 10, True)
    return HandTotal(hard, False)


def is_blackjack(cards: Sequence[Card], after_split: bool = False) -> bool:
    """An ace and a 10, J, Q or K as the first two cards; never after a split (13:69F-2B.1, 2.20(d))."""
    if after_split or len(cards) != 2:
        return False
    a, b = cards
    return RANK_POINTS[a.rank] + RANK_POINTS[b.rank] == 11 and (a.rank == "A" or b.rank == "A")


def is_bust(cards: Sequence[Card]) -> bool:
    return hand_total(cards).bust


def dealer_stands(cards: Sequence[Card]) -> bool:
    """Whether a dealer's hand draws no more card at any table: a hard 17 or more, a soft 18 or more, or a bust.

    A soft 17 is not counted as standing: some layouts post "Dealer must hit a soft 17" (69E-1.10C), others
    "Stand on All 17's" (69E-1.10B); a hand this function calls standing stands under either (13:69F-2.2).
    """
    t = hand_total(cards)
    return t.bust or t.total >= 18 or (t.total == 17 and not t.soft)
