"""``pitwatch settle`` and ``pitwatch rules edge``: the rules engine on the command line.

The rules package does no I/O; reading and writing lines happens here.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from typing import Optional

import typer

from api.errors import BadInput


_CHUNK = 2000


def _settle_chunk(chunk: list[tuple[int, str]]) -> list[tuple[int, str, bool]]:
    """Settle numbered lines; returns (line number, JSON text or error message, ok)."""
    import json

    from rules.wire import ProfileCache, settle_line

    profiles = _settle_chunk.__dict__.setdefault("profiles", ProfileCache())
    done = []
    for number, line in chunk:
        result, ok = settle_line(line, profiles)
        done.append((number, json.dumps(result, separators=(", ", ": ")) if ok else result["error"], ok))
    return done


def _chunks(stream):
    chunk: list[tuple[int, str]] = []
    for number, line in enumerate(stream, start=1):
        if line.strip():
            chunk.append((number, line))
            if len(chunk) == _CHUNK:
                yield chunk
                chunk = []
    if chunk:
        yield chunk


def _settle_stream(stream):
    """Settle a stream of lines in order, on every core once the input is larger than one chunk."""
    import os
    from itertools import chain

    chunks = _chunks(stream)
    first = next(chunks, None)
    if first is None:
        return
    second = next(chunks, None)
    workers = min(os.cpu_count() or 1, 8)
    if second is None or workers < 2:
        for chunk in chain([first], [second] if second else [], chunks):
            yield from _settle_chunk(chunk)
        return
    from multiprocessing import get_context

    with get_context("fork").Pool(workers) as pool:
        for done in pool.imap(_settle_chunk, chain([first, second], chunks)):
            yield from done


def settle(file: str = typer.Argument(..., help="JSON Lines file of rounds, or - for standard input")) -> None:
    """Settle rounds with the rules engine: one JSON line out per line in (contracts: settle)."""
    import json

    if file == "-":
        stream = sys.stdin
    else:
        try:
            stream = open(file, encoding="utf-8")
        except OSError as exc:
            raise BadInput(f"{file}: cannot read: {exc.strerror or exc}") from exc
    bad = 0
    out = sys.stdout
    with stream:
        for number, result, ok in _settle_stream(stream):
            if not ok:
                bad += 1
                print(f"pitwatch: error: {file}: line {number}: {result}", file=sys.stderr)
            out.write(result if ok else json.dumps({"error": result}))
            out.write("\n")
    out.flush()
    if bad:
        raise typer.Exit(2)


def edge(
    game: str = typer.Option("blackjack", help="blackjack or spanish21 (48-card decks)"),
    decks: int = typer.Option(6, min=1, help="decks in the shoe"),
    unsuited: Optional[str] = typer.Option(None, help="posted unsuited odds (X to 1); default: the NJ minimum"),
    suited: Optional[str] = typer.Option(None, help="posted suited odds (X to 1); default: the NJ minimum"),
    bonus_payout: Optional[str] = typer.Option(None, "--bonus-payout",
                                               help="posted bonus payout on $1, e.g. 15 (blackjack only)"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Exact house edge of match-the-dealer (and the blackjack bonus) for a shoe and paytable."""
    import json

    from rich.console import Console
    from rich.table import Table

    from rules.edge import MTD_EVENTS, blackjack_probability, bonus_house_advantage, bonus_payout_range, mtd_statistics
    from rules.money import money_json
    from rules.profile import MTD_MINIMUM_ODDS

    if game not in ("blackjack", "spanish21"):
        raise BadInput(f"--game: {game!r} has no match-the-dealer wager; use blackjack or spanish21")
    spanish = game == "spanish21"
    minimum = MTD_MINIMUM_ODDS.get((game, decks))
    try:
        u = Fraction(unsuited) if unsuited is not None else (Fraction(minimum[0]) if minimum else None)
        s = Fraction(suited) if suited is not None else (Fraction(minimum[1]) if minimum else None)
    except ValueError as exc:
        raise BadInput(f"--unsuited/--suited must be numbers: {exc}") from exc
    if u is None or s is None:
        raise BadInput(f"no NJ minimum odds for {game} with {decks} decks (only 6 or 8): give --unsuited and --suited")
    st = mtd_statistics(decks, u, s, spanish)
    p_bj = blackjack_probability(decks, spanish)
    labels = {"two_suited": "2 suited", "suited_unsuited": "suited + unsuited", "one_suited": "1 suited",
              "two_unsuited": "2 unsuited", "one_unsuited": "1 unsuited", "none": "no match"}
    pays = {"two_suited": 2 * s, "suited_unsuited": s + u, "one_suited": s, "two_unsuited": 2 * u,
            "one_unsuited": u, "none": Fraction(-1)}
    data = {
        "game": game, "decks": decks, "deck_size": 48 if spanish else 52,
        "odds": {"unsuited": money_json(u), "suited": money_json(s)},
        "events": [{"event": labels[e], "combinations": getattr(st.counts, e), "total": st.counts.total,
                    "probability": float(st.counts.probability(e)), "pays": money_json(pays[e])} for e in MTD_EVENTS],
        "house_edge": str(st.house_edge), "house_edge_pct": round(float(st.house_edge) * 100, 4),
        "hit_frequency_pct": round(float(st.hit_frequency) * 100, 4),
        "sd_per_unit": round(st.standard_deviation, 4),
        "break_even_suited_odds": round(float(st.break_even_suited_odds), 4),
        "p_blackjack": str(p_bj), "p_blackjack_pct": round(float(p_bj) * 100, 4),
    }
    if not spanish:
        lo, hi = bonus_payout_range(1, decks)
        data["bonus_legal_payouts_on_1"] = {"to": [max(lo, 5), min(hi, 1000)]}
        if bonus_payout is not None:
            try:
                x = Fraction(bonus_payout)
            except ValueError as exc:
                raise BadInput(f"--bonus-payout must be a number: {exc}") from exc
            data["bonus_house_advantage_pct"] = {
                "to": round(float(bonus_house_advantage(x, 1, decks, False)) * 100, 4),
                "for": round(float(bonus_house_advantage(x, 1, decks, True)) * 100, 4)}
    if as_json:
        print(json.dumps(data))
        return
    console = Console()
    table = Table(title=f"Match-the-dealer, {game}, {decks} x {data['deck_size']}-card decks, "
                        f"{data['odds']['unsuited']}/{data['odds']['suited']}")
    for col in ("event", "combinations", "probability", "pays (to 1)"):
        table.add_column(col, justify="right" if col != "event" else "left")
    for ev in data["events"]:
        table.add_row(ev["event"], f"{ev['combinations']:,} / {ev['total']:,}", f"{ev['probability']:.6f}",
                      str(ev["pays"]))
    console.print(table)
    console.print(f"house edge {data['house_edge']} = {data['house_edge_pct']:.4f}%   "
                  f"hit frequency {data['hit_frequency_pct']:.3f}%   SD {data['sd_per_unit']:.3f} per unit   "
                  f"break-even suited odds {data['break_even_suited_odds']:.3f}")
    console.print(f"P(blackjack) {data['p_blackjack']} = {data['p_blackjack_pct']:.4f}%")
    if "bonus_house_advantage_pct" in data:
        ha = data["bonus_house_advantage_pct"]
        console.print(f"bonus $1 pays ${bonus_payout}: house advantage {ha['to']:.2f}% (stake returned) / "
                      f"{ha['for']:.2f}% (payout includes stake)")


def register(app: typer.Typer) -> None:
    """Add ``settle`` and ``rules edge`` to the ``pitwatch`` app."""
    app.command("settle")(settle)
    rules_app = typer.Typer(help="The rules engine's tables and checks.", no_args_is_help=True)
    rules_app.command("edge")(edge)
    app.add_typer(rules_app, name="rules")
