"""`pitwatch synth images`: reproducible scenes, labels that match the truth, and clear errors."""

from __future__ import annotations

import json
import sys

import cv2
import numpy as np
import pytest
import yaml

from datasets.contact_sheet import contact_sheet, draw_labels, read_labels
from datasets.images import CLASS_NAMES, write_dataset, write_one
from rules.cards import CARD_LABELS

COUNT = 4


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("synth")
    write_dataset(out, COUNT, seed=11, workers=1)
    return out


def _scene(dataset, name):
    return json.loads((dataset / "scenes" / f"{name}.json").read_text())


def _id_buffer(scene) -> np.ndarray:
    """Who is seen at each pixel, drawn independently of the renderer's own bookkeeping:
    cards in drawing order, then chip stacks, then hands (id = card index, 1000 + stack, 2000 + hand)."""
    cam = scene["camera"]
    buf = np.full((cam["height"], cam["width"]), -1, np.int32)
    fill = lambda poly, v: cv2.fillPoly(buf, [np.round(np.asarray(poly) * 16).astype(np.int32)], int(v), cv2.LINE_8, 4)  # noqa: E731
    for i in sorted(range(len(scene["cards"])), key=lambda i: scene["cards"][i]["draw_order"]):
        fill(scene["cards"][i]["quad"], i)
    for j in sorted(range(len(scene["chips"])), key=lambda j: scene["chips"][j]["draw_order"]):
        fill(scene["chips"][j]["outline"], 1000 + j)
    for h, poly in enumerate(scene["hands"]):
        fill(poly, 2000 + h)
    return buf


def _seen_fraction(buf, quad, owner) -> float:
    mask = np.zeros(buf.shape, np.uint8)
    cv2.fillPoly(mask, [np.round(np.asarray(quad) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    area = cv2.contourArea(np.asarray(quad, np.float32))
    return float(np.count_nonzero((mask > 0) & (buf == owner))) / max(area, 1e-6)


def _box(quad) -> tuple[float, float, float, float]:
    q = np.asarray(quad)
    return q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()


def _iou(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def test_data_yaml_names_the_52_cards_then_back_then_chip(dataset):
    data = yaml.safe_load((dataset / "data.yaml").read_text())
    assert data["nc"] == 54
    assert list(data["names"].values()) == [*CARD_LABELS, "BACK", "chip"] == list(CLASS_NAMES)


def test_every_image_has_its_label_and_scene_files(dataset):
    names = sorted(p.stem for p in (dataset / "images").glob("*.jpg"))
    assert names == [f"{i:06d}" for i in range(COUNT)]
    for n in names:
        assert (dataset / "labels" / f"{n}.txt").exists() and (dataset / "scenes" / f"{n}.json").exists()


def test_the_same_seed_gives_the_same_scene_json_labels_and_pixels(dataset, tmp_path):
    write_one(tmp_path, 11, 1)
    for sub, ext in (("scenes", "json"), ("labels", "txt"), ("images", "jpg")):
        assert (tmp_path / sub / f"000001.{ext}").read_bytes() == (dataset / sub / f"000001.{ext}").read_bytes(), sub


def test_another_seed_gives_another_scene(dataset, tmp_path):
    write_one(tmp_path, 12, 1)
    assert (tmp_path / "scenes" / "000001.json").read_bytes() != (dataset / "scenes" / "000001.json").read_bytes()


def test_every_labelled_corner_lies_inside_its_cards_quad(dataset):
    checked = 0
    for n in range(COUNT):
        name = f"{n:06d}"
        scene = _scene(dataset, name)
        w, h = scene["camera"]["width"], scene["camera"]["height"]
        img = cv2.imread(str(dataset / "images" / f"{name}.jpg"))
        labels = read_labels(dataset / "labels" / f"{name}.txt", w, h)
        drawn = draw_labels(img, labels, list(CLASS_NAMES))
        for k, box in labels:
            cls = CLASS_NAMES[k]
            x1, y1, x2, y2 = box
            # the label is drawn back onto the image where it says
            assert (drawn[int(y1):int(y2) + 1, int(x1):int(x2) + 1] != img[int(y1):int(y2) + 1, int(x1):int(x2) + 1]).any()
            # a corner index of a turned card has an upright box that pokes a little past the card's edge:
            # "inside" = its centre is on the card and most of the box overlaps the card
            rect = np.array([(x1, y1), (x2, y1), (x2, y2), (x1, y2)], np.float32)
            if cls == "chip":
                owners = [cv2.convexHull(np.asarray(c["outline"], np.float32)).reshape(-1, 2) for c in scene["chips"]]
            else:
                owners = [np.asarray(c["quad"], np.float32) for c in scene["cards"] if c["label"] == cls]
            centre = ((x1 + x2) / 2, (y1 + y2) / 2)
            if cls in ("chip", "BACK"):
                # whole-object boxes: within the object's own upright box
                inside = [q[:, 0].min() - 2 <= x1 and x2 <= q[:, 0].max() + 2 and q[:, 1].min() - 2 <= y1
                          and y2 <= q[:, 1].max() + 2 and cv2.pointPolygonTest(q, centre, False) >= 0 for q in owners]
            else:
                inside = [cv2.pointPolygonTest(q, centre, False) >= 0
                          and cv2.intersectConvexConvex(rect, q)[0] >= 0.6 * (x2 - x1) * (y2 - y1) for q in owners]
            assert any(inside), (name, cls, box)
            checked += 1
    assert checked > 20


def test_every_visible_corner_is_labelled_and_no_hidden_one_is(dataset):
    seen = hidden = 0
    for n in range(COUNT):
        name = f"{n:06d}"
        scene = _scene(dataset, name)
        w, h = scene["camera"]["width"], scene["camera"]["height"]
        labels = read_labels(dataset / "labels" / f"{name}.txt", w, h)
        buf = _id_buffer(scene)
        for i, card in enumerate(scene["cards"]):
            if not card["face_up"]:
                continue
            k = CLASS_NAMES.index(card["label"])
            mine = [b for c, b in labels if c == k]
            for quad in card["index_quads"]:
                q = np.asarray(quad)
                full = (max(0, q[:, 0].min()), max(0, q[:, 1].min()), min(w, q[:, 0].max()), min(h, q[:, 1].max()))
                if full[2] - full[0] < 6 or full[3] - full[1] < 6:
                    continue  # at or below the smallest labelled box (MIN_BOX_PX): nothing to read
                frac = _seen_fraction(buf, quad, i)
                best = max((_iou(b, full) for b in mine), default=0.0)
                if frac >= 0.6:
                    assert best >= 0.4, (name, card["label"], frac, best)
                    seen += 1
                elif frac <= 0.4:
                    # (a shoe of six or eight decks can put the same card twice in one hand, one index on the other)
                    twin = any(_iou(_box(oq), full) >= 0.3 for j, other in enumerate(scene["cards"])
                               if j != i and other["label"] == card["label"]
                               for oq, ov in zip(other["index_quads"], other["index_visible"]) if ov >= 0.5)
                    assert twin or best < 0.3, (name, card["label"], frac, best)
                    hidden += 1
    assert seen > 10


def test_a_contact_sheet_draws_a_grid_of_labelled_samples(dataset, tmp_path):
    path = contact_sheet(dataset, count=4, cols=2, tile_width=320, out=tmp_path / "sheet.png")
    sheet = cv2.imread(str(path))
    assert sheet.shape == (2 * 180, 2 * 320, 3)


def _run_cli(monkeypatch, capsys, *args):
    from api import cli

    monkeypatch.setattr(sys, "argv", ["pitwatch", *args])
    with pytest.raises(SystemExit) as exc:
        cli.main()
    return exc.value.code, capsys.readouterr().err


def test_a_seed_that_is_not_a_number_is_a_clear_error(monkeypatch, capsys, tmp_path):
    code, err = _run_cli(monkeypatch, capsys, "synth", "images", "--count", "1", "--seed", "seven", "--out", str(tmp_path))
    assert code == 2 and "--seed: 'seven' is not a whole number" in err
    assert not (tmp_path / "images").exists()


def test_an_unknown_deck_to_hold_out_is_a_clear_error(monkeypatch, capsys, tmp_path):
    code, err = _run_cli(monkeypatch, capsys, "synth", "images", "--count", "1", "--hold-out", "nope", "--out", str(tmp_path))
    assert code == 2 and "unknown deck design 'nope'" in err
