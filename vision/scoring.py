"""Scoring a review against the truth of a rendered video (``truth.json``).

Rounds are paired by time overlap.  A round is *right* when, for every seat the
truth lists, the first two cards, the wagers and the expected side-bet payouts
match, and the dealer's up card matches.  It is *right or unvalued* when the only
differences are wagers the review reported as placed but not valued (``null``: the
camera could not count the stack, which the detector must say rather than guess)
and the side-bet payouts that follow from them: nothing the review claims is wrong.
Alerts are compared as sets of (round, type, seat) for precision and recall.
"""

from __future__ import annotations

from dataclasses import dataclass, field


def _overlap(a: dict, b: dict) -> float:
    a0, a1 = a["start_s"], a["end_s"] if a["end_s"] is not None else a["start_s"] + 1e9
    b0, b1 = b["start_s"], b["end_s"] if b["end_s"] is not None else b["start_s"] + 1e9
    return max(0.0, min(a1, b1) - max(a0, b0))


def pair_rounds(truth: list[dict], got: list[dict]) -> list[tuple[dict, dict | None]]:
    """Each truth round with the reported round overlapping it most (or ``None``)."""
    pairs = []
    used: set[int] = set()
    for t in truth:
        best, best_ov = None, 0.0
        for g in got:
            ov = _overlap(t, g)
            if ov > best_ov and g["index"] not in used:
                best, best_ov = g, ov
        if best is not None:
            used.add(best["index"])
        pairs.append((t, best))
    return pairs


def _hand(cards: list[str] | None) -> list[str] | None:
    """A seat's first two cards as a hand, in no order: the order in which a Switch Hands face-down pair,
    squared one on the other, was dealt cannot be seen, and the side bets do not depend on it (the dealing
    order is scored by its own alert)."""
    return None if cards is None else sorted(cards)


def _seat_key(s: dict) -> dict:
    # a wager the camera could not value is null: it never matches the truth's amount
    out = {"cards": _hand(s.get("cards")),
           "wagers": {k: None if v is None else float(v) for k, v in s.get("wagers", {}).items()}}
    for bet in ("mtd", "bonus"):
        if bet in s:
            out[bet] = s[bet].get("expected_payout")
    return out


def _only_unvalued_differ(mine: dict, truth: dict) -> bool:
    """``mine`` matches ``truth`` once each wager it reports placed but unvalued (and the payout expected on it, which
    cannot be worked out without its amount) is taken from ``truth``."""
    k, t = _seat_key(mine), _seat_key(truth)
    for wager, value in list(k["wagers"].items()):
        if value is None and wager in t["wagers"]:
            k["wagers"][wager] = t["wagers"][wager]
            if wager in ("mtd", "bonus") and wager in t:
                k[wager] = t[wager]
    return k == t


@dataclass
class VideoScore:
    """Scores of one video."""

    rounds: int = 0
    rounds_right: int = 0
    rounds_right_or_unvalued: int = 0  # right but for wagers reported placed and not valued (nothing claimed wrong)
    alerts_true: set = field(default_factory=set)
    alerts_got: set = field(default_factory=set)
    wrong: list = field(default_factory=list)
    up_right: int = 0            # rounds found whose dealer up card is right
    seats: int = 0               # seats in the truth's rounds
    seat_cards_right: int = 0    # of those, first two cards right (as a hand)
    seat_wagers_right: int = 0   # of those, every wager's amount right
    delays: list = field(default_factory=list)  # (video, round, type, seat, s): raised minus the truth's decidable moment
    table_alerts: int = 0        # the report's alerts outside any round

    @property
    def hits(self) -> int:
        return len(self.alerts_true & self.alerts_got)


def score_video(truth: dict, report: dict, video_id: str = "") -> VideoScore:
    """Compare one report with its truth (both in the contracts' report form)."""
    score = VideoScore()
    for t, g in pair_rounds(truth["rounds"], report["rounds"]):
        score.rounds += 1
        for a in t["alerts"]:
            score.alerts_true.add((video_id, t["index"], a["type"], str(a["seat"])))
        if g is None:
            score.wrong.append((video_id, t["index"], "round not found"))
            continue
        for a in g["alerts"]:
            score.alerts_got.add((video_id, t["index"], a["type"], str(a["seat"])))
            same = [x["t_s"] for x in t["alerts"] if x["type"] == a["type"] and str(x["seat"]) == str(a["seat"])]
            if same and a.get("raised_t_s") is not None:
                # truth's t_s is the first frame a correct monitor could decide at (datasets.faults)
                delay = round(a["raised_t_s"] - min(same, key=lambda x: abs(x - a["t_s"])), 3)
                score.delays.append((video_id, t["index"], a["type"], str(a["seat"]), delay))
        problems = []
        if t["dealer"]["up"] != g["dealer"]["up"]:
            problems.append(f"up card {g['dealer']['up']} != {t['dealer']['up']}")
        else:
            score.up_right += 1
        got_seats = {s["seat"]: s for s in g["seats"]}
        only_unvalued = not problems and all(
            s["seat"] in got_seats and _only_unvalued_differ(got_seats[s["seat"]], s) for s in t["seats"])
        score.rounds_right_or_unvalued += only_unvalued
        for s in t["seats"]:
            mine = got_seats.get(s["seat"])
            score.seats += 1
            if mine is not None:
                score.seat_cards_right += _hand(mine.get("cards")) == _hand(s.get("cards"))
                score.seat_wagers_right += _seat_key(mine)["wagers"] == _seat_key(s)["wagers"]
            if mine is None:
                problems.append(f"seat {s['seat']} missing")
            elif _seat_key(mine) != _seat_key(s):
                problems.append(f"seat {s['seat']}: {_seat_key(mine)} != {_seat_key(s)}")
        if problems:
            score.wrong.append((video_id, t["index"], "; ".join(problems)))
        else:
            score.rounds_right += 1
    # alerts of the table (a camera moved; a betting spot too flat to count, said once): the truth has none, and
    # they are no round's, so they are counted apart from the (round, type, seat) precision
    score.table_alerts = len(report.get("alerts", []))
    # alerts reported in rounds the truth does not have
    paired = {g["index"] for _, g in pair_rounds(truth["rounds"], report["rounds"]) if g is not None}
    for g in report["rounds"]:
        if g["index"] not in paired:
            for a in g["alerts"]:
                score.alerts_got.add((video_id, f"extra{g['index']}", a["type"], str(a["seat"])))
    return score


def _share(k: int, n: int) -> float | None:
    return round(k / n, 4) if n else None


def summarise(scores: list[VideoScore]) -> dict:
    """Totals over videos: round accuracy, alert precision and recall, and per-type counts."""
    rounds = sum(s.rounds for s in scores)
    right = sum(s.rounds_right for s in scores)
    true = set().union(*(s.alerts_true for s in scores)) if scores else set()
    got = set().union(*(s.alerts_got for s in scores)) if scores else set()
    hit = true & got
    delays = [d[-1] for s in scores for d in s.delays]
    late = sorted((d for s in scores for d in s.delays if d[-1] > 1.0), key=lambda d: -d[-1])
    by_type: dict[str, dict[str, int]] = {}
    for key in true | got:
        row = by_type.setdefault(key[2], {"true": 0, "reported": 0, "hit": 0})
        row["true"] += key in true
        row["reported"] += key in got
        row["hit"] += key in hit
    return {"videos": len(scores), "rounds": rounds, "rounds_right": right,
            "round_accuracy": round(right / rounds, 4) if rounds else None,
            "rounds_right_or_unvalued": sum(s.rounds_right_or_unvalued for s in scores),
            "up_card_accuracy": _share(sum(s.up_right for s in scores), rounds),
            "seat_first_two_accuracy": _share(sum(s.seat_cards_right for s in scores), sum(s.seats for s in scores)),
            "seat_wagers_accuracy": _share(sum(s.seat_wagers_right for s in scores), sum(s.seats for s in scores)),
            "alerts_true": len(true), "alerts_reported": len(got), "alerts_hit": len(hit),
            "precision": round(len(hit) / len(got), 4) if got else None,
            "recall": round(len(hit) / len(true), 4) if true else None,
            # the same without `unreadable` (the monitor saying it could not decide, never a fault claimed)
            "fault_precision": _share(len({a for a in hit if a[2] != "unreadable"}),
                                      len({a for a in got if a[2] != "unreadable"})),
            "unreadable_reported": len({a for a in got if a[2] == "unreadable"}),
            "table_alerts": sum(s.table_alerts for s in scores),
            "alert_delay_s": ({"median": round(sorted(delays)[len(delays) // 2], 3), "max": max(delays),
                               "over_1s": sum(d > 1.0 for d in delays), "n": len(delays)} if delays else None),
            "by_type": dict(sorted(by_type.items())),
            "missed": sorted(map(str, true - got))[:50], "false": sorted(map(str, got - true))[:50],
            "wrong_rounds": [w for s in scores for w in s.wrong][:50],
            "late_alerts": [list(d) for d in late[:50]]}
