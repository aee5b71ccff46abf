"""One detection record passed between every model and tool (supervision-style, column arrays).

Every stage adds columns instead of inventing its own type: stage 1 fills boxes,
class ids and scores; stage 2 (:mod:`vision.card_reader`) fills ``label`` and
``score`` of corner indices; grouping (:mod:`vision.grouping`) fills ``group``;
the chip reader (:mod:`vision.chips`) fills the chip columns in ``data``.

Stage-1 classes (:data:`STAGE1_CLASSES`): ``0 index`` (one printed corner
index: rank glyph and suit pip together), ``1 BACK`` (a face-down card),
``2 chip`` (one chip stack).

Example:
    >>> import numpy as np
    >>> d = Detections(xyxy=np.array([[0, 0, 10, 20]], np.float32), class_id=np.array([0]),
    ...                score=np.array([0.9], np.float32))
    >>> len(d), d.label.tolist(), d.heights.tolist()
    (1, ['index'], [20.0])
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

STAGE1_CLASSES: tuple[str, ...] = ("index", "BACK", "chip")
"""Stage-1 detector classes, in class-id order."""
INDEX, BACK_ID, CHIP = 0, 1, 2


def _col(values, n: int, dtype, fill) -> np.ndarray:
    if values is None:
        return np.full(n, fill, dtype=dtype)
    arr = np.asarray(values, dtype=dtype).reshape(-1)
    if len(arr) != n:
        raise ValueError(f"column has {len(arr)} rows, boxes have {n}")
    return arr


@dataclass
class Detections:
    """N detections in one image, as columns.

    Attributes:
        xyxy: (N, 4) float32 boxes, pixels of the input image (x1, y1, x2, y2).
        class_id: (N,) int32 stage-1 class (:data:`STAGE1_CLASSES`).
        score: (N,) float32 confidence in [0, 1] of ``label`` (stage 1's score until stage 2 reads it).
        label: (N,) object str: ``index``/``BACK``/``chip`` from stage 1, then a card (``10H``),
            ``BACK`` or ``unreadable`` once read.
        zone: (N,) object, the layout zone name (``seat3.cards``) or ``None`` without a table file.
        group: (N,) int32 physical-card id shared by corner indices of one card; -1 = none.
        data: extra (N,)-row columns by name (e.g. ``count``, ``value``, ``layers``, ``note`` for chips,
            ``probs`` for readers), or per-row arrays such as ``index_square``: (N, 4, 2) float32 image
            pixels, the square around each box in the frame stage 1 saw it in (see
            :meth:`vision.detector.Stage1Detector.detect_crops`).
    """

    xyxy: np.ndarray
    class_id: np.ndarray
    score: np.ndarray
    label: np.ndarray | None = None
    zone: np.ndarray | None = None
    group: np.ndarray | None = None
    data: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.xyxy = np.asarray(self.xyxy, dtype=np.float32).reshape(-1, 4)
        n = len(self.xyxy)
        self.class_id = _col(self.class_id, n, np.int32, 0)
        self.score = _col(self.score, n, np.float32, 0.0)
        if self.label is None:
            self.label = np.array([STAGE1_CLASSES[c] if 0 <= c < len(STAGE1_CLASSES) else str(c)
                                   for c in self.class_id], dtype=object)
        else:
            self.label = _col(self.label, n, object, None)
        self.zone = _col(self.zone, n, object, None)
        self.group = _col(self.group, n, np.int32, -1)
        for k, v in list(self.data.items()):
            arr = np.asarray(v)
            if arr.ndim > 1 and arr.dtype != object:  # a per-row array column, e.g. (N, 4, 2) corner points
                if len(arr) != n:
                    raise ValueError(f"column {k!r} has {len(arr)} rows, boxes have {n}")
                self.data[k] = arr
            else:
                self.data[k] = _col(v, n, object if arr.dtype == object else arr.dtype, None)

    @classmethod
    def empty(cls) -> "Detections":
        """No detections (all columns with 0 rows)."""
        return cls(xyxy=np.zeros((0, 4), np.float32), class_id=np.zeros(0, np.int32), score=np.zeros(0, np.float32))

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index) -> "Detections":
        """Rows selected by a boolean mask (N,), an index array or a slice."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return Detections(
            xyxy=self.xyxy[index], class_id=self.class_id[index], score=self.score[index],
            label=self.label[index], zone=self.zone[index], group=self.group[index],
            data={k: v[index] for k, v in self.data.items()},
        )

    @staticmethod
    def merge(parts: list["Detections"]) -> "Detections":
        """Concatenate detections of one image; ``data`` columns missing in a part are filled with None."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return Detections.empty()
        keys = sorted({k for p in parts for k in p.data})
        data = {}
        for k in keys:
            shapes = {p.data[k].shape[1:] for p in parts if k in p.data}
            if all(k in p.data for p in parts) and len(shapes) == 1 and shapes != {()}:
                data[k] = np.concatenate([p.data[k] for p in parts])  # per-row arrays, e.g. (N, 4, 2)
                continue
            cols = [p.data[k] if k in p.data and p.data[k].ndim == 1 else np.full(len(p), None, object)
                    for p in parts]
            data[k] = np.concatenate([c.astype(object) for c in cols]) if len({c.dtype for c in cols}) > 1 else np.concatenate(cols)
        return Detections(
            xyxy=np.concatenate([p.xyxy for p in parts]), class_id=np.concatenate([p.class_id for p in parts]),
            score=np.concatenate([p.score for p in parts]), label=np.concatenate([p.label for p in parts]),
            zone=np.concatenate([p.zone for p in parts]), group=np.concatenate([p.group for p in parts]), data=data,
        )

    @property
    def heights(self) -> np.ndarray:
        """(N,) float32 box heights, pixels (for an index: the contract's "index height")."""
        return self.xyxy[:, 3] - self.xyxy[:, 1]

    @property
    def centers(self) -> np.ndarray:
        """(N, 2) float32 box centres, pixels."""
        return (self.xyxy[:, :2] + self.xyxy[:, 2:]) / 2

    def of_class(self, class_id: int) -> "Detections":
        """Rows whose stage-1 class is ``class_id``."""
        return self[self.class_id == class_id]

    def column(self, name: str) -> np.ndarray:
        """A ``data`` column, or an all-None column where no stage filled it."""
        return self.data.get(name, np.full(len(self), None, object))
