"""What every deck design offers the renderer: card faces with alpha and the two corner-index boxes.

Card frame: millimetres on the upright face, origin at its top-left corner, ``u``
right (0..63.5), ``v`` down (0..88.9).  Textures are drawn at
:data:`TEXTURE_PX_PER_MM`; smaller copies (a mip chain) serve far cameras so the
warp never minifies by more than 2x (which would alias the small indices).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from datasets.scene import CARD_H_MM, CARD_W_MM

TEXTURE_PX_PER_MM = 8.0
"""Resolution of the largest card textures (508 x 711 px): enough for a 4K close view."""

MIP_LEVELS: tuple[float, ...] = (8.0, 4.0, 2.0, 1.0)
"""Texture resolutions kept, px per mm."""

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class CornerIndices:
    """The two printed corner indices of a face, card mm (x1, y1, x2, y2).

    ``top_left`` reads upright; ``bottom_right`` is the same index turned 180 degrees.
    """

    top_left: Box
    bottom_right: Box

    def as_list(self) -> list[Box]:
        return [self.top_left, self.bottom_right]


def rounded_alpha(h: int, w: int, radius_px: float) -> np.ndarray:
    """(h, w) uint8 alpha of a card with rounded corners (255 inside, anti-aliased edge)."""
    a = np.zeros((h, w), np.uint8)
    r = max(1.0, radius_px)
    k = 16
    x0, y0, x1, y1 = 0.0, 0.0, w - 1.0, h - 1.0
    rect = lambda xa, ya, xb, yb: cv2.rectangle(a, (int(xa * k), int(ya * k)), (int(xb * k), int(yb * k)), 255, -1, cv2.LINE_AA, 4)  # noqa: E731
    rect(x0 + r, y0, x1 - r, y1)
    rect(x0, y0 + r, x1, y1 - r)
    for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
        cv2.circle(a, (int(cx * k), int(cy * k)), int(r * k), 255, -1, cv2.LINE_AA, 4)
    return a


def texture_size(px_per_mm: float) -> tuple[int, int]:
    """(width, height) px of a card texture at ``px_per_mm``."""
    return int(round(CARD_W_MM * px_per_mm)), int(round(CARD_H_MM * px_per_mm))


class Deck:
    """A deck design: faces of the 52 cards, their corner indices, and a memo of textures.

    Subclasses implement :meth:`_draw_face` (BGR at :data:`TEXTURE_PX_PER_MM`) and
    :meth:`index_boxes`.
    """

    name: str = ""
    kind: str = "procedural"
    corner_radius_mm: float = 3.0

    def __init__(self) -> None:
        self._faces: dict[tuple[str, float], np.ndarray] = {}
        self._full_order: list[str] = []

    def _draw_face(self, card: str) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def index_boxes(self, card: str) -> CornerIndices:  # pragma: no cover - abstract
        """The two corner-index boxes of ``card`` (card mm)."""
        raise NotImplementedError

    def suit_boxes(self, card: str) -> CornerIndices | None:
        """The suit symbol's box within each corner index of ``card`` (card mm), or ``None`` where the design does
        not know it (an SVG deck's index is found as one block of ink).

        A corner whose rank shows and whose suit lies under the next card of a hand names a rank, not a card: the
        renderer's truth reports how much of each suit shows (:attr:`datasets.render.CardTruth.suit_visible`).
        """
        return None

    _FULL_KEPT = 12  # full-size faces kept per deck (1.4 MB each); the smaller levels are all kept

    def face(self, card: str, px_per_mm: float = TEXTURE_PX_PER_MM) -> np.ndarray:
        """The face of ``card`` as (H, W, 4) uint8 BGRA (alpha: rounded corners), at the mip level
        nearest above ``px_per_mm``; its true scale is ``W / CARD_W_MM`` px per mm."""
        level = mip_level(px_per_mm)
        key = (card, level)
        tex = self._faces.get(key)
        if tex is not None:
            return tex
        full = self._faces.get((card, MIP_LEVELS[0]))
        if full is None:
            drawn = self._draw_face(card)
            w, h = texture_size(MIP_LEVELS[0])
            if drawn.shape[:2] != (h, w):
                drawn = cv2.resize(drawn, (w, h), interpolation=cv2.INTER_AREA)
            if drawn.shape[2] == 4:
                full = np.ascontiguousarray(drawn)  # the art brings its own outline
            else:
                full = np.dstack([drawn, rounded_alpha(h, w, self.corner_radius_mm * MIP_LEVELS[0])])
            full.setflags(write=False)
            # every smaller level at once, each from the one above (a mip chain)
            prev = full
            for lv in MIP_LEVELS[1:]:
                if (card, lv) not in self._faces:
                    w, h = texture_size(lv)
                    prev = cv2.resize(prev, (w, h), interpolation=cv2.INTER_AREA)
                    prev.setflags(write=False)
                    self._faces[(card, lv)] = prev
                else:
                    prev = self._faces[(card, lv)]
            self._faces[(card, MIP_LEVELS[0])] = full
            self._full_order.append(card)
            if len(self._full_order) > self._FULL_KEPT:
                self._faces.pop((self._full_order.pop(0), MIP_LEVELS[0]), None)
        return full if level == MIP_LEVELS[0] else self._faces[key]


def mip_level(px_per_mm: float) -> float:
    """The smallest kept texture resolution at or above ``px_per_mm`` (the largest if none)."""
    for level in reversed(MIP_LEVELS):
        if level >= px_per_mm:
            return level
    return MIP_LEVELS[0]
