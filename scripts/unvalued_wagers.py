"""The wagers a review left unvalued, each with the pixels per chip its betting spot shows (the camera's geometry), from
the reports an earlier `pitwatch eval review --keep DIR` wrote (or replayed).

    python scripts/unvalued_wagers.py KEEP 7170-7349

Prints one line per wager the truth values and the review left unvalued (seed, round, seat, wager, dollars, px per
chip at the spot's centre, whether that is under :data:`vision.chips.MIN_PX_PER_CHIP`, the floor below which no stack
is counted), then how many rounds have only such wagers wrong and how many of those only below the floor: those no
chip reader can value from that camera.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.chips import MIN_PX_PER_CHIP, chip_geometry  # noqa: E402
from vision.detector import load_table_view  # noqa: E402
from vision.scoring import _only_unvalued_differ, _seat_key, pair_rounds  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("keep", type=Path)
    ap.add_argument("seeds", help="FIRST-LAST")
    a = ap.parse_args()
    first, last = map(int, a.seeds.split("-"))
    rounds = below = 0
    for seed in range(first, last + 1):
        folder = a.keep / f"seed{seed}"
        if not (folder / "review" / "report.json").is_file():
            continue
        truth = json.loads((folder / "truth.json").read_text())
        report = json.loads((folder / "review" / "report.json").read_text())
        view = load_table_view(folder / "table.yaml")
        for t, g in pair_rounds(truth["rounds"], report["rounds"]):
            if g is None or t["dealer"]["up"] != g["dealer"]["up"]:
                continue
            got = {s["seat"]: s for s in g["seats"]}
            wrong = [s for s in t["seats"] if s["seat"] not in got or _seat_key(got[s["seat"]]) != _seat_key(s)]
            if not wrong or not all(s["seat"] in got and _only_unvalued_differ(got[s["seat"]], s) for s in wrong):
                continue
            floors = []
            for s in wrong:
                for wager, value in s["wagers"].items():
                    if got[s["seat"]]["wagers"].get(wager, 0) is not None:
                        continue
                    spot = view.layout.zone(f"seat{s['seat']}.{wager}").circle.center
                    px = float(chip_geometry(view.camera, (float(spot[0]), float(spot[1])))[0])
                    floors.append(px < MIN_PX_PER_CHIP)
                    print((seed, t["index"], s["seat"], wager, value, round(px, 2), px < MIN_PX_PER_CHIP))
            rounds += 1
            below += bool(floors) and all(floors)
    print(f"{rounds} rounds wrong only by wagers left unvalued; {below} of them only by wagers on spots under "
          f"{MIN_PX_PER_CHIP} px per chip")


if __name__ == "__main__":
    main()
