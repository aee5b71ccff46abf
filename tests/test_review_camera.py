"""A moved camera during review raises ``camera_moved``; a still one never does (drift watch in the loop)."""

import dataclasses
import json

import numpy as np

from api.demo import SAMPLE_ROUND
from calibration.drift import DriftWatch
from calibration.table import load_table
from datasets.oracle import OracleObserver
from datasets.rounds import RoundVideoOptions, script_video
from vision.review import run_engine
from vision.review_cli import build_engine
from vision.sources import VideoFileSource


def _review(calibration_shift_mm: float):
    o = json.loads((SAMPLE_ROUND / "synth.json").read_text())
    script = script_video(RoundVideoOptions(seed=o["seed"], game=o["game"], rounds=o["rounds"],
                                            faults=tuple(o["faults"]), fps=o["fps"]))
    table = load_table(SAMPLE_ROUND / "table.yaml")
    calib = table.require_calibration()
    if calibration_shift_mm:
        shift = np.array([[1, 0, calibration_shift_mm], [0, 1, 0], [0, 0, 1.0]])
        calib = dataclasses.replace(calib, homography=calib.homography @ shift)
    source = VideoFileSource(SAMPLE_ROUND / "video.mp4")
    tracker, engine = build_engine(table, source.fps)
    run_engine(source, OracleObserver(script), engine, tracker, analyse_fps=5,
               drift=DriftWatch(calib, table.layout))
    return [a for r in engine.rounds for a in r.alerts] + engine.table_alerts


def test_a_still_camera_raises_no_camera_alert():
    assert not [a for a in _review(0) if a.type.startswith("camera")]


def test_a_camera_20_mm_off_its_calibration_raises_camera_moved_within_a_second():
    moved = [a for a in _review(20.0) if a.type == "camera_moved"]
    assert moved and moved[0].t_s <= 1.0
