"""The order in which a round's cards are dealt, and a checker for it.

Two orders are known:

* ``standard`` (pitwatch's default for blackjack and Spanish 21, rules.md §2.6, a
  table-profile setting until the text of 13:69F-2.6 is checked): one card face up
  to each wagered box from first base, one face up to the dealer (the up card), a
  second face up to each box, then the dealer's second card face down (the hole card).
* ``switch_hands`` (13:69F-2B.6(d)): two face-down cards to each player, a face-up
  card to each box, the dealer's face-up card, a second face-up card to each box,
  then the dealer's face-down hole card — with a burn card first after a new shoe
  or a new dealer (2B.6(c)).

Seats are dealt from the dealer's left (first base, seat 1) clockwise, i.e. in
increasing seat number.

Example:
    >>> events = expected_deal_order("standard", [1, 3])
    >>> [str(e) for e in events]
    ['1:up', '3:up', 'dealer:up', '1:up', '3:up', 'dealer:down']
    >>> check_dealing_order(events[:2] + [DealEvent("dealer", True), DealEvent(3, True)], [1, 3], "standard").recipient
    3
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence, Union

Recipient = Union[int, Literal["dealer", "burn"]]
DealOrder = Literal["standard", "switch_hands"]


@dataclass(frozen=True, slots=True)
class DealEvent:
    """One card leaving the shoe: to a seat number, to the ``dealer``, or the ``burn`` card to the discard rack."""

    recipient: Recipient
    face_up: bool

    def __str__(self) -> str:
        return f"{self.recipient}:{'up' if self.face_up else 'down'}"


@dataclass(frozen=True, slots=True)
class DealingOrderViolation:
    """The first deal step that breaks the required order.

    Attributes:
        step: 0-based index into the observed events.
        expected: what should have been dealt at that step (``None`` past the end).
        observed: what was dealt (``None`` when the deal stopped short).
        rule: the section, e.g. ``13:69F-2B.6(d)``.
        message: for a person.
    """

    step: int
    expected: DealEvent | None
    observed: DealEvent | None
    rule: str
    message: str

    @property
    def recipient(self) -> Recipient | None:
        """Who received the out-of-order card (the contracts' alert ``seat``)."""
        return self.observed.recipient if self.observed is not None else None


def expected_deal_order(order: DealOrder, seats: Sequence[int], burn: bool = False) -> list[DealEvent]:
    """The deal, step by step, for the wagered ``seats``.

    Args:
        order: ``standard`` or ``switch_hands``.
        seats: seat numbers with a wager (any order; dealt in increasing order).
        burn: whether a burn card opens the deal (new shoe or new dealer, 2B.6(c)).

    Raises:
        ValueError: for an unknown order or an empty or repeated seat list.
    """
    ordered = sorted(seats)
    if not ordered or len(set(ordered)) != len(ordered):
        raise ValueError(f"seats must be distinct seat numbers, got {list(seats)}")
    events: list[DealEvent] = [DealEvent("burn", False)] if burn else []
    if order == "standard":
        events += [DealEvent(s, True) for s in ordered]
        events.append(DealEvent("dealer", True))
        events += [DealEvent(s, True) for s in ordered]
        events.append(DealEvent("dealer", False))
    elif order == "switch_hands":
        events += [DealEvent(s, False) for s in ordered]
        events += [DealEvent(s, False) for s in ordered]
        events += [DealEvent(s, True) for s in ordered]
        events.append(DealEvent("dealer", True))
        events += [DealEvent(s, True) for s in ordered]
        events.append(DealEvent("dealer", False))
    else:
        raise ValueError(f"unknown deal order {order!r}: expected 'standard' or 'switch_hands'")
    return events


def _rule(order: DealOrder, burn_step: bool) -> str:
    if order == "switch_hands":
        return "13:69F-2B.6(c)" if burn_step else "13:69F-2B.6(d)"
    return "13:69F-2.6"


def check_dealing_order(events: Sequence[DealEvent], seats: Sequence[int], order: DealOrder,
                        burn_expected: bool = False, complete: bool = False) -> DealingOrderViolation | None:
    """The first step of ``events`` that breaks the order, or ``None``.

    Args:
        events: cards dealt so far, in order.
        seats: wagered seats.
        order: ``standard`` or ``switch_hands``.
        burn_expected: whether this deal must open with a burn card (2B.6(c)).
        complete: when True, a deal that stops short of the full sequence is a violation too.
    """
    expected = expected_deal_order(order, seats, burn_expected)
    for i, seen in enumerate(events):
        if i >= len(expected):
            return DealingOrderViolation(i, None, seen, _rule(order, False),
                                         f"step {i + 1}: extra card to {_who(seen)} after the deal was complete")
        want = expected[i]
        if seen != want:
            return DealingOrderViolation(
                i, want, seen, _rule(order, want.recipient == "burn" or seen.recipient == "burn"),
                f"step {i + 1}: card {_face(seen)} to {_who(seen)}, expected {_face(want)} to {_who(want)}")
    if complete and len(events) < len(expected):
        want = expected[len(events)]
        return DealingOrderViolation(len(events), want, None, _rule(order, want.recipient == "burn"),
                                     f"deal stopped after {len(events)} cards, expected {_face(want)} to {_who(want)}")
    return None


def check_observed_deal(events: Sequence[DealEvent], seats: Sequence[int], order: DealOrder,
                        burn_expected: bool = False, burn_in_view: bool = False) -> DealingOrderViolation | None:
    """:func:`check_dealing_order` for a deal seen by a camera, which may miss a face-down card.

    A face-down card can be hidden where it lies (the hole card slid under the up card, Switch Hands'
    second face-down pair squared on the first, a burn card in the discard rack), so a face-down step
    that was not seen is passed over, provisionally. If that card shows up later in the deal, the
    order was broken where it should have come: the violation is the card seen in its place
    (Switch Hands' face-up card dealt before the last face-down one, 13:69F-2B.6(d)). The dealer's
    hole card first seen face up (already turned over) stands for the hole card. A face-up card is
    never passed over: a card seen where another was due is a violation at once.

    Limits: a face-down card that was truly never dealt cannot be told from one the camera missed, so it
    is not reported here, except the burn card where ``burn_in_view``: a camera that watches the discard
    rack sees the burn card go in, so a deal after a new shoe whose first card goes to a player or the
    dealer is missing its burn card (2B.6(c)).

    Args and returns: as :func:`check_dealing_order` (without ``complete``); ``burn_in_view``: the
    discard rack is in the camera's view.
    """
    expected = expected_deal_order(order, seats, burn_expected)
    j = 0                       # next expected step
    passed: list[int] = []      # face-down steps passed over as unseen, and not seen since
    first_after: dict[int, int] = {}  # passed-over step -> the observed step that came in its place
    for i, seen in enumerate(events):
        # a card that is also the next one due is taken as that one: Switch Hands deals each player two face-down
        # cards, and the first may be the one the camera missed as well as the second
        due_now = j < len(expected) and expected[j] == seen
        late = None if due_now else next((k for k in passed if expected[k] == seen), None)
        if late is not None:
            step = first_after[late]
            want = expected[late]
            shown = events[step]
            return DealingOrderViolation(
                step, want, shown, _rule(order, want.recipient == "burn"),
                f"step {step + 1}: card {_face(shown)} to {_who(shown)}, expected {_face(want)} to {_who(want)} "
                f"(that card came later)")
        while j < len(expected) and expected[j] != seen and not expected[j].face_up and not (
                seen.recipient == "dealer" and expected[j].recipient == "dealer" and seen.face_up) and not (
                burn_in_view and expected[j].recipient == "burn"):
            passed.append(j)
            first_after[j] = i
            j += 1
        if j >= len(expected):
            return DealingOrderViolation(i, None, seen, _rule(order, False),
                                         f"step {i + 1}: extra card to {_who(seen)} after the deal was complete")
        want = expected[j]
        if seen != want and not (want.recipient == seen.recipient == "dealer" and not want.face_up):
            return DealingOrderViolation(
                i, want, seen, _rule(order, want.recipient == "burn" or seen.recipient == "burn"),
                f"step {i + 1}: card {_face(seen)} to {_who(seen)}, expected {_face(want)} to {_who(want)}")
        j += 1
    return None


def _who(e: DealEvent) -> str:
    if e.recipient == "dealer":
        return "the dealer"
    if e.recipient == "burn":
        return "the discard rack (burn card)"
    return f"seat {e.recipient}"


def _face(e: DealEvent) -> str:
    return "face up" if e.face_up else "face down"
