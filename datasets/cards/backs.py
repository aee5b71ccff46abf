"""Card backs: several colours and patterns, each a stable name.

A back is what a face-down card (label ``BACK``) shows; detectors must learn
"a card back" rather than one colour, so the training images draw all of them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from datasets.cards.deck import MIP_LEVELS, TEXTURE_PX_PER_MM, mip_level, rounded_alpha, texture_size


@dataclass(frozen=True)
class BackDesign:
    """One card back: ``colour`` BGR, ``pattern`` (``lattice``, ``dots``, ``rings``, ``plain``), white margin mm."""

    name: str
    colour: tuple[int, int, int]
    pattern: str = "lattice"
    margin_mm: float = 3.5


BACK_DESIGNS: tuple[BackDesign, ...] = (
    BackDesign("back-red-lattice", (40, 40, 180)),
    BackDesign("back-blue-lattice", (150, 70, 30)),
    BackDesign("back-green-dots", (60, 120, 30), "dots"),
    BackDesign("back-black-rings", (35, 30, 30), "rings"),
    BackDesign("back-purple-lattice", (120, 40, 110), "lattice", 2.5),
    BackDesign("back-orange-plain", (40, 120, 220), "plain", 4.0),
    BackDesign("back-maroon-dots", (40, 30, 120), "dots", 0.0),
    BackDesign("back-navy-rings", (90, 40, 20), "rings", 3.0),
)


def list_back_designs(include_svg: bool = True) -> list[str]:
    """Names of every card back: the procedural ones, then SVG backs from ``../shared/data`` where present."""
    names = [b.name for b in BACK_DESIGNS]
    if include_svg:
        from datasets.cards.svg_decks import available_svg_backs

        names += available_svg_backs()
    return names


@functools.lru_cache(maxsize=64)
def _back_full(name: str) -> np.ndarray:
    if name.startswith("back-svg-"):
        from datasets.cards.svg_decks import svg_back

        return svg_back(name)
    design = next((b for b in BACK_DESIGNS if b.name == name), None)
    if design is None:
        raise ValueError(f"unknown card back {name!r}; known: {', '.join(list_back_designs())}")
    s = TEXTURE_PX_PER_MM
    w, h = texture_size(s)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = (245, 247, 248)
    m = int(round(design.margin_mm * s))
    inner = img[m : h - m, m : w - m]
    inner[:] = design.colour
    light = tuple(int(min(255, c * 0.55 + 255 * 0.45)) for c in design.colour)
    ih, iw = inner.shape[:2]
    step = int(round(4.0 * s))
    if design.pattern == "lattice":
        for k in range(-ih, iw + ih, step):
            cv2.line(inner, (k, 0), (k + ih, ih), light, max(1, int(0.35 * s)), cv2.LINE_AA)
            cv2.line(inner, (k, ih), (k + ih, 0), light, max(1, int(0.35 * s)), cv2.LINE_AA)
    elif design.pattern == "dots":
        for yy in range(step // 2, ih, step):
            for xx in range(step // 2 + (step // 2 if (yy // step) % 2 else 0), iw, step):
                cv2.circle(inner, (xx, yy), max(1, int(0.8 * s)), light, -1, cv2.LINE_AA)
    elif design.pattern == "rings":
        for r in range(step, max(ih, iw), step):
            cv2.ellipse(inner, (iw // 2, ih // 2), (r, int(r * 1.3)), 0, 0, 360, light, max(1, int(0.3 * s)), cv2.LINE_AA)
    if design.pattern != "plain":
        cv2.rectangle(inner, (int(s), int(s)), (iw - int(s), ih - int(s)), light, max(1, int(0.6 * s)), cv2.LINE_AA)
    alpha = rounded_alpha(h, w, 3.0 * s)
    out = np.dstack([img, alpha])
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=128)
def back_texture(name: str, px_per_mm: float = TEXTURE_PX_PER_MM) -> np.ndarray:
    """The back ``name`` as (H, W, 4) uint8 BGRA at the mip level nearest above ``px_per_mm``.

    Raises:
        ValueError: for an unknown back name.
    """
    level = mip_level(px_per_mm)
    full = _back_full(name)
    if level == MIP_LEVELS[0]:
        return full
    w, h = texture_size(level)
    out = cv2.resize(full, (w, h), interpolation=cv2.INTER_AREA)
    out.setflags(write=False)
    return out
