"""``pitwatch train reader|detector|export`` (needs the ``train`` extra: torch, ultralytics).

The commands import torch/ultralytics only when run; without the extra they exit
2 with the install line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from api.errors import BadInput

MODELS = Path(__file__).resolve().parent


def _need_train_extra() -> None:
    import importlib.util

    missing = [m for m in ("torch", "ultralytics", "onnx") if importlib.util.find_spec(m) is None]
    if missing:
        raise BadInput(f"training needs {', '.join(missing)}: pip install -e '.[train]' && "
                       "pip install --no-deps ultralytics==8.4.190")


def _parse_favour(items: list[str]) -> dict[str, float]:
    """``--favour DESIGN=SHARE`` options as {design: share}; BadInput on one not so written."""
    out: dict[str, float] = {}
    for item in items:
        name, sep, share = item.partition("=")
        try:
            if not sep or not name:
                raise ValueError
            out[name.strip()] = float(share)
        except ValueError:
            raise BadInput(f"--favour {item!r}: write DESIGN=SHARE, e.g. proc-black-gold=0.25") from None
    return out


def register(app: typer.Typer) -> None:
    """Add the ``train`` group to the ``pitwatch`` app."""
    train_app = typer.Typer(help="Train and export the detector models (train extra).", no_args_is_help=True)
    app.add_typer(train_app, name="train")

    @train_app.command("reader")
    def train_reader_cmd(
        out: Path = typer.Option(MODELS, "--out", help="Folder for card_reader.onnx/.pt/.json."),
        held_out: str = typer.Option("proc-caladea-std", "--held-out", help="Deck design kept out of training."),
        seed: int = typer.Option(0, "--seed"),
        epochs: int = typer.Option(10, "--epochs", min=1),
        bank: int = typer.Option(12000, "--bank", min=256, help="Rendered crops in the training bank."),
        refresh: int = typer.Option(4, "--refresh", min=1, help="Re-render 1/REFRESH of the bank each epoch."),
        threads: int | None = typer.Option(None, "--threads", min=1),
        init: Path | None = typer.Option(None, "--init", exists=True, dir_okay=False,
                                         help="card_reader.pt or .onnx to fine-tune from (default: random weights)."),
        lr: float = typer.Option(3e-3, "--lr", min=1e-6, help="Peak learning rate."),
        turn: str = typer.Option("upright", "--turn",
                                 help="'upright': train within 45 deg of upright/upside down and read each crop at "
                                      "0 and 90 deg; 'any': train and read at any angle."),
        grey: float = typer.Option(0.15, "--grey", min=0.0, max=1.0, help="Fraction of training crops made grey."),
        cast: float = typer.Option(0.0, "--cast", min=0.0, max=1.0,
                                   help="Fraction of the other crops given a strong colour cast."),
        width: float = typer.Option(1.0, "--width", min=0.25, max=4.0,
                                    help="Channel multiplier of the reader net (compute grows as its square)."),
        not_index: float = typer.Option(0.0, "--not-index", min=0.0, max=0.9,
                                        help="Share of training crops with no index (card backs, layout glyphs, "
                                             "pips, felt), trained towards 'unreadable'."),
        crowd: float = typer.Option(0.0, "--crowd", min=0.0, max=0.9,
                                    help="Share of training crops with the next card of a fanned hand beside the "
                                         "index (its own index in the crop)."),
        covered: float = typer.Option(0.0, "--covered", min=0.0, max=0.5,
                                      help="Share of training crops whose index the next card laid over it mostly "
                                           "hides, trained towards 'unreadable'."),
        real: Path | None = typer.Option(None, "--real", exists=True, file_okay=False,
                                         help="The real-cards-zk7wu folder: its fine-tune photos (the earlier shots, "
                                              "vision.evaluate.ZK7WU_FINE_TUNE_BEFORE) join the training crops."),
        real_share: float = typer.Option(0.3, "--real-share", min=0.0, max=0.9,
                                         help="Share of the training bank cut from --real photos."),
        device: str = typer.Option("cpu", "--device", help="torch device to train on, e.g. cuda."),
        workers: int = typer.Option(1, "--workers", min=1, help="Processes rendering the training bank."),
        favour: list[str] = typer.Option([], "--favour",
                                         help="DESIGN=SHARE: draw this share of the rendered crops from one deck "
                                              "design (repeatable; e.g. proc-black-gold=0.25)."),
        scene: Path | None = typer.Option(None, "--scene-crops", exists=True, dir_okay=False,
                                          help="An .npz of index crops cut from rendered round scenes "
                                               "(`pitwatch train scene-crops`) to join the training crops."),
        scene_share: float = typer.Option(0.3, "--scene-share", min=0.0, max=0.9,
                                          help="Share of the training bank drawn from --scene-crops."),
    ) -> None:
        """Stage 2: the corner-index classifier, on crops rendered on the fly."""
        _need_train_extra()
        from models.train import _favoured_designs, design_names, train_reader

        favoured = _parse_favour(favour)
        try:
            _favoured_designs([n for n in design_names() if n != held_out], favoured)
        except ValueError as exc:
            raise BadInput(f"--favour: {exc}") from exc

        path, run = train_reader(out, held_out=held_out, seed=seed, epochs=epochs, bank=bank, threads=threads, refresh=refresh,
                                 init=init, lr=lr, turn=turn, grey=grey, cast=cast, width=width, not_index=not_index,
                                 crowd=crowd, covered=covered, real=real, real_share=real_share, device=device, workers=workers,
                                 favoured=favoured, scene=scene, scene_share=scene_share,
                                 log=lambda m: print(m, file=sys.stderr, flush=True))
        print(json.dumps({"model": str(path), "heldout_acc": run.heldout_acc, "val_acc": run.val_acc,
                          "not_index_accepted": run.not_index_accepted}))

    @train_app.command("scene-crops")
    def scene_crops_cmd(
        seeds: str = typer.Option(..., "--seeds", help="Round-video seeds to render, e.g. 20000-20199 (keep them "
                                                       "apart from those `eval review` scores)."),
        out: Path = typer.Option(..., "--out", help=".npz to write."),
        size: list[str] = typer.Option(["3840x2160"], "--size", help="WIDTHxHEIGHT, repeatable: taken in turn."),
        every: float = typer.Option(2.0, "--every", min=0.1, help="Seconds between the frames rendered."),
        threads: int = typer.Option(2, "--threads", min=1),
    ) -> None:
        """Stage 2: corner-index crops the detector cuts from rendered round scenes, labelled from the render (an index
        whose rank shows and whose suit lies under the next card is labelled no card, and counted)."""
        from datasets.round_cli import parse_size
        from models.scene_indices import render_scene_crops
        from vision.review_cli import _parse_seeds

        try:
            seed_list = _parse_seeds(seeds)
        except ValueError:
            raise BadInput(f"--seeds: give seeds like 20000-20199 or 1,2,3, not {seeds!r}") from None
        sizes = tuple(parse_size(s) for s in size)
        if out.suffix != ".npz":
            raise BadInput(f"--out: the scene crops are written as one .npz file, not {out.name!r}")
        crops = render_scene_crops(seed_list, out, sizes=sizes, every_s=every, threads=threads,
                                   log=lambda m: print(m, file=sys.stderr, flush=True))
        print(json.dumps({"crops": str(out), "indices": len(crops.labels),
                          "on_a_card": sum(1 for v in crops.labels if v >= 0),
                          "suit_covered": sum(bool(v) for v in crops.suit_covered)}))

    @train_app.command("interpolate-reader")
    def interpolate_reader_cmd(
        base: Path = typer.Argument(..., exists=True, dir_okay=False, help="Reader trained on renders (.onnx)."),
        tuned: Path = typer.Argument(..., exists=True, dir_okay=False, help="The same reader fine-tuned (.onnx)."),
        alpha: float = typer.Option(..., "--alpha", min=0.0, max=1.0, help="Share of TUNED's weights."),
        out: Path = typer.Option(..., "--out", help="ONNX file to write."),
    ) -> None:
        """Stage 2: interpolate a reader's weights before and after a fine-tune (WiSE-FT), temperature refitted."""
        _need_train_extra()
        from models.train import interpolate_readers

        try:
            t = interpolate_readers(base, tuned, alpha, out)
        except ValueError as e:
            raise typer.BadParameter(str(e)) from e
        print(json.dumps({"model": str(out), "alpha": alpha, "temperature": round(t, 6)}))

    @train_app.command("prepare")
    def prepare_cmd(
        synth: list[Path] = typer.Argument(..., help="Folders written by `pitwatch synth images`."),
        out: Path = typer.Option(Path(".cache/stage1-data"), "--out"),
        imgsz: int = typer.Option(320, "--imgsz"),
        per_image: int = typer.Option(4, "--per-image", min=1, help="Crops cut from each rendered frame."),
        val_fraction: float = typer.Option(0.1, "--val"),
        seed: int = typer.Option(0, "--seed"),
        layout_frame: float = typer.Option(0.0, "--layout-frame", min=0.0, max=1.0,
                                           help="Fraction of crops cut rectified in the felt plane, as zone crops."),
    ) -> None:
        """Cut rendered frames into 3-class stage-1 crops (index, BACK, chip)."""
        from models.stage1_data import prepare

        print(json.dumps(prepare(synth, out, imgsz=imgsz, per_image=per_image, val_fraction=val_fraction, seed=seed,
                                  layout_frame=layout_frame)))

    @train_app.command("real-chips")
    def real_chips_cmd(
        src: Path = typer.Argument(..., help="The real-chips-degen101 folder (images/, labels_bbox/)."),
        out: Path = typer.Option(..., "--out", help="Folder to write, outside the repository."),
        repeat: int = typer.Option(6, "--repeat", min=1, help="Copies of each training photo."),
    ) -> None:
        """Stage-1 fine-tuning images from the real chip photos' fine-tune part (the rest are never trained on)."""
        from models.stage1_data import real_chip_set

        try:
            print(json.dumps(real_chip_set(src, out, repeat=repeat)))
        except FileNotFoundError as e:
            raise typer.BadParameter(str(e)) from e

    @train_app.command("real-cards")
    def real_cards_cmd(
        src: Path = typer.Argument(..., help="The real-cards-zk7wu folder (manifest.csv, images/, labels_bbox/)."),
        out: Path = typer.Option(..., "--out", help="Folder to write, outside the repository."),
        repeat: int = typer.Option(4, "--repeat", min=1, help="Copies of each training photo."),
    ) -> None:
        """Stage-1 fine-tuning images from the real card photos' fine-tune part (the later shots are never trained on)."""
        from models.stage1_data import real_card_set

        try:
            print(json.dumps(real_card_set(src, out, repeat=repeat)))
        except FileNotFoundError as e:
            raise typer.BadParameter(str(e)) from e

    @train_app.command("detector")
    def train_detector_cmd(
        data: Path = typer.Option(Path(".cache/stage1-data/data.yaml"), "--data"),
        model: str = typer.Option("yolo11n.yaml", "--model", help="Architecture yaml (never a .pt: no downloads)."),
        epochs: int = typer.Option(40, "--epochs", min=1),
        imgsz: int = typer.Option(320, "--imgsz"),
        batch: int = typer.Option(16, "--batch"),
        seed: int = typer.Option(0, "--seed"),
        project: Path = typer.Option(Path(".cache/train"), "--project"),
        name: str = typer.Option("stage1", "--name"),
        fraction: float = typer.Option(1.0, "--fraction"),
        plots: bool = typer.Option(False, "--plots/--no-plots"),
        resume: bool = typer.Option(False, "--resume"),
        init: Path | None = typer.Option(None, "--init", exists=True, dir_okay=False,
                                         help="Local stage-1 .pt to fine-tune from (default: from scratch)."),
        lr0: float = typer.Option(0.01, "--lr0", min=1e-6),
        mosaic: float = typer.Option(1.0, "--mosaic", min=0.0, max=1.0),
        close_mosaic: int = typer.Option(3, "--close-mosaic", min=0),
        warmup_epochs: float = typer.Option(3.0, "--warmup-epochs", min=0.0),
        freeze: int = typer.Option(0, "--freeze", min=0, help="Keep the first N layers' weights (10: the backbone)."),
    ) -> None:
        """Stage 1: ultralytics YOLO from scratch (or from --init), flips off, checkpoints every epoch."""
        _need_train_extra()
        from models.train import train_detector

        if not data.is_file():
            raise BadInput(f"{data}: data.yaml not found (run `pitwatch train prepare` first)")
        best = train_detector(data, model=model, epochs=epochs, imgsz=imgsz, batch=batch, seed=seed,
                              project=project, name=name, fraction=fraction, plots=plots, resume=resume,
                              init=init, lr0=lr0, mosaic=mosaic, close_mosaic=close_mosaic,
                              warmup_epochs=warmup_epochs, freeze=freeze)
        print(json.dumps({"best": str(best)}))

    @train_app.command("chip-side")
    def train_chip_side_cmd(
        out: Path = typer.Option(MODELS, "--out", help="Folder for chip_side.onnx/.pt/.json."),
        frames: int = typer.Option(3000, "--frames", min=1, help="Rendered frames of chip stacks for training."),
        val_frames: int = typer.Option(120, "--val-frames", min=1),
        epochs: int = typer.Option(20, "--epochs", min=1),
        seed: int = typer.Option(0, "--seed"),
        threads: int | None = typer.Option(None, "--threads", min=1),
        init: Path | None = typer.Option(None, "--init", exists=True, dir_okay=False,
                                         help="chip_side.pt of an earlier run, or a committed chip-side .onnx "
                                              "(one net of it: --init-net), to start from."),
        init_net: int = typer.Option(0, "--init-net", min=0,
                                     help="With an .onnx --init that is a mean of nets: which net to start from."),
        thin_repeat: int = typer.Option(0, "--thin-repeat", min=0,
                                        help="Train strips whose side shows under 2.4 px per chip this many times "
                                             "more per epoch."),
        lr: float = typer.Option(3e-3, "--lr", min=1e-6, help="Peak learning rate."),
        uhd_share: float = typer.Option(0.0, "--uhd-share", min=0.0, max=1.0,
                                        help="Share of frames rendered at 3840x2160 (4K cameras: twice the pixels "
                                             "per chip) instead of 1920x1080."),
        player_share: float = typer.Option(0.0, "--player-share", min=0.0, max=1.0,
                                           help="Share of stacks stacked as players stack a wager (a usual amount, "
                                                "big chips at the bottom) instead of random layers."),
        payout_share: float = typer.Option(0.0, "--payout-share", min=0.0, max=1.0,
                                           help="Share of stacks stacked as a dealer stacks a side-bet payout (an "
                                                "odd amount, small chips on top), before --player-share's."),
        video_share: float = typer.Option(0.0, "--video-share", min=0.0, max=1.0,
                                          help="Share of frames cut from as H.264 video shows them (a still table "
                                               "encoded at CRF 22-30 and decoded)."),
    ) -> None:
        """The chip-side model: stacks counted and valued from their side (front and back arcs, base searched)."""
        _need_train_extra()
        from dataclasses import asdict

        from models.chip_side_train import train_chip_side

        path, run = train_chip_side(out, frames=frames, val_frames=val_frames, seed=seed, epochs=epochs,
                                    threads=threads, init=init, lr=lr, uhd_share=uhd_share,
                                    player_share=player_share, payout_share=payout_share, init_net=init_net,
                                    thin_repeat=thin_repeat, video_share=video_share,
                                    log=lambda m: print(m, file=sys.stderr, flush=True))
        print(json.dumps({"model": str(path), **asdict(run)}))

    @train_app.command("chip-side-mean")
    def train_chip_side_mean_cmd(
        weights: list[Path] = typer.Argument(..., exists=True, dir_okay=False,
                                             help="Two or more chip_side.pt files from `pitwatch train chip-side`."),
        out: Path = typer.Option(MODELS / "chip_side.onnx", "--out", help="The ONNX file to write."),
    ) -> None:
        """One chip-side model that reads as the mean of several (slot and alignment probabilities averaged)."""
        _need_train_extra()
        from models.chip_side_train import export_chip_side_mean

        print(json.dumps({"model": str(export_chip_side_mean(list(weights), out))}))

    @train_app.command("chip-side-unpack")
    def train_chip_side_unpack_cmd(
        model: Path = typer.Argument(MODELS / "chip_side.onnx", exists=True, dir_okay=False,
                                     help="A chip-side .onnx (one net, or a mean of several)."),
        out: Path = typer.Option(..., "--out", help="Folder for net0.pt, net1.pt, ..."),
    ) -> None:
        """Each net of a chip-side ONNX file as a chip_side.pt, to fine-tune or average (batch norms folded)."""
        _need_train_extra()
        from models.chip_side_train import unpack_chip_side

        print(json.dumps({"nets": [str(p) for p in unpack_chip_side(model, out)]}))

    @train_app.command("export")
    def export_cmd(
        weights: Path = typer.Argument(..., help="Stage-1 .pt from `pitwatch train detector`."),
        out: Path = typer.Option(MODELS / "stage1.onnx", "--out"),
        imgsz: int = typer.Option(320, "--imgsz"),
        dynamic: bool = typer.Option(True, "--dynamic/--static"),
        int8: bool = typer.Option(False, "--int8", help="Also write <out>_int8.onnx: cut before the box decoding "
                                  "and static int8, calibrated on rendered zone crops (the runtime's default)."),
        calib_frames: int = typer.Option(24, "--calib-frames", min=1, help="Rendered frames of --int8 calibration crops."),
    ) -> None:
        """Export stage 1 to ONNX (opset 18, onnxslim) and copy the .pt beside it."""
        _need_train_extra()
        import tempfile

        from models.export import export_stage1, quantize_stage1, split_stage1_head
        from models.stage1_data import calibration_zone_crops

        if not weights.is_file():
            raise BadInput(f"{weights}: weights file not found")
        info = export_stage1(weights, out, imgsz=imgsz, dynamic=dynamic)
        if int8:
            with tempfile.TemporaryDirectory() as tmp:
                levels = Path(tmp) / "levels.onnx"
                split_stage1_head(out, levels)
                info["int8"] = quantize_stage1(levels, out.with_name(out.stem + "_int8.onnx"),
                                               calibration_zone_crops(calib_frames))
        print(json.dumps(info))

    @train_app.command("quantize-stage1")
    def quantize_stage1_cmd(
        model: Path = typer.Argument(MODELS / "stage1.onnx", help="The float stage 1 as exported (.onnx)."),
        out: Path = typer.Option(MODELS / "stage1_int8.onnx", "--out"),
        calib_frames: int = typer.Option(24, "--calib-frames", min=1, help="Rendered frames of calibration zone crops."),
        reduce_range: bool = typer.Option(False, "--reduce-range/--full-range",
                                          help="7-bit weights (read alike on CPUs without VNNI; less accurate)."),
    ) -> None:
        """Stage 1 cut before its box decoding and in static int8 (the runtime's default), calibrated on rendered zone crops."""
        _need_train_extra()
        import tempfile

        from models.export import quantize_stage1, split_stage1_head
        from models.stage1_data import calibration_zone_crops

        if not model.is_file():
            raise BadInput(f"{model}: model file not found")
        with tempfile.TemporaryDirectory() as tmp:
            levels = Path(tmp) / "levels.onnx"
            split_stage1_head(model, levels)
            print(json.dumps(quantize_stage1(levels, out, calibration_zone_crops(calib_frames), reduce_range=reduce_range)))

    @train_app.command("quantize-reader")
    def quantize_reader_cmd(
        reader: Path = typer.Argument(MODELS / "card_reader.onnx", help="The float card reader (.onnx)."),
        out: Path = typer.Option(MODELS / "card_reader_int8.onnx", "--out"),
        calib_frames: int = typer.Option(30, "--calib-frames", min=1, help="Rendered frames the calibration crops come from."),
    ) -> None:
        """The card reader in static int8 (the runtime's default), calibrated on rendered index crops."""
        _need_train_extra()
        from models.export import calibration_index_crops, quantize_reader

        if not reader.is_file():
            raise BadInput(f"{reader}: model file not found")
        print(json.dumps(quantize_reader(reader, out, calibration_index_crops(calib_frames))))

    @train_app.command("quantize-chip-side")
    def quantize_chip_side_cmd(
        model: Path = typer.Argument(MODELS / "chip_side.onnx", help="The float chip-side model (.onnx)."),
        out: Path = typer.Option(MODELS / "chip_side_int8.onnx", "--out"),
        calib_frames: int = typer.Option(40, "--calib-frames", min=1, help="Rendered frames the calibration strips come from."),
    ) -> None:
        """The chip-side model in static int8 (measured, not the runtime's default), calibrated on rendered stacks'
        strips."""
        _need_train_extra()
        from models.export import calibration_chip_strips, quantize_chip_side

        if not model.is_file():
            raise BadInput(f"{model}: model file not found")
        print(json.dumps(quantize_chip_side(model, out, calibration_chip_strips(calib_frames))))
