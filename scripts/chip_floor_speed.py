"""What reading thin chip sides costs: the chip-side floor at 2 and at 1.6 px per chip, in one process.

    python scripts/chip_floor_speed.py                      # the bench's frames (every zone changed)
    python scripts/chip_floor_speed.py VIDEO TABLE          # also `pitwatch review VIDEO --no-video`

The floor (:data:`vision.chips.MIN_PX_PER_CHIP`) is set for each run, alternating, twice each: the bench's three
calibrated 1080p frames read 8 times each (median ms of the whole detection, 2 threads), and with a video, a whole
review with ``--no-video`` (seconds, and the review's own frames-per-second line).  Model card, Speed, nineteenth
session.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.chips as chips  # noqa: E402
from vision.bench import bench_scene  # noqa: E402
from vision.detector import FrameReader  # noqa: E402

FLOORS = (2.0, 1.6)


def frame_ms(floor: float, scenes, repeats: int = 8) -> float:
    chips.MIN_PX_PER_CHIP = floor
    reader = FrameReader(threads=2)  # a new reader: its spots' countability is cached per table
    times = []
    for _ in range(repeats):
        for image, view, _ in scenes:
            t = time.perf_counter()
            reader(image, view)
            times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def review_s(floor: float, video: str, table: str) -> tuple[float, str]:
    from typer.testing import CliRunner

    from api.cli import app

    chips.MIN_PX_PER_CHIP = floor
    t = time.perf_counter()
    result = CliRunner().invoke(app, ["review", video, "--table", table, "--out", tempfile.mkdtemp(), "--no-video"])
    seconds = time.perf_counter() - t
    line = next((x for x in reversed(result.output.splitlines()) if "real time" in x), result.output[-200:])
    return seconds, line.strip()


if __name__ == "__main__":
    scenes = [bench_scene(seed) for seed in range(3)]
    for _ in range(2):
        for floor in FLOORS:
            print(f"floor {floor} px per chip: whole detection {frame_ms(floor, scenes):.1f} ms", flush=True)
    if len(sys.argv) == 3:
        for _ in range(2):
            for floor in FLOORS:
                seconds, line = review_s(floor, sys.argv[1], sys.argv[2])
                print(f"floor {floor} px per chip: review {seconds:.1f} s, {line}", flush=True)
