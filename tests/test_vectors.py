"""Every case of ../shared/spec/vectors.json through ``pitwatch settle`` (one process for all)."""

import json
import subprocess
import sys

import pytest

WAGER_OF_GAME = {"blackjack_mtd": "mtd", "spanish21_mtd": "mtd", "blackjack_bonus": "bonus", "switch_hands": "main"}
VIOLATION_OF_OUTCOME = {"config_violation": "config", "reject_wager": "wager", "invalid_card": "card"}


def settle_line_for(case: dict) -> dict:
    """Adapter from the vectors' schema to the contracts' settle input line."""
    table = case.get("table", {})
    kind = WAGER_OF_GAME[case["game"]]
    game = {"blackjack_mtd": "blackjack", "spanish21_mtd": "spanish21", "blackjack_bonus": "blackjack",
            "switch_hands": "switch_hands"}[case["game"]]
    profile = {}
    if "posted_odds" in case:
        profile["mtd_odds"] = case["posted_odds"]
    if "posted_max" in table:
        profile["mtd_max"] = table["posted_max"]
    if "bonus_payout" in table:
        profile["bonus_payout"] = table["bonus_payout"]
    if "other_wagers_offered" in table:
        profile["other_wagers"] = table["other_wagers_offered"]
    wagers = {kind: case["wager"]}
    if "main_wager" in case:
        wagers["main"] = case["main_wager"]
    line = {"game": game, "decks": case["decks"], "dealer_up": case["dealer_up"], "profile": profile,
            "seats": [{"seat": 1, "cards": case["player_cards"], "wagers": wagers}]}
    if "dealer_hole" in case:
        line["dealer_hole"] = case["dealer_hole"]
    return line


@pytest.fixture(scope="module")
def settled(shared_dir):
    vectors = json.loads((shared_dir / "spec" / "vectors.json").read_text())
    cases = vectors["cases"]
    text = "".join(json.dumps(settle_line_for(c)) + "\n" for c in cases)
    proc = subprocess.run([sys.executable, "-m", "api.cli", "settle", "-"], input=text, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    outputs = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(outputs) == len(cases)
    return list(zip(cases, outputs))


def test_every_vector_settles_as_expected(settled):
    failures = []
    for case, out in settled:
        kind = WAGER_OF_GAME[case["game"]]
        result = out["seats"][0][kind]
        expected = case["expected_outcome"]
        if expected in ("win", "lose"):
            ok = result["outcome"] == expected and result.get("payout") == case["expected_payout"]
        else:
            kinds = {v["kind"] for v in out["violations"]}
            ok = result["outcome"] == "void" and VIOLATION_OF_OUTCOME[expected] in kinds and "payout" not in result
        if not ok:
            failures.append((case["id"], expected, case["expected_payout"], result, out["violations"]))
    assert not failures, failures


def test_violations_cite_the_vectors_section(settled):
    for case, out in settled:
        for v in out["violations"]:
            assert v["rule"].startswith(case["rule_ref"].split("(")[0].rsplit(".", 1)[0]), (case["id"], v)
