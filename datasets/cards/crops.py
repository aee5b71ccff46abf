"""Corner-index crops for the rank/suit classifier: one printed index of any card in any design.

A crop imitates what the detector hands the classifier: the box round one corner
index, a little loose or tight, turned as the card lay under the camera, seen at
20-60 px, lit, blurred and compressed like a frame.  Never mirrored (a mirrored
7 or J is not a card).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from datasets.cards import get_deck
from datasets.effects import glare_patch
from datasets.scene import CARD_W_MM
from rules.cards import parse_card

_FELTS = ((60, 96, 22), (58, 110, 18), (110, 60, 20), (30, 20, 110), (44, 40, 40), (226, 232, 232), (60, 100, 150))


def render_index_crop(card: str, design: str, rng: np.random.Generator | int | None = None, size_px: int = 64,
                      upright: bool = False, corner: int | None = None, margin: tuple[float, float] = (0.05, 0.35),
                      photometric: bool = True) -> np.ndarray:
    """One corner index of ``card`` in deck ``design`` as a square BGR crop.

    Args:
        card: the card, e.g. ``"10H"``.
        design: a deck design name (:func:`datasets.cards.list_deck_designs`).
        rng: randomness (a Generator, a seed, or ``None`` for seed 0).
        size_px: side of the output square, px.
        upright: keep the index upright (else it turns by any angle, as cards lie at any angle).
        corner: 0 = top-left index, 1 = bottom-right index (turned 180 degrees on the card); ``None`` = either.
        margin: range of extra room round the index box, as a fraction of its size on each side
            (a loose or tight detector box).
        photometric: vary light, colour, blur, noise and JPEG quality.

    Returns:
        (size_px, size_px, 3) uint8 BGR.

    Raises:
        ValueError: for an unknown design; UnknownCardError for a bad card.
    """
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(0 if rng is None else rng)
    card = str(parse_card(card))
    deck = get_deck(design)
    boxes = deck.index_boxes(card).as_list()
    k = int(rng.integers(2)) if corner is None else int(corner)
    x1, y1, x2, y2 = boxes[k]
    bw, bh = x2 - x1, y2 - y1
    # the index's own up direction: the bottom-right index is the top-left one turned 180 degrees
    turn = 0.0 if upright else float(rng.uniform(0, 2 * math.pi))
    angle = (0.0 if k == 0 else math.pi) + turn + float(rng.normal(0, 0.05))
    # a detector's box is axis-aligned round the turned index: the crop spans that box
    side = max(bw * abs(math.cos(turn)) + bh * abs(math.sin(turn)), bw * abs(math.sin(turn)) + bh * abs(math.cos(turn)))
    px_per_mm = size_px / (side * (1 + 2 * margin[1]))
    face = deck.face(card, px_per_mm * 1.5)
    s = face.shape[1] / CARD_W_MM  # texture px per card mm
    # the crop square in card mm: centred on the index, a random margin on each side, slightly off-centre
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    half = side / 2 * (1 + 2 * float(rng.uniform(*margin)))
    cx += float(rng.normal(0, 0.06)) * side
    cy += float(rng.normal(0, 0.06)) * side
    ca, sa = math.cos(angle), math.sin(angle)
    corners = []
    for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        # a little perspective: each corner moves by up to 4 % of the crop
        du, dv = rng.normal(0, 0.04, 2) if photometric else (0.0, 0.0)
        px, py = (u + du) * half, (v + dv) * half
        corners.append((cx + ca * px - sa * py, cy + sa * px + ca * py))
    src = np.array(corners, np.float32) * s
    dst = np.array([[0, 0], [size_px, 0], [size_px, size_px], [0, size_px]], np.float32)
    M = cv2.getPerspectiveTransform(src, dst)
    patch = cv2.warpPerspective(face, M, (size_px, size_px), flags=cv2.INTER_AREA if px_per_mm < s else cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    felt = np.array(_FELTS[int(rng.integers(len(_FELTS)))], np.float32)
    a = patch[..., 3:4].astype(np.float32) / 255.0
    img = patch[..., :3].astype(np.float32) * a + felt * (1 - a)
    if photometric:
        img *= float(rng.uniform(0.6, 1.25))
        img *= np.array([1 + rng.normal(0, 0.06), 1 + rng.normal(0, 0.03), 1 + rng.normal(0, 0.06)], np.float32)
        ys, xs = np.mgrid[0:size_px, 0:size_px].astype(np.float32) / size_px - 0.5
        g = float(rng.uniform(0, 0.3))
        t = float(rng.uniform(0, 2 * math.pi))
        img *= (1 + g * (xs * math.cos(t) + ys * math.sin(t)))[..., None]
        if rng.random() < 0.2:
            img += glare_patch(size_px, size_px, rng, float(rng.uniform(0.2, 0.6)))[..., None].astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if photometric:
        r = rng.random()
        if r < 0.3:
            img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.3, 1.2)))
        elif r < 0.45:
            small = max(8, int(size_px / rng.uniform(1.5, 3.0)))
            img = cv2.resize(cv2.resize(img, (small, small), interpolation=cv2.INTER_AREA), (size_px, size_px))
        if rng.random() < 0.6:
            n = rng.normal(0, float(rng.uniform(1, 7)), img.shape).astype(np.float32)
            img = np.clip(img + n, 0, 255).astype(np.uint8)
        if rng.random() < 0.1:
            m = rng.random(img.shape[:2])
            img[m < 0.004] = 0
            img[m > 0.996] = 255
        if rng.random() < 0.5:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 95))])
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img
