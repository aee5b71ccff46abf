"""Record the detector's zone readings of rendered round videos once, then replay tracker + round engine over them.

Reading the pixels is nearly all of a detector review's time (~1 min per 30 s video on 2 cores); the tracker and
the engine take a second. Recorded once, the readings let a change to the tracker or the engine be scored against
``truth.json`` in seconds, and the replay gives exactly what the review gives for the same readings.

Usage:
    python scripts/replay_observations.py record ROOT SEED...   # ROOT/seedN/{video.mp4,table.yaml,truth.json}
    python scripts/replay_observations.py replay ROOT SEED... [--labels]   # --labels: the label-multiset tracker

``ROOT/seedN`` folders are what ``pitwatch eval review --keep ROOT`` leaves (or ``pitwatch synth round``);
``record`` writes ``observations.pkl`` beside each video, with the committed models.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FILE = "observations.pkl"


def record(root: Path, seeds: list[str]) -> None:
    from calibration.table import load_table
    from vision.review import run_engine
    from vision.review_cli import build_engine, detector_observer
    from vision.sources import VideoFileSource

    for seed in seeds:
        folder = root / f"seed{seed}"
        table = load_table(folder / "table.yaml")
        tracker, engine = build_engine(table, 10.0, by_position=True)
        inner, kept = detector_observer(table), []

        class Recorder:
            tracks_by_position = True

            def observe(self, frame):
                obs = inner.observe(frame)
                kept.append((frame.index, frame.t_s, obs.cards, obs.card_points, obs.chips, obs.card_marks))
                return obs

        run_engine(VideoFileSource(folder / "video.mp4"), Recorder(), engine, tracker)
        with open(folder / FILE, "wb") as fh:
            pickle.dump(kept, fh)
        print(f"seed {seed}: {len(kept)} analysed frames recorded", flush=True)


def replay(root: Path, seeds: list[str], by_position: bool) -> dict:
    from calibration.table import load_table
    from vision.report import build_report
    from vision.review_cli import build_engine
    from vision.scoring import score_video, summarise

    scores = []
    for seed in seeds:
        folder = root / f"seed{seed}"
        table = load_table(folder / "table.yaml")
        with open(folder / FILE, "rb") as fh:
            kept = pickle.load(fh)
        if not kept:
            continue
        tracker, engine = build_engine(table, 30.0, by_position=by_position)
        for index, t_s, cards, points, chips, marks in kept:
            engine.step(index, t_s, tracker.update(index, t_s, cards, chips, points, marks))
        engine.finish(kept[-1][0], kept[-1][1])
        report = json.loads(json.dumps(build_report("video.mp4", 30.0, kept[-1][0] + 1, table.id, engine, None),
                                       default=str))
        scores.append(score_video(json.loads((folder / "truth.json").read_text()), report, str(seed)))
    s = summarise(scores)
    return {"tracker": "by position" if by_position else "label multiset",
            **{k: s[k] for k in ("rounds", "rounds_right", "up_card_accuracy", "seat_first_two_accuracy",
                                 "seat_wagers_accuracy", "alerts_true", "alerts_reported", "alerts_hit")},
            "by_type": {k: v for k, v in s["by_type"].items() if v["reported"] or v["true"]}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["record", "replay"])
    ap.add_argument("root", type=Path)
    ap.add_argument("seeds", nargs="+")
    ap.add_argument("--labels", action="store_true", help="replay with the label-multiset tracker")
    a = ap.parse_args()
    if a.what == "record":
        record(a.root, a.seeds)
    else:
        print(json.dumps(replay(a.root, a.seeds, not a.labels)))


if __name__ == "__main__":
    main()
