"""``pitwatch settle`` and ``pitwatch rules ...``: the rules engine on the command line."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the rules commands to the ``pitwatch`` app."""
