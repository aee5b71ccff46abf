"""``pitwatch demo`` on the bundled sample: the review finds exactly the alerts the render's truth requires."""

import json

from typer.testing import CliRunner

from api.cli import app
from api.demo import SAMPLE_ROUND


def test_demo_review_of_the_bundled_sample_matches_its_truth(tmp_path):
    out = tmp_path / "demo"
    result = CliRunner().invoke(app, ["demo", "--out", str(out), "--no-video"])
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    truth = json.loads((SAMPLE_ROUND / "truth.json").read_text())
    assert [(a["type"], a["seat"]) for r in report["rounds"] for a in r["alerts"]] == \
        [(a["type"], a["seat"]) for r in truth["rounds"] for a in r["alerts"]]
    assert [r["dealer"]["up"] for r in report["rounds"]] == [r["dealer"]["up"] for r in truth["rounds"]]
