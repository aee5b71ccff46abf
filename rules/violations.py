"""Rule violations: what the rules engine reports when a table, wager or card breaks a rule."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ViolationKind = Literal["config", "wager", "card"]


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule.

    Attributes:
        kind: ``config`` (the table may not offer this wager this way), ``wager``
            (this wager breaks a limit), ``card`` (a card this game's shoe cannot hold).
        rule: the section, e.g. ``13:69F-2.23(g)``.
        message: what is wrong, for a person.
        seat: the seat concerned, or ``None`` for a table-wide violation.
        wager: which wager it voids (``mtd``, ``bonus``, ``main``), or ``None``.
    """

    kind: ViolationKind
    rule: str
    message: str
    seat: int | None = None
    wager: str | None = None

    def to_json(self) -> dict:
        """The contracts' form: ``{"seat", "kind", "rule", "message"}``."""
        return {"seat": self.seat, "kind": self.kind, "rule": self.rule, "message": self.message}
