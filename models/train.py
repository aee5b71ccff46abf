"""Training: stage 1 (ultralytics YOLO from a yaml, no pretrained weights) and stage 2 (corner-index classifier).

torch and ultralytics are imported only inside the functions here (the ``train``
extra); the runtime (vision/) never imports them.  Everything runs offline
(notes/offline-ml.md): :func:`offline_ultralytics` sets ``YOLO_OFFLINE``,
``YOLO_AUTOINSTALL=0``, a ``YOLO_CONFIG_DIR`` inside the project's git-ignored
``.cache/``, copies matplotlib's DejaVuSans.ttf to the fonts ultralytics would
otherwise download, turns settings sync and loggers off, and uses every core.

Stage 1 data: rendered frames (``pitwatch synth images``) are cut into
``imgsz`` crops at random scales (index heights ~10-60 px in the network input)
and relabelled into 3 classes (index, BACK, chip).  Flips are off (mirrored
glyphs do not exist on cards); rotation comes from the renderer.

Stage 2 data: corner-index crops rendered on the fly from every deck design but
the held-out one, through :func:`vision.card_reader.square_crop` (the runtime's
crop), with rotation, scale, blur, noise, JPEG and occlusion families.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".cache"
"""Git-ignored working folder for training runs, ultralytics settings and logs."""


def offline_ultralytics(threads: int | None = None) -> None:
    """Make ultralytics work without network before it is imported (notes/offline-ml.md).

    Sets YOLO_OFFLINE, YOLO_AUTOINSTALL=0, YOLO_CONFIG_DIR and MPLCONFIGDIR under ``.cache/``,
    puts DejaVuSans.ttf where ultralytics looks for Arial.ttf and Arial.Unicode.ttf, turns
    sync and loggers off and sets torch's thread count to ``threads`` (default: all cores).
    """
    cfg = CACHE / "ultralytics"
    (cfg / "Ultralytics").mkdir(parents=True, exist_ok=True)
    (CACHE / "mpl").mkdir(parents=True, exist_ok=True)
    os.environ.update({"YOLO_OFFLINE": "1", "YOLO_AUTOINSTALL": "0", "YOLO_CONFIG_DIR": str(cfg),
                       "MPLCONFIGDIR": str(CACHE / "mpl"), "YOLO_VERBOSE": os.environ.get("YOLO_VERBOSE", "False")})
    import matplotlib

    src = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        dst = cfg / "Ultralytics" / name
        if not dst.exists():
            shutil.copyfile(src, dst)
    import torch

    n = threads or os.cpu_count() or 1
    torch.set_num_threads(n)
    from ultralytics.utils import SETTINGS, torch_utils

    torch_utils.NUM_THREADS = n  # ultralytics' default is cores - 1: one thread on a 2-core machine
    off = {k: False for k in ("sync", "tensorboard", "wandb", "mlflow", "comet", "clearml", "dvc", "neptune",
                              "raytune", "hub") if k in SETTINGS}
    off.update({"datasets_dir": str(CACHE / "datasets"), "weights_dir": str(CACHE / "ultralytics" / "weights"),
                "runs_dir": str(CACHE / "train"), "vscode_msg": False, "openvino_msg": False})
    SETTINGS.update({k: v for k, v in off.items() if k in SETTINGS})


# --- stage 2: the corner-index classifier ------------------------------------------------------------


def design_names() -> list[str]:
    """Names of the renderer's deck designs (``datasets.cards``)."""
    from datasets.cards import list_deck_designs

    try:
        return list(list_deck_designs(include_training=True))
    except ImportError:  # the SVG decks are optional
        return list(list_deck_designs(include_svg=False, include_training=True))


def load_design(name: str):
    from datasets.cards import get_deck

    return get_deck(name)


class IndexCropSource:
    """Renders labelled corner-index crops, as the runtime cuts them, from deck designs.

    Each sample: a card face at a random resolution, rotated by a random angle,
    pasted on a random background, degraded by one or more noise families; the
    index's square (off-centre and loose, as stage 1 gives it: :func:`_stage1_square`) is cut with
    :func:`vision.card_reader.square_crop`.

    Args:
        designs: deck design names to draw from.
        seed: random seed.
        hard: oversample the pairs the field confuses (Q/9, 9/7, 6/4, 6/8, 3/5, A/4).
        turn: ``"any"`` turns the index by any angle; ``"upright"`` keeps 90 % of samples within 45
            degrees of upright or upside down (the rest any angle). A reader trained so reads every crop
            twice, as cut and turned a quarter (:attr:`vision.card_reader.CardReader.turns`): one of the two
            always lies in its band, so it need not learn every angle.
        grey: fraction of crops turned grey (suit from shape alone).
        cast: fraction of the other crops given a strong per-channel colour cast.
        crowd: fraction of crops where the next card of a fanned hand lies on this one, its corner (and its own
            index) beside this index, up to 40 % of this index's width covered (:meth:`_crowd`). The reader
            otherwise never sees two indices in one crop, and read large-index decks dealt close (16 mm apart) by
            their neighbour: per index 9 % wrong on rendered frames against 1.5 % for standard indices.
        covered: fraction of crops where the next card lies over this index and hides most of it (:meth:`_cover`):
            only its top 10-45 % (the card laid over it from below) or its left 10-40 % (from the side) shows, or,
            where the deck knows where its suit is (:meth:`datasets.cards.deck.Deck.suit_boxes`), a third of the
            time the rank and under half of the suit (a tall index under the next card of a hand).
            Such a crop's class is -1, trained towards "unreadable": on rendered round videos the top of an
            8C's index peeking above the KH laid over it was read QS at 0.96 by a reader that had never seen one.
        favoured: deck design -> share of all crops drawn from it (e.g. ``{"proc-black-gold": 0.25}``); the rest
            are drawn evenly from every design, the favoured ones included. Each must be one of ``designs`` and the
            shares may add up to at most 1.

    Raises:
        ValueError: an unknown ``turn``, a favoured design not in ``designs``, or shares adding up to over 1.
    """

    HARD = ("Q", "9", "7", "6", "4", "8", "3", "5", "A")

    REF_INDEX_PX = 72.0
    """Corner windows are rendered once per (design, card, corner) at this index height and shrunk per sample."""

    def __init__(self, designs: list[str], seed: int, hard: float = 0.3, turn: str = "any", grey: float = 0.15,
                 cast: float = 0.0, crowd: float = 0.0, covered: float = 0.0,
                 favoured: dict[str, float] | None = None) -> None:
        if turn not in ("any", "upright"):
            raise ValueError(f"turn must be 'any' or 'upright', not {turn!r}")
        self.favoured = _favoured_designs(designs, favoured)
        self.decks = [load_design(n) for n in designs]
        self.rng = np.random.default_rng(seed)
        self.hard = hard
        self.turn = turn
        self.grey, self.cast = grey, cast
        self.crowd = crowd
        self.covered = covered
        self._corners: dict[tuple[int, str, int], tuple] = {}

    def _corner(self, d: int, label: str, corner: int) -> tuple:
        """(RGBA patch, window mm (u0, v0, u1, v1), window clipped to the card mm, index box mm), cached.

        Rendering a whole face per sample cost ~2/3 of a crop's time; the corner window around
        one index is all a crop ever shows, so it is rendered once, large, and shrunk per sample.
        """
        key = (d, label, corner)
        if key not in self._corners:
            deck = self.decks[d]
            bx = deck.index_boxes(label).as_list()[corner]
            ppm = self.REF_INDEX_PX / max(bx[3] - bx[1], 1e-3)
            face = deck.face(label, ppm)
            fppm = face.shape[1] / 63.5
            # only the card's corner around the index is drawn: a window of card mm, 1.5 index heights each side
            r = 1.5 * (bx[3] - bx[1])
            u0, v0, u1, v1 = bx[0] - r, bx[1] - r, bx[2] + r, bx[3] + r
            cu0, cv0 = max(0.0, u0), max(0.0, v0)
            cu1, cv1 = min(63.5, u1), min(88.9, v1)
            patch = face[int(cv0 * fppm):int(math.ceil(cv1 * fppm)), int(cu0 * fppm):int(math.ceil(cu1 * fppm))].copy()
            self._corners[key] = (patch, (u0, v0, u1, v1), (cu0, cv0, cu1, cv1), bx)
        return self._corners[key]

    def sample(self) -> tuple[np.ndarray, int]:
        """One ((40, 40, 3) uint8 BGR crop, class index into CARD_LABELS, or -1 for an index mostly covered)."""
        from rules.cards import CARD_LABELS, SUITS
        from vision.card_reader import square_crop

        rng = self.rng
        if rng.random() < self.hard:
            rank = self.HARD[rng.integers(len(self.HARD))]
            label = rank + SUITS[rng.integers(4)]
        else:
            label = CARD_LABELS[rng.integers(52)]
        d = self._draw_design(rng)
        index_h = float(np.exp(rng.uniform(np.log(11), np.log(70))))  # index height in the frame, px
        corner = int(rng.integers(2))
        patch, (u0, v0, u1, v1), (cu0, cv0, cu1, cv1), bx = self._corner(d, label, corner)
        ppm = index_h / max(bx[3] - bx[1], 1e-3)  # frame px per card mm
        W, H = max(8, int(round((u1 - u0) * ppm))), max(8, int(round((v1 - v0) * ppm)))
        pw, ph = max(1, int(round((cu1 - cu0) * ppm))), max(1, int(round((cv1 - cv0) * ppm)))
        ox, oy = int(round((cu0 - u0) * ppm)), int(round((cv0 - v0) * ppm))
        pw, ph = min(pw, W - ox), min(ph, H - oy)
        patch = cv2.resize(patch, (pw, ph), interpolation=cv2.INTER_AREA)
        bg = _background(rng, H, W)
        a = patch[..., 3:4].astype(np.float32) / 255
        tint = rng.uniform(0.75, 1.1, 3) * rng.uniform(0.8, 1.05)
        fbgr = np.clip(patch[..., :3].astype(np.float32) * tint, 0, 255)
        region = bg[oy:oy + ph, ox:ox + pw].astype(np.float32)
        bg[oy:oy + ph, ox:ox + pw] = (fbgr * a + region * (1 - a)).astype(np.uint8)
        x1, y1, x2, y2 = (bx[0] - u0) * ppm, (bx[1] - v0) * ppm, (bx[2] - u0) * ppm, (bx[3] - v0) * ppm
        # the next card of a fanned hand on this one (drawn only when asked, so older seeds crop what they did)
        if self.crowd and corner == 0 and rng.random() < self.crowd:
            self._crowd(rng, bg, d, bx, (u0, v0), ppm)
        hidden = bool(self.covered) and rng.random() < self.covered
        seen = bx  # what of the index shows, card mm: stage 1 boxes that, not the index under the card over it
        if hidden:
            suits = self.decks[d].suit_boxes(label) if corner == 0 else None
            seen = self._cover(rng, bg, d, bx, (u0, v0), ppm, None if suits is None else suits.top_left)
        # a neighbouring card or a hand sometimes covers part of the corner (not the index centre)
        if rng.random() < 0.25:
            _occlude(rng, bg, (x1, y1, x2, y2))
        # rotate the whole picture about the index centre
        if self.turn == "upright" and rng.random() < 0.9:
            ang = float(rng.uniform(-45, 45) + 180 * rng.integers(2))
        else:
            ang = float(rng.uniform(-180, 180)) if rng.random() < 0.7 else float(rng.normal(0, 8) + 180 * rng.integers(2))
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        R = cv2.getRotationMatrix2D((cx, cy), ang, 1.0)
        img = cv2.warpAffine(bg, R, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        sx1, sy1, sx2, sy2 = (seen[0] - u0) * ppm, (seen[1] - v0) * ppm, (seen[2] - u0) * ppm, (seen[3] - v0) * ppm
        corners = np.array([[sx1, sy1, 1], [sx2, sy1, 1], [sx2, sy2, 1], [sx1, sy2, 1]], np.float64) @ R.T
        square = _stage1_square(rng, corners)
        # perspective squash (tilted camera)
        if rng.random() < 0.4:
            sy = rng.uniform(0.65, 1.0)
            img = cv2.resize(img, (img.shape[1], max(8, int(img.shape[0] * sy))), interpolation=cv2.INTER_AREA)
            square[:, 1] *= sy
        if rng.random() < self.grey:  # suit colour is not to be trusted under casino lighting: shape must carry it too
            img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        elif self.cast and rng.random() < self.cast:
            # a strong colour cast (warm lamps, white balance): black pips turn brown or red-tinged
            img = np.clip(img.astype(np.float32) * rng.uniform(0.55, 1.35, 3), 0, 255).astype(np.uint8)
        img = _degrade(rng, img, index_h)
        return square_crop(img, square), -1 if hidden else CARD_LABELS.index(label)

    def _draw_design(self, rng) -> int:
        """Index into :attr:`decks` of the next crop's design (no extra draw without favoured designs, so a seed
        renders what it rendered before they existed)."""
        if self.favoured:
            u = rng.random()
            for d, share in self.favoured:
                if u < share:
                    return d
                u -= share
        return int(rng.integers(len(self.decks)))

    def _cover(self, rng, bg: np.ndarray, d: int, bx, origin, ppm: float,
               suit=None) -> tuple[float, float, float, float]:
        """Lay another whole card of the deck over ``bg`` (this card's corner window, ``origin`` its top-left in
        card mm, ``ppm`` px per mm) so that it hides most of this index (``bx``, card mm): from below, its top
        edge 10-45 % of the index's height under the index's top and its own index well left of this one; or
        from the side, its left edge 10-40 % of the index's width right of the index's left and its own index
        well above.  Its own index lies so mostly outside the crop: the crop is of a covered index, not of the
        card over it.  Given ``suit`` (the suit symbol's box in this upright index, card mm), a third of the
        time its top edge crosses instead between the rank's foot and a third of the way down the suit: the
        rank shows and the card does not (a jumbo index under the next card of a hand, read 4S for a 4C at
        0.4-0.9 on the round videos before the thirty-ninth session).  Returns the part of the index left
        showing, (u0, v0, u1, v1) card mm: what stage 1 boxes (seed 7000 at 1080p: the top of an 8C's index
        above the KH, boxed 20 x 17 px)."""
        from rules.cards import CARD_LABELS

        other = CARD_LABELS[int(rng.integers(52))]
        iw, ih = bx[2] - bx[0], bx[3] - bx[1]
        if suit is not None and rng.random() < 1 / 3:
            du = float(rng.uniform(bx[0] - 3.5 * iw, bx[0] - 1.6 * iw))
            sh = suit[3] - suit[1]
            dv = float(rng.uniform(suit[1] - 0.15 * sh, suit[1] + 0.35 * sh))
            pivot = ((bx[0] + bx[2]) / 2, dv)
            seen = (bx[0], bx[1], bx[2], dv)
        elif rng.random() < 0.5:
            du = float(rng.uniform(bx[0] - 3.5 * iw, bx[0] - 1.6 * iw))
            dv = float(rng.uniform(bx[1] + 0.1 * ih, bx[1] + 0.45 * ih))
            pivot = ((bx[0] + bx[2]) / 2, dv)  # where its top edge crosses this index
            seen = (bx[0], bx[1], bx[2], dv)
        else:
            du = float(rng.uniform(bx[0] + 0.1 * iw, bx[0] + 0.4 * iw))
            dv = float(rng.uniform(bx[1] - 2.5 * ih, bx[1] - 1.4 * ih))
            pivot = (du, (bx[1] + bx[3]) / 2)  # where its left edge crosses this index
            seen = (bx[0], bx[1], du, bx[3])
        face = self.decks[d].face(other, ppm)  # the whole card: a corner window would end above this index
        fppm = face.shape[1] / 63.5
        place = np.array([[ppm / fppm, 0, (du - origin[0]) * ppm], [0, ppm / fppm, (dv - origin[1]) * ppm], [0, 0, 1]])
        # turned a few degrees about the edge's crossing, so the share of the index it hides stays as drawn
        turn = cv2.getRotationMatrix2D(((pivot[0] - origin[0]) * ppm, (pivot[1] - origin[1]) * ppm),
                                       float(rng.normal(0, 5)), 1.0)
        _blend_warped(bg, face, turn @ place, cv2.INTER_AREA)
        return seen

    def _crowd(self, rng, bg: np.ndarray, d: int, bx, origin, ppm: float) -> None:
        """Paste the top-left corner of another card of the same deck over ``bg`` (this card's corner window,
        ``origin`` its top-left in card mm, ``ppm`` px per mm) as the next card of a fanned hand lies: its corner
        right of this index's left edge (covering up to 40 % of its width) and at most an index height below its
        top, turned a little."""
        from rules.cards import CARD_LABELS

        other = CARD_LABELS[int(rng.integers(52))]
        patch, _, (cu0, cv0, cu1, cv1), _ = self._corner(d, other, 0)
        iw, ih = bx[2] - bx[0], bx[3] - bx[1]
        du = float(rng.uniform(bx[0] + 0.6 * iw, bx[2] + 1.5 * iw))  # the other card's left edge, card mm
        dv = float(rng.uniform(bx[1] - 0.5 * ih, bx[1] + 1.0 * ih))  # its top edge
        pw, ph = max(1, int(round((cu1 - cu0) * ppm))), max(1, int(round((cv1 - cv0) * ppm)))
        src = cv2.resize(patch, (pw, ph), interpolation=cv2.INTER_AREA)
        # where the other card's corner window lands in this window, px, turned a few degrees about its corner
        ox, oy = (du + cu0 - origin[0]) * ppm, (dv + cv0 - origin[1]) * ppm
        M = cv2.getRotationMatrix2D((0.0, 0.0), float(rng.normal(0, 5)), 1.0)
        M[:, 2] += (ox, oy)
        _blend_warped(bg, src, M, cv2.INTER_LINEAR)


def _blend_warped(canvas: np.ndarray, bgra: np.ndarray, M: np.ndarray, flags: int) -> None:
    """Blend ``bgra`` ((h, w, 4) uint8, alpha last) into ``canvas`` ((H, W, 3) uint8, in place) through the
    (2, 3) affine ``M`` (``bgra`` px -> ``canvas`` px), resampled with ``flags``; outside ``bgra`` nothing."""
    h, w = canvas.shape[:2]
    warped = cv2.warpAffine(bgra, M, (w, h), flags=flags, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4].astype(np.float32) / 255
    canvas[:] = (warped[..., :3].astype(np.float32) * a + canvas.astype(np.float32) * (1 - a)).astype(np.uint8)


class NotAnIndexSource:
    """Renders crops of what stage 1 boxes as a corner index but is none, for the reader to be unsure of.

    Outlier exposure (Hendrycks et al. 2019): trained towards the uniform distribution on these, the reader
    answers ``unreadable`` where it has no index to read, instead of the card a back's print or a layout glyph
    resembles most (seen in rendered round videos: the corner of a face-down card peeking from under another read
    as 8H, the 2 of "BLACKJACK PAYS 3 TO 2" read as 7H, two backs' edges read as a 10D). Kinds, equally often:

    * ``back``: a face-down card's corner or edge (any back design), sometimes a second one peeking out under it;
    * ``glyph``: one or two printed characters of the layout (digits and capitals, a light print colour on felt);
    * ``pip``: the middle of a number card's face (pips, no rank);
    * ``felt``: the background alone.

    Each is cut as the runtime cuts an index (:func:`vision.card_reader.square_crop` of a square of an index's
    size, 11-70 px), turned by any angle and degraded like the index crops (:func:`_degrade`).

    Args:
        designs: deck design names for the ``pip`` kind.
        seed: random seed.
    """

    KINDS = ("back", "glyph", "pip", "felt")
    GLYPHS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def __init__(self, designs: list[str], seed: int) -> None:
        from datasets.cards import BACK_DESIGNS

        self.decks = [load_design(n) for n in designs]
        self.backs = [b.name for b in BACK_DESIGNS]
        self.rng = np.random.default_rng(seed)

    def _paste(self, canvas: np.ndarray, bgra: np.ndarray, point: tuple[float, float], angle: float) -> None:
        """Blend ``bgra`` (H, W, 4) into ``canvas`` turned by ``angle`` degrees, its pixel ``point`` on the centre."""
        h, w = canvas.shape[:2]
        M = cv2.getRotationMatrix2D(point, angle, 1.0)
        M[:, 2] += (w / 2 - point[0], h / 2 - point[1])
        _blend_warped(canvas, bgra, M, cv2.INTER_AREA)

    def _card_point(self, margin: float) -> tuple[float, float]:
        """A point (card mm) near a card's corner or along its edge, ``margin`` mm in from the edge."""
        rng = self.rng
        if rng.random() < 0.5:  # a corner
            u = margin + rng.uniform(0, 10)
            v = margin + rng.uniform(0, 14)
        else:  # anywhere along an edge
            u, v = (margin + rng.uniform(-2, 6), rng.uniform(5, 84)) if rng.random() < 0.5 else \
                (rng.uniform(5, 58), margin + rng.uniform(-2, 6))
        if rng.random() < 0.5:
            u = 63.5 - u
        if rng.random() < 0.5:
            v = 88.9 - v
        return u, v

    def sample(self) -> np.ndarray:
        """One (40, 40, 3) uint8 BGR crop with no corner index in it."""
        from datasets.cards import back_texture
        from vision.card_reader import square_crop

        rng = self.rng
        index_h = float(np.exp(rng.uniform(np.log(11), np.log(70))))
        ppm = index_h / rng.uniform(12.0, 20.0)  # frame px per mm: indices are 12-20 mm tall
        side = index_h * rng.uniform(1.0, 1.6)
        size = int(side * 3) + 8
        canvas = _background(rng, size, size)
        kind = self.KINDS[rng.integers(len(self.KINDS))]
        angle = float(rng.uniform(-180, 180))
        card_wh = (max(8, int(round(63.5 * ppm))), max(8, int(round(88.9 * ppm))))
        if kind == "back":
            name = self.backs[rng.integers(len(self.backs))]
            tex = cv2.resize(np.ascontiguousarray(back_texture(name, ppm)), card_wh, interpolation=cv2.INTER_AREA)
            u, v = self._card_point(rng.uniform(0, 4))
            if rng.random() < 0.4:  # the front card of two squared backs covers most of the one under it
                du, dv = rng.uniform(3, 15) * rng.choice([-1, 1]), rng.uniform(3, 15) * rng.choice([-1, 1])
                self._paste(canvas, tex, ((u + du) * ppm, (v + dv) * ppm), angle + float(rng.normal(0, 6)))
            self._paste(canvas, tex, (u * ppm, v * ppm), angle)
        elif kind == "glyph":
            text = "".join(self.GLYPHS[rng.integers(len(self.GLYPHS))] for _ in range(int(rng.integers(1, 3))))
            face = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
                    cv2.FONT_HERSHEY_TRIPLEX][rng.integers(4)]
            h_px = index_h * rng.uniform(0.45, 1.0)
            (tw, th), _ = cv2.getTextSize(text, face, 1.0, 1)
            scale = h_px / max(th, 1)
            thick = max(1, int(round(h_px / rng.uniform(6, 11))))
            (tw, th), _ = cv2.getTextSize(text, face, scale, thick)
            layer = np.zeros((size, size, 4), np.uint8)
            colour = [int(c) for c in rng.uniform(150, 255, 3)] + [255]
            cv2.putText(layer, text, (int(size / 2 - tw / 2), int(size / 2 + th / 2)), face, scale, colour, thick,
                        cv2.LINE_AA)
            self._paste(canvas, layer, (size / 2, size / 2), angle)
        elif kind == "pip":
            deck = self.decks[rng.integers(len(self.decks))]
            label = str(rng.integers(2, 11)) + "SHDC"[rng.integers(4)]
            face = cv2.resize(np.ascontiguousarray(deck.face(label, ppm)), card_wh, interpolation=cv2.INTER_AREA)
            u, v = rng.uniform(18, 45.5), rng.uniform(24, 65)
            self._paste(canvas, face, (u * ppm, v * ppm), angle)
        if rng.random() < 0.4:
            sy = rng.uniform(0.65, 1.0)
            canvas = cv2.resize(canvas, (size, max(8, int(size * sy))), interpolation=cv2.INTER_AREA)
        else:
            sy = 1.0
        if rng.random() < 0.15:
            canvas = cv2.cvtColor(cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        canvas = _degrade(rng, canvas, index_h)
        phi = float(rng.uniform(0, 2 * math.pi))
        u_, v_ = np.array([math.cos(phi), math.sin(phi)]), np.array([-math.sin(phi), math.cos(phi)])
        c = np.array([size / 2, size / 2]) + rng.normal(0, 0.1, 2) * side
        h = side / 2
        square = np.array([c - h * u_ - h * v_, c + h * u_ - h * v_, c + h * u_ + h * v_, c - h * u_ + h * v_])
        square[:, 1] *= sy
        return square_crop(canvas, square)


def _favoured_designs(designs: list[str], favoured: dict[str, float] | None) -> list[tuple[int, float]]:
    """(index into ``designs``, share) for each favoured design; raises ValueError on a design not among
    ``designs``, a share outside (0, 1] or shares adding up to more than 1."""
    out = []
    for name, share in (favoured or {}).items():
        if name not in designs:
            raise ValueError(f"favoured design {name!r} is not among the training designs {designs}")
        if not 0.0 < share <= 1.0:
            raise ValueError(f"favoured design {name!r}: share {share} must be in (0, 1]")
        out.append((designs.index(name), float(share)))
    if sum(share for _, share in out) > 1.0 + 1e-9:
        raise ValueError(f"favoured designs' shares add up to {sum(s for _, s in out):.2f} (at most 1)")
    return out


def _stage1_square(rng, corners: np.ndarray) -> np.ndarray:
    """The square stage 1 would hand the reader for an index whose image corners are ``corners`` (4, 2).

    Stage 1 boxes the index axis-aligned in its crop's frame, which is turned by any angle
    against the index; measured on rendered hold-out frames (``models/MODEL_CARD.md``) its
    square's side is 0.99-1.55x (median 1.18x) the index's extent and its centre is off by
    0.03-0.26 (median 0.08) of that extent, so the same spread is drawn here.

    Returns:
        (4, 2) float64 image pixels, corners TL, TR, BR, BL of the square in its own frame.
    """
    phi = float(rng.uniform(0, 2 * math.pi))
    u, v = np.array([math.cos(phi), math.sin(phi)]), np.array([-math.sin(phi), math.cos(phi)])
    c = corners.mean(0)
    pu, pv = (corners - c) @ u, (corners - c) @ v
    extent = max(pu.max() - pu.min(), pv.max() - pv.min())
    side = extent * float(np.clip(np.exp(rng.normal(math.log(1.15), 0.15)), 0.85, 1.9))
    off = np.clip(rng.normal(0, 0.1, 2), -0.3, 0.3) * extent
    centre = c + ((pu.max() + pu.min()) / 2 + off[0]) * u + ((pv.max() + pv.min()) / 2 + off[1]) * v
    h = side / 2
    return np.array([centre - h * u - h * v, centre + h * u - h * v, centre + h * u + h * v, centre - h * u + h * v])


def _background(rng, h: int, w: int) -> np.ndarray:
    kind = rng.integers(4)
    if kind == 0:  # felt
        base = np.array([rng.uniform(20, 90), rng.uniform(70, 140), rng.uniform(10, 60)])
    elif kind == 1:  # white table
        base = np.full(3, rng.uniform(170, 250))
    elif kind == 2:  # wood
        base = np.array([rng.uniform(40, 90), rng.uniform(70, 130), rng.uniform(110, 180)])
    else:
        base = rng.uniform(0, 255, 3)
    img = np.clip(base + rng.normal(0, rng.uniform(2, 20), (h, w, 3)), 0, 255).astype(np.uint8)
    return cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 3))


def _occlude(rng, img, keep) -> None:
    h, w = img.shape[:2]
    x = int(rng.uniform(0, w))
    y = int(rng.uniform(0, h))
    ex, ey = int(rng.uniform(0.2, 0.5) * w), int(rng.uniform(0.2, 0.5) * h)
    kx1, ky1, kx2, ky2 = keep
    # keep the index's centre visible: slide the occluder away from it
    if x <= (kx1 + kx2) / 2 <= x + ex and y <= (ky1 + ky2) / 2 <= y + ey:
        x = int(kx2 + (kx2 - kx1) * 0.3)
    colour = rng.uniform(0, 255, 3) if rng.random() < 0.5 else np.array([rng.uniform(200, 255)] * 3)
    cv2.rectangle(img, (x, y), (x + ex, y + ey), colour.tolist(), -1)


def _degrade(rng, img: np.ndarray, index_h: float = 40.0) -> np.ndarray:
    """Separate noise families (synthetic-to-real note 5): blur, impulse, gaussian, JPEG, down-up sampling, light."""
    img = img.astype(np.float32)
    # light gradient / white balance
    gain = rng.uniform(0.6, 1.3) * rng.uniform(0.9, 1.1, 3)
    img = img * gain + rng.uniform(-30, 30)
    if rng.random() < 0.3:
        gx = np.linspace(rng.uniform(0.7, 1.0), rng.uniform(1.0, 1.3), img.shape[1])[None, :, None]
        img = img * gx
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, max(0.35, min(1.6, index_h / 14))))
    if rng.random() < 0.15:  # motion blur
        k = int(rng.integers(3, 7))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2] = 1.0 / k
        M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1)
        kern = cv2.warpAffine(kern, M, (k, k))
        img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
    if rng.random() < 0.3:
        s = rng.uniform(min(0.8, max(0.35, 10 / index_h)), 0.85)
        small = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (img.shape[1], img.shape[0]), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.4:
        img = np.clip(img + rng.normal(0, rng.uniform(2, 14), img.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.15:  # salt and pepper
        m = rng.random(img.shape[:2])
        p = rng.uniform(0.002, 0.02)
        img[m < p / 2] = 0
        img[m > 1 - p / 2] = 255
    if rng.random() < 0.4:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 90))])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


@dataclass
class ReaderRun:
    """Record of one stage-2 training run (goes into the model card)."""

    designs: list[str]
    held_out: str
    seed: int
    steps: int
    batch: int
    seconds: float
    params: int
    width: float = 1.0
    val_acc: float = 0.0
    heldout_acc: float = 0.0
    heldout_acc_by_height: dict | None = None
    temperature: float = 1.0
    threshold: float = 0.5
    heldout_coverage: float = 0.0
    heldout_selective_acc: float = 0.0
    confusions: list | None = None
    turns: list | None = None
    combine: str = "best"
    not_index: float = 0.0
    not_index_accepted: float | None = None  # share of crops with no index read as a card (top p >= threshold)
    favoured: dict | None = None  # deck design -> share of the training crops drawn from it
    scene: dict | None = None  # the round-scene crop file and the share of the training crops drawn from it


READER_WIDTHS = (24, 48, 96, 128, 160)
"""Channels of the reader's five conv blocks at ``width=1``."""


def reader_net(num_classes: int = 52, width: float = 1.0):
    """The stage-2 network for 40x40 RGB crops: 5 conv blocks (BN, ReLU), global average pool, a factorised head.

    ``width`` scales every block's channels (:data:`READER_WIDTHS`); compute grows as its square.

    The head scores the 13 ranks and the 4 suits separately and outputs the 52 card logits
    ``rank_logit + suit_logit`` (in ``rules.cards.CARD_LABELS`` order), so the softmax over 52
    cards is exactly p(rank) x p(suit): every crop of a 7 teaches "7" whatever its suit, and the
    exported model keeps the runtime's (B, 52) output.  ~0.36 M parameters at ``width=1``, ~0.8 M at 1.5.
    """
    import torch
    import torch.nn as nn

    from rules.cards import CARD_LABELS, RANKS, SUITS

    def block(i, o, pool=True):
        layers = [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]
        if pool:
            layers.append(nn.MaxPool2d(2))
        return layers

    class RankSuitHead(nn.Module):
        def __init__(self, width: int) -> None:
            super().__init__()
            self.fc = nn.Linear(width, len(RANKS) + len(SUITS))
            self.register_buffer("rank_of", torch.tensor([RANKS.index(c[:-1]) for c in CARD_LABELS]))
            self.register_buffer("suit_of", torch.tensor([len(RANKS) + SUITS.index(c[-1]) for c in CARD_LABELS]))

        def forward(self, x):
            z = self.fc(x)
            return z[:, self.rank_of] + z[:, self.suit_of]

    assert num_classes == len(CARD_LABELS)
    c1, c2, c3, c4, c5 = (int(round(c * width / 4)) * 4 for c in READER_WIDTHS)
    return nn.Sequential(*block(3, c1), *block(c1, c2), *block(c2, c3), *block(c3, c4, pool=False),
                         *block(c4, c5, pool=False), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1),
                         RankSuitHead(c5))


def widen_reader(state: dict, width: float):
    """A :func:`reader_net` state dict of a narrower net, grown to ``width`` computing the same function.

    Each block's first channels keep the trained weights; the new channels start small and random, and the
    next layer reads them with zero weights, so the widened net starts exactly where the narrow one was
    (Chen et al. 2016, Net2Net) and training only adds to it.
    """
    import torch

    wide = reader_net(width=width).state_dict()
    out = {}
    for k, w in wide.items():
        old = state.get(k)
        if old is None or old.shape == w.shape:
            out[k] = old if old is not None else w
            continue
        grown = torch.zeros_like(w) if w.dtype.is_floating_point else w.clone()
        if w.dtype.is_floating_point:
            if k.endswith(".weight") and w.dim() == 4:  # conv: new output channels random, new inputs zero
                grown[old.shape[0]:] = w[old.shape[0]:] * 0.1
            elif k.endswith("running_var") or (k.endswith(".weight") and w.dim() == 1):
                grown.fill_(1.0)
        grown[tuple(slice(0, n) for n in old.shape)] = old
        out[k] = grown
    return out


def reader_state_from_onnx(path: Path, width: float, sample: np.ndarray) -> dict:
    """A :func:`reader_net` state dict rebuilt from an exported reader (``card_reader.onnx``), to fine-tune it.

    The export folds each batch norm into its convolution; here each convolution gets the folded weights back and
    its batch norm is set to give the same outputs in training mode on ``sample`` ((N, 40, 40, 3) uint8 BGR crops):
    its scale and shift are the batch's spread and mean of the convolution's output (plus the folded bias), and its
    running statistics the same, so the rebuilt net starts where the export is, in both modes.

    Raises:
        ValueError: the ONNX file's weights do not fit a reader of this width.
    """
    import onnx
    import torch
    from onnx import numpy_helper

    model = onnx.load(str(path))
    init = {t.name: np.array(numpy_helper.to_array(t)) for t in model.graph.initializer}  # writable copies
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    net = reader_net(width=width)
    conv_layers = [m for m in net if isinstance(m, torch.nn.Conv2d)]
    bn_layers = [m for m in net if isinstance(m, torch.nn.BatchNorm2d)]
    if len(convs) != len(conv_layers):
        raise ValueError(f"{path}: {len(convs)} convolutions, a reader has {len(conv_layers)}")
    with torch.no_grad():
        x = _to_tensor(sample)
        for node, cv, bn in zip(convs, conv_layers, bn_layers):
            w, b = init[node.input[1]], init[node.input[2]]
            if tuple(w.shape) != tuple(cv.weight.shape):
                raise ValueError(f"{path}: a convolution of shape {w.shape}, the reader's is {tuple(cv.weight.shape)}")
            cv.weight.copy_(torch.from_numpy(w))
            y = cv(x)
            mean, var = y.mean((0, 2, 3)), y.var((0, 2, 3), unbiased=False)
            std = torch.sqrt(var + bn.eps)
            bn.weight.copy_(std)
            bn.bias.copy_(mean + torch.from_numpy(b))
            bn.running_mean.copy_(mean)
            bn.running_var.copy_(var)
            x = y + torch.from_numpy(b)[None, :, None, None]  # what the batch norm now gives, in both modes
            i = list(net).index(bn)
            for layer in list(net)[i + 1:]:
                if isinstance(layer, torch.nn.Conv2d):
                    break
                if isinstance(layer, (torch.nn.ReLU, torch.nn.MaxPool2d)):
                    x = layer(x)
        head = net[-1]
        head.fc.weight.copy_(torch.from_numpy(init[[k for k in init if k.endswith("fc.weight")][0]]))
        head.fc.bias.copy_(torch.from_numpy(init[[k for k in init if k.endswith("fc.bias")][0]]))
    return net.state_dict()


def _make_set(source: IndexCropSource, n: int) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = zip(*(source.sample() for _ in range(n)))
    return np.stack(xs), np.array(ys, np.int64)


RENDER_CHUNK = 500
"""Crops per task when the bank is rendered by worker processes (:class:`_ChunkRenderer`)."""

_WORKER_SOURCES: dict = {}


def _init_render_worker(kwargs: dict, neg_designs: list[str] | None) -> None:
    cv2.setNumThreads(1)  # one process per core already
    _WORKER_SOURCES["index"] = IndexCropSource(**kwargs)
    _WORKER_SOURCES["neg"] = NotAnIndexSource(neg_designs, 0) if neg_designs else None


def _render_chunk(task: tuple[str, int, int]):
    kind, seed, n = task
    src = _WORKER_SOURCES[kind]
    src.rng = np.random.default_rng(seed)  # the corner cache is the same in every worker: only the draws differ
    if kind == "neg":
        return np.stack([src.sample() for _ in range(n)])
    return _make_set(src, n)


class _ChunkRenderer:
    """Renders crops in chunks of :data:`RENDER_CHUNK`, each from its own seed, in ``workers`` processes.

    The chunks' seeds come from ``rng``, so a bank is the same whatever the number of workers (though not the
    same as one rendered serially by :func:`_make_set`).  Workers are spawned, not forked: a fork after
    onnxruntime's threads started (the real crops' teacher) left them waiting on a lock for ever.
    """

    def __init__(self, workers: int, index_kwargs: dict, neg_designs: list[str] | None) -> None:
        import multiprocessing as mp

        self.pool = mp.get_context("spawn").Pool(workers, _init_render_worker, (index_kwargs, neg_designs))

    def _chunks(self, kind: str, n: int, rng) -> list:
        sizes = [RENDER_CHUNK] * (n // RENDER_CHUNK) + ([n % RENDER_CHUNK] if n % RENDER_CHUNK else [])
        return [(kind, int(rng.integers(2**31)), k) for k in sizes]

    def index_crops(self, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
        """((n, 40, 40, 3) uint8 crops, (n,) labels)."""
        if n == 0:
            return np.zeros((0, 40, 40, 3), np.uint8), np.zeros(0, np.int64)
        parts = self.pool.map(_render_chunk, self._chunks("index", n, rng))
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def not_index_crops(self, n: int, rng) -> np.ndarray:
        """(n, 40, 40, 3) uint8 crops with no index."""
        return np.concatenate(self.pool.map(_render_chunk, self._chunks("neg", n, rng)))

    def close(self) -> None:
        self.pool.terminate()


def _to_tensor(x: np.ndarray, device=None):
    import torch

    t = torch.from_numpy(np.ascontiguousarray(x[..., ::-1].transpose(0, 3, 1, 2)))
    return (t if device is None else t.to(device)).float() / 255.0


def train_reader(out_dir: Path, held_out: str | None = None, seed: int = 0, epochs: int = 8, batch: int = 128,
                 bank: int = 12000, threads: int | None = None, log=print,
                 refresh: int = 4, init: Path | None = None, lr: float = 3e-3,
                 turn: str = "any", grey: float = 0.15, cast: float = 0.0,
                 width: float = 1.0, not_index: float = 0.0, not_index_weight: float = 0.5,
                 crowd: float = 0.0, real: Path | None = None, real_share: float = 0.0,
                 device: str = "cpu", workers: int = 1, covered: float = 0.0,
                 favoured: dict[str, float] | None = None, scene: Path | None = None,
                 scene_share: float = 0.0) -> tuple[Path, ReaderRun]:
    """Train the stage-2 classifier on crops rendered on the fly and export it to ONNX with its temperature.

    Args:
        out_dir: where ``card_reader.onnx``, ``card_reader.pt`` and ``card_reader.json`` go.
        held_out: the deck design kept out of training entirely (default: the last design name).
        seed: seeds numpy, torch and the crop renderer.
        epochs, batch, bank: passes over a bank of ``bank`` rendered crops (1/``refresh`` of it re-rendered
            each epoch).
        init: a ``card_reader.pt`` state dict, or an exported ``card_reader.onnx`` (:func:`reader_state_from_onnx`),
            to start from (fine-tuning) instead of random weights.
        lr: peak learning rate of the one-cycle schedule.
        turn: ``"any"`` or ``"upright"`` (:class:`IndexCropSource`); an upright reader is exported to read
            each crop at turns 0 and 90 degrees. Validation and held-out crops are always turned by any
            angle, as the runtime meets them, and scored as the runtime reads them.
        grey, cast: colour doubt in the training crops (:class:`IndexCropSource`).
        width: channel multiplier of :func:`reader_net` (``init`` must have the same).
        not_index: share of the bank drawn from :class:`NotAnIndexSource` (crops with no index), trained towards the
            uniform distribution with weight ``not_index_weight`` (outlier exposure); 0 for none.
        crowd: share of training crops with the next card of a fanned hand beside the index
            (:class:`IndexCropSource`).
        covered: share of training crops whose index the next card mostly hides, trained towards the uniform
            distribution with weight ``not_index_weight`` as the crops with no index (:class:`IndexCropSource`).
        real: the `real-cards-zk7wu` folder; its fine-tune photos (:func:`vision.evaluate.zk7wu_fine_tune`) give
            a ``real_share`` of the bank (:class:`models.real_indices.RealIndexSource`, turned upright by the
            reader ``init`` names, or the committed one).
        device: torch device the net trains and is validated on each epoch (``"cuda"`` where a GPU is lent); the
            calibration and the export run on the CPU.
        workers: processes rendering the training bank (1: rendered in this process, as before); with more, the
            bank's crops come in seeded chunks (:class:`_ChunkRenderer`) and the real crops, if any, are cut here.
        favoured: deck design -> share of the rendered training crops drawn from it (:class:`IndexCropSource`);
            validation crops stay even across the designs.
        scene: an ``.npz`` of index crops the detector cut from rendered round scenes
            (:func:`models.scene_indices.render_scene_crops`); ``scene_share`` of the bank is drawn from it
            (:class:`models.scene_indices.SceneIndexSource`, turned upright by the reader ``init`` names, or the
            committed one), its crops on no index trained towards "unreadable" as the ``not_index`` ones.

    Returns:
        (path of the ONNX file, the run record with held-out accuracy and calibration).
    """
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    random.seed(seed)
    torch.set_num_threads(threads or os.cpu_count() or 1)
    names = design_names()
    held_out = held_out or names[-1]
    train_names = [n for n in names if n != held_out]
    log(f"stage 2: designs {train_names}, held out {held_out!r}")
    t0 = time.time()
    turns, combine = READ_AT[turn]
    src = IndexCropSource(train_names, seed, turn=turn, grey=grey, cast=cast, crowd=crowd, covered=covered,
                          favoured=favoured)
    neg_src = NotAnIndexSource(train_names, seed + 3) if not_index > 0 else None
    real_src = scene_src = teacher = None
    if (real is not None and real_share > 0) or (scene is not None and scene_share > 0):
        from vision.card_reader import FP32_READER, CardReader

        # turns the real and scene crops upright: the reader this run starts from, else the committed one
        teacher = CardReader(init if init is not None and Path(init).suffix == ".onnx" else FP32_READER)
    if real is not None and real_share > 0:
        from models.real_indices import RealIndexSource

        real_src = RealIndexSource(Path(real), seed + 5, teacher=teacher)
        log(f"real crops: {len(real_src)} indices in {len(real_src.photos)} fine-tune photos of {real}")

    if scene is not None and scene_share > 0:
        from models.scene_indices import SceneIndexSource

        scene_src = SceneIndexSource(Path(scene), seed + 6, teacher=teacher, held_out=(held_out,))
        log(f"scene crops: {len(scene_src)} indices from {scene}")

    renderer = _ChunkRenderer(workers, dict(designs=train_names, seed=seed, turn=turn, grey=grey, cast=cast,
                                            crowd=crowd, covered=covered, favoured=favoured),
                               train_names if neg_src is not None else None) \
        if workers > 1 else None

    def draw(n: int) -> tuple[np.ndarray, np.ndarray]:
        """n crops, a ``not_index`` share of them with no index (label -1), a ``real_share`` of them real, a
        ``scene_share`` of them cut from round scenes."""
        k = int(rng.binomial(n, not_index)) if neg_src is not None else 0
        k_real = int(rng.binomial(n - k, real_share)) if real_src is not None else 0
        k_scene = int(rng.binomial(n - k - k_real, scene_share)) if scene_src is not None else 0
        rendered = n - k - k_real - k_scene
        x, y = renderer.index_crops(rendered, rng) if renderer else _make_set(src, rendered)
        for source, m in ((real_src, k_real), (scene_src, k_scene)):
            if m:
                xs, ys = zip(*(source.sample() for _ in range(m)))
                x, y = np.concatenate([x, np.stack(xs)]), np.concatenate([y, np.array(ys, np.int64)])
        if k:
            neg = renderer.not_index_crops(k, rng) if renderer else np.stack([neg_src.sample() for _ in range(k)])
            x = np.concatenate([x, neg])
            y = np.concatenate([y, np.full(k, -1, np.int64)])
        return x, y

    rng = np.random.default_rng(seed)
    # a bank of rendered crops, partly re-rendered every epoch, keeps rendering off the critical path
    bank_x, bank_y = draw(bank)
    val_x, val_y = _make_set(IndexCropSource(train_names, seed + 1), 1500)
    ho_x, ho_y = _make_set(IndexCropSource([held_out], seed + 2), 2000)
    neg_val_src = NotAnIndexSource(train_names, seed + 4)
    neg_val = np.stack([neg_val_src.sample() for _ in range(1000)])
    log(f"rendered {bank + 4500} crops in {time.time() - t0:.0f}s")
    net = reader_net(width=width)
    if init is not None:
        if Path(init).suffix == ".onnx":
            state = reader_state_from_onnx(Path(init), width, bank_x[bank_y >= 0][:512])
        else:
            state = torch.load(init, map_location="cpu")
        if state["0.weight"].shape != net.state_dict()["0.weight"].shape:
            state = widen_reader(state, width)  # a narrower reader grown to this width
        net.load_state_dict(state)
        log(f"starting from {init}")
    net.to(device)
    params = sum(p.numel() for p in net.parameters())
    steps_per_epoch = bank // batch
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * steps_per_epoch, pct_start=0.2)
    for epoch in range(epochs):
        if epoch:
            at = rng.choice(bank, bank // refresh, replace=False)
            bank_x[at], bank_y[at] = draw(len(at))
        order = rng.permutation(bank)
        net.train()
        for k in range(steps_per_epoch):
            idx = order[k * batch:(k + 1) * batch]
            z, y = net(_to_tensor(bank_x[idx], device)), torch.from_numpy(bank_y[idx]).to(device)
            card = y >= 0
            loss = F.cross_entropy(z[card], y[card], label_smoothing=0.05)
            if (~card).any():  # no index: towards uniform (cross-entropy to it, less its constant log 52)
                loss = loss - not_index_weight * F.log_softmax(z[~card], dim=1).mean(1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        acc = _accuracy(net, val_x, val_y, turns, combine)
        log(f"epoch {epoch + 1}/{epochs} loss {loss.item():.3f} val {acc:.4f} ({time.time() - t0:.0f}s)")
        out_dir.mkdir(parents=True, exist_ok=True)
        torch.save(net.state_dict(), out_dir / "card_reader.last.pt")  # a killed run loses at most one epoch
    if renderer is not None:
        renderer.close()
    steps = epochs * steps_per_epoch
    net.to("cpu")
    net.eval()
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), out_dir / "card_reader.pt")
    run = ReaderRun(designs=train_names, held_out=held_out, seed=seed, steps=steps, batch=batch,
                    seconds=0.0, params=int(params), width=width)
    onnx_path = calibrate_and_export(net, out_dir, run, (val_x, val_y), (ho_x, ho_y), turns, combine)
    p_neg = _read(_turn_logits(net, neg_val, turns), run.temperature, combine)
    run.not_index = not_index
    run.favoured = dict(favoured) if favoured else None
    run.scene = {"file": str(scene), "share": scene_share} if scene_src is not None else None
    run.not_index_accepted = round(float((p_neg.max(1) >= run.threshold).mean()), 4)
    run.seconds = round(time.time() - t0, 1)
    (out_dir / "card_reader.json").write_text(json.dumps(asdict(run), indent=2))
    log(f"stage 2 done: {json.dumps(asdict(run))}")
    return onnx_path, run


def calibrate_and_export(net, out_dir: Path, run: ReaderRun, val: tuple, held_out: tuple,
                         turns: tuple[int, ...], combine: str, threshold: float = 0.5) -> Path:
    """Fit the reader's temperature as the runtime reads, fill ``run``'s scores and export the ONNX file.

    The temperature is fitted on degraded renders of the training designs (``val``: (N, 40, 40, 3)
    crops, (N,) labels), read at ``turns`` and combined by ``combine``
    (:data:`vision.card_reader.COMBINE`); the held-out design's crops stay a test.

    Returns:
        the path of ``out_dir / "card_reader.onnx"``.
    """
    (val_x, val_y), (ho_x, ho_y) = val, held_out
    z_val, z_ho = _turn_logits(net, val_x, turns), _turn_logits(net, ho_x, turns)
    T = fit_temperature(z_val, val_y, combine)
    p_ho = _read(z_ho, T, combine)
    top, keep = p_ho.argmax(1), p_ho.max(1) >= threshold
    run.val_acc = round(float((_read(z_val, T, combine).argmax(1) == val_y).mean()), 4)
    run.heldout_acc = round(float((top == ho_y).mean()), 4)
    run.temperature, run.threshold = round(float(T), 4), threshold
    run.heldout_coverage = round(float(keep.mean()), 4)
    run.heldout_selective_acc = round(float((top[keep] == ho_y[keep]).mean()) if keep.any() else 0.0, 4)
    run.confusions = _pairs(top, ho_y)
    run.turns, run.combine = list(turns), combine
    return export_reader(net, out_dir / "card_reader.onnx", T, threshold, turns, combine)


def _logits(net, x: np.ndarray) -> np.ndarray:
    import torch

    device = next(net.parameters()).device
    with torch.no_grad():
        return np.concatenate([net(_to_tensor(x[i:i + 256], device)).cpu().numpy() for i in range(0, len(x), 256)])


READ_AT = {"upright": ((0, 90, 180, 270), "mean"), "any": ((0,), "best")}
"""Per training ``turn``: the turns at which the runtime reads each crop and how it combines them.

An upright reader (trained within 45 degrees of upright or upside down) reads every crop at the four
quarter turns and averages: two readings lie in its band. On run 5's held-out crops that gave 92.1 %
top-1 and 97.3 % of answers right, against 91.1 % and 94.9 % for the best of two turns."""


def _turn_logits(net, x: np.ndarray, turns: tuple[int, ...]) -> np.ndarray:
    """(T, N, 52) logits of N crops read at each of T turns, as :class:`vision.card_reader.CardReader` turns them."""
    from vision.card_reader import turned_crops

    return _logits(net, turned_crops(x, turns)).reshape(len(turns), len(x), -1)


def _read(z: np.ndarray, temperature: float, combine: str) -> np.ndarray:
    """(N, 52) probabilities from (T, N, 52) logits, as the runtime combines its turns."""
    from vision.card_reader import COMBINE

    from vision.card_reader import softmax

    return COMBINE[combine](softmax(z / temperature))


def _accuracy(net, x, y, turns: tuple[int, ...] = (0,), combine: str = "best") -> float:
    net.eval()
    return float((_read(_turn_logits(net, x, turns), 1.0, combine).argmax(1) == y).mean())


def fit_temperature(logits: np.ndarray, labels: np.ndarray, combine: str = "best") -> float:
    """The temperature minimising held-out negative log-likelihood (Guo et al. 2017), by grid search.

    Args:
        logits: (N, 52), or (T, N, 52) for crops read at T turns and combined by ``combine``.
        labels: (N,) class indices.
    """
    z = logits if logits.ndim == 3 else logits[None]
    best, best_t = float("inf"), 1.0
    for t in np.exp(np.linspace(np.log(0.2), np.log(10), 130)):
        p = _read(z, t, combine)
        nll = -np.log(np.clip(p[np.arange(len(labels)), labels], 1e-12, 1)).mean()
        if nll < best:
            best, best_t = nll, float(t)
    return best_t


def _pairs(pred: np.ndarray, truth: np.ndarray, top: int = 15) -> list:
    from collections import Counter

    from rules.cards import CARD_LABELS

    c = Counter((CARD_LABELS[t], CARD_LABELS[p]) for p, t in zip(pred, truth) if p != t)
    return [{"truth": a, "read": b, "count": n} for (a, b), n in c.most_common(top)]


def interpolate_readers(base: Path, tuned: Path, alpha: float, out: Path, seed: int = 43,
                        held_out: str = "proc-caladea-std") -> float:
    """Weights ``(1 - alpha) * base + alpha * tuned`` of two exported readers, its temperature refitted (WiSE-FT).

    Wortsman et al. (CVPR 2022) interpolate a model's weights before and after fine-tuning: the target gain is
    partly kept and what the fine-tune cost elsewhere partly given back. Here ``tuned`` is ``base`` fine-tuned
    on real photos (``train_reader(real=...)``) and ``base`` the reader trained on renders. Both must be exports of
    the same graph (batch norms folded), so every weight tensor is interpolated as it stands. The temperature is
    refitted, as :func:`calibrate_and_export` fits it, on 1,500 degraded renders of the training designs (``seed``),
    read at the four turns and averaged; threshold, turns and the rest of the metadata are ``base``'s.

    Args:
        base, tuned: ``card_reader.onnx`` files of one architecture.
        alpha: share of ``tuned``, in [0, 1].
        out: the ONNX file to write.

    Returns:
        the refitted temperature.

    Raises:
        ValueError: ``alpha`` outside [0, 1], or the two graphs' weights differ in names or shapes.
    """
    import onnx
    from onnx import numpy_helper

    from vision.card_reader import CardReader, crops_to_blob, turned_crops

    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], not {alpha}")
    a, b = onnx.load(str(base)), onnx.load(str(tuned))
    other = {t.name: numpy_helper.to_array(t) for t in b.graph.initializer}
    for t in a.graph.initializer:
        x = numpy_helper.to_array(t)
        if t.name not in other or other[t.name].shape != x.shape:
            raise ValueError(f"{tuned}: no weight {t.name!r} of shape {x.shape} as in {base}")
        if x.dtype.kind == "f":
            t.CopyFrom(numpy_helper.from_array(((1 - alpha) * x + alpha * other[t.name]).astype(x.dtype), t.name))
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(a, str(out))
    reader = CardReader(out)
    x, y = _make_set(IndexCropSource([n for n in design_names() if n != held_out], seed), 1500)
    z = np.concatenate([reader.session.run(None, {reader.input_name: crops_to_blob(turned_crops(x[i:i + 100], reader.turns))})[0]
                        .reshape(len(reader.turns), -1, 52) for i in range(0, len(x), 100)], axis=1)
    temperature = fit_temperature(z, y, reader.combine)
    model = onnx.load(str(out))
    for prop in model.metadata_props:
        if prop.key == "temperature":
            prop.value = f"{temperature:.6f}"
    onnx.save(model, str(out))
    return temperature


def export_reader(net, path: Path, temperature: float, threshold: float, turns: tuple[int, ...] = (0,),
                  combine: str = "best") -> Path:
    """Export the classifier to ONNX (opset 18, dynamic batch) with its calibration in the metadata."""
    import onnx
    import torch

    from rules.cards import CARD_LABELS
    from vision.card_reader import CROP_MARGIN, CROP_SIZE

    net.eval()
    tmp = path.with_name(path.name + ".tmp")
    dummy = torch.zeros(1, 3, CROP_SIZE, CROP_SIZE)
    torch.onnx.export(net, dummy, str(tmp), input_names=["images"], output_names=["logits"], opset_version=18,
                      dynamic_axes={"images": {0: "batch"}, "logits": {0: "batch"}}, dynamo=False)
    model = onnx.load(str(tmp))
    meta = {"classes": json.dumps(list(CARD_LABELS)), "temperature": f"{temperature:.6f}",
            "threshold": f"{threshold:.4f}", "crop": str(CROP_SIZE), "margin": str(CROP_MARGIN),
            "turns": json.dumps(list(turns)), "combine": combine,
            "task": "pitwatch corner-index reader"}
    for k, v in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.save(model, str(tmp))
    os.replace(tmp, path)
    return path


# --- stage 1: the ultralytics detector -----------------------------------------------------------------


STAGE1_AUGMENT = dict(fliplr=0.0, flipud=0.0, mosaic=1.0, close_mosaic=3, hsv_h=0.005, hsv_s=0.5, hsv_v=0.4,
                      degrees=0.0, perspective=0.0, translate=0.1, scale=0.3, shear=0.0, mixup=0.0, copy_paste=0.0)
"""Augmentation: flips off (mirrored glyphs exist on no card), rotation/perspective rendered with exact boxes instead,
small hue shift so suit colour survives (synthetic-to-real note 4)."""


def train_detector(data: Path, model: str = "yolo11n.yaml", epochs: int = 40, imgsz: int = 320, batch: int = 16,
                   seed: int = 0, project: Path = CACHE / "train", name: str = "stage1", fraction: float = 1.0,
                   plots: bool = False, resume: bool = False, threads: int | None = None, init: Path | None = None,
                   lr0: float = 0.01, mosaic: float = 1.0, close_mosaic: int = 3, warmup_epochs: float = 3.0,
                   freeze: int = 0) -> Path:
    """Train stage 1 from a yaml (no pretrained weights), on the CPU, checkpointing every epoch (``last.pt``).

    Args:
        init: a local stage-1 ``.pt`` whose weights start the run (fine-tuning, e.g. on new crops);
            nothing is downloaded.
        lr0, mosaic, close_mosaic, warmup_epochs: ultralytics' initial learning rate, mosaic probability,
            the last epochs run without mosaic, and the learning-rate warm-up (short when fine-tuning).
        freeze: the first ``freeze`` layers keep their weights (10: yolo11n's backbone), so a fine-tune on a new
            kind of object moves the neck and head only; 0 trains every layer.

    Returns:
        Path of ``best.pt``.

    Raises:
        ValueError: ``model`` is a ``.pt`` name (it would download weights).
    """
    if not str(model).endswith(".yaml") and not resume:
        raise ValueError(f"{model}: train from an architecture yaml; a .pt name downloads weights")
    offline_ultralytics(threads)
    from ultralytics import YOLO

    project = Path(project).resolve()
    if resume:
        yolo = YOLO(str(project / name / "weights" / "last.pt"))
        yolo.train(resume=True)
    else:
        yolo = YOLO(model)
        yolo.train(data=str(Path(data).resolve()), epochs=epochs, imgsz=imgsz, batch=batch, device="cpu", workers=0,
                   seed=seed, deterministic=True, pretrained=str(init) if init else False, project=str(project),
                   name=name, exist_ok=True, plots=plots, amp=False, fraction=fraction, patience=1000, val=True,
                   cache=False, verbose=False,
                   **{**STAGE1_AUGMENT, "mosaic": mosaic, "close_mosaic": close_mosaic, "lr0": lr0,
                      "warmup_epochs": warmup_epochs, **({"freeze": int(freeze)} if freeze else {})})
    return project / name / "weights" / "best.pt"
