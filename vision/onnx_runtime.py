"""ONNX Runtime sessions and the pre/post-processing that must match ultralytics' training.

Nothing here imports torch or ultralytics: an exported model runs with
onnxruntime, OpenCV and numpy only.

Pre-processing is ultralytics' ``LetterBox`` (``auto=False``, centred, pad 114,
``INTER_LINEAR``, the same rounding), BGR -> RGB, scale 1/255, NCHW float32:
a mismatch here is the usual cause of "good in PyTorch, bad in ONNX"
(notes/offline-ml.md).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from api.errors import BadInput


class ModelFileError(BadInput):
    """A model file that is missing, unreadable or not a usable ONNX model."""


def available_providers() -> list[str]:
    """Execution providers to use, best first: TensorRT and CUDA when this onnxruntime has them, CPU always."""
    import onnxruntime as ort

    have = set(ort.get_available_providers())
    wanted = ["TensorrtExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider"]
    if os.environ.get("PITWATCH_CPU_ONLY"):
        wanted = ["CPUExecutionProvider"]
    return [p for p in wanted if p in have] or ["CPUExecutionProvider"]


def open_session(path: str | Path, threads: int | None = None, providers: list[str] | None = None):
    """Open an ONNX model.

    Args:
        path: the ``.onnx`` file.
        threads: intra-op threads (None: onnxruntime's default, one per core).
        providers: execution providers; default :func:`available_providers`.

    Returns:
        An ``onnxruntime.InferenceSession`` (graph optimisation ORT_ENABLE_ALL, the fastest measured).

    Raises:
        ModelFileError: the file is missing or is not a loadable ONNX model (the message names it).
    """
    import onnxruntime as ort

    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{path}: model file not found")
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.log_severity_level = 3
    if threads:
        opts.intra_op_num_threads = int(threads)
        opts.inter_op_num_threads = 1
    try:
        return ort.InferenceSession(str(path), sess_options=opts, providers=providers or available_providers())
    except Exception as exc:  # onnxruntime raises its own Fail/InvalidProtobuf types
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelFileError(f"{path}: not a usable ONNX model ({first[:160]})") from exc


@dataclass(frozen=True)
class Letterbox:
    """How one image was fitted into the network input.

    Attributes:
        ratio: scale applied to the image (input px per image px).
        pad: (left, top) padding in input pixels.
        shape: (h, w) of the network input.
    """

    ratio: float
    pad: tuple[int, int]
    shape: tuple[int, int]

    def to_image(self, xyxy: np.ndarray) -> np.ndarray:
        """(N, 4) boxes in input pixels -> (N, 4) float32 boxes in image pixels."""
        out = xyxy.astype(np.float32).copy()
        out[:, [0, 2]] -= self.pad[0]
        out[:, [1, 3]] -= self.pad[1]
        return out / self.ratio


def letterbox(image: np.ndarray, shape: tuple[int, int], scaleup: bool = True) -> tuple[np.ndarray, Letterbox]:
    """Ultralytics' ``LetterBox(new_shape=shape, auto=False, center=True)``, bit for bit.

    Args:
        image: (H, W, 3) uint8 BGR.
        shape: (h, w) of the network input, pixels.
        scaleup: allow enlarging (ultralytics' default True).

    Returns:
        ((h, w, 3) uint8 BGR padded with 114, the :class:`Letterbox` to map boxes back).
    """
    h0, w0 = image.shape[:2]
    r = min(shape[0] / h0, shape[1] / w0)
    if not scaleup:
        r = min(r, 1.0)
    new_w, new_h = int(round(w0 * r)), int(round(h0 * r))
    dw, dh = (shape[1] - new_w) / 2, (shape[0] - new_h) / 2
    if (w0, h0) != (new_w, new_h):
        image = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_LINEAR)
    top, bottom = int(round(dh - 0.1)), int(round(dh + 0.1))
    left, right = int(round(dw - 0.1)), int(round(dw + 0.1))
    image = cv2.copyMakeBorder(image, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(114, 114, 114))
    return image, Letterbox(ratio=r, pad=(left, top), shape=shape)


def to_blob(images: list[np.ndarray]) -> np.ndarray:
    """(B, h, w, 3) uint8 BGR list -> (B, 3, h, w) float32 RGB in [0, 1] (ultralytics' input)."""
    batch = np.stack(images)[..., ::-1]
    return np.ascontiguousarray(batch.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


def decode_yolo(output: np.ndarray, conf: float = 0.25, iou: float = 0.5, max_det: int = 300
                ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Decode ultralytics' raw head ``(B, 4 + nc, A)`` into boxes per image, with class-wise NMS.

    Args:
        output: (B, 4 + nc, A) float32: cx, cy, w, h in input pixels, then sigmoid class scores.
        conf: minimum class score kept.
        iou: NMS IoU threshold (per class, ``cv2.dnn.NMSBoxesBatched``).
        max_det: most boxes kept per image.

    Returns:
        Per image: ((K, 4) float32 xyxy input px, (K,) float32 scores, (K,) int32 class ids), best first.
    """
    results = []
    for pred in output:
        scores_all = pred[4:]
        cls = scores_all.argmax(0)
        score = scores_all[cls, np.arange(pred.shape[1])]
        keep = score >= conf
        if not keep.any():
            results.append((np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int32)))
            continue
        cx, cy, w, h = pred[0, keep], pred[1, keep], pred[2, keep], pred[3, keep]
        score, cls = score[keep].astype(np.float32), cls[keep].astype(np.int32)
        xywh = np.stack([cx - w / 2, cy - h / 2, w, h], 1)
        idx = cv2.dnn.NMSBoxesBatched(xywh.tolist(), score.tolist(), cls.tolist(), conf, iou)
        idx = np.asarray(idx, dtype=np.int64).reshape(-1)
        idx = idx[np.argsort(-score[idx])][:max_det]
        xyxy = np.stack([xywh[idx, 0], xywh[idx, 1], xywh[idx, 0] + xywh[idx, 2], xywh[idx, 1] + xywh[idx, 3]], 1)
        results.append((xyxy.astype(np.float32), score[idx], cls[idx]))
    return results
