"""Dollar amounts as exact fractions, and their JSON form.

Payouts are computed exactly (``fractions.Fraction``) so that a $25 wager paid
1 to 2 is $12.50 to the cent and odds sums never drift; JSON carries whole
amounts as integers and the rest rounded to cents (contracts: "Money").
"""

from __future__ import annotations

import math
from fractions import Fraction

Money = Fraction


def to_money(value: object, what: str = "amount") -> Fraction | int:
    """Parse a dollar amount (int, float or numeric string) into an exact number.

    Whole amounts come back as ``int`` (exact, and much cheaper than a Fraction on the
    settle hot path); the rest as :class:`Fraction`.

    Raises:
        ValueError: for a bool, NaN, infinity, a negative amount or anything non-numeric,
            naming ``what``.
    """
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{what} must be a number of dollars, got {value!r}")
    if type(value) is int:
        if value < 0:
            raise ValueError(f"{what} must not be negative, got {value!r}")
        return value
    if isinstance(value, int):
        amount = Fraction(value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{what} must be a finite number of dollars, got {value!r}")
        amount = Fraction(str(value))  # 0.1 means ten cents, not its binary neighbour
    elif isinstance(value, (Fraction, str)):
        try:
            amount = Fraction(value)
        except (ValueError, ZeroDivisionError) as exc:
            raise ValueError(f"{what} must be a number of dollars, got {value!r}") from exc
    else:
        raise ValueError(f"{what} must be a number of dollars, got {value!r}")
    if amount < 0:
        raise ValueError(f"{what} must not be negative, got {value!r}")
    return int(amount) if amount.denominator == 1 else amount


def money_json(amount: Fraction | int | None) -> int | float | None:
    """JSON form of a dollar amount: an int when whole, else a float rounded to cents."""
    if amount is None:
        return None
    if type(amount) is int:
        return amount
    amount = Fraction(amount)
    if amount.denominator == 1:
        return int(amount)
    return round(float(amount), 2)


def format_dollars(amount: Fraction | int) -> str:
    """Dollars for a message: ``25`` for whole amounts, ``12.50`` otherwise (no ``$``)."""
    return str(int(amount)) if Fraction(amount).denominator == 1 else f"{float(amount):.2f}"
