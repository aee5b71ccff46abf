"""Chip-side readers compared on the same fresh renders: every stack's value, and each reader's time per frame.

    python scripts/chip_search_compare.py FRAMES SEED SPOT_SD_MM [--search-model MODEL.onnx ...]
    python scripts/chip_search_compare.py 300 8201 3     # model card, Speed, twenty-second session
    python scripts/chip_search_compare.py 300 8202 0
    python scripts/chip_search_compare.py 300 8201 3 --search-model models/chip_side_int8.onnx
    python scripts/chip_search_compare.py 300 8201 3 --chunk 6 --chunk 12   # twenty-fifth session

Renders FRAMES frames of chip stacks (60 % at 3840 x 2160, half the stacks stacked as players stack a wager) and
reads every stack whose side shows at least :data:`vision.chips.MIN_PX_PER_CHIP` px per chip as the runtime reads a
wager, the base searched from a guess ``SPOT_SD_MM`` off the stack's centre, with: the runtime's reader (the coarse
bases read in tall strips by the search graph, since the twenty-fifth session); the same reading a strip per coarse
base (as before); the model with its strip rows fixed at 72, so that every base is read whole (as before the
twenty-second session); a reader whose base search runs each ``--search-model``; and one per ``--chunk`` and
``--screen``.  Prints, per reader, values right and wrong, how many are those of a strip per base, and the median
ms per frame (2 threads).  Needs the ``train`` extra (the renderer's scenes, ``onnx``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.chip_side_train import chip_scene  # noqa: E402
from scripts.chip_search_speed import fixed_rows_copy  # noqa: E402
from vision.chip_side import DEFAULT_CHIP_SIDE, ChipSideReader, search_graph_path  # noqa: E402
from vision.chips import MIN_PX_PER_CHIP, chip_geometry  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("frames", type=int)
    ap.add_argument("seed", type=int)
    ap.add_argument("spot_sd_mm", type=float)
    ap.add_argument("--search-model", action="append", default=[], type=Path)
    ap.add_argument("--search-graph", type=Path, default=search_graph_path(DEFAULT_CHIP_SIDE),
                    help="a search graph (models.export.chip_side_search_graph) read at each --chunk")
    ap.add_argument("--chunk", action="append", default=[], type=int,
                    help="coarse bases per tall strip through --search-graph")
    ap.add_argument("--screen", action="append", default=[], type=float,
                    help="with --chunk: least windowed alignment of a base read again a strip each")
    args = ap.parse_args()
    fixed = fixed_rows_copy(DEFAULT_CHIP_SIDE, Path(tempfile.mkdtemp()) / "chip_side_fixed_rows.onnx")
    readers = {"runtime": ChipSideReader(threads=2), "a strip per base": ChipSideReader(threads=2, search_graph=None),
               "rows fixed": ChipSideReader(fixed, threads=2)}
    readers.update({f"search {m.name}": ChipSideReader(threads=2, search_model=m) for m in args.search_model})
    for c in args.chunk:
        for screen in args.screen:
            readers[f"windows of {c}, screen {screen}"] = r = ChipSideReader(threads=2, search_graph=args.search_graph,
                                                                             search_chunk=c)
            r.screen = screen
    rng = np.random.default_rng(args.seed)
    rows, times = [], {k: [] for k in readers}
    for _ in range(args.frames):
        size = (3840, 2160) if rng.random() < 0.6 else (1920, 1080)
        res, camera, truth = chip_scene(rng, *size, player_share=0.5)
        stacks = [(b, layers) for b, layers in truth if chip_geometry(camera, b)[0] >= MIN_PX_PER_CHIP]
        if not stacks:
            continue
        guesses = [np.asarray(b) + rng.normal(0, args.spot_sd_mm, 2) for b, _ in stacks]
        read = {}
        for name, reader in readers.items():
            t = time.perf_counter()
            read[name] = reader.read_stacks(res.image, camera, guesses)
            times[name].append(time.perf_counter() - t)
        for i, (_, layers) in enumerate(stacks):
            rows.append({"value": sum(d * n for d, n in layers), **{k: read[k][i].value for k in readers}})
    print(f"{len(rows)} stacks at >= {MIN_PX_PER_CHIP} px per chip")
    for name in readers:
        right = sum(r[name] == r["value"] for r in rows)
        wrong = sum(r[name] is not None and r[name] != r["value"] for r in rows)
        same = sum(r[name] == r["a strip per base"] for r in rows)
        print(f"{name:28s} right {right:5d}  wrong {wrong:4d}  as a strip per base {same:5d}  "
              f"{statistics.median(times[name]) * 1000:6.1f} ms per frame")


if __name__ == "__main__":
    main()
