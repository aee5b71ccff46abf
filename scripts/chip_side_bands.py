"""Chip-side readings by px per chip and slot threshold, on fresh renders (model card, nineteenth session).

    python scripts/chip_side_bands.py FRAMES SEED SPOT_SD_MM [--out OUT.json] [--model MODEL.onnx ...]
    python scripts/chip_side_bands.py 300 8125 0      # the model card's "spot's centre" rows
    python scripts/chip_side_bands.py 300 8126 3      # its "3 mm off" rows
    python scripts/chip_side_bands.py 300 8125 0 --model models/chip_side.onnx --model .cache/s21/cand.onnx
    python scripts/chip_side_bands.py 1000 8142 0 --bands 1.0-1.2,1.2-1.4,1.4-1.6,1.6-1.8 --thresholds 0.95,0.99,0.999
                                                    # the thirty-third session's rows under the floor

Renders FRAMES frames of chip stacks (60 % at 3840 x 2160, half the stacks stacked as players stack a wager), and
reads every stack whose side shows 1.4-2.4 px per chip as the runtime reads a wager: the base searched from a guess
``SPOT_SD_MM`` off the stack's centre (N(0, sd) each way).  Each stack is read at several least-slot thresholds;
the threshold the runtime applies to thin sides (:data:`vision.chip_side.THIN_SIDE_THRESHOLD`) is raised to each
of them too, so every row is what a reader with that one threshold would give.  Prints right / wrong per band and
threshold; OUT.json keeps every stack's readings.  Several ``--model`` files read the same renders, one table
each (the committed model when none is given).  Needs the ``train`` extra (the renderer's scenes).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.chip_side as chip_side  # noqa: E402
from models.chip_side_train import chip_scene  # noqa: E402
from vision.chips import chip_geometry  # noqa: E402

THRESHOLDS = (0.85, 0.9, 0.95, 0.98, 0.99)
BANDS = ((1.4, 1.6), (1.6, 1.8), (1.8, 2.0), (2.0, 2.4))


def read_bands(frames: int, seed: int, spot_sd_mm: float, models: list[Path] | None = None,
               bands=BANDS, thresholds=THRESHOLDS) -> list[dict]:
    """One row per stack in the bands: its px per chip, true value, and the value each model read at each threshold
    (keys ``"0.95"`` for the first model, ``"MODEL@0.95"`` for the others). Only stacks within the bands are read
    (and draw their base guess), so other bands give other renders after the first stack outside the old ones."""
    models = models or [chip_side.DEFAULT_CHIP_SIDE]
    readers = [chip_side.ChipSideReader(m) for m in models]
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(frames):
        size = (3840, 2160) if rng.random() < 0.6 else (1920, 1080)
        res, camera, truth = chip_scene(rng, *size, player_share=0.5)
        for base, layers in truth:
            ppc = chip_geometry(camera, base)[0]
            if not bands[0][0] <= ppc < bands[-1][1]:
                continue
            guess = np.asarray(base) + rng.normal(0, spot_sd_mm, 2)
            row = {"ppc": ppc, "value": sum(d * n for d, n in layers)}
            for k, (model, reader) in enumerate(zip(models, readers)):
                for t in thresholds:
                    reader.threshold = t
                    chip_side.THIN_SIDE_THRESHOLD = t  # one threshold for every band: the table compares them
                    row[_key(k, model, t)] = reader.read(res.image, camera, guess).value
            rows.append(row)
    return rows


def _key(k: int, model: Path, t: float) -> str:
    return str(t) if k == 0 else f"{model}@{t}"


def summary(rows: list[dict], models: list[Path] | None = None, bands=BANDS, thresholds=THRESHOLDS) -> list[str]:
    models = models or [chip_side.DEFAULT_CHIP_SIDE]
    lines = []
    for k, model in enumerate(models):
        lines.append(str(model))
        for lo, hi in bands:
            sel = [r for r in rows if lo <= r["ppc"] < hi]
            cells = []
            for t in thresholds:
                key = _key(k, model, t)
                cells.append(f"{t}: {sum(r[key] == r['value'] for r in sel)} right "
                             f"{sum(r[key] is not None and r[key] != r['value'] for r in sel)} wrong")
            lines.append(f"{lo}-{hi} px per chip, {len(sel)} stacks | " + " | ".join(cells))
    return lines


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("frames", type=int)
    ap.add_argument("seed", type=int)
    ap.add_argument("spot_sd_mm", type=float)
    ap.add_argument("--out", type=Path, help="JSON file for every stack's readings")
    ap.add_argument("--model", type=Path, action="append", help="a chip-side model to read with (repeatable)")
    ap.add_argument("--bands", help="px-per-chip bands, e.g. 1.0-1.2,1.2-1.4 (ascending, adjoining)")
    ap.add_argument("--thresholds", help="least-slot thresholds, e.g. 0.95,0.99")
    args = ap.parse_args()
    bands = tuple(tuple(float(v) for v in b.split("-")) for b in args.bands.split(",")) if args.bands else BANDS
    thresholds = tuple(float(t) for t in args.thresholds.split(",")) if args.thresholds else THRESHOLDS
    rows = read_bands(args.frames, args.seed, args.spot_sd_mm, args.model, bands, thresholds)
    if args.out:
        args.out.write_text(json.dumps(rows))
    print("\n".join(summary(rows, args.model, bands, thresholds)))
