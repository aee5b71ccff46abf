"""A contact sheet: a grid of data-set images with their YOLO labels drawn on, for checking by eye.

Card corner boxes are green with the card's name, ``BACK`` boxes magenta, chip
stacks yellow.  Labels are read back from the label files, not from the renderer,
so the sheet shows exactly what training will see.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import cv2
import numpy as np
import yaml

_COLOURS = {"BACK": (255, 0, 255), "chip": (0, 220, 255)}


def read_labels(path: Path, width: int, height: int) -> list[tuple[int, tuple[float, float, float, float]]]:
    """A YOLO label file as (class, (x1, y1, x2, y2) px); a missing file has no labels.

    Raises:
        ValueError: naming the file and line of a malformed row.
    """
    out = []
    if not path.exists():
        return out
    for n, line in enumerate(path.read_text().splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        try:
            k, cx, cy, w, h = int(parts[0]), *map(float, parts[1:5])
        except (ValueError, IndexError) as exc:
            raise ValueError(f"{path}:{n}: not a YOLO row 'class cx cy w h': {line!r}") from exc
        out.append((k, ((cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height)))
    return out


def draw_labels(img: np.ndarray, labels, names: list[str], thickness: int = 2) -> np.ndarray:
    """``img`` with each labelled box and its class name drawn on (a copy)."""
    out = img.copy()
    scale = max(0.4, img.shape[1] / 1920 * 0.8)
    for k, (x1, y1, x2, y2) in labels:
        name = names[k] if 0 <= k < len(names) else str(k)
        colour = _COLOURS.get(name, (40, 230, 40))
        cv2.rectangle(out, (int(x1), int(y1)), (int(round(x2)), int(round(y2))), colour, thickness, cv2.LINE_AA)
        if name != "chip":
            cv2.putText(out, name, (int(x1), max(10, int(y1) - 3)), cv2.FONT_HERSHEY_SIMPLEX, scale, colour,
                        max(1, thickness - 1), cv2.LINE_AA)
    return out


def contact_sheet(dataset: str | Path, count: int = 16, cols: int = 4, tile_width: int = 640,
                  out: str | Path | None = None, crop_to_labels: bool = False) -> Path:
    """Draw the first ``count`` images of ``dataset`` with their labels in a grid; write it as PNG.

    Args:
        dataset: a folder made by ``pitwatch synth images`` (``images/``, ``labels/``, ``data.yaml``).
        count: images on the sheet.
        cols: images per row.
        tile_width: width of each tile, px.
        out: where to write (default ``DATASET/contact_sheet.png``).
        crop_to_labels: zoom each tile onto the region holding its labels (corner boxes are small).

    Returns:
        The path written.

    Raises:
        ValueError: when the folder holds no images.
    """
    dataset = Path(dataset)
    names_file = dataset / "data.yaml"
    names = list(yaml.safe_load(names_file.read_text())["names"].values()) if names_file.exists() else []
    images = sorted((dataset / "images").glob("*.jpg"))[:count]
    if not images:
        raise ValueError(f"{dataset}: no images/*.jpg to put on a contact sheet")
    tiles = []
    tile_h = tile_width * 9 // 16
    for p in images:
        img = cv2.imread(str(p))
        h, w = img.shape[:2]
        labels = read_labels(dataset / "labels" / f"{p.stem}.txt", w, h)
        drawn = draw_labels(img, labels, names, thickness=max(1, w // 960))
        if crop_to_labels and labels:
            xs = [v for _, b in labels for v in (b[0], b[2])]
            ys = [v for _, b in labels for v in (b[1], b[3])]
            x1, x2 = max(0, int(min(xs)) - 40), min(w, int(max(xs)) + 40)
            y1, y2 = max(0, int(min(ys)) - 40), min(h, int(max(ys)) + 40)
            drawn = drawn[y1:y2, x1:x2]
        th, tw = drawn.shape[:2]
        f = min(tile_width / tw, tile_h / th)
        small = cv2.resize(drawn, (max(1, int(tw * f)), max(1, int(th * f))), interpolation=cv2.INTER_AREA)
        tile = np.full((tile_h, tile_width, 3), 40, np.uint8)
        tile[: small.shape[0], : small.shape[1]] = small
        cv2.putText(tile, p.stem, (6, tile_h - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
        tiles.append(tile)
    rows = math.ceil(len(tiles) / cols)
    while len(tiles) < rows * cols:
        tiles.append(np.full_like(tiles[0], 40))
    sheet = np.vstack([np.hstack(tiles[r * cols : (r + 1) * cols]) for r in range(rows)])
    path = Path(out) if out else dataset / "contact_sheet.png"
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.png")
    cv2.imwrite(str(tmp), sheet)
    os.replace(tmp, path)
    return path
