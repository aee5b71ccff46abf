"""Exact house-edge arithmetic for the side bets (fractions, no Monte Carlo).

Match-the-dealer (13:69F-2.23, 19.6): the player's two cards are drawn from the
``T - 1`` cards left after the dealer's up card, ``T = 52N`` (or ``48N`` for
Spanish decks).  Of those, ``N - 1`` match the up card in rank and suit, ``3N``
in rank only, and ``T - 4N`` not at all, whatever the up card is.  Counting card
pairs gives every probability exactly (rules.md §3.3).

Blackjack bonus (13:69F-2.20): ``P(blackjack) = 4N * 16N / C(52N, 2)``.

Example:
    >>> mtd_house_edge(6, unsuited=4, suited=11)
    Fraction(1958, 48205)
    >>> blackjack_probability(6)
    Fraction(192, 4043)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction


def _comb2(n: int) -> int:
    return n * (n - 1) // 2


@dataclass(frozen=True)
class MtdEventCounts:
    """Numbers of two-card combinations, out of ``total = C(T - 1, 2)``, by match event."""

    two_suited: int
    suited_unsuited: int
    one_suited: int
    two_unsuited: int
    one_unsuited: int
    none: int

    @property
    def total(self) -> int:
        return (self.two_suited + self.suited_unsuited + self.one_suited
                + self.two_unsuited + self.one_unsuited + self.none)

    def probability(self, event: str) -> Fraction:
        """Exact probability of ``event`` (one of the field names)."""
        return Fraction(getattr(self, event), self.total)


MTD_EVENTS: tuple[str, ...] = ("two_suited", "suited_unsuited", "one_suited", "two_unsuited", "one_unsuited", "none")


def _check_decks(decks: int) -> None:
    if not isinstance(decks, int) or isinstance(decks, bool) or decks < 1:
        raise ValueError(f"decks must be a positive whole number, got {decks!r}")


def mtd_event_counts(decks: int, spanish: bool = False) -> MtdEventCounts:
    """Pair counts for each match-the-dealer event with ``decks`` decks of 52 (or 48 when ``spanish``).

    Raises:
        ValueError: for a deck count that is not a positive integer.
    """
    _check_decks(decks)
    total_cards = (48 if spanish else 52) * decks
    suited = decks - 1
    unsuited = 3 * decks
    other = total_cards - 4 * decks
    return MtdEventCounts(
        two_suited=_comb2(suited),
        suited_unsuited=suited * unsuited,
        one_suited=suited * other,
        two_unsuited=_comb2(unsuited),
        one_unsuited=unsuited * other,
        none=_comb2(other),
    )


def mtd_event_payouts(unsuited: int | Fraction, suited: int | Fraction) -> dict[str, Fraction]:
    """Units won per unit wagered for each event: each matching card is paid (2.23(a)2)."""
    u, s = Fraction(unsuited), Fraction(suited)
    return {"two_suited": 2 * s, "suited_unsuited": s + u, "one_suited": s,
            "two_unsuited": 2 * u, "one_unsuited": u, "none": Fraction(-1)}


@dataclass(frozen=True)
class MtdStatistics:
    """Exact statistics of one match-the-dealer paytable, per unit wagered."""

    decks: int
    spanish: bool
    unsuited: Fraction
    suited: Fraction
    counts: MtdEventCounts
    expected_value: Fraction
    house_edge: Fraction
    hit_frequency: Fraction
    variance: Fraction

    @property
    def standard_deviation(self) -> float:
        return math.sqrt(self.variance)

    @property
    def break_even_suited_odds(self) -> Fraction:
        """The suited odds that give a house edge of exactly zero at these unsuited odds."""
        c = self.counts
        payouts_without_suited = (c.suited_unsuited * self.unsuited + c.two_unsuited * 2 * self.unsuited
                                  + c.one_unsuited * self.unsuited - c.none)
        suited_weight = 2 * c.two_suited + c.suited_unsuited + c.one_suited
        return Fraction(-payouts_without_suited, suited_weight)


def mtd_statistics(decks: int, unsuited: int | Fraction, suited: int | Fraction, spanish: bool = False) -> MtdStatistics:
    """House edge, hit frequency and variance of a match-the-dealer paytable ("X to 1" odds)."""
    counts = mtd_event_counts(decks, spanish)
    pays = mtd_event_payouts(unsuited, suited)
    total = counts.total
    ev = sum((Fraction(getattr(counts, e)) * pays[e] for e in MTD_EVENTS), Fraction(0)) / total
    ex2 = sum((Fraction(getattr(counts, e)) * pays[e] ** 2 for e in MTD_EVENTS), Fraction(0)) / total
    return MtdStatistics(
        decks=decks, spanish=spanish, unsuited=Fraction(unsuited), suited=Fraction(suited), counts=counts,
        expected_value=ev, house_edge=-ev, hit_frequency=1 - Fraction(counts.none, total), variance=ex2 - ev * ev,
    )


def mtd_house_edge(decks: int, unsuited: int | Fraction, suited: int | Fraction, spanish: bool = False) -> Fraction:
    """Exact house edge per unit wagered (e.g. 1958/48205 for six decks at 4/11)."""
    return mtd_statistics(decks, unsuited, suited, spanish).house_edge


def mtd_match_distribution(decks: int, spanish: bool = False) -> dict[int, Fraction]:
    """P(0), P(1), P(2) matching cards among the player's first two."""
    c = mtd_event_counts(decks, spanish)
    t = c.total
    return {0: Fraction(c.none, t), 1: Fraction(c.one_suited + c.one_unsuited, t),
            2: Fraction(c.two_suited + c.suited_unsuited + c.two_unsuited, t)}


def blackjack_probability(decks: int, spanish: bool = False) -> Fraction:
    """P(ace + 10-value card as the first two cards) from a full shoe.

    Standard decks: ``4N * 16N / C(52N, 2)``; Spanish decks (no 10s): ``4N * 12N / C(48N, 2)``.
    """
    _check_decks(decks)
    tens = (12 if spanish else 16) * decks
    return Fraction(4 * decks * tens, _comb2((48 if spanish else 52) * decks))


def bonus_house_advantage(payout: int | Fraction, wager: int | Fraction, decks: int,
                          includes_wager: bool = False) -> Fraction:
    """House advantage of a blackjack bonus wager paying ``payout`` dollars on ``wager`` (13:69F-2.20(k)).

    With ``includes_wager`` False ("to": the stake is returned besides the payout)
    ``HA = 1 - p (X + W) / W``; with True ("for": the payout is all that is handed back)
    ``HA = 1 - p X / W``.
    """
    p = blackjack_probability(decks)
    x, w = Fraction(payout), Fraction(wager)
    returned = x if includes_wager else x + w
    return 1 - p * returned / w


def bonus_payout_range(wager: int, decks: int, includes_wager: bool = False,
                       max_advantage: Fraction = Fraction(3, 10)) -> tuple[int, int]:
    """Whole-dollar posted payouts with house advantage in [0, ``max_advantage``] (before the 2.20(j) limits)."""
    p = blackjack_probability(decks)
    w = Fraction(wager)
    # HA >= 0  <=>  returned <= W / p ; HA <= max  <=>  returned >= W (1 - max) / p
    extra = 0 if includes_wager else w
    hi = math.floor(w / p - extra)
    lo = math.ceil(w * (1 - max_advantage) / p - extra)
    return lo, hi
