"""Throughput of ``pitwatch settle``: N random rounds, timed end to end, median of several runs.

Usage: python scripts/bench_settle.py [--rounds 100000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from rules.cards import CARD_LABELS  # noqa: E402


def make_rounds(n: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    profiles = [("blackjack", 6, {"mtd_odds": {"unsuited": 4, "suited": 11}, "bonus_payout": {"1": 15, "5": 75}}),
                ("blackjack", 8, {"bonus_payout": {"1": 16, "5": 80}}), ("spanish21", 6, {"mtd_max": 100}),
                ("switch_hands", 6, {})]
    no_tens = [c for c in CARD_LABELS if not c.startswith("10")]
    lines = []
    for _ in range(n):
        game, decks, profile = rng.choice(profiles)
        deck = no_tens if game == "spanish21" else CARD_LABELS
        seats = []
        for seat in sorted(rng.sample(range(1, 8), rng.randint(1, 7))):
            wagers = {"main": rng.choice([10, 25, 100])}
            if game != "switch_hands":
                wagers["mtd"] = rng.choice([5, 10, 25])
            if game == "blackjack":
                wagers["bonus"] = rng.choice([1, 5])
            seats.append({"seat": seat, "cards": [rng.choice(deck), rng.choice(deck)], "wagers": wagers})
        line = {"game": game, "decks": decks, "dealer_up": rng.choice(deck), "profile": profile, "seats": seats}
        if rng.random() < 0.5:
            line["dealer_hole"] = rng.choice(deck)
        lines.append(json.dumps(line))
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    exe = Path(sys.executable).with_name("pitwatch")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rounds.jsonl"
        path.write_text(make_rounds(args.rounds))
        times = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            proc = subprocess.run([str(exe), "settle", str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            times.append(time.perf_counter() - t0)
            if proc.returncode != 0:
                raise SystemExit(f"settle failed: {proc.stderr.decode()[:300]}")
    med = statistics.median(times)
    print(json.dumps({"rounds": args.rounds, "runs_s": [round(t, 2) for t in times], "median_s": round(med, 2),
                      "rounds_per_s": round(args.rounds / med)}))


if __name__ == "__main__":
    main()
