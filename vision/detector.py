"""Stage 1: the ONNX corner-index / BACK / chip-stack detector, on tiles or rectified zone crops.

Two ways to look at a frame:

* **Tiles** (no table file): the image is cut into overlapping square tiles of
  ``tile`` image pixels, each letterboxed into the ``imgsz`` network input, all
  tiles in one batch; boxes are mapped back and merged by NMS.  A 640x640 photo
  is one tile; a 1080p frame is 8.
* **Zone crops** (table file with calibration): every seat's zones and the
  dealer's card zone are rectified from the layout (mm) at ``px_per_mm`` through
  the calibration's homography, so indices appear upright-sized and the network
  sees only the felt that matters; crops of one size share a batch.

Two kinds of stage-1 graph: ultralytics' own export (``(B, 4 + nc, A)`` boxes, every
anchor decoded in the graph) and the runtime's default, that graph cut before its box
decoding and quantised to int8 (``pitwatch_head = levels`` in its metadata; only the
anchors that clear the score are decoded, :func:`vision.onnx_runtime.decode_yolo_levels`).

Example:
    >>> det = Stage1Detector()                                # doctest: +SKIP
    >>> det.levels                                            # doctest: +SKIP
    True
    >>> dets = det.detect_tiles(image)                        # doctest: +SKIP
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.chip_side import DEFAULT_CHIP_SIDE
from vision.detections import BACK_ID, STAGE1_CLASSES, Detections
from vision.onnx_runtime import (HEAD_LEVELS, ModelFileError, decode_yolo, decode_yolo_levels, int8_is_exact, letterbox,
                                 open_session, to_blob)

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
FP32_STAGE1 = MODELS_DIR / "stage1.onnx"
"""Stage 1 as ultralytics exported it, float (its weights: ``models/stage1.pt``)."""
INT8_STAGE1 = MODELS_DIR / "stage1_int8.onnx"
""":data:`FP32_STAGE1` cut before its box decoding (:func:`vision.onnx_runtime.decode_yolo_levels`) and quantised to
int8 with 8-bit weights (``models/MODEL_CARD.md``, "Speed"): 1.9x the float pipeline on 2 cores."""
DEFAULT_STAGE1 = INT8_STAGE1 if int8_is_exact() and INT8_STAGE1.is_file() else FP32_STAGE1
"""The stage-1 model the runtime uses (corner index, BACK, chip): :data:`INT8_STAGE1` where this CPU's int8
arithmetic cannot saturate (:func:`vision.onnx_runtime.int8_is_exact`: x86 VNNI, ARM dot product), else
:data:`FP32_STAGE1`, slower and read alike everywhere."""


@dataclass(frozen=True)
class Crop:
    """A region of the frame warped into its own image.

    Attributes:
        M: (3, 3) float64 homography, frame pixels -> crop pixels.
        size: (w, h) of the crop, pixels.
        name: what the crop covers (``seat3``, ``dealer``, ``tile2``).
        zones: ((name, (K, 2) float32 crop-pixel polygon), ...) of the layout zones inside it, if any.
        px_per_mm: crop pixels per layout mm for a crop rectified in the felt plane (zone crops), else None.
    """

    M: np.ndarray
    size: tuple[int, int]
    name: str
    zones: tuple = ()
    px_per_mm: float | None = None


MAX_EXTENT_MM = {0: 45.0, 1: 150.0}
"""Longest side, layout mm, of a stage-1 box in a felt-plane crop that can be real, by class: a corner index
(rank over suit) is at most ~35 mm tall, a face-down card's box at most its 110 mm diagonal. Larger boxes are
printed layout art or felt texture, and a phantom card that never leaves would hold every round open."""


def tile_crops(width: int, height: int, tile: int) -> list[Crop]:
    """Overlapping square tiles of ``tile`` px covering a ``width`` x ``height`` image (one when it fits)."""
    def starts(n: int) -> list[int]:
        if n <= tile:
            return [0]
        k = math.ceil(n / tile)
        return [round(i * (n - tile) / (k - 1)) for i in range(k)] if k > 1 else [0]

    crops = []
    for y in starts(height):
        for x in starts(width):
            M = np.array([[1, 0, -x], [0, 1, -y], [0, 0, 1]], np.float64)
            crops.append(Crop(M=M, size=(min(tile, width), min(tile, height)), name=f"tile{len(crops)}"))
    return crops


def zone_crops(layout, homography: np.ndarray, px_per_mm: float = 1.0, margin_mm: float = 30.0,
               image_size: tuple[int, int] | None = None) -> list[Crop]:
    """Rectified crops of each seat (all its zones), of the dealer's cards and of the discard rack (where the
    burn card goes, 13:69F-2B.6(c)).

    Args:
        layout: a :class:`calibration.layout.Layout`.
        homography: (3, 3) layout mm -> image pixels.
        px_per_mm: crop resolution; 1.0 puts a 13-20 mm corner index at 13-20 px.
        margin_mm: felt kept around the zones (cards and chips overhang them).
        image_size: (w, h) of the frame, used to drop crops entirely outside it.

    Returns:
        One :class:`Crop` per seat, one for ``dealer.cards`` and one for ``discard``, each a rotated
        rectangle of the layout (``cv2.minAreaRect`` of its zones) warped upright.
    """
    groups: dict[str, list] = {}
    for z in layout.zones:
        if z.seat is not None:
            groups.setdefault(f"seat{z.seat}", []).append(z)
        elif z.kind == "dealer_cards":
            groups.setdefault("dealer", []).append(z)
        elif z.kind == "discard":
            groups.setdefault("discard", []).append(z)
    crops = []
    H = np.asarray(homography, np.float64)
    for name, zones in groups.items():
        pts = np.array([p for z in zones for p in z.polygon], np.float32)
        (cx, cy), (w, h), ang = cv2.minAreaRect(pts)
        w, h = w + 2 * margin_mm, h + 2 * margin_mm
        if h > w:  # landscape crops only, so one batch shape fits all of them
            w, h, ang = h, w, ang + 90.0
        a = math.radians(ang)
        ux, uy = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        c = np.array([cx, cy])
        corners_mm = np.array([c - ux * w / 2 - uy * h / 2, c + ux * w / 2 - uy * h / 2,
                               c + ux * w / 2 + uy * h / 2, c - ux * w / 2 + uy * h / 2], np.float32)
        cw, ch = max(32, int(round(w * px_per_mm))), max(32, int(round(h * px_per_mm)))
        dst = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
        corners_px = cv2.perspectiveTransform(corners_mm[None], H)[0]
        if image_size is not None:
            iw, ih = image_size
            if (corners_px[:, 0].max() < 0 or corners_px[:, 1].max() < 0 or corners_px[:, 0].min() > iw
                    or corners_px[:, 1].min() > ih):
                continue
        M = cv2.getPerspectiveTransform(corners_px.astype(np.float32), dst)
        mm_to_crop = cv2.getPerspectiveTransform(corners_mm, dst)
        zpolys = tuple((z.name, cv2.perspectiveTransform(np.array([z.polygon], np.float32), mm_to_crop)[0])
                       for z in zones)
        crops.append(Crop(M=M, size=(cw, ch), name=name, zones=zpolys, px_per_mm=px_per_mm))
    return crops


def _corners(xyxy: np.ndarray) -> np.ndarray:
    """(N, 4) boxes -> (N, 4, 2) corners TL, TR, BR, BL."""
    return np.stack([xyxy[:, [0, 1]], xyxy[:, [2, 1]], xyxy[:, [2, 3]], xyxy[:, [0, 3]]], 1)


def _squares(xyxy: np.ndarray) -> np.ndarray:
    """(N, 4) boxes -> (N, 4, 2) corners of the square on each box's centre whose side is its longer side."""
    c = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    r = np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])[:, None] / 2
    return _corners(np.concatenate([c - r, c + r], 1))


def _to_image(points: np.ndarray, Minv: np.ndarray) -> np.ndarray:
    """(N, 4, 2) crop pixels -> (N, 4, 2) float32 image pixels through the crop's inverse warp."""
    flat = cv2.perspectiveTransform(points.reshape(1, -1, 2).astype(np.float64), Minv)[0]
    return flat.reshape(-1, 4, 2).astype(np.float32)


THUMB = (48, 32)
"""Size (w, h) of the colour thumbnail a zone crop's change is judged on, live."""
THUMB_SHRINK = 4
"""The frame is shrunk this much (area-averaged) before the thumbnails are cut from it."""


def _thumbnails(image: np.ndarray, crops: list[Crop]) -> list[np.ndarray]:
    """(32, 48, 3) float32 thumbnail of each crop, cut from the frame shrunk by :data:`THUMB_SHRINK`.

    Area-averaging the frame once and warping small costs far less than cutting every crop at
    full resolution to shrink it, and a frame whose crops did not change costs only this.
    """
    k = THUMB_SHRINK
    h, w = image.shape[:2]
    small = cv2.resize(image, (max(1, w // k), max(1, h // k)), interpolation=cv2.INTER_AREA)
    up = np.diag([w / small.shape[1], h / small.shape[0], 1.0])
    out = []
    for c in crops:
        to_thumb = np.diag([THUMB[0] / c.size[0], THUMB[1] / c.size[1], 1.0])
        out.append(cv2.warpPerspective(small, to_thumb @ c.M @ up, THUMB, flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_CONSTANT).astype(np.float32))
    return out


def _plausible_size(d: Detections, px_per_mm: float) -> np.ndarray:
    """(N,) bool: boxes of a felt-plane crop no longer than :data:`MAX_EXTENT_MM` allows for their class."""
    extent = np.maximum(d.xyxy[:, 2] - d.xyxy[:, 0], d.xyxy[:, 3] - d.xyxy[:, 1]) / px_per_mm
    limit = np.array([MAX_EXTENT_MM.get(int(k), np.inf) for k in d.class_id])
    return extent <= limit


def _crops_to_read(crops: list[Crop], thumbs: list[np.ndarray], memory: dict, threshold: float,
                   settle_frames: int) -> list[int]:
    """Indices of the crops to read now (see :meth:`Stage1Detector.detect_crops`'s ``memory``)."""
    moving = memory.setdefault("_moving", {})  # crop name -> (previous thumbnail, calls it has waited)
    todo = []
    for i, c in enumerate(crops):
        before, waited = moving.get(c.name, (None, 0))
        moving[c.name] = (thumbs[i], 0)
        if c.name not in memory:
            todo.append(i)
            continue
        if float(np.abs(memory[c.name][0] - thumbs[i]).max()) < threshold:
            continue  # as it was at its last reading
        still = before is not None and float(np.abs(before - thumbs[i]).max()) < threshold
        if still or waited >= settle_frames:
            todo.append(i)
        else:
            moving[c.name] = (thumbs[i], waited + 1)
    return todo


def batches_by_shape(crops: list[Crop], todo: list[int], fixed: tuple[int, int] | None) -> dict:
    """{network input (h, w) or None: [crop indices]}: the crops to read, batched by input shape.

    A dynamic model reads each zone crop at its own size rounded up to the stride, never
    rescaled (its scale is the calibration's px per mm), and crops of one size share a batch:
    padding the dealer's and the discard rack's smaller crops to a seat's size cost more than
    a second and third call (on a 1080p frame, 71 against 76 ms fp32, 53 against 56 ms int8).
    Tiles and fixed-size models keep one batch at the model's own input size.
    """
    out: dict = {}
    for i in todo:
        c = crops[i]
        key = None if fixed is not None or not c.zones else (int(math.ceil(c.size[1] / 32) * 32),
                                                             int(math.ceil(c.size[0] / 32) * 32))
        out.setdefault(key, []).append(i)
    return out


def warp_crop(image: np.ndarray, c: Crop) -> np.ndarray:
    """The crop's pixels: a plain slice for tiles, a perspective warp (bilinear, grey 114 outside) for zones."""
    if np.allclose(c.M[:2, :2], np.eye(2)) and np.allclose(c.M[2], [0, 0, 1]):
        x, y = int(-c.M[0, 2]), int(-c.M[1, 2])
        return np.ascontiguousarray(image[y:y + c.size[1], x:x + c.size[0]])
    return cv2.warpPerspective(image, c.M, c.size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                               borderValue=(114, 114, 114))


def _zone_of(point: np.ndarray, zones: tuple) -> str | None:
    """The smallest zone polygon (crop px) containing ``point``."""
    best, best_area = None, float("inf")
    for name, poly in zones:
        if cv2.pointPolygonTest(poly.reshape(-1, 1, 2), (float(point[0]), float(point[1])), False) >= 0:
            area = cv2.contourArea(poly)
            if area < best_area:
                best, best_area = name, area
    return best


class Stage1Detector:
    """The stage-1 ONNX model with its pre- and post-processing.

    Args:
        model: path of the ``.onnx`` file (default :data:`DEFAULT_STAGE1`): ultralytics' export, or one cut
            before its box decoding (:func:`models.export.split_stage1_head`; then :attr:`levels` is True).
        threads: onnxruntime intra-op threads (None = one per core).
        conf: minimum score kept; iou: NMS IoU threshold.

    Raises:
        ModelFileError: the model is missing, corrupt, or not a 3-class stage-1 model.
    """

    def __init__(self, model: str | Path = DEFAULT_STAGE1, threads: int | None = None,
                 conf: float = 0.25, iou: float = 0.5, providers: list[str] | None = None) -> None:
        self.path = Path(model)
        self.session = open_session(self.path, threads=threads, providers=providers)
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        meta = self.session.get_modelmeta().custom_metadata_map
        shape = inp.shape
        fixed = [d for d in shape[2:] if isinstance(d, int)]
        if len(fixed) == 2:
            self.imgsz = (int(shape[2]), int(shape[3]))
        else:
            sz = eval(meta.get("imgsz", "[320, 320]"), {"__builtins__": {}})  # ultralytics stores "[h, w]"
            self.imgsz = (int(sz[0]), int(sz[1]))
        self.dynamic = len(fixed) != 2 or not isinstance(shape[0], int)
        outputs = self.session.get_outputs()
        self.levels = meta.get("pitwatch_head") == HEAD_LEVELS  # cut before its box decoding
        if self.levels:
            if len(outputs) % 2 or not outputs:
                raise ModelFileError(f"{self.path}: a head given per level needs (boxes, classes) output pairs")
            nc = outputs[1].shape[1] if isinstance(outputs[1].shape[1], int) else len(STAGE1_CLASSES)
        else:
            out_shape = outputs[0].shape
            nc = out_shape[1] - 4 if isinstance(out_shape[1], int) else len(STAGE1_CLASSES)
        if nc != len(STAGE1_CLASSES):
            raise ModelFileError(f"{self.path}: expected a {len(STAGE1_CLASSES)}-class stage-1 model "
                                 f"({', '.join(STAGE1_CLASSES)}), got {nc} classes")
        self.conf, self.iou = conf, iou

    def infer(self, images: list[np.ndarray], shape: tuple[int, int] | None = None,
              scaleup: bool = True) -> list[Detections]:
        """Detect in each image (already cropped), batched.

        Args:
            images: (h, w, 3) uint8 BGR each.
            shape: network input (h, w); default the model's ``imgsz``.
            scaleup: let the letterbox enlarge small images (off for zone crops, whose scale is fixed).

        Returns:
            One :class:`Detections` per image, boxes in that image's pixels.
        """
        if not images:
            return []
        shape = shape or self.imgsz
        boxed = [letterbox(im, shape, scaleup=scaleup) for im in images]
        blob = to_blob([b[0] for b in boxed])
        if self.dynamic:
            outs = self.session.run(None, {self.input_name: blob})
        else:  # a fixed-batch model runs one image at a time
            runs = [self.session.run(None, {self.input_name: blob[i:i + 1]}) for i in range(len(blob))]
            outs = [np.concatenate([r[k] for r in runs]) for k in range(len(runs[0]))]
        if self.levels:
            decoded = decode_yolo_levels(outs, blob.shape[2:], self.conf, self.iou)
        else:
            decoded = decode_yolo(outs[0], self.conf, self.iou)
        results = []
        for (xyxy, score, cls), (_, lb) in zip(decoded, boxed):
            results.append(Detections(xyxy=lb.to_image(xyxy), class_id=cls, score=score))
        return results

    def detect_crops(self, image: np.ndarray, crops: list[Crop], memory: dict | None = None,
                     change_threshold: float = 12.0, settle_frames: int = 0) -> Detections:
        """Warp each crop out of ``image``, detect in one batch, map boxes back to ``image`` and merge.

        Boxes from overlapping crops are merged by class-wise NMS; with zone
        crops each detection carries the zone holding its centre.

        Args:
            memory: for live video, a dict kept between frames: a crop whose pixels have not
                changed since its last reading reuses that reading, so a frame costs only what
                moved.  "Changed" means some cell of a 48 x 32 colour thumbnail (each cell ~9 x 9 px
                of a zone crop) moved by ``change_threshold`` levels or more in some channel: the largest
                cell change, not the mean, so one chip added to a seat's crop (a few % of its
                area) is never averaged away, while video noise (averaged over a cell) is.
                None: every crop is read.
            settle_frames: with ``memory``: a changed crop still moving since the previous call (a
                dealer's hand passing over it) keeps its last reading until it holds still, for at
                most this many calls; 0 reads it at once. What a moving hand covers cannot be read
                anyway, and the tracker already holds a zone through a few frames of occlusion.
        """
        if image is None or image.size == 0 or not crops:
            return Detections.empty()
        todo = list(range(len(crops)))
        if memory is not None:
            # colour, not grey: a red chip on green felt can have the felt's own brightness
            thumbs = _thumbnails(image, crops)
            todo = _crops_to_read(crops, thumbs, memory, change_threshold, settle_frames)
        # only the crops to be read are cut at full resolution
        warped = {i: warp_crop(image, crops[i]) for i in todo}
        fresh = {}
        for shape, batch in batches_by_shape(crops, todo, self.imgsz if not self.dynamic else None).items():
            zoned = bool(crops[batch[0]].zones)
            fresh.update(zip(batch, self.infer([warped[i] for i in batch], shape or self.imgsz, scaleup=not zoned)))
        parts = []
        for i, c in enumerate(crops):
            if i not in fresh:
                parts.append(memory[c.name][1])
                continue
            d = fresh[i]
            if len(d) and c.px_per_mm:
                d = d[_plausible_size(d, c.px_per_mm)]
            if len(d):
                if c.zones:
                    d.zone = np.array([_zone_of(p, c.zones) for p in d.centers], dtype=object)
                Minv = np.linalg.inv(c.M)
                d.data["index_square"] = _to_image(_squares(d.xyxy), Minv)
                back = _to_image(_corners(d.xyxy), Minv)
                d.data["crop_box"] = back  # the box as drawn in its crop (a chip stack's silhouette: _stack_base)
                d.xyxy = np.concatenate([back.min(1), back.max(1)], 1).astype(np.float32)
            if memory is not None:
                memory[c.name] = (thumbs[i], d)
            parts.append(d)
        merged = Detections.merge(parts)
        if len(crops) > 1 and len(merged):
            merged = nms(merged, self.iou)
        h, w = image.shape[:2]
        merged.xyxy = np.clip(merged.xyxy, 0, [w, h, w, h]).astype(np.float32)
        return merged

    def detect_tiles(self, image: np.ndarray, tile: int = 640) -> Detections:
        """Detect on the whole image cut into ``tile``-pixel tiles (see the module docstring)."""
        if image is None or image.size == 0:
            return Detections.empty()
        h, w = image.shape[:2]
        return self.detect_crops(image, tile_crops(w, h, tile))


def _layout_mm(dets: Detections, squares, Hinv: np.ndarray) -> np.ndarray:
    """(N, 2) float64 layout mm of each detection: its index square's centre where read, else its box centre."""
    centres = dets.centers.astype(np.float64)
    if squares is not None:
        for r, sq in enumerate(squares):
            if sq is not None:
                centres[r] = np.asarray(sq, np.float64).reshape(-1, 2).mean(0)
    pts = np.c_[centres, np.ones(len(centres))] @ Hinv.T
    return pts[:, :2] / pts[:, 2:3]


def nms(d: Detections, iou: float) -> Detections:
    """Class-wise NMS over merged detections (boxes of one object seen in two overlapping crops)."""
    xywh = np.concatenate([d.xyxy[:, :2], d.xyxy[:, 2:] - d.xyxy[:, :2]], 1)
    idx = cv2.dnn.NMSBoxesBatched(xywh.tolist(), d.score.tolist(), d.class_id.tolist(), 0.0, iou)
    idx = np.sort(np.asarray(idx, np.int64).reshape(-1))
    return d[idx]


PROBE_SAME_GREY = 3.0
"""Live video: a probed spot is read again once its 16 x 16 grey thumbnail moves this many grey levels on average."""
STACK_SAME_BASE_MM = 0.5
"""Live video: a stack boxed anew whose base lies this close (mm) to one read before stands where it was read, and
keeps that reading while its side does not change (:data:`STACK_SAME_LEVEL`). A stack on a betting spot stands at the
spot's centre; one off the spots is placed from its box, and a base moved is a new look at it (4K seed 7256 r1: a
$225 payout read $250 from a base moved 4.7 mm by a stack set touching it, $225 again from a base 1.4 mm on)."""
STACK_SAME_LEVEL = 12.0
"""Live video: a stack boxed anew keeps its reading while no row of its side strips moved this many levels (0-255,
mean over the row) since it was read. H.264 noise moves a row up to ~6; a chip of another colour or one more chip
moves rows by 30 or more (4K round videos: 28 chips added after the first card, 71-143)."""
PROBE_SCORE = 0.5
"""The score given a stack found by probing a spot (no stage-1 box)."""


def _cylinder_box(camera, base_mm, height_mm: float) -> np.ndarray | None:
    """(4,) xyxy image px around a chip stack of ``height_mm`` standing at ``base_mm``, or None off the image."""
    from vision.chips import CHIP_DIAMETER_MM

    r = CHIP_DIAMETER_MM / 2
    a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    ring = np.column_stack([base_mm[0] + r * np.cos(a), base_mm[1] + r * np.sin(a)])
    pts = np.vstack([np.column_stack([ring, np.zeros(24)]), np.column_stack([ring, np.full(24, -height_mm)])])
    uv = camera.project(pts)
    if not np.isfinite(uv).all():
        return None
    x1, y1 = uv.min(0)
    x2, y2 = uv.max(0)
    if x2 < 0 or y2 < 0 or x1 >= camera.width or y1 >= camera.height:
        return None
    return np.array([x1, y1, x2, y2], np.float32)


def _patch_signature(image: np.ndarray, box: np.ndarray) -> np.ndarray | None:
    """(16, 16) float32 grey thumbnail of ``box`` in ``image``, or None where the box holds no pixels."""
    h, w = image.shape[:2]
    x1, y1, x2, y2 = np.clip(np.round(box).astype(int), 0, [w, h, w, h])
    if x2 - x1 < 2 or y2 - y1 < 2:
        return None
    grey = cv2.cvtColor(image[y1:y2, x1:x2], cv2.COLOR_BGR2GRAY)
    return cv2.resize(grey, (16, 16), interpolation=cv2.INTER_AREA).astype(np.float32)


STACK_SAME_MM = 20.0
"""Two chip-stack detections whose bases lie closer than this (about a chip's radius, mm) are one stack."""


def _outer_boxes_dropped(xyxy: np.ndarray, rows: np.ndarray, slack_px: float = 4.0) -> np.ndarray:
    """``rows`` (rows of one class in ``xyxy``, (N, 4) px) without any box that wholly contains another of them.

    Stage 1 now and then boxes a seat's main wager and match-the-dealer wager together as well as each alone: the
    outer box stands on neither spot, reads as an unvalued stack, and would hide the wager its fitted base lands on.
    """
    if len(rows) < 2:
        return np.asarray(rows)
    b = np.asarray(xyxy, np.float64)[rows]  # (N, 4): row i holds box j when j lies within it, slack allowed
    holds = (b[None, :, :2] >= b[:, None, :2] - slack_px).all(-1) & (b[None, :, 2:] <= b[:, None, 2:] + slack_px).all(-1)
    alike = (np.abs(b[None, :, :] - b[:, None, :]) <= slack_px + 1e-5 * np.abs(b[:, None, :])).all(-1)
    holds &= ~alike  # (two boxes of one stack within the slack are one box, neither holding the other)
    return np.asarray(rows)[~holds.any(1)].astype(rows.dtype)


def _outer_backs_dropped(dets: Detections) -> Detections:
    """``dets`` without any ``BACK`` box that wholly contains another ``BACK`` box.

    Stage 1 now and then boxes one face-down card twice, tightly and loosely around it, and the two boxes' IoU
    is under the NMS threshold; their centres lie a few mm apart, so the tracker saw two cards (seed 7113 at 4K:
    one burn card near the frame's edge read as two, and a false `dealing_order`). The tight box is the card.
    """
    backs = np.flatnonzero(dets.class_id == BACK_ID)
    if len(backs) < 2:
        return dets
    return _rows_dropped(dets, np.setdiff1d(backs, _outer_boxes_dropped(dets.xyxy, backs)))


def _backs_on_spots_dropped(dets: Detections, layout) -> Detections:
    """``dets`` without the ``BACK`` boxes whose centre (``data["layout_mm"]``) lies inside a betting spot's circle.

    No card is dealt face down onto a betting spot, while an empty spot printed dark reads to stage 1 like a
    card's back: the sixteenth session's stage 1 boxed the empty match-the-dealer and bonus spots of the bundled
    sample's seat 3 as ``BACK`` at 0.32-0.34, drawn on the overlay as face-down cards.
    """
    backs = np.flatnonzero(dets.class_id == BACK_ID)
    spots = layout.spots()
    if not len(backs) or not spots or "layout_mm" not in dets.data:
        return dets
    centres = np.array([z.circle.center for z in spots], np.float64)
    radii = np.array([z.circle.radius for z in spots], np.float64)
    at = np.asarray(dets.data["layout_mm"], np.float64)[backs]
    inside = (np.linalg.norm(at[:, None, :] - centres[None], axis=2) < radii[None]).any(1)
    return _rows_dropped(dets, backs[inside])


def _rows_dropped(dets: Detections, rows: np.ndarray) -> Detections:
    """``dets`` without the rows ``rows`` (indices; ``dets`` itself when there are none)."""
    if not len(rows):
        return dets
    keep = np.ones(len(dets), bool)
    keep[rows] = False
    return dets[keep]


STACK_BOX_SLACK_MM = 3.0
"""How far stage 1's chip-stack boxes reach past the stack's silhouette on each side, mm on the layout, as
:func:`_silhouette_base` allows for. On 310 rendered payout stacks (1-15 chips, 1080p and 4K, the scenes of
``scripts/payout_stacks_eval.py``, seeds 9300-9329), the base guessed from the box's own corners was off by a median
5.3 mm with no allowance (towards the camera), 2.2 mm with 3 mm (90 % within 4.6-4.9 mm, 8 over 10 mm), 1.7-1.8 mm
with 5 mm but 14 over 10 mm; the box's centre, the guess before, 4.4-4.5 mm (30 over 10 mm, the base search's reach)."""


def _spot_of(layout, point_mm: tuple[float, float], reach_mm: float = 30.0):
    """The betting spot (zone with a printed circle) whose centre is within ``reach_mm`` of ``point_mm``, or None."""
    best, best_d = None, reach_mm
    for z in layout.spots():
        d = math.dist(z.circle.center, point_mm)
        if d <= best_d:
            best, best_d = z, d
    return best


def _stack_base(table, xyxy: np.ndarray, square: np.ndarray | None, Hinv: np.ndarray,
                crop_box: np.ndarray | None = None):
    """A guess of a chip stack's base on the layout: ((x, y) mm, the betting spot's zone name or None).

    The base is the betting spot's centre where the stack is on one (wagers are placed there), else where the
    stack's silhouette in the seat's rectified crop begins on the camera's side (:func:`_silhouette_base`: a
    payout or a stack left off the spots; the box's centre lies half the stack's lean behind its base).  The
    spot is worked out from the box's centre in the crop (without one, a point half the box's width above its
    bottom edge), which is the middle of a loose box too: stage 1 sometimes boxes a wager with the printed ring
    around it, and a stack fitted to such a box stands on the ring's near side, in the next zone.

    Args:
        table: the :class:`TableView` (its layout and camera).
        xyxy: (4,) image px, the stack's box; square: (4, 2) image px, the square on that box in its zone crop
            (``index_square``), or None (tiles); Hinv: (3, 3) image px -> layout mm.
        crop_box: (4, 2) image px, the box's own corners in its zone crop (``crop_box``), round the stack's
            silhouette; None (tiles): an off-spot base stays at the box's centre.
    """
    if square is not None:
        centre = np.asarray(square, np.float64).mean(0)
    else:
        x1, y1, x2, y2 = xyxy
        centre = np.array([(x1 + x2) / 2, y2 - (x2 - x1) / 2])  # a chip radius above the box's bottom edge
    p = cv2.perspectiveTransform(np.array([[centre]], np.float64), Hinv)[0, 0]
    base = (float(p[0]), float(p[1]))
    spot = _spot_of(table.layout, base)
    if spot is not None:
        return (float(spot.circle.center[0]), float(spot.circle.center[1])), spot.name
    if crop_box is not None and getattr(table, "camera", None) is not None:
        corners = cv2.perspectiveTransform(np.asarray(crop_box, np.float64)[None], Hinv)[0]
        base = _silhouette_base(corners, table.camera)
    return base, None


def _silhouette_base(corners_mm: np.ndarray, camera, slack_mm: float = STACK_BOX_SLACK_MM) -> tuple[float, float]:
    """The base centre (x, y) mm of a chip stack whose silhouette, seen in the layout's plane, has this box.

    ``corners_mm``: (4, 2) the box's corners in layout mm, in order round the box (a seat crop's rectangle).
    In the layout's plane a stack's silhouette is its base disc joined to its top disc, which the camera's
    view pushes away from the point under the camera by the stack's *lean*; the box's centre is therefore
    half a lean behind the base, and for a 10-chip payout stack at a 30-degree line of sight that is some
    10 mm, the whole reach of the chip side's base search (:data:`vision.chip_side.SEARCH_MM`). The lean is
    what the box's extent along the line of sight holds beyond one chip's diameter: exact, whatever the box's
    turn on the layout, for a box round the disc-and-tube outline.

    Args:
        camera: the table's :class:`calibration.camera.PinholeCamera` (where the point under it is).
        slack_mm: how far the box reaches past the silhouette on each side (:data:`STACK_BOX_SLACK_MM`); a box
            looser or tighter than that moves the guess along the line of sight by up to 1.41 times the difference.
    """
    from vision.chip_side import _towards_camera
    from vision.chips import CHIP_DIAMETER_MM

    c = corners_mm.mean(0)
    e1 = (corners_mm[1] - corners_mm[0] + corners_mm[2] - corners_mm[3]) / 2
    e2 = (corners_mm[3] - corners_mm[0] + corners_mm[2] - corners_mm[1]) / 2
    half = np.array([np.linalg.norm(e1), np.linalg.norm(e2)]) / 2
    if half.min() < 1e-6:
        return float(c[0]), float(c[1])
    u = _towards_camera(camera, c)
    along = np.abs([u @ e1 / (2 * half[0]), u @ e2 / (2 * half[1])])
    # each half side of the box is the half lean's share along it plus the silhouette's radius (and the slack)
    half_lean = max(0.0, float(((half - CHIP_DIAMETER_MM / 2 - slack_mm) * along).sum()))
    b = c + half_lean * u
    return float(b[0]), float(b[1])


# --- the whole detection: stage 1, stage 2, grouping, chips ------------------------------------------


@dataclass
class TableView:
    """What a table file tells the detector.

    Attributes:
        id: the table's id; layout: :class:`calibration.layout.Layout`;
        homography: (3, 3) layout mm -> image px; camera: a pinhole camera or None (no pose known);
        chip_set: list of :class:`vision.chips.ChipColour`.
    """

    id: str
    layout: object
    homography: np.ndarray
    camera: object | None
    chip_set: list


def load_table_view(path: str | Path) -> TableView:
    """Read a table file through :func:`calibration.table.load_table` (it must name a calibration).

    The camera's pose (needed to count chips on a stack's side) is recovered from the
    homography where the calibration holds the intrinsics (``camera_matrix``, or the ``camera``
    block a render writes); else chip counts are null with a note.

    Raises:
        calibration.table.TableFileError: naming the file and the field that is missing or wrong (bad input to
            the command line and the service: ``api.errors.bad_input_types``).
    """
    from calibration.table import load_table
    from vision.chips import ChipColour

    table = load_table(path)
    cal = table.require_calibration()
    camera = calibrated_camera(cal)
    chips = [ChipColour(int(k.denomination), tuple(int(c) for c in k.body_rgb)) for k in table.chipset.chips]
    return TableView(id=table.id, layout=table.layout, homography=np.asarray(cal.homography, np.float64),
                     camera=camera, chip_set=chips)


def calibrated_camera(cal) -> object | None:
    """The camera's pose from a :class:`calibration.homography.CalibrationResult`: a
    :class:`calibration.camera.PinholeCamera` where the calibration holds the intrinsics (``camera_matrix``, or
    the ``camera`` block a render writes), else None (stacks cannot be counted from their side)."""
    K = cal.camera_matrix
    rendered = cal.extra.get("camera")
    if K is None and isinstance(rendered, dict) and rendered.get("K") is not None:
        K = np.asarray(rendered["K"], np.float64)  # a render's true camera (`pitwatch synth round`): intrinsics known
    return pose_from_homography(cal.homography, K, cal.image_size)


def pose_from_homography(H: np.ndarray, K: np.ndarray | None, image_size) -> object | None:
    """A :class:`calibration.camera.PinholeCamera` from a felt homography and intrinsics (None without ``K``).

    ``H ~ K [r1 r2 t]``: the first two rotation columns and the translation follow
    from ``K^-1 H`` up to scale; ``r3 = r1 x r2`` (the felt's ``z`` points into it).
    """
    if K is None:
        return None
    from calibration.camera import PinholeCamera

    K = np.asarray(K, np.float64)
    B = np.linalg.inv(K) @ np.asarray(H, np.float64)
    lam = 2.0 / (np.linalg.norm(B[:, 0]) + np.linalg.norm(B[:, 1]))
    if B[2, 2] * lam < 0:  # the felt must lie in front of the camera
        lam = -lam
    r1, r2, t = B[:, 0] * lam, B[:, 1] * lam, B[:, 2] * lam
    R = np.column_stack([r1, r2, np.cross(r1, r2)])
    U, _, Vt = np.linalg.svd(R)
    R = U @ Vt
    return PinholeCamera(K=K, R=R, t=t, width=int(image_size[0]), height=int(image_size[1]))


@dataclass
class FrameResult:
    """The whole detection of one frame: ``dets`` (every row), ``cards`` (physical cards), ``chips`` (stacks),
    ``stack_spots``: chip row -> the betting spot (zone name) the stack was read standing on, where it was, and
    ``stack_bases``: chip row -> (x, y) layout mm of the stack's base as placed from its box (a table with a camera
    only)."""

    dets: Detections
    cards: list
    chips: list
    stack_spots: dict = field(default_factory=dict)
    stack_bases: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """The contract's ``cards`` and ``chips`` lists (boxes rounded to 0.1 px)."""
        def box(b):
            return [round(float(v), 1) for v in b]

        cards = []
        for c in self.cards:
            item = {"label": c.label, "score": round(c.score, 4), "box": box(c.box)}
            if c.zone:
                item["zone"] = c.zone
            cards.append(item)
        chips = []
        for row, reading in self.chips:
            item = {"box": box(self.dets.xyxy[row]), "score": round(float(self.dets.score[row]), 4)}
            if self.dets.zone[row]:
                item["zone"] = self.dets.zone[row]
            item.update(reading.to_json())
            chips.append(item)
        return {"cards": cards, "chips": chips}


class FrameReader:
    """Stage 1 + stage 2 + grouping + chips for whole frames.

    Args:
        stage1, reader: model paths (defaults: the committed models).
        threads: onnxruntime threads per session.
        tile: tile side in image pixels when no table file is given.
        px_per_mm: zone-crop resolution with a table file.
        live: keep each crop's last reading and skip crops whose pixels did not change (video).
        settle_frames: live: a changed crop still moving is read once it holds still, or after this many
            analysed frames of motion (:meth:`Stage1Detector.detect_crops`).
        chip_side: the chip-side model (:mod:`vision.chip_side`) that counts stacks from their side where the
            calibration shows >= :data:`vision.chips.MIN_PX_PER_CHIP` px per chip (default: the committed
            ``models/chip_side.onnx``; None: from the box's height only, which abstains on nearly every stack).
        probe_spots: with ``chip_side``: read every countable betting spot where stage 1 found no stack
            at the spot's centre too (stage 1 misses a stack now and then; a wager missed reads as taken).

    Raises:
        ModelFileError: a model is missing or corrupt.
    """

    def __init__(self, stage1: str | Path = DEFAULT_STAGE1, reader: str | Path | None = None,
                 threads: int | None = None, tile: int = 640, px_per_mm: float = 1.0,
                 conf: float = 0.25, threshold: float | None = None, live: bool = False,
                 chip_side: str | Path | None = DEFAULT_CHIP_SIDE, settle_frames: int = 0,
                 probe_spots: bool = True) -> None:
        from vision.card_reader import DEFAULT_READER, CardReader

        self.detector = Stage1Detector(stage1, threads=threads, conf=conf)
        self.reader = CardReader(reader or DEFAULT_READER, threads=threads, threshold=threshold)
        from vision.chip_side import ChipSideReader
        from vision.chips import default_chip_set

        self.chip_side = ChipSideReader(chip_side, threads=threads) if chip_side else None
        self._default_chips = default_chip_set()  # read once: a file, needed every frame without a table
        # the chip-side model reads the default set only (its denominations are in its metadata)
        by_value = sorted(self._default_chips, key=lambda c: c.denomination)
        self._side_chips = by_value if self.chip_side is not None and \
            [c.denomination for c in by_value] == sorted(self.chip_side.denominations) else None
        self.tile, self.px_per_mm = tile, px_per_mm
        self._crops: dict = {}
        self.memory: dict | None = {} if live else None  # live video: skip crops whose pixels did not change
        self._readings: dict | None = {} if live else None  # live video: indices of unchanged crops are not re-read
        self._stack_readings: dict | None = {} if live else None  # and stacks in unchanged zones are not recounted
        self._side_memory: list = []  # live video: (base mm, side strips, reading) of valued stacks standing
        self.probe_spots = probe_spots
        self._spot_boxes: dict = {}
        self._probe_memory: dict | None = {} if live else None  # probed spots whose pixels did not change
        self.settle_frames = settle_frames if live else 0

    def crops_for(self, table: TableView | None, width: int, height: int) -> list[Crop]:
        """The crops for a frame size (zone crops with a table, tiles without), cached per size."""
        # an id is unique only among live objects: each entry keeps its table, so a freed view's id handed to a new
        # view (one view per rendered frame in `eval detect`) cannot bring back the old view's crops
        key = (id(table), width, height)
        hit = self._crops.get(key)
        if hit is None or hit[0] is not table:
            hit = self._crops[key] = (table, zone_crops(table.layout, table.homography, self.px_per_mm,
                                                        image_size=(width, height))
                                      if table is not None else tile_crops(width, height, self.tile))
        return hit[1]

    def __call__(self, image: np.ndarray, table: TableView | None = None) -> FrameResult:
        """Detect, read and group everything in one BGR frame ((H, W, 3) uint8)."""
        from vision.chips import MIN_PX_PER_CHIP, chip_geometry, read_stack
        from vision.grouping import group_cards

        if image is None or image.ndim != 3 or image.shape[0] < 8 or image.shape[1] < 8:
            return FrameResult(Detections.empty(), [], [])
        h, w = image.shape[:2]
        dets = self.detector.detect_crops(image, self.crops_for(table, w, h), memory=self.memory,
                                          settle_frames=self.settle_frames)
        dets = _outer_backs_dropped(dets)
        dets = self.reader.read_detections(image, dets, cache=self._readings)
        Hinv = np.linalg.inv(table.homography) if table is not None else None
        squares = dets.data.get("index_square")
        if Hinv is not None:  # (N, 2) layout mm of each detection, for the grouping and the tracker
            dets.data["layout_mm"] = _layout_mm(dets, squares, Hinv)
            dets = _backs_on_spots_dropped(dets, table.layout)
            squares = dets.data.get("index_square")
        on_print = None
        if Hinv is not None and len(dets):
            on_print = np.array(table.layout.on_printed_words(dets.data["layout_mm"]), bool)
        cards = group_cards(dets, threshold=self.reader.threshold, positions_mm=dets.data.get("layout_mm"),
                            on_print=on_print)
        chips = []
        chip_set = table.chip_set if table is not None else self._default_chips
        side_ok = self._side_chips is not None and sorted(chip_set, key=lambda c: c.denomination) == self._side_chips
        by_side: list[tuple[int, tuple[float, float], bytes]] = []
        bases: list[tuple[float, float]] = []
        spots: dict[int, str] = {}
        row_bases: dict[int, tuple[float, float]] = {}
        rows = _outer_boxes_dropped(dets.xyxy, np.flatnonzero(dets.class_id == 2))
        for row in rows[np.argsort(-dets.score[rows], kind="stable")]:
            base = None
            if table is not None and table.camera is not None:
                boxes = dets.data.get("crop_box")
                base, spot = _stack_base(table, dets.xyxy[row], None if squares is None else squares[row], Hinv,
                                         None if boxes is None else boxes[row])
                # stage 1 sometimes boxes one stack twice (two crops, or a loose box and a tight one): one base
                # is one stack, counted once
                if any(math.dist(base, b) < STACK_SAME_MM for b in bases):
                    continue
                bases.append(base)
                row_bases[int(row)] = (float(base[0]), float(base[1]))
                if spot is not None:
                    spots[int(row)] = spot
                if side_ok and chip_geometry(table.camera, base)[0] >= MIN_PX_PER_CHIP:
                    by_side.append((int(row), base, dets.xyxy[row].tobytes()))
                    continue
            chips.append((int(row), read_stack(image, dets.xyxy[row], chip_set, table.camera if table else None, base)))
        if by_side:
            chips += self._read_sides(image, table.camera, by_side)
        elif self._stack_readings is not None:
            self._side_memory = []  # no stack standing: none is remembered
        if side_ok and self.probe_spots and table is not None and table.camera is not None:
            extra, readings = self._probe_spots(image, table, bases, dets)
            if len(extra):
                first = len(dets)
                dets = Detections.merge([dets, extra])
                chips += [(first + i, r) for i, r in enumerate(readings)]
                spots.update((first + i, str(name)) for i, name in enumerate(extra.zone))
                row_bases.update((first + i, (float(c[0]), float(c[1])))
                                 for i, c in enumerate(extra.data.get("layout_mm", ())))
        return FrameResult(dets, cards, chips, spots, row_bases)

    def _probe_spots(self, image: np.ndarray, table: TableView, bases: list, dets: Detections):
        """Betting spots where stage 1 found no stack, read from their side at the spot's centre.

        Stage 1 misses a stack now and then, and a wager missed for a second reads as taken
        away; the chip-side model, read at the spot, says whether chips stand there.  Returns
        (chip rows to add, their readings): only spots where a stack was counted and valued.
        Live video: a spot whose pixels did not change keeps its last reading.
        """
        from vision.chip_side import SLOTS
        from vision.chips import CHIP_THICKNESS_MM, MIN_PX_PER_CHIP, chip_geometry

        cam = table.camera
        todo, found = [], []
        for z in table.layout.spots():
            c = (float(z.circle.center[0]), float(z.circle.center[1]))
            if any(math.dist(c, b) < STACK_SAME_MM for b in bases):  # a stage-1 stack on a spot has its centre
                continue
            key = (id(table), z.name)
            hit = self._spot_boxes.get(key)
            if hit is None or hit[0] is not table:  # the table kept, as in crops_for
                hit = self._spot_boxes[key] = (table, _cylinder_box(cam, c, SLOTS * CHIP_THICKNESS_MM),
                                               chip_geometry(cam, c)[0] >= MIN_PX_PER_CHIP)
            _, box, countable = hit
            if not countable or box is None:
                continue
            live = self._probe_memory is not None
            sig = _patch_signature(image, box) if live else None
            last = self._probe_memory.get(key) if live else None
            if last is not None and sig is not None and float(np.abs(last[0] - sig).mean()) < PROBE_SAME_GREY:
                found.append((z.name, c, last[1]))
                continue
            todo.append((z.name, c, sig, key))
        if todo:
            for (name, c, sig, key), reading in zip(todo, self.chip_side.read_stacks(image, cam, [t[1] for t in todo])):
                if sig is not None:
                    self._probe_memory[key] = (sig, reading)
                found.append((name, c, reading))
        found = [(name, c, r) for name, c, r in found if r.value is not None and r.count]
        if not found:
            return Detections.empty(), []
        boxes = np.array([_cylinder_box(cam, c, r.count * CHIP_THICKNESS_MM) for _, c, r in found], np.float32)
        data = {}
        for k, v in dets.data.items():  # per-row arrays must keep their shape across the merge
            if isinstance(v, np.ndarray) and v.ndim > 1 and v.dtype != object:
                if k == "layout_mm":
                    data[k] = np.array([c for _, c, _ in found], v.dtype)
                elif v.shape[1:] == (4, 2):
                    data[k] = np.array([[[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]] for b in boxes],
                                       v.dtype)
                else:
                    data[k] = np.zeros((len(found),) + v.shape[1:], v.dtype)
        extra = Detections(xyxy=boxes, class_id=np.full(len(found), 2), score=np.full(len(found), PROBE_SCORE),
                           zone=np.array([name for name, _, _ in found], object), data=data)
        return extra, [r for _, _, r in found]

    def _read_sides(self, image: np.ndarray, camera, stacks: list) -> list:
        """(row, reading) of stacks counted from their side, in one batch; a stack partly hidden by another counted
        in the frame (its reading kept or fresh) is read from its side away from it
        (:meth:`vision.chip_side.ChipSideReader.read_stacks`).

        Live video: a stack whose box stage 1 handed back unchanged (its zone's pixels did not change) keeps its
        last reading; so does a valued stack boxed anew (something else in its zone moved) whose own pixels did
        not change (:meth:`_unchanged_stack`). A thin side read again from a frame that differs only by the
        video's compression can count otherwise (4K seed 7259 r0: a $30 wager at 1.76 px per chip read $35 as a
        hit was dealt beside it, a false past-posting); chips added or taken change the stack's pixels.
        """
        cache = self._stack_readings
        known = {}
        if cache is not None:
            for s in stacks:
                if s[2] not in cache:
                    hit = self._unchanged_stack(image, camera, s[1])
                    if hit is not None:
                        known[s[2]] = hit
        kept = dict(known)
        if cache is not None:
            kept.update((s[2], cache[s[2]]) for s in stacks if s[2] in cache)
        todo = [s for s in stacks if s[2] not in kept]
        counted = [s[1] for s in stacks if s[2] in kept and kept[s[2]].count is not None]
        fresh = dict(zip((s[2] for s in todo), self.chip_side.read_stacks(image, camera, [s[1] for s in todo],
                                                                          counted_beside=counted)))
        if cache is not None:
            for s in todo:
                self._remember_stack(image, camera, s[1], fresh[s[2]])
            fresh.update(kept)
            # a stack gone (or not seen) is forgotten: one placed there later is read afresh
            self._side_memory = [e for e in self._side_memory
                                 if any(math.dist(e[0], s[1]) < STACK_SAME_BASE_MM for s in stacks)]
            cache.clear()
            cache.update(fresh)
        return [(row, fresh[key]) for row, _, key in stacks]

    @staticmethod
    def _stack_signature(image: np.ndarray, camera, base) -> np.ndarray:
        """(STRIP_ROWS, ARC_POINTS, 6) float32: the strips the chip side reads a stack at ``base`` (layout mm) from."""
        from vision.chip_side import stack_strips

        return stack_strips(image, camera, base).astype(np.float32)

    def _unchanged_stack(self, image: np.ndarray, camera, base):
        """The reading remembered for a valued stack at ``base`` (layout mm, within :data:`STACK_SAME_BASE_MM`)
        whose side strips no row of which moved :data:`STACK_SAME_LEVEL` since it was read; None when there is none.
        """
        for entry in self._side_memory:
            if math.dist(entry[0], base) < STACK_SAME_BASE_MM:
                moved = np.abs(self._stack_signature(image, camera, entry[0]) - entry[1]).mean(axis=(1, 2))
                return entry[2] if float(moved.max()) < STACK_SAME_LEVEL else None
        return None

    def _remember_stack(self, image: np.ndarray, camera, base, reading) -> None:
        """Keep a fresh valued reading with its strips, in place of any at that base."""
        self._side_memory = [e for e in self._side_memory if math.dist(e[0], base) >= STACK_SAME_BASE_MM]
        if reading.count is not None:  # an abstention is tried again whenever the stack is read again
            self._side_memory.append((tuple(base), self._stack_signature(image, camera, base), reading))
