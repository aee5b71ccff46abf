"""Scripted round videos: the truth follows the regulations, and each alert is where a monitor can see it.

These tests read the table states the video is drawn from (no pixels), so they are fast.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.faults import FAULT_KINDS, FaultKindError, parse_fault_kinds
from datasets.round_cli import json_text
from datasets.rounds import (
    GAME_SIDE_BETS,
    RoundOptionsError,
    RoundVideoOptions,
    _zone_image_polygon,
    chip_layers,
    script_video,
    stack_value,
)
from rules.cards import parse_card
from rules.dealing import check_dealing_order, expected_deal_order
from rules.hands import is_blackjack
from rules.settle import SeatHand, settle_round

REPO = Path(__file__).resolve().parents[1]


def _script(seed: int, **kw):
    return script_video(RoundVideoOptions(seed=seed, **kw))


def _state(script, frame: int):
    return script.timeline.state_at(frame / script.fps)


def _value(state, zone: str) -> int:
    return sum(s.value for s in state.chips if s.zone == zone)


def _hand_over(script, state, zone: str) -> bool:
    z = _zone_image_polygon(script.layout, script.camera, zone)
    for hand in state.hands:
        poly = np.asarray(hand.polygon, float)
        px = script.camera.project(np.column_stack([poly, np.full(len(poly), -hand.height_mm)]))
        hull = cv2.convexHull(px.astype(np.float32)).reshape(-1, 2)
        if cv2.intersectConvexConvex(hull, z)[0] > 1.0:
            return True
    return False


def _round_frames(script, rnd):
    fps = script.fps
    return range(round(rnd["start_s"] * fps), round(rnd["end_s"] * fps) + 1)


def _first_card_frame(script, rnd) -> int:
    for f in _round_frames(script, rnd):
        st = _state(script, f)
        if any(c.zone and (c.zone.endswith(".cards")) for c in st.cards):
            return f
    raise AssertionError("no card was dealt")


# -- determinism and form ------------------------------------------------------------------------

def test_same_seed_gives_byte_identical_truth_across_processes(tmp_path):
    code = ("import sys; from datasets.rounds import script_video, RoundVideoOptions; "
            "from datasets.round_cli import json_text; "
            "sys.stdout.write(json_text(script_video(RoundVideoOptions(seed=1234, rounds=4)).truth()))")
    outs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        outs.append(subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True,
                                   check=True).stdout)
    assert outs[0] == outs[1]
    assert outs[0] == json_text(_script(1234, rounds=4).truth()).encode()


def test_different_seeds_give_different_rounds():
    assert _script(1).truth()["rounds"] != _script(2).truth()["rounds"]


def test_truth_has_the_report_form():
    for seed in range(6):
        script = _script(seed)
        truth = script.truth()
        assert list(truth)[:5] == ["video", "fps", "frames", "table", "rounds"]
        assert truth["video"] == "video.mp4" and truth["table"] == f"synth-{seed}"
        assert truth["frames"] == script.frames > 0
        for i, rnd in enumerate(truth["rounds"]):
            assert rnd["index"] == i and 0 <= rnd["start_s"] < rnd["end_s"] <= truth["frames"] / truth["fps"]
            assert rnd["dealer"]["up"] == rnd["dealer"]["cards"][0] and len(rnd["dealer"]["cards"]) >= 2
            seats = [s["seat"] for s in rnd["seats"]]
            assert seats == sorted(seats) and seats
            for s in rnd["seats"]:
                assert len(s["cards"]) == 2
                assert ("switched" in s) == (script.game == "switch_hands")
                assert set(s["wagers"]) <= {"main", "mtd", "bonus"} and "main" in s["wagers"]
                for kind in ("mtd", "bonus"):
                    assert (kind in s) == (kind in s["wagers"])
                    if kind in s:
                        assert set(s[kind]) == {"outcome", "expected_payout", "observed_payout"}
            for a in rnd["alerts"]:
                assert a["type"] in FAULT_KINDS
                assert a["t_s"] == round(a["frame"] / truth["fps"], 3)
                assert rnd["start_s"] <= a["t_s"] <= rnd["end_s"]


def test_rounds_follow_each_other_and_the_video_holds_them_all():
    truth = _script(5, rounds=4).truth()
    ends = [(r["start_s"], r["end_s"]) for r in truth["rounds"]]
    assert all(a[1] < b[0] for a, b in zip(ends, ends[1:]))
    assert ends[-1][1] < truth["frames"] / truth["fps"]


# -- options -------------------------------------------------------------------------------------

def test_seed_picks_game_decks_tilt_unless_fixed():
    games = {_script(s, rounds=1, faults=()).game for s in range(12)}
    assert games == {"blackjack", "spanish21", "switch_hands"}
    script = _script(3, rounds=1, game="spanish21", decks=6, tilt_deg=20.0, faults=())
    assert (script.game, script.decks, script.tilt_deg) == ("spanish21", 6, 20.0)
    for s in range(12):
        sc = _script(s, rounds=1, faults=())
        assert sc.decks in (6, 8) and 15 <= sc.tilt_deg <= 35


def test_camera_covers_about_1_3_m_and_every_seat_played_is_in_view():
    from datasets.rounds import seats_in_view

    for seed in range(8):
        script = _script(seed)
        cam = script.camera
        visible = seats_in_view(script.layout, cam)
        for rnd in script.truth()["rounds"]:
            assert {s["seat"] for s in rnd["seats"]} <= set(visible)
        # felt width spanned by the image's middle row
        H = cam.homography()
        Hinv = np.linalg.inv(H)
        row = np.array([[0, cam.height / 2, 1.0], [cam.width, cam.height / 2, 1.0]]) @ Hinv.T
        row = row[:, :2] / row[:, 2:]
        assert 1200 <= float(np.linalg.norm(row[1] - row[0])) <= 1800


@pytest.mark.parametrize("kw, words", [
    (dict(game="blackjack", decks=4), "six- or eight-deck"),
    (dict(game="spanish21", decks=2), "six- or eight-deck"),
    (dict(game="holdem"), "unknown game"),
    (dict(game="switch_hands", faults=("bonus_underpaid",)), "offers no wager"),
    (dict(fps=0), "--fps"),
    (dict(rounds=0), "--rounds"),
    (dict(tilt_deg=75.0), "--tilt"),
])
def test_bad_options_are_refused_with_a_clear_message(kw, words):
    with pytest.raises((RoundOptionsError, FaultKindError), match=words):
        _script(1, **kw)


def test_fault_kinds_parse():
    assert parse_fault_kinds("none") == ()
    assert parse_fault_kinds(None) is None and parse_fault_kinds("all") is None
    assert parse_fault_kinds("pinching, mtd_underpaid") == ("mtd_underpaid", "pinching")
    with pytest.raises(FaultKindError, match="unknown fault kind 'mtd_stolen'"):
        parse_fault_kinds("mtd_stolen")


# -- the cards -----------------------------------------------------------------------------------

def _all_cards(script) -> Counter:
    return Counter(str(card) for plan in script.rounds
                   for card in [c for _, c in plan.deal] + [h for sp in plan.seats for h in sp.hits]
                   + plan.dealer_cards[2:])


@pytest.mark.parametrize("game", ["blackjack", "spanish21", "switch_hands"])
def test_no_card_appears_more_often_than_its_shoe_holds_it(game):
    script = _script(77, rounds=8, game=game, decks=6)
    counts = _all_cards(script)
    assert max(counts.values()) <= 6
    if game == "spanish21":
        assert not [c for c in counts if c.startswith("10")]
    # what the video shows is what was dealt
    shown = Counter()
    for tr in script.timeline.tracks:
        if tr.kind == "card":
            shown[tr.label] += 1
    assert shown == counts


def test_spanish21_never_shows_a_ten():
    for seed in range(10):
        script = _script(seed, game="spanish21", rounds=3)
        assert not [tr.label for tr in script.timeline.tracks if tr.kind == "card" and tr.label.startswith("10")]


def test_deal_follows_the_standard_order_in_clean_rounds():
    script = _script(8, game="blackjack", faults=(), rounds=3)
    for plan in script.rounds:
        seats = [sp.seat for sp in plan.seats]
        assert [ev for ev, _ in plan.deal] == expected_deal_order("standard", seats, False)


def test_switch_hands_burns_a_card_after_a_new_shoe_only():
    script = _script(9, game="switch_hands", faults=(), rounds=3)
    burns = [plan.deal[0][0].recipient == "burn" for plan in script.rounds]
    assert burns == [True, False, False]
    for plan in script.rounds:
        events = [ev for ev, _ in plan.deal]
        assert check_dealing_order(events, [sp.seat for sp in plan.seats], "switch_hands", plan.burn_expected,
                                   complete=True) is None


def test_switch_hands_truth_lists_the_kept_pair_and_the_switched_pair():
    script = _script(9, game="switch_hands", faults=(), rounds=3)
    for plan, rnd in zip(script.rounds, script.truth()["rounds"]):
        for sp, s in zip(plan.seats, rnd["seats"]):
            down, up = [str(c) for c in sp.dealt[:2]], [str(c) for c in sp.dealt[2:4]]
            assert sorted([s["cards"], s["switched"]]) == sorted([down, up])


def test_expected_payouts_come_from_the_rules_engine():
    for seed in range(10):
        script = _script(seed)
        for plan, rnd in zip(script.rounds, script.truth()["rounds"]):
            hands = [SeatHand(s["seat"], tuple(parse_card(c) for c in s["cards"]), s["wagers"],
                              tuple(parse_card(c) for c in s["hits"])) for s in rnd["seats"]]
            dealer = [parse_card(c) for c in rnd["dealer"]["cards"]]
            res = settle_round(script.profile, dealer[0], hands, dealer_cards=dealer)
            for s in rnd["seats"]:
                for kind in ("mtd", "bonus"):
                    if kind in s:
                        r = res.seat(s["seat"]).result(kind)
                        assert s[kind]["outcome"] == r.outcome
                        assert s[kind]["expected_payout"] == (None if r.payout is None else
                                                              (int(r.payout) if r.payout.denominator == 1 else
                                                               round(float(r.payout), 2)))


# -- clean rounds look right to a monitor ------------------------------------------------------------

def _first_extra_card_frame(script, rnd) -> int | None:
    """First frame with a third card on a seat, or a third on the dealer's zone."""
    for f in _round_frames(script, rnd):
        st = _state(script, f)
        per = Counter(c.zone for c in st.cards if c.zone)
        if any(n >= 3 for z, n in per.items() if z.endswith(".cards")):
            return f
    return None


@pytest.mark.parametrize("game", ["blackjack", "spanish21"])
def test_clean_rounds_settle_side_bets_before_any_further_card(game):
    checked = 0
    for seed in (21, 22, 23):
        script = _script(seed, game=game, faults=(), rounds=4)
        for plan, rnd in zip(script.rounds, script.truth()["rounds"]):
            first = _first_card_frame(script, rnd)
            extra = _first_extra_card_frame(script, rnd)
            for s in rnd["seats"]:
                spot_values = {k: _value(_state(script, first), f"seat{s['seat']}.{k}") for k in s["wagers"]}
                assert spot_values == s["wagers"]  # wagers as they stood at the first card
                if extra is None or "mtd" not in s:
                    continue
                before = _state(script, extra - 1)
                if s["mtd"]["outcome"] == "lose":
                    assert _value(before, f"seat{s['seat']}.mtd") == 0  # collected before the further card
                else:
                    assert _value(before, f"seat{s['seat']}.payout") == s["mtd"]["expected_payout"]
                checked += 1
    assert checked


def test_bonus_winner_cards_go_under_the_bonus_wager_and_are_paid_after_the_round():
    for seed in range(200):
        script = _script(seed, game="blackjack", faults=("bonus_overpaid",), rounds=3)
        plan = next(p for p in script.rounds if p.fault)
        rnd = script.truth()["rounds"][plan.index]
        seat = plan.fault.seat
        a = rnd["alerts"][0]
        st = _state(script, a["frame"])
        assert _value(st, f"seat{seat}.bonus") == plan.seat(seat).wagers["bonus"]
        under = [c.card for c in st.cards if c.zone == f"seat{seat}.bonus"]
        assert sorted(under) == sorted(rnd["seats"][[s["seat"] for s in rnd["seats"]].index(seat)]["cards"])
        assert is_blackjack([parse_card(c) for c in under])
        # paid after every main wager is settled: no main wager of a loser is left on the felt
        for s in rnd["seats"]:
            res = plan.settlement.seat(s["seat"]).main
            if res.outcome == "lose":
                assert _value(st, f"seat{s['seat']}.main") == 0
        return
    pytest.fail("no seed gave a bonus winner")


# -- each fault is injected, and its alert sits where a monitor can decide it --------------------------

def _fault_round(kind: str, game: str | None = None, start: int = 0):
    for seed in range(start, start + 60):
        script = _script(seed, faults=(kind,), game=game)
        for plan, rnd in zip(script.rounds, script.truth()["rounds"]):
            if plan.fault and rnd["alerts"]:
                return script, plan, rnd
    raise AssertionError(f"no {kind} round in 60 seeds")


def test_about_one_round_in_three_has_a_fault():
    faulty = total = 0
    for seed in range(30):
        script = _script(seed, rounds=3)
        faulty += sum(1 for p in script.rounds if p.fault)
        total += len(script.rounds)
    assert 0.25 <= faulty / total <= 0.45


def test_no_faults_means_no_alerts():
    for seed in range(10):
        assert not any(r["alerts"] for r in _script(seed, faults=()).truth()["rounds"])


@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_every_fault_kind_raises_its_alert(kind):
    script, plan, rnd = _fault_round(kind)
    assert {a["type"] for a in rnd["alerts"]} == {kind}
    others = [r for p, r in zip(script.rounds, script.truth()["rounds"]) if not p.fault]
    assert not any(r["alerts"] for r in others)


@pytest.mark.parametrize("kind", ["mtd_underpaid", "mtd_overpaid", "bonus_underpaid", "bonus_overpaid"])
def test_wrong_payout_alert_comes_when_the_payout_stands_uncovered(kind):
    script, plan, rnd = _fault_round(kind)
    a = rnd["alerts"][0]
    seat, zone = a["seat"], f"seat{a['seat']}.payout"
    entry = next(s for s in rnd["seats"] if s["seat"] == seat)
    wager = kind.split("_")[0]
    assert entry[wager]["outcome"] == "win"
    assert a["expected"] == entry[wager]["expected_payout"] != a["observed"] == entry[wager]["observed_payout"]
    assert (a["observed"] < a["expected"]) == kind.endswith("underpaid")
    st = _state(script, a["frame"])
    values = sorted(s.value for s in st.chips if s.zone == zone)
    assert a["observed"] in values and not _hand_over(script, st, zone)
    before = _state(script, a["frame"] - 1)
    assert _hand_over(script, before, zone) or a["observed"] not in [s.value for s in before.chips if s.zone == zone]


@pytest.mark.parametrize("kind", ["mtd_not_collected", "bonus_not_collected"])
def test_uncollected_wager_alert_comes_when_the_cards_are_picked_up(kind):
    script, plan, rnd = _fault_round(kind)
    a = rnd["alerts"][0]
    wager = kind.split("_")[0]
    entry = next(s for s in rnd["seats"] if s["seat"] == a["seat"])
    assert entry[wager]["outcome"] == "lose" and a["expected"] == entry["wagers"][wager] and a["observed"] == 0
    st = _state(script, a["frame"])
    assert _value(st, f"seat{a['seat']}.{wager}") == entry["wagers"][wager]
    assert not [c for c in st.cards if c.zone]  # every card picked up
    extra = _first_extra_card_frame(script, rnd)
    if extra is not None:  # still there when further cards came
        assert _value(_state(script, extra), f"seat{a['seat']}.{wager}") == entry["wagers"][wager]


def test_late_settlement_alerts_every_mtd_seat_after_a_hit():
    script, plan, rnd = _fault_round("mtd_settled_late")
    mtd_seats = [s["seat"] for s in rnd["seats"] if "mtd" in s]
    assert sorted(a["seat"] for a in rnd["alerts"]) == mtd_seats
    extra = _first_extra_card_frame(script, rnd)
    assert extra is not None
    for a in rnd["alerts"]:
        assert a["frame"] > extra
        entry = next(s for s in rnd["seats"] if s["seat"] == a["seat"])
        st = _state(script, a["frame"])
        if entry["mtd"]["outcome"] == "lose":
            assert _value(_state(script, extra), f"seat{a['seat']}.mtd") == entry["wagers"]["mtd"]
            assert _value(st, f"seat{a['seat']}.mtd") == 0
        else:
            assert _value(st, f"seat{a['seat']}.payout") == entry["mtd"]["observed_payout"]


@pytest.mark.parametrize("kind", ["past_posting", "pinching"])
def test_changed_wager_alert_comes_when_the_players_hand_has_left(kind):
    script, plan, rnd = _fault_round(kind)
    a = rnd["alerts"][0]
    zone = f"seat{a['seat']}.{a['wager']}"
    entry = next(s for s in rnd["seats"] if s["seat"] == a["seat"])
    assert a["expected"] == entry["wagers"][a["wager"]]
    assert (a["observed"] > a["expected"]) == (kind == "past_posting")
    first = _first_card_frame(script, rnd)
    assert _value(_state(script, first), zone) == a["expected"] and a["frame"] > first
    st = _state(script, a["frame"])
    assert _value(st, zone) == a["observed"] and not _hand_over(script, st, zone)


def test_over_limit_alert_comes_with_the_first_card():
    for game in ("blackjack", "spanish21", "switch_hands"):
        script, plan, rnd = _fault_round("wager_over_limit", game=game)
        a = rnd["alerts"][0]
        entry = next(s for s in rnd["seats"] if s["seat"] == a["seat"])
        assert a["observed"] == entry["wagers"][a["wager"]] and a["observed"] > a["expected"]
        assert a["frame"] >= _first_card_frame(script, rnd)
        if a["wager"] in ("mtd", "bonus"):
            assert entry[a["wager"]]["outcome"] == "void"


def test_dealing_order_alert_names_the_recipient_of_the_out_of_order_card():
    seen = set()
    for start in (0, 60, 120):
        script, plan, rnd = _fault_round("dealing_order", start=start)
        a = rnd["alerts"][0]
        events = [ev for ev, _ in plan.deal]
        v = check_dealing_order(events, [sp.seat for sp in plan.seats], plan.order, plan.burn_expected, True)
        assert a["seat"] == v.recipient and a["observed"] == v.observed.recipient
        zone = "dealer.cards" if a["seat"] == "dealer" else f"seat{a['seat']}.cards"
        st = _state(script, a["frame"])
        assert [c for c in st.cards if c.zone == zone] and not _hand_over(script, st, zone)
        seen.add(plan.fault.variant)
    assert seen


# -- chips ---------------------------------------------------------------------------------------

def test_chip_stacks_add_up():
    for amount in (1, 5, 10, 35, 55, 75, 150, 1000, 1350):
        layers = chip_layers(amount, [1, 5, 25, 100, 500, 1000])
        assert stack_value(layers) == amount
        assert [l.denomination for l in layers] == sorted((l.denomination for l in layers), reverse=True)
    with pytest.raises(ValueError):
        chip_layers(Fraction(15, 2), [1, 5, 25])


def test_side_bets_follow_the_layout():
    for game, bets in GAME_SIDE_BETS.items():
        script = _script(4, game=game, rounds=2, faults=())
        wagered = {k for r in script.truth()["rounds"] for s in r["seats"] for k in s["wagers"]}
        assert wagered - {"main"} <= set(bets)
        assert script.profile.config_violations() == []


def test_switch_hands_face_down_pair_kept_is_turned_over_with_both_cards_readable():
    # 2B.6(f): the dealer turns over the face-down pair kept. Dealt face down the pair lies nearly squared; turned
    # over so, the second card would hide the first one's indices from the player and the camera alike.
    from datasets.render import render_frame

    script = _script(7257, game="switch_hands", faults=(), rounds=3, width=960, height=540)
    checked = 0
    for plan, rnd in zip(script.rounds, script.round_truth):
        for sp in plan.seats:
            if sp.kept != "down":
                continue
            kept = sorted(str(c) for c in sp.first_two)
            zone = f"seat{sp.seat}.cards"
            for t in np.arange(rnd["start_s"], rnd["end_s"], 0.1):
                state = script.timeline.state_at(float(t))
                on_spot = [c for c in state.cards if c.zone == zone]
                if len(on_spot) == 2 and all(c.face_up for c in on_spot) and sorted(c.card for c in on_spot) == kept \
                        and not _hand_over(script, state, zone):
                    break
            else:
                pytest.fail(f"seat {sp.seat}: the pair kept never lies face up alone on its spot")
            res = render_frame(script.layout, state, script.camera)
            # turned as dealt, the first card's index by the second showed only half (0.46-0.54)
            shown = {c.card: min(c.index_visible) for c in res.cards if c.card in kept and c.index_visible}
            assert len(shown) == 2 and min(shown.values()) > 0.9, (sp.seat, shown)
            checked += 1
    assert checked
