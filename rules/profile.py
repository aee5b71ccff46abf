"""The table profile: what one table offers and posts, and what the rules forbid about it.

A profile holds the keys of the contracts' ``settle`` profile (``mtd_odds``,
``mtd_max``, ``bonus_payout``, ``bonus_payout_includes_wager``,
``other_wagers``) plus ``game``, ``decks`` and the table's own settings
(``side_bets`` offered, limits, ``deal_order``).  :meth:`TableProfile.config_violations`
lists every way the configuration breaks N.J.A.C. 13:69F, each citing its section.

Example:
    >>> p = TableProfile(game="blackjack", decks=8, side_bets=["mtd"], mtd_odds={"unsuited": 4, "suited": 11})
    >>> [v.rule for v in p.config_violations()]
    ['13:69F-2.23(f)']
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from rules.edge import bonus_house_advantage
from rules.money import format_dollars, to_money
from rules.violations import Violation

Game = Literal["blackjack", "spanish21", "switch_hands"]
SideBet = Literal["mtd", "bonus"]

MTD_MINIMUM_ODDS: dict[tuple[str, int], tuple[int, int, str]] = {
    # (game, decks): (unsuited, suited, section)
    ("blackjack", 6): (4, 11, "13:69F-2.23(f)"),
    ("blackjack", 8): (3, 14, "13:69F-2.23(f)"),
    ("spanish21", 6): (4, 9, "13:69F-19.6(e)"),
    ("spanish21", 8): (3, 12, "13:69F-19.6(e)"),
}
"""Regulation minimum match-the-dealer odds ("X to 1") per game and deck count."""

BONUS_DENOMINATIONS: tuple[int, ...] = (1, 5)
"""The only blackjack bonus wagers allowed, dollars (13:69F-2.20(a))."""

BONUS_PAYOUT_LIMITS: dict[int, tuple[int, int]] = {1: (5, 1000), 5: (50, 5000)}
"""Posted bonus payout range per denomination, dollars (13:69F-2.20(j))."""

BONUS_HOUSE_ADVANTAGE_LIMITS: tuple[Fraction, Fraction] = (Fraction(0), Fraction(3, 10))
"""House advantage bounds for the bonus wager (13:69F-2.20(k))."""

MTD_INCOMPATIBLE: dict[str, str] = {"2.25": "optional bonus wager", "2.26": "in-between wager"}
"""Wagers that may not be offered beside blackjack match-the-dealer (13:69F-2.23(g))."""

BONUS_INCOMPATIBLE: dict[str, str] = {
    "2.18": "multiple action blackjack", "2.19": "progressive blackjack wager", "2.22": "streak wager",
    "2.24": "20 point bonus wager", "2.25": "optional bonus wager", "2.26": "in-between wager",
}
"""Wagers that may not be offered beside the blackjack bonus wager (13:69F-2.20(l))."""


class ProfileError(ValueError):
    """A profile that cannot be read at all (wrong type, unknown game, malformed field)."""


class MtdOdds(BaseModel):
    """Posted match-the-dealer odds, "X to 1" per matching card."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    unsuited: int | Fraction
    suited: int | Fraction

    @field_validator("unsuited", "suited", mode="before")
    @classmethod
    def _odds(cls, v: object) -> int | Fraction:
        return to_money(v, "match-the-dealer odds")


class PayoutRange(BaseModel):
    """A posted bonus payout range (the display decides within it), dollars."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    min: int | Fraction
    max: int | Fraction

    @field_validator("min", "max", mode="before")
    @classmethod
    def _amount(cls, v: object) -> int | Fraction:
        return to_money(v, "bonus payout")

    @model_validator(mode="after")
    def _ordered(self) -> "PayoutRange":
        if self.min > self.max:
            raise ValueError(f"bonus payout range min {self.min} is above max {self.max}")
        return self


class TableProfile(BaseModel):
    """One table's posted configuration (contracts: "Table files and profiles").

    Attributes:
        game: ``blackjack``, ``spanish21`` or ``switch_hands``.
        decks: decks in the shoe.
        side_bets: side bets offered (``mtd``, ``bonus``).  A side bet also counts as
            offered when odds or payouts are posted for it, or a seat wagers it.
        mtd_odds: posted MTD odds; ``None`` means the regulation minimum.
        mtd_min, mtd_max: posted MTD wager limits, dollars (``None``: none posted).
        bonus_payout: posted bonus payout per denomination (``"1"``, ``"5"``): a fixed
            amount or a ``{"min", "max"}`` range; ``None`` means the regulation range.
        bonus_payout_includes_wager: whether the posted bonus payout includes the stake.
        other_wagers: other 13:69F-2.x wagers offered at the table, by section (``"2.25"``).
        main_min, main_max: posted main wager limits, dollars.
        blackjack_pays: main-wager blackjack odds as (to, for), e.g. (3, 2); ``None`` uses
            the game's default (3 to 2; Switch Hands 1 to 1, its payout section not being at hand).
        deal_order: ``standard`` (rules.md §2.6) or ``switch_hands`` (13:69F-2B.6(d)).
        burn_after_shuffle: whether a burn card is expected after a new shoe and a new dealer.
    """

    model_config = ConfigDict(frozen=True, extra="allow")
    game: Game
    decks: int = Field(ge=1)
    side_bets: list[SideBet] = Field(default_factory=list)
    mtd_odds: MtdOdds | None = None
    mtd_min: int | Fraction | None = None
    mtd_max: int | Fraction | None = None
    bonus_payout: dict[str, int | Fraction | PayoutRange] | None = None
    bonus_payout_includes_wager: bool = False
    other_wagers: list[str] = Field(default_factory=list)
    main_min: int | Fraction | None = None
    main_max: int | Fraction | None = None
    blackjack_pays: tuple[int, int] | None = None
    deal_order: Literal["standard", "switch_hands"] | None = None
    burn_after_shuffle: bool | None = None
    # memo of derived answers (config violations by side bets checked, odds, payouts): the profile is frozen
    _violations_memo: dict = PrivateAttr(default_factory=dict)

    @field_validator("mtd_min", "mtd_max", "main_min", "main_max", mode="before")
    @classmethod
    def _limit(cls, v: object) -> Fraction | None:
        return None if v is None else to_money(v, "wager limit")

    @field_validator("bonus_payout", mode="before")
    @classmethod
    def _bonus_payout(cls, v: object) -> object:
        if v is None:
            return None
        if not isinstance(v, dict):
            raise ValueError("bonus_payout must map a denomination ('1', '5') to an amount or {min, max}")
        out: dict[str, object] = {}
        for key, amount in v.items():
            denom = str(key).strip().lstrip("$")
            out[denom] = amount if isinstance(amount, (dict, PayoutRange)) else to_money(amount, f"bonus_payout[{key}]")
        return out

    @field_validator("other_wagers", mode="before")
    @classmethod
    def _sections(cls, v: object) -> list[str]:
        if v is None:
            return []
        if not isinstance(v, (list, tuple)):
            raise ValueError("other_wagers must be a list of section numbers like '2.25'")
        return [str(s).strip().removeprefix("13:69F-") for s in v]

    @property
    def spanish_decks(self) -> bool:
        """Spanish 21 deals from 48-card decks (no 10s): rules.md §3.2."""
        return self.game == "spanish21"

    @property
    def effective_deal_order(self) -> str:
        return self.deal_order or ("switch_hands" if self.game == "switch_hands" else "standard")

    @property
    def expects_burn_card(self) -> bool:
        """A burn card after a new shoe / new dealer: required in Switch Hands (2B.6(c))."""
        if self.burn_after_shuffle is not None:
            return self.burn_after_shuffle
        return self.game == "switch_hands"

    @property
    def effective_blackjack_pays(self) -> tuple[int, int]:
        if self.blackjack_pays is not None:
            return self.blackjack_pays
        return (1, 1) if self.game == "switch_hands" else (3, 2)

    def offers(self, side_bet: str) -> bool:
        """Whether the profile itself posts ``side_bet`` (``mtd`` or ``bonus``)."""
        if side_bet in self.side_bets:
            return True
        if side_bet == "mtd":
            return self.mtd_odds is not None or self.mtd_max is not None
        if side_bet == "bonus":
            return self.bonus_payout is not None
        return False

    def minimum_mtd_odds(self) -> MtdOdds | None:
        """The regulation minimum odds for this game and shoe, or ``None`` where MTD is not allowed."""
        entry = MTD_MINIMUM_ODDS.get((self.game, self.decks))
        if entry is None:
            return None
        return MtdOdds(unsuited=entry[0], suited=entry[1])

    def effective_mtd_odds(self) -> MtdOdds | None:
        """The odds to pay: the posted ones, else the regulation minimum; ``None`` where MTD is not allowed."""
        if self.mtd_odds is not None:
            return self.mtd_odds
        if "mtd_odds" not in self._violations_memo:
            self._violations_memo["mtd_odds"] = self.minimum_mtd_odds()
        return self._violations_memo["mtd_odds"]

    def bonus_payout_for(self, denomination: int | Fraction) -> int | Fraction | PayoutRange | None:
        """The posted payout for a bonus wager of ``denomination`` dollars (default: the regulation range)."""
        if denomination not in BONUS_DENOMINATIONS:
            return None
        key = ("bonus_payout", denomination)
        if key in self._violations_memo:
            return self._violations_memo[key]
        self._violations_memo[key] = self._bonus_payout_for(int(denomination))
        return self._violations_memo[key]

    def _bonus_payout_for(self, d: int) -> int | Fraction | PayoutRange:
        if self.bonus_payout is not None and str(d) in self.bonus_payout:
            return self.bonus_payout[str(d)]
        lo, hi = BONUS_PAYOUT_LIMITS[d]
        return PayoutRange(min=lo, max=hi)

    # -- configuration checks ---------------------------------------------------------------

    def mtd_config_violations(self) -> list[Violation]:
        """Why this table may not offer match-the-dealer as configured (empty when it may)."""
        out: list[Violation] = []
        if self.game == "switch_hands":
            out.append(Violation("config", "13:69F-2.23(a)",
                                 "match-the-dealer is authorised at blackjack (2.23) and Spanish 21 (19.6) tables, "
                                 "not at Switch Hands", wager="mtd"))
            return out
        minimum = MTD_MINIMUM_ODDS.get((self.game, self.decks))
        if minimum is None:
            rule = "13:69F-2.2(a)4" if self.game == "blackjack" else "13:69F-19.6(e)"
            out.append(Violation("config", rule,
                                 f"match-the-dealer needs a six- or eight-deck shoe, this table has {self.decks}",
                                 wager="mtd"))
        elif self.mtd_odds is not None:
            mu, ms, rule = minimum
            low = []
            if self.mtd_odds.unsuited < mu:
                low.append(f"unsuited {format_dollars(self.mtd_odds.unsuited)} to 1 is below {mu} to 1")
            if self.mtd_odds.suited < ms:
                low.append(f"suited {format_dollars(self.mtd_odds.suited)} to 1 is below {ms} to 1")
            if low:
                out.append(Violation("config", rule,
                                     f"posted match-the-dealer odds below the {self.decks}-deck minimum: "
                                     + "; ".join(low), wager="mtd"))
        if self.game == "blackjack":
            clash = [s for s in self.other_wagers if s in MTD_INCOMPATIBLE]
            if clash:
                names = ", ".join(f"{s} ({MTD_INCOMPATIBLE[s]})" for s in clash)
                out.append(Violation("config", "13:69F-2.23(g)",
                                     f"match-the-dealer may not be offered beside {names}", wager="mtd"))
        return out

    def bonus_config_violations(self) -> list[Violation]:
        """Why this table may not offer the blackjack bonus wager as configured (empty when it may)."""
        out: list[Violation] = []
        if self.game != "blackjack":
            out.append(Violation("config", "13:69F-2.20(a)",
                                 f"the blackjack bonus wager is authorised at blackjack tables, not {self.game}",
                                 wager="bonus"))
            return out
        clash = [s for s in self.other_wagers if s in BONUS_INCOMPATIBLE]
        if clash:
            names = ", ".join(f"{s} ({BONUS_INCOMPATIBLE[s]})" for s in clash)
            out.append(Violation("config", "13:69F-2.20(l)",
                                 f"the blackjack bonus wager may not be offered beside {names}", wager="bonus"))
        for key, posted in (self.bonus_payout or {}).items():
            try:
                denom = int(key)
            except ValueError:
                denom = -1
            if denom not in BONUS_DENOMINATIONS:
                out.append(Violation("config", "13:69F-2.20(a)",
                                     f"bonus payout posted for a ${key} wager; only $1 and $5 bonus wagers exist",
                                     wager="bonus"))
                continue
            lo, hi = BONUS_PAYOUT_LIMITS[denom]
            amounts = [posted.min, posted.max] if isinstance(posted, PayoutRange) else [posted]
            for amount in amounts:
                if not lo <= amount <= hi:
                    out.append(Violation("config", "13:69F-2.20(j)",
                                         f"posted ${format_dollars(amount)} payout on the ${denom} bonus wager is outside "
                                         f"${lo:,}-${hi:,}", wager="bonus"))
                    break
            else:
                if not isinstance(posted, PayoutRange):
                    ha = bonus_house_advantage(posted, denom, self.decks, self.bonus_payout_includes_wager)
                    lo_ha, hi_ha = BONUS_HOUSE_ADVANTAGE_LIMITS
                    if not lo_ha <= ha <= hi_ha:
                        out.append(Violation("config", "13:69F-2.20(k)",
                                             f"posted ${format_dollars(posted)} on the ${denom} bonus wager gives a house "
                                             f"advantage of {float(ha):.2%} with {self.decks} decks, outside 0%-30%",
                                             wager="bonus"))
        return out

    def config_violations(self, offered: set[str] | None = None) -> list[Violation]:
        """Every configuration violation for the side bets offered.

        Args:
            offered: side bets to check besides those the profile posts (e.g. the
                ones some seat wagered).  ``None`` checks only what the profile posts.
        """
        bets = frozenset({b for b in ("mtd", "bonus") if self.offers(b)} | (offered or set()))
        memo = self._violations_memo.get(bets)
        if memo is None:
            out: list[Violation] = []
            if "mtd" in bets:
                out += self.mtd_config_violations()
            if "bonus" in bets:
                out += self.bonus_config_violations()
            memo = self._violations_memo[bets] = tuple(out)
        return list(memo)



def load_profile(data: object, source: str = "profile") -> TableProfile:
    """Build a :class:`TableProfile` from a mapping.

    Raises:
        ProfileError: naming ``source``, the field and what is wrong.
    """
    if not isinstance(data, dict):
        raise ProfileError(f"{source}: a profile must be a mapping, got {type(data).__name__}")
    try:
        return TableProfile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "profile"
        raise ProfileError(f"{source}: {where}: {first['msg']}") from exc


def profile_from_yaml(text: str, source: str = "profile") -> TableProfile:
    """Parse a profile from YAML text (the caller reads the file)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ProfileError(f"{source}: not valid YAML: {exc}") from exc
    return load_profile(data, source)
