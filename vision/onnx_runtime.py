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


class ModelFileError(ValueError):
    """A model file that is missing, unreadable or not a usable ONNX model (bad input to the command line:
    ``api.errors.bad_input_types``)."""


def available_providers() -> list[str]:
    """Execution providers to use, best first: TensorRT and CUDA when this onnxruntime has them, CPU always."""
    import onnxruntime as ort

    have = set(ort.get_available_providers())
    wanted = ["TensorrtExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider"]
    if os.environ.get("PITWATCH_CPU_ONLY"):
        wanted = ["CPUExecutionProvider"]
    return [p for p in wanted if p in have] or ["CPUExecutionProvider"]


def int8_is_exact(cpuinfo: str | None = None, machine: str | None = None) -> bool:
    """Whether this CPU's uint8 x int8 products (ONNX Runtime's int8 convolutions) cannot saturate.

    x86 CPUs without VNNI (AVX2, AVX-512 before VNNI) multiply uint8 by int8 with ``vpmaddubsw``, whose pair
    sums saturate at 16 bits: an int8 graph with full 8-bit weights can read differently there than on the VNNI
    machine it was calibrated and measured on. VNNI (``avx512_vnni``, ``avx_vnni``), AMX and ARM's dot product
    (``asimddp``) accumulate in 32 bits.

    Args:
        cpuinfo, machine: the text of ``/proc/cpuinfo`` and ``platform.machine()`` (default: read here).
    """
    import platform

    machine = (machine or platform.machine()).lower()
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
        except OSError:
            return False
    flags = set(cpuinfo.replace("\t", " ").replace(":", " ").split())
    if machine in ("x86_64", "amd64"):
        return bool(flags & {"avx512_vnni", "avx_vnni", "amx_int8"})
    if machine in ("aarch64", "arm64"):
        return "asimddp" in flags
    return False


def open_session(path: str | Path, threads: int | None = None, providers: list[str] | None = None):
    """Open an ONNX model.

    Args:
        path: the ``.onnx`` file.
        threads: intra-op threads (None: onnxruntime's default, one per core).
        providers: execution providers; default :func:`available_providers`.

    Returns:
        An ``onnxruntime.InferenceSession`` (graph optimisation ORT_ENABLE_ALL, the fastest measured; its
        threads do not spin waiting for work between runs).

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
    # A frame runs three sessions one after another (stage 1, the card reader, the chip side), each with its own
    # thread pool; a pool left spinning after its run takes a core from the next one. Off, a calibrated 1080p frame
    # took 66 instead of 71 ms (int8) and 117 instead of 132 ms (fp32) on 2 cores.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
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


def unit_nchw(batch: np.ndarray) -> np.ndarray:
    """(B, h, w, C) uint8 (any strides: a channel-reversed view is fine) -> (B, C, h, w) contiguous float32 in [0, 1].

    One pass into a preallocated array, dividing by 255 as before (bit-identical): half the time of a cast to
    float32 and a division that makes a second array (7 seat crops of 448 x 288: 4.2 -> 2.1 ms on 2 cores).
    """
    out = np.empty((batch.shape[0], batch.shape[3], batch.shape[1], batch.shape[2]), np.float32)
    np.divide(batch.transpose(0, 3, 1, 2), np.float32(255.0), out=out)
    return out


def to_blob(images: list[np.ndarray]) -> np.ndarray:
    """(B, h, w, 3) uint8 BGR list -> (B, 3, h, w) float32 RGB in [0, 1] (ultralytics' input)."""
    return unit_nchw(np.stack(images)[..., ::-1])


def _nms(xywh: np.ndarray, score: np.ndarray, cls: np.ndarray, conf: float, iou: float, max_det: int
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class-wise NMS of (K, 4) xywh (top-left, size) candidates: (xyxy, scores, class ids), best first."""
    if len(score) == 0:
        return np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int32)
    idx = cv2.dnn.NMSBoxesBatched(xywh.tolist(), score.tolist(), cls.tolist(), conf, iou)
    idx = np.asarray(idx, dtype=np.int64).reshape(-1)
    idx = idx[np.argsort(-score[idx])][:max_det]
    xyxy = np.stack([xywh[idx, 0], xywh[idx, 1], xywh[idx, 0] + xywh[idx, 2], xywh[idx, 1] + xywh[idx, 3]], 1)
    return xyxy.astype(np.float32), score[idx], cls[idx]


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
        cx, cy, w, h = pred[0, keep], pred[1, keep], pred[2, keep], pred[3, keep]
        xywh = np.stack([cx - w / 2, cy - h / 2, w, h], 1)
        results.append(_nms(xywh, score[keep].astype(np.float32), cls[keep].astype(np.int32), conf, iou, max_det))
    return results


HEAD_LEVELS = "levels"
"""``pitwatch_head`` metadata of a stage-1 graph cut before its box decoding (:func:`decode_yolo_levels`)."""


def decode_yolo_levels(levels: list[np.ndarray], input_hw: tuple[int, int], conf: float = 0.25, iou: float = 0.5,
                       max_det: int = 300) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Decode a YOLO head given per pyramid level, before its box decoding, into boxes per image.

    Ultralytics' exported head turns every anchor's box distribution into a box (a softmax over
    ``reg_max`` bins per side, for every anchor of every level) before any score is looked at:
    about a tenth of stage 1's time on a seat crop.  Here only the anchors whose best class
    clears ``conf`` are decoded, the same arithmetic as ultralytics' ``DFL`` and ``dist2bbox``,
    so the boxes are those of :func:`decode_yolo` on the full head.

    Args:
        levels: per level, in pairs: (B, 4 * reg_max, h, w) float32 box-side distributions (logits),
            then (B, nc, h, w) float32 class logits.
        input_hw: (h, w) of the network input, pixels (a level's stride is ``h`` / its height).
        conf, iou, max_det: as :func:`decode_yolo`.

    Returns:
        Per image: ((K, 4) float32 xyxy input px, (K,) float32 scores, (K,) int32 class ids), best first.
    """
    if len(levels) % 2:
        raise ValueError("levels come in (box distributions, class logits) pairs")
    cut = float(np.log(conf / (1 - conf))) if 0 < conf < 1 else -np.inf  # sigmoid(x) >= conf  <=>  x >= cut
    results = []
    for b in range(levels[0].shape[0]):
        parts_xywh, parts_score, parts_cls = [], [], []
        for box_map, cls_map in zip(levels[0::2], levels[1::2]):
            _, h, w = cls_map.shape[1:]
            stride = input_hw[0] / h
            logits = cls_map[b].reshape(cls_map.shape[1], -1)
            cls = logits.argmax(0)
            best = logits[cls, np.arange(logits.shape[1])]
            keep = np.flatnonzero(best >= cut)
            if not len(keep):
                continue
            reg_max = box_map.shape[1] // 4
            dist = box_map[b].reshape(4, reg_max, -1)[:, :, keep]  # (4, R, K)
            dist = np.exp(dist - dist.max(1, keepdims=True))
            side = (dist * np.arange(reg_max, dtype=np.float32)[None, :, None]).sum(1) / dist.sum(1)  # (4, K): l t r b
            ax, ay = keep % w + 0.5, keep // w + 0.5
            x1, y1 = (ax - side[0]) * stride, (ay - side[1]) * stride
            x2, y2 = (ax + side[2]) * stride, (ay + side[3]) * stride
            parts_xywh.append(np.stack([x1, y1, x2 - x1, y2 - y1], 1))
            parts_score.append(1.0 / (1.0 + np.exp(-best[keep])))
            parts_cls.append(cls[keep])
        if not parts_score:
            results.append(_nms(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int32),
                                conf, iou, max_det))
            continue
        results.append(_nms(np.concatenate(parts_xywh).astype(np.float32),
                            np.concatenate(parts_score).astype(np.float32),
                            np.concatenate(parts_cls).astype(np.int32), conf, iou, max_det))
    return results
