"""``pitwatch bench``: the whole detection per calibrated 1080p frame, against ultralytics' own predict.

The frames are rendered (:func:`datasets.render.render_frame`) with every seat
holding cards and chips, so every zone has changed.  ONNX runs (stage 1 on the
zone crops, stage 2, grouping, chips) are interleaved frame by frame with the
same pipeline on the float models and with ultralytics' ``predict`` of the float
stage-1 weights (``models/stage1.pt``) on the same crops at the same input sizes
and the same thread count; medians are reported.  Ultralytics is optional
(``train`` extra): without it the comparison fields are null.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

from vision.card_reader import DEFAULT_READER, FP32_READER
from vision.detector import DEFAULT_STAGE1, FP32_STAGE1, FrameReader, TableView


def bench_scene(seed: int = 0, width: int = 1920, height: int = 1080):
    """A rendered calibrated frame: (image (H, W, 3) uint8 BGR, :class:`TableView`, truth RenderResult)."""
    from calibration.camera import PinholeCamera
    from calibration.layout import builtin_layout
    from datasets.render import render_frame
    from datasets.scene import ChipLayer, ChipStack, PlacedCard, TableState
    from rules.cards import CARD_LABELS
    from vision.chips import default_chip_set

    rng = np.random.default_rng(seed)
    layout = builtin_layout("blackjack-7-mtd-bonus")
    camera = PinholeCamera.looking_at(target=(950, 500), tilt_deg=float(rng.uniform(10, 30)), yaw_deg=0,
                                      width=width, height=height, cover_mm=1900)
    deck = list(rng.permutation(CARD_LABELS))
    cards, chips = [], []
    denoms = [c.denomination for c in default_chip_set()]
    for z in layout.zones:
        if z.kind in ("cards", "dealer_cards"):
            cx, cy = z.centroid
            for k in range(2 if z.kind == "cards" else 3):
                cards.append(PlacedCard(card=str(deck.pop()), face_up=not (z.kind == "dealer_cards" and k == 1),
                                        center=(cx + 18 * k - 10, cy + 10 * k), angle_deg=float(rng.uniform(-20, 20)),
                                        layer=k, zone=z.name))
        elif z.kind in ("main", "mtd", "bonus") and z.circle is not None:
            layers = (ChipLayer(int(rng.choice(denoms)), int(rng.integers(1, 6))),)
            chips.append(ChipStack(center=z.circle.center, layers=layers, zone=z.name))
    result = render_frame(layout, TableState(cards=tuple(cards), chips=tuple(chips)), camera, rng=seed)
    view = TableView(id="bench", layout=layout, homography=camera.homography(), camera=camera,
                     chip_set=default_chip_set())
    return result.image, view, result


def _median_ms(xs: list[float]) -> float:
    return round(statistics.median(xs) * 1000, 2)


def run_bench(frames: int = 30, quick: bool = False, log=sys.stderr, stage1: Path = DEFAULT_STAGE1,
              reader: Path = DEFAULT_READER, px_per_mm: float = 1.0, pt: Path | None = None) -> dict:
    """Time the configurations and return the headline case plus details (contracts ``bench --json``).

    Per configuration (threads; a calibrated frame's zone crops or, without a table file, tiles) three
    things run interleaved frame by frame: the whole detection with ``stage1`` and ``reader`` (the
    headline), the whole detection with the float models (``fp32_onnx_ms``, when the headline's are
    others: int8 against fp32 in one run), and ultralytics' ``predict`` of the float stage-1 weights on
    the very batches the ONNX stage 1 ran (same crops, same input shapes, same threads).

    Args:
        stage1, reader: the models timed (default: the runtime's defaults).
        px_per_mm: zone-crop resolution of the calibrated configurations (the tiles' is the frame's own).
        pt: the ultralytics weights of the baseline (default: ``stage1``'s ``.pt`` beside it, else
            ``models/stage1.pt``).
    """
    stage1, reader = Path(stage1), Path(reader)
    pt = Path(pt) if pt is not None else (stage1.with_suffix(".pt") if stage1.with_suffix(".pt").is_file()
                                          else FP32_STAGE1.with_suffix(".pt"))
    scenes = [bench_scene(seed) for seed in range(3)]
    configs = [(2, True)] if quick else [(2, True), (1, True), (2, False), (1, False)]
    compare_fp32 = (stage1.resolve(), reader.resolve()) != (FP32_STAGE1.resolve(), FP32_READER.resolve()) \
        and FP32_STAGE1.is_file() and FP32_READER.is_file()
    results: dict = {}
    for threads, calibrated in configs:
        fr = FrameReader(stage1, reader, threads=threads, px_per_mm=px_per_mm)
        fr32 = FrameReader(FP32_STAGE1, FP32_READER, threads=threads, px_per_mm=px_per_mm) if compare_fp32 else None
        ul = _ultralytics(pt, threads)
        onnx_t, stage1_t, fp32_t, ul_t = [], [], [], []
        for i in range(frames + 2):
            image, view, _ = scenes[i % len(scenes)]
            table = view if calibrated else None
            t0 = time.perf_counter()
            res = fr(image, table)
            t1 = time.perf_counter()
            crops = fr.crops_for(table, image.shape[1], image.shape[0])
            t2 = time.perf_counter()
            fr.detector.detect_crops(image, crops)
            t3 = time.perf_counter()
            if fr32 is not None:
                fr32(image, table)
            t4 = time.perf_counter()
            if ul is not None:
                batches = _batches(fr, image, crops)
                t5 = time.perf_counter()
                for shape, warped in batches:
                    ul(warped, imgsz=list(shape))
                t6 = time.perf_counter()
            if i >= 2:  # two warm-up frames
                onnx_t.append(t1 - t0)
                stage1_t.append(t3 - t2)
                fp32_t.append(t4 - t3)
                if ul is not None:
                    ul_t.append(t6 - t5)
        key = f"{threads}t_{'calibrated' if calibrated else 'tiles'}"
        results[key] = {"threads": threads, "calibrated": calibrated, "crops": len(crops),
                        "onnx_ms": _median_ms(onnx_t), "stage1_onnx_ms": _median_ms(stage1_t),
                        "ultralytics_ms": _median_ms(ul_t) if ul_t else None,
                        "speedup": round(statistics.median(ul_t) / statistics.median(onnx_t), 2) if ul_t else None,
                        "cards_found": len(res.cards)}
        if fr32 is not None:
            results[key]["fp32_onnx_ms"] = _median_ms(fp32_t)
            results[key]["fp32_over_onnx"] = round(statistics.median(fp32_t) / statistics.median(onnx_t), 2)
        print(f"bench {key}: {results[key]}", file=log, flush=True)
    head = results["2t_calibrated"]
    return {"frame": "1920x1080", "threads": 2, "calibrated": True, "px_per_mm": px_per_mm, "frames": frames,
            "onnx_ms": head["onnx_ms"],
            "ultralytics_ms": head["ultralytics_ms"], "speedup": head["speedup"], "stage1_onnx_ms": head["stage1_onnx_ms"],
            "fp32_onnx_ms": head.get("fp32_onnx_ms"),
            "models": {"stage1": stage1.name, "reader": reader.name, "ultralytics": pt.name}, "configs": results}


def _batches(fr: FrameReader, image, crops) -> list[tuple[tuple[int, int], list]]:
    """[(input (h, w), warped crops)]: the exact batches and input shapes the ONNX stage 1 ran (for ultralytics'
    predict on the same inputs)."""
    from vision.detector import batches_by_shape, warp_crop

    det = fr.detector
    groups = batches_by_shape(crops, list(range(len(crops))), det.imgsz if not det.dynamic else None)
    return [(shape or det.imgsz, [warp_crop(image, crops[i]) for i in idx]) for shape, idx in groups.items()]


def _ultralytics(pt: Path, threads: int):
    """ultralytics' predict bound to the stage-1 .pt at ``threads`` threads, or None without the train extra."""
    try:
        from models.train import offline_ultralytics

        offline_ultralytics(threads)
        from ultralytics import YOLO
    except ImportError:
        return None
    if not pt.is_file():
        return None
    model = YOLO(str(pt))

    def predict(images, imgsz):
        return model.predict(images, imgsz=imgsz, conf=0.25, iou=0.5, device="cpu", verbose=False, batch=len(images))

    return predict
