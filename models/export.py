"""Export stage 1 to ONNX (opset 18, onnxslim) beside its ``.pt``, and record checksums for the model card.

Imports ultralytics only inside the function (``train`` extra).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path


def sha256(path: Path) -> str:
    """Hex SHA-256 of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def export_stage1(weights: Path, out: Path, imgsz: int = 320, dynamic: bool = True) -> dict:
    """Export ``weights`` (.pt) to ``out`` (.onnx, opset 18, dynamic batch and size) and copy the .pt beside it.

    Returns:
        {"onnx": path, "pt": path, "onnx_sha256": ..., "pt_sha256": ..., "onnx_mb": size}.
    """
    from models.train import offline_ultralytics

    offline_ultralytics()
    from ultralytics import YOLO

    weights, out = Path(weights), Path(out)
    model = YOLO(str(weights))
    exported = Path(model.export(format="onnx", opset=18, imgsz=imgsz, dynamic=dynamic, simplify=True,
                                 device="cpu", half=False, nms=False))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    shutil.copyfile(exported, tmp)
    os.replace(tmp, out)
    pt = out.with_suffix(".pt")
    if weights.resolve() != pt.resolve():
        from ultralytics.utils.torch_utils import strip_optimizer

        tmp_pt = pt.with_name(pt.name + ".tmp")
        shutil.copyfile(weights, tmp_pt)
        strip_optimizer(str(tmp_pt))  # weights only (fp16), as ultralytics ships them: ~5 MB instead of ~26
        os.replace(tmp_pt, pt)
    return {"onnx": str(out), "pt": str(pt), "onnx_sha256": sha256(out), "pt_sha256": sha256(pt),
            "onnx_mb": round(out.stat().st_size / 2**20, 2)}


HEAD_OUTPUT = re.compile(r"^/model\.(\d+)/cv([23])\.(\d+)/cv\2\.\3\.2/Conv$")
"""Names of the last convolution of each box (``cv2``) and class (``cv3``) branch of ultralytics' Detect head."""


def split_stage1_head(onnx_path: Path, out: Path) -> dict:
    """Cut an exported stage-1 graph before its box decoding (see :func:`vision.onnx_runtime.decode_yolo_levels`).

    The outputs become, per pyramid level (stride 8, 16, 32), the box branch's (B, 4 * reg_max, h, w)
    distributions and the class branch's (B, nc, h, w) logits; the metadata gains ``pitwatch_head =
    levels``.  The runtime then decodes only the anchors that clear the score threshold.

    Raises:
        ValueError: the graph has no ultralytics Detect head.
    """
    import onnx
    from onnx.utils import Extractor

    from vision.onnx_runtime import HEAD_LEVELS

    model = onnx.load(str(onnx_path))
    found = {}
    for node in model.graph.node:
        m = HEAD_OUTPUT.match(node.name)
        if m:
            found[(int(m.group(3)), int(m.group(2)))] = node.output[0]  # (level, 2 = box / 3 = class)
    levels = sorted({k[0] for k in found})
    if not levels or any((lv, br) not in found for lv in levels for br in (2, 3)):
        raise ValueError(f"{onnx_path}: no ultralytics Detect head (box and class branches per level) found")
    outputs = [found[(lv, br)] for lv in levels for br in (2, 3)]
    cut = Extractor(model).extract_model([i.name for i in model.graph.input], outputs)
    del cut.metadata_props[:]
    cut.metadata_props.extend(model.metadata_props)
    cut.metadata_props.add(key="pitwatch_head", value=HEAD_LEVELS)
    tmp = out.with_name(out.name + ".tmp")
    onnx.save(cut, str(tmp))
    os.replace(tmp, out)
    return {"onnx": str(out), "sha256": sha256(out), "mb": round(out.stat().st_size / 2**20, 2),
            "outputs": len(outputs)}


def quantize_stage1(onnx_path: Path, out: Path, calib_images: list, keep_float: tuple[str, ...] = (),
                    reduce_range: bool = False) -> dict:
    """Static int8 quantisation of a stage-1 graph (onnxruntime ``quantize_static`` after ``quant_pre_process``;
    QDQ, uint8 activations, int8 weights per channel, every operator it can quantise), calibrated on
    ``calib_images``.

    CPUs without VNNI (AVX2, AVX-512 before VNNI) multiply uint8 by int8 in pairs summed into 16 bits, which
    full-range weights can overflow; ``reduce_range`` gives the weights 7 bits, which cannot. Stage 1 loses rendered
    recall with 7 bits (0.947 -> 0.930), so its int8 graph keeps 8 and the runtime runs it only where the CPU's
    int8 arithmetic is exact (:func:`vision.onnx_runtime.int8_is_exact`).

    Quantising the activations between the convolutions too (each SiLU, concatenation, upsampling)
    keeps the whole backbone and neck in int8; with only the convolutions quantised every one of them
    converts to float and back, which on this CPU was slower than float alone.  The box decoding of a
    full head (:func:`export_stage1`'s graph) stays float: quantised, its box coordinates and scores
    share one output scale and every score is lost.  Use a graph cut by :func:`split_stage1_head`.

    Args:
        calib_images: (h, w, 3) uint8 BGR crops as the runtime feeds them (zone crops, each padded to
            a multiple of 32 px, never rescaled).
        keep_float: names of more nodes to leave in float.

    Returns:
        {"onnx": path, "sha256": ..., "mb": size}.
    """
    import math

    import onnx

    from vision.onnx_runtime import letterbox, to_blob

    def shape(im):
        return (int(math.ceil(im.shape[0] / 32) * 32), int(math.ceil(im.shape[1] / 32) * 32))

    source = onnx.load(str(onnx_path))
    name = source.graph.input[0].name
    feeds = [{name: to_blob([letterbox(im, shape(im), scaleup=False)[0]])} for im in calib_images]
    decode = [n.name for n in source.graph.node if n.name.startswith("/model.") and n.name.split("/")[1] ==
              _detect_module(source) and not HEAD_BRANCH.search(n.name)]
    return _quantize(onnx_path, out, feeds, reduce_range=reduce_range, exclude=decode + list(keep_float))


def _quantize(onnx_path: Path, out: Path, feeds: list[dict], reduce_range: bool, exclude: list[str] = ()) -> dict:
    """``quantize_static`` (after ``quant_pre_process``; QDQ, uint8 activations, int8 weights per channel) of
    ``onnx_path`` calibrated on ``feeds`` (input name -> array, one per calibration run), the source's metadata
    kept, written to ``out`` atomically. Returns {"onnx": path, "sha256": ..., "mb": size}."""
    import tempfile

    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.feeds = iter(feeds)

        def get_next(self):
            return next(self.feeds, None)

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(onnx_path), str(pre), skip_symbolic_shape=True)
        q = Path(tmp) / "q.onnx"
        quantize_static(str(pre), str(q), Reader(), quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8, per_channel=True, reduce_range=reduce_range,
                        nodes_to_exclude=list(exclude))
        model = onnx.load(str(q))
        del model.metadata_props[:]
        model.metadata_props.extend(onnx.load(str(onnx_path)).metadata_props)
        tmp_out = out.with_name(out.name + ".tmp")
        onnx.save(model, str(tmp_out))
        os.replace(tmp_out, out)
    return {"onnx": str(out), "sha256": sha256(out), "mb": round(out.stat().st_size / 2**20, 2)}


HEAD_BRANCH = re.compile(r"/cv[23]\.\d+/")
"""A node inside one of the Detect head's per-level box or class branches (convolutions, not the decoding)."""


def _detect_module(model) -> str:
    """``model.N``: the ultralytics module holding the Detect head (the one the head's branch convolutions are in)."""
    for node in model.graph.node:
        m = HEAD_OUTPUT.match(node.name)
        if m:
            return f"model.{m.group(1)}"
    return "model.-"


def calibration_index_crops(frames: int = 30, seed: int = 5000, held_out: str = "proc-caladea-std") -> list:
    """Corner-index crops cut as the runtime cuts them (stage 1's squares, :func:`vision.card_reader.square_crop`)
    from rendered frames of the training deck designs: the calibration set of an int8 card reader.

    Returns:
        (40, 40, 3) uint8 BGR crops, about twenty a frame.
    """
    from datasets.cards import list_deck_designs
    from vision.card_reader import square_crop
    from vision.card_reader import FP32_READER
    from vision.detector import FP32_STAGE1, FrameReader
    from vision.evaluate import holdout_scene

    designs = [d for d in list_deck_designs(include_svg=False) if d != held_out]
    fr = FrameReader(FP32_STAGE1, FP32_READER, chip_side=None, probe_spots=False)  # the float squares, whatever runs
    crops = []
    for k in range(frames):
        image, view, _ = holdout_scene(seed + k, designs[k % len(designs)])
        dets = fr.detector.detect_crops(image, fr.crops_for(view, image.shape[1], image.shape[0]))
        squares = dets.data.get("index_square")
        for row in (dets.class_id == 0).nonzero()[0] if squares is not None else ():
            crops.append(square_crop(image, squares[row], fr.reader.size, fr.reader.margin))
    return crops


def quantize_reader(onnx_path: Path, out: Path, calib_crops: list, batch: int = 64) -> dict:
    """Static int8 quantisation of the card reader (QDQ, uint8 activations, int8 weights per channel in 7 bits,
    every operator), calibrated on ``calib_crops`` read at the reader's own turns; its metadata (temperature,
    threshold, turns) is kept.

    7-bit weights (``reduce_range``) cannot overflow the 16-bit pair sums of CPUs without VNNI (see
    :func:`quantize_stage1`), so the same file reads alike on every x86 CPU; for the reader they cost nothing
    measurable (rendered hold-out per card 0.966 with either).

    Args:
        calib_crops: (size, size, 3) uint8 BGR index crops (:func:`calibration_index_crops`).

    Returns:
        {"onnx": path, "sha256": ..., "mb": size}.
    """
    import numpy as np

    from vision.card_reader import CardReader, crops_to_blob, turned_crops

    reader = CardReader(onnx_path)
    if not calib_crops:
        raise ValueError("no calibration crops")
    turned = turned_crops(np.stack(calib_crops), reader.turns)
    feeds = [{reader.input_name: crops_to_blob(turned[i:i + batch])} for i in range(0, len(turned), batch)]
    return _quantize(onnx_path, out, feeds, reduce_range=True)


def calibration_chip_strips(frames: int = 40, seed: int = 777, strips: int = 1024) -> "np.ndarray":
    """Chip-side strips (:func:`vision.chip_side.stack_strips`) of rendered stacks, as training samples them:
    aligned and misaligned bases, bare spots and felt; 60 % of frames at 3840 x 2160, half the stacks stacked as
    players stack a wager. The calibration set of an int8 chip side.

    Returns:
        (min(strips, N), STRIP_ROWS, ARC_POINTS, 6) uint8, drawn at random from about forty per frame.
    """
    import numpy as np

    from models.chip_side_train import make_strips

    x = make_strips(frames, seed, min_ppc=1.4, workers=2, uhd_share=0.6, player_share=0.5, log=lambda *a: None)[0]
    return x[np.random.default_rng(0).permutation(len(x))[:strips]]


def free_chip_side_rows(onnx_path: Path, out: Path | None = None) -> dict:
    """Declare a chip-side model's strip row count free (the input ``(batch, 6, rows, 12)``, the output
    ``slot_logits`` ``(batch, slots, 1 + D)``), weights untouched, so
    the base search reads its :data:`vision.chip_side.SEARCH_ROWS`-row strips (half the model's time per base).
    Chip-side models exported since the twenty-second session have it already (:func:`models.chip_side_train.
    export_chip_side`); this brings an older file in line (``out``: default ``onnx_path`` itself).

    Returns:
        {"onnx": path, "sha256": ..., "mb": size}.

    Raises:
        ValueError: the file is not a chip-side model (input of four dimensions, 6 channels).
    """
    import onnx

    from vision.chip_side import STRIP_CHANNELS

    out = Path(out or onnx_path)
    model = onnx.load(str(onnx_path))
    dims = model.graph.input[0].type.tensor_type.shape.dim
    if len(dims) != 4 or dims[1].dim_value != STRIP_CHANNELS:
        raise ValueError(f"{onnx_path}: not a chip-side model (input {[d.dim_value or d.dim_param for d in dims]})")
    dims[2].ClearField("dim_value")
    dims[2].dim_param = "rows"
    for output in model.graph.output:  # the slots read follow the rows: a 32-row strip gives 7 slots, not 16
        odims = output.type.tensor_type.shape.dim
        if output.name == "slot_logits" and len(odims) == 3:
            odims[1].ClearField("dim_value")
            odims[1].dim_param = "slots"
    del model.graph.value_info[:]  # inferred shapes would pin the old row count
    onnx.checker.check_model(model)
    onnx.save(model, str(out))
    return {"onnx": str(out), "sha256": sha256(out), "mb": round(out.stat().st_size / 1e6, 2)}


def quantize_chip_side(onnx_path: Path, out: Path, calib_strips, batch: int = 64) -> dict:
    """Static int8 quantisation of the chip-side model (QDQ, uint8 activations, int8 weights per channel in 7
    bits, every operator), calibrated on ``calib_strips``; its metadata (the denominations) is kept.

    7-bit weights, as the card reader's (:func:`quantize_reader`): the same file reads alike on every x86 CPU.

    Args:
        calib_strips: (N, STRIP_ROWS, ARC_POINTS, 6) uint8 front+back strips (:func:`calibration_chip_strips`).

    Returns:
        {"onnx": path, "sha256": ..., "mb": size}.

    Raises:
        ValueError: no calibration strips.
    """
    from vision.chip_side import ChipSideReader, strips_to_blob

    reader = ChipSideReader(onnx_path)
    if not len(calib_strips):
        raise ValueError("no calibration strips")
    feeds = [{reader.input_name: strips_to_blob(calib_strips[i:i + batch])} for i in range(0, len(calib_strips), batch)]
    return _quantize(onnx_path, out, feeds, reduce_range=True)


def _constant(name: str, init: dict, produced: dict):
    """The value of tensor ``name`` of a graph: an initializer, a ``Constant`` node's, or either behind ``Identity``
    nodes (torch's export gives two equal weights one initializer and an ``Identity`` for the second)."""
    from onnx import numpy_helper

    while name not in init:
        node = produced.get(name)
        if node is not None and node.op_type == "Identity":
            name = node.input[0]
        elif node is not None and node.op_type == "Constant":
            return numpy_helper.to_array(node.attribute[0].t)
        else:
            raise ValueError(f"{name}: not a constant of the graph")
    return numpy_helper.to_array(init[name])


def chip_side_search_graph(onnx_path: Path, out: Path) -> dict:
    """The base search of a chip-side model as one pass over a tall strip: its alignment at every row offset.

    Each net of the model (:func:`models.chip_side_train.chip_side_net`, one or the mean of several) reads the
    alignment with a linear layer over its features' bottom :data:`vision.chip_side.ALIGNED_ROWS` rows, (64 x 16)
    flattened channel first. That layer is a 1-D convolution of kernel 16 slid along the rows: cut after each
    net's last feature block and given that convolution instead, the graph reads a strip of any height once and
    gives, for each row offset ``r``, the alignment of the strip's rows from ``r`` up (each net's sigmoid,
    averaged over the nets, as :func:`models.chip_side_train.chip_side_mean`). At offset 0 that is the model's
    own ``aligned_logit``'s probability for the same strip (a test checks it); at the other offsets the features
    below the window are the image's, where the model read a strip cut there saw zero padding.

    Input ``strips`` ``(batch, 6, rows, 12)``; output ``aligned`` ``(batch, rows - 15)`` float32 probabilities.
    The denominations metadata is kept, and ``source_sha256`` names the model it was made from (the runtime uses
    it only beside that file: :func:`vision.chip_side.search_graph_path`).

    Returns:
        {"onnx": path, "sha256": ..., "mb": size}.

    Raises:
        ValueError: no net's alignment layer (a ``Gemm`` named ``*aligned*`` after a ``Flatten``) is found.
    """
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    from vision.chip_side import ALIGNED_ROWS

    model = onnx.load(str(onnx_path))
    g = model.graph
    init = {t.name: t for t in g.initializer}
    produced = {o: n for n in g.node for o in n.output}
    heads = [n for n in g.node if n.op_type == "Gemm" and "aligned" in n.name]
    if not heads:
        raise ValueError(f"{onnx_path}: no alignment layer (Gemm named *aligned*) found")
    features, new_nodes, new_inits, probs = [], [], [], []
    for k, gemm in enumerate(heads):
        flat = produced[gemm.input[0]]
        sl = produced[flat.input[0]] if flat.op_type == "Flatten" else None
        if sl is None or sl.op_type != "Slice":
            raise ValueError(f"{onnx_path}: {gemm.name} does not read a slice of features through a Flatten")
        feat = sl.input[0]  # (batch, channels, rows): the net's last feature block
        w = _constant(gemm.input[1], init, produced).astype(np.float32)
        b = _constant(gemm.input[2], init, produced).astype(np.float32).reshape(1)
        channels = w.shape[1] // ALIGNED_ROWS
        new_inits += [numpy_helper.from_array(w.reshape(1, channels, ALIGNED_ROWS), f"search{k}.weight"),
                      numpy_helper.from_array(b, f"search{k}.bias")]
        new_nodes += [helper.make_node("Conv", [feat, f"search{k}.weight", f"search{k}.bias"], [f"search{k}.logit"],
                                       kernel_shape=[ALIGNED_ROWS], name=f"search{k}/Conv"),
                      helper.make_node("Sigmoid", [f"search{k}.logit"], [f"search{k}.p"], name=f"search{k}/Sigmoid")]
        probs.append(f"search{k}.p")
        features.append(feat)
    if len(probs) > 1:
        new_nodes.append(helper.make_node("Sum", probs, ["search.sum"], name="search/Sum"))
        new_inits.append(numpy_helper.from_array(np.array(1.0 / len(probs), np.float32), "search.share"))
        new_nodes.append(helper.make_node("Mul", ["search.sum", "search.share"], ["search.mean"], name="search/Mul"))
        last = "search.mean"
    else:
        last = probs[0]
    new_inits.append(numpy_helper.from_array(np.array([1], np.int64), "search.axis"))
    new_nodes.append(helper.make_node("Squeeze", [last, "search.axis"], ["aligned"], name="search/Squeeze"))
    # keep only what the features need
    needed, todo = set(), list(features)
    while todo:
        name = todo.pop()
        node = produced.get(name)
        if node is None or id(node) in needed:
            continue
        needed.add(id(node))
        todo += list(node.input)
    nodes = [n for n in g.node if id(n) in needed] + new_nodes
    used = {i for n in nodes for i in n.input}
    graph = helper.make_graph(nodes, "chip_side_search", list(g.input),
                              [helper.make_tensor_value_info("aligned", onnx.TensorProto.FLOAT, ["batch", "offsets"])],
                              [t for t in g.initializer if t.name in used] + new_inits)
    search = helper.make_model(graph, opset_imports=model.opset_import, producer_name="pitwatch")
    search.ir_version = model.ir_version
    for p in model.metadata_props:
        search.metadata_props.append(p)
    entry = search.metadata_props.add()  # the runtime uses a search graph only beside the model it was made from
    entry.key, entry.value = "source_sha256", sha256(Path(onnx_path))
    onnx.checker.check_model(search)
    out = Path(out)
    onnx.save(search, str(out))
    return {"onnx": str(out), "sha256": sha256(out), "mb": round(out.stat().st_size / 1e6, 3)}
