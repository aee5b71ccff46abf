"""The JSON form of ``pitwatch settle`` (contracts: "pitwatch settle FILE").

Turns one decoded input line into :func:`rules.settle.settle_round` arguments and
the result back into the output line.  Pure data handling; the caller reads and
writes the lines.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rules.cards import Card, UnknownCardError, parse_card, parse_cards
from rules.money import money_json
from rules.profile import ProfileError, TableProfile, load_profile
from rules.settle import RoundSettlement, SeatHand, settle_round


class SettleInputError(ValueError):
    """A settle line that cannot be settled: bad JSON, an unknown card, a missing or bad field."""


@dataclass(frozen=True)
class SettleRequest:
    """One decoded input line."""

    profile: TableProfile
    dealer_up: Card
    seats: tuple[SeatHand, ...]
    dealer_cards: tuple[Card, ...] | None
    dealer_hole: Card | None


class ProfileCache:
    """Parsed profiles by their JSON text: a file of many rounds usually repeats one table's profile."""

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._cache: dict[str, TableProfile] = {}

    def get(self, game: Any, decks: Any, profile: Any) -> TableProfile:
        key = json.dumps([game, decks, profile], sort_keys=True, default=str)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        if profile is not None and not isinstance(profile, dict):
            raise SettleInputError("profile must be an object")
        if not isinstance(decks, int) or isinstance(decks, bool) or decks < 1:
            raise SettleInputError(f"decks must be a positive whole number, got {decks!r}")
        data = {**(profile or {}), "game": game, "decks": decks}
        try:
            parsed = load_profile(data, "profile")
        except ProfileError as exc:
            raise SettleInputError(str(exc)) from exc
        if len(self._cache) >= self._size:
            self._cache.clear()
        self._cache[key] = parsed
        return parsed


def _require(obj: dict, key: str, where: str = "") -> Any:
    if key not in obj:
        raise SettleInputError(f"missing field {where}{key!r}")
    return obj[key]


def _card(value: Any, field_name: str) -> Card:
    try:
        return parse_card(value)
    except UnknownCardError as exc:
        raise SettleInputError(f"{field_name}: {exc}") from exc


def parse_request(obj: Any, profiles: ProfileCache | None = None) -> SettleRequest:
    """Decode one input line (already JSON-decoded).

    Raises:
        SettleInputError: naming the field and what is wrong.
    """
    if not isinstance(obj, dict):
        raise SettleInputError("each line must be a JSON object")
    profiles = profiles or ProfileCache()
    game = _require(obj, "game")
    if game not in ("blackjack", "spanish21", "switch_hands"):
        raise SettleInputError(f"game: unknown game {game!r}: expected blackjack, spanish21 or switch_hands")
    profile = profiles.get(game, _require(obj, "decks"), obj.get("profile"))
    up = _card(_require(obj, "dealer_up"), "dealer_up")
    dealer_cards = None
    if obj.get("dealer_cards") is not None:
        try:
            dealer_cards = parse_cards(obj["dealer_cards"])
        except UnknownCardError as exc:
            raise SettleInputError(f"dealer_cards: {exc}") from exc
        if not dealer_cards or dealer_cards[0] != up:
            raise SettleInputError("dealer_cards must start with dealer_up")
    hole = _card(obj["dealer_hole"], "dealer_hole") if obj.get("dealer_hole") is not None else None
    raw_seats = _require(obj, "seats")
    if not isinstance(raw_seats, list):
        raise SettleInputError("seats must be a list")
    seats = []
    for i, raw in enumerate(raw_seats):
        where = f"seats[{i}]."
        if not isinstance(raw, dict):
            raise SettleInputError(f"seats[{i}] must be an object")
        try:
            cards = parse_cards(_require(raw, "cards", where))
            hits = parse_cards(raw.get("hits") or [])
        except UnknownCardError as exc:
            raise SettleInputError(f"seats[{i}]: {exc}") from exc
        wagers = raw.get("wagers") or {}
        if not isinstance(wagers, dict):
            raise SettleInputError(f"seats[{i}].wagers must be an object")
        try:
            seats.append(SeatHand(seat=_require(raw, "seat", where), cards=cards, wagers=wagers, hits=hits))
        except ValueError as exc:
            raise SettleInputError(f"seats[{i}]: {exc}") from exc
    numbers = [s.seat for s in seats]
    if len(set(numbers)) != len(numbers):
        raise SettleInputError(f"seats: seat numbers repeat: {numbers}")
    return SettleRequest(profile, up, tuple(seats), dealer_cards, hole)


def settlement_json(result: RoundSettlement, request: SettleRequest) -> dict:
    """The output line for ``result`` (contracts' form)."""
    seats = []
    for s in result.seats:
        seats.append({
            "seat": s.seat,
            "mtd": s.mtd.to_json(with_matches=True) if s.mtd.outcome != "none" else {"outcome": "none"},
            "bonus": s.bonus.to_json(),
            "main": s.main.to_json(),
        })
    return {"seats": seats, "violations": [v.to_json() for v in result.violations]}


def settle_line(line: str, profiles: ProfileCache | None = None) -> tuple[dict, bool]:
    """Settle one JSON Lines input line.

    Returns:
        (output object, ok): on bad input the object is ``{"error": "..."}`` and ok is False.
    """
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"error": f"not valid JSON: {exc.msg} at column {exc.colno}"}, False
    try:
        request = parse_request(obj, profiles)
        result = settle_round(request.profile, request.dealer_up, request.seats,
                              dealer_cards=request.dealer_cards, dealer_hole=request.dealer_hole)
    except (SettleInputError, ValueError) as exc:
        return {"error": str(exc)}, False
    return settlement_json(result, request), True


__all__ = ["SettleInputError", "SettleRequest", "ProfileCache", "parse_request", "settlement_json", "settle_line",
           "money_json"]
