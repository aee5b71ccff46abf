"""``pitwatch detect``, ``pitwatch bench`` and ``pitwatch eval detect`` (contracts.md).

Heavy imports (onnxruntime, the models) happen inside the commands so that
``pitwatch --help`` stays fast.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import typer

from api.errors import BadInput
from api.images import read_image




def write_image_atomic(path: Path, image) -> None:
    """Write an image whole or not at all (temporary name in the same folder, then rename)."""
    import cv2

    path.parent.mkdir(parents=True, exist_ok=True)
    ok, buf = cv2.imencode(path.suffix or ".jpg", image)
    if not ok:
        raise BadInput(f"{path}: cannot encode an image with this extension")
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(buf.tobytes())
    os.replace(tmp, path)


def draw_result(image, result):
    """A copy of ``image`` with card boxes and labels (green read, red unreadable, blue BACK) and chip boxes."""
    import cv2

    out = image.copy()
    for c in result.cards:
        colour = (0, 200, 0) if c.label not in ("unreadable", "BACK") else ((0, 0, 255) if c.label == "unreadable" else (255, 128, 0))
        x1, y1, x2, y2 = [int(v) for v in c.box]
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, 2)
        cv2.putText(out, f"{c.label} {c.score:.2f}", (x1, max(12, y1 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    for row, reading in result.chips:
        x1, y1, x2, y2 = [int(v) for v in result.dets.xyxy[row]]
        cv2.rectangle(out, (x1, y1), (x2, y2), (0, 215, 255), 2)
        text = f"{reading.count if reading.count is not None else '?'} ${reading.value if reading.value is not None else '?'}"
        cv2.putText(out, text, (x1, max(12, y1 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 215, 255), 1, cv2.LINE_AA)
    return out


def register(app: typer.Typer) -> None:
    """Add ``detect``, ``bench`` and the ``eval`` group to the ``pitwatch`` app."""

    @app.command("detect")
    def detect(
        images: list[Path] = typer.Argument(..., help="Image files (JPEG, PNG, ...)."),
        table: Path | None = typer.Option(None, "--table", help="Table file: zone crops and zone names."),
        as_json: bool = typer.Option(False, "--json", help="One JSON line per image (contracts)."),
        draw: Path | None = typer.Option(None, "--draw", help="Folder for images with boxes and labels."),
        stage1: Path | None = typer.Option(None, "--stage1", help="Stage-1 ONNX model (default: committed)."),
        reader: Path | None = typer.Option(None, "--reader", help="Stage-2 ONNX model (default: committed)."),
        tile: int = typer.Option(640, "--tile", min=64, help="Tile side, image px, without a table file."),
        threads: int | None = typer.Option(None, "--threads", min=1, help="onnxruntime threads."),
    ) -> None:
        """Find and read the cards and chip stacks in images."""
        from vision.detector import DEFAULT_STAGE1, FrameReader, load_table_view

        view = load_table_view(table) if table is not None else None
        fr = FrameReader(stage1 or DEFAULT_STAGE1, reader, threads=threads, tile=tile)
        for path in images:
            image = read_image(path)
            result = fr(image, view)
            out = {"image": path.name, "width": int(image.shape[1]), "height": int(image.shape[0]), **result.to_json()}
            if as_json:
                print(json.dumps(out), flush=True)
            else:
                labels = " ".join(c["label"] for c in out["cards"]) or "-"
                print(f"{path.name}: {len(out['cards'])} cards ({labels}), {len(out['chips'])} chip stacks")
            if draw is not None:
                write_image_atomic(draw / (path.stem + ".jpg"), draw_result(image, result))

    @app.command("bench")
    def bench(
        as_json: bool = typer.Option(False, "--json", help="Last line: one JSON object (contracts)."),
        frames: int = typer.Option(30, "--frames", min=1, help="Timed frames per configuration."),
        quick: bool = typer.Option(False, "--quick", help="Headline case only (2 threads, calibrated)."),
        stage1: Path | None = typer.Option(None, "--stage1", help="Stage-1 ONNX model (default: the runtime's)."),
        reader: Path | None = typer.Option(None, "--reader", help="Stage-2 ONNX model (default: the runtime's)."),
        pt: Path | None = typer.Option(None, "--pt", help="ultralytics weights of the baseline (default: the "
                                       "stage-1 model's .pt beside it, else models/stage1.pt)."),
        px_per_mm: float = typer.Option(1.0, "--px-per-mm", min=0.3, max=3.0, help="Zone-crop resolution."),
    ) -> None:
        """Time the whole detection per calibrated 1080p frame against ultralytics' predict (and the float models)."""
        from vision.bench import run_bench
        from vision.card_reader import DEFAULT_READER
        from vision.detector import DEFAULT_STAGE1

        for path in (stage1, reader, pt):
            if path is not None and not path.is_file():
                raise BadInput(f"{path}: model file not found")
        result = run_bench(frames=frames, quick=quick, log=sys.stderr, stage1=stage1 or DEFAULT_STAGE1,
                           reader=reader or DEFAULT_READER, px_per_mm=px_per_mm, pt=pt)
        print(json.dumps(result) if as_json else json.dumps(result, indent=2))

    eval_app = next((g.typer_instance for g in app.registered_groups if g.name == "eval"), None)
    if eval_app is None:  # the shared ``eval`` group (``eval review`` lives in vision/review_cli.py)
        eval_app = typer.Typer(help="Measure accuracy on rendered and real data.", no_args_is_help=True)
        app.add_typer(eval_app, name="eval")

    @eval_app.command("detect")
    def eval_detect(
        as_json: bool = typer.Option(False, "--json", help="Print the metrics as one JSON object."),
        out: Path = typer.Option(Path("out/eval-detect"), "--out", help="Folder for the confusion and height plots."),
        data: Path | None = typer.Option(None, "--data", help="Folder of the real sets (default ../shared/data)."),
        holdout: int = typer.Option(40, "--holdout", min=0, help="Rendered hold-out frames (0 to skip)."),
        seed: int = typer.Option(9001, "--seed", help="Seed of the rendered hold-out."),
        stage1: Path | None = typer.Option(None, "--stage1", help="Stage-1 ONNX model (default: committed)."),
        reader: Path | None = typer.Option(None, "--reader", help="Stage-2 ONNX model (default: committed)."),
        px_per_mm: float = typer.Option(1.0, "--px-per-mm", min=0.3, max=3.0, help="Zone-crop resolution."),
        real: bool = typer.Option(True, "--real/--no-real", help="Also the real photo sets."),
        chip_side: Path | None = typer.Option(None, "--chip-side", exists=True, dir_okay=False,
                                              help="Chip-side model that counts stacks from their side "
                                                   "(default: the committed models/chip_side.onnx)."),
        no_chip_side: bool = typer.Option(False, "--no-chip-side",
                                          help="Value stacks from their box height only (most then abstain)."),
        per_design: int = typer.Option(0, "--per-design", min=0,
                                       help="Also render this many frames for each of five training deck designs "
                                            "(large-index and black-faced decks included), reported apart."),
    ) -> None:
        """Card precision/recall, confusions, accuracy vs index height, chip recall: renders and real photos."""
        from vision.chip_side import chip_side_model
        from vision.evaluate import run_eval

        result = run_eval(out=out, data=data, holdout=holdout, seed=seed, log=sys.stderr, stage1=stage1,
                          reader=reader, px_per_mm=px_per_mm, real=real,
                          chip_side=chip_side_model(chip_side, no_chip_side), per_design=per_design)
        print(json.dumps(result) if as_json else json.dumps(result, indent=2))
