"""``pitwatch review`` and ``pitwatch eval review``."""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

import typer

from api.errors import BadInput
from vision.chip_side import DEFAULT_CHIP_SIDE, chip_side_model

TRACKER_RISE_S = 0.15
TRACKER_FALL_S = 0.6
ENGINE_LATENCY_S = 0.7
DRIFT_EVERY = 2
"""The camera drift watch looks at every 2nd analysed frame (5 checks a second at the default 10 fps)."""
SETTLE_FRAMES = 2
"""A recorded video's review reads a zone crop that changed once it holds still, or after 2 analysed frames of
motion (0: at once). Measured in the eighth session (20 rendered 1080p round videos, 45 rounds, same commit): up card
97.8 -> 95.6 %, first two cards 93.4 -> 91.7 %, rounds fully right 11 -> 11, alerts found 12 -> 12 of 22, two
alerts decided later than 1 s; review of a 30 fps 1080p video, ``--no-video``, 1.06-1.17x -> 2.03-2.15x real time.
It costs more at 4K (30 videos, 71 rounds: rounds fully right 39 -> 35, up card 95.8 -> 90.1 %, alerts found 30 -> 29
of 33), where ``--settle-frames 0`` is the choice when every round matters more than the time.
(The third session measured a far larger loss with the tracker and engine of then.)"""
LIVE_SETTLE_FRAMES = 0
"""Live video reads a changed zone at once: its alerts must come within a second of the deciding frame."""


def build_engine(table, fps: float, keep_rounds: int | None = None, by_position: bool = False):
    """A zone tracker and a round engine set up for ``table`` (a :class:`calibration.table.Table`).

    ``keep_rounds``: live workers keep only the last rounds in memory (see :class:`vision.rounds.RoundEngine`).
    ``by_position``: track each card by its place (:class:`vision.tracking.ZoneTracker`); for observers that
    say so (``tracks_by_position``: the detector, whose readings of one card differ from frame to frame).
    """
    from calibration.zones import zones_in_view
    from vision.chips import uncountable_spots
    from vision.detector import calibrated_camera
    from vision.rounds import RoundEngine
    from vision.tracking import ZoneTracker

    tracker = ZoneTracker([z.name for z in table.layout.zones], rise_s=TRACKER_RISE_S, fall_s=TRACKER_FALL_S,
                          by_position=by_position)
    cal = table.calibration
    engine = RoundEngine(table.profile, table.id, fps=fps, latency_s=ENGINE_LATENCY_S, keep_rounds=keep_rounds,
                         discard_in_view=cal is not None and zones_in_view(table.layout, cal.homography,
                                                                           cal.image_size, "discard"),
                         uncountable_spots=uncountable_spots(table.layout, calibrated_camera(cal)) if cal else None)
    return tracker, engine


def detector_observer(table, threads: int | None = None, chip_side: Path | None = DEFAULT_CHIP_SIDE,
                      settle_frames: int = SETTLE_FRAMES, reader: Path | None = None):
    """The ONNX detector as an observer for ``table`` (a :class:`calibration.table.Table`); ``chip_side``: the
    chip-side model that counts stacks from their side (:mod:`vision.chip_side`; None: box heights only);
    ``settle_frames``: a zone crop that changed is read once it holds still, or after this many analysed
    frames of motion (0: at once; :meth:`vision.detector.Stage1Detector.detect_crops`); ``reader``: the
    card reader's ONNX file (None: the committed :data:`vision.card_reader.DEFAULT_READER`)."""
    from calibration.zones import ZoneMap
    from vision.detector import FrameReader, load_table_view
    from vision.review import DetectorObserver

    view = load_table_view(table.path)
    # live: a zone crop whose pixels did not change since its last reading is not read again
    return DetectorObserver(FrameReader(reader=reader, threads=threads, live=True, chip_side=chip_side,
                                        settle_frames=settle_frames),
                            view,
                            ZoneMap(table.layout, table.require_calibration()))


def oracle_observer(table):
    """The render's own zone readings as an observer (no pixels read), for a table file written by
    ``pitwatch synth round``: the script is rebuilt from the ``synth.json`` beside the table file."""
    from datasets.oracle import OracleObserver
    from datasets.rounds import RoundVideoOptions, script_video

    synth = Path(table.path).parent / "synth.json"
    try:
        o = json.loads(synth.read_text(encoding="utf-8"))
        faults = o.get("faults")  # null: every fault kind, chosen by seed (synth round's default)
        options = RoundVideoOptions(seed=o["seed"], game=o.get("game"), rounds=o["rounds"],
                                    faults=None if faults is None else tuple(faults), fps=o["fps"],
                                    decks=o.get("decks"), tilt_deg=o.get("tilt_deg"))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BadInput(f"{table.path}: observer 'oracle' needs the render's synth.json beside the table file: "
                       f"{synth}: {exc}") from exc
    return OracleObserver(script_video(options))


def observer_for(table, kind: str | None = None, threads: int | None = None,
                 chip_side: Path | None = DEFAULT_CHIP_SIDE,
                 settle_frames: int = SETTLE_FRAMES, reader: Path | None = None):
    """The observer ``kind`` (``detector`` or ``oracle``; default: the table file's ``observer`` field, else
    ``detector``) for ``table`` (a :class:`calibration.table.Table`); ``reader``: the detector's card reader
    (None: the committed one)."""
    kind = kind or str(table.extra.get("observer") or "detector")
    if kind == "oracle":
        return oracle_observer(table)
    if kind != "detector":
        raise BadInput(f"{table.path}: field 'observer' must be detector or oracle, got {kind!r}")
    return detector_observer(table, threads, chip_side, settle_frames, reader)


class ReviewCancelled(Exception):
    """Raised from a review's ``progress`` callback to stop it; nothing is written."""


def review_pipeline(video: Path, table: Path, out: Path, *, no_video: bool = False, analyse_fps: float = 10.0,
                    threads: int | None = None, observer: str | None = None, progress=None,
                    chip_side: Path | None = DEFAULT_CHIP_SIDE, settle_frames: int = SETTLE_FRAMES,
                    observations: Path | None = None, reader: Path | None = None):
    """The whole review of ``video`` into ``out`` (``pitwatch review`` without the terminal output).

    Args:
        video, table, out: the video file, the table file, the output folder.
        observer: ``detector`` or ``oracle`` (default: the table file's ``observer``, else ``detector``).
        chip_side: the chip-side model for the detector (:mod:`vision.chip_side`; None: box heights only).
        reader: the detector's card reader, an ONNX file (None: the committed ``card_reader_int8.onnx``).
        observations: also write every analysed frame's zone readings here (JSON lines,
            :mod:`vision.observation_log`), to audit them again later without the detector.
        progress: called with (frames read, expected frames or None, video seconds) now and then; raising
            (e.g. :class:`ReviewCancelled`) stops the review and aborts the annotated video.

    Returns:
        (the report dict, the :class:`vision.review.EngineRun`).

    Raises:
        BadInput: a table file or video that cannot be used.
    """
    from calibration.drift import DriftWatch, EveryNthCheck
    from calibration.table import TableFileError, load_table
    from calibration.zones import ZoneMap
    from vision.report import ReviewSink, build_report, write_report
    from vision.review import run_engine
    from vision.sources import SourceError, VideoFileSource

    video, out = Path(video), Path(out)
    try:
        tbl = load_table(table)
        calib = tbl.require_calibration()
    except TableFileError as exc:
        raise BadInput(str(exc)) from exc
    try:
        source = VideoFileSource(video)
    except SourceError as exc:
        raise BadInput(str(exc)) from exc
    w, h = calib.image_size
    if (source.width, source.height) != (w, h):
        raise BadInput(f"{video}: frames are {source.width}x{source.height} but the table's calibration is for "
                       f"{w}x{h}: wrong table file or camera")
    out.mkdir(parents=True, exist_ok=True)
    obs = observer_for(tbl, observer, threads, chip_side, settle_frames, reader)
    if observations is not None:
        from vision.observation_log import RecordingObserver

        obs = RecordingObserver(obs, observations, {
            "video": video.name, "fps": source.fps, "table": tbl.id, "observer": type(obs).__name__,
            "chip_side": None if chip_side is None else Path(chip_side).name, "settle_frames": settle_frames,
            **({"reader": str(reader)} if reader is not None else {})})
    tracker, engine = build_engine(tbl, source.fps, by_position=getattr(obs, "tracks_by_position", False))
    zmap = ZoneMap(tbl.layout, calib)
    sink = ReviewSink(out, source.fps, zone_polys=zmap.polygons_px(), annotated=not no_video)
    total = source.expected_frames
    try:
        run = run_engine(source, obs, engine, tracker, analyse_fps=analyse_fps, on_frame=sink,
                         progress=(lambda n, t_s: progress(n, total, t_s)) if progress else None,
                         drift=EveryNthCheck(DriftWatch(calib, tbl.layout), DRIFT_EVERY))
    except BaseException:
        sink.abort()
        if observations is not None:
            obs.abort()
        raise
    sink.close()
    if observations is not None:
        obs.close(run.frames_read, run.last_index, run.last_t_s,
                  None if run.stopped is None else run.stopped.to_json())
    report = build_report(video.name, source.fps, run.frames_read, tbl.id, engine, run.stopped)
    write_report(out, report, annotated=not no_video)
    return report, run


def review(
    video: Path = typer.Argument(..., help="recorded video file"),
    table: Path = typer.Option(..., "--table", help="table file (YAML)"),
    out: Path = typer.Option(..., "--out", help="output folder"),
    no_video: bool = typer.Option(False, "--no-video", help="skip annotated.mp4"),
    analyse_fps: float = typer.Option(10.0, "--analyse-fps", help="frames analysed per second of video"),
    threads: Optional[int] = typer.Option(None, help="ONNX Runtime threads"),
    chip_side: Optional[Path] = typer.Option(None, "--chip-side", exists=True, dir_okay=False,
                                             help="chip-side model that counts stacks from their side "
                                                  "(default: the committed models/chip_side.onnx)"),
    no_chip_side: bool = typer.Option(False, "--no-chip-side",
                                      help="value stacks from their box height only (most then abstain)"),
    settle_frames: int = typer.Option(SETTLE_FRAMES, "--settle-frames", min=0,
                                      help="a zone that changed is read once it holds still, or after this many "
                                           "analysed frames of motion (0: read at once)"),
    reader: Optional[Path] = typer.Option(None, "--reader", exists=True, dir_okay=False,
                                          help="card reader ONNX file (default: the committed "
                                               "models/card_reader_int8.onnx)"),
    observations: Optional[Path] = typer.Option(None, "--observations", dir_okay=False,
                                                help="also write every analysed frame's zone readings here "
                                                     "(JSON lines), to audit them again without the detector"),
) -> None:
    """Review a recorded video: report.json, report.html, evidence and annotated.mp4 in OUT."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("[bold]review[/bold] {task.description}"), BarColumn(),
                  TextColumn("{task.completed}/{task.total} frames"), TextColumn("{task.fields[fps]:.1f} fps"),
                  TimeRemainingColumn(), transient=False, disable=not sys.stderr.isatty()) as bar:
        task = bar.add_task(video.name, total=None, fps=0.0)
        t0 = time.perf_counter()

        def progress(n: int, total: int | None, t_s: float) -> None:
            bar.update(task, completed=n, total=total, fps=n / max(1e-6, time.perf_counter() - t0))

        report, run = review_pipeline(video, table, out, no_video=no_video, analyse_fps=analyse_fps,
                                      threads=threads, progress=progress,
                                      chip_side=chip_side_model(chip_side, no_chip_side),
                                      settle_frames=settle_frames, observations=observations, reader=reader)
        bar.update(task, completed=run.frames_read)
    _print_summary(report, run)


def _print_summary(report: dict, run) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    t = Table(title=f"{report['video']}: {len(report['rounds'])} rounds")
    for col in ("round", "start", "end", "up card", "seats", "alerts"):
        t.add_column(col)
    for r in report["rounds"]:
        seats = "; ".join(f"{s['seat']}: {' '.join(s['cards'])}" for s in r["seats"])
        alerts = ", ".join(f"{a['type']}@{a['seat']}" for a in r["alerts"]) or "-"
        t.add_row(str(r["index"]), f"{r['start_s']:.1f}", f"{r['end_s']}", str(r["dealer"]["up"]), seats, alerts)
    console.print(t)
    speed = run.frames_read / max(1e-6, run.seconds)
    console.print(f"{run.frames_read} frames read, {run.frames_analysed} analysed, {speed:.1f} frames/s "
                  f"({speed / max(1e-6, report['fps']):.2f}x real time)")
    if report.get("stopped"):
        console.print(f"[yellow]stopped early: {report['stopped']}[/yellow]")


def _parse_seeds(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if "-" in part:
            a, b = part.split("-", 1)
            seeds += list(range(int(a), int(b) + 1))
        elif part:
            seeds.append(int(part))
    if not seeds:
        raise BadInput("--seeds: give seeds like 100-159 or 1,2,3")
    return seeds


def eval_review(
    seeds: str = typer.Option("1000-1019", help="seeds of the rendered videos, e.g. 1000-1059"),
    fps: float = typer.Option(10.0, help="frame rate of the rendered videos"),
    observer: str = typer.Option("detector", help="detector (ONNX models on rendered pixels) or oracle "
                                                  "(the script's truth: scores the round engine alone)"),
    as_json: bool = typer.Option(False, "--json"),
    keep: Optional[Path] = typer.Option(None, help="keep the rendered videos and reports here (videos already "
                                                   "there from the same seeds and options are reviewed again)"),
    chip_side: Optional[Path] = typer.Option(None, "--chip-side", exists=True, dir_okay=False,
                                             help="chip-side model that counts stacks from their side "
                                                  "(default: the committed models/chip_side.onnx)"),
    no_chip_side: bool = typer.Option(False, "--no-chip-side",
                                      help="value stacks from their box height only (most then abstain)"),
    settle_frames: int = typer.Option(SETTLE_FRAMES, "--settle-frames", min=0,
                                      help="detector: as review's --settle-frames"),
    size: str = typer.Option("1920x1080", "--size", help="frame size of the rendered videos, WIDTHxHEIGHT "
                                                       "(a 4K camera shows chip stacks' sides twice as tall)"),
    replay: bool = typer.Option(False, "--replay",
                                help="with --keep: audit again the zone readings an earlier run kept "
                                     "(review/observations.jsonl) instead of reading the videos again; measures "
                                     "a change to the tracker or round engine on the same detector output"),
    reader: Optional[Path] = typer.Option(None, "--reader", exists=True, dir_okay=False,
                                          help="card reader ONNX file (default: the committed "
                                               "models/card_reader_int8.onnx)"),
) -> None:
    """Render rounds with faults from SEEDS, review them, and score against truth.json."""
    from datasets.round_cli import parse_size
    from datasets.rounds import RoundVideoOptions, script_video
    from vision.scoring import score_video, summarise

    try:
        seed_list = _parse_seeds(seeds)
    except ValueError as exc:
        raise BadInput(f"--seeds: {exc}") from exc
    if observer not in ("detector", "oracle"):
        raise BadInput("--observer: detector or oracle")
    width, height = parse_size(size)
    if replay and keep is None:
        raise BadInput("--replay needs --keep DIR (the folder of an earlier run with the same seeds)")
    if replay and (reader is not None or chip_side is not None or no_chip_side):
        raise BadInput("--replay audits readings already kept: --reader and --chip-side need the videos read again")
    scores, timings, latencies = [], [], []
    for seed in seed_list:
        script = script_video(RoundVideoOptions(seed=seed, fps=fps, width=width, height=height))
        truth = json.loads(json.dumps(script.truth()))
        t0 = time.perf_counter()
        if observer == "oracle":
            report, lat = _oracle_review(script)
        elif replay:
            report, lat = _replayed_review(script, Path(keep) / f"seed{seed}" / "review" / "observations.jsonl")
        else:
            report, lat = _rendered_review(script, seed, keep, chip_side_model(chip_side, no_chip_side),
                                           settle_frames, reader)
        timings.append(time.perf_counter() - t0)
        latencies += lat
        scores.append(score_video(truth, report, str(seed)))
    summary = summarise(scores)
    summary["observer"] = observer
    summary["seconds_per_video_median"] = round(statistics.median(timings), 2)
    if latencies:
        # from the engine's own evidence frame; alert_delay_s (from the truth's decidable frame) is the target
        summary["alert_latency_s"] = {"median": round(statistics.median(latencies), 3), "max": round(max(latencies), 3)}
    if as_json:
        print(json.dumps(summary))
    else:
        print(json.dumps(summary, indent=1))


def _oracle_review(script) -> tuple[dict, list[float]]:
    """Review a script from its truth readings (no pixels): scores the tracker and round engine alone."""
    from datasets.oracle import zone_readings
    from vision.report import build_report
    from vision.tracking import ZoneTracker

    fps = script.fps
    tracker = ZoneTracker([z.name for z in script.layout.zones], rise_s=TRACKER_RISE_S, fall_s=TRACKER_FALL_S)
    engine = _script_engine(script, fps)
    step = max(1, int(round(fps / 10)))
    for f in range(0, script.frames, step):
        t = f / fps
        cards, chips, points = zone_readings(script.timeline.state_at(t), with_points=True)
        engine.step(f, t, tracker.update(f, t, cards, chips, points))
    engine.finish(script.frames - 1, (script.frames - 1) / fps)
    report = build_report("video.mp4", fps, script.frames, script.table_id, engine, None)
    lat = [a.raised_t_s - a.t_s for r in engine.rounds for a in r.alerts]
    return json.loads(json.dumps(report)), lat


def _script_engine(script, fps: float):
    """A round engine set up for a rendered round video's table as :func:`build_engine` sets one up from its
    table file (the script's own camera standing in for the calibration)."""
    from vision.chips import uncountable_spots
    from vision.rounds import RoundEngine

    return RoundEngine(script.profile, script.table_id, fps=fps, latency_s=ENGINE_LATENCY_S,
                       discard_in_view=_script_sees_discard(script),
                       uncountable_spots=uncountable_spots(script.layout, script.camera))


def _script_sees_discard(script) -> bool:
    """Whether a rendered round video's camera shows its discard rack (:func:`calibration.zones.zones_in_view`)."""
    from calibration.zones import zones_in_view

    return zones_in_view(script.layout, script.camera.homography(), (script.options.width, script.options.height),
                         "discard")


def _replayed_review(script, path: Path) -> tuple[dict, list[float]]:
    """Audit again the zone readings a kept review wrote (no pixels read)."""
    from vision.observation_log import ObservationLogError, read_observations, replay
    from vision.report import build_report
    from vision.tracking import ZoneTracker

    try:
        log = read_observations(path)
    except ObservationLogError as exc:
        raise BadInput(f"--replay: {exc} (run once without --replay to keep the readings)") from exc
    tracker = ZoneTracker([z.name for z in script.layout.zones], rise_s=TRACKER_RISE_S, fall_s=TRACKER_FALL_S,
                          by_position=bool(log.header.get("tracks_by_position")))
    engine = _script_engine(script, script.fps)
    for _ in replay(log, tracker, engine):
        pass
    frames = log.end["frames_read"] if log.end else script.frames
    report = build_report("video.mp4", script.fps, frames, script.table_id, engine, None)
    lat = [a.raised_t_s - a.t_s for r in engine.rounds for a in r.alerts]
    return json.loads(json.dumps(report)), lat


def _rendered_review(script, seed: int, keep: Path | None,
                     chip_side: Path | None = DEFAULT_CHIP_SIDE,
                     settle_frames: int = SETTLE_FRAMES, reader: Path | None = None) -> tuple[dict, list[float]]:
    """Render the script to a video, review it with the detector (``chip_side``: None for box heights only;
    ``reader``: None for the committed card reader), return the report."""
    from datasets.round_cli import write_round_outputs

    folder = Path(keep) / f"seed{seed}" if keep else Path(tempfile.mkdtemp(prefix="pitwatch-eval-"))
    try:
        if not (keep is not None and (folder / "video.mp4").is_file() and (folder / "table.yaml").is_file()):
            write_round_outputs(folder, script.options)  # a video kept by an earlier run is reviewed again as is
        out = folder / "review"
        from typer.testing import CliRunner

        from api.cli import app

        res = CliRunner().invoke(app, ["review", str(folder / "video.mp4"), "--table", str(folder / "table.yaml"),
                                       "--out", str(out), "--no-video", "--settle-frames", str(settle_frames)]
                                 + (["--observations", str(out / "observations.jsonl")] if keep is not None else [])
                                 + (["--chip-side", str(chip_side)] if chip_side else ["--no-chip-side"])
                                 + (["--reader", str(reader)] if reader else []))
        if res.exit_code != 0:
            raise RuntimeError(f"review of seed {seed} failed: {res.output[-500:]}") from res.exception
        report = json.loads((out / "report.json").read_text())
        lat = [a.get("raised_t_s", a["t_s"]) - a["t_s"] for r in report["rounds"] for a in r["alerts"]]
        return report, lat
    finally:
        if keep is None:
            shutil.rmtree(folder, ignore_errors=True)


def register(app: typer.Typer) -> None:
    """Add ``review`` and ``eval review`` to the ``pitwatch`` app."""
    app.command("review")(review)
    eval_app = _eval_group(app)
    eval_app.command("review")(eval_review)


def _eval_group(app: typer.Typer) -> typer.Typer:
    """The shared ``eval`` group (the detector's ``eval detect`` may have made it already)."""
    for group in app.registered_groups:
        if group.name == "eval":
            return group.typer_instance
    eval_app = typer.Typer(help="Measure accuracy on rendered and real data.", no_args_is_help=True)
    app.add_typer(eval_app, name="eval")
    return eval_app
