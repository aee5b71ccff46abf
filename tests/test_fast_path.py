"""The fast detection path: stage 1's head decoded per level, crops batched by shape, int8 models.

The int8 models are the runtime's defaults only because they read what the float ones read
(``models/MODEL_CARD.md``, "Speed"); these tests pin the arithmetic that makes that true.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from vision.detector import Crop, batches_by_shape
from vision.onnx_runtime import decode_yolo, decode_yolo_levels

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "models"
HAVE_ONNX = importlib.util.find_spec("onnx") is not None
needs_onnx = pytest.mark.skipif(not HAVE_ONNX, reason="onnx (the `train` extra) not installed")


def _full_head(levels: list[np.ndarray], input_hw: tuple[int, int]) -> np.ndarray:
    """Ultralytics' own decoding of every anchor of every level: (B, 4 + nc, A) cx cy w h, sigmoid scores."""
    cols = []
    for box_map, cls_map in zip(levels[0::2], levels[1::2]):
        b, nc, h, w = cls_map.shape
        stride = input_hw[0] / h
        reg = box_map.shape[1] // 4
        d = box_map.reshape(b, 4, reg, h * w)
        p = np.exp(d - d.max(2, keepdims=True))
        p /= p.sum(2, keepdims=True)
        ltrb = (p * np.arange(reg)[None, None, :, None]).sum(2)  # (B, 4, A)
        gy, gx = np.divmod(np.arange(h * w), w)
        ax, ay = gx + 0.5, gy + 0.5
        x1, y1, x2, y2 = ax - ltrb[:, 0], ay - ltrb[:, 1], ax + ltrb[:, 2], ay + ltrb[:, 3]
        xywh = np.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], 1) * stride
        cols.append(np.concatenate([xywh, 1 / (1 + np.exp(-cls_map.reshape(b, nc, h * w)))], 1))
    return np.concatenate(cols, 2).astype(np.float32)


def _levels(seed: int = 0, b: int = 2, nc: int = 3, reg: int = 16, hw=((12, 20), (6, 10), (3, 5))):
    rng = np.random.default_rng(seed)
    out = []
    for h, w in hw:
        out.append(rng.normal(0, 2, (b, 4 * reg, h, w)).astype(np.float32))
        cls = rng.normal(-6, 1.5, (b, nc, h, w)).astype(np.float32)
        cls.reshape(-1)[rng.choice(cls.size, 12, replace=False)] = rng.uniform(-1, 4, 12)  # a few confident anchors
        out.append(cls)
    return out


def test_a_head_decoded_per_level_gives_ultralytics_boxes_scores_and_classes():
    levels = _levels()
    for ours, theirs in zip(decode_yolo_levels(levels, (96, 160), conf=0.25, iou=0.5),
                            decode_yolo(_full_head(levels, (96, 160)), conf=0.25, iou=0.5)):
        assert len(ours[0]) == len(theirs[0]) > 0
        np.testing.assert_allclose(ours[0], theirs[0], atol=1e-3)
        np.testing.assert_allclose(ours[1], theirs[1], atol=1e-6)
        assert ours[2].tolist() == theirs[2].tolist()


def test_a_head_decoded_per_level_keeps_nothing_below_the_score_threshold():
    levels = [m if k % 2 == 0 else np.full_like(m, -3.0) for k, m in enumerate(_levels())]  # sigmoid(-3) = 0.047
    assert all(len(xyxy) == 0 for xyxy, _, _ in decode_yolo_levels(levels, (96, 160), conf=0.05))


def test_levels_must_come_in_box_and_class_pairs():
    with pytest.raises(ValueError, match="pairs"):
        decode_yolo_levels(_levels()[:3], (96, 160))


def _crop(w: int, h: int, zoned: bool = True) -> Crop:
    return Crop(M=np.eye(3), size=(w, h), name=f"{w}x{h}", zones=(("z", np.zeros((3, 2), np.float32)),) if zoned else ())


def test_zone_crops_of_one_size_share_a_batch_and_others_get_their_own():
    crops = [_crop(448, 283), _crop(448, 283), _crop(440, 220), _crop(240, 160)]
    assert batches_by_shape(crops, [0, 1, 2, 3], None) == {(288, 448): [0, 1], (224, 448): [2], (160, 256): [3]}


def test_tiles_and_a_fixed_size_model_keep_one_batch():
    assert batches_by_shape([_crop(640, 640, False), _crop(640, 440, False)], [0, 1], None) == {None: [0, 1]}
    assert batches_by_shape([_crop(448, 283), _crop(240, 160)], [0, 1], (320, 320)) == {None: [0, 1]}


@needs_onnx
def test_the_stage1_graph_cut_before_its_box_decoding_finds_the_same_boxes(tmp_path):
    from models.export import split_stage1_head
    from vision.bench import bench_scene
    from vision.detector import FP32_STAGE1, Stage1Detector, zone_crops

    cut = tmp_path / "levels.onnx"
    split_stage1_head(FP32_STAGE1, cut)
    full, levels = Stage1Detector(FP32_STAGE1, threads=1), Stage1Detector(cut, threads=1)
    assert levels.levels and not full.levels
    image, view, _ = bench_scene(0)
    crops = zone_crops(view.layout, view.homography, image_size=(image.shape[1], image.shape[0]))
    a, b = full.detect_crops(image, crops), levels.detect_crops(image, crops)
    assert len(a) == len(b) > 10
    oa, ob = np.lexsort(a.xyxy.T), np.lexsort(b.xyxy.T)
    np.testing.assert_allclose(a.xyxy[oa], b.xyxy[ob], atol=0.01)
    assert a.class_id[oa].tolist() == b.class_id[ob].tolist()


@needs_onnx
def test_a_graph_without_a_detect_head_cannot_be_cut(tmp_path):
    from models.export import split_stage1_head

    with pytest.raises(ValueError, match="Detect head"):
        split_stage1_head(MODELS / "card_reader.onnx", tmp_path / "x.onnx")


INT8 = [MODELS / "stage1_int8.onnx", MODELS / "card_reader_int8.onnx"]
needs_int8 = pytest.mark.skipif(not all(p.is_file() for p in INT8), reason="committed int8 models absent")


def test_int8_is_exact_on_vnni_and_arm_dot_product_cpus_only():
    from vision.onnx_runtime import int8_is_exact

    assert int8_is_exact("flags\t\t: fpu sse2 avx2 avx512f avx512_vnni", "x86_64")
    assert int8_is_exact("flags\t\t: fpu sse2 avx2 avx_vnni", "x86_64")
    assert not int8_is_exact("flags\t\t: fpu sse2 avx2 fma avx512f avx512bw", "x86_64")  # vpmaddubsw saturates
    assert int8_is_exact("Features\t: fp asimd evtstrm asimddp", "aarch64")
    assert not int8_is_exact("Features\t: fp asimd", "aarch64")
    assert not int8_is_exact("whatever", "riscv64")


@needs_int8
def test_the_runtime_reads_int8_where_the_cpu_keeps_int8_exact_and_float_elsewhere():
    from vision.card_reader import DEFAULT_READER
    from vision.detector import DEFAULT_STAGE1, FP32_STAGE1, Stage1Detector
    from vision.onnx_runtime import int8_is_exact

    assert DEFAULT_READER == INT8[1]  # 7-bit weights: exact everywhere
    assert DEFAULT_STAGE1 == (INT8[0] if int8_is_exact() else FP32_STAGE1)
    assert Stage1Detector(INT8[0]).levels  # cut before the box decoding


@needs_int8
def test_the_runtime_models_name_the_cards_the_float_ones_name():
    from vision.bench import bench_scene
    from vision.card_reader import DEFAULT_READER, FP32_READER
    from vision.detector import DEFAULT_STAGE1, FP32_STAGE1, FrameReader

    fast, slow = FrameReader(DEFAULT_STAGE1, DEFAULT_READER, threads=1), FrameReader(FP32_STAGE1, FP32_READER, threads=1)
    same = total = 0
    for seed in range(3):
        image, view, truth = bench_scene(seed)
        a = sorted(c.label for c in fast(image, view).cards)
        b = sorted(c.label for c in slow(image, view).cards)
        total += len(b)
        same += sum(min(a.count(x), b.count(x)) for x in set(b))
    assert total > 40 and same / total >= 0.95


@needs_int8
def test_the_int8_card_reader_keeps_the_float_readers_calibration_and_turns():
    from vision.card_reader import FP32_READER, CardReader

    fast, slow = CardReader(INT8[1]), CardReader(FP32_READER)
    assert (fast.temperature, fast.threshold, fast.turns, fast.combine) == \
        (slow.temperature, slow.threshold, slow.turns, slow.combine)


def test_a_new_table_view_never_gets_the_zone_crops_of_a_freed_one():
    # ids are unique only among live objects: one view per rendered frame (eval detect) once read a frame through
    # an earlier frame's crops when the new view got the freed view's id
    from vision.bench import bench_scene
    from vision.detector import FrameReader, zone_crops

    fr = FrameReader(threads=1)
    _, view_a, _ = bench_scene(0)
    image, view_b, _ = bench_scene(1)
    w, h = image.shape[1], image.shape[0]
    stale = fr.crops_for(view_a, w, h)
    fr._crops[(id(view_b), w, h)] = (view_a, stale)  # as if view_b had been given view_a's freed id
    got = fr.crops_for(view_b, w, h)
    want = zone_crops(view_b.layout, view_b.homography, image_size=(w, h))
    assert [c.name for c in got] == [c.name for c in want]
    assert all(np.allclose(a.M, b.M) for a, b in zip(got, want))
