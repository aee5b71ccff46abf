"""Errors that the command line reports as bad input (exit code 2)."""

from __future__ import annotations


class BadInput(ValueError):
    """Input the user can fix: the message names the file, line or field and what is wrong."""


def bad_input_types() -> tuple[type[BaseException], ...]:
    """Exception types that mean "bad input" wherever they are raised (exit 2, one line on stderr)."""
    from calibration.layout import LayoutError
    from rules.cards import UnknownCardError

    types: list[type[BaseException]] = [BadInput, UnknownCardError, LayoutError]
    try:
        from rules.profile import ProfileError

        types.append(ProfileError)
    except ImportError:  # pragma: no cover - during bootstrap
        pass
    return tuple(types)
