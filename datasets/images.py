"""Labelled training images (``pitwatch synth images``): an ultralytics-ready data set with scene truth.

Layout of ``DIR`` (contracts): ``images/NNNNNN.jpg``, ``labels/NNNNNN.txt`` (YOLO:
``class cx cy w h`` normalised), ``scenes/NNNNNN.json`` (each image's truth) and
``data.yaml`` naming the classes.

Classes (:data:`CLASS_NAMES`): the 52 cards in :data:`rules.cards.CARD_LABELS`
order (class = the card, e.g. ``10H``), then ``BACK``, then ``chip``.  A face-up
card gives one box per *visible* corner index (an index more than half covered
or out of frame gives none); a face-down card gives one ``BACK`` box round its
visible part; a chip stack gives one ``chip`` box round its whole silhouette.
"""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import yaml

from datasets.render import RenderResult, Renderer
from datasets.scenes import Scene, random_scene
from rules.cards import BACK, CARD_LABELS

CHIP_CLASS = "chip"
CLASS_NAMES: tuple[str, ...] = (*CARD_LABELS, BACK, CHIP_CLASS)
"""YOLO class names by class index: 52 cards, ``BACK`` (52), ``chip`` (53)."""

MIN_BOX_PX = 4.0
"""Boxes narrower or shorter than this (pixels) are not labelled: nothing is readable there."""
BACK_MIN_VISIBLE = 0.4
"""A face-down card is labelled ``BACK`` when at least this fraction of it shows."""
CHIP_MIN_VISIBLE = 0.5
"""A chip stack is labelled when at least this fraction of its silhouette shows."""


def yolo_boxes(result: RenderResult) -> list[tuple[int, tuple[float, float, float, float]]]:
    """The labelled boxes of one render: (class index, (x1, y1, x2, y2) px)."""
    out = []
    for c in result.cards:
        if c.face_up:
            cls = CLASS_NAMES.index(c.label)
            for b in c.index_boxes:
                out.append((cls, b))
        elif c.box is not None and c.visible >= BACK_MIN_VISIBLE:
            out.append((CLASS_NAMES.index(BACK), c.box))
    chip = CLASS_NAMES.index(CHIP_CLASS)
    for s in result.chips:
        if s.box is not None and s.visible >= CHIP_MIN_VISIBLE:
            out.append((chip, s.box))
    return [(k, b) for k, b in out if b[2] - b[0] >= MIN_BOX_PX and b[3] - b[1] >= MIN_BOX_PX]


def yolo_text(result: RenderResult) -> str:
    """The YOLO label file of one render: ``class cx cy w h`` per line, normalised to the image size."""
    h, w = result.image.shape[:2]
    lines = []
    for k, (x1, y1, x2, y2) in yolo_boxes(result):
        lines.append(f"{k} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
    return "\n".join(lines) + ("\n" if lines else "")


def scene_json(scene: Scene, result: RenderResult) -> dict:
    """The truth of one image: the contracts' ``cards``/``chips``/``camera`` plus how it was made."""
    data = result.to_json()
    data["scene"] = {"seed": scene.seed[0], "index": scene.seed[1], "layout": scene.layout.id, "deck": scene.style.deck,
                     "back": scene.style.back, "surface": scene.style.surface, "chip_design": scene.style.chip_design}
    return data


def render_scene(scene: Scene) -> RenderResult:
    """Render one training scene (its effects' randomness comes from the scene's seed)."""
    rng = np.random.default_rng([scene.seed[0], scene.seed[1], 1])
    return Renderer(scene.layout, scene.camera, scene.style).render(scene.state, rng)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def write_one(out: Path, seed: int, index: int, decks: list[str] | None = None, jpeg_quality: int = 92) -> dict:
    """Render image ``index`` of the data set ``seed`` into ``out`` (image, label, scene files).

    Returns:
        {"index", "seconds", "labels"} for the progress report and the benchmark.
    """
    t0 = time.perf_counter()
    for sub in ("images", "labels", "scenes"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    scene = random_scene(seed, index, decks)
    result = render_scene(scene)
    name = f"{index:06d}"
    ok, jpg = cv2.imencode(".jpg", result.image, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
    if not ok:  # pragma: no cover - OpenCV always encodes a uint8 BGR image
        raise RuntimeError(f"cannot encode image {name}")
    text = yolo_text(result)
    _write_atomic(out / "images" / f"{name}.jpg", jpg.tobytes())
    _write_atomic(out / "labels" / f"{name}.txt", text.encode())
    _write_atomic(out / "scenes" / f"{name}.json", json.dumps(scene_json(scene, result), indent=1).encode())
    return {"index": index, "seconds": time.perf_counter() - t0, "labels": text.count("\n")}


def _write_range(args: tuple[str, int, list[int], list[str] | None, int]) -> list[dict]:
    out, seed, indices, decks, quality = args
    cv2.setNumThreads(1)  # one process per core: OpenCV's own threads would only fight them
    return [write_one(Path(out), seed, i, decks, quality) for i in indices]


def data_yaml(out: Path) -> str:
    """The ``data.yaml`` text for a data set in ``out`` (absolute path, as offline ultralytics wants)."""
    data = {"path": str(out.resolve()), "train": "images", "val": "images", "nc": len(CLASS_NAMES),
            "names": {i: n for i, n in enumerate(CLASS_NAMES)}}
    return ("# pitwatch synthetic data set: 52 cards (corner indices), BACK (face-down cards), chip (stacks)\n"
            "# train with fliplr=0 and flipud=0: a mirrored 7 or J is not a card\n") + \
        yaml.safe_dump(data, sort_keys=False)


@dataclass
class DatasetReport:
    """What :func:`write_dataset` made: ``count`` images, ``labels`` boxes, per-image ``seconds`` and the wall time."""

    count: int
    labels: int
    seconds: list[float]
    wall_s: float


def write_dataset(out: str | Path, count: int, seed: int, workers: int | None = None, decks: list[str] | None = None,
                  jpeg_quality: int = 92, progress=None) -> DatasetReport:
    """Render ``count`` labelled images with ``seed`` into ``out`` (see the module docstring).

    Args:
        out: the data set folder (created; existing files of the same names are replaced).
        count: number of images (>= 1).
        seed: the data set seed; the same seed and count give the same files.
        workers: processes (default: the machine's cores, at most 2 here).
        decks: deck designs to use (default: all available), e.g. to hold one design out.
        jpeg_quality: quality of the written JPEGs.
        progress: called with the number of images done after each batch.

    Raises:
        ValueError: for a count below 1, a negative seed or an unknown deck design.
    """
    from datasets.cards import list_deck_designs

    if not isinstance(count, int) or count < 1:
        raise ValueError(f"--count must be a whole number of images >= 1, got {count!r}")
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"--seed must be a non-negative whole number, got {seed!r}")
    if decks:
        known = list_deck_designs()
        bad = [d for d in decks if d not in known]
        if bad:
            raise ValueError(f"unknown deck design(s) {', '.join(bad)}; known: {', '.join(known)}")
    out = Path(out)
    for sub in ("images", "labels", "scenes"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    workers = max(1, workers or min(2, os.cpu_count() or 1))
    t0 = time.perf_counter()
    results: list[dict] = []
    if workers == 1:
        for i in range(count):
            results.append(write_one(out, seed, i, decks, jpeg_quality))
            if progress:
                progress(len(results))
    else:
        batch = 8
        jobs = [(str(out), seed, list(range(i, min(count, i + batch))), decks, jpeg_quality) for i in range(0, count, batch)]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for part in pool.map(_write_range, jobs):
                results += part
                if progress:
                    progress(len(results))
    _write_atomic(out / "data.yaml", data_yaml(out).encode())
    return DatasetReport(len(results), sum(r["labels"] for r in results), [r["seconds"] for r in results],
                         time.perf_counter() - t0)
