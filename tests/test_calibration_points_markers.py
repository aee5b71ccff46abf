"""Calibration from point pairs given by a person, from ArUco markers on the felt, and of a lens (ChArUco)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.camera import PinholeCamera
from calibration.evaluate import homography_error_mm
from calibration.homography import CalibrationError
from calibration.layout import builtin_layout
from calibration.markers import (CharucoSpec, LensModel, MarkerSpec, aruco_dictionary, calibrate_lens,
                                 calibrate_markers, default_marker_map, load_marker_map, marker_image)
from calibration.points import calibrate_points, load_points

LAYOUT = builtin_layout("blackjack-7-mtd-bonus")
CAM = PinholeCamera.looking_at((950, 480), 25, 20, 1920, 1080, 1800, 2000, 1.0)


def _pairs_text(names_and_points):
    lines = ["# u v x y"]
    for item in names_and_points:
        lines.append(" ".join(str(round(float(v), 3)) if not isinstance(v, str) else v for v in item))
    return "\n".join(lines) + "\n"


def test_point_pairs_in_text_form_give_the_homography(tmp_path):
    mm = np.array([[1000.0, 250.0], [700.0, 600.0], [1300.0, 550.0], [950.0, 800.0], [600.0, 300.0]])
    px = CAM.project(mm)
    rows = [(*p, *m) for p, m in zip(px, mm)]
    spot = LAYOUT.zone("seat2.main").circle.center
    rows.append((*CAM.project([spot])[0], "seat2.main"))
    path = tmp_path / "points.txt"
    path.write_text(_pairs_text(rows))
    pairs = load_points(path, LAYOUT)
    assert len(pairs) == 6 and pairs[-1].layout == tuple(spot)
    cal = calibrate_points(pairs, LAYOUT, (1920, 1080))
    assert cal.method == "points" and homography_error_mm(cal.homography, CAM, LAYOUT)[0] < 0.01


def test_a_misclicked_pair_is_dropped_and_reported(tmp_path):
    mm = np.array([[1000.0, 250.0], [700.0, 600.0], [1300.0, 550.0], [950.0, 800.0], [600.0, 300.0], [1200, 300]])
    px = CAM.project(mm)
    px[2] += (60, -40)  # clicked on the wrong spot
    path = tmp_path / "points.json"
    path.write_text(json.dumps({"points": [{"image": p.tolist(), "layout": m.tolist()} for p, m in zip(px, mm)]}))
    cal = calibrate_points(load_points(path, LAYOUT), LAYOUT, (1920, 1080))
    assert cal.extra["points_rejected"] == ["points[2]"]
    assert homography_error_mm(cal.homography, CAM, LAYOUT)[0] < 0.05


def test_bad_point_files_name_the_line_or_problem(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("10 20 30\n")
    with pytest.raises(CalibrationError, match=r"p.txt:1: .*no zone '30'"):
        load_points(path, LAYOUT)
    path.write_text("10 20\n")
    with pytest.raises(CalibrationError, match=r"p.txt:1: expected"):
        load_points(path, LAYOUT)
    pairs = load_points(_write(tmp_path, "q.txt", "1 1 0 0\n2 2 100 0\n3 3 200 0\n4 4 300 0\n"), LAYOUT)
    with pytest.raises(CalibrationError, match="one line"):
        calibrate_points(pairs, LAYOUT, (1920, 1080))
    with pytest.raises(CalibrationError, match="need at least 4"):
        calibrate_points(pairs[:3], LAYOUT, (1920, 1080))


def _write(folder, name, text):
    p = folder / name
    p.write_text(text)
    return p


def _lay_markers(frame, cam, specs, dictionary):
    """Print each marker (with its white quiet zone) onto the felt of ``frame`` through the camera."""
    n = aruco_dictionary(dictionary).markerSize + 2
    H = cam.homography()
    out = frame.copy()
    for spec in specs:
        side = 200
        img = cv2.cvtColor(marker_image(spec.id, side, dictionary), cv2.COLOR_GRAY2BGR)
        full_mm = spec.size_mm * (n + 2) / n
        A = np.array([[full_mm / side, 0, spec.center[0] - full_mm / 2], [0, full_mm / side, spec.center[1] - full_mm / 2],
                      [0, 0, 1.0]])
        M = H @ A
        warped = cv2.warpPerspective(img, M, (frame.shape[1], frame.shape[0]), flags=cv2.INTER_AREA)
        mask = cv2.warpPerspective(np.full((side, side), 255, np.uint8), M, (frame.shape[1], frame.shape[0]))
        out[mask > 127] = warped[mask > 127]
    return out


def test_markers_at_their_default_places_give_the_homography():
    render = pytest.importorskip("datasets.render")
    from datasets.scene import TableState

    frame = render.render_frame(LAYOUT, TableState(), CAM, rng=0).image
    mm = default_marker_map(LAYOUT)
    frame = _lay_markers(frame, CAM, mm.markers, mm.dictionary)
    cal = calibrate_markers(frame, LAYOUT, mm)
    assert cal.method == "markers" and len(cal.extra["markers"]) >= 6
    assert homography_error_mm(cal.homography, CAM, LAYOUT)[0] < 2.0


def test_a_marker_map_file_is_read_and_a_frame_without_markers_is_refused(tmp_path):
    path = _write(tmp_path, "m.yaml", "dictionary: DICT_4X4_50\nmarkers:\n  - {id: 3, center: [100, 200], size_mm: 50}\n")
    mm = load_marker_map(path)
    assert mm.markers == [MarkerSpec(3, (100.0, 200.0), 50.0, 0.0)]
    with pytest.raises(CalibrationError, match=r"found 0 of the 1 placed"):
        calibrate_markers(np.zeros((480, 640, 3), np.uint8), LAYOUT, mm)
    with pytest.raises(CalibrationError, match="unknown ArUco dictionary"):
        load_marker_map(_write(tmp_path, "n.yaml", "dictionary: DICT_NOPE\nmarkers: []\n"))


def test_a_marker_turned_on_the_felt_has_its_corners_turned():
    c = MarkerSpec(1, (0.0, 0.0), 40.0, 90.0).corners_mm()
    # turned a quarter counter-clockwise as seen from above: the top-left corner moves to the bottom-left
    assert np.allclose(c[0], (-20, 20))


def _distort(img, K, D):
    h, w = img.shape[:2]
    v, u = np.mgrid[0:h, 0:w].astype(np.float32)
    und = cv2.undistortPoints(np.column_stack([u.ravel(), v.ravel()]).reshape(-1, 1, 2), K, D, P=K).reshape(h, w, 2)
    return cv2.remap(img, und[..., 0], und[..., 1], cv2.INTER_LINEAR, borderValue=255)


def test_a_charuco_board_measures_the_lens():
    spec = CharucoSpec((7, 5), 40.0, 30.0, "DICT_5X5_100")
    board = spec.image(px_per_mm=3.0, margin_px=0)
    K = np.array([[520.0, 0, 320], [0, 520.0, 240], [0, 0, 1]])
    D = np.array([-0.28, 0.08, 0, 0, 0])
    rng = np.random.default_rng(0)
    views = []
    s = 3.0
    for k in range(8):
        rvec = rng.normal(0, 0.35, 3)
        tvec = np.array([-140 + rng.normal(0, 30), -100 + rng.normal(0, 25), rng.uniform(380, 520)])
        R = cv2.Rodrigues(rvec)[0]
        Hb = K @ np.column_stack([R[:, 0], R[:, 1], tvec]) @ np.diag([1 / s, 1 / s, 1.0])
        und = cv2.warpPerspective(board, Hb, (640, 480), flags=cv2.INTER_AREA, borderValue=255)
        views.append(_distort(und, K, D))
    model = calibrate_lens(views, spec)
    assert model.views >= 5 and model.rms_px < 1.0
    assert abs(model.camera_matrix[0, 0] - 520) < 25
    assert abs(model.dist_coeffs[0] - D[0]) < 0.08


def test_a_lens_file_reads_back(tmp_path):
    m = LensModel(np.eye(3) * 500, np.array([-0.1, 0.01, 0, 0, 0]), (640, 480), 0.3, 6)
    back = LensModel.load(m.save(tmp_path / "lens.json"))
    assert np.allclose(back.dist_coeffs, m.dist_coeffs) and back.image_size == (640, 480)
