"""``pitwatch demo`` on the bundled sample: the review finds exactly the alerts the render's truth requires."""

import json

import pytest
from typer.testing import CliRunner

from api.cli import app
from api.demo import SAMPLE_ROUND


@pytest.mark.parametrize("readings", [[], ["--truth-readings"]], ids=["detector", "truth-readings"])
def test_demo_review_of_the_bundled_sample_matches_its_truth(tmp_path, readings):
    out = tmp_path / "demo"
    result = CliRunner().invoke(app, ["demo", "--out", str(out), "--no-video", *readings])
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    truth = json.loads((SAMPLE_ROUND / "truth.json").read_text())
    assert [(a["type"], a["seat"], a["expected"], a["observed"]) for r in report["rounds"] for a in r["alerts"]] == \
        [(a["type"], a["seat"], a["expected"], a["observed"]) for r in truth["rounds"] for a in r["alerts"]]
    assert [r["dealer"]["up"] for r in report["rounds"]] == [r["dealer"]["up"] for r in truth["rounds"]]
