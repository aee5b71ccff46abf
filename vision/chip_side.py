"""Chip stacks counted from their side: a strip unrolled along the calibrated vertical, read slot by slot.

With the camera's pose known, the front of a stack standing at ``base_mm`` is a patch of a
cylinder of known radius whose image is fixed by the calibration.  :func:`side_strip`
samples that patch into a small upright image, ``ROWS_PER_CHIP`` rows per chip thickness
from just below the felt to ``SLOTS`` chips up, across the front arc facing the camera.
:class:`ChipSideReader` (an ONNX model trained on rendered stacks, ``models/chip_side.onnx``)
gives, for each chip slot bottom-up, the probability that it holds a chip of each
denomination of the default chip set or nothing.  The count is the number of slots before
the first empty one; a slot read below ``threshold``, or a chip above an empty slot, makes
the stack unreadable (count and value null), never a guess.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

SLOTS = 16
"""Chip slots read per stack, bottom up (a taller stack is read as unreadable)."""
ROWS_PER_CHIP = 4
"""Strip rows per chip thickness."""
ROWS_BELOW = 2
"""Strip rows below the felt (the felt in front of the stack's base)."""
ARC_POINTS = 12
"""Strip columns across the stack's front."""
ARC_RAD = 0.9
"""Half-width of the front arc sampled, radians either side of the direction to the camera."""
STRIP_ROWS = ROWS_BELOW + ROWS_PER_CHIP * SLOTS

DEFAULT_CHIP_SIDE = Path(__file__).resolve().parents[1] / "models" / "chip_side.onnx"
"""The committed chip-side model."""


def side_strip(image: np.ndarray, camera, base_mm, radius_mm: float | None = None) -> np.ndarray:
    """Unroll the front of a stack standing at ``base_mm`` into an upright strip.

    Args:
        image: (H, W, 3) uint8 BGR frame.
        camera: :class:`calibration.camera.PinholeCamera` with the table's pose.
        base_mm: (x, y) mm of the stack's base centre on the layout.
        radius_mm: chip radius (default: :data:`vision.chips.CHIP_DIAMETER_MM` / 2).

    Returns:
        (STRIP_ROWS, ARC_POINTS, 3) uint8 BGR, row 0 at the bottom (below the felt), each
        chip thickness ``ROWS_PER_CHIP`` rows; pixels outside the frame replicate its edge.
    """
    from vision.chips import CHIP_DIAMETER_MM, CHIP_THICKNESS_MM

    r = (CHIP_DIAMETER_MM / 2) if radius_mm is None else radius_mm
    b = np.asarray(base_mm, np.float64)
    front = camera.center_mm[:2] - b
    fa = float(np.arctan2(front[1], front[0]))
    ang = fa + np.linspace(-ARC_RAD, ARC_RAD, ARC_POINTS)
    z = (ROWS_BELOW - np.arange(STRIP_ROWS) - 0.5) * CHIP_THICKNESS_MM / ROWS_PER_CHIP  # up is -z
    pts = np.stack([np.broadcast_to(b[0] + r * np.cos(ang), (STRIP_ROWS, ARC_POINTS)),
                    np.broadcast_to(b[1] + r * np.sin(ang), (STRIP_ROWS, ARC_POINTS)),
                    np.broadcast_to(z[:, None], (STRIP_ROWS, ARC_POINTS))], -1)
    uv = camera.project(pts.reshape(-1, 3)).reshape(STRIP_ROWS, ARC_POINTS, 2).astype(np.float32)
    uv = np.nan_to_num(uv, nan=-1.0)
    return cv2.remap(image, uv[..., 0], uv[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


class ChipSideReader:
    """Counts and values chip stacks from :func:`side_strip` with the committed ONNX model.

    Args:
        model: path of ``chip_side.onnx`` (its metadata names the denominations it reads).
        threads: onnxruntime intra-op threads.
        threshold: least probability of every slot's reading; below it the stack is unreadable.

    Raises:
        ModelFileError: the model is missing or corrupt.
    """

    def __init__(self, model: str | Path = DEFAULT_CHIP_SIDE, threads: int | None = None,
                 threshold: float = 0.9) -> None:
        from vision.onnx_runtime import open_session

        self.session = open_session(model, threads=threads)
        meta = self.session.get_modelmeta().custom_metadata_map
        self.denominations: list[int] = json.loads(meta.get("denominations", "[]"))
        self.threshold = threshold
        self.input_name = self.session.get_inputs()[0].name

    def slots(self, strips: list[np.ndarray]) -> np.ndarray:
        """(N, SLOTS, 1 + D) float32 probabilities per slot: empty, then each denomination."""
        if not strips:
            return np.zeros((0, SLOTS, 1 + len(self.denominations)), np.float32)
        from vision.card_reader import crops_to_blob, softmax

        logits = self.session.run(None, {self.input_name: crops_to_blob(strips)})[0]
        return softmax(logits).astype(np.float32)

    def read(self, image: np.ndarray, camera, base_mm, search_mm: float = 5.0):
        """Read one stack standing near ``base_mm`` (mm): a :class:`vision.chips.StackReading`.

        The base is a guess (a spot's centre, or a box's); the strip is read there and
        ``search_mm`` towards, away from and across the camera, and the most confident
        reading is kept (its least sure slot decides).
        """
        from vision.chips import chip_geometry

        b = np.asarray(base_mm, np.float64)
        front = camera.center_mm[:2] - b
        front = front / max(float(np.linalg.norm(front)), 1e-6)
        side = np.array([-front[1], front[0]])
        bases = [b] + [b + search_mm * v for v in (front, -front, side, -side)]
        p = self.slots([side_strip(image, camera, c) for c in bases])
        best = max(range(len(bases)), key=lambda i: _confidence(p[i]))
        ppc = chip_geometry(camera, tuple(bases[best]))[0]
        return reading_from_slots(p[best], self.denominations, self.threshold, ppc)


def _confidence(p: np.ndarray) -> float:
    """The least top probability among the slots up to and including the first empty one."""
    top = p.argmax(1)
    n = int(np.argmax(top == 0)) if (top == 0).any() else len(top) - 1
    return float(p[:n + 1].max(1).min())


def reading_from_slots(p: np.ndarray, denominations: list[int], threshold: float, ppc: float | None = None):
    """A :class:`vision.chips.StackReading` from (SLOTS, 1 + D) slot probabilities, or null with a note."""
    from vision.chips import StackReading

    top = p.argmax(1)
    conf = p.max(1)
    n = int(np.argmax(top == 0)) if (top == 0).any() else SLOTS
    if n == SLOTS:
        return StackReading(None, None, [], px_per_chip=ppc, note=f"taller than {SLOTS} chips: cannot count")
    if (top[n:] != 0).any():
        return StackReading(None, None, [], px_per_chip=ppc, note="a chip seen above an empty slot: cannot count")
    if (conf[:n + 1] < threshold).any():
        return StackReading(None, None, [], px_per_chip=ppc,
                            note=f"a chip slot read at {conf[:n + 1].min():.2f} (< {threshold:g}): cannot count")
    if n == 0:
        return StackReading(None, None, [], px_per_chip=ppc, note="no chip on the side where the stack was found")
    layers: list[dict] = []
    for k in top[:n]:
        d = denominations[int(k) - 1]
        if layers and layers[-1]["denomination"] == d:
            layers[-1]["count"] += 1
        else:
            layers.append({"denomination": d, "count": 1})
    value = int(sum(layer["denomination"] * layer["count"] for layer in layers))
    return StackReading(n, value, layers, px_per_chip=ppc)
