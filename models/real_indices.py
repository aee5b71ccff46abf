"""Real corner-index crops for fine-tuning the card reader: the fine-tune part of `real-cards-zk7wu`.

Only the photos :func:`vision.evaluate.zk7wu_fine_tune` names (the earlier shots of each kind) are read; the
later shots stay an evaluation that was never trained on, and ``pitwatch eval detect`` reports both parts.
The data is read from ``../shared`` at training time and never copied into the repository.

Each labelled corner box (an axis-aligned box around one printed index, at any angle) becomes crops the way the
runtime cuts them without a table file: a square on the box's centre, its side the box's longer side
(:func:`vision.card_reader.square_crop`), here drawn loose and off-centre with the spread stage 1's squares show,
turned a little, and lightly re-degraded, so one photo gives many views.

The reader is trained *upright* (:class:`models.train.IndexCropSource`, ``turn="upright"``): within 45 degrees of
upright or upside down, read at the four quarter turns at run time. A real index lies at any angle in its box, so
each one is turned by the quarter turn at which the reader it starts from reads it best (its teacher) before it
is trained on, and then upside down half of the time.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np


@dataclass
class RealIndex:
    """One labelled corner index of a fine-tune photo."""

    photo: int
    """Position in :attr:`RealIndexSource.photos`."""
    box: np.ndarray
    """(4,) float32 xyxy image pixels, the label's box."""
    label: int
    """Class index into :data:`rules.cards.CARD_LABELS`."""
    quarter: int = 0
    """Quarter turns (anticlockwise, ``np.rot90``) that bring the index nearest upright for the reader."""


class RealIndexSource:
    """Labelled crops from the fine-tune part of `real-cards-zk7wu` (see the module docstring).

    Args:
        root: the ``real-cards-zk7wu`` folder (``manifest.csv``, ``images/``, ``labels_bbox/``, ``classes.txt``).
        seed: random seed of the jitter.
        kinds: photo kinds to use (manifest ``kind``); default all three.
        teacher: a :class:`vision.card_reader.CardReader` whose best quarter turn of each index sets
            :attr:`RealIndex.quarter`; ``None`` keeps every index as cut (turn 0).

    Raises:
        FileNotFoundError: ``root`` has no ``manifest.csv``.
        ValueError: no labelled card index in the fine-tune part.
    """

    def __init__(self, root: Path, seed: int, kinds: tuple[str, ...] | None = None, teacher=None) -> None:
        from rules.cards import CARD_LABELS
        from vision.evaluate import _yolo_boxes, zk7wu_fine_tune

        root = Path(root)
        if not (root / "manifest.csv").is_file():
            raise FileNotFoundError(f"{root}: no manifest.csv (expected the real-cards-zk7wu folder)")
        names = [n.strip() for n in (root / "classes.txt").read_text().split("\n") if n.strip()]
        self.rng = np.random.default_rng(seed)
        self.photos: list[np.ndarray] = []
        self.files: list[str] = []
        self.indices: list[RealIndex] = []
        for r in csv.DictReader(open(root / "manifest.csv")):
            if (kinds and r["kind"] not in kinds) or not zk7wu_fine_tune(r["file"], r["kind"]):
                continue
            img = cv2.imread(str(root / "images" / r["file"]))
            if img is None:
                continue
            h, w = img.shape[:2]
            boxes, cls = _yolo_boxes(root / "labels_bbox" / (Path(r["file"]).stem + ".txt"), w, h)
            cards = [(b, names[c]) for b, c in zip(boxes, cls) if names[c] in CARD_LABELS]
            if not cards:
                continue
            self.photos.append(img)
            self.files.append(r["file"])
            self.indices += [RealIndex(len(self.photos) - 1, b, CARD_LABELS.index(lab)) for b, lab in cards]
        if not self.indices:
            raise ValueError(f"{root}: no labelled card index in the fine-tune photos")
        if teacher is not None:
            self._set_quarters(teacher)

    def _set_quarters(self, teacher) -> None:
        from vision.card_reader import square_crop

        crops = np.stack([square_crop(self.photos[x.photo], _square(x.box, 1.0, (0.0, 0.0), 0.0), teacher.size,
                                      teacher.margin) for x in self.indices])
        best = best_quarter_turns(teacher, crops, np.array([x.label for x in self.indices]))
        for x, k in zip(self.indices, best):
            x.quarter = int(k)

    def __len__(self) -> int:
        return len(self.indices)

    def sample(self, size: int = 40, margin: float | None = None) -> tuple[np.ndarray, int]:
        """One ((size, size, 3) uint8 BGR crop, class index into CARD_LABELS), jittered and lightly degraded."""
        from vision.card_reader import CROP_MARGIN, square_crop

        rng = self.rng
        x = self.indices[int(rng.integers(len(self.indices)))]
        img = self.photos[x.photo]
        scale = float(np.clip(np.exp(rng.normal(math.log(1.1), 0.12)), 0.9, 1.6))
        offset = tuple(np.clip(rng.normal(0, 0.08, 2), -0.25, 0.25))
        square = _square(x.box, scale, offset, float(rng.normal(0, 8)))
        crop = square_crop(img, square, size, CROP_MARGIN if margin is None else margin)
        crop = np.rot90(crop, x.quarter + 2 * int(rng.integers(2)))
        return _light_degrade(rng, np.ascontiguousarray(crop)), x.label


def _square(box: np.ndarray, scale: float, offset: tuple[float, float], angle_deg: float) -> np.ndarray:
    """(4, 2) image pixels TL, TR, BR, BL of a square on ``box`` (xyxy): side ``scale`` x its longer side,
    centre moved by ``offset`` of that side, turned by ``angle_deg``."""
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max(x2 - x1, y2 - y1) * scale
    c = np.array([(x1 + x2) / 2 + offset[0] * side, (y1 + y2) / 2 + offset[1] * side])
    a = math.radians(angle_deg)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    h = side / 2
    return np.array([c - h * u - h * v, c + h * u - h * v, c + h * u + h * v, c - h * u + h * v], np.float32)


def best_quarter_turns(teacher, crops: np.ndarray, labels: np.ndarray, chunk: int = 512) -> np.ndarray:
    """(N,) int64 quarter turns (anticlockwise, ``np.rot90`` on axes 1, 2) at which ``teacher`` reads each of the
    (N, H, W, 3) ``crops`` as its true class ``labels`` (N,) best, each turn read alone (the teacher's run-time mean
    over its turns hides which one it was)."""
    p = np.stack([np.concatenate([_single_turn_probabilities(teacher, np.rot90(crops[i:i + chunk], k, axes=(1, 2)))
                                  for i in range(0, len(crops), chunk)]) for k in range(4)])
    return p[:, np.arange(len(labels)), labels].argmax(0)


def _single_turn_probabilities(reader, crops: np.ndarray) -> np.ndarray:
    """(N, 52) probabilities of N crops read once each, as cut (no turns combined)."""
    from vision.card_reader import crops_to_blob, softmax

    logits = reader.session.run(None, {reader.input_name: crops_to_blob(crops)})[0]
    return softmax(logits / reader.temperature)


def _light_degrade(rng, img: np.ndarray) -> np.ndarray:
    """The photo is already real: only small changes of light, blur, noise and JPEG, so it stays what it was."""
    out = img.astype(np.float32) * rng.uniform(0.8, 1.2) * rng.uniform(0.93, 1.07, 3) + rng.uniform(-15, 15)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.25:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 0.9))
    if rng.random() < 0.25:
        out = np.clip(out + rng.normal(0, rng.uniform(2, 8), out.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.25:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 90))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out
