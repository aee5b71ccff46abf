"""`pitwatch synth round` end to end: the files it writes, the H.264 video, and its bad-input errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import av
import numpy as np
import pytest

from calibration.table import load_table
from datasets.rounds import RoundVideoOptions, render_video, script_video
from vision.video_out import H264Writer, probe_video

REPO = Path(__file__).resolve().parents[1]


def _pitwatch(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from api.cli import main; main()", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600)


def _has_round_command() -> bool:
    try:
        import datasets.cli  # noqa: F401  (the image side registers `synth round` there)
    except ModuleNotFoundError:
        return False
    return True


needs_cli = pytest.mark.skipif(not _has_round_command(), reason="datasets/cli.py (pitwatch synth) is not built yet")


def test_h264_writer_makes_a_yuv420p_mp4_that_decodes_frame_for_frame(tmp_path):
    path = tmp_path / "clip.mp4"
    frames = [np.full((48, 64, 3), (i * 30, 100, 200 - i * 20), np.uint8) for i in range(6)]
    with H264Writer(path, fps=10, width=64, height=48) as w:
        for f in frames:
            w.write(f)
    info = probe_video(path)
    assert (info["codec"], info["pix_fmt"], info["width"], info["height"], info["frames"]) == ("h264", "yuv420p", 64,
                                                                                                 48, 6)
    assert info["fps"] == 10.0
    with av.open(str(path)) as c:
        first = next(c.decode(video=0)).to_ndarray(format="bgr24")
    assert np.abs(first.astype(int) - frames[0].astype(int)).mean() < 6  # colours survive (BT.601 both ways)
    assert not list(tmp_path.glob("*.tmp"))


def test_h264_writer_leaves_nothing_when_writing_fails(tmp_path):
    path = tmp_path / "clip.mp4"
    with pytest.raises(ValueError):
        with H264Writer(path, fps=10, width=64, height=48) as w:
            w.write(np.zeros((48, 64, 3), np.uint8))
            w.write(np.zeros((10, 10, 3), np.uint8))
    assert not path.exists() and not list(tmp_path.iterdir())


def test_h264_writer_refuses_an_odd_size(tmp_path):
    with pytest.raises(ValueError, match="even"):
        H264Writer(tmp_path / "x.mp4", fps=10, width=63, height=48)


def test_a_still_frame_through_h264_keeps_its_size_and_loses_a_two_pixel_stripes_colour():
    """A chip side 2 px per chip thick, as a 4K camera at a low tilt shows it: one green chip between red ones. In
    4:2:0 video its colour shares a sample with its neighbours' and is not green any more."""
    from vision.video_out import h264_still

    img = np.zeros((48, 64, 3), np.uint8)
    img[:] = (40, 40, 200)  # red (BGR)
    img[21:23] = (60, 170, 40)  # a green stripe 2 px tall, across two of the chroma grid's rows
    out = h264_still(img, crf=26, repeats=3)
    assert out.shape == img.shape and out.dtype == np.uint8
    assert np.abs(out[:12].astype(int) - img[:12]).mean() < 6  # flat colour survives
    stripe = out[21:23, 8:56].reshape(-1, 3).mean(0)
    assert stripe[1] - stripe[2] < (170 - 40) * 0.6  # the stripe's green mostly gone into the red around it


def test_h264_still_refuses_an_odd_size():
    from vision.video_out import h264_still

    with pytest.raises(ValueError):
        h264_still(np.zeros((47, 64, 3), np.uint8))


def test_rendered_round_video_has_one_frame_per_truth_frame(tmp_path):
    script = script_video(RoundVideoOptions(seed=3, rounds=1, fps=4, width=320, height=180, faults=()))
    stats = render_video(script, tmp_path / "video.mp4")
    info = probe_video(tmp_path / "video.mp4")
    assert info["frames"] == script.frames == stats.frames
    assert (info["codec"], info["pix_fmt"], info["width"], info["height"]) == ("h264", "yuv420p", 320, 180)
    assert stats.drawn < stats.frames  # a still table is not drawn twice


@needs_cli
def test_synth_round_writes_video_truth_table_and_calibration(tmp_path):
    out = tmp_path / "r"
    res = _pitwatch("synth", "round", "--seed", "5", "--out", str(out), "--rounds", "1", "--fps", "3",
                    "--size", "320x180")
    assert res.returncode == 0, res.stderr
    truth = json.loads((out / "truth.json").read_text())
    assert truth["video"] == "video.mp4" and truth["fps"] == 3.0
    assert probe_video(out / "video.mp4")["frames"] == truth["frames"]
    table = load_table(out / "table.yaml")
    assert table.id == truth["table"] == "synth-5"
    cal = table.require_calibration()
    assert cal.layout_id == table.layout.id and cal.image_size == (320, 180)
    assert json.loads((out / "calibration.json").read_text())["reprojection_error_mm"] == 0
    # the calibration is the true camera: the dealer's up card centre lands where the camera puts it
    cam = json.loads((out / "calibration.json").read_text())["camera"]
    K = np.array(cam["K"])
    assert K[0, 2] == 160 and K[1, 2] == 90


@needs_cli
def test_same_seed_same_truth_from_the_command_line(tmp_path):
    for name in ("a", "b"):
        res = _pitwatch("synth", "round", "--seed", "42", "--out", str(tmp_path / name), "--no-video")
        assert res.returncode == 0, res.stderr
    for f in ("truth.json", "table.yaml", "calibration.json", "layout.yaml"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()


@needs_cli
@pytest.mark.parametrize("args, words", [
    (["--seed", "forty"], "--seed"),
    (["--seed", "1", "--faults", "mtd_stolen"], "unknown fault kind"),
    (["--seed", "1", "--game", "blackjack", "--decks", "2"], "six- or eight-deck"),
    (["--seed", "1", "--game", "spanish21", "--faults", "bonus_underpaid"], "offers no wager"),
    (["--seed", "1", "--size", "big"], "--size"),
])
def test_bad_input_exits_2_with_one_line(tmp_path, args, words):
    res = _pitwatch("synth", "round", "--out", str(tmp_path / "o"), *args)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0]
    assert not (tmp_path / "o" / "truth.json").exists()
