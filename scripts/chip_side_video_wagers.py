"""Chip-side models on the wagers of kept round videos, read where the review reads them (fortieth session).

    python scripts/chip_side_video_wagers.py KEEP SEEDS [--size 3840x2160] [--out OUT.json] --model A.onnx [--model B.onnx]
    python scripts/chip_side_video_wagers.py .cache/s46/all 7170-7349 --model models/chip_side.onnx

KEEP holds ``seedN/video.mp4`` from ``pitwatch eval review --keep``. For each round of each video, the wagers standing
on the betting spots (main, match-the-dealer, bonus) 0.3 s and 0.6 s before the first card reaches a seat are read
from the decoded video frame, at each stack's centre as the round script placed it, by every model in one batch:
the H.264 frames the review reads, not the renders they were encoded from. Stacks under the dealer's hand (within
45 mm of it) and those whose side shows under :data:`vision.chips.MIN_PX_PER_CHIP` px per chip (never read, by
rule) are left out. Prints exact / wrong / abstained per model and px-per-chip band, and each stack a model does
not read exactly; OUT.json keeps every reading. Needs the ``train`` extra (the round scripts).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from datasets.round_cli import parse_size  # noqa: E402
from datasets.rounds import RoundVideoOptions, script_video, stack_value  # noqa: E402
from vision.chip_side import ChipSideReader  # noqa: E402
from vision.chips import MIN_PX_PER_CHIP, chip_geometry  # noqa: E402

WAGERS = ("main", "mtd", "bonus")
BEFORE_FIRST_CARD_S = (0.3, 0.6)
HAND_CLEAR_MM = 45.0
BANDS = ((1.6, 2.0), (2.0, 2.5), (2.5, 3.0), (3.0, 99.0))


def _under_hand(centre, hands) -> bool:
    """``centre`` (mm) lies under a hand occluder's polygon or within :data:`HAND_CLEAR_MM` of one of its corners."""
    point = (float(centre[0]), float(centre[1]))
    return any(cv2.pointPolygonTest(np.asarray(h.polygon, np.float32), point, False) >= 0
               or min(math.dist(centre, q) for q in h.polygon) < HAND_CLEAR_MM for h in hands)


def _first_card_s(script, rnd: dict) -> float:
    t = rnd["start_s"]
    while t < rnd["end_s"]:
        if any(c.zone and c.zone.startswith("seat") for c in script.timeline.state_at(t).cards):
            return t
        t += 0.1
    return t


def read_wagers(keep: Path, seeds: range, size: tuple[int, int], models: list[Path], log=print) -> list[dict]:
    """Every readable wager of the kept videos (module docstring), one row each, with each model's value."""
    readers = [ChipSideReader(m) for m in models]
    rows = []
    for seed in seeds:
        video = keep / f"seed{seed}" / "video.mp4"
        if not video.exists():
            continue
        script = script_video(RoundVideoOptions(seed=seed, fps=10, width=size[0], height=size[1]))
        cap = cv2.VideoCapture(str(video))
        for rnd in script.round_truth:
            first = _first_card_s(script, rnd)
            for before in BEFORE_FIRST_CARD_S:
                t = round(first - before, 1)
                state = script.timeline.state_at(t)
                stacks = [c for c in state.chips if c.zone and c.zone.split(".")[-1] in WAGERS
                          and not _under_hand(c.center, state.hands)]
                ppcs = [chip_geometry(script.camera, c.center)[0] for c in stacks]
                stacks = [(c, p) for c, p in zip(stacks, ppcs) if p >= MIN_PX_PER_CHIP]
                if not stacks:
                    continue
                cap.set(cv2.CAP_PROP_POS_FRAMES, int(round(t * script.fps)))
                ok, image = cap.read()
                if not ok:
                    continue
                reads = [r.read_stacks(image, script.camera, [c.center for c, _ in stacks]) for r in readers]
                for j, (c, ppc) in enumerate(stacks):
                    rows.append({"seed": seed, "round": rnd["index"], "before_s": before, "zone": c.zone,
                                 "px_per_chip": round(ppc, 2), "value": stack_value(c.layers),
                                 "layers": [[la.denomination, la.count] for la in c.layers],
                                 "read": [rd[j].value for rd in reads], "notes": [rd[j].note for rd in reads]})
        cap.release()
        log(f"seed {seed}: {len(rows)} wagers read")
    return rows


def tally(rows: list[dict], k: int) -> dict:
    """{band: {"stacks", "exact", "wrong", "abstained"}} of model ``k``, and "all"."""
    out = {}
    for lo, hi in BANDS + ((MIN_PX_PER_CHIP, 99.0),):
        sel = [r for r in rows if lo <= r["px_per_chip"] < hi]
        exact = sum(r["read"][k] == r["value"] for r in sel)
        abstained = sum(r["read"][k] is None for r in sel)
        name = "all" if (lo, hi) == (MIN_PX_PER_CHIP, 99.0) else f"{lo:g}-{hi:g}"
        out[name] = {"stacks": len(sel), "exact": exact, "wrong": len(sel) - exact - abstained, "abstained": abstained}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("keep", type=Path)
    ap.add_argument("seeds")
    ap.add_argument("--size", default="3840x2160")
    ap.add_argument("--model", type=Path, action="append", required=True)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    lo, _, hi = a.seeds.partition("-")
    rows = read_wagers(a.keep, range(int(lo), int(hi or lo) + 1), parse_size(a.size), a.model,
                       log=lambda m: print(m, file=sys.stderr, flush=True))
    if a.out:
        a.out.write_text(json.dumps(rows))
    for k, m in enumerate(a.model):
        print(m)
        for band, t in tally(rows, k).items():
            print(f"  {band:8s} {t}")
    for r in rows:
        if any(v != r["value"] for v in r["read"]):
            print(r["seed"], r["round"], r["before_s"], r["zone"], r["px_per_chip"], r["value"], r["layers"],
                  "read", r["read"])


if __name__ == "__main__":
    main()
