"""Stacks set down behind and beside another, read as the runtime reads them: at their front arc, and turned away.

    python scripts/occluded_stacks.py FRAMES SEED [--apart MIN MAX] [--dump ROWS.pkl]
    python scripts/occluded_stacks.py 200 9401                  # model card, Chip stacks, forty-third session
    python scripts/occluded_stacks.py 200 9402 --apart 60 90

A dealer sets a side-bet payout down beside the main one, and a player's wager may stand beside and behind his other
wagers: the stack nearer the camera hides part of the front of the one behind it, where the chip side reads each
chip's edge.  Each frame puts, at every other spot of a random layout, a stack (a payout as a dealer builds one, 60 %,
else a player's wager) and, 40-60 mm from it (``--apart``), a second one in front of it to one side (0.15-0.9 radians
off its direction to the camera), under a camera tilted 15-35 degrees (60 % of frames at 3840 x 2160).  The stack
behind, its base guessed 3 mm off as a box's would be, is read (a) at its front arc, facing the camera (the reader
before the forty-third session); (b) at each turn of :data:`vision.chip_side.TURNS_AWAY_RAD` away from the stack in
front; (c) as :meth:`vision.chip_side.ChipSideReader.read_stacks` reads it told of the stack in front where that one
was counted (the runtime).  Prints values right and wrong at >= :data:`vision.chips.MIN_PX_PER_CHIP` px per chip, by
band, and the front arc's readings split by whether the stack in front (at its own reading's height) hides any point
the strips sample (:func:`hidden_side_points`).  Needs the ``train`` extra (the renderer).
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.chip_side import (ARC_POINTS, ARC_RAD, BACK_ARC_RAD, ROWS_BELOW, ROWS_PER_CHIP, SLOTS,  # noqa: E402
                              STRIP_ROWS, TURNS_AWAY_RAD, ChipSideReader, side_away)
from vision.chip_side import _towards_camera as towards_camera  # noqa: E402
from vision.chips import (CHIP_DIAMETER_MM, CHIP_THICKNESS_MM, MIN_PX_PER_CHIP, SURE_PX_PER_CHIP,  # noqa: E402
                          chip_geometry)


def hidden_side_points(camera, base_mm, others, turn: float = 0.0) -> int:
    """How many of the points :func:`vision.chip_side.stack_strips` samples on a stack at ``base_mm`` (mm) another
    stack hides.

    A point is hidden where the line from the camera to it passes through one of ``others``, each a
    ((x, y) mm base, height mm) cylinder of a chip's diameter standing on the felt, before it reaches the point.
    Both arcs are tested, every strip row (air above the stack's top included: a stack in front taller than the
    one read puts its own chips there), the front arc turned ``turn`` radians as
    :func:`vision.chip_side.strips_at` turns it.

    Returns:
        0 .. 2 * STRIP_ROWS * ARC_POINTS.
    """
    if not others:
        return 0
    b = np.asarray(base_mm, np.float64).reshape(2)
    front = towards_camera(camera, b)
    facing = float(np.arctan2(front[1], front[0])) + turn
    ang = np.concatenate([facing + np.linspace(-ARC_RAD, ARC_RAD, ARC_POINTS),
                          facing + np.pi + np.linspace(-BACK_ARC_RAD, BACK_ARC_RAD, ARC_POINTS)])
    r = CHIP_DIAMETER_MM / 2
    z = (ROWS_BELOW - np.arange(STRIP_ROWS) - 0.5) * CHIP_THICKNESS_MM / ROWS_PER_CHIP  # up is -z
    pts = np.stack(np.broadcast_arrays(b[0] + r * np.cos(ang)[None, :], b[1] + r * np.sin(ang)[None, :],
                                       z[:, None]), -1).reshape(-1, 3)
    c = np.asarray(camera.center_mm, np.float64)
    d = pts - c  # the ray from the camera, s = 1 at the point
    hidden = np.zeros(len(pts), bool)
    for base, height in others:
        o = c[:2] - np.asarray(base, np.float64)
        qa = (d[:, :2] ** 2).sum(1)
        qb = 2 * (d[:, :2] @ o)
        qc = float(o @ o) - r * r
        disc = qb * qb - 4 * qa * qc
        ok = disc > 0
        root = np.sqrt(np.where(ok, disc, 0.0))
        s0 = np.clip((-qb - root) / (2 * qa), 0.0, 1.0)
        s1 = np.clip((-qb + root) / (2 * qa), 0.0, 1.0)
        za, zb = c[2] + s0 * d[:, 2], c[2] + s1 * d[:, 2]  # the ray's heights where it is over the cylinder
        hidden |= ok & (s1 > s0) & (np.maximum(za, zb) >= -float(height)) & (np.minimum(za, zb) <= 0.0)
    return int(hidden.sum())



def pairs_frame(rng: np.random.Generator, gap_mm: tuple[float, float] = (40.0, 60.0)):
    """(image, camera, [(base guess mm, front base guess mm, [(denomination, count)...] of the stack behind)])."""
    from datasets.chips import CHIP_DESIGNS
    from datasets.effects import Effects
    from datasets.render import Style, render_frame
    from datasets.scene import ChipStack, TableState
    from datasets.scenes import casino_felt
    from models.chip_side_train import _payout_layers, _player_layers, random_layout_and_camera
    from vision.chips import default_chip_set

    w, h = (3840, 2160) if rng.random() < 0.6 else (1920, 1080)
    layout, camera = random_layout_and_camera(rng, w, h, tilt_deg=(15.0, 35.0))
    denoms = [c.denomination for c in default_chip_set()]
    stacks, backs = [], []
    for z in [z for z in layout.zones if z.circle is not None][::2]:  # every other spot, so pairs keep apart
        c = np.array(z.circle.center, float) + rng.normal(0, 3, 2)
        f = towards_camera(camera, c)
        ang = np.arctan2(f[1], f[0]) + rng.choice([-1, 1]) * rng.uniform(0.15, 0.9)
        fc = c + rng.uniform(*gap_mm) * np.array([np.cos(ang), np.sin(ang)])
        behind = _payout_layers(rng, denoms) if rng.random() < 0.6 else _player_layers(rng, denoms)
        in_front = _payout_layers(rng, denoms) if rng.random() < 0.5 else _player_layers(rng, denoms)
        stacks.append(ChipStack(center=(float(c[0]), float(c[1])), layers=behind, zone=z.name))
        stacks.append(ChipStack(center=(float(fc[0]), float(fc[1])), layers=in_front, zone=z.name))
        backs.append((len(stacks) - 2, c, fc, [(la.denomination, la.count) for la in behind]))
    style = Style(chip_design=str(CHIP_DESIGNS[int(rng.integers(len(CHIP_DESIGNS)))].name), felt=casino_felt(rng),
                  effects=Effects.random(rng))
    res = render_frame(layout, TableState(cards=(), chips=tuple(stacks)), camera, style, rng=int(rng.integers(1 << 31)))
    out = []
    for k, c, fc, layers in backs:
        box = res.chips[k].box
        if box is None or box[0] < 2 or box[1] < 2 or box[2] > w - 2 or box[3] > h - 2:
            continue
        if chip_geometry(camera, (float(c[0]), float(c[1])))[0] < MIN_PX_PER_CHIP:
            continue
        out.append((c + rng.normal(0, 3, 2), fc + rng.normal(0, 2, 2), layers))
    return res.image, camera, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("frames", type=int)
    ap.add_argument("seed", type=int)
    ap.add_argument("--dump", type=Path, help="write every stack's readings here (pickle)")
    ap.add_argument("--apart", type=float, nargs=2, default=(40.0, 60.0), metavar=("MIN", "MAX"),
                    help="mm between the two stacks' bases")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    reader = ChipSideReader(threads=2)
    rows = []
    for _ in range(args.frames):
        image, camera, todo = pairs_frame(rng, tuple(args.apart))
        if not todo:
            continue
        guesses = [t[0] for t in todo]
        fronts = reader.read_stacks(image, camera, [t[1] for t in todo])
        plain = reader.read_stacks(image, camera, guesses)
        runtime = reader.read_stacks(image, camera, guesses,
                                     counted_beside=[t[1] for t, f in zip(todo, fronts) if f.count is not None])
        sides = [side_away(camera, t[0], [t[1]], reach_mm=1e9) for t in todo]  # every pair turned, however far
        turned = {m: reader.read_stacks(image, camera, guesses, turns=[m * s for s in sides]) for m in TURNS_AWAY_RAD}
        for i, t in enumerate(todo):
            height = (fronts[i].count if fronts[i].count is not None else SLOTS) * CHIP_THICKNESS_MM
            rows.append({"value": sum(d * n for d, n in t[2]), "ppc": plain[i].px_per_chip or 0.0,
                         "apart": float(np.hypot(*(np.asarray(t[1]) - t[0]))),
                         "plain": plain[i].value, "runtime": runtime[i].value,
                         "turned": {m: turned[m][i].value for m in turned},
                         "hidden": hidden_side_points(camera, t[0], [(t[1], height)])})
    if args.dump:
        pickle.dump(rows, open(args.dump, "wb"))
    print(f"{len(rows)} stacks behind another, at >= {MIN_PX_PER_CHIP} px per chip")
    for lo, hi in ((MIN_PX_PER_CHIP, SURE_PX_PER_CHIP), (SURE_PX_PER_CHIP, 3.0), (3.0, 1e9)):
        band = [r for r in rows if lo <= r["ppc"] < hi]
        unread = [r for r in band if r["plain"] is None]
        print(f"{lo:g}-{hi:g} px per chip: {len(band)} stacks, {len(unread)} the front arc cannot count")
        tally = [("front arc", band, lambda r: r["plain"]), ("runtime", band, lambda r: r["runtime"])]
        tally += [(f"one turn of {m:g}, where the front arc cannot count", unread, lambda r, m=m: r["turned"][m])
                  for m in TURNS_AWAY_RAD]
        clear, hidden = [r for r in band if not r["hidden"]], [r for r in band if r["hidden"]]
        tally += [("front arc, clear of the stack in front", clear, lambda r: r["plain"]),
                  ("front arc, partly hidden by it", hidden, lambda r: r["plain"])]
        for name, sub, value in tally:
            right = sum(value(r) == r["value"] for r in sub)
            wrong = sum(value(r) is not None and value(r) != r["value"] for r in sub)
            print(f"    {name:52s} {len(sub):4d} stacks: right {right:4d}, wrong {wrong:3d}")


if __name__ == "__main__":
    main()
