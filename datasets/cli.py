"""``pitwatch synth ...``: synthetic training images (and, from :mod:`datasets.round_cli`, round videos).

Heavy imports happen inside the commands so ``pitwatch --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import typer

from api.errors import BadInput

synth_app = typer.Typer(name="synth", help="Render synthetic training images and scripted round videos.",
                        no_args_is_help=True, add_completion=False)


def parse_seed(text: str | int, option: str = "--seed") -> int:
    """A seed given on the command line as a non-negative whole number.

    Raises:
        BadInput: naming the option when ``text`` is not a whole number >= 0.
    """
    s = str(text).strip()
    if not s.isdigit():
        raise BadInput(f"{option}: {text!r} is not a whole number (a seed is an integer >= 0, e.g. {option} 7)")
    return int(s)


@synth_app.command("images")
def images(
    count: int = typer.Option(..., "--count", help="Number of images to render."),
    seed: str = typer.Option("0", "--seed", help="Seed (a whole number); the same seed gives the same data set."),
    out: Path = typer.Option(..., "--out", help="Output folder (images/, labels/, scenes/, data.yaml)."),
    workers: int = typer.Option(0, "--workers", help="Processes (0 = one per core, at most 2)."),
    deck: list[str] = typer.Option([], "--deck", help="Use only this deck design (repeatable)."),
    hold_out: list[str] = typer.Option([], "--hold-out", help="Never use this deck design (repeatable)."),
    contact: bool = typer.Option(False, "--contact-sheet", help="Also write DIR/contact_sheet.png of the first 16 images."),
) -> None:
    """Render a labelled YOLO data set of table images (cards by corner index, BACK, chip stacks)."""
    from rich.console import Console

    from datasets.cards import list_deck_designs
    from datasets.images import write_dataset

    s = parse_seed(seed)
    if count < 1:
        raise BadInput(f"--count: must be at least 1, got {count}")
    known = list_deck_designs()
    for name in [*deck, *hold_out]:
        if name not in known:
            raise BadInput(f"--deck/--hold-out: unknown deck design {name!r}; known: {', '.join(known)}")
    decks = [d for d in (deck or known) if d not in hold_out]
    if not decks:
        raise BadInput("--hold-out: every deck design is held out; nothing left to draw")
    console = Console(stderr=True)
    report = write_dataset(out, count, s, workers or None, decks)
    med = sorted(report.seconds)[len(report.seconds) // 2]
    console.print(f"wrote {report.count} images, {report.labels} labels to {out} in {report.wall_s:.1f} s "
                  f"(median {med:.2f} s/image per process)")
    if contact:
        from datasets.contact_sheet import contact_sheet

        console.print(f"contact sheet: {contact_sheet(out)}")


@synth_app.command("contact-sheet")
def contact_sheet_cmd(
    dataset: Path = typer.Argument(..., help="A folder made by `pitwatch synth images`."),
    count: int = typer.Option(16, "--count", help="Images on the sheet."),
    cols: int = typer.Option(4, "--cols", help="Images per row."),
    out: Path = typer.Option(None, "--out", help="Output PNG (default DATASET/contact_sheet.png)."),
    zoom: bool = typer.Option(False, "--zoom", help="Zoom each tile onto its labels."),
) -> None:
    """Draw labels over a grid of data-set images, to check them by eye."""
    from datasets.contact_sheet import contact_sheet

    if not (dataset / "images").is_dir():
        raise BadInput(f"{dataset}: not a data set folder (no images/ inside)")
    try:
        path = contact_sheet(dataset, count, cols, out=out, crop_to_labels=zoom)
    except ValueError as exc:
        raise BadInput(str(exc)) from exc
    typer.echo(str(path))


def register(app: typer.Typer) -> None:
    """Add the ``synth`` group to the ``pitwatch`` app (with ``synth round`` where datasets.round_cli exists)."""
    try:
        from datasets.round_cli import register_round
    except ModuleNotFoundError as exc:
        if exc.name != "datasets.round_cli":
            raise
    else:
        register_round(synth_app)
    app.add_typer(synth_app, name="synth")
