"""``pitwatch settle`` as the contracts describe it: JSON Lines in and out, errors in place, exit 2."""

import json
import subprocess
import sys

CONTRACT_LINE = {"game": "blackjack", "decks": 6, "dealer_up": "KH",
                 "profile": {"mtd_odds": {"unsuited": 4, "suited": 11}, "bonus_payout": {"1": 15, "5": 75}},
                 "seats": [{"seat": 3, "cards": ["KH", "7C"], "wagers": {"main": 25, "mtd": 5, "bonus": 1}}]}


def run_settle(text: str):
    return subprocess.run([sys.executable, "-m", "api.cli", "settle", "-"], input=text, capture_output=True,
                          text=True, check=False)


def test_the_contract_example_gives_the_contract_output():
    proc = run_settle(json.dumps(CONTRACT_LINE) + "\n")
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == {
        "seats": [{"seat": 3,
                   "mtd": {"outcome": "win", "payout": 55,
                           "matches": [{"card": "KH", "suited": True, "odds": "11 to 1", "payout": 55}]},
                   "bonus": {"outcome": "lose", "payout": 0},
                   "main": {"outcome": "open"}}],
        "violations": []}


def test_incompatible_wager_voids_both_side_bets_with_a_config_violation_each():
    line = json.loads(json.dumps(CONTRACT_LINE))
    line["profile"]["other_wagers"] = ["2.25"]
    out = json.loads(run_settle(json.dumps(line) + "\n").stdout)
    assert out["seats"][0]["mtd"] == {"outcome": "void"} and out["seats"][0]["bonus"] == {"outcome": "void"}
    assert sorted(v["rule"] for v in out["violations"]) == ["13:69F-2.20(l)", "13:69F-2.23(g)"]
    assert all(v["kind"] == "config" and v["seat"] is None for v in out["violations"])


def test_malformed_lines_get_an_error_in_place_and_exit_2():
    good = json.dumps(CONTRACT_LINE)
    bad_card = json.dumps({**CONTRACT_LINE, "dealer_up": "XX"})
    missing = json.dumps({k: v for k, v in CONTRACT_LINE.items() if k != "seats"})
    proc = run_settle("\n".join([good, "{not json", bad_card, missing, good]) + "\n")
    assert proc.returncode == 2
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert len(lines) == 5
    assert "seats" in lines[0] and "seats" in lines[4]
    assert "JSON" in lines[1]["error"] and "XX" in lines[2]["error"] and "seats" in lines[3]["error"]
    assert "Traceback" not in proc.stderr


def test_winning_bonus_from_a_posted_range_reports_min_and_max():
    line = {"game": "blackjack", "decks": 6, "dealer_up": "7D",
            "seats": [{"seat": 1, "cards": ["AS", "KH"], "wagers": {"main": 10, "bonus": 5}}]}
    out = json.loads(run_settle(json.dumps(line) + "\n").stdout)
    assert out["seats"][0]["bonus"] == {"outcome": "win", "payout_min": 50, "payout_max": 5000}


def test_switch_hands_half_dollar_payout_has_cents():
    line = {"game": "switch_hands", "decks": 6, "dealer_up": "AD", "dealer_hole": "KC",
            "seats": [{"seat": 1, "cards": ["AS", "KH"], "wagers": {"main": 25}}]}
    out = json.loads(run_settle(json.dumps(line) + "\n").stdout)
    assert out["seats"][0]["main"] == {"outcome": "win", "payout": 12.5}


def test_unreadable_file_is_exit_2_with_one_line():
    proc = subprocess.run([sys.executable, "-m", "api.cli", "settle", "/no/such/file.jsonl"], capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "cannot read" in proc.stderr
