"""Read rendered payout stacks (chips off the betting spots) with the whole detection, as a review does.

    python scripts/payout_stacks_eval.py --frames 60 --seed 9100 [--size 3840x2160] [--chip-side M.onnx] [--json]

Each frame is a round video's table (`datasets.rounds.sample_camera`, tilt 15-35 degrees, `video_style`) with
a wager on every spot of the seats in view and, on 1-3 of each seat's three payout places
(`TableGeometry.payout_place`), a payout stack built as the dealer builds one (`datasets.rounds.chip_layers`,
big chips at the bottom, sometimes a chip broken into smaller ones) for an amount a match-the-dealer or bonus wager
pays (the wager times 1-24). Only the payout stacks are scored: where no chip-spot sits under them, the detector
must find their base itself. A payout stack is matched to the chip detection whose box overlaps its projected
cylinder most (IoU >= 0.3), so the score does not depend on the base the detector guessed.

Prints, per px-per-chip band of the stack's side: exact / wrong / unvalued / missed, then one JSON line.
Needs the ``train`` extra's renderer only (no torch).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    """IoU of two (4,) xyxy boxes (:func:`vision.evaluate._iou`, the one ``eval detect`` matches chips by)."""
    from vision.evaluate import _iou as iou_matrix

    return float(iou_matrix(np.asarray(a, np.float64)[None], np.asarray(b, np.float64)[None])[0, 0])


def payout_scene(seed: int, width: int, height: int):
    """(image, TableView, [(base_mm, value, chips)]) of one frame with payout stacks beside the wagers."""
    from calibration.layout import builtin_layout
    from datasets.render import render_frame
    from datasets.rounds import TableGeometry, chip_layers, sample_camera, video_style
    from datasets.scene import ChipStack, TableState
    from vision.chips import default_chip_set
    from vision.detector import TableView

    rng = random.Random(f"payout-stacks:{seed}")
    layout = builtin_layout(rng.choice(["blackjack-7-mtd-bonus", "spanish21-6-mtd", "switch-hands-7"]))
    camera, seats, _ = sample_camera(rng, layout, width, height)
    geo = TableGeometry(layout)
    denoms = [c.denomination for c in default_chip_set()]
    chips, truth = [], []
    for seat in seats:
        for z in layout.seat_zones(seat):
            if z.circle is not None and z.name.split(".")[-1] in ("main", "mtd", "bonus") and rng.random() < 0.7:
                amount = rng.choice([5, 10, 15, 20, 25, 30, 50, 60, 100])
                chips.append(ChipStack(center=tuple(z.circle.center), layers=chip_layers(amount, denoms, rng),
                                       zone=z.name))
        wagers = ["mtd", "main", "bonus"]
        for kind in rng.sample(wagers, rng.randint(1, 3)):
            if f"seat{seat}.{kind}" not in {z.name for z in layout.zones}:
                continue
            amount = Fraction(rng.choice([1, 5, 5, 10, 15, 25, 25, 50])) * rng.choice([1, 2, 3, 4, 5, 10, 11, 12, 24])
            amount += rng.choice([0, 0, 0, 1, -1]) if amount > 1 else 0  # a wrong payout now and then
            layers = chip_layers(amount, denoms, rng, max_chips=15)
            if sum(la.count for la in layers) > 15:
                continue
            base = geo.payout_place(seat, kind)
            chips.append(ChipStack(center=base, layers=layers, zone=f"seat{seat}.payout"))
            truth.append((base, int(amount), sum(la.count for la in layers)))
    style = video_style(seed)
    res = render_frame(layout, TableState(chips=tuple(chips)), camera, style, rng=seed)
    view = TableView(id=f"payout-{seed}", layout=layout, homography=camera.homography(), camera=camera,
                     chip_set=default_chip_set())
    return res.image, view, truth


def band(ppc: float) -> str:
    return "<1.6" if ppc < 1.6 else "1.6-2" if ppc < 2 else "2-3" if ppc < 3 else ">=3"


def evaluate(frames: int, seed: int, width: int, height: int, reader=None, log=print) -> dict:
    """Score the payout stacks of ``frames`` rendered frames: {band: {exact, wrong, unvalued, missed}}."""
    from vision.chips import CHIP_THICKNESS_MM, chip_geometry
    from vision.detector import FrameReader, _cylinder_box

    reader = reader or FrameReader()
    out: dict = {}
    wrong = []
    for k in range(frames):
        image, view, truth = payout_scene(seed + k, width, height)
        res = reader(image, view)
        rows = [(row, r) for row, r in res.chips]
        taken = set()
        for base, value, n in truth:
            box = _cylinder_box(view.camera, base, n * CHIP_THICKNESS_MM)
            ppc = chip_geometry(view.camera, base)[0]
            tally = out.setdefault(band(ppc), {"exact": 0, "wrong": 0, "unvalued": 0, "missed": 0})
            best, best_iou = None, 0.3
            for row, r in rows:
                iou = _iou(box, res.dets.xyxy[row]) if box is not None else 0.0
                if row not in taken and iou >= best_iou:
                    best, best_iou = (row, r), iou
            if best is None:
                tally["missed"] += 1
                continue
            taken.add(best[0])
            got = best[1].value
            if got is None:
                tally["unvalued"] += 1
            elif got == value:
                tally["exact"] += 1
            else:
                tally["wrong"] += 1
                wrong.append((seed + k, value, got, round(ppc, 2)))
        if log and (k + 1) % 10 == 0:
            log(f"{k + 1}/{frames} frames", file=sys.stderr, flush=True)
    total = {key: sum(t[key] for t in out.values()) for key in ("exact", "wrong", "unvalued", "missed")}
    return {"bands": dict(sorted(out.items())), "total": total, "wrong": wrong}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--seed", type=int, default=9100)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--chip-side", default=None, help="chip-side model (default: the committed one)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    w, h = (int(v) for v in a.size.lower().split("x"))
    from vision.detector import FrameReader

    reader = FrameReader(chip_side=a.chip_side) if a.chip_side else None
    result = evaluate(a.frames, a.seed, w, h, reader=reader)
    for name, t in result["bands"].items():
        print(f"{name:>6} px/chip: {t}")
    print("total", result["total"], "wrong", result["wrong"])
    if a.json:
        print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
