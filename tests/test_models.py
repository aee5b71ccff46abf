"""The committed models load with onnxruntime; training (smoke) and PyTorch/ONNX parity where torch is installed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import cv2
import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "models"
HAVE_TRAIN = all(importlib.util.find_spec(m) is not None for m in ("torch", "ultralytics", "onnx"))
needs_train = pytest.mark.skipif(not HAVE_TRAIN, reason="torch/ultralytics/onnx (the `train` extra) not installed")


@pytest.mark.parametrize("name", ["stage1.onnx", "stage1_int8.onnx", "card_reader.onnx", "card_reader_int8.onnx",
                                  "chip_side.onnx", "chip_side_int8.onnx", "chip_side_search.onnx"])
def test_committed_model_loads_with_onnxruntime(name):
    path = MODELS / name
    if not path.is_file():
        pytest.skip(f"{path} not committed yet")
    from vision.onnx_runtime import open_session

    session = open_session(path, threads=1)
    assert session.get_inputs()[0].name
    assert path.stat().st_size < 20 * 2**20, "each committed model must stay under 20 MB"


def test_committed_models_match_the_model_card():
    card = MODELS / "MODEL_CARD.md"
    if not card.is_file():
        pytest.skip("models/MODEL_CARD.md not written yet")
    from models.export import sha256

    text = card.read_text()
    for name in ("stage1.onnx", "stage1.pt", "stage1_int8.onnx", "card_reader.onnx", "card_reader_int8.onnx",
                 "chip_side.onnx", "chip_side_int8.onnx", "chip_side_search.onnx"):
        if (MODELS / name).is_file():
            assert sha256(MODELS / name) in text, f"{name}: sha256 missing from MODEL_CARD.md"


def test_runtime_modules_never_import_torch_or_ultralytics():
    for path in (REPO / "vision").glob("*.py"):
        if path.name == "bench.py":  # the benchmark times ultralytics' predict when it is installed, lazily
            continue
        src = path.read_text()
        for bad in ("import torch", "import ultralytics", "from torch", "from ultralytics"):
            assert bad not in src, f"{path.name} imports {bad.split()[-1]}"


def _tiny_yolo_set(root: Path, n: int = 4, size: int = 64) -> Path:
    """A handful of images with coloured boxes in the 3 stage-1 classes."""
    rng = np.random.default_rng(0)
    for split in ("train", "val"):
        (root / split / "images").mkdir(parents=True)
        (root / split / "labels").mkdir(parents=True)
        for k in range(n):
            img = np.full((size, size, 3), 90, np.uint8)
            lines = []
            for c in range(3):
                x, y = rng.integers(4, size - 20, 2)
                cv2.rectangle(img, (int(x), int(y)), (int(x) + 14, int(y) + 14), [(255, 255, 255), (200, 0, 0), (0, 0, 200)][c], -1)
                lines.append(f"{c} {(x + 7) / size:.4f} {(y + 7) / size:.4f} {14 / size:.4f} {14 / size:.4f}")
            cv2.imwrite(str(root / split / "images" / f"{k}.jpg"), img)
            (root / split / "labels" / f"{k}.txt").write_text("\n".join(lines) + "\n")
    data = root / "data.yaml"
    data.write_text(f"path: {root}\ntrain: {root / 'train' / 'images'}\nval: {root / 'val' / 'images'}\n"
                    "names:\n  0: index\n  1: BACK\n  2: chip\n")
    return data


@pytest.fixture(scope="module")
def smoke_weights(tmp_path_factory) -> Path:
    """One tiny epoch of the committed architecture (``models/stage1_relu.yaml``) on a handful of drawn boxes."""
    from models.train import train_detector

    root = tmp_path_factory.mktemp("smoke")
    best = train_detector(_tiny_yolo_set(root / "data"), model=str(MODELS / "stage1_relu.yaml"), epochs=1, imgsz=64,
                          batch=4, project=root / "runs", name="smoke", plots=False)
    weights = best if best.is_file() else best.with_name("last.pt")
    assert weights.is_file()
    return weights


@needs_train
def test_smoke_training_one_tiny_epoch_exports_a_loadable_model(smoke_weights, tmp_path):
    from models.export import export_stage1
    from vision.detector import Stage1Detector

    info = export_stage1(smoke_weights, tmp_path / "stage1.onnx", imgsz=64)
    assert Path(info["onnx"]).is_file() and info["onnx_mb"] < 20
    det = Stage1Detector(info["onnx"], threads=1)
    assert len(det.infer([np.zeros((64, 64, 3), np.uint8)])) == 1


@needs_train
def test_a_smoke_model_cut_before_its_box_decoding_and_quantised_loads_and_detects(smoke_weights, tmp_path):
    from models.export import export_stage1, quantize_stage1, split_stage1_head
    from vision.detector import Stage1Detector

    full = Path(export_stage1(smoke_weights, tmp_path / "stage1.onnx", imgsz=64)["onnx"])
    split_stage1_head(full, tmp_path / "levels.onnx")
    rng = np.random.default_rng(0)
    crops = [rng.integers(0, 255, (64, 96, 3), dtype=np.uint8) for _ in range(4)]
    quantize_stage1(tmp_path / "levels.onnx", tmp_path / "int8.onnx", crops)
    det = Stage1Detector(tmp_path / "int8.onnx", threads=1)
    assert det.levels
    assert len(det.infer([np.zeros((64, 96, 3), np.uint8)], (64, 96), scaleup=False)) == 1


@needs_train
def test_training_refuses_a_pt_name_that_would_download_weights(tmp_path):
    from models.train import train_detector

    with pytest.raises(ValueError, match="yaml"):
        train_detector(tmp_path / "data.yaml", model="yolo11n.pt")


def _parity_frames() -> list[np.ndarray]:
    """Fixed 320x320 frames: rendered zone crops where the renderer is present, else a drawn test card."""
    try:
        from vision.bench import bench_scene
        from vision.detector import zone_crops

        image, view, _ = bench_scene(0)
        crops = zone_crops(view.layout, view.homography, image_size=(image.shape[1], image.shape[0]))
        out = []
        for c in crops[:3]:
            w = cv2.warpPerspective(image, c.M, c.size)
            out.append(cv2.resize(w, (320, 320)))
        return out
    except ImportError:
        img = np.full((320, 320, 3), (40, 110, 30), np.uint8)
        cv2.rectangle(img, (100, 80), (163, 169), (250, 250, 250), -1)
        cv2.putText(img, "Q", (104, 104), cv2.FONT_HERSHEY_DUPLEX, 0.8, (0, 0, 200), 2)
        return [img]


@needs_train
def test_pytorch_and_onnx_give_the_same_boxes_and_classes():
    pt, onnx_path = MODELS / "stage1.pt", MODELS / "stage1.onnx"
    if not (pt.is_file() and onnx_path.is_file()):
        pytest.skip("committed stage1.pt/.onnx absent")
    import torch

    from models.train import offline_ultralytics
    from vision.detector import Stage1Detector
    from vision.onnx_runtime import decode_yolo, letterbox, to_blob

    offline_ultralytics(1)
    from ultralytics import YOLO

    model = YOLO(str(pt))
    det = Stage1Detector(onnx_path, threads=1, conf=0.25)
    for frame in _parity_frames():
        boxed, _ = letterbox(frame, det.imgsz)
        blob = to_blob([boxed])
        with torch.no_grad():
            raw_pt = model.model.float().eval()(torch.from_numpy(blob))
        raw_pt = (raw_pt[0] if isinstance(raw_pt, (list, tuple)) else raw_pt).numpy()
        raw_onnx = det.session.run(None, {det.input_name: blob})[0]
        assert raw_pt.shape == raw_onnx.shape
        assert np.abs(raw_pt[:, 4:] - raw_onnx[:, 4:]).max() < 1e-3  # class scores
        assert np.abs(raw_pt[:, :4] - raw_onnx[:, :4]).max() < 0.05  # box coordinates, input px
        (b1, s1, c1), = decode_yolo(raw_pt)
        ours = det.infer([frame])[0]
        assert sorted(c1.tolist()) == sorted(ours.class_id.tolist())
        # ultralytics' own predict on the same frame: same classes, boxes within 1 px
        r = model.predict(frame, imgsz=list(det.imgsz), conf=0.25, iou=0.5, device="cpu", verbose=False)[0]
        theirs = r.boxes.xyxy.numpy()
        assert len(theirs) == len(ours)
        if len(theirs):
            order_a = np.lexsort(ours.xyxy.T[::-1])
            order_b = np.lexsort(theirs.T[::-1])
            assert np.abs(ours.xyxy[order_a] - theirs[order_b]).max() < 1.0
            assert sorted(r.boxes.cls.numpy().astype(int).tolist()) == sorted(ours.class_id.tolist())


@needs_train
def test_a_widened_reader_starts_exactly_where_the_narrow_one_was():
    import torch

    from models.train import reader_net, widen_reader

    torch.manual_seed(0)
    narrow = reader_net().eval()
    wide = reader_net(width=1.5).eval()
    wide.load_state_dict(widen_reader(narrow.state_dict(), 1.5))
    x = torch.rand(4, 3, 40, 40)
    with torch.no_grad():
        assert torch.allclose(narrow(x), wide(x), atol=1e-4)
    assert sum(p.numel() for p in wide.parameters()) > 2 * sum(p.numel() for p in narrow.parameters())


@needs_train
def test_a_reader_is_calibrated_the_way_the_runtime_reads_it():
    import numpy as np

    from models.train import fit_temperature

    rng = np.random.default_rng(0)
    labels = rng.integers(52, size=400)
    logits = rng.normal(0, 1, (400, 52))
    logits[np.arange(400), labels] += 3.0
    # one turn read alone is the plain fit; four identical turns averaged are the same reading
    assert fit_temperature(logits, labels) == fit_temperature(logits[None], labels, "mean")
    assert fit_temperature(np.stack([logits] * 4), labels, "mean") == fit_temperature(logits, labels)


@needs_train
def test_chip_side_smoke_training_exports_a_model_the_runtime_reads(tmp_path):
    from models.chip_side_train import train_chip_side
    from vision.chip_side import ChipSideReader

    path, run = train_chip_side(tmp_path, frames=4, val_frames=2, epochs=1, threads=1, log=lambda m: None)
    reader = ChipSideReader(path)
    assert reader.denominations == [1, 5, 25, 100, 500, 1000]
    assert run.strips > 0 and 0.0 <= run.val_exact <= 1.0
    assert reader.search_graph is not None  # its search graph exported beside it, made from it


@needs_train
def test_the_chip_side_alignment_depends_only_on_the_strips_bottom_search_rows():
    """The base search reads SEARCH_ROWS-row strips: true only while the net's alignment head and its convolutions'
    reach stay within them (ALIGNED_ROWS + REACH_ROWS)."""
    import torch

    from models.chip_side_train import chip_side_net
    from vision.chip_side import SEARCH_ROWS, STRIP_CHANNELS, STRIP_ROWS

    torch.manual_seed(3)
    net = chip_side_net(7)
    for prm in net.parameters():
        prm.data.normal_(0, 0.2)
    x = torch.rand(4, STRIP_CHANNELS, STRIP_ROWS, 12)
    with torch.no_grad():
        _, whole = net.eval()(x)
        _, bottom = net(x[:, :, :SEARCH_ROWS])
        _, too_few = net(x[:, :, :SEARCH_ROWS - 1])
    assert torch.allclose(whole, bottom, atol=1e-5)
    assert not torch.allclose(whole, too_few, atol=1e-5)  # the reach is not larger than it needs to be


@needs_train
def test_an_exported_chip_side_reads_search_strips_of_the_bottom_rows(tmp_path):
    """export_chip_side leaves the strip rows free; free_chip_side_rows does it to an older file, weights untouched."""
    import onnx

    from models.chip_side_train import chip_side_net, export_chip_side
    from models.export import free_chip_side_rows
    from vision.chip_side import SEARCH_ROWS, ChipSideReader

    path = export_chip_side(chip_side_net(7).eval(), tmp_path / "cs.onnx", [1, 5, 25, 100, 500, 1000])
    assert ChipSideReader(path).search_rows == SEARCH_ROWS
    model = onnx.load(str(path))
    model.graph.input[0].type.tensor_type.shape.dim[2].dim_value = 72  # as files exported before it
    onnx.save(model, str(tmp_path / "fixed.onnx"))
    assert ChipSideReader(tmp_path / "fixed.onnx").search_rows == 72
    free_chip_side_rows(tmp_path / "fixed.onnx")
    strips = np.random.default_rng(0).integers(0, 255, (3, 72, 12, 6), dtype=np.uint8)
    freed, fresh = ChipSideReader(tmp_path / "fixed.onnx"), ChipSideReader(path)
    assert freed.search_rows == SEARCH_ROWS
    assert all(np.array_equal(u, v) for u, v in zip(freed.run(strips), fresh.run(strips)))
    for f in (tmp_path / "fixed.onnx", path):  # a short strip's slots are declared as given: fewer than 16
        slot_dims = onnx.load(str(f)).graph.output[0].type.tensor_type.shape.dim
        assert [d.dim_param or d.dim_value for d in slot_dims] == ["batch", "slots", 7]
    slots, aligned = freed.run(strips[:, :SEARCH_ROWS], search=True)
    assert slots.shape == (3, (SEARCH_ROWS - 4) // 4, 7)
    assert np.allclose(aligned, freed.run(strips)[1], atol=1e-5)


@needs_train
def test_the_mean_of_two_chip_side_nets_reads_as_the_mean_of_their_readings(tmp_path):
    """`pitwatch train chip-side-mean`: one ONNX file whose slot and alignment probabilities are the two nets' means."""
    import torch

    from models.chip_side_train import chip_side_net, export_chip_side, export_chip_side_mean
    from vision.chip_side import ChipSideReader

    denominations = [1, 5, 25, 100, 500, 1000]
    paths = []
    for k in range(2):
        torch.manual_seed(k)
        net = chip_side_net(1 + len(denominations))
        for prm in net.parameters():  # two different nets
            prm.data.normal_(0, 0.2)
        torch.save(net.state_dict(), tmp_path / f"n{k}.pt")
        paths.append(export_chip_side(net.eval(), tmp_path / f"n{k}.onnx", denominations))
    mean = ChipSideReader(export_chip_side_mean([tmp_path / "n0.pt", tmp_path / "n1.pt"], tmp_path / "mean.onnx"))
    strips = [np.random.default_rng(k).integers(0, 255, (72, 12, 6), dtype=np.uint8) for k in range(3)]
    (p0, a0), (p1, a1) = (ChipSideReader(q).run(strips) for q in paths)
    p, a = mean.run(strips)
    assert mean.denominations == denominations
    assert np.allclose(p, (p0 + p1) / 2, atol=1e-5) and np.allclose(a, (a0 + a1) / 2, atol=1e-5)
    # its search graph, beside it, gives the mean's alignment at a strip's bottom
    from vision.chip_side import SEARCH_ROWS, strips_to_blob

    g = mean.search_graph
    short = [x[:SEARCH_ROWS] for x in strips]
    _, a_short = mean.run(short, search=True)
    assert np.allclose(g.run(None, {g.get_inputs()[0].name: strips_to_blob(short)})[0][:, 0], a_short, atol=1e-5)


@needs_train
def test_the_committed_chip_side_nets_rebuilt_from_its_onnx_file_read_as_the_runtime_does():
    """A chip-side fine-tune starts from the committed mean's own nets (batch norms folded away by the export)."""
    import torch

    from models.chip_side_train import chip_side_mean, chip_side_net, nets_from_onnx
    from vision.chip_side import FP32_CHIP_SIDE, ChipSideReader

    runtime = ChipSideReader(FP32_CHIP_SIDE)
    states = nets_from_onnx(FP32_CHIP_SIDE, 1 + len(runtime.denominations))
    assert len(states) == 2  # cs6 and cs7 (model card)
    nets = []
    for state in states:
        net = chip_side_net(1 + len(runtime.denominations))
        net.load_state_dict(state)
        nets.append(net.eval())
    strips = np.random.default_rng(0).integers(0, 256, (6, 72, 12, 6), dtype=np.uint8)
    from vision.chip_side import strips_to_blob

    with torch.no_grad():
        slots, aligned = chip_side_mean(nets)(torch.from_numpy(strips_to_blob(strips)))
    p, a = runtime.run(strips)
    assert np.abs(torch.softmax(slots, -1).numpy() - p).max() < 1e-4
    assert np.abs(torch.sigmoid(aligned).numpy() - a).max() < 1e-4


@needs_train
def test_the_committed_chip_side_unpacked_and_averaged_again_reads_as_committed(tmp_path):
    """`pitwatch train chip-side-unpack` then `chip-side-mean`: the committed graph back, so a new mean can keep one
    of its nets."""
    from models.chip_side_train import export_chip_side_mean, unpack_chip_side
    from vision.chip_side import FP32_CHIP_SIDE, ChipSideReader

    nets = unpack_chip_side(FP32_CHIP_SIDE, tmp_path / "nets")
    assert [p.name for p in nets] == ["net0.pt", "net1.pt"]
    again = ChipSideReader(export_chip_side_mean(nets, tmp_path / "again.onnx"))
    strips = np.random.default_rng(1).integers(0, 256, (6, 72, 12, 6), dtype=np.uint8)
    (p0, a0), (p1, a1) = ChipSideReader(FP32_CHIP_SIDE).run(strips), again.run(strips)
    assert np.abs(p0 - p1).max() < 1e-4 and np.abs(a0 - a1).max() < 1e-4


@needs_train
def test_a_chip_side_fine_tune_from_the_committed_onnx_keeps_its_folded_batch_norms_frozen(tmp_path):
    import torch

    from models.chip_side_train import train_chip_side
    from vision.chip_side import FP32_CHIP_SIDE

    _, run = train_chip_side(tmp_path, frames=2, val_frames=1, epochs=1, threads=1, init=FP32_CHIP_SIDE, init_net=1,
                             thin_repeat=1, lr=1e-4, video_share=1.0, log=lambda m: None)
    state = torch.load(tmp_path / "chip_side.pt")
    assert torch.equal(state["conv.1.running_mean"], torch.zeros(32))
    assert torch.allclose(state["conv.1.running_var"], torch.full((32,), 1 - 1e-5))
    assert run.init_net == 1 and run.thin_repeat == 1 and run.video_share == 1.0


@needs_train
def test_a_chip_side_onnx_of_one_net_has_no_second_net_to_start_from(tmp_path):
    from models.chip_side_train import chip_side_net, export_chip_side, train_chip_side

    one = export_chip_side(chip_side_net(7).eval(), tmp_path / "one.onnx", [1, 5, 25, 100, 500, 1000])
    with pytest.raises(ValueError, match="no net 1"):
        train_chip_side(tmp_path / "out", frames=1, val_frames=1, epochs=1, threads=1, init=one, init_net=1,
                        log=lambda m: None)


@needs_train
def test_the_committed_reader_rebuilt_from_its_onnx_file_reads_as_the_runtime_does():
    """Fine-tuning starts from the committed reader itself (its batch norms folded away by the export)."""
    import numpy as np
    import torch

    from models.train import reader_net, reader_state_from_onnx
    from vision.card_reader import FP32_READER, CardReader, crops_to_blob

    crops = np.random.default_rng(0).integers(0, 256, (16, 40, 40, 3), dtype=np.uint8)
    net = reader_net(width=1.5)
    net.load_state_dict(reader_state_from_onnx(FP32_READER, 1.5, crops))
    with torch.no_grad():
        ours = net.eval()(torch.from_numpy(crops_to_blob(crops))).numpy()
    runtime = CardReader(FP32_READER)  # the float reader: the one training starts from
    theirs = runtime.session.run(None, {runtime.input_name: crops_to_blob(crops)})[0]
    assert np.abs(ours - theirs).max() < 1e-3


@needs_train
def test_crops_with_no_index_are_cut_as_the_runtime_cuts_an_index():
    import numpy as np

    from models.train import NotAnIndexSource
    from vision.card_reader import CROP_SIZE

    source = NotAnIndexSource(["proc-duplex-std"], seed=0)
    crops = np.stack([source.sample() for _ in range(12)])
    assert crops.shape == (12, CROP_SIZE, CROP_SIZE, 3) and crops.dtype == np.uint8
    assert len({c.tobytes() for c in crops}) == 12


def _scene_style(monkeypatch, seed: int, **kw):
    """The Style :func:`models.stage1_data.random_scene` hands the renderer (the frame itself is not drawn)."""
    import datasets.render
    from models.stage1_data import random_scene

    seen = {}
    monkeypatch.setattr(datasets.render, "render_frame", lambda layout, state, camera, style, rng: seen.setdefault("style", style))
    random_scene(np.random.default_rng(seed), ["proc-duplex-std", "proc-lato-std"], **kw)
    return seen["style"]


def test_stage1_scenes_keep_the_layouts_green_unless_asked_for_casino_felts(monkeypatch):
    from datasets.felt import FeltStyle

    plain = [_scene_style(monkeypatch, s) for s in range(6)]
    assert all(st.felt == FeltStyle() and st.chip_design == "chip-classic" for st in plain)
    casino = [_scene_style(monkeypatch, s, casino_look=True) for s in range(6)]
    assert any(st.felt.felt_rgb is not None for st in casino)
    assert len({st.chip_design for st in casino}) > 1


def test_a_favoured_deck_design_is_drawn_at_its_share(monkeypatch):
    decks = [_scene_style(monkeypatch, s, favoured={"proc-black-gold": 1.0}).deck for s in range(4)]
    assert decks == ["proc-black-gold"] * 4
    assert _scene_style(monkeypatch, 0).deck in ("proc-duplex-std", "proc-lato-std")


def test_chip_side_training_stacks_a_players_wager_big_chips_at_the_bottom():
    """`--player-share`: a usual wager amount, as `chip_layers` stacks it (bottom first), at most 15 chips."""
    from models.chip_side_train import PLAYER_AMOUNTS, _player_layers
    from vision.chips import default_chip_set

    denominations = [c.denomination for c in default_chip_set()]
    rng = np.random.default_rng(0)
    for _ in range(200):
        layers = _player_layers(rng, denominations)
        assert sum(la.denomination * la.count for la in layers) in PLAYER_AMOUNTS
        assert sum(la.count for la in layers) <= 15
        assert [la.denomination for la in layers] == sorted((la.denomination for la in layers), reverse=True)


def test_reader_training_crops_can_show_the_next_card_of_a_fanned_hand():
    """`--crowd`: the next card's corner lies beside the index; without it a seed cuts the crops it cut before."""
    from models.train import IndexCropSource

    designs = ["proc-roboto-large", "proc-duplex-std"]
    plain = [IndexCropSource(designs, 4).sample() for _ in range(1)]
    again = [IndexCropSource(designs, 4, crowd=0.0).sample() for _ in range(1)]
    assert all((a[0] == b[0]).all() and a[1] == b[1] for a, b in zip(plain, again))
    src = IndexCropSource(designs, 4, crowd=1.0)
    crops = [src.sample() for _ in range(12)]
    assert all(c.shape == (40, 40, 3) and c.dtype == np.uint8 and 0 <= k < 52 for c, k in crops)
    # the next card is drawn right of the index's left 60 %, which stays as it was
    _, (u0, v0, u1, v1), _, bx = src._corner(0, "AH", 0)
    ppm = 4.0
    window = np.zeros((int((v1 - v0) * ppm), int((u1 - u0) * ppm), 3), np.uint8)
    src._crowd(np.random.default_rng(1), window, 0, bx, (u0, v0), ppm)
    keep_x = int((bx[0] + 0.5 * (bx[2] - bx[0]) - u0) * ppm)
    rows = slice(int((bx[1] - v0) * ppm), int((bx[3] - v0) * ppm))
    assert window.any() and not window[rows, :keep_x].any()


def test_a_crowded_crop_of_a_seed_is_cut_as_before_the_covered_option():
    """The crowd's other card is drawn from the seed first, as before `--covered` was added."""
    from models.train import IndexCropSource

    designs = ["proc-roboto-large", "proc-duplex-std"]
    crowded = IndexCropSource(designs, 4, crowd=1.0).sample()
    again = IndexCropSource(designs, 4, crowd=1.0, covered=0.0).sample()
    assert (crowded[0] == again[0]).all() and crowded[1] == again[1]


def test_reader_training_crops_can_show_an_index_mostly_hidden_under_the_next_card():
    """`--covered`: the card laid over the index hides all but a sliver of it; the crop is trained as no card."""
    from models.train import IndexCropSource

    designs = ["proc-roboto-large", "proc-duplex-std"]
    src = IndexCropSource(designs, 4, covered=1.0)
    crops = [src.sample() for _ in range(6)]
    assert all(c.shape == (40, 40, 3) and k == -1 for c, k in crops)
    _, (u0, v0, u1, v1), _, bx = src._corner(0, "AH", 0)
    ppm = 4.0
    window = np.zeros((int((v1 - v0) * ppm), int((u1 - u0) * ppm), 3), np.uint8)
    for seed in range(8):
        window[:] = 0
        src._cover(np.random.default_rng(seed), window, 0, bx, (u0, v0), ppm)
        index = window[int((bx[1] - v0) * ppm):int((bx[3] - v0) * ppm), int((bx[0] - u0) * ppm):int((bx[2] - u0) * ppm)]
        assert (index.max(2) > 0).mean() >= 0.5  # at least half of the index's box lies under the other card


def test_a_covered_training_crop_can_show_a_tall_index_s_rank_with_its_suit_under_the_next_card():
    """The round videos' jumbo indices lie under the next card of a hand with the rank in view and the suit hidden;
    `--covered` draws that too where the deck knows its suit's box, and the suit is always at least half hidden."""
    from models.train import IndexCropSource

    src = IndexCropSource(["proc-roboto-large"], 4, covered=1.0)
    _, (u0, v0, u1, v1), _, bx = src._corner(0, "4C", 0)
    suit = src.decks[0].suit_boxes("4C").top_left
    ppm = 4.0
    window = np.zeros((int((v1 - v0) * ppm), int((u1 - u0) * ppm), 3), np.uint8)

    def shown(box) -> float:
        rows = slice(int((box[1] - v0) * ppm), int((box[3] - v0) * ppm))
        part = window[rows, int((box[0] - u0) * ppm):int((box[2] - u0) * ppm)]
        return float((part.max(2) == 0).mean())

    rank_only = 0
    for seed in range(24):
        window[:] = 0
        src._cover(np.random.default_rng(seed), window, 0, bx, (u0, v0), ppm, suit)
        assert shown(suit) <= 0.5
        rank_only += shown((bx[0], bx[1], bx[2], suit[1] - 0.5)) >= 0.9
    assert 3 <= rank_only <= 16  # about a third of the draws leave the whole rank in view


def test_the_reader_bank_is_the_same_whatever_the_number_of_render_workers(monkeypatch):
    """`--workers`: each chunk of the bank is drawn from its own seed, so one process or three render it alike."""
    import models.train as train

    monkeypatch.setattr(train, "RENDER_CHUNK", 30)
    designs = ["proc-roboto-large", "proc-duplex-std"]
    kwargs = dict(designs=designs, seed=5, turn="upright")
    banks = []
    for workers in (1, 3):
        renderer = train._ChunkRenderer(workers, kwargs, designs)
        try:
            rng = np.random.default_rng(9)
            x, y = renderer.index_crops(70, rng)
            banks.append((x, y, renderer.not_index_crops(31, rng)))
        finally:
            renderer.close()
    (x1, y1, n1), (x3, y3, n3) = banks
    assert x1.shape == (70, 40, 40, 3) and n1.shape == (31, 40, 40, 3) and ((0 <= y1) & (y1 < 52)).all()
    assert np.array_equal(x1, x3) and np.array_equal(y1, y3) and np.array_equal(n1, n3)
    assert len({x.tobytes() for x in x1}) == 70  # the chunks' seeds differ: no chunk repeats another


@needs_train
def test_reader_interpolation_refuses_a_share_outside_zero_to_one(tmp_path):
    from models.train import interpolate_readers

    with pytest.raises(ValueError, match="alpha"):
        interpolate_readers(REPO / "models" / "card_reader.onnx", REPO / "models" / "card_reader.onnx", 1.5,
                            tmp_path / "r.onnx")


@needs_train
def test_reader_interpolation_refuses_two_different_graphs(tmp_path):
    from models.train import interpolate_readers

    with pytest.raises(ValueError, match="no weight"):
        interpolate_readers(REPO / "models" / "card_reader.onnx", REPO / "models" / "chip_side.onnx", 0.3,
                            tmp_path / "r.onnx")


def test_a_favoured_deck_design_gives_its_share_of_the_reader_crops():
    """`--favour proc-black-gold=0.5`: half the crops from it, the other half drawn evenly (it among them)."""
    from models.train import IndexCropSource

    designs = ["proc-roboto-large", "proc-duplex-std", "proc-black-gold", "proc-lato-std"]
    src = IndexCropSource(designs, 4, favoured={"proc-black-gold": 0.5})
    drawn = np.array([src._draw_design(src.rng) for _ in range(4000)])
    assert abs((drawn == 2).mean() - (0.5 + 0.5 / 4)) < 0.03
    assert all(abs((drawn == d).mean() - 0.5 / 4) < 0.03 for d in (0, 1, 3))


def test_a_reader_crop_of_a_seed_is_cut_as_before_the_favoured_option():
    from models.train import IndexCropSource

    designs = ["proc-roboto-large", "proc-duplex-std"]
    plain = IndexCropSource(designs, 4).sample()
    again = IndexCropSource(designs, 4, favoured={}).sample()
    assert (plain[0] == again[0]).all() and plain[1] == again[1]


@pytest.mark.parametrize("favoured, message", [({"proc-nonesuch": 0.2}, "not among the training designs"),
                                               ({"proc-duplex-std": 0.7, "proc-roboto-large": 0.5}, "add up to"),
                                               ({"proc-duplex-std": 0.0}, "must be in")])
def test_reader_training_refuses_a_favoured_design_it_cannot_draw(favoured, message):
    from models.train import IndexCropSource

    with pytest.raises(ValueError, match=message):
        IndexCropSource(["proc-roboto-large", "proc-duplex-std"], 4, favoured=favoured)


@pytest.mark.parametrize("option", ["proc-black-gold", "proc-black-gold=lots", "=0.2", "proc-nonesuch=0.2"])
def test_train_reader_says_how_to_write_a_favoured_design(option, tmp_path):
    from typer.testing import CliRunner

    from api.cli import app

    if not HAVE_TRAIN:
        pytest.skip("torch/ultralytics/onnx (the `train` extra) not installed")
    res = CliRunner().invoke(app, ["train", "reader", "--out", str(tmp_path), "--favour", option])
    assert res.exit_code != 0 and "--favour" in str(res.exception)
    assert not any(tmp_path.iterdir())
