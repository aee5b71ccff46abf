"""``pitwatch synth round``: render a video of scripted rounds with its truth (contracts).

Writes, in ``--out``:

* ``video.mp4``: H.264, yuv420p, MP4 with the index first (plays in browsers);
* ``truth.json``: the contracts' ``report.json`` form: every round, every alert a correct
  monitor must raise (byte-identical for the same seed and options);
* ``table.yaml``: the table file it was rendered with (``id`` ``synth-<seed>``),
  naming ``layout.yaml`` (the shipped layout, copied) and ``calibration.json`` (the true
  camera: ``layout``, ``image_size``, ``homography`` layout mm -> px,
  ``reprojection_error_mm`` 0 and ``camera``, the pinhole model).

Each file is written whole or not at all.  Bad options exit 2 with one line.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from calibration.files import write_atomic


def json_text(data: dict) -> str:
    """The JSON text written for truth and calibration files (stable: same data, same bytes)."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def parse_seed(text: str) -> int:
    """``--seed``: a whole number (decimal), else :class:`api.errors.BadInput`."""
    from api.errors import BadInput

    s = str(text).strip()
    try:
        return int(s, 10)
    except ValueError:
        raise BadInput(f"--seed: expected a whole number, got {text!r}") from None


def parse_size(text: str) -> tuple[int, int]:
    """``--size WxH`` (e.g. ``1280x720``), else :class:`api.errors.BadInput`."""
    from api.errors import BadInput

    try:
        w, h = (int(v) for v in str(text).lower().split("x"))
    except ValueError:
        raise BadInput(f"--size: expected WIDTHxHEIGHT like 1920x1080, got {text!r}") from None
    return w, h


def write_round_outputs(out: Path, options, video: bool = True, crf: int = 26, preset: str = "veryfast",
                        progress=None):
    """Script, render and write everything for one ``synth round`` run; returns (script, render stats or None).

    Raises:
        api.errors.BadInput: for options that cannot make a video.
    """
    from api.errors import BadInput
    from calibration.table import write_table_file
    from datasets.faults import FaultKindError
    from datasets.rounds import GAME_LAYOUT, VIDEO_FILE, RoundOptionsError, render_video, script_video
    from calibration.layout import LAYOUT_DIR

    try:
        script = script_video(options)
    except (RoundOptionsError, FaultKindError) as exc:
        raise BadInput(str(exc)) from None
    if out.exists() and not out.is_dir():
        raise BadInput(f"--out: {out} exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    stats = None
    if video:
        stats = render_video(script, out / VIDEO_FILE, crf=crf, preset=preset, progress=progress)
    layout_src = LAYOUT_DIR / f"{GAME_LAYOUT[script.game]}.yaml"
    write_atomic(out / "layout.yaml", layout_src.read_text(encoding="utf-8"))
    write_atomic(out / "calibration.json", json_text(script.calibration()))
    write_table_file(out / "table.yaml", script.table_file("layout.yaml", "calibration.json"))
    write_atomic(out / "truth.json", json_text(script.truth()))
    return script, stats


def register_round(synth_app: typer.Typer) -> None:
    """Add the ``round`` command to the ``synth`` command group."""

    @synth_app.command("round")
    def round_command(
        seed: str = typer.Option(..., "--seed", help="Any whole number; the same seed gives the same truth.json."),
        out: Path = typer.Option(..., "--out", help="Folder for video.mp4, truth.json, table.yaml, calibration.json."),
        faults: str = typer.Option("all", "--faults",
                                   help="Fault kinds to inject (comma-separated), 'all' or 'none'."),
        fps: float = typer.Option(30.0, "--fps", help="Frames per second (10 is fine for long evaluation runs)."),
        rounds: int = typer.Option(None, "--rounds", help="Rounds in the video (default: the seed picks 2-3)."),
        game: str = typer.Option(None, "--game", help="blackjack, spanish21 or switch_hands (default: the seed's)."),
        decks: int = typer.Option(None, "--decks", help="Decks in the shoe (default: the seed picks 6 or 8)."),
        tilt: float = typer.Option(None, "--tilt", help="Camera tilt from straight down, degrees "
                                                        "(default: the seed picks 15-35)."),
        size: str = typer.Option("1920x1080", "--size", help="Frame size WIDTHxHEIGHT."),
        crf: int = typer.Option(26, "--crf", help="x264 quality: lower is better and bigger."),
        no_video: bool = typer.Option(False, "--no-video", help="Write the truth and table files only."),
    ) -> None:
        """Render a video of scripted rounds (faults injected by seed) with its truth.json and table file."""
        from api.errors import BadInput
        from datasets.faults import FaultKindError, parse_fault_kinds
        from datasets.rounds import RoundVideoOptions

        try:
            kinds = parse_fault_kinds(faults)
        except FaultKindError as exc:
            raise BadInput(str(exc)) from None
        width, height = parse_size(size)
        options = RoundVideoOptions(seed=parse_seed(seed), faults=kinds, fps=fps, rounds=rounds,
                                    game=game.strip().lower() if game else None, decks=decks, tilt_deg=tilt,
                                    width=width, height=height)
        if not 0 <= crf <= 51:
            raise BadInput(f"--crf: expected 0 to 51, got {crf}")

        bar = None
        progress = None
        if not no_video:
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            bar = Progress(TextColumn("rendering"), BarColumn(), TextColumn("{task.completed}/{task.total} frames"),
                           TimeRemainingColumn(), transient=True)
            task = None

            def progress(done: int, total: int) -> None:
                nonlocal task
                if task is None:
                    task = bar.add_task("render", total=total)
                bar.update(task, completed=done)

            bar.start()
        try:
            script, stats = write_round_outputs(out, options, video=not no_video, crf=crf, progress=progress)
        finally:
            if bar is not None:
                bar.stop()
        truth = script.truth()
        alerts = sum(len(r["alerts"]) for r in truth["rounds"])
        what = (f"{out / 'video.mp4'} ({truth['frames']} frames, {truth['frames'] / options.fps:.1f} s, "
                f"drawn in {stats.seconds:.0f} s)" if stats else "no video")
        typer.echo(f"{script.game}, {script.decks} decks, tilt {script.tilt_deg:.1f} deg: "
                   f"{len(truth['rounds'])} rounds, {alerts} alerts; wrote {what}, truth.json, table.yaml")
