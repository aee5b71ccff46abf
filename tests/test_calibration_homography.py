"""calibration.json: the homography record, its file form and the pixel <-> millimetre mapping."""

from __future__ import annotations

import json

import numpy as np
import pytest

from calibration.camera import PinholeCamera
from calibration.homography import CalibrationError, CalibrationResult, pose_from_homography


def _camera(tilt=25.0, yaw=30.0, roll=2.0):
    return PinholeCamera.looking_at((950, 500), tilt, yaw, 1920, 1080, 1600, 2000, roll)


def test_file_holds_the_contract_fields_and_reads_back(tmp_path):
    cam = _camera()
    cal = CalibrationResult(cam.homography(), (1920, 1080), "blackjack-7-mtd-bonus", reprojection_error_mm=0.4,
                            method="auto", features_matched=23)
    path = cal.save(tmp_path / "calibration.json")
    data = json.loads(path.read_text())
    assert data["layout"] == "blackjack-7-mtd-bonus"
    assert data["image_size"] == [1920, 1080]
    assert np.allclose(data["homography"], cal.homography)
    assert data["reprojection_error_mm"] == 0.4 and "date" in data
    back = CalibrationResult.load(path)
    assert np.allclose(back.homography, cal.homography) and back.image_size == (1920, 1080)
    assert [p.name for p in tmp_path.iterdir()] == ["calibration.json"]  # no temporary file left behind


def test_a_malformed_file_names_the_field(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"layout": "x", "image_size": [1920, 1080]}))
    with pytest.raises(CalibrationError, match="homography"):
        CalibrationResult.load(path)
    path.write_text("{not json")
    with pytest.raises(CalibrationError, match="not valid JSON"):
        CalibrationResult.load(path)


def test_pixels_and_millimetres_map_both_ways():
    cam = _camera()
    cal = CalibrationResult(cam.homography(), (1920, 1080), "x")
    mm = np.array([[950.0, 500.0], [1400.0, 300.0], [500.0, 700.0]])
    assert np.allclose(cal.to_pixels(mm), cam.project(mm), atol=1e-6)
    assert np.allclose(cal.to_mm(cal.to_pixels(mm)), mm, atol=1e-6)


def test_a_lens_model_distorts_on_the_way_out_and_undistorts_on_the_way_in():
    cam = _camera()
    K = cam.K.copy()
    cal = CalibrationResult(cam.homography(), (1920, 1080), "x", camera_matrix=K, dist_coeffs=[-0.2, 0.05, 0, 0, 0])
    mm = np.array([[600.0, 300.0], [1300.0, 650.0]])
    raw = cal.to_pixels(mm)
    assert not np.allclose(raw, cam.project(mm), atol=1.0)  # the lens moved them
    assert np.allclose(cal.to_mm(raw), mm, atol=0.05)


def test_the_camera_behind_a_homography_is_recovered():
    cam = _camera(tilt=30, yaw=200, roll=-3)
    pose = pose_from_homography(cam.homography(), (1920, 1080))
    assert pose.focal_from_homography
    assert np.allclose(pose.K, cam.K, rtol=1e-6)
    assert np.allclose(pose.R, cam.R, atol=1e-6)
    assert np.allclose(pose.center_mm, cam.center_mm, atol=1e-3)


def test_scaling_follows_the_pixel_centre_convention_of_resize():
    cam = _camera()
    cal = CalibrationResult(cam.homography(), (1920, 1080), "x")
    small = cal.scaled(1 / 3)
    assert small.image_size == (640, 360)
    p = cal.to_pixels([[950.0, 500.0]])[0]
    assert np.allclose(small.to_pixels([[950.0, 500.0]])[0], (p + 0.5) / 3 - 0.5)
