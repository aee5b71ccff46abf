"""``pitwatch calibrate``: writes calibration.json, exits 2 with one line where the layout is not found."""

from __future__ import annotations

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

from calibration.camera import PinholeCamera
from calibration.layout import LAYOUT_DIR, builtin_layout

render = pytest.importorskip("datasets.render")
from datasets.scene import TableState  # noqa: E402

LAYOUT_FILE = LAYOUT_DIR / "spanish21-6-mtd.yaml"


def _pitwatch(*args):
    return subprocess.run([sys.executable, "-c", "from api.cli import main; main()", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def frame_file(tmp_path_factory):
    layout = builtin_layout("spanish21-6-mtd")
    cam = PinholeCamera.looking_at((950, 470), 20, 0, 1920, 1080, 1900, 2000)
    path = tmp_path_factory.mktemp("cal") / "table.jpg"
    cv2.imwrite(str(path), render.render_frame(layout, TableState(), cam, rng=0).image)
    return path, cam


def test_calibrate_writes_the_contract_file(frame_file, tmp_path):
    image, cam = frame_file
    out = tmp_path / "calibration.json"
    res = _pitwatch("calibrate", image, "--layout", LAYOUT_FILE, "--out", out)
    assert res.returncode == 0, res.stderr
    data = json.loads(out.read_text())
    assert data["layout"] == "spanish21-6-mtd" and data["image_size"] == [1920, 1080]
    H = np.array(data["homography"])
    assert np.allclose(H / H[2, 2], cam.homography(), rtol=0.02, atol=0.5)
    assert 0 <= data["reprojection_error_mm"] < 1.0
    assert json.loads(res.stdout.strip().splitlines()[-1])["out"] == str(out)


def test_a_frame_without_the_layout_exits_2_saying_what_matched(tmp_path):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((1080, 1920, 3), (60, 96, 22), np.uint8))
    out = tmp_path / "calibration.json"
    res = _pitwatch("calibrate", blank, "--layout", LAYOUT_FILE, "--out", out)
    assert res.returncode == 2
    line = res.stderr.strip()
    assert "\n" not in line and "not found in" in line and "betting circles" in line
    assert not out.exists()


def test_a_missing_layout_file_exits_2(frame_file, tmp_path):
    res = _pitwatch("calibrate", frame_file[0], "--layout", tmp_path / "nope.yaml", "--out", tmp_path / "c.json")
    assert res.returncode == 2 and "layout file not found" in res.stderr


def test_point_pairs_from_a_person(frame_file, tmp_path):
    image, cam = frame_file
    mm = np.array([[1000.0, 250.0], [700.0, 600.0], [1300.0, 550.0], [950.0, 800.0]])
    px = cam.project(mm)
    pts = tmp_path / "points.txt"
    pts.write_text("".join(f"{u} {v} {x} {y}\n" for (u, v), (x, y) in zip(px, mm)))
    out = tmp_path / "calibration.json"
    res = _pitwatch("calibrate", image, "--layout", LAYOUT_FILE, "--out", out, "--points", pts)
    assert res.returncode == 0, res.stderr
    assert json.loads(out.read_text())["method"] == "points"
