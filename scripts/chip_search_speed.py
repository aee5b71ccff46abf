"""What reading the base search's strips short saves: the committed chip side with its strip rows free (the runtime)
against the same graph with its rows fixed at 72 (as committed before the twenty-second session), in one process.

    python scripts/chip_search_speed.py                      # the bench's frames (every zone changed)
    python scripts/chip_search_speed.py VIDEO TABLE          # also `pitwatch review VIDEO --no-video`

With its rows fixed, the reader cuts every base's strip whole (:attr:`vision.chip_side.ChipSideReader.search_rows`);
free, it reads the coarse bases on their bottom :data:`vision.chip_side.SEARCH_ROWS` rows (their alignment only)
and the best one and the two half a step either side of it whole.  The two are run alternately, three times
each: the bench's three calibrated 1080p frames read 8 times each (median ms of the whole detection, 2 threads;
the chips read must be the same), and with a video a whole review with ``--no-video`` (seconds, and the review's
own frames-per-second line).  Needs ``onnx`` (the ``train`` extra) to write the fixed copy.  Model card, Speed,
twenty-second session.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.bench import bench_scene  # noqa: E402
from vision.chip_side import DEFAULT_CHIP_SIDE, STRIP_ROWS  # noqa: E402
from vision.detector import FrameReader  # noqa: E402


def fixed_rows_copy(model: Path, out: Path) -> Path:
    """``model`` with its strip rows fixed at :data:`STRIP_ROWS` (weights untouched)."""
    import onnx

    m = onnx.load(str(model))
    m.graph.input[0].type.tensor_type.shape.dim[2].dim_value = STRIP_ROWS
    onnx.save(m, str(out))
    return out


def frame_ms(model: Path, scenes, repeats: int = 8) -> tuple[float, list]:
    reader = FrameReader(threads=2, chip_side=model)
    times, values = [], []
    for _ in range(repeats):
        for image, view, _ in scenes:
            t = time.perf_counter()
            res = reader(image, view)
            times.append((time.perf_counter() - t) * 1000)
            values.append(sorted((r.count, r.value) for _, r in res.chips if r.value is not None))
    return statistics.median(times), values


def review_s(model: Path, video: str, table: str) -> tuple[float, str]:
    from typer.testing import CliRunner

    from api.cli import app

    t = time.perf_counter()
    result = CliRunner().invoke(app, ["review", video, "--table", table, "--out", tempfile.mkdtemp(), "--no-video",
                                      "--chip-side", str(model)])
    seconds = time.perf_counter() - t
    line = next((x for x in reversed(result.output.splitlines()) if "real time" in x), result.output[-200:])
    return seconds, line.strip()


if __name__ == "__main__":
    fixed = fixed_rows_copy(DEFAULT_CHIP_SIDE, Path(tempfile.mkdtemp()) / "chip_side_fixed_rows.onnx")
    models = {"rows fixed (whole strips)": fixed, "rows free (runtime)": DEFAULT_CHIP_SIDE}
    scenes = [bench_scene(seed) for seed in range(3)]
    ms: dict = {k: [] for k in models}
    read: dict = {}
    for _ in range(3):
        for name, model in models.items():
            t, values = frame_ms(model, scenes)
            ms[name].append(t)
            read[name] = values
            print(f"{name}: whole detection {t:.1f} ms", flush=True)
    a, b = (statistics.median(v) for v in ms.values())
    print(f"median of the runs: {a:.1f} ms against {b:.1f} ms ({a / b:.2f}x); the same chips read: "
          f"{read[next(iter(models))] == read['rows free (runtime)']}", flush=True)
    if len(sys.argv) == 3:
        secs: dict = {k: [] for k in models}
        for _ in range(2):
            for name, model in models.items():
                seconds, line = review_s(model, sys.argv[1], sys.argv[2])
                secs[name].append(seconds)
                print(f"{name}: review {seconds:.1f} s, {line}", flush=True)
        a, b = (statistics.median(v) for v in secs.values())
        print(f"review median {a:.1f} s against {b:.1f} s ({a / b:.2f}x)", flush=True)
