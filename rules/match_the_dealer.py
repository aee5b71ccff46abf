"""Match-the-dealer: blackjack (N.J.A.C. 13:69F-2.23) and Spanish 21 (13:69F-19.6).

Either of the player's first two cards wins when it has the same **rank** as the
dealer's **up card** (never the hole card); 10, J, Q and K match only their own
rank (2.23(a)).  Each matching card is paid (2.23(a)2, 19.6(a)) at the posted
odds, suited (same rank and suit) or unsuited.

Example:
    >>> from rules.cards import parse_card as c
    >>> r = match_the_dealer_payout(c("KH"), [c("KH"), c("KC")], 5, MtdOdds(unsuited=4, suited=11))
    >>> r.outcome, r.payout
    ('win', Fraction(75, 1))
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from rules.cards import Card
from rules.profile import MtdOdds, TableProfile
from rules.money import format_dollars
from rules.results import CardMatch, WagerResult
from rules.violations import Violation


def card_matches_up_card(card: Card, up_card: Card) -> bool:
    """Same rank as the up card; a 10-value card matches only its own rank (13:69F-2.23(a))."""
    return card.rank == up_card.rank


def match_the_dealer_payout(up_card: Card, first_two: Sequence[Card], wager: Fraction | int,
                            odds: MtdOdds) -> WagerResult:
    """Settle a match-the-dealer wager.

    Args:
        up_card: the dealer's up card (the dealer's initial card, 2.23(a)).
        first_two: the player's first two cards.
        wager: dollars.
        odds: the posted odds to pay (not below the minimum: check the profile first).

    Returns:
        ``win`` with the payout (wager x sum of the per-card odds) and each match, or ``lose`` paying 0.

    Raises:
        ValueError: when ``first_two`` does not hold exactly two cards.
    """
    if len(first_two) != 2:
        raise ValueError(f"match-the-dealer is settled on the first two cards, got {len(first_two)}")
    w = wager
    matches = []
    for card in first_two:
        if card_matches_up_card(card, up_card):
            suited = card.suit == up_card.suit
            card_odds = odds.suited if suited else odds.unsuited
            matches.append(CardMatch(card=str(card), suited=suited, odds=card_odds, payout=w * card_odds))
    if not matches:
        return WagerResult("lose", payout=0)
    return WagerResult("win", payout=sum(m.payout for m in matches), matches=tuple(matches))


def mtd_wager_violations(profile: TableProfile, wager: Fraction, main_wager: Fraction | None,
                         seat: int | None) -> list[Violation]:
    """Limits on one match-the-dealer wager.

    Spanish 21 (13:69F-19.6(b)): at least $1 and at most the lesser of the main wager
    and the posted maximum.  Blackjack (2.23(c)): within the posted minimum and maximum,
    and only beside a main wager.
    """
    out: list[Violation] = []
    if profile.game == "spanish21":
        if wager >= 1 and (main_wager is None or wager <= main_wager) and (
                profile.mtd_max is None or wager <= profile.mtd_max) and main_wager != 0:
            return out
        amount = format_dollars(wager)
        if wager < 1:
            out.append(Violation("wager", "13:69F-19.6(b)",
                                 f"match-the-dealer wager ${amount} is below the $1 minimum", seat, "mtd"))
        if main_wager is not None and wager > main_wager:
            out.append(Violation("wager", "13:69F-19.6(b)1",
                                 f"match-the-dealer wager ${amount} exceeds the main wager ${format_dollars(main_wager)}",
                                 seat, "mtd"))
        if profile.mtd_max is not None and wager > profile.mtd_max:
            out.append(Violation("wager", "13:69F-19.6(b)2",
                                 f"match-the-dealer wager ${amount} exceeds the posted maximum ${format_dollars(profile.mtd_max)}",
                                 seat, "mtd"))
    else:
        amount = format_dollars(wager)
        if profile.mtd_min is not None and wager < profile.mtd_min:
            out.append(Violation("wager", "13:69F-2.23(c)",
                                 f"match-the-dealer wager ${amount} is below the posted minimum ${format_dollars(profile.mtd_min)}",
                                 seat, "mtd"))
        if profile.mtd_max is not None and wager > profile.mtd_max:
            out.append(Violation("wager", "13:69F-2.23(c)",
                                 f"match-the-dealer wager ${amount} exceeds the posted maximum ${format_dollars(profile.mtd_max)}",
                                 seat, "mtd"))
    if main_wager is not None and main_wager == 0:
        rule = "13:69F-19.6(b)" if profile.game == "spanish21" else "13:69F-2.23(c)"
        out.append(Violation("wager", rule, "match-the-dealer wager without a main wager", seat, "mtd"))
    return out
