"""Stacks the chip side's front arc cannot count, read again with both arcs turned round the stack either way.

    python scripts/turned_rereads.py FRAMES SEED [--video-share S] [--dump ROWS.json]
    python scripts/turned_rereads.py 300 9501 --video-share 1.0     # model card, Chip stacks, forty-fourth session
    python scripts/turned_rereads.py 300 9502 --video-share 0.0

Fresh frames of chip stacks (:func:`models.chip_side_train.chip_scene`: 60 % at 3840 x 2160, half the stacks stacked
as players stack a wager, a fifth as a dealer builds a payout), ``--video-share`` of them as H.264 video shows a still
table (:func:`models.chip_side_train._as_video`, the round videos' 4:2:0 colour). Every stack whose side shows at
least :data:`vision.chips.MIN_PX_PER_CHIP` px per chip is read as the runtime reads a stack with nothing beside it, its
base guessed 3 mm off as a box's would be; each one left uncounted is read again at every turn of :data:`TURNS`
(radians either way round the stack: :func:`vision.chip_side.strips_at`). Prints, per px-per-chip band, the front
arc's values right / wrong / uncounted, the runtime's (:meth:`vision.chip_side.ChipSideReader.read_stacks`, which
reads such stacks again turned round: :data:`vision.chip_side.TURNS_AROUND_RAD`), and what each rule of :data:`RULES` would make of the uncounted ones (counted
where at least ``k`` turns of the set count it, every turn that counts reads it alike and, for some, turns either
way count it), of those seen but read
unsurely (:data:`vision.chip_side.UNSURE_NOTES`, the ones the runtime reads again). ``--dump`` keeps every stack's
readings. Needs the ``train`` extra (the renderer).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.chip_side import UNSURE_NOTES, ChipSideReader  # noqa: E402
from vision.chips import MIN_PX_PER_CHIP, chip_geometry  # noqa: E402

TURNS = (-0.6, -0.45, -0.3, -0.15, 0.15, 0.3, 0.45, 0.6)
"""Radians read again, either way round the stack."""

RULES = {
    "+-0.15..0.6, 4 alike, each side": (TURNS, 4, 1),
    "+-0.15..0.6, 5 alike, each side": (TURNS, 5, 1),
    "+-0.15..0.6, 4 alike": (TURNS, 4, 0),
    "+-0.15..0.6, 3 alike, each side": (TURNS, 3, 1),
    "+-0.3..0.6, 3 alike": ((-0.6, -0.45, -0.3, 0.3, 0.45, 0.6), 3, 0),
    "+-0.3,0.6, 3 alike, each side": ((-0.6, -0.3, 0.3, 0.6), 3, 1),
}
"""Rules tried: (the turns read, the least that must count the stack, all alike; the least of them on each side)."""

BANDS = ((1.6, 2.0), (2.0, 3.0), (3.0, 99.0))


def rule_value(turned: dict, turns, least: int, each_side: int = 0):
    """The value a rule gives from ``turned`` ({turn: value or None}), or None."""
    counted = {t: turned[t] for t in turns if turned.get(t) is not None}
    vals = list(counted.values())
    if len(vals) < least or not all(v == vals[0] for v in vals):
        return None
    if min(sum(t < 0 for t in counted), sum(t > 0 for t in counted)) < each_side:
        return None
    return vals[0]


def read_frames(frames: int, seed: int, video_share: float, log=print) -> list[dict]:
    """One row per stack read: truth, px per chip, the front arc's value and each turn's (for uncounted stacks)."""
    from models.chip_side_train import _as_video, _frame_size, chip_scene

    reader = ChipSideReader()
    rng = np.random.default_rng(seed)
    rows = []
    for f in range(frames):
        res, camera, truth = chip_scene(rng, *_frame_size(rng, 0.6), player_share=0.5, payout_share=0.2)
        image = _as_video(res.image, rng) if rng.random() < video_share else res.image
        stacks = [(np.asarray(b) + rng.normal(0, 3.0, 2), layers) for b, layers in truth
                  if chip_geometry(camera, b)[0] >= MIN_PX_PER_CHIP]
        if not stacks:
            continue
        front = reader.read_stacks(image, camera, [g for g, _ in stacks], look_around=False)
        runtime = reader.read_stacks(image, camera, [g for g, _ in stacks])
        for (guess, layers), r, rt in zip(stacks, front, runtime):
            row = {"frame": f, "value": int(sum(d * n for d, n in layers)), "layers": layers,
                   "px_per_chip": round(float(r.px_per_chip or 0.0), 2), "front": r.value, "runtime": rt.value, "note": r.note,
                   "turned": {}}
            if r.count is None:
                again = reader.read_stacks(image, camera, [guess] * len(TURNS), turns=list(TURNS))
                row["turned"] = {str(t): a.value for t, a in zip(TURNS, again)}
            rows.append(row)
        if (f + 1) % 25 == 0:
            log(f"{f + 1}/{frames} frames, {len(rows)} stacks")
    return rows


def tally(rows: list[dict]) -> dict:
    """{band: {"front": [right, wrong, uncounted], rule: [right, wrong] of the uncounted}}."""
    out = {}
    for lo, hi in BANDS + ((MIN_PX_PER_CHIP, 99.0),):
        sel = [r for r in rows if lo <= r["px_per_chip"] < hi]
        name = "all" if (lo, hi) == (MIN_PX_PER_CHIP, 99.0) else f"{lo:g}-{hi:g}"
        t = {k: [sum(r[k] == r["value"] for r in sel), sum(r[k] is not None and r[k] != r["value"] for r in sel),
                 sum(r[k] is None for r in sel)] for k in ("front", "runtime") if all(k in r for r in sel)}
        for rule, (turns, least, each_side) in RULES.items():
            vals = [(rule_value({float(k): v for k, v in r["turned"].items()}, turns, least, each_side), r["value"])
                    for r in sel if r["front"] is None and (r.get("note") or UNSURE_NOTES[0]).startswith(UNSURE_NOTES)]
            t[rule] = [sum(v == truth for v, truth in vals), sum(v is not None and v != truth for v, truth in vals)]
        out[name] = t
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("frames", type=int)
    ap.add_argument("seed", type=int)
    ap.add_argument("--video-share", type=float, default=1.0)
    ap.add_argument("--dump", type=Path)
    a = ap.parse_args()
    rows = read_frames(a.frames, a.seed, a.video_share, log=lambda m: print(m, file=sys.stderr, flush=True))
    if a.dump:
        a.dump.write_text(json.dumps(rows))
    for band, t in tally(rows).items():
        print(f"{band:8s} front arc right/wrong/uncounted {t['front']}; the runtime {t.get('runtime')}")
        for rule in RULES:
            print(f"         {rule:34s} of the uncounted: right {t[rule][0]}, wrong {t[rule][1]}")


if __name__ == "__main__":
    main()
