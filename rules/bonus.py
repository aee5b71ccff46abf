"""The blackjack bonus wager (N.J.A.C. 13:69F-2.20).

A $1 or $5 wager that the player's first two cards are an ace and a 10, J, Q or K
(2.20(a), (d)); paid after the round at the posted payout whatever the dealer
holds, dealer blackjack included (2.20(i)); losers collected after the second card (2.20(e)).

Example:
    >>> from rules.cards import parse_card as c
    >>> blackjack_bonus_payout([c("10D"), c("AC")], 1, 15).payout
    Fraction(15, 1)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from rules.cards import Card
from rules.hands import is_blackjack
from rules.profile import BONUS_DENOMINATIONS, PayoutRange
from rules.results import WagerResult
from rules.violations import Violation


def blackjack_bonus_payout(first_two: Sequence[Card], wager: Fraction | int,
                           posted: Fraction | int | PayoutRange, includes_wager: bool = False) -> WagerResult:
    """Settle a blackjack bonus wager.

    Args:
        first_two: the player's first two cards (a split hand never qualifies).
        wager: $1 or $5 (check :func:`bonus_wager_violations` first).
        posted: the posted payout for that wager, dollars, or a posted range.
        includes_wager: when the posted amount includes the stake ("for"), the payout
            on top of the returned stake is the posted amount less the wager.

    Returns:
        ``win`` with ``payout`` (or ``payout_min``/``payout_max`` for a posted range), or ``lose`` paying 0.
    """
    if not is_blackjack(first_two):
        return WagerResult("lose", payout=0)
    w = wager
    if isinstance(posted, PayoutRange):
        lo, hi = (posted.min - w, posted.max - w) if includes_wager else (posted.min, posted.max)
        return WagerResult("win", payout_min=lo, payout_max=hi)
    amount = Fraction(posted)
    return WagerResult("win", payout=amount - w if includes_wager else amount)


def bonus_wager_violations(wager: Fraction, main_wager: Fraction | None, seat: int | None) -> list[Violation]:
    """A bonus wager must be exactly $1 or $5 (2.20(a)) and sit beside a main wager (2.20(c))."""
    out: list[Violation] = []
    if wager not in BONUS_DENOMINATIONS:
        shown = str(wager) if isinstance(wager, int) else f"{float(wager):.2f}"
        out.append(Violation("wager", "13:69F-2.20(a)",
                             f"blackjack bonus wager ${shown} is not allowed: only $1 or $5", seat, "bonus"))
    if main_wager is not None and main_wager == 0:
        out.append(Violation("wager", "13:69F-2.20(c)", "blackjack bonus wager without a main wager", seat, "bonus"))
    return out
