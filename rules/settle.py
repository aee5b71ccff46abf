"""Settling a round's wagers: the rules engine's one entry point.

Given the table profile, the dealer's up card (and, where known, the rest of the
dealer's hand) and each seat's first two cards and wagers, :func:`settle_round`
returns every wager's outcome and payout and every violation, each citing its
section.  It knows nothing of pixels; the monitor compares what the chips show
with what this returns.

Example:
    >>> from rules.cards import parse_card as c
    >>> from rules.profile import TableProfile
    >>> profile = TableProfile(game="blackjack", decks=6, bonus_payout={"1": 15, "5": 75})
    >>> r = settle_round(profile, c("KH"), [SeatHand(3, (c("KH"), c("7C")), {"main": 25, "mtd": 5, "bonus": 1})])
    >>> r.seats[0].mtd.payout, r.seats[0].bonus.outcome, r.seats[0].main.outcome
    (Fraction(55, 1), 'lose', 'open')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping, Sequence

from rules.bonus import blackjack_bonus_payout, bonus_wager_violations
from rules.cards import Card
from rules.main_wager import main_wager_violations, settle_main_wager
from rules.match_the_dealer import match_the_dealer_payout, mtd_wager_violations
from rules.money import to_money
from rules.profile import TableProfile
from rules.results import NO_WAGER, VOID, WagerResult
from rules.shoe import ShoeComposition
from rules.violations import Violation

WAGER_KINDS: tuple[str, ...] = ("main", "mtd", "bonus")
"""Wagers a seat may hold: the main wager, match-the-dealer, the blackjack bonus."""

SPANISH_DECK_RULE = "13:69F-19.2"
"""Spanish 21 deck composition (48-card decks, no 10s); the section's text is not at hand (rules.md §3.2)."""


@dataclass(frozen=True)
class SeatHand:
    """One seat's part of a round.

    Attributes:
        seat: seat number, 1 = first base.
        cards: the player's first two cards in the order dealt (Switch Hands: the pair kept).
        wagers: dollars by kind (``main``, ``mtd``, ``bonus``) as they stood at the first card.
        hits: later cards to the hand, in order.

    Raises:
        ValueError: for a bad seat number, not exactly two cards, or an unknown or bad wager.
    """

    seat: int
    cards: tuple[Card, ...]
    wagers: Mapping[str, Fraction | int | float] = field(default_factory=dict)
    hits: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.seat, int) or isinstance(self.seat, bool) or self.seat < 1:
            raise ValueError(f"seat must be a positive whole number, got {self.seat!r}")
        if len(self.cards) != 2:
            raise ValueError(f"seat {self.seat}: expected the first two cards, got {len(self.cards)}")
        unknown = set(self.wagers) - set(WAGER_KINDS)
        if unknown:
            raise ValueError(f"seat {self.seat}: unknown wager {sorted(unknown)[0]!r}: expected main, mtd or bonus")
        object.__setattr__(self, "wagers",
                           {k: to_money(v, f"seat {self.seat} {k} wager") for k, v in self.wagers.items()})

    def wager(self, kind: str) -> Fraction | None:
        """The wager of ``kind`` in dollars, or ``None`` when not placed (absent or zero)."""
        amount = self.wagers.get(kind)
        return amount if amount else None


@dataclass(frozen=True)
class SeatSettlement:
    """Every wager of one seat, settled."""

    seat: int
    main: WagerResult
    mtd: WagerResult
    bonus: WagerResult

    def result(self, kind: str) -> WagerResult:
        return getattr(self, kind)


@dataclass(frozen=True)
class RoundSettlement:
    """The settlement of one round: per seat, and every violation found."""

    seats: tuple[SeatSettlement, ...]
    violations: tuple[Violation, ...]

    def seat(self, number: int) -> SeatSettlement:
        for s in self.seats:
            if s.seat == number:
                return s
        raise KeyError(f"no seat {number} in this round")


def settle_round(profile: TableProfile, dealer_up: Card, seats: Sequence[SeatHand],
                 dealer_cards: Sequence[Card] | None = None, dealer_hole: Card | None = None) -> RoundSettlement:
    """Settle every wager of a round.

    Args:
        profile: the table's configuration.
        dealer_up: the dealer's up card (the card match-the-dealer is judged against).
        seats: each seat's first two cards, hits and wagers.
        dealer_cards: the dealer's whole hand in order, up card first (settles main wagers).
        dealer_hole: the dealer's second card alone (settles main wagers the dealer's
            first two cards decide).  Ignored when ``dealer_cards`` is given.

    Returns:
        A :class:`RoundSettlement`.  Side bets that a ``config`` violation forbids at this
        table, or that break a ``wager`` limit, are ``void`` (payout ``None``); a card the
        shoe cannot hold voids the wagers it touches (the whole round for a dealer card).

    Raises:
        ValueError: for repeated seats, or ``dealer_cards`` not starting with ``dealer_up``.
    """
    numbers = [s.seat for s in seats]
    if len(set(numbers)) != len(numbers):
        raise ValueError(f"seat numbers repeat: {numbers}")
    if dealer_cards is not None:
        dealer_hand = list(dealer_cards)
        if not dealer_hand or dealer_hand[0] != dealer_up:
            raise ValueError("dealer_cards must start with the up card")
        dealer_complete = True
    else:
        dealer_hand = [dealer_up] + ([dealer_hole] if dealer_hole is not None else [])
        dealer_complete = False

    violations: list[Violation] = []
    wagered = {k for s in seats for k in ("mtd", "bonus") if s.wager(k)}
    config = profile.config_violations(offered=wagered)
    violations += config
    forbidden = {v.wager for v in config}

    shoe = ShoeComposition(profile.decks, spanish=profile.spanish_decks)
    bad_dealer = [c for c in dealer_hand if not shoe.can_hold(c)]
    for card in bad_dealer:
        violations.append(Violation("card", SPANISH_DECK_RULE,
                                    f"dealer card {card} cannot come from a shoe of {profile.decks} Spanish decks "
                                    "(no 10s): a recognition error or the wrong shoe"))

    settled: list[SeatSettlement] = []
    for hand in sorted(seats, key=lambda s: s.seat):
        bad_cards = [c for c in list(hand.cards) + list(hand.hits) if not shoe.can_hold(c)]
        for card in bad_cards:
            violations.append(Violation("card", SPANISH_DECK_RULE,
                                        f"card {card} cannot come from a shoe of {profile.decks} Spanish decks "
                                        "(no 10s): a recognition error or the wrong shoe", hand.seat))
        round_void = bool(bad_dealer or bad_cards)
        main_wager = hand.wager("main")
        main_given = "main" in hand.wagers

        mtd = NO_WAGER
        if hand.wager("mtd"):
            limits = mtd_wager_violations(profile, hand.wager("mtd"), hand.wagers["main"] if main_given else None,
                                          hand.seat)
            violations += limits
            odds = profile.effective_mtd_odds()
            if "mtd" in forbidden or limits or round_void or odds is None:
                mtd = VOID
            else:
                mtd = match_the_dealer_payout(dealer_up, hand.cards, hand.wager("mtd"), odds)

        bonus = NO_WAGER
        if hand.wager("bonus"):
            limits = bonus_wager_violations(hand.wager("bonus"), hand.wagers["main"] if main_given else None, hand.seat)
            violations += limits
            posted = profile.bonus_payout_for(hand.wager("bonus"))
            if "bonus" in forbidden or limits or round_void or posted is None:
                bonus = VOID
            else:
                bonus = blackjack_bonus_payout(hand.cards, hand.wager("bonus"), posted,
                                               profile.bonus_payout_includes_wager)

        main: WagerResult = NO_WAGER
        if main_wager:
            limits = main_wager_violations(profile, main_wager, hand.seat)
            violations += limits
            round_void = round_void or bool(limits)
            main = VOID if round_void else settle_main_wager(profile, hand.cards, hand.hits, dealer_hand,
                                                             main_wager, dealer_complete)
        settled.append(SeatSettlement(seat=hand.seat, main=main, mtd=mtd, bonus=bonus))
    return RoundSettlement(seats=tuple(settled), violations=tuple(violations))
