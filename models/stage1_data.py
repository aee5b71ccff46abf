"""Stage-1 training data: rendered frames cut into 3-class crops (index, BACK, chip).

Input: folders written by ``pitwatch synth images`` (``images/``, ``scenes/*.json``).
Each frame gives ``per_image`` square crops of ``imgsz`` pixels, each at a random
scale chosen so that corner indices measure ~10-60 px in the crop (log-uniform):
the sizes the runtime's zone crops (1.2 px/mm) and tiles produce.  Crops are
centred near a random card or chip stack (sometimes anywhere).  Labels:

* ``0 index``: every visible corner index of a face-up card (the scene's ``index_boxes``);
* ``1 BACK``: the visible part (``box``) of each face-down card at least half visible;
* ``2 chip``: each chip stack's silhouette box.

Boxes cut by the crop's edge keep their inside part when at least 60 % of the box
remains (else dropped, so a half index never teaches the wrong shape).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import cv2
import numpy as np

NAMES = {0: "index", 1: "BACK", 2: "chip"}


def _objects(scene: dict) -> list[tuple[int, list[float]]]:
    objs = []
    for c in scene.get("cards", []):
        if c.get("face_up", True) and c.get("label") != "BACK":
            for b in c.get("index_boxes", []):
                objs.append((0, [float(v) for v in b]))
        elif c.get("visible", 1.0) >= 0.5:  # a sliver of a covered back would teach a box around other cards
            box = c.get("box")
            if box is None and c.get("quad"):
                q = np.array(c["quad"], float)
                box = [*q.min(0), *q.max(0)]
            if box is not None:
                objs.append((1, [float(v) for v in box]))
    for ch in scene.get("chips", []):
        if ch.get("box") is not None and ch.get("visible", 1.0) >= 0.4:
            objs.append((2, [float(v) for v in ch["box"]]))
    return objs


def _object_quads(scene: dict) -> list[tuple[int, np.ndarray]]:
    """(class, (4, 2) image px outline) per object; corner indices by their printed outline (``index_quads``)."""
    out = []
    for c in scene.get("cards", []):
        if c.get("face_up", True) and c.get("label") != "BACK":
            for q, f in zip(c.get("index_quads", []), c.get("index_visible", [])):
                if f >= 0.5:
                    out.append((0, np.asarray(q, np.float64)))
    for cls, b in _objects(scene):
        if cls != 0:
            x1, y1, x2, y2 = b
            out.append((cls, np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)))
    return out


def layout_crop(rng: np.random.Generator, image: np.ndarray, scene: dict, imgsz: int,
                px_per_mm: tuple[float, float] = (0.7, 1.8)) -> tuple[np.ndarray, list[str]] | None:
    """One square crop of the felt plane, rectified as the runtime's zone crops are, with its YOLO label lines.

    The runtime warps each seat's zones upright at ~1 px/mm (:func:`vision.detector.zone_crops`);
    stage 1 must box corner indices axis-aligned in *that* frame, so crops here are cut the
    same way: a ``imgsz``-px square of the layout at a log-uniform scale in ``px_per_mm``,
    turned by a random angle (seats face every way), centred near a random object.  Index
    labels are the bound of each printed index outline mapped into the crop.

    Returns:
        ((imgsz, imgsz, 3) uint8 BGR, label lines), or None when the scene has no camera.
    """
    cam = scene.get("camera")
    if not cam:
        return None
    from calibration.camera import PinholeCamera

    H = PinholeCamera.from_json(cam).homography()  # felt mm -> image px
    Hinv = np.linalg.inv(H)
    objs = _object_quads(scene)
    ppm = math.exp(rng.uniform(math.log(px_per_mm[0]), math.log(px_per_mm[1])))
    side = imgsz / ppm  # mm
    if objs and rng.random() < 0.85:
        q = objs[rng.integers(len(objs))][1]
        centre_px = q.mean(0)
    else:
        centre_px = np.array([rng.uniform(0, image.shape[1]), rng.uniform(0, image.shape[0])])
    c = cv2.perspectiveTransform(centre_px.reshape(1, 1, 2), Hinv)[0, 0] + rng.uniform(-0.35, 0.35, 2) * side
    a = rng.uniform(0, 2 * math.pi)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    h = side / 2
    corners_mm = np.array([c - h * u - h * v, c + h * u - h * v, c + h * u + h * v, c - h * u + h * v], np.float32)
    corners_px = cv2.perspectiveTransform(corners_mm[None].astype(np.float64), H)[0].astype(np.float32)
    if not np.all(np.isfinite(corners_px)):
        return None
    dst = np.array([[0, 0], [imgsz, 0], [imgsz, imgsz], [0, imgsz]], np.float32)
    M = cv2.getPerspectiveTransform(corners_px, dst)
    crop = cv2.warpPerspective(image, M, (imgsz, imgsz), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                               borderValue=(114, 114, 114))
    boxes = []
    for cls, q in objs:
        m = cv2.perspectiveTransform(q.reshape(1, -1, 2), M)[0]
        if np.all(np.isfinite(m)):
            boxes.append((cls, [*m.min(0), *m.max(0)]))
    return crop, crop_labels(boxes, 0.0, 0.0, float(imgsz), imgsz)


def crop_labels(objs, x0: float, y0: float, side: float, out: int, keep: float = 0.6) -> list[str]:
    """YOLO label lines of the objects inside the square (x0, y0, side) resized to ``out`` px."""
    lines = []
    for cls, (x1, y1, x2, y2) in objs:
        area = max(1e-6, (x2 - x1) * (y2 - y1))
        cx1, cy1 = max(x1, x0), max(y1, y0)
        cx2, cy2 = min(x2, x0 + side), min(y2, y0 + side)
        if cx2 <= cx1 or cy2 <= cy1 or (cx2 - cx1) * (cy2 - cy1) / area < keep:
            continue
        cx, cy = ((cx1 + cx2) / 2 - x0) / side, ((cy1 + cy2) / 2 - y0) / side
        w, h = (cx2 - cx1) / side, (cy2 - cy1) / side
        if w * out < 2 or h * out < 2:
            continue
        lines.append(f"{cls} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}")
    return lines


def prepare(synth_dirs: list[Path], out: Path, imgsz: int = 320, per_image: int = 4, val_fraction: float = 0.1,
            seed: int = 0, index_px: tuple[float, float] = (10.0, 60.0), layout_frame: float = 0.0) -> dict:
    """Write ``out/{train,val}/{images,labels}`` and ``out/data.yaml`` (absolute paths) from rendered frames.

    Args:
        layout_frame: fraction of crops cut rectified in the felt plane (:func:`layout_crop`, as the
            runtime's zone crops) instead of from the image as it is (as tiles).

    Returns:
        Counts: frames read, crops and boxes per class written.
    """
    rng = np.random.default_rng(seed)
    frames = []
    for d in synth_dirs:
        for sp in sorted((Path(d) / "scenes").glob("*.json")):
            ims = [p for p in (Path(d) / "images").glob(sp.stem + ".*")]
            if ims:
                frames.append((ims[0], sp))
    if not frames:
        raise ValueError(f"no rendered frames (images/ + scenes/) under {', '.join(map(str, synth_dirs))}")
    order = rng.permutation(len(frames))
    n_val = max(1, int(round(len(frames) * val_fraction)))
    stats = {"frames": len(frames), "crops": 0, "boxes": {v: 0 for v in NAMES.values()}}
    for split in ("train", "val"):
        for sub in ("images", "labels"):
            (out / split / sub).mkdir(parents=True, exist_ok=True)
    for k, fi in enumerate(order):
        split = "val" if k < n_val else "train"
        img_path, scene_path = frames[fi]
        image = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        scene = json.loads(scene_path.read_text())
        objs = _objects(scene)
        H, W = image.shape[:2]
        heights = [b[3] - b[1] for c, b in objs if c == 0]
        ref_h = float(np.median(heights)) if heights else 28.0
        for j in range(per_image):
            stem = f"{img_path.parent.parent.name}_{img_path.stem}_{j}"
            if layout_frame and rng.random() < layout_frame:
                cut = layout_crop(rng, image, scene, imgsz)
                if cut is not None:
                    _write_crop(out / split, stem, *cut, stats)
                    continue
            target = math.exp(rng.uniform(math.log(index_px[0]), math.log(index_px[1])))
            s = target / ref_h  # crop px per frame px
            side = imgsz / s
            if side > max(W, H):
                side = float(max(W, H))
                s = imgsz / side
            if objs and rng.random() < 0.85:
                _, b = objs[rng.integers(len(objs))]
                cx = (b[0] + b[2]) / 2 + rng.uniform(-0.4, 0.4) * side
                cy = (b[1] + b[3]) / 2 + rng.uniform(-0.4, 0.4) * side
            else:
                cx, cy = rng.uniform(0, W), rng.uniform(0, H)
            x0 = float(np.clip(cx - side / 2, 0, max(0, W - side)))
            y0 = float(np.clip(cy - side / 2, 0, max(0, H - side)))
            M = np.array([[s, 0, -s * x0], [0, s, -s * y0]], np.float32)
            crop = cv2.warpAffine(image, M, (imgsz, imgsz), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=(114, 114, 114))
            _write_crop(out / split, stem, crop, crop_labels(objs, x0, y0, side, imgsz), stats)
    data_yaml = out / "data.yaml"
    tmp = out / ".data.yaml.tmp"
    tmp.write_text(f"path: {out.resolve()}\ntrain: {(out / 'train' / 'images').resolve()}\n"
                   f"val: {(out / 'val' / 'images').resolve()}\nnames:\n  0: index\n  1: BACK\n  2: chip\n")
    os.replace(tmp, data_yaml)
    stats["data"] = str(data_yaml)
    return stats


def random_scene(rng: np.random.Generator, designs: list[str], width: int = 1920, height: int = 1080,
                 casino_look: bool = False, favoured: dict[str, float] | None = None, face_down: float = 0.12,
                 layout_name: str | None = None):
    """A random training frame through :func:`datasets.render.render_frame` (structured domain randomisation).

    Cards: 0-5 per seat and dealer zone, fanned and overlapping like dealt hands, some face down, at any
    rotation; chips: stacks of 1-12 in the betting spots and loose on the felt; sometimes a hand; camera
    tilt 0-40 degrees, 1.0-2.2 px/mm; surfaces felt/wood/white/cloth; random deck design, back and effects.

    Args:
        casino_look: felt of any casino colour and ink (:func:`datasets.scenes.casino_felt`) and chips of any
            design (:data:`datasets.chips.CHIP_DESIGNS`) instead of the layout's own green and the default chip.
            The round videos vary both, and stage 1 trained on green felt alone missed payout stacks and a
            black-faced deck's indices on maroon felt. ``False`` renders what a seed rendered before.
        favoured: deck design -> share of frames drawn in it (e.g. ``{"proc-black-gold": 0.15}``); the rest of the
            frames draw uniformly from ``designs``.
        face_down: share of the cards in card zones dealt face down (Switch Hands deals half its cards so).
        layout_name: the built-in layout to draw on (default: one of the three, drawn from ``rng``).

    Returns:
        RenderResult of the frame.
    """
    from calibration.camera import PinholeCamera
    from calibration.layout import builtin_layout
    from datasets.cards import list_back_designs
    from datasets.effects import Effects
    from datasets.chips import CHIP_DESIGNS
    from datasets.render import SURFACES, Style, render_frame
    from datasets.scene import ChipLayer, ChipStack, HandOccluder, PlacedCard, TableState
    from datasets.scenes import casino_felt
    from datasets.timeline import hand_polygon
    from rules.cards import CARD_LABELS
    from vision.chips import default_chip_set

    layout = builtin_layout(layout_name or str(rng.choice(LAYOUTS)))
    cover = float(rng.uniform(800, 1900))
    target = (float(rng.uniform(600, 1300)), float(rng.uniform(350, 650)))
    camera = PinholeCamera.looking_at(target=target, tilt_deg=float(rng.uniform(0, 40)),
                                      yaw_deg=float(rng.uniform(-20, 20)), width=width, height=height, cover_mm=cover,
                                      roll_deg=float(rng.normal(0, 4)))
    shoe = list(rng.permutation(CARD_LABELS * 2))
    denoms = [c.denomination for c in default_chip_set()]
    cards, chips, hands = [], [], []
    layer = 0
    for z in layout.zones:
        if z.kind in ("cards", "dealer_cards") and rng.random() < 0.8:
            cx, cy = z.centroid
            base = float(rng.uniform(-180, 180)) if rng.random() < 0.3 else float(rng.uniform(-30, 30))
            step = np.array([rng.uniform(8, 30), rng.uniform(-5, 20)])
            for k in range(int(rng.integers(1, 6))):
                face_up = rng.random() > face_down
                c = np.array([cx, cy]) + step * k + rng.normal(0, 3, 2) - step
                cards.append(PlacedCard(card=str(shoe.pop()), face_up=face_up, center=(float(c[0]), float(c[1])),
                                        angle_deg=base + float(rng.normal(0, 8)), layer=layer, zone=z.name))
                layer += 1
        elif z.kind in ("main", "mtd", "bonus", "payout") and rng.random() < 0.55:
            n_layers = 1 if rng.random() < 0.7 else int(rng.integers(2, 4))
            layers = tuple(ChipLayer(int(rng.choice(denoms)), int(rng.integers(1, 6))) for _ in range(n_layers))
            centre = z.circle.center if z.circle is not None else z.centroid
            chips.append(ChipStack(center=(centre[0] + rng.normal(0, 4), centre[1] + rng.normal(0, 4)),
                                   layers=layers, zone=z.name))
    for _ in range(int(rng.integers(0, 4))):  # loose cards anywhere (off-layout views, discards)
        p = (float(rng.uniform(400, 1500)), float(rng.uniform(150, 900)))
        cards.append(PlacedCard(card=str(shoe.pop()), face_up=rng.random() > 0.2, center=p,
                                angle_deg=float(rng.uniform(-180, 180)), layer=layer))
        layer += 1
    if cards and rng.random() < 0.25:
        c = cards[int(rng.integers(len(cards)))].center
        palm = (c[0] + float(rng.normal(0, 40)), c[1] - float(rng.uniform(40, 90)))
        hands.append(HandOccluder(polygon=tuple(map(tuple, hand_polygon(palm, (c[0], c[1] - 300)))),
                                  skin_rgb=tuple(int(v) for v in rng.integers(90, 230, 3))))
    surface = str(rng.choice(SURFACES, p=[0.55, 0.15, 0.2, 0.1]))
    deck = str(rng.choice(designs))
    if favoured:
        r, acc = rng.random(), 0.0
        for name, share in favoured.items():
            acc += share
            if r < acc:
                deck = name
                break
    look = {}
    if casino_look:
        look = {"felt": casino_felt(rng), "chip_design": str(CHIP_DESIGNS[int(rng.integers(len(CHIP_DESIGNS)))].name)}
    style = Style(deck=deck, back=str(rng.choice(list_back_designs())), surface=surface, effects=Effects.random(rng),
                  **look)
    state = TableState(cards=tuple(cards), chips=tuple(chips), hands=tuple(hands))
    return render_frame(layout, state, camera, style, rng=int(rng.integers(1 << 31)))


LAYOUTS = ("blackjack-7-mtd-bonus", "spanish21-6-mtd", "switch-hands-7")
"""The built-in layouts stage 1's frames are drawn on."""


def calibration_zone_crops(frames: int = 24, seed: int = 100, held_out: str = "proc-caladea-std") -> list[np.ndarray]:
    """Zone crops cut as the runtime cuts them (:func:`vision.detector.zone_crops`, 1 px/mm) from random training
    frames of every layout, casino felts and chips half of the time: the calibration set of an int8 stage 1.

    Returns:
        (h, w, 3) uint8 BGR crops, about nine a frame.
    """
    from calibration.layout import builtin_layout
    from datasets.cards import list_deck_designs
    from vision.detector import warp_crop, zone_crops

    rng = np.random.default_rng(seed)
    designs = [d for d in list_deck_designs(include_svg=False) if d != held_out]
    crops = []
    for k in range(frames):
        name = LAYOUTS[k % len(LAYOUTS)]
        res = random_scene(rng, designs, casino_look=bool(k % 2), layout_name=name)
        size = (res.image.shape[1], res.image.shape[0])
        crops += [warp_crop(res.image, c) for c in zone_crops(builtin_layout(name), res.camera.homography(),
                                                               image_size=size)]
    return crops


def _write_crop(split_dir: Path, stem: str, crop: np.ndarray, lines: list[str], stats: dict) -> None:
    cv2.imwrite(str(split_dir / "images" / f"{stem}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
    (split_dir / "labels" / f"{stem}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    stats["crops"] += 1
    for ln in lines:
        stats["boxes"][NAMES[int(ln.split()[0])]] += 1


def render_set(out: Path, count: int, seed: int, held_out: str = "proc-caladea-std", log=print,
               casino_look: bool = False, favoured: dict[str, float] | None = None, face_down: float = 0.12) -> Path:
    """Render ``count`` frames into ``out/images`` + ``out/scenes`` (the ``synth images`` layout), no held-out deck.

    ``casino_look``, ``favoured`` and ``face_down`` are passed to :func:`random_scene`; frames already rendered are kept (a run
    can be resumed).
    """
    from models.train import design_names

    designs = [d for d in design_names() if d != held_out]
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "scenes").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for k in range(count):
        stem = f"{seed}_{k:05d}"
        if (out / "scenes" / f"{stem}.json").exists():
            rng = np.random.default_rng([seed, k + 1])
            continue
        res = random_scene(rng, designs, casino_look=casino_look, favoured=favoured, face_down=face_down)
        cv2.imwrite(str(out / "images" / f"{stem}.jpg"), res.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        (out / "scenes" / f"{stem}.json").write_text(json.dumps(res.to_json()))
        rng = np.random.default_rng([seed, k + 1])
        if k % 25 == 0:
            log(f"rendered {k + 1}/{count}")
    return out


def _write_copies(photo: Path, lines: list[str], out: Path, copies: int | None) -> int:
    """Write a real photo and its YOLO label ``lines`` under ``out/images`` and ``out/labels``.

    ``copies=None`` writes it once under its own name (validation); a number writes that many, named ``<stem>_r1``,
    ``_r2``, ... (training). Returns how many were written.
    """
    import shutil

    for d in ("images", "labels"):
        (out / d).mkdir(parents=True, exist_ok=True)
    for k in range(copies or 1):
        stem = photo.stem if copies is None else f"{photo.stem}_r{k + 1}"
        shutil.copyfile(photo, out / "images" / f"{stem}.jpg")
        (out / "labels" / f"{stem}.txt").write_text("\n".join(lines) + "\n")
    return copies or 1


def real_chip_set(src: Path, out: Path, repeat: int = 6, val_every: int = 6) -> dict:
    """Stage-1 training images from the labelled real chip photos of `real-chips-degen101` (fine-tune part only).

    Every photo whose name starts with :data:`DEGEN101_FINE_TUNE_PREFIX` goes to ``out/train`` ``repeat`` times
    (so a few dozen photos weigh against thousands of rendered crops), except every ``val_every``-th one (sorted by
    name), which goes to ``out/val`` once. Labels are the set's one box per stack (`labels_bbox`), class 2 (`chip`).
    ``out`` must lie outside the repository: the photos are not ours to commit.

    Args:
        src: the data set's folder (with `images/` and `labels_bbox/`).
        out: the folder to write (`train/images`, `train/labels`, `val/images`, `val/labels`).

    Returns:
        {"train": images written, "val": images written, "held_out": photos left out entirely}.

    Raises:
        FileNotFoundError: ``src`` has no `images/` folder.
    """
    from vision.evaluate import DEGEN101_FINE_TUNE_PREFIX

    images = sorted((src / "images").glob("*.jpg"))
    if not images:
        raise FileNotFoundError(f"{src}/images: no photos")
    counts = {"train": 0, "val": 0, "held_out": 0}
    tune = [p for p in images if p.name.startswith(DEGEN101_FINE_TUNE_PREFIX)]
    counts["held_out"] = len(images) - len(tune)
    for i, p in enumerate(tune):
        split = "val" if i % val_every == val_every - 1 else "train"
        lines = [("2" + line[line.index(" "):]) for line in (src / "labels_bbox" / f"{p.stem}.txt").read_text().splitlines()
                 if line.strip()]
        counts[split] += _write_copies(p, lines, out / split, None if split == "val" else repeat)
    return counts


def real_card_set(src: Path, out: Path, repeat: int = 4, val_every: int = 6) -> dict:
    """Stage-1 training images from the labelled real card photos of `real-cards-zk7wu` (fine-tune part only).

    Every photo :func:`vision.evaluate.zk7wu_fine_tune` names (the earlier shots of each kind) goes to
    ``out/train`` ``repeat`` times, except every ``val_every``-th one (by kind, sorted by name), which goes to
    ``out/val`` once. Labels (`labels_bbox`) become stage 1's classes: a card's or joker's corner index is class 0
    (`index`; the reader, not stage 1, says what it is), a card back class 1 (`BACK`). ``out`` must lie outside the
    repository: the photos are not ours to commit.

    Args:
        src: the data set's folder (`manifest.csv`, `classes.txt`, `images/`, `labels_bbox/`).
        out: the folder to write (`train/images`, `train/labels`, `val/images`, `val/labels`).

    Returns:
        {"train": images written, "val": images written, "held_out": photos left out entirely}.

    Raises:
        FileNotFoundError: ``src`` has no `manifest.csv`.
    """
    import csv

    from vision.evaluate import zk7wu_fine_tune

    if not (src / "manifest.csv").is_file():
        raise FileNotFoundError(f"{src}/manifest.csv: not the real-cards-zk7wu folder")
    names = [n.strip() for n in (src / "classes.txt").read_text().split("\n") if n.strip()]
    stage1_class = {i: ("1" if n == "BACK" else "0") for i, n in enumerate(names)}
    counts = {"train": 0, "val": 0, "held_out": 0}
    rows = sorted(csv.DictReader(open(src / "manifest.csv")), key=lambda r: (r["kind"], r["file"]))
    seen: dict[str, int] = {}
    for r in rows:
        if not zk7wu_fine_tune(r["file"], r["kind"]):
            counts["held_out"] += 1
            continue
        seen[r["kind"]] = seen.get(r["kind"], 0) + 1
        split = "val" if seen[r["kind"]] % val_every == 0 else "train"
        p = src / "images" / r["file"]
        label_file = src / "labels_bbox" / f"{p.stem}.txt"
        lines = []
        for line in (label_file.read_text().splitlines() if label_file.is_file() else []):
            v = line.split()
            if len(v) == 5:
                lines.append(" ".join([stage1_class[int(v[0])], *v[1:]]))
        counts[split] += _write_copies(p, lines, out / split, None if split == "val" else repeat)
    return counts
