"""Procedural casino chips: the face texture (edge spots, inlay, printed value) and the side colours.

A chip is a disc :data:`~datasets.scene.CHIP_DIAMETER_MM` wide and
:data:`~datasets.scene.CHIP_THICKNESS_MM` thick; its body colour comes from the
chip set (:mod:`calibration.chipset`).  The renderer (:mod:`datasets.render`)
stacks them as 3-D cylinders and lays :func:`chip_face` on the top chip.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.chipset import ChipKind
from datasets.cards.glyphs import FontSpec, paste, text_mask
from datasets.scene import CHIP_DIAMETER_MM

CHIP_TEXTURE_PX_PER_MM = 6.0
"""Resolution of the chip face textures (234 px across)."""


@dataclass(frozen=True)
class ChipDesign:
    """How a casino's chips are decorated (the body colour comes from the chip set).

    Attributes:
        name: stable design name.
        spots: number of edge inserts round the rim.
        spot_deg: angular width of one edge insert, degrees.
        spot_bgr: colour of the inserts on dark and mid bodies; light bodies get ``spot_alt_bgr``.
        inlay_frac: radius of the printed centre inlay as a fraction of the chip radius.
        inlay_bgr: inlay colour.
        ring: a thin printed ring just inside the rim.
        font: font of the printed value.
    """

    name: str
    spots: int = 6
    spot_deg: float = 16.0
    spot_bgr: tuple[int, int, int] = (240, 240, 240)
    spot_alt_bgr: tuple[int, int, int] = (150, 60, 30)
    inlay_frac: float = 0.62
    inlay_bgr: tuple[int, int, int] = (232, 238, 240)
    ring: bool = True
    font: FontSpec = FontSpec("hershey-duplex", 0.12)


CHIP_DESIGNS: tuple[ChipDesign, ...] = (
    ChipDesign("chip-classic"),
    ChipDesign("chip-eight-spot", spots=8, spot_deg=12.0, inlay_frac=0.58, font=FontSpec("roboto-bold")),
    ChipDesign("chip-wide-spot", spots=4, spot_deg=28.0, inlay_frac=0.66, spot_alt_bgr=(40, 40, 170), ring=False,
               font=FontSpec("lato-black")),
    ChipDesign("chip-cream-inlay", spots=6, spot_deg=20.0, inlay_bgr=(200, 228, 238), font=FontSpec("caladea-bold")),
)


def chip_design(name: str) -> ChipDesign:
    """The chip design called ``name``; raises ``ValueError`` naming the known ones."""
    for d in CHIP_DESIGNS:
        if d.name == name:
            return d
    raise ValueError(f"unknown chip design {name!r}; known: {', '.join(d.name for d in CHIP_DESIGNS)}")


def _bgr(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    return (int(rgb[2]), int(rgb[1]), int(rgb[0]))


def side_colours(kind: ChipKind, design: ChipDesign) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(body, edge-spot) colours of the chip's side, BGR."""
    body = _bgr(kind.body_rgb)
    light = sum(kind.body_rgb) / 3 > 170
    return body, design.spot_alt_bgr if light else design.spot_bgr


def value_text(denomination: int) -> str:
    """What a chip prints for ``denomination`` dollars (``1000`` -> ``1K``)."""
    return f"{denomination // 1000}K" if denomination >= 1000 and denomination % 1000 == 0 else str(denomination)


@functools.lru_cache(maxsize=64)
def chip_face(kind: ChipKind, design: ChipDesign) -> np.ndarray:
    """The top face of one chip: (S, S, 4) uint8 BGRA, alpha a disc, at :data:`CHIP_TEXTURE_PX_PER_MM`.

    The texture spans exactly the chip diameter; its centre is the chip centre.
    """
    s = CHIP_TEXTURE_PX_PER_MM
    S = int(round(CHIP_DIAMETER_MM * s))
    R = S / 2
    body, spot = side_colours(kind, design)
    img = np.empty((S, S, 3), np.uint8)
    img[:] = body
    k = 16
    c = (int(R * k), int(R * k))
    for i in range(design.spots):
        a0 = 360.0 * i / design.spots
        pts = []
        for a in np.linspace(a0 - design.spot_deg / 2, a0 + design.spot_deg / 2, 8):
            pts.append((R + R * math.cos(math.radians(a)), R + R * math.sin(math.radians(a))))
        for a in np.linspace(a0 + design.spot_deg / 2, a0 - design.spot_deg / 2, 8):
            pts.append((R + R * 0.78 * math.cos(math.radians(a)), R + R * 0.78 * math.sin(math.radians(a))))
        cv2.fillPoly(img, [np.round(np.array(pts) * k).astype(np.int32)], spot, cv2.LINE_AA, 4)
    if design.ring:
        cv2.circle(img, c, int(R * 0.74 * k), spot, max(1, int(0.5 * s)), cv2.LINE_AA, 4)
    cv2.circle(img, c, int(R * design.inlay_frac * k), design.inlay_bgr, -1, cv2.LINE_AA, 4)
    text = value_text(kind.denomination)
    ink = body if sum(kind.body_rgb) / 3 < 170 else design.spot_alt_bgr
    th = int(R * design.inlay_frac * (0.62 if len(text) <= 2 else 0.5))
    m = text_mask(text, design.font, th, max_width_px=int(R * design.inlay_frac * 1.6))
    paste(img, m, ink, int(R - m.shape[1] / 2), int(R - m.shape[0] / 2))
    alpha = np.zeros((S, S), np.uint8)
    cv2.circle(alpha, c, int((R - 0.5) * k), 255, -1, cv2.LINE_AA, 4)
    out = np.dstack([img, alpha])
    out.setflags(write=False)
    return out
