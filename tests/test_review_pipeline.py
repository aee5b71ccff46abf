"""The review pipeline end to end on a small rendered video, with perfect zone readings.

The detector is replaced by the script's truth (``datasets.oracle``), so this checks
the frame source, tracker, round engine, report, evidence and annotated video
without depending on model accuracy.
"""

import json

import pytest

from datasets.oracle import OracleObserver
from datasets.round_cli import write_round_outputs
from datasets.rounds import RoundVideoOptions, script_video
from vision.report import ReviewSink, build_report, write_report
from vision.review import run_engine
from vision.review_cli import build_engine
from vision.sources import SourceError, VideoFileSource
from calibration.table import load_table


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("round")
    options = RoundVideoOptions(seed=4, fps=10, rounds=1, width=640, height=360, faults=("mtd_underpaid",))
    write_round_outputs(folder, options)
    script = script_video(options)
    table = load_table(folder / "table.yaml")
    source = VideoFileSource(folder / "video.mp4")
    tracker, engine = build_engine(table, source.fps)
    out = folder / "review"
    sink = ReviewSink(out, source.fps, annotated=True, width=640)
    run = run_engine(source, OracleObserver(script), engine, tracker, analyse_fps=10, on_frame=sink)
    sink.close()
    report = build_report("video.mp4", source.fps, run.frames_read, table.id, engine, run.stopped)
    write_report(out, report, annotated=True)
    return folder, out, json.loads((folder / "truth.json").read_text()), report


def test_the_report_reproduces_the_truths_rounds_and_alerts(reviewed):
    _, _, truth, report = reviewed
    assert [r["dealer"]["up"] for r in report["rounds"]] == [r["dealer"]["up"] for r in truth["rounds"]]
    got = {(a["type"], a["seat"]) for r in report["rounds"] for a in r["alerts"]}
    assert got == {(a["type"], a["seat"]) for r in truth["rounds"] for a in r["alerts"]}


def test_every_alert_has_evidence_image_and_clip_with_sha256(reviewed):
    _, out, _, report = reviewed
    alerts = [a for r in report["rounds"] for a in r["alerts"]]
    assert alerts
    for a in alerts:
        assert (out / a["evidence"]).stat().st_size > 0
        assert (out / a["clip"]).stat().st_size > 0 and len(a["clip_sha256"]) == 64


def test_report_files_and_annotated_h264_video(reviewed):
    from vision.video_out import probe_video

    _, out, _, _ = reviewed
    assert json.loads((out / "report.json").read_text())["video"] == "video.mp4"
    assert "Timeline" in (out / "report.html").read_text()
    assert probe_video(out / "annotated.mp4")["codec"] == "h264"


def test_a_truncated_video_is_reviewed_up_to_where_it_stops(reviewed, tmp_path):
    folder = reviewed[0]
    data = (folder / "video.mp4").read_bytes()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[: len(data) // 2])
    try:
        source = VideoFileSource(cut)
    except SourceError:
        pytest.skip("the container index sits at the end of this file; a cut file is not openable")
    frames = sum(1 for _ in source.frames())
    assert source.stopped is not None and source.stopped.frame == frames


def test_a_file_that_is_not_a_video_is_a_clear_error(tmp_path):
    bad = tmp_path / "x.mp4"
    bad.write_text("not a video")
    with pytest.raises(SourceError, match="not a readable video"):
        VideoFileSource(bad)


def test_the_detector_counts_chips_from_their_side_unless_told_not_to():
    from pathlib import Path

    from vision.chip_side import DEFAULT_CHIP_SIDE
    from vision.review_cli import observer_for

    if not DEFAULT_CHIP_SIDE.is_file():
        pytest.skip("committed models/chip_side.onnx absent")
    table = load_table(Path(__file__).resolve().parents[1] / "api" / "samples" / "round" / "table.yaml")
    assert observer_for(table, "detector").reader.chip_side is not None
    assert observer_for(table, "detector", chip_side=None).reader.chip_side is None


def test_the_detector_reads_cards_with_the_reader_it_is_given():
    from pathlib import Path

    from vision.card_reader import DEFAULT_READER, FP32_READER
    from vision.review_cli import observer_for

    if not FP32_READER.is_file():
        pytest.skip("committed models/card_reader.onnx absent")
    table = load_table(Path(__file__).resolve().parents[1] / "api" / "samples" / "round" / "table.yaml")
    assert observer_for(table, "detector").reader.reader.path == DEFAULT_READER
    assert observer_for(table, "detector", reader=FP32_READER).reader.reader.path == FP32_READER


def test_the_readings_a_review_keeps_give_the_same_report_when_replayed(reviewed, tmp_path):
    from vision.observation_log import read_observations, replay
    from vision.review_cli import review_pipeline

    folder = reviewed[0]
    (folder / "synth.json").write_text(json.dumps({"seed": 4, "rounds": 1, "fps": 10, "faults": ["mtd_underpaid"]}))
    report, _ = review_pipeline(folder / "video.mp4", folder / "table.yaml", tmp_path / "out", no_video=True,
                                observer="oracle", observations=tmp_path / "obs.jsonl")
    log = read_observations(tmp_path / "obs.jsonl")
    assert log.end is not None and log.end["frames_read"] == report["frames"]
    table = load_table(folder / "table.yaml")
    tracker, engine = build_engine(table, report["fps"], by_position=log.header["tracks_by_position"])
    list(replay(log, tracker, engine))
    again = build_report("video.mp4", report["fps"], report["frames"], table.id, engine, None)
    strip = lambda rs: [{k: v for k, v in r.items() if k != "alerts"} | {"alerts": [(a["type"], a["seat"], a["t_s"])
                        for a in r["alerts"]]} for r in rs]  # noqa: E731
    assert strip(again["rounds"]) == strip(report["rounds"])


def test_each_alert_keeps_its_own_evidence_file_name():
    from vision.rounds import Alert

    sink = object.__new__(ReviewSink)  # the name depends on the alert alone
    main = Alert(type="unreadable", seat=4, t_s=4.0, frame=40, wager="main", round_index=0)
    mtd = Alert(type="unreadable", seat=4, t_s=4.0, frame=40, wager="mtd", round_index=0)
    paid = Alert(type="mtd_underpaid", seat=3, t_s=12.3, frame=369, wager="mtd", round_index=0)
    spot = Alert(type="unreadable", seat=3, t_s=4.0, frame=40, wager="main", round_index=-1)
    again = Alert(type="unreadable", seat=3, t_s=33.9, frame=339, wager="mtd", round_index=-1)
    stems = [sink.evidence_stem(a) for a in (main, mtd, paid, spot, again)]
    assert stems[2] == "r0-mtd_underpaid-s3"  # as the contracts' example names it
    assert len(set(stems)) == 5


def test_an_alert_decided_long_after_its_frame_gets_a_frame_near_it_as_evidence():
    """A side-bet payout counted from its own stack is decided up to STACK_WAIT_S after it was placed; the evidence
    image shows the table within half a second of the payout's frame, not the oldest frame of the clip buffer."""
    import numpy as np

    from vision.report import EVIDENCE_LOOKBACK_S
    from vision.review import FrameBuffer
    from vision.rounds import STACK_WAIT_S
    from vision.sources import Frame

    assert EVIDENCE_LOOKBACK_S > STACK_WAIT_S
    buf = FrameBuffer(seconds=5.0, width=64, sparse_seconds=EVIDENCE_LOOKBACK_S)
    for i in range(300):  # 30 s at 10 fps, each frame's pixels its own index
        buf.add(Frame(i, i / 10, np.full((8, 16, 3), i % 256, np.uint8)))
    assert int(buf.nearest(56)[0, 0, 0]) in range(51, 62)  # placed at 5.6 s, decided at 29.9 s
    assert len(buf.frames) <= 51 and len(buf.sparse) <= 26  # dense for 5 s, then one a second
    assert [int(f[0, 0, 0]) for f in buf.between(27.0, 29.9)][0] == 270 % 256  # clips come from the dense frames alone


def test_the_frame_buffer_keeps_only_its_last_seconds_unless_asked_for_more():
    import numpy as np

    from vision.review import FrameBuffer
    from vision.sources import Frame

    buf = FrameBuffer(seconds=2.0, width=64)
    for i in range(100):
        buf.add(Frame(i, i / 10, np.full((8, 16, 3), i, np.uint8)))
    assert not buf.sparse and int(buf.nearest(10)[0, 0, 0]) == 79
