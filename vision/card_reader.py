"""Stage 2: read rank and suit from each corner-index crop, with a calibrated confidence.

Each corner index found by stage 1 is cut from the **full-resolution** frame
(not the network's downscaled input), padded to a square with a margin, resized
to ``size`` x ``size`` RGB and classified into the 52 cards of
:data:`rules.cards.CARD_LABELS` (10, J, Q, K distinct).  The logits are divided
by a temperature fitted on degraded held-out renders (Guo et al. 2017) and the
card is reported ``unreadable`` when the calibrated top probability is below
``threshold`` (never a silent guess).

The same :func:`index_crop` is used to make the training crops, so training and
inference see the same pixels.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from rules.cards import CARD_LABELS, RED_SUITS, UNREADABLE
from vision.detections import Detections
from vision.ink import black_ink_only, frame_in_colour
from vision.onnx_runtime import ModelFileError, open_session, to_blob

FP32_READER = Path(__file__).resolve().parents[1] / "models" / "card_reader.onnx"
"""The committed stage-2 model, float (the one training starts from and exports)."""
DEFAULT_READER = FP32_READER.with_name("card_reader_int8.onnx")
"""The stage-2 model the runtime uses: :data:`FP32_READER` quantised to int8 (7-bit weights, so it reads alike on
every CPU: :func:`models.export.quantize_reader`), its calibration and turns kept."""

CROP_SIZE = 40
"""Side of the classifier's square RGB input, pixels."""
CROP_MARGIN = 0.15
"""Fraction of the box's longer side added around it before cutting (stage-1 boxes are not exact)."""


def index_crop(image: np.ndarray, xyxy, size: int = CROP_SIZE, margin: float = CROP_MARGIN) -> np.ndarray:
    """Cut one corner index as the classifier sees it.

    Args:
        image: (H, W, 3) uint8 BGR full-resolution frame.
        xyxy: (4,) box of the index, image pixels.
        size: output side, pixels.
        margin: fraction of the longer box side added on every side.

    Returns:
        (size, size, 3) uint8 BGR: the square around the box centre (side = longer box side
        x (1 + 2 margin)), pixels outside the frame replicated from its edge.
    """
    x1, y1, x2, y2 = [float(v) for v in xyxy]
    side = max(x2 - x1, y2 - y1, 2.0) * (1 + 2 * margin)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    s = size / side
    M = np.array([[s, 0, size / 2 - s * cx], [0, s, size / 2 - s * cy]], np.float32)
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, M, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def square_crop(image: np.ndarray, square, size: int = CROP_SIZE, margin: float = CROP_MARGIN) -> np.ndarray:
    """Cut one corner index from the square stage 1 found it in, warped upright.

    With zone crops stage 1 sees each index in the rectified layout frame; the axis-aligned
    image box of that box is up to twice too wide (a box of a rotated box), so the reader
    is given the square itself, warped to the output, which also undoes the camera's tilt.

    Args:
        image: (H, W, 3) uint8 BGR full-resolution frame.
        square: (4, 2) image pixels, corners TL, TR, BR, BL of a square (in the layout plane)
            centred on the index whose side is the index box's longer side.
        size: output side, pixels.
        margin: fraction of the square's side added on every side, as :func:`index_crop`.

    Returns:
        (size, size, 3) uint8 BGR, pixels outside the frame replicated from its edge.
    """
    sq = np.asarray(square, np.float32).reshape(4, 2)
    side = float(np.mean(np.linalg.norm(sq - np.roll(sq, 1, 0), axis=1)))
    inner = size / (1 + 2 * margin)
    scale = inner / max(side, 2.0)
    # shrinking with a bilinear warp aliases thin strokes: warp at a whole multiple, then area-average down
    k = max(1, int(np.ceil(1.0 / scale))) if scale < 0.8 else 1
    m = (size - inner) / 2
    dst = np.array([[m, m], [size - m, m], [size - m, size - m], [m, size - m]], np.float32)
    dst = k * (dst + 0.5) - 0.5  # pixel centres: output pixel j averages the k warped pixels k*j .. k*j + k - 1
    crop = cv2.warpPerspective(image, cv2.getPerspectiveTransform(sq, dst), (size * k, size * k),
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return crop if k == 1 else cv2.resize(crop, (size, size), interpolation=cv2.INTER_AREA)


def crops_to_blob(crops) -> np.ndarray:
    """(B, H, W, 3) uint8 BGR index crops (a list or an array) -> (B, 3, H, W) float32 RGB in [0, 1]
    (:func:`vision.onnx_runtime.to_blob`, named for the reader's callers)."""
    return to_blob(crops)


def turned_crops(crops: np.ndarray, turns: tuple[int, ...]) -> np.ndarray:
    """(T * B, H, W, 3): the B crops of a (B, H, W, 3) batch once per turn (degrees, multiples of 90, anticlockwise)."""
    return np.concatenate([np.rot90(crops, k=(t // 90) % 4, axes=(1, 2)) for t in turns])


def best_turn(p: np.ndarray) -> np.ndarray:
    """(T, N, C) probabilities of N crops read at T turns -> (N, C): per crop, the turn read most confidently.

    A reader trained only near upright and upside down is unsure of a crop turned a quarter, so
    the turn it is most sure of is the one in its band.
    """
    if p.shape[0] == 1:
        return p[0]
    pick = p.max(-1).argmax(0)
    return p[pick, np.arange(p.shape[1])]


def mean_of_turns(p: np.ndarray) -> np.ndarray:
    """(T, N, C) probabilities of N crops read at T turns -> (N, C): their mean over the turns.

    Read at all four quarter turns, two readings lie in an upright reader's band and two outside,
    where it is unsure and spreads its probability; the mean is led by the two sure ones and is
    only confident where they agree (on rendered held-out crops, its temperature refitted: 97.3 % of its
    answers right, against 94.9 % for :func:`best_turn` of two turns; ``models/MODEL_CARD.md``).
    """
    return p.mean(0)


COMBINE = {"best": best_turn, "mean": mean_of_turns}
"""How the readings of one crop at several turns become one: metadata ``combine`` of the reader."""


EARLY_TURNS = (0, 180)
"""The turns a crop is read at first where a reader averages all four quarter turns (``combine`` ``mean``): an
index upright or upside down in its crop (a seat's cards in its rectified zone crop) lies in the reader's band at
both."""
EARLY_SURE = 0.99
"""Least top probability of the mean over :data:`EARLY_TURNS` for a crop to be taken from those two readings alone;
the others are read at the other two turns as well and averaged over all four.  Measured (twenty-sixth session,
``.cache/s26``): of 3,422 crops of ``eval detect``'s sets, 27 % were taken early and none changed its card or its
readable/unreadable verdict; on the bench's frames 67 %."""


def softmax(logits: np.ndarray) -> np.ndarray:
    """Softmax over the last axis of (..., C) logits (rows of (N, C) card logits, slots of chip stacks)."""
    z = logits - logits.max(-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(-1, keepdims=True)


class CardReader:
    """The stage-2 classifier.

    Args:
        model: ``.onnx`` file; its metadata holds ``temperature``, ``threshold``, ``classes``, ``crop`` and
            ``turns`` (the turns, degrees, at which every crop is read; default ``[0]``) and ``combine``
            (:data:`COMBINE`: how those readings become one; default ``best``).
        threads: onnxruntime intra-op threads.
        threshold: calibrated top probability below which a card is ``unreadable`` (default: the model's).
        turns, combine: override the model's (e.g. ``(0, 90)`` and ``"best"`` to halve the reading cost).
        early_sure: for a model read at all four quarter turns and averaged: a crop whose mean over
            :data:`EARLY_TURNS` reaches this is not read at the other two (:data:`EARLY_SURE`); None: every
            crop at every turn.

    Raises:
        ModelFileError: the model is missing, corrupt or does not output the 52 cards.
    """

    def __init__(self, model: str | Path = DEFAULT_READER, threads: int | None = None,
                 threshold: float | None = None, providers: list[str] | None = None,
                 turns: tuple[int, ...] | None = None, combine: str | None = None,
                 early_sure: float | None = EARLY_SURE) -> None:
        self.path = Path(model)
        self.session = open_session(self.path, threads=threads, providers=providers)
        meta = self.session.get_modelmeta().custom_metadata_map
        self.input_name = self.session.get_inputs()[0].name
        self.classes = tuple(json.loads(meta["classes"])) if "classes" in meta else CARD_LABELS
        if tuple(self.classes) != CARD_LABELS:
            raise ModelFileError(f"{self.path}: classes are not the 52 cards in rules.cards.CARD_LABELS order")
        self.temperature = float(meta.get("temperature", 1.0))
        self.threshold = float(threshold if threshold is not None else meta.get("threshold", 0.5))
        self.size = int(meta.get("crop", CROP_SIZE))
        self.margin = float(meta.get("margin", CROP_MARGIN))
        self._red = np.array([c[-1] in RED_SUITS for c in self.classes])
        self.turns = tuple(int(t) for t in (turns if turns is not None else json.loads(meta.get("turns", "[0]"))))
        self.combine = combine or meta.get("combine", "best")
        if self.combine not in COMBINE or not self.turns or any(t % 90 for t in self.turns):
            raise ValueError(f"turns must be multiples of 90 and combine one of {sorted(COMBINE)}, "
                             f"not {self.turns} / {self.combine!r}")
        four = self.combine == "mean" and sorted(t % 360 for t in self.turns) == [0, 90, 180, 270]
        self.early_sure = early_sure if four else None

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        """(N, 52) float32 calibrated probabilities for N crops from :func:`square_crop` or :func:`index_crop`.

        Each crop is read at every one of :attr:`turns` in one batch and :attr:`combine` makes them one; with
        :attr:`early_sure`, at :data:`EARLY_TURNS` first, and only the crops not sure there at the other turns.
        """
        if not crops:
            return np.zeros((0, len(self.classes)), np.float32)
        crops = np.stack(crops)
        if self.early_sure is None:
            return COMBINE[self.combine](self._read_turned(crops, self.turns)).astype(np.float32)
        later = tuple(t for t in self.turns if t % 360 not in EARLY_TURNS)
        first = self._read_turned(crops, EARLY_TURNS)
        p = first.mean(0)
        unsure = np.flatnonzero(p.max(-1) < self.early_sure)
        if len(unsure):
            read = dict(zip(EARLY_TURNS + later, [*first[:, unsure], *self._read_turned(crops[unsure], later)]))
            p[unsure] = np.stack([read[t % 360] for t in self.turns]).mean(0)  # in the model's order: as all at once
        return p.astype(np.float32)

    def _read_turned(self, crops: np.ndarray, turns: tuple[int, ...]) -> np.ndarray:
        """(T, N, 52) calibrated probabilities of (N, H, W, 3) crops read at each of T ``turns``, one batch."""
        logits = self.session.run(None, {self.input_name: crops_to_blob(turned_crops(crops, turns))})[0]
        return softmax(logits / self.temperature).reshape(len(turns), len(crops), -1)

    def read(self, image: np.ndarray, xyxy: np.ndarray,
             squares: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Read the cards of N index boxes in one batch.

        Args:
            image: (H, W, 3) uint8 BGR full-resolution frame.
            xyxy: (N, 4) index boxes, image pixels.
            squares: optional (N, 4, 2) image pixels, each index's square in the frame stage 1 saw it
                in (:func:`square_crop`); used instead of the boxes where given.

        Returns:
            ((N,) object labels (a card or ``unreadable``), (N,) float32 calibrated score of the top card,
            (N, 52) float32 probabilities, the red cards' set to 0 for an index showing no red ink in a colour
            frame: :mod:`vision.ink`).
        """
        boxes = np.asarray(xyxy).reshape(-1, 4)
        if squares is not None:
            crops = [square_crop(image, q, self.size, self.margin) for q in np.asarray(squares).reshape(-1, 4, 2)]
        else:
            crops = [index_crop(image, b, self.size, self.margin) for b in boxes]
        return self.read_crops(crops, in_colour=bool(crops) and frame_in_colour(image))

    def read_crops(self, crops: list[np.ndarray], in_colour: bool = True,
                   black: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Read N crops already cut (:func:`square_crop`, :func:`index_crop`) as :meth:`read` reads its boxes.

        Args:
            crops: N (size, size, 3) uint8 BGR crops.
            in_colour: whether the frame they were cut from is in colour (:func:`vision.ink.frame_in_colour`); only
                then can an index's missing red ink strike out the red cards.
            black: optional (N,) bool, :func:`vision.ink.black_ink_only` of the crops where it is already known.

        Returns:
            as :meth:`read`.
        """
        p = self.probabilities(crops)
        if len(p) and in_colour:
            black = black_ink_only(crops) if black is None else np.asarray(black, bool)
            if black.any():  # no red ink on the index: its red readings are impossible, not merely unlikely
                # removed, not renormalised: read among the black cards alone the reader names more cards but
                # guesses (`eval detect`: martinabeleda precision 0.82 -> 0.71, held-out webcam 0.92 -> 0.89)
                p[np.ix_(black, self._red)] = 0.0
        top = p.argmax(1) if len(p) else np.zeros(0, np.int64)
        score = p[np.arange(len(p)), top] if len(p) else np.zeros(0, np.float32)
        labels = np.array([self.classes[t] if s >= self.threshold else UNREADABLE for t, s in zip(top, score)],
                          dtype=object)
        return labels, score.astype(np.float32), p

    def read_detections(self, image: np.ndarray, dets: Detections, index_class: int = 0,
                        cache: dict | None = None) -> Detections:
        """Fill ``label``, ``score`` and the ``probs`` column of the corner-index rows of ``dets``.

        Args:
            cache: live video: the readings of the previous frame, keyed by each index's square
                (``index_square``, image px). Stage 1 hands back a zone's detections unchanged when its
                pixels did not change, squares included, so those indices are not read again. Replaced
                in place by this frame's readings.
        """
        rows = np.flatnonzero(dets.class_id == index_class)
        if len(rows) == 0:
            if cache is not None:
                cache.clear()
            return dets
        squares = dets.data.get("index_square")
        keys = [squares[r].tobytes() for r in rows] if cache is not None and squares is not None else None
        todo = [i for i, k in enumerate(keys) if k not in cache] if keys is not None else list(range(len(rows)))
        labels = np.empty(len(rows), dtype=object)
        score = np.zeros(len(rows), np.float32)
        p = np.zeros((len(rows), len(self.classes)), np.float32)
        if todo:
            sel = rows[todo]
            labels[todo], score[todo], p[todo] = self.read(image, dets.xyxy[sel],
                                                           None if squares is None else squares[sel])
        if keys is not None:
            for i, k in enumerate(keys):
                if k in cache:
                    labels[i], score[i], p[i] = cache[k]
            cache.clear()
            cache.update((k, (labels[i], score[i], p[i])) for i, k in enumerate(keys))
        dets.label[rows] = labels
        dets.score[rows] = score
        probs = dets.column("probs").astype(object)
        for r, row in zip(rows, p):
            probs[r] = row
        dets.data["probs"] = probs
        return dets
