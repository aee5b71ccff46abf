"""Train the chip-side model (``models/chip_side.onnx``) on stacks rendered with known bases.

Each rendered frame puts chip stacks of 1-15 chips in 1-3 layers on the betting spots of a
random layout, seen by a camera tilted 10-40 degrees, with random chip designs, felt and
photographic effects (:mod:`datasets.render`).  Every stack gives :func:`vision.chip_side.side_strip`
at its true base and at bases moved by a few mm (the runtime starts from the spot's centre),
labelled slot by slot: empty, or the denomination of the chip in that slot.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

BASE_JITTER_MM = 4.0
"""Standard deviation of the base offsets drawn per sample: stacks sit near, not on, the spot's centre."""


def chip_scene(rng: np.random.Generator, width: int = 1920, height: int = 1080):
    """(RenderResult, camera, [(base_mm, [(denomination, count)...])]) of one random frame of chip stacks.

    Only stacks wholly inside the frame and at least 95 % visible are listed.
    """
    from calibration.camera import PinholeCamera
    from calibration.layout import builtin_layout
    from datasets.chips import CHIP_DESIGNS
    from datasets.effects import Effects
    from datasets.render import Style, render_frame
    from datasets.scene import ChipLayer, ChipStack, PlacedCard, TableState
    from rules.cards import CARD_LABELS
    from vision.chips import default_chip_set

    layout = builtin_layout(str(rng.choice(["blackjack-7-mtd-bonus", "spanish21-6-mtd", "switch-hands-7"])))
    camera = PinholeCamera.looking_at(target=(float(rng.uniform(700, 1200)), float(rng.uniform(400, 600))),
                                      tilt_deg=float(rng.uniform(10, 40)), yaw_deg=float(rng.uniform(-15, 15)),
                                      width=width, height=height, cover_mm=float(rng.uniform(900, 1900)),
                                      roll_deg=float(rng.normal(0, 3)))
    denoms = [c.denomination for c in default_chip_set()]
    stacks, truth, cards = [], [], []
    shoe = list(rng.permutation(CARD_LABELS))
    for z in layout.zones:
        if z.circle is not None and rng.random() < 0.75:
            n_layers = int(rng.choice([1, 1, 2, 3]))
            layers = tuple(ChipLayer(int(rng.choice(denoms)), int(rng.integers(1, 7))) for _ in range(n_layers))
            if sum(la.count for la in layers) > 15:
                layers = layers[:1]
            c = (z.circle.center[0] + float(rng.normal(0, 3)), z.circle.center[1] + float(rng.normal(0, 3)))
            stacks.append(ChipStack(center=c, layers=layers, zone=z.name))
            truth.append((c, [(la.denomination, la.count) for la in layers]))
        elif z.kind == "cards" and rng.random() < 0.4:
            cx, cy = z.centroid
            for k in range(int(rng.integers(1, 3))):
                cards.append(PlacedCard(card=str(shoe.pop()), face_up=True, center=(cx + 16 * k, cy + 9 * k),
                                        angle_deg=float(rng.uniform(-20, 20)), layer=k, zone=z.name))
    style = Style(chip_design=str(CHIP_DESIGNS[int(rng.integers(len(CHIP_DESIGNS)))].name),
                  effects=Effects.random(rng))
    res = render_frame(layout, TableState(cards=tuple(cards), chips=tuple(stacks)), camera, style,
                       rng=int(rng.integers(1 << 31)))
    # only stacks wholly in frame and uncovered teach anything: the rest are off the image or hidden
    w, h = width, height
    seen = [t for t, c in zip(truth, res.chips) if c.box is not None and c.visible >= 0.95
            and c.box[0] > 2 and c.box[1] > 2 and c.box[2] < w - 2 and c.box[3] < h - 2]
    return res, camera, seen


def slot_labels(layers: list[tuple[int, int]], denominations: list[int]) -> np.ndarray:
    """(SLOTS,) int64: 0 for an empty slot, else 1 + the index of the chip's denomination, bottom up."""
    from vision.chip_side import SLOTS

    out = np.zeros(SLOTS, np.int64)
    k = 0
    for d, n in layers:
        for _ in range(n):
            if k < SLOTS:
                out[k] = 1 + denominations.index(d)
            k += 1
    return out


def make_strips(frames: int, seed: int, jitters: int = 3, min_ppc: float = 1.2, log=print):
    """(strips (N, R, W, 3) uint8, labels (N, SLOTS) int64, px per chip (N,)) from ``frames`` rendered frames."""
    from vision.chip_side import side_strip
    from vision.chips import chip_geometry, default_chip_set

    denominations = [c.denomination for c in default_chip_set()]
    rng = np.random.default_rng(seed)
    xs, ys, ppcs = [], [], []
    t0 = time.time()
    for f in range(frames):
        res, camera, truth = chip_scene(rng)
        for base, layers in truth:
            ppc = chip_geometry(camera, base)[0]
            if ppc < min_ppc:
                continue
            lab = slot_labels(layers, denominations)
            for j in range(jitters):
                b = np.array(base) + (rng.normal(0, BASE_JITTER_MM, 2) if j else 0.0)
                xs.append(side_strip(res.image, camera, b))
                ys.append(lab)
                ppcs.append(ppc)
        if f % 50 == 0:
            log(f"chip frames {f + 1}/{frames}, {len(xs)} strips, {time.time() - t0:.0f}s")
    return np.stack(xs), np.stack(ys), np.array(ppcs, np.float32)


def chip_side_net(classes: int):
    """A small strip reader: 2-D convs across the strip, mean over the arc, 1-D convs up the stack, a head per slot."""
    import torch
    from torch import nn

    from vision.chip_side import ROWS_BELOW, ROWS_PER_CHIP, SLOTS

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Sequential(nn.Conv2d(3, 24, 3, padding=1), nn.BatchNorm2d(24), nn.ReLU(),
                                      nn.Conv2d(24, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU())
            self.up = nn.Sequential(nn.Conv1d(32, 64, 5, padding=2), nn.BatchNorm1d(64), nn.ReLU())
            self.slot = nn.Sequential(nn.Conv1d(64, 64, 3, padding=1), nn.ReLU(), nn.Conv1d(64, classes, 1))

        def forward(self, x):
            h = self.conv(x).mean(3)                       # (B, 32, rows)
            h = self.up(h)[:, :, ROWS_BELOW:ROWS_BELOW + ROWS_PER_CHIP * SLOTS]
            h = nn.functional.avg_pool1d(h, ROWS_PER_CHIP)  # (B, 64, SLOTS)
            return self.slot(h).transpose(1, 2)             # (B, SLOTS, classes)

    torch.manual_seed(0)
    return Net()


@dataclass
class ChipSideRun:
    """Record of one chip-side training run (goes into the model card)."""

    train_frames: int
    val_frames: int
    seed: int
    epochs: int
    strips: int
    seconds: float
    val_slot_acc: float
    val_stack_exact: float
    val_stack_abstain: float
    val_stack_wrong: float
    val_countable_exact: float
    val_countable_wrong: float


def train_chip_side(out_dir: Path, frames: int = 600, val_frames: int = 80, seed: int = 0, epochs: int = 25,
                    threads: int | None = None, log=print) -> tuple[Path, ChipSideRun]:
    """Render stacks, train the slot reader, export ``chip_side.onnx`` (denominations in its metadata)."""
    import os

    import torch
    import torch.nn.functional as F

    from vision.card_reader import crops_to_blob, softmax
    from vision.chip_side import reading_from_slots
    from vision.chips import MIN_PX_PER_CHIP, default_chip_set

    torch.set_num_threads(threads or os.cpu_count() or 1)
    denominations = [c.denomination for c in default_chip_set()]
    t0 = time.time()
    x, y, _ = make_strips(frames, seed, log=log)
    vx, vy, vppc = make_strips(val_frames, seed + 1000, jitters=2, log=log)
    log(f"{len(x)} training strips, {len(vx)} validation strips, {time.time() - t0:.0f}s")
    net = chip_side_net(1 + len(denominations))
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    batch = 128
    steps = epochs * max(1, len(x) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    rng = np.random.default_rng(seed)
    xb = torch.from_numpy(crops_to_blob(list(x)))
    yb = torch.from_numpy(y)
    for epoch in range(epochs):
        net.train()
        order = rng.permutation(len(x))
        for k in range(len(x) // batch):
            idx = order[k * batch:(k + 1) * batch]
            inp = xb[idx]
            # brightness and colour cast: casino lighting is not the renderer's
            inp = (inp * torch.empty(len(idx), 3, 1, 1).uniform_(0.75, 1.2)).clamp(0, 1)
            loss = F.cross_entropy(net(inp).reshape(-1, 1 + len(denominations)), yb[idx].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        log(f"chip-side epoch {epoch + 1}/{epochs} loss {loss.item():.3f} ({time.time() - t0:.0f}s)")
    net.eval()
    with torch.no_grad():
        logits = net(torch.from_numpy(crops_to_blob(list(vx)))).numpy()
    p = softmax(logits)
    slot_acc = float((p.argmax(-1) == vy).mean())
    exact = abstain = wrong = 0
    c_exact = c_wrong = c_n = 0
    for pi, yi, ppc in zip(p, vy, vppc):
        true_value = int(sum(denominations[k - 1] for k in yi if k))
        rd = reading_from_slots(pi, denominations, 0.9)
        ok = rd.value is not None and rd.value == true_value
        bad = rd.value is not None and rd.value != true_value
        exact += ok
        wrong += bad
        abstain += rd.value is None
        if ppc >= MIN_PX_PER_CHIP:
            c_n += 1
            c_exact += ok
            c_wrong += bad
    n = len(vx)
    run = ChipSideRun(frames, val_frames, seed, epochs, int(len(x)), round(time.time() - t0, 1), round(slot_acc, 4),
                      round(exact / n, 4), round(abstain / n, 4), round(wrong / n, 4),
                      round(c_exact / max(c_n, 1), 4), round(c_wrong / max(c_n, 1), 4))
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), out_dir / "chip_side.pt")
    path = export_chip_side(net, out_dir / "chip_side.onnx", denominations)
    (out_dir / "chip_side.json").write_text(json.dumps(asdict(run), indent=2))
    log(f"chip side done: {json.dumps(asdict(run))}")
    return path, run


def export_chip_side(net, path: Path, denominations: list[int]) -> Path:
    """Export to ONNX (opset 18, dynamic batch) with the denominations in the metadata."""
    import onnx
    import torch

    from vision.chip_side import ARC_POINTS, STRIP_ROWS

    dummy = torch.zeros(1, 3, STRIP_ROWS, ARC_POINTS)
    torch.onnx.export(net, dummy, str(path), input_names=["strips"], output_names=["slot_logits"],
                      dynamic_axes={"strips": {0: "batch"}, "slot_logits": {0: "batch"}}, opset_version=18,
                      dynamo=False)
    model = onnx.load(str(path))
    entry = model.metadata_props.add()
    entry.key, entry.value = "denominations", json.dumps(denominations)
    onnx.save(model, str(path))
    return path


if __name__ == "__main__":
    import sys

    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".cache/chipside")
    train_chip_side(out, frames=int(sys.argv[2]) if len(sys.argv) > 2 else 600,
                    epochs=int(sys.argv[3]) if len(sys.argv) > 3 else 25,
                    log=lambda m: print(m, file=sys.stderr, flush=True))
