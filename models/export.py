"""Export stage 1 to ONNX (opset 18, onnxslim) beside its ``.pt``, and record checksums for the model card.

Imports ultralytics only inside the function (``train`` extra).
"""

from __future__ import annotations

import hashlib
import os
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


def quantize_stage1(onnx_path: Path, out: Path, calib_images: list, imgsz: tuple[int, int] = (320, 320)) -> dict:
    """Static int8 quantisation (onnxruntime ``quantize_static`` after ``quant_pre_process``; QDQ, uint8 activations,
    int8 weights, Conv only), calibrated on ``calib_images`` ((h, w, 3) uint8 BGR crops as the runtime feeds them).

    Returns:
        {"onnx": path, "sha256": ..., "mb": size}.
    """
    import tempfile

    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from vision.onnx_runtime import letterbox, to_blob

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.blobs = iter([{"images": to_blob([letterbox(im, imgsz)[0]])} for im in calib_images])

        def get_next(self):
            return next(self.blobs, None)

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(onnx_path), str(pre), skip_symbolic_shape=True)
        q = Path(tmp) / "q.onnx"
        quantize_static(str(pre), str(q), Reader(), quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8, op_types_to_quantize=["Conv"], per_channel=True)
        shutil.copyfile(q, out.with_name(out.name + ".tmp"))
        os.replace(out.with_name(out.name + ".tmp"), out)
    return {"onnx": str(out), "sha256": sha256(out), "mb": round(out.stat().st_size / 2**20, 2)}
