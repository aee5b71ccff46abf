"""Read one kept round video's review against its truth, round by round, from the readings an earlier
`pitwatch eval review --keep DIR` wrote (no pixels read; the tracker and round engine as they are now).

    python scripts/review_trace.py KEEP SEED [--size 3840x2160] [--zones seat3 dealer --from 20 --to 35]

Prints each round of the truth beside the review's: up card, each seat's first two cards, wagers and expected
side-bet payouts (``XX`` where they differ), the truth's alerts (``T``) and the review's (``G``). With ``--zones``,
first the changes the tracker confirmed in those zones (prefixes) between ``--from`` and ``--to`` seconds, as the
round engine took them, with the events each gave: where a mend to the tracker or the engine starts.
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
from vision.scoring import _seat_key, pair_rounds  # noqa: E402


def traced(zones: list[str], t0: float, t1: float):
    """A ``RoundEngine._process`` that prints each change in ``zones`` (prefixes) between ``t0`` and ``t1`` s."""
    process = RoundEngine._process

    def process_and_print(self, ch, held_over=False):
        events = process(self, ch, held_over)
        if t0 <= ch.t_s <= t1 and any(ch.zone.startswith(z) for z in zones):
            label = f"{ch.label or ''}" + (f" (was {ch.previous})" if getattr(ch, "previous", None) else "")
            chips = f"{ch.before} -> {ch.after}" if ch.kind == "chips" else ""
            if ch.kind.startswith("stack_"):
                chips = (f"{ch.after} " if ch.after is not None else "") + f"at {tuple(round(v) for v in ch.position)}" \
                    + f" since {ch.since_t_s:.1f}"
            phase = self.current.phase if self.current else None
            print(f"{ch.t_s:7.2f} f{ch.frame:<5} {ch.kind:16s} {ch.zone:14s} {label}{chips}  [{phase}] "
                  f"{[e.kind for e in events]}")
        return events

    return process_and_print


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("keep", type=Path)
    ap.add_argument("seed", type=int)
    ap.add_argument("--size", default="3840x2160")
    ap.add_argument("--fps", type=float, default=10.0)
    ap.add_argument("--zones", nargs="*", default=[])
    ap.add_argument("--from", dest="t0", type=float, default=0.0)
    ap.add_argument("--to", dest="t1", type=float, default=1e9)
    a = ap.parse_args()
    width, height = parse_size(a.size)
    if a.zones:
        RoundEngine._process = traced(a.zones, a.t0, a.t1)
    script = script_video(RoundVideoOptions(seed=a.seed, fps=a.fps, width=width, height=height))
    truth = json.loads(json.dumps(script.truth()))
    report, _ = _replayed_review(script, a.keep / f"seed{a.seed}" / "review" / "observations.jsonl")
    for t, g in pair_rounds(truth["rounds"], report["rounds"]):
        got = "" if g is None else f" | review: r{g['index']} {g['start_s']}-{g['end_s']} up {g['dealer']['up']}"
        print(f"== round {t['index']} {t['start_s']}-{t['end_s']} up {t['dealer']['up']}{got}")
        seats = {s["seat"]: s for s in (g["seats"] if g else [])}
        for s in t["seats"]:
            want = _seat_key(s)
            have = _seat_key(seats[s["seat"]]) if s["seat"] in seats else None
            print(f" {'  ' if want == have else 'XX'} seat {s['seat']} truth {want}")
            if want != have:
                print(f"           review {have}")
        for x in t["alerts"]:
            print(f"    T {x['type']} seat {x['seat']} t {x['t_s']}")
        for x in g["alerts"] if g else []:
            print(f"    G {x['type']} seat {x['seat']} t {x['t_s']} (raised {x.get('raised_t_s')}) {x['message']}")
    for x in report.get("alerts", []):
        print(f"TABLE {x.get('type')} t {x.get('t_s')} {x.get('message', '')}")


if __name__ == "__main__":
    main()
