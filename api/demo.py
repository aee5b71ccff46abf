"""``pitwatch demo``: the bundled default job.

The demo reviews the bundled sample video (``api/samples/round``, rendered by
``pitwatch synth round`` with injected faults), writes the review to ``out/demo/``
and prints the rounds and alerts beside what the render's truth says a correct
monitor must find.  It then settles a bundled set of sample rounds with the rules
engine alone (``api/samples/rounds.jsonl``).

By default the review reads the pixels with the committed ONNX models, as a
surveillance room would (since the sixteenth session they read this sample right:
every card, wager and payout, and the one alert its truth holds).  The detector is
not yet right for every round it meets (``models/MODEL_CARD.md``), so
``--truth-readings`` shows the round engine, the audit and the evidence on the
render's own zone readings (``datasets.oracle``) instead.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

SAMPLES = Path(__file__).resolve().parent / "samples"
SAMPLE_ROUND = SAMPLES / "round"


def demo(out: Path = typer.Option(Path("out/demo"), help="where the review of the sample video goes"),
         no_video: bool = typer.Option(False, "--no-video", help="skip the annotated video"),
         detector: bool = typer.Option(True, "--detector/--truth-readings",
                                       help="read the video with the ONNX models (default), or take the zone "
                                            "readings from the render's truth (the round engine alone)")) -> None:
    """Review the bundled sample video, then settle the bundled sample rounds (see the README)."""
    from rich.console import Console

    console = Console()
    reviewed = (_review_sample(console, out, no_video) if detector
                else _review_sample_with_truth_readings(console, out, no_video))
    _settle_samples(console)
    if reviewed:
        console.print(f"\nOpen [bold]{out / 'report.html'}[/bold] in a browser: the round timeline, each alert with "
                      f"its evidence image and clip, and {'' if no_video else 'the annotated video.'}")


def _review_sample(console, out: Path, no_video: bool) -> bool:
    from vision.onnx_runtime import ModelFileError

    video = SAMPLE_ROUND / "video.mp4"
    if not video.exists():
        console.print("[yellow]no bundled sample video; skipping the review part of the demo[/yellow]")
        return False
    from typer.testing import CliRunner

    from api.cli import app

    console.print(f"[bold]1. Reviewing the bundled sample video[/bold] {video} -> {out}")
    args = ["review", str(video), "--table", str(SAMPLE_ROUND / "table.yaml"), "--out", str(out)]
    if no_video:
        args.append("--no-video")
    try:
        result = CliRunner().invoke(app, args, catch_exceptions=True)
    except ModelFileError as exc:  # pragma: no cover - models missing from a broken checkout
        console.print(f"[red]the committed models could not be loaded: {exc}[/red]")
        return False
    if result.exit_code != 0:
        console.print(result.output[-2000:])
        if result.exception:
            console.print(f"[red]review failed: {result.exception}[/red]")
        return False
    console.print(result.output)
    _compare_with_truth(console, json.loads((out / "report.json").read_text()))
    return True


def _review_sample_with_truth_readings(console, out: Path, no_video: bool) -> bool:
    """The review pipeline over the sample video, zone readings taken from the render's script."""
    from vision.review_cli import _print_summary, review_pipeline

    video = SAMPLE_ROUND / "video.mp4"
    if not video.exists():
        console.print("[yellow]no bundled sample video; skipping the review part of the demo[/yellow]")
        return False
    console.print(f"[bold]1. Reviewing the bundled sample video[/bold] {video} -> {out}\n"
                  "   zone readings from the render's truth (--truth-readings: the round engine alone; the default "
                  "reads the pixels with the ONNX models)")
    out.mkdir(parents=True, exist_ok=True)
    report, run = review_pipeline(video, SAMPLE_ROUND / "table.yaml", out, no_video=no_video, observer="oracle")
    _print_summary(report, run)
    _compare_with_truth(console, report)
    return True


def _compare_with_truth(console, report: dict) -> None:
    from rich.table import Table

    truth = json.loads((SAMPLE_ROUND / "truth.json").read_text())
    table = Table(title="Alerts: what the monitor raised vs what the render's truth requires")
    for col in ("round", "truth", "pitwatch"):
        table.add_column(col)
    for i, t in enumerate(truth["rounds"]):
        got = report["rounds"][i]["alerts"] if i < len(report["rounds"]) else []
        table.add_row(str(i), ", ".join(f"{a['type']} seat {a['seat']} (exp {a['expected']}, obs {a['observed']})"
                                        for a in t["alerts"]) or "-",
                      ", ".join(f"{a['type']} seat {a['seat']} (exp {a['expected']}, obs {a['observed']})"
                                for a in got) or "-")
    console.print(table)


def _settle_samples(console) -> None:
    from rich.table import Table

    from rules.wire import ProfileCache, settle_line

    path = SAMPLES / "rounds.jsonl"
    profiles = ProfileCache()
    console.print(f"\n[bold]2. The rules engine alone[/bold] settles {path}")
    table = Table(title="Side bets settled by the NJ rules")
    for col in ("round", "game", "up", "seat", "cards", "wagers", "match-the-dealer", "bonus", "main"):
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
            wagers = " ".join(f"{k}:" + ("$?" if v is None else f"${v}") for k, v in seats[s["seat"]]["wagers"].items())
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
