"""Settlement records: the outcome and payout of one wager."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from rules.money import money_json

Outcome = Literal["win", "lose", "push", "open", "none", "void"]


@dataclass(frozen=True, slots=True)
class CardMatch:
    """One player card that matched the dealer's up card (13:69F-2.23(a))."""

    card: str
    suited: bool
    odds: Fraction
    payout: Fraction

    def to_json(self) -> dict:
        return {"card": self.card, "suited": self.suited, "odds": f"{money_json(self.odds)} to 1",
                "payout": money_json(self.payout)}


@dataclass(frozen=True, slots=True)
class WagerResult:
    """The settlement of one wager.

    Attributes:
        outcome: ``win``, ``lose``, ``push``, ``open`` (cards do not decide it yet),
            ``none`` (no such wager) or ``void`` (not settled because of a violation).
        payout: dollars paid on top of the returned stake; 0 when lost; ``None`` when
            not settled or when only a range is posted.
        payout_min, payout_max: for a winning bonus wager paid from a posted range.
        matches: the matching cards of a match-the-dealer wager.
    """

    outcome: Outcome
    payout: Fraction | None = None
    payout_min: Fraction | None = None
    payout_max: Fraction | None = None
    matches: tuple[CardMatch, ...] = field(default=())

    def to_json(self, with_matches: bool = False) -> dict:
        out: dict = {"outcome": self.outcome}
        if self.payout_min is not None:
            out["payout_min"] = money_json(self.payout_min)
            out["payout_max"] = money_json(self.payout_max)
        elif self.outcome in ("win", "lose", "push"):
            out["payout"] = money_json(self.payout)
        if with_matches and self.outcome in ("win", "lose"):
            out["matches"] = [m.to_json() for m in self.matches]
        return out


NO_WAGER = WagerResult("none")
VOID = WagerResult("void")
OPEN = WagerResult("open")
