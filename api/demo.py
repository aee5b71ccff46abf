"""``pitwatch demo``: the bundled default job.

Until the vision pipeline reviews the bundled sample video, the demo settles a
bundled set of sample rounds with the rules engine and prints what a surveillance
officer would read: each seat's side bets, the expected payouts, and the
violations the rules engine finds.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

SAMPLES = Path(__file__).resolve().parent / "samples"


def demo() -> None:
    """Run the bundled demo (see the README)."""
    from rich.console import Console
    from rich.table import Table

    from rules.wire import ProfileCache, settle_line

    console = Console()
    path = SAMPLES / "rounds.jsonl"
    profiles = ProfileCache()
    table = Table(title=f"pitwatch demo: the rules engine settles {path.name}")
    for col in ("round", "game", "up card", "seat", "cards", "wagers", "match-the-dealer", "bonus", "main"):
        table.add_column(col)
    violations = []
    for index, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        request = json.loads(line)
        result, ok = settle_line(line, profiles)
        if not ok:
            console.print(f"[red]round {index}: {result['error']}[/red]")
            continue
        seats = {s["seat"]: s for s in request["seats"]}
        for s in result["seats"]:
            cards = " ".join(seats[s["seat"]]["cards"] + seats[s["seat"]].get("hits", []))
            wagers = ", ".join(f"{k} ${v}" for k, v in seats[s["seat"]]["wagers"].items())
            table.add_row(str(index), f"{request['game']} {request['decks']}d", request["dealer_up"], str(s["seat"]),
                          cards, wagers, _fmt(s["mtd"]), _fmt(s["bonus"]), _fmt(s["main"]))
        violations += [(index, v) for v in result["violations"]]
    console.print(table)
    if violations:
        vt = Table(title="Violations (each voids the wager it names)")
        for col in ("round", "seat", "kind", "rule", "message"):
            vt.add_column(col)
        for index, v in violations:
            vt.add_row(str(index), str(v["seat"] if v["seat"] is not None else "table"), v["kind"], v["rule"],
                       v["message"])
        console.print(vt)
    console.print(f"Input: {path}. Try: pitwatch settle {path}   and   pitwatch rules edge --game blackjack --decks 6")


def _fmt(result: dict) -> str:
    outcome = result["outcome"]
    if outcome == "none":
        return "-"
    if "payout_min" in result:
        return f"win ${result['payout_min']}-${result['payout_max']}"
    if "payout" in result:
        return f"{outcome} ${result['payout']}"
    return outcome


def register(app: typer.Typer) -> None:
    """Add ``demo`` to the ``pitwatch`` app."""
    app.command("demo")(demo)
