"""When each match-the-dealer settlement was seen against the round's first card beyond the initial deal, from the
readings an earlier `pitwatch eval review --keep DIR` wrote (no pixels read; the tracker and round engine as they are
now): the measure behind `vision.rounds.LATE_TOLERANCE_S`.

    python scripts/mtd_settlement_gaps.py KEEP 7170-7349 [--size 3840x2160] [--from -1.5]

Prints one line per settlement seen after a card beyond the deal was dealt, or at most ``--from`` seconds before it:
(seed, round, seat, seconds from the first extra card to the settlement, the zone it was seen in, whether the truth
calls it settled late), sorted by the gap. A collection is seen in the wager's zone (``seatN.mtd``), a payout in the
payout area.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from datasets.round_cli import parse_size  # noqa: E402
from datasets.rounds import RoundVideoOptions, script_video  # noqa: E402
from vision.review_cli import _replayed_review  # noqa: E402
from vision.rounds import RoundEngine  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("keep", type=Path)
    ap.add_argument("seeds", help="FIRST-LAST")
    ap.add_argument("--size", default="3840x2160")
    ap.add_argument("--fps", type=float, default=10.0)
    ap.add_argument("--from", dest="earliest", type=float, default=-1.5)
    a = ap.parse_args()
    first, last = map(int, a.seeds.split("-"))
    width, height = parse_size(a.size)
    rows: list[tuple] = []
    seed = first
    check_late = RoundEngine._check_late

    def recorded(self, r, s, bet, ch):
        if bet == "mtd" and r.first_extra_card_s is not None:
            rows.append((seed, r.index, s.seat, round(ch.t_s - r.first_extra_card_s, 2), ch.zone))
        return check_late(self, r, s, bet, ch)

    RoundEngine._check_late = recorded
    for seed in range(first, last + 1):
        log = a.keep / f"seed{seed}" / "review" / "observations.jsonl"
        if not log.is_file():
            continue
        script = script_video(RoundVideoOptions(seed=seed, fps=a.fps, width=width, height=height))
        truth = json.loads(json.dumps(script.truth()))
        late = {(r["index"], x["seat"]) for r in truth["rounds"] for x in r["alerts"] if x["type"] == "mtd_settled_late"}
        n = len(rows)
        _replayed_review(script, log)
        rows[n:] = [row + ((row[1], row[2]) in late,) for row in rows[n:]]
    for row in sorted(rows, key=lambda row: row[3]):
        if row[3] >= a.earliest:
            print(row)


if __name__ == "__main__":
    main()
