"""Dealer and player faults injected into scripted rounds, and when a monitor can decide each one.

A faulty round carries one :class:`Fault`.  The round script (:mod:`datasets.rounds`)
asks this module which seat and wager the fault concerns, how the wagers and the
cards must look for it to happen (a match for an underpaid match-the-dealer, a
blackjack for an overpaid bonus...), what the dealer pays instead of the right
amount, and how the deal goes out of order; it then plays the round with the fault
and records the alert a correct monitor must raise.

Alert timing: ``t_s``/``frame`` is the first frame at which a correct monitor,
watching the video, has everything it needs to decide the fault (``t_s = frame / fps``):

=====================  =========================================================================
type                   decidable at the first frame where ...
=====================  =========================================================================
mtd_underpaid,         the payout stack stands complete in the seat's payout zone and no hand
mtd_overpaid,          covers that zone in the image (the dealer has let go of it).
bonus_underpaid,
bonus_overpaid
mtd_not_collected,     the round's cards have all been picked up (the dealer's own cards, picked
bonus_not_collected    up last, have reached the discard rack) while the losing wager still
                       stands on its spot: until then it could still be collected, late.
mtd_settled_late       that seat's match-the-dealer wager has been settled (a losing stack gone
                       from its spot, or a winning payout stack placed, with no hand over the
                       zone) while a card beyond the initial deal (a hit) already lies on the
                       table.  Every seat with a match-the-dealer wager gets one such alert.
past_posting,          the changed stack stands on its spot with no hand over it.
pinching
dealing_order          the out-of-order card lies in its recipient's zone with no hand over it.
wager_over_limit       the round's first card (burn card aside) lies in its zone with no hand
                       over it: wagers are judged as they stood at the first card.
=====================  =========================================================================

``expected``/``observed`` hold dollars (the right payout and the one made; the
wager at the first card and the changed wager; the limit and the wager; the
wager to collect and 0), the recipients for ``dealing_order`` (a seat number,
``"dealer"`` or ``"burn"``), and ``null`` for ``mtd_settled_late``.  Alerts on a
wager also carry ``wager`` (``main``, ``mtd`` or ``bonus``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

from rules.dealing import DealEvent

FAULT_KINDS: tuple[str, ...] = (
    "mtd_underpaid", "mtd_overpaid", "mtd_not_collected", "mtd_settled_late",
    "bonus_not_collected", "bonus_underpaid", "bonus_overpaid",
    "past_posting", "pinching", "dealing_order", "wager_over_limit",
)
"""Every fault the round script can inject (alert types of the contracts)."""

FAULT_SIDE_BET: dict[str, str | None] = {
    "mtd_underpaid": "mtd", "mtd_overpaid": "mtd", "mtd_not_collected": "mtd", "mtd_settled_late": "mtd",
    "bonus_not_collected": "bonus", "bonus_underpaid": "bonus", "bonus_overpaid": "bonus",
    "past_posting": None, "pinching": None, "dealing_order": None, "wager_over_limit": None,
}
"""The side bet a fault needs the table to offer (``None``: any table)."""

FAULT_SHARE = 1 / 3
"""About one round in three carries a fault."""


class FaultKindError(ValueError):
    """An unknown fault kind, or one the chosen game cannot have."""


@dataclass(frozen=True)
class Fault:
    """One injected fault.

    Attributes:
        kind: one of :data:`FAULT_KINDS`.
        seat: the seat it concerns (``None`` until chosen; for ``dealing_order`` the
            recipient of the out-of-order card is found by the rules engine's checker).
        wager: ``main``, ``mtd`` or ``bonus`` for faults on one wager.
        amount: dollars: the payout made (under/overpaid), the changed wager
            (past-posting, pinching) or the over-limit wager.
        limit: dollars: the limit broken (``wager_over_limit``).
        variant: how a ``dealing_order`` fault breaks the order (``swap_seats``,
            ``dealer_early``, ``no_burn``, ``up_before_down``).
        needs: what the cards must give for the fault to show, as
            ``(condition, seat)`` pairs: ``mtd_win``, ``mtd_lose``, ``bonus_win``,
            ``bonus_lose``, ``hit`` (a card beyond the initial deal must follow).
    """

    kind: str
    seat: int | None = None
    wager: str | None = None
    amount: Fraction | None = None
    limit: Fraction | None = None
    variant: str | None = None
    needs: tuple[tuple[str, int | None], ...] = field(default=())


def parse_fault_kinds(text: str | None) -> tuple[str, ...] | None:
    """Parse ``--faults``: ``None``/``all`` = every kind, ``none`` = no faults, else ``a,b``.

    Returns:
        ``None`` for every kind, ``()`` for none, else the kinds in :data:`FAULT_KINDS` order.

    Raises:
        FaultKindError: naming an unknown kind and listing the known ones.
    """
    if text is None or text.strip().lower() in ("", "all"):
        return None
    if text.strip().lower() == "none":
        return ()
    kinds = [k.strip().lower() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in FAULT_KINDS]
    if unknown:
        raise FaultKindError(f"--faults: unknown fault kind {unknown[0]!r}; known: {', '.join(FAULT_KINDS)}, "
                             "or 'none'")
    return tuple(k for k in FAULT_KINDS if k in kinds)


def kinds_for_table(kinds: Sequence[str] | None, side_bets: Sequence[str]) -> tuple[str, ...]:
    """The fault kinds (of ``kinds``, ``None`` = all) a table offering ``side_bets`` can have."""
    pool = FAULT_KINDS if kinds is None else tuple(kinds)
    return tuple(k for k in pool if FAULT_SIDE_BET[k] is None or FAULT_SIDE_BET[k] in side_bets)


def choose_fault_rounds(rng: random.Random, rounds: int, kinds: Sequence[str]) -> list[str | None]:
    """Which rounds get a fault, and which kind: about :data:`FAULT_SHARE` of them, at least one.

    Kinds are dealt out without repeats until each has been used, so a video with
    several faulty rounds shows several kinds.
    """
    if not kinds or rounds < 1:
        return [None] * rounds
    count = max(1, round(rounds * FAULT_SHARE))
    faulty = sorted(rng.sample(range(rounds), count))
    bag: list[str] = []
    out: list[str | None] = [None] * rounds
    for i in faulty:
        if not bag:
            bag = list(kinds)
            rng.shuffle(bag)
        out[i] = bag.pop()
    return out


# -- shaping the round for a fault ---------------------------------------------------------

def prepare_fault(kind: str, rng: random.Random, wagers: dict[int, dict[str, int]], game: str,
                  limits: dict[str, int | None], deal_order: str, burn: bool) -> tuple[Fault, dict[int, dict[str, int]]]:
    """Choose the seat and wager a fault concerns, and adjust the round's wagers for it.

    Args:
        kind: the fault.
        rng: the round's random stream.
        wagers: seat -> {wager kind: dollars}, as the players would bet without the fault.
        game: ``blackjack``, ``spanish21`` or ``switch_hands``.
        limits: ``main_max``, ``mtd_min``, ``mtd_max`` posted at the table (dollars or ``None``).
        deal_order: ``standard`` or ``switch_hands``.
        burn: whether this round's deal opens with a burn card.

    Returns:
        The fault and the wagers to place (a copy; the target seat gets the wager the
        fault needs).  Payout amounts are filled in later by :func:`wrong_payout`.
    """
    wagers = {s: dict(w) for s, w in wagers.items()}
    seats = sorted(wagers)
    side = FAULT_SIDE_BET[kind]
    if side is not None:
        seat = rng.choice(seats)
        if side not in wagers[seat]:
            wagers[seat][side] = _default_side_wager(side, rng, wagers[seat]["main"], game, limits)
        needs = {
            "mtd_underpaid": (("mtd_win", seat),), "mtd_overpaid": (("mtd_win", seat),),
            "mtd_not_collected": (("mtd_lose", seat),), "mtd_settled_late": (("hit", None),),
            "bonus_underpaid": (("bonus_win", seat),), "bonus_overpaid": (("bonus_win", seat),),
            "bonus_not_collected": (("bonus_lose", seat),),
        }[kind]
        return Fault(kind, seat=seat, wager=side, needs=needs), wagers

    if kind == "dealing_order":
        variants = []
        if len(seats) >= 2:
            variants.append("swap_seats")
        variants.append("dealer_early")
        if deal_order == "switch_hands":
            variants.append("up_before_down")
            if burn:
                variants += ["no_burn", "no_burn"]
        return Fault(kind, variant=rng.choice(variants)), wagers

    seat = rng.choice(seats)
    w = wagers[seat]
    targets = ["main", "main"]
    if "mtd" in w and kind in ("past_posting", "pinching"):
        targets.append("mtd")
    if kind == "wager_over_limit":
        targets = []
        if limits.get("main_max"):
            targets.append("main")
        if game in ("blackjack", "spanish21"):
            targets.append("mtd")
        if game == "blackjack":
            targets.append("bonus")
        if not targets:
            raise FaultKindError(f"wager_over_limit: the {game} table posts no limit to break")
    target = rng.choice(targets)

    if kind == "wager_over_limit":
        if target == "main":
            limit = int(limits["main_max"])
            amount = limit + rng.choice([100, 200, 500])
            w["main"] = amount
            return Fault(kind, seat, "main", Fraction(amount), Fraction(limit)), wagers
        if target == "bonus":
            amount = rng.choice([2, 3, 10, 25])
            w["bonus"] = amount
            limit = 1 if amount < 5 else 5
            return Fault(kind, seat, "bonus", Fraction(amount), Fraction(limit),
                         needs=(("bonus_lose", seat),)), wagers
        # match-the-dealer over its limit (Spanish 21: over the main wager or the posted maximum)
        if game == "spanish21" and (limits.get("mtd_max") is None or rng.random() < 0.6):
            limit = min(w["main"], limits.get("mtd_max") or w["main"])
            amount = limit + rng.choice([5, 10, 25])
        else:
            limit = int(limits.get("mtd_max") or 100)
            amount = limit + rng.choice([25, 50, 100])
        w["mtd"] = amount
        return Fault(kind, seat, "mtd", Fraction(amount), Fraction(limit), needs=(("mtd_lose", seat),)), wagers

    if kind == "past_posting":
        if target == "main":
            cap = limits.get("main_max")
            add = rng.choice([10, 20, 50, 100])  # multiples of $10: see pinching below
            if cap is not None and w["main"] + add > cap:
                w["main"] = max(10, (int(cap) - add) // 10 * 10)
            return Fault(kind, seat, "main", Fraction(w["main"] + add)), wagers
        # chips slipped onto a match-the-dealer wager that then loses (no payout follows from it)
        room = _mtd_cap(game, w, limits) - w["mtd"]
        if room < 1:
            w["mtd"] = max(1, _mtd_cap(game, w, limits) - 5)
            room = _mtd_cap(game, w, limits) - w["mtd"]
        add = min(room, rng.choice([5, 10]))
        return Fault(kind, seat, "mtd", Fraction(w["mtd"] + add), needs=(("mtd_lose", seat),)), wagers

    # pinching: chips taken off a wager before it is settled; at least one chip stays
    if target == "main":
        # main wagers stay multiples of $10 so a 3-to-2 blackjack pays whole dollars;
        # in Spanish 21 the match-the-dealer wager stays within what is left of the main wager
        floor = w.get("mtd", 0) if game == "spanish21" else 0
        keep = max(10, (w["main"] // 2) // 10 * 10, -(-floor // 10) * 10)
        w["main"] = max(w["main"], keep + 10)
        return Fault(kind, seat, "main", Fraction(keep)), wagers
    if w["mtd"] < 10:
        w["mtd"] = max(w["mtd"], min(10, _mtd_cap(game, w, limits)))
    if w["mtd"] < 2:
        w["main"] = max(w["main"], 20)
        return Fault(kind, seat, "main", Fraction(max(10, w["main"] // 2 // 10 * 10))), wagers
    keep = 5 if w["mtd"] >= 10 else 1
    return Fault(kind, seat, "mtd", Fraction(keep), needs=(("mtd_lose", seat),)), wagers


def _mtd_cap(game: str, w: dict[str, int], limits: dict[str, int | None]) -> int:
    cap = limits.get("mtd_max") or 100
    return min(int(cap), w["main"]) if game == "spanish21" else int(cap)


def _default_side_wager(side: str, rng: random.Random, main: int, game: str, limits: dict[str, int | None]) -> int:
    if side == "bonus":
        return rng.choice([1, 1, 5])
    low = int(limits.get("mtd_min") or 1)
    cap = _mtd_cap(game, {"main": main}, limits)
    options = [a for a in (5, 10, 15, 25) if low <= a <= cap] or [max(low, 1)]
    return rng.choice(options)


# -- what the dealer does wrong ------------------------------------------------------------

def wrong_payout(fault: Fault, expected: Fraction, wager: Fraction, denominations: Sequence[int],
                 rng: random.Random, suited_odds: Fraction | None = None,
                 unsuited_odds: Fraction | None = None, suited_matches: int = 0) -> Fraction:
    """The payout the dealer makes for an under- or overpaid winning side bet.

    Mistakes a dealer makes: paying a suited match at the unsuited odds (or the
    reverse), one chip short or over, or the $5 bonus amount on a $1 wager.

    Args:
        fault: an ``*_underpaid`` or ``*_overpaid`` fault.
        expected: the right payout, dollars.
        wager: the wager, dollars.
        denominations: chip values at the table, dollars.

    Returns:
        A payout in dollars, different from ``expected``, positive, made of whole chips.
    """
    under = fault.kind.endswith("underpaid")
    choices: list[Fraction] = []
    if fault.kind.startswith("mtd") and suited_odds is not None and unsuited_odds is not None:
        swap = wager * (suited_odds - unsuited_odds)
        if under and suited_matches:
            choices.append(expected - swap)      # a suited match paid at the unsuited odds
        if not under and suited_matches < 2:
            choices.append(expected + swap)      # an unsuited match paid at the suited odds
    small = [d for d in sorted(denominations) if d <= expected / 2] or [min(denominations)]
    for step in {small[-1], small[0]}:
        choices.append(expected - step if under else expected + step)  # a chip short or a chip over
    if fault.kind.startswith("bonus") and not under:
        choices.append(expected * 5)             # the $5 wager's amount on a $1 wager
    good = sorted({c for c in choices if c > 0 and c != expected and c.denominator == 1})
    if not good:
        good = [expected * 2] if not under else [max(Fraction(1), expected // 2)]
    return rng.choice(good)


def break_deal_order(events: Sequence[DealEvent], variant: str, rng: random.Random) -> list[DealEvent]:
    """The deal as a dealer who breaks the order would make it.

    Variants: ``swap_seats`` (two neighbouring seats of one pass swapped),
    ``dealer_early`` (the dealer's up card before the last seat's first card),
    ``no_burn`` (the burn card after a new shoe left out, 2B.6(c)),
    ``up_before_down`` (Switch Hands: a face-up card before the last face-down one).
    """
    ev = list(events)
    if variant == "no_burn" and ev and ev[0].recipient == "burn":
        return ev[1:]
    if variant == "swap_seats":
        pairs = [i for i in range(len(ev) - 1)
                 if isinstance(ev[i].recipient, int) and isinstance(ev[i + 1].recipient, int)
                 and ev[i].face_up == ev[i + 1].face_up and ev[i].recipient != ev[i + 1].recipient]
        if pairs:
            i = rng.choice(pairs)
            ev[i], ev[i + 1] = ev[i + 1], ev[i]
            return ev
    if variant == "up_before_down":
        i = next((k for k in range(len(ev) - 1) if not ev[k].face_up and isinstance(ev[k].recipient, int)
                  and ev[k + 1].face_up), None)
        if i is not None:
            ev[i], ev[i + 1] = ev[i + 1], ev[i]
            return ev
    # dealer_early (and the fallback of the others)
    i = next(k for k, e in enumerate(ev) if e.recipient == "dealer")
    ev[i - 1], ev[i] = ev[i], ev[i - 1]
    return ev


def alert_record(kind: str, seat: int | str | None, frame: int, fps: float, expected, observed,
                 wager: str | None = None) -> dict:
    """One alert in the contracts' ``report.json`` form (no evidence: the truth has none)."""
    out = {"type": kind, "seat": seat, "t_s": round(frame / fps, 3), "frame": frame,
           "expected": expected, "observed": observed}
    if wager is not None:
        out["wager"] = wager
    return out

