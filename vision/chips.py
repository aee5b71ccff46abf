"""Chip stacks: denomination from colour, count from the stack's visible side — or null with a note.

* **Denomination**: each chip's colour is matched to the table's chip set
  (colour -> denomination, from the table file or :mod:`calibration.chipset`) by
  distance in CIE Lab; a colour far from every chip in the set is null.
* **Count**: needs the camera's pose (a calibration with a camera) to know how
  many pixels one chip's thickness spans on the stack's side at that spot.  Where
  that is under ``min_px_per_chip`` (straight overhead, low resolution) or no pose
  is known, ``count`` and ``value`` are null and ``note`` says why: never a guess.
* **Layers**: the side is cut into chip-thick slices from the bottom, each slice
  coloured, runs of one denomination form a layer (bottom to top).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

CHIP_THICKNESS_MM = 3.3
CHIP_DIAMETER_MM = 39.0
MIN_PX_PER_CHIP = 1.6
"""Least pixels per chip on the side for a count at all.  From here to :data:`SURE_PX_PER_CHIP` the chip-side
reader asks more of every slot (:data:`vision.chip_side.THIN_SIDE_THRESHOLD`); below it, too few to count
(nineteenth session, fresh renders with the base at the spot's centre: 1.4-1.6 px per chip read 12 wrong of 78
stacks even at 0.95)."""
SURE_PX_PER_CHIP = 2.0
"""The issue's 2 px per chip: at and above it the side is read at the reader's own threshold, and the issue's chip
target (95 % exact, the rest abstain) is measured on these stacks."""
MAX_LAB_DISTANCE = 40.0
"""Largest Lab distance from a chip-set colour still read as that denomination."""
MAX_WIDTH_ERROR = 0.2
"""Largest relative difference between the box's width and one chip's projected width for a count: a wider or
narrower box is two stacks, a stack cut by a card or a loose detection, and its height says nothing about the count."""
MAX_COUNT_RESIDUE = 0.35
"""Largest distance, in chips, between the side's height and a whole number of chips for a count."""
MIN_PX_PER_CHIP_FROM_BOX = 4.0
"""Least pixels per chip for a count taken from a detector box's height: stage 1's box edges are good to a
pixel or two, which at 2-3 px per chip moves the count by one (4 -> 3, 5 -> 9 measured on rendered hold-out
frames), so flatter views abstain here; :mod:`vision.chip_side` counts them from the pixels instead."""


@dataclass(frozen=True)
class ChipColour:
    """One chip of the set: ``denomination`` dollars, body colour ``rgb``."""

    denomination: int
    rgb: tuple[int, int, int]


@dataclass
class StackReading:
    """What the camera can tell about one stack (contract ``chips[]`` item)."""

    count: int | None
    value: int | None
    layers: list[dict] = field(default_factory=list)
    note: str | None = None
    px_per_chip: float | None = None

    def to_json(self) -> dict:
        out = {"count": self.count, "value": self.value, "layers": self.layers}
        if self.note:
            out["note"] = self.note
        return out


def default_chip_set() -> list[ChipColour]:
    """The default chip set of :mod:`calibration.chipset` ($1 white, $5 red, $25 green, $100 black, ...)."""
    from calibration.chipset import default_chipset

    return [ChipColour(int(k.denomination), tuple(int(c) for c in k.body_rgb)) for k in default_chipset().chips]


def parse_chip_set(obj, base: Path | None = None) -> list[ChipColour]:
    """A table file's ``chips``: a chip-set YAML path (relative to ``base``), or a mapping colour name -> denomination.

    Raises:
        ValueError (``calibration.chipset.ChipSetError``): unknown colour or unreadable file.
    """
    from calibration.chipset import ChipSet, load_chipset

    if isinstance(obj, (str, Path)):
        path = Path(obj)
        cs = load_chipset(path if path.is_absolute() or base is None else base / path)
    elif isinstance(obj, dict) and "chips" in obj:
        cs = ChipSet.model_validate(obj)
    elif isinstance(obj, dict):
        cs = ChipSet.model_validate({"chips": [{"colour": k, "denomination": v} for k, v in obj.items()]})
    else:
        cs = ChipSet.model_validate({"chips": list(obj)})
    return [ChipColour(int(k.denomination), tuple(int(c) for c in k.body_rgb)) for k in cs.chips]


def _lab(rgb: np.ndarray) -> np.ndarray:
    px = np.asarray(rgb, np.uint8).reshape(-1, 1, 3)
    return cv2.cvtColor(px, cv2.COLOR_RGB2LAB).reshape(-1, 3).astype(np.float32)


def classify_colour(rgb: np.ndarray, chip_set: list[ChipColour]) -> tuple[int | None, float]:
    """The denomination whose colour is nearest ``rgb`` in Lab, with the distance; None beyond the limit."""
    ref = _lab(np.array([c.rgb for c in chip_set]))
    d = np.linalg.norm(ref - _lab(rgb)[0], axis=1)
    k = int(d.argmin())
    return (chip_set[k].denomination if d[k] <= MAX_LAB_DISTANCE else None), float(d[k])


_RIM_MM = np.column_stack([CHIP_DIAMETER_MM / 2 * np.cos(np.linspace(0, 2 * np.pi, 24)),
                           CHIP_DIAMETER_MM / 2 * np.sin(np.linspace(0, 2 * np.pi, 24)), np.zeros(24)])
"""(24, 3) mm: a chip's rim about its centre on the felt."""


def chip_geometry(camera, base_mm: tuple[float, float]) -> tuple[float, float, float]:
    """(px per chip on the side, top ellipse height px, chip width px) of a chip lying at ``base_mm`` (mm)."""
    x, y = base_mm
    pts = np.empty((26, 3))  # the base, one chip up, then the chip's rim on the felt: projected in one call
    pts[:2] = (x, y, 0.0)
    pts[1, 2] = -CHIP_THICKNESS_MM
    pts[2:] = _RIM_MM
    pts[2:, 0] += x
    pts[2:, 1] += y
    p = camera.project(pts)
    ppc = float(np.linalg.norm(p[1] - p[0]))
    ring = p[2:]
    return ppc, float(ring[:, 1].max() - ring[:, 1].min()), float(ring[:, 0].max() - ring[:, 0].min())


def uncountable_spots(layout, camera) -> dict[str, float]:
    """{zone name: px per chip} of the betting spots whose stacks this camera shows too flat to count.

    A wager stands on its spot's centre, and there the side of a chip spans ``chip_geometry(camera, centre)[0]``
    px; under :data:`MIN_PX_PER_CHIP` the reader abstains on every stack by rule, so the spot's wagers are never
    valued from this camera, round after round (a property of where the camera hangs, not of a moment).

    Args:
        layout: a :class:`calibration.layout.Layout` (its spots: zones with a printed circle, centres in mm).
        camera: the table's :class:`calibration.camera.PinholeCamera`, or None (no pose: every stack is counted
            from its box alone, so nothing is called uncountable here).
    """
    if camera is None:
        return {}
    out = {}
    for z in layout.spots():
        ppc = chip_geometry(camera, (float(z.circle.center[0]), float(z.circle.center[1])))[0]
        if ppc < MIN_PX_PER_CHIP:
            out[z.name] = round(ppc, 2)
    return out


def read_stack(image: np.ndarray, box: np.ndarray, chip_set: list[ChipColour], camera=None,
               base_mm: tuple[float, float] | None = None) -> StackReading:
    """Read one chip stack.

    Args:
        image: (H, W, 3) uint8 BGR frame.
        box: (4,) xyxy stack box, image pixels.
        chip_set: the table's chips.
        camera: a :class:`calibration.camera.PinholeCamera` (pose known) or None.
        base_mm: the stack's base on the layout, mm (needed with ``camera``).

    Returns:
        A :class:`StackReading`; count/value null with a note where the view cannot tell.
    """
    h_img, w_img = image.shape[:2]
    x1, y1, x2, y2 = [int(round(v)) for v in np.clip(box, 0, [w_img, h_img, w_img, h_img])]
    if x2 - x1 < 3 or y2 - y1 < 3:
        return StackReading(None, None, [], note="stack box too small to read")
    patch = image[y1:y2, x1:x2]
    bw, bh = x2 - x1, y2 - y1
    top_rgb = np.median(patch[bh // 4: max(bh // 4 + 1, bh // 2), bw // 4: max(bw // 4 + 1, 3 * bw // 4)]
                        .reshape(-1, 3), 0)[::-1]
    top_denom, _ = classify_colour(top_rgb, chip_set)
    if camera is None or base_mm is None:
        layer = [{"denomination": top_denom, "count": None}]
        return StackReading(None, None, layer, note="no camera pose in the calibration: chips on the side cannot be counted")
    ppc, ellipse_h, chip_w = chip_geometry(camera, base_mm)
    if ppc < MIN_PX_PER_CHIP:
        return StackReading(None, None, [{"denomination": top_denom, "count": None}], px_per_chip=ppc,
                            note=f"the side shows {ppc:.1f} px per chip (< {MIN_PX_PER_CHIP:g}): too few to count")
    if ppc < MIN_PX_PER_CHIP_FROM_BOX:
        return StackReading(None, None, [{"denomination": top_denom, "count": None}], px_per_chip=ppc,
                            note=f"the side shows {ppc:.1f} px per chip: too few to count from the box's height")
    if abs(bw - chip_w) > MAX_WIDTH_ERROR * chip_w:
        return StackReading(None, None, [{"denomination": top_denom, "count": None}], px_per_chip=ppc,
                            note=f"the box is {bw} px wide where one chip spans {chip_w:.0f} px: not one whole stack, "
                                 "cannot count")
    side_h = bh - ellipse_h
    n = int(round(side_h / ppc))
    if n >= 1 and abs(side_h / ppc - n) > MAX_COUNT_RESIDUE:
        return StackReading(None, None, [{"denomination": top_denom, "count": None}], px_per_chip=ppc,
                            note=f"the side spans {side_h / ppc:.2f} chips, not a whole number: cannot count")
    if n < 1:
        return StackReading(None, None, [{"denomination": top_denom, "count": None}], px_per_chip=ppc,
                            note="the stack's side is not visible: cannot count")
    # colour each chip-thick slice of the side, bottom up, along the box's central column
    cx0, cx1 = x1 + bw // 3, x2 - bw // 3
    denoms = []
    for i in range(n):
        yb = y2 - ellipse_h / 2 - i * ppc
        ya, yz = int(round(yb - ppc * 0.8)), int(round(yb - ppc * 0.2))
        ya, yz = max(0, ya), min(h_img, max(yz, ya + 1))
        sl = image[ya:yz, cx0:max(cx1, cx0 + 1)].reshape(-1, 3)
        d, _ = classify_colour(np.median(sl, 0)[::-1], chip_set) if len(sl) else (None, 0.0)
        denoms.append(d)
    layers: list[dict] = []
    for d in denoms:
        if layers and layers[-1]["denomination"] == d:
            layers[-1]["count"] += 1
        else:
            layers.append({"denomination": d, "count": 1})
    if any(layer["denomination"] is None for layer in layers):
        return StackReading(n, None, layers, px_per_chip=ppc, note="a chip's colour matches no chip of the set")
    if top_denom is not None and top_denom != layers[-1]["denomination"]:
        return StackReading(n, None, layers, px_per_chip=ppc,
                            note="the top chip's face and the top of the side disagree on the colour")
    value = int(sum(layer["denomination"] * layer["count"] for layer in layers))
    return StackReading(n, value, layers, px_per_chip=ppc)
