"""Train the chip-side model (``models/chip_side.onnx``) on stacks rendered with known bases.

Each rendered frame puts chip stacks of 1-15 chips in 1-3 layers on the betting spots of a
random layout, seen by a camera tilted 10-40 degrees, with random chip designs, felt colours, ink and
photographic effects (:mod:`datasets.render`).  Every stack gives :func:`vision.chip_side.stack_strips`
(front and back arcs) at bases moved along the line of sight:

* *aligned* samples, within :data:`ALIGNED_CHIPS` of a chip thickness of the true base, labelled
  slot by slot (empty, or the denomination of the chip in that slot) and aligned;
* *misaligned* samples, :data:`MISALIGNED_CHIPS` chip thicknesses or more off, labelled not aligned
  (their slots are not trained): the runtime searches the base along the line of sight and keeps
  the strip the model finds aligned.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

ALIGNED_CHIPS = 0.3
"""Largest base offset (chip thicknesses, along the line of sight) of a sample taught as aligned."""
MISALIGNED_CHIPS = 0.6
"""Least base offset of a sample taught as not aligned; offsets in between are not taught either way."""
SEARCH_REACH_CHIPS = 3.2
"""Misaligned samples reach at least this far, chip thicknesses ..."""
SEARCH_REACH_MM = 11.0
"""... and at least this far in mm: past the runtime's search (:data:`vision.chip_side.SEARCH_MM`)."""
ACROSS_JITTER_MM = 2.5
"""Standard deviation of the base's offset across the line of sight."""
THIN_BAND_PX = 2.4
"""Px per chip under which a strip counts as thin-sided for ``train_chip_side(thin_repeat=...)``: the band table's
top (``scripts/chip_side_bands.py``), where the reader abstains most."""


def random_layout_and_camera(rng: np.random.Generator, width: int, height: int,
                             tilt_deg: tuple[float, float] = (10.0, 40.0)):
    """(layout, :class:`calibration.camera.PinholeCamera`) of a chip scene: one of the three built-in layouts, a camera
    ``width`` x ``height`` px aimed at the players' side of it, tilted ``tilt_deg`` (degrees from straight down)."""
    from calibration.camera import PinholeCamera
    from calibration.layout import builtin_layout

    layout = builtin_layout(str(rng.choice(["blackjack-7-mtd-bonus", "spanish21-6-mtd", "switch-hands-7"])))
    camera = PinholeCamera.looking_at(target=(float(rng.uniform(700, 1200)), float(rng.uniform(400, 600))),
                                      tilt_deg=float(rng.uniform(*tilt_deg)), yaw_deg=float(rng.uniform(-15, 15)),
                                      width=width, height=height, cover_mm=float(rng.uniform(900, 1900)),
                                      roll_deg=float(rng.normal(0, 3)))
    return layout, camera


def chip_scene(rng: np.random.Generator, width: int = 1920, height: int = 1080, with_empty: bool = False,
               player_share: float = 0.0, payout_share: float = 0.0):
    """(RenderResult, camera, [(base_mm, [(denomination, count)...])]) of one random frame of chip stacks.

    Only stacks wholly inside the frame and at least 95 % visible are listed.  ``with_empty``: a fourth
    item, the centres (mm) of the betting spots left bare.  ``player_share``: the share of stacks built as players
    build a wager (a usual amount, big chips at the bottom, the top chip sometimes broken:
    :func:`datasets.rounds.chip_layers`) instead of 1-3 layers of random denominations; 0 draws nothing more, so
    older seeds render what they rendered.  ``payout_share``: the share of stacks built as a dealer builds a side-bet
    payout (:func:`_payout_layers`: an odd amount, many small chips on top), drawn before ``player_share``'s.
    """
    from datasets.chips import CHIP_DESIGNS
    from datasets.effects import Effects
    from datasets.render import Style, render_frame
    from datasets.scenes import casino_felt
    from datasets.scene import ChipLayer, ChipStack, PlacedCard, TableState
    from rules.cards import CARD_LABELS
    from vision.chips import default_chip_set

    layout, camera = random_layout_and_camera(rng, width, height)
    denoms = [c.denomination for c in default_chip_set()]
    stacks, truth, cards, bare = [], [], [], []
    shoe = list(rng.permutation(CARD_LABELS))
    for z in layout.zones:
        if z.circle is not None and rng.random() < 0.75:
            if payout_share > 0 and rng.random() < payout_share:
                layers = _payout_layers(rng, denoms)
            elif player_share > 0 and rng.random() < player_share:
                layers = _player_layers(rng, denoms)
            else:
                n_layers = int(rng.choice([1, 1, 2, 3]))
                layers = tuple(ChipLayer(int(rng.choice(denoms)), int(rng.integers(1, 7))) for _ in range(n_layers))
            if sum(la.count for la in layers) > 15:
                layers = layers[:1]
            c = (z.circle.center[0] + float(rng.normal(0, 3)), z.circle.center[1] + float(rng.normal(0, 3)))
            stacks.append(ChipStack(center=c, layers=layers, zone=z.name))
            truth.append((c, [(la.denomination, la.count) for la in layers]))
        elif z.circle is not None:
            bare.append((float(z.circle.center[0]), float(z.circle.center[1])))
        elif z.kind == "cards" and rng.random() < 0.4:
            cx, cy = z.centroid
            for k in range(int(rng.integers(1, 3))):
                cards.append(PlacedCard(card=str(shoe.pop()), face_up=True, center=(cx + 16 * k, cy + 9 * k),
                                        angle_deg=float(rng.uniform(-20, 20)), layer=k, zone=z.name))
    # felt of any casino colour, printed in any ink: a red chip on red felt must still be told apart
    felt = casino_felt(rng)
    style = Style(chip_design=str(CHIP_DESIGNS[int(rng.integers(len(CHIP_DESIGNS)))].name), felt=felt,
                  effects=Effects.random(rng))
    res = render_frame(layout, TableState(cards=tuple(cards), chips=tuple(stacks)), camera, style,
                       rng=int(rng.integers(1 << 31)))
    # only stacks wholly in frame and uncovered teach anything: the rest are off the image or hidden
    w, h = width, height
    seen = [t for t, c in zip(truth, res.chips) if c.box is not None and c.visible >= 0.95
            and c.box[0] > 2 and c.box[1] > 2 and c.box[2] < w - 2 and c.box[3] < h - 2]
    return (res, camera, seen, bare) if with_empty else (res, camera, seen)


PLAYER_AMOUNTS = (1, 2, 5, 5, 10, 10, 15, 20, 25, 25, 30, 35, 40, 50, 50, 60, 75, 100, 100, 125, 150, 150, 200, 250,
                  300, 500, 600, 1000)
"""Wagers players make, dollars (main wagers $10-200 and side bets $1-100 in the rendered round videos)."""


PAYOUT_ODDS = (1, 2, 3, 4, 5, 8, 10, 11, 12, 15, 24)
"""Multiples of a side bet a dealer pays out (match-the-dealer 4-24 to 1 and more, bonus 1-15 to 1, even money)."""


def _payout_layers(rng: np.random.Generator, denominations: list[int]) -> tuple:
    """A payout as a dealer stacks it: :func:`datasets.rounds.chip_layers` of a side bet ($1-50) times its odds, a
    dollar off now and then (a wrong payout), at most 15 chips: the tall stacks of $1 and $5 chips topped by broken
    chips that the round videos' payouts are."""
    import random

    from datasets.rounds import chip_layers

    py = random.Random(int(rng.integers(1 << 31)))
    for _ in range(20):
        amount = py.choice([1, 2, 3, 5, 5, 10, 15, 25, 25, 50]) * py.choice(PAYOUT_ODDS) + py.choice([0, 0, 0, 1, -1])
        if amount < 1:
            continue
        layers = chip_layers(amount, denominations, py, max_chips=15)
        if sum(la.count for la in layers) <= 15:
            return layers
    return chip_layers(py.choice([5, 10, 25]), denominations, py)


def _player_layers(rng: np.random.Generator, denominations: list[int]) -> tuple:
    """A wager as a player stacks it: :func:`datasets.rounds.chip_layers` of a usual amount, at most 15 chips."""
    import random

    from datasets.rounds import chip_layers

    amount = int(rng.choice(PLAYER_AMOUNTS))
    return chip_layers(amount, denominations, random.Random(int(rng.integers(1 << 31))), max_chips=15)


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


def sample_offsets(rng: np.random.Generator, aligned: int, misaligned: int, reach: float = SEARCH_REACH_CHIPS) -> list[float]:
    """Base offsets along the line of sight, chip thicknesses: ``aligned`` near 0, ``misaligned`` well off
    (up to ``reach``)."""
    near = rng.uniform(-ALIGNED_CHIPS, ALIGNED_CHIPS, aligned)
    far = rng.uniform(MISALIGNED_CHIPS, reach, misaligned) * rng.choice([-1.0, 1.0], misaligned)
    return [float(v) for v in np.concatenate([near, far])]


def stack_samples(image, camera, base, layers, denominations, rng, aligned: int = 2, misaligned: int = 4):
    """(strips (K, R, W, 6) uint8, slot labels (K, SLOTS), aligned (K,) float32: 1, 0, or -1 for untaught)."""
    from vision.chip_side import sight_step_mm, stack_strips

    front, step = sight_step_mm(camera, base)
    across = np.array([-front[1], front[0]])
    lab = slot_labels(layers, denominations)
    xs, ys, al = [], [], []
    reach = max(SEARCH_REACH_CHIPS, SEARCH_REACH_MM / max(step, 1e-6))
    for o in sample_offsets(rng, aligned, misaligned, reach):
        b = np.asarray(base, np.float64) + o * step * front + rng.normal(0, ACROSS_JITTER_MM) * across
        xs.append(stack_strips(image, camera, b))
        ys.append(lab)
        al.append(1.0 if abs(o) <= ALIGNED_CHIPS else (0.0 if abs(o) >= MISALIGNED_CHIPS else -1.0))
    return xs, ys, al


def _frame_size(rng: np.random.Generator, uhd_share: float) -> tuple[int, int]:
    """1920 x 1080, or 3840 x 2160 for a ``uhd_share`` of frames (no draw at all when 0, so older runs replay)."""
    return (3840, 2160) if uhd_share > 0 and rng.random() < uhd_share else (1920, 1080)


def _strips_worker(args):
    frames, seed, min_ppc, uhd_share, player_share, payout_share, video_share = args
    import os

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from vision.chip_side import ARC_POINTS, SLOTS, STRIP_CHANNELS, STRIP_ROWS, sight_step_mm, stack_strips
    from vision.chips import chip_geometry, default_chip_set

    denominations = [c.denomination for c in default_chip_set()]
    rng = np.random.default_rng(seed)
    xs, ys, al, ppcs = [], [], [], []
    for _ in range(frames):
        width, height = _frame_size(rng, uhd_share)
        res, camera, truth, bare = chip_scene(rng, width, height, with_empty=True, player_share=player_share,
                                              payout_share=payout_share)
        image = _as_video(res.image, rng) if video_share > 0 and rng.random() < video_share else res.image
        for base, layers in truth:
            ppc = chip_geometry(camera, base)[0]
            if ppc < min_ppc:
                continue
            x, y, a = stack_samples(image, camera, base, layers, denominations, rng)
            xs += x
            ys += y
            al += a
            ppcs += [ppc] * len(x)
        # felt, printed rings and cards with no stack on them are never aligned
        spots = []
        for c in bare:  # a bare spot is searched along the line of sight like any other
            front, _ = sight_step_mm(camera, c)
            spots += [np.asarray(c) + rng.normal(0, 2.0, 2) + rng.uniform(-SEARCH_REACH_MM, SEARCH_REACH_MM) * front
                      for _ in range(3)]
        for spot in spots + [_bare_point(res, camera, truth, rng) for _ in range(2)]:
            if spot is not None and _in_view(camera, spot):
                xs.append(stack_strips(image, camera, spot))
                ys.append(np.zeros(SLOTS, np.int64))
                al.append(0.0)
                ppcs.append(chip_geometry(camera, spot)[0])
    if not xs:
        return (np.zeros((0, STRIP_ROWS, ARC_POINTS, STRIP_CHANNELS), np.uint8), np.zeros((0, SLOTS), np.int64),
                np.zeros(0, np.float32), np.zeros(0, np.float32))
    return np.stack(xs), np.stack(ys), np.array(al, np.float32), np.array(ppcs, np.float32)


VIDEO_CRF = (22, 30)
"""x264 quality range of :func:`_as_video` frames (the rendered round videos are encoded at 26)."""


def _as_video(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A rendered frame as H.264 video shows a still table (:func:`vision.video_out.h264_still`): a key frame alone or
    refined by 2-6 predicted frames, at a quality drawn from :data:`VIDEO_CRF`. The round videos' wagers read wrong
    or not at all where a lone chip's colour is lost to 4:2:0 colour (fortieth session, 4K seed 7213 r0: a $25 under
    three $5 read $20 in the video, $40 in the render it was encoded from)."""
    from vision.video_out import h264_still

    crf = int(rng.integers(VIDEO_CRF[0], VIDEO_CRF[1] + 1))
    repeats = 1 if rng.random() < 0.3 else int(rng.integers(2, 7))
    return h264_still(image, crf=crf, repeats=repeats)


def _bare_point(res, camera, truth, rng, tries: int = 20):
    """A layout point (mm) in view and at least 60 mm from every stack, or None."""
    for _ in range(tries):
        p = np.array([rng.uniform(100, 1800), rng.uniform(100, 900)])
        if any(np.hypot(*(p - np.asarray(b))) < 60 for b, _ in truth):
            continue
        if _in_view(camera, p):
            return p
    return None


def _in_view(camera, point_mm) -> bool:
    """Whether a layout point (mm) lies in the frame with room for a strip around it."""
    u = camera.project([[point_mm[0], point_mm[1], 0.0]])[0]
    return bool(np.isfinite(u).all() and 20 < u[0] < camera.width - 20 and 60 < u[1] < camera.height - 20)


def make_strips(frames: int, seed: int, min_ppc: float = 1.5, workers: int = 2, uhd_share: float = 0.0,
                player_share: float = 0.0, payout_share: float = 0.0, video_share: float = 0.0, log=print):
    """(strips (N, R, W, 6) uint8, slot labels (N, SLOTS) int64, aligned (N,) float32, px per chip (N,)).

    ``frames`` rendered frames in chunks of 25, each chunk seeded from ``seed``, over ``workers`` processes;
    ``uhd_share`` of them at 3840 x 2160 (the same table cover, so twice the pixels per chip: 4K cameras);
    ``player_share`` of stacks stacked as players stack a wager and ``payout_share`` as a dealer stacks a payout
    (:func:`chip_scene`); ``video_share`` of the frames are cut from as H.264 video shows them (:func:`_as_video`;
    0 draws nothing more, so older seeds render what they rendered).
    """
    import multiprocessing as mp

    chunks = [(min(25, frames - k), seed * 100_003 + k, min_ppc, uhd_share, player_share, payout_share, video_share)
              for k in range(0, frames, 25)]
    t0 = time.time()
    out = []
    with mp.get_context("spawn").Pool(workers) as pool:
        for i, part in enumerate(pool.imap(_strips_worker, chunks)):
            out.append(part)
            log(f"chip frames {min(25 * (i + 1), frames)}/{frames}, {sum(len(p[0]) for p in out)} strips, "
                f"{time.time() - t0:.0f}s")
    return tuple(np.concatenate([p[k] for p in out]) for k in range(4))


def chip_side_net(classes: int):
    """The strip reader: 2-D convs across the strip, mean over the arc, dilated 1-D convs up the stack;
    a head per chip slot (empty or a denomination) and one alignment logit read off the bottom rows."""
    import torch
    from torch import nn

    from vision.chip_side import ALIGNED_ROWS, ROWS_BELOW, ROWS_PER_CHIP, SLOTS, STRIP_CHANNELS

    def block1d(cin, cout, dilation):
        return nn.Sequential(nn.Conv1d(cin, cout, 5, padding=2 * dilation, dilation=dilation),
                             nn.BatchNorm1d(cout), nn.ReLU())

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Sequential(nn.Conv2d(STRIP_CHANNELS, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                                      nn.Conv2d(32, 48, 3, padding=1), nn.BatchNorm2d(48), nn.ReLU())
            self.up = nn.Sequential(block1d(48, 64, 1), block1d(64, 64, 2), block1d(64, 64, 4))
            self.slot = nn.Sequential(nn.Conv1d(64, 64, 3, padding=1), nn.ReLU(), nn.Conv1d(64, classes, 1))
            self.bottom_rows = ALIGNED_ROWS
            self.aligned = nn.Linear(64 * self.bottom_rows, 1)

        def forward(self, x):
            h = self.up(self.conv(x).mean(3))                      # (B, 64, rows)
            s = h[:, :, ROWS_BELOW:ROWS_BELOW + ROWS_PER_CHIP * SLOTS]
            s = nn.functional.avg_pool1d(s, ROWS_PER_CHIP)         # (B, 64, SLOTS)
            a = self.aligned(h[:, :, :self.bottom_rows].flatten(1))[:, 0]
            return self.slot(s).transpose(1, 2), a                 # (B, SLOTS, classes), (B,)

    torch.manual_seed(0)
    return Net()


def chip_side_mean(nets):
    """One net whose readings are the mean of ``nets``' (each a :func:`chip_side_net`): slot probabilities
    averaged, and alignment probabilities averaged, given back as logits so the runtime reads it as any other
    (softmax of the log of a distribution is that distribution; the logit of a probability is its sigmoid's inverse).
    Two nets fine-tuned on different mixes disagree where each is unsure: their mean abstains where either alone
    would have named a wrong value, and reads what one alone left unsure."""
    import torch
    from torch import nn

    class Mean(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.nets = nn.ModuleList(nets)

        def forward(self, x):
            outs = [n(x) for n in self.nets]
            p = torch.stack([torch.softmax(s, -1) for s, _ in outs]).mean(0)
            a = torch.stack([torch.sigmoid(al) for _, al in outs]).mean(0).clamp(1e-6, 1 - 1e-6)
            return torch.log(p.clamp_min(1e-12)), torch.log(a) - torch.log1p(-a)

    return Mean().eval()


FUSED_CONVS = (("conv.0", "conv.1"), ("conv.3", "conv.4"), ("up.0.0", "up.0.1"), ("up.1.0", "up.1.1"),
               ("up.2.0", "up.2.1"))
"""(convolution, its batch norm) of :func:`chip_side_net`, in graph order: torch's ONNX export folds each batch norm
into the convolution before it, so the committed graph keeps only the convolutions (weights renamed)."""
FOLDED_BN_EPS = 1e-5
"""The batch norms' eps (torch's default): a folded one's variance is ``1 - eps``, so it gives back its input."""


def nets_from_onnx(path: Path, classes: int) -> list[dict]:
    """The state dicts of the :func:`chip_side_net` nets in a committed chip-side ONNX file (one net, or a
    :func:`chip_side_mean` of several), so a fine-tune can start from what is committed.

    Each batch norm comes back as the identity (scale 1, shift 0, mean 0, variance ``1 - eps``) with its
    convolution holding the folded weights: in eval mode the net reads exactly as the graph does.
    :func:`train_chip_side` keeps such batch norms' statistics frozen: a batch's own would undo the folding.

    Raises:
        ValueError: the graph's weights do not fit ``classes`` and the net's layers.
    """
    import onnx
    import torch
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in graph.initializer}
    template = chip_side_net(classes).state_dict()
    named = {k for k in weights if k in template or (k.startswith("nets.") and k.split(".", 2)[2] in template)}
    fused = []  # (weight, bias) names of each folded convolution (the export renames them), in graph order
    for node in graph.node:
        if node.op_type == "Conv" and len(node.input) == 3 and node.input[1] in weights \
                and node.input[1] not in named and node.input[1] not in [w for w, _ in fused]:
            fused.append((node.input[1], node.input[2]))
    prefixes = sorted({k.split(".")[1] for k in weights if k.startswith("nets.")}) or [None]
    if len(fused) != len(FUSED_CONVS) * len(prefixes):
        raise ValueError(f"{path}: {len(fused)} folded convolutions for {len(prefixes)} nets; "
                         f"expected {len(FUSED_CONVS)} each")
    out = []
    for n, prefix in enumerate(prefixes):
        state = {}
        for k, v in template.items():
            key = k if prefix is None else f"nets.{prefix}.{k}"
            if key in weights:
                state[k] = weights[key]
        for j, (conv, bn) in enumerate(FUSED_CONVS):
            w, b = fused[n * len(FUSED_CONVS) + j]
            state[f"{conv}.weight"], state[f"{conv}.bias"] = weights[w], weights[b]
            size = weights[w].shape[0]
            state[f"{bn}.weight"], state[f"{bn}.bias"] = torch.ones(size), torch.zeros(size)
            state[f"{bn}.running_mean"] = torch.zeros(size)
            state[f"{bn}.running_var"] = torch.full((size,), 1 - FOLDED_BN_EPS)
            state[f"{bn}.num_batches_tracked"] = torch.tensor(0)
        missing = [k for k in template if k not in state or state[k].shape != template[k].shape]
        if missing:
            raise ValueError(f"{path}: net {n} lacks or misfits {missing[:3]}")
        out.append(state)
    return out


def _folded(state: dict) -> bool:
    """Whether a state dict's batch norms are the identity :func:`nets_from_onnx` gives (folded into the convolutions)."""
    import torch

    stats = [(state[k], state[k[:-len("running_mean")] + "running_var"]) for k in state if k.endswith("running_mean")]
    return bool(stats) and all(torch.equal(m, torch.zeros_like(m))
                               and torch.allclose(v, torch.full_like(v, 1 - FOLDED_BN_EPS)) for m, v in stats)


def unpack_chip_side(path: Path, out_dir: Path) -> list[Path]:
    """Write each net of a chip-side ONNX file (:func:`nets_from_onnx`) as ``net0.pt``, ``net1.pt``, ... in
    ``out_dir``, for ``pitwatch train chip-side --init`` and ``chip-side-mean``; returns their paths."""
    import torch

    from vision.chips import default_chip_set

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for k, state in enumerate(nets_from_onnx(path, 1 + len(default_chip_set()))):
        paths.append(out_dir / f"net{k}.pt")
        torch.save(state, paths[-1])
    return paths


def export_chip_side_mean(weights: list[Path], path: Path) -> Path:
    """Export the mean of the chip-side nets saved at ``weights`` (``chip_side.pt`` files) as one ONNX file.

    Raises:
        ValueError: fewer than two weight files.
    """
    import torch

    from vision.chips import default_chip_set

    if len(weights) < 2:
        raise ValueError("a mean needs at least two chip-side nets")
    denominations = [c.denomination for c in default_chip_set()]
    nets = []
    for w in weights:
        net = chip_side_net(1 + len(denominations))
        net.load_state_dict(torch.load(w, map_location="cpu"))
        nets.append(net.eval())
    path.parent.mkdir(parents=True, exist_ok=True)
    return export_chip_side(chip_side_mean(nets), path, denominations)


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
    val_aligned_acc: float
    val_stacks: int
    val_exact: float
    val_wrong: float
    val_abstain: float
    uhd_share: float = 0.0
    player_share: float = 0.0
    init: str = ""
    init_net: int = 0
    thin_repeat: int = 0
    payout_share: float = 0.0
    video_share: float = 0.0


def evaluate_reader(model: Path, frames: int, seed: int, spot_sd_mm: float = 3.0, min_ppc: float = 2.0,
                    uhd_share: float = 0.0, player_share: float = 0.0, payout_share: float = 0.0, log=print) -> dict:
    """Read freshly rendered stacks as the runtime does (base searched from a guess ``spot_sd_mm`` off).

    ``uhd_share``: the share of frames rendered at 3840 x 2160 (see :func:`make_strips`); ``player_share``: the share
    of stacks stacked as players stack a wager (:func:`chip_scene`).
    Returns counts of stacks whose side shows >= ``min_ppc`` px per chip: exact, wrong, abstained.
    """
    from vision.chip_side import ChipSideReader
    from vision.chips import chip_geometry

    reader = ChipSideReader(model)
    rng = np.random.default_rng(seed)
    out = {"stacks": 0, "exact": 0, "wrong": 0, "abstained": 0}
    for _ in range(frames):
        res, camera, truth = chip_scene(rng, *_frame_size(rng, uhd_share), player_share=player_share,
                                        payout_share=payout_share)
        for base, layers in truth:
            if chip_geometry(camera, base)[0] < min_ppc:
                continue
            guess = np.asarray(base) + rng.normal(0, spot_sd_mm, 2)
            r = reader.read(res.image, camera, guess)
            value = sum(d * n for d, n in layers)
            out["stacks"] += 1
            out["exact" if r.value == value else ("abstained" if r.value is None else "wrong")] += 1
    log(f"chip-side reading of {frames} new frames: {out}")
    return out


def train_chip_side(out_dir: Path, frames: int = 2000, val_frames: int = 120, seed: int = 0, epochs: int = 20,
                    threads: int | None = None, init: Path | None = None, lr: float = 3e-3, uhd_share: float = 0.0,
                    player_share: float = 0.0, init_net: int = 0, thin_repeat: int = 0,
                    payout_share: float = 0.0, video_share: float = 0.0, log=print) -> tuple[Path, ChipSideRun]:
    """Render stacks, train the slot and alignment heads, export ``chip_side.onnx`` (denominations in its metadata).

    ``init``: a ``chip_side.pt`` of an earlier run to start from, or a committed chip-side ``.onnx`` (its net
    ``init_net`` of a mean: :func:`nets_from_onnx`); a start whose batch norms are folded (an ``.onnx``, or a net
    :func:`unpack_chip_side` wrote) keeps their statistics frozen while training; ``lr``: the peak learning rate;
    ``thin_repeat``: strips whose side shows under :data:`THIN_BAND_PX` px per chip are trained this many times
    more per epoch (thin sides, where the reader abstains most: overhead spots of a 4K camera);
    ``uhd_share``: the share of training, validation and evaluation frames rendered at 3840 x 2160;
    ``player_share``, ``payout_share``: the shares of their stacks stacked as players stack a wager and as a dealer
    stacks a payout (:func:`chip_scene`); ``video_share``: the share of training and validation frames cut from as
    H.264 video shows them (:func:`make_strips`)."""
    import os

    import torch
    import torch.nn.functional as F

    from vision.card_reader import softmax
    from vision.chip_side import strips_to_blob
    from vision.chips import default_chip_set

    torch.set_num_threads(threads or os.cpu_count() or 1)
    denominations = [c.denomination for c in default_chip_set()]
    classes = 1 + len(denominations)
    net = chip_side_net(classes)
    frozen_bn = False
    if init is not None:  # before rendering: a wrong start fails at once
        if Path(init).suffix == ".onnx":
            nets = nets_from_onnx(Path(init), classes)
            if not 0 <= init_net < len(nets):
                raise ValueError(f"{init}: holds {len(nets)} nets, no net {init_net}")
            state = nets[init_net]
        else:
            state = torch.load(init, map_location="cpu")
        net.load_state_dict(state)
        frozen_bn = _folded(state)
    t0 = time.time()
    x, y, al, ppc = make_strips(frames, seed, uhd_share=uhd_share, player_share=player_share,
                                payout_share=payout_share, video_share=video_share, log=log)
    vx, vy, val, _ = make_strips(val_frames, seed + 1000, uhd_share=uhd_share, player_share=player_share,
                                 payout_share=payout_share, video_share=video_share, log=log)
    log(f"{len(x)} training strips, {len(vx)} validation strips, {time.time() - t0:.0f}s")
    if thin_repeat:
        thin = np.flatnonzero(ppc < THIN_BAND_PX)
        keep = np.concatenate([np.arange(len(x))] + [thin] * thin_repeat)
        x, y, al = x[keep], y[keep], al[keep]
        log(f"{len(thin)} thin-sided strips (< {THIN_BAND_PX} px per chip) repeated {thin_repeat}x: {len(x)} strips")
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    batch = max(1, min(256, len(x)))  # a smoke run renders fewer strips than one batch
    steps = epochs * max(1, len(x) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    rng = np.random.default_rng(seed)
    yb, ab = torch.from_numpy(y), torch.from_numpy(al)
    for epoch in range(epochs):
        net.train()
        if frozen_bn:
            for m in net.modules():
                if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
                    m.eval()  # folded into the convolutions: batch statistics would undo that
        order = rng.permutation(len(x))
        for k in range(len(x) // batch):
            idx = np.sort(order[k * batch:(k + 1) * batch])
            inp = torch.from_numpy(strips_to_blob(x[idx]))
            # brightness and colour cast, the same on both arcs: casino lighting is not the renderer's
            gain = torch.empty(len(idx), 3, 1, 1).uniform_(0.75, 1.2)
            inp = (inp * gain.repeat(1, 2, 1, 1)).clamp(0, 1)
            slots, aligned = net(inp)
            a = ab[idx]
            taught = a >= 0
            loss = F.binary_cross_entropy_with_logits(aligned[taught], a[taught])
            on = a == 1
            if on.any():
                loss = loss + F.cross_entropy(slots[on].reshape(-1, classes), yb[idx][on].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        log(f"chip-side epoch {epoch + 1}/{epochs} loss {loss.item():.3f} ({time.time() - t0:.0f}s)")
    net.eval()
    with torch.no_grad():
        outs = [net(torch.from_numpy(strips_to_blob(vx[k:k + 1024]))) for k in range(0, len(vx), 1024)]
    p = softmax(torch.cat([o[0] for o in outs]).numpy())
    pa = torch.sigmoid(torch.cat([o[1] for o in outs])).numpy()
    on = val == 1
    slot_acc = float((p[on].argmax(-1) == vy[on]).mean())
    taught = val >= 0
    aligned_acc = float(((pa[taught] >= 0.5) == (val[taught] == 1)).mean())
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), out_dir / "chip_side.pt")
    path = export_chip_side(net, out_dir / "chip_side.onnx", denominations)
    ev = evaluate_reader(path, val_frames, seed + 2000, uhd_share=uhd_share, player_share=player_share,
                         payout_share=payout_share, log=log)
    n = max(ev["stacks"], 1)
    run = ChipSideRun(frames, val_frames, seed, epochs, int(len(x)), round(time.time() - t0, 1), round(slot_acc, 4),
                      round(aligned_acc, 4), ev["stacks"], round(ev["exact"] / n, 4), round(ev["wrong"] / n, 4),
                      round(ev["abstained"] / n, 4), uhd_share, player_share, str(init or ""), init_net, thin_repeat,
                      payout_share, video_share)
    (out_dir / "chip_side.json").write_text(json.dumps(asdict(run), indent=2))
    log(f"chip side done: {json.dumps(asdict(run))}")
    return path, run


def export_chip_side(net, path: Path, denominations: list[int]) -> Path:
    """Export to ONNX (opset 18, batch and strip rows free: the base search reads strips of the bottom
    :data:`vision.chip_side.SEARCH_ROWS` rows) with the denominations in the metadata, and its search graph
    beside it (:func:`models.export.chip_side_search_graph`, :func:`vision.chip_side.search_graph_path`)."""
    import onnx
    import torch

    from vision.chip_side import ARC_POINTS, STRIP_CHANNELS, STRIP_ROWS

    dummy = torch.zeros(1, STRIP_CHANNELS, STRIP_ROWS, ARC_POINTS)
    torch.onnx.export(net, dummy, str(path), input_names=["strips"], output_names=["slot_logits", "aligned_logit"],
                      dynamic_axes={"strips": {0: "batch", 2: "rows"}, "slot_logits": {0: "batch", 1: "slots"}, "aligned_logit": {0: "batch"}},
                      opset_version=18, dynamo=False)
    model = onnx.load(str(path))
    entry = model.metadata_props.add()
    entry.key, entry.value = "denominations", json.dumps(denominations)
    onnx.save(model, str(path))
    from models.export import chip_side_search_graph
    from vision.chip_side import search_graph_path

    chip_side_search_graph(path, search_graph_path(path))  # the base search's graph, beside it
    return path


if __name__ == "__main__":
    import sys

    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".cache/chipside")
    train_chip_side(out, frames=int(sys.argv[2]) if len(sys.argv) > 2 else 2000,
                    epochs=int(sys.argv[3]) if len(sys.argv) > 3 else 20,
                    init=Path(sys.argv[4]) if len(sys.argv) > 4 else None,
                    lr=float(sys.argv[5]) if len(sys.argv) > 5 else 3e-3,
                    log=lambda m: print(m, file=sys.stderr, flush=True))
