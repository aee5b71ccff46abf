"""Settling the main wager against the dealer (13:69F-2.3; Switch Hands 13:69F-2B.6(k))."""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from rules.cards import Card
from rules.hands import hand_total, is_blackjack
from rules.profile import TableProfile
from rules.money import format_dollars
from rules.results import WagerResult
from rules.violations import Violation


def settle_main_wager(profile: TableProfile, first_two: Sequence[Card], hits: Sequence[Card],
                      dealer_cards: Sequence[Card], wager: Fraction | int, dealer_complete: bool) -> WagerResult:
    """Outcome and payout of a main wager.

    Args:
        profile: the table (game and blackjack odds).
        first_two: the player's first two cards; ``hits``: later cards, in order.
        dealer_cards: the dealer's cards in order, up card first.
        wager: dollars.
        dealer_complete: whether ``dealer_cards`` is the dealer's whole hand; when it is
            only up + hole card, a dealer total under 17 leaves the wager ``open``.

    Returns:
        ``win``/``lose``/``push`` with the payout (0 unless won), or ``open``.
        Player blackjack pays the profile's blackjack odds (3 to 2 by default); against a
        dealer blackjack it pushes, except in Switch Hands where it is paid 1 to 2 (2B.6(k)).
    """
    w = wager
    player = list(first_two) + list(hits)
    player_total = hand_total(player)
    if player_total.bust:
        return WagerResult("lose", payout=0)
    if len(dealer_cards) < 2:
        return WagerResult("open")
    player_bj = not hits and is_blackjack(first_two)
    dealer_bj = is_blackjack(dealer_cards[:2])
    if player_bj and dealer_bj:
        if profile.game == "switch_hands":
            return WagerResult("win", payout=Fraction(w) / 2)
        return WagerResult("push", payout=0)
    if player_bj:
        to, for_ = profile.effective_blackjack_pays
        return WagerResult("win", payout=w * Fraction(to, for_))
    if dealer_bj:
        return WagerResult("lose", payout=0)
    dealer_total = hand_total(dealer_cards)
    if not dealer_complete and dealer_total.total < 17:
        return WagerResult("open")
    if dealer_total.bust or player_total.total > dealer_total.total:
        return WagerResult("win", payout=w)
    if player_total.total < dealer_total.total:
        return WagerResult("lose", payout=0)
    return WagerResult("push", payout=0)


def main_wager_violations(profile: TableProfile, wager: Fraction | int, seat: int | None) -> list[Violation]:
    """The main wager within the table's posted minimum and maximum (posted under 13:69F-8.3)."""
    out: list[Violation] = []
    if profile.main_min is not None and wager < profile.main_min:
        out.append(Violation("wager", "13:69F-8.3", f"main wager ${format_dollars(wager)} is below the posted minimum "
                                                    f"${format_dollars(profile.main_min)}", seat, "main"))
    if profile.main_max is not None and wager > profile.main_max:
        out.append(Violation("wager", "13:69F-8.3", f"main wager ${format_dollars(wager)} exceeds the posted maximum "
                                                    f"${format_dollars(profile.main_max)}", seat, "main"))
    return out
