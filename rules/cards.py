"""Playing cards in the contract notation (rank + suit, e.g. ``10H``, ``QS``, ``AC``).

Ten, jack, queen and king are four distinct ranks that all count 10 points
(N.J.A.C. 13:69F-2.2); match-the-dealer (2.23(a)) compares ranks, never points,
so the rank is the identity and the point value is derived from it.

Example:
    >>> card = parse_card("th")
    >>> card, card.points, format_card(card)
    (Card(rank='10', suit='H'), 10, '10H')
"""

from __future__ import annotations

from dataclasses import dataclass

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
"""All ranks, ace first, in the order used for class indices."""

SUITS: tuple[str, ...] = ("C", "D", "H", "S")
"""Clubs, diamonds, hearts, spades."""

TEN_VALUE_RANKS: frozenset[str] = frozenset({"10", "J", "Q", "K"})

RANK_POINTS: dict[str, int] = {r: (1 if r == "A" else 10 if r in TEN_VALUE_RANKS else int(r)) for r in RANKS}
"""Point value of each rank (13:69F-2.2); an ace may count 11 in a hand (:mod:`rules.hands`)."""

BACK = "BACK"
"""Label of a face-down card."""

UNREADABLE = "unreadable"
"""Label of a card that was seen but not read with confidence."""

RED_SUITS: frozenset[str] = frozenset({"D", "H"})


class UnknownCardError(ValueError):
    """A string that is not a card in the contract notation."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One face card: ``rank`` in :data:`RANKS`, ``suit`` in :data:`SUITS`.

    Raises:
        UnknownCardError: when built with a rank or suit outside the notation.
    """

    rank: str
    suit: str

    def __post_init__(self) -> None:
        if self.rank not in RANKS:
            raise UnknownCardError(f"unknown rank {self.rank!r}: expected one of {' '.join(RANKS)}")
        if self.suit not in SUITS:
            raise UnknownCardError(f"unknown suit {self.suit!r}: expected one of {' '.join(SUITS)}")

    @property
    def points(self) -> int:
        """Blackjack point value (13:69F-2.2): ace 1 (a hand may count one as 11), 10/J/Q/K 10."""
        return RANK_POINTS[self.rank]

    @property
    def is_ace(self) -> bool:
        return self.rank == "A"

    @property
    def is_ten_value(self) -> bool:
        """True for 10, J, Q and K (13:69F-2.20(d) blackjack partner of an ace)."""
        return self.rank in TEN_VALUE_RANKS

    @property
    def is_red(self) -> bool:
        return self.suit in RED_SUITS

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card(rank={self.rank!r}, suit={self.suit!r})"


def parse_card(text: str) -> Card:
    """Parse one card, case-insensitively; ``T`` is accepted for ten.

    Args:
        text: e.g. ``"10H"``, ``"th"``, ``"qs"``.

    Returns:
        The :class:`Card`.

    Raises:
        UnknownCardError: for anything else, ``BACK`` and ``unreadable`` included
            (they are labels, not cards; see :func:`parse_label`).
    """
    hit = _CARD_BY_TEXT.get(text) if isinstance(text, str) else None
    if hit is not None:
        return hit
    if not isinstance(text, str):
        raise UnknownCardError(f"a card must be a string like '10H', got {text!r}")
    s = text.strip().upper()
    if len(s) < 2:
        raise UnknownCardError(f"unknown card {text!r}: expected rank+suit like '10H', 'QS', 'AC'")
    rank, suit = s[:-1], s[-1]
    if rank == "T":
        rank = "10"
    if rank not in RANKS or suit not in SUITS:
        raise UnknownCardError(f"unknown card {text!r}: expected rank+suit like '10H', 'QS', 'AC'")
    return Card(rank, suit)


def parse_cards(texts: list[str] | tuple[str, ...]) -> tuple[Card, ...]:
    """Parse a list of cards; raises :class:`UnknownCardError` naming the bad one."""
    if not isinstance(texts, (list, tuple)):
        raise UnknownCardError(f"expected a list of cards, got {texts!r}")
    return tuple(parse_card(t) for t in texts)


def parse_label(text: str) -> Card | str:
    """Parse a detector or report label: a card, :data:`BACK` or :data:`UNREADABLE`."""
    s = text.strip() if isinstance(text, str) else text
    if isinstance(s, str) and s.upper() == BACK:
        return BACK
    if isinstance(s, str) and s.lower() == UNREADABLE:
        return UNREADABLE
    return parse_card(text)


def format_card(card: Card) -> str:
    """The contract notation of ``card`` (upper case, ten as ``10``)."""
    return card.rank + card.suit


ALL_CARDS: tuple[Card, ...] = tuple(Card(r, s) for r in RANKS for s in SUITS)
"""The 52 identities, ordered rank-major (A C, A D, A H, A S, 2 C, ...)."""

CARD_LABELS: tuple[str, ...] = tuple(format_card(c) for c in ALL_CARDS)
"""The 52 labels in :data:`ALL_CARDS` order; class index = position."""

_CARD_BY_TEXT: dict[str, Card] = {}
for _card in ALL_CARDS:
    for _text in {format_card(_card), format_card(_card).replace("10", "T")}:
        _CARD_BY_TEXT[_text] = _card
        _CARD_BY_TEXT[_text.lower()] = _card
