"""The ink colour of a corner index, measured from its pixels rather than learned.

A card's index is printed in red (hearts, diamonds) or black (spades, clubs). The card reader learned suit shapes
from renders, and on real photos it reads some small black pips as diamonds (the `real-felt-layouts-martinabeleda`
photos: 4C, 5S and AS read 4D, 5D and AD). Whether an index holds any red ink at all is a plain measurement, so a
red reading of an index with none is vetoed (:func:`black_ink_only`). Only that direction is checked: a black index
may sit beside red ink that is no part of it (a red card back, a red felt, a hand), while a red index always shows
red ink in its middle wherever the camera sees colour at all (:func:`frame_in_colour`: a monochrome camera shows
none, and then nothing is vetoed).

Example:
    >>> import numpy as np
    >>> crop = np.full((40, 40, 3), 235, np.uint8); crop[12:28, 15:25] = 20   # black ink on white paper
    >>> black_ink_only([crop]).tolist()
    [True]
"""

from __future__ import annotations

import numpy as np

INK_DARK = 0.55
"""An ink pixel is darker than this share of the paper's brightness in every channel."""
NEUTRAL_CHROMA = 0.15
"""Black ink: its channels differ by less than this share of the paper's brightness (+ 12 levels of noise)."""
REDDISH = 0.06
"""A reddish pixel: once the crop is white-balanced on its paper, red exceeds both other channels by this share of
the paper's brightness. Webcams render red ink dull and tinted; balanced on the paper it still shows."""
MIN_BLACK_PX = 30
"""Dark neutral pixels an index must show, in its crop's middle, before its ink is judged black."""
MAX_BLACK_SHARE = 0.5
"""More of the middle than this dark is no index printed on a light card (a black-faced novelty card, a back)."""
MAX_RED_PX = 20
"""Reddish pixels an index judged black may show (of the 24 x 24 middle of a 40 px crop): the held-out
`real-cards-zk7wu` webcam frames' red indices show 34-80, the `real-felt-layouts-martinabeleda` photos' 104-151,
their black ones 0-15 (colour noise at the strokes' edges)."""
COLOUR_CHROMA = 40
"""A frame pixel whose channels differ by at least this (0-255) shows colour."""
COLOUR_SHARE = 0.03
"""A frame is in colour when at least this share of its pixels shows colour."""


def frame_in_colour(image: np.ndarray) -> bool:
    """Whether the camera sees colour: a monochrome (or greyscale-converted) frame shows none, and there red ink
    cannot be told from black.

    Args:
        image: (H, W, 3) uint8 BGR frame (subsampled to about 160 x 90 points).
    """
    h, w = image.shape[:2]
    thumb = image[:: max(1, h // 90), :: max(1, w // 160)].reshape(-1, 3).astype(np.int16)
    chroma = thumb.max(1) - thumb.min(1)
    return bool(np.mean(chroma >= COLOUR_CHROMA) >= COLOUR_SHARE)


def black_ink_only(crops) -> np.ndarray:
    """Whether each index crop's middle shows black ink and no red ink at all.

    Args:
        crops: N (S, S, 3) uint8 BGR index crops (:func:`vision.card_reader.square_crop`); the middle three fifths
            of each side are measured (the index is centred, its neighbours lie at the crop's edge).

    Returns:
        (N,) bool: True where a red reading of the index is impossible.
    """
    if not len(crops):
        return np.zeros(0, bool)
    stack = np.asarray(np.stack(crops), np.float32)
    n, h, w = stack.shape[:3]
    mid = stack[:, h // 5: h - h // 5, w // 5: w - w // 5].reshape(n, -1, 3)   # (N, P, 3) BGR
    b, g, r = mid[..., 0], mid[..., 1], mid[..., 2]
    lo = np.minimum(np.minimum(b, g), r)  # elementwise: a reduction over a 3-long axis is slow in numpy
    k = int(0.8 * (lo.shape[1] - 1))
    on_paper = lo >= np.partition(lo, k, axis=1)[:, k:k + 1]
    paper = np.einsum("np,npc->nc", on_paper.astype(np.float32), mid) / np.maximum(on_paper.sum(1), 1)[:, None]
    level = paper.mean(1)                                          # (N,): the paper's brightness
    gain = level[:, None] / np.maximum(paper, 1.0)                 # (N, 3): white balance on the paper
    b, g, r = b * gain[:, :1], g * gain[:, 1:2], r * gain[:, 2:]
    lo, hi = np.minimum(np.minimum(b, g), r), np.maximum(np.maximum(b, g), r)
    lvl = level[:, None]
    reddish = ((r - np.maximum(g, b) > REDDISH * lvl) & (lo < 0.85 * lvl)).sum(1)
    dark = ((lo < INK_DARK * lvl) & (hi - lo < NEUTRAL_CHROMA * lvl + 12)).sum(1)
    # under 60 levels there is no paper in view (a back, felt, shadow): nothing to judge
    return (level >= 60) & (dark >= MIN_BLACK_PX) & (dark <= MAX_BLACK_SHARE * mid.shape[1]) & (reddish <= MAX_RED_PX)
