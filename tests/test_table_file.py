"""The table file: id, layout, calibration, profile, chips, source, with paths relative to it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.camera import PinholeCamera
from calibration.layout import LAYOUT_DIR, builtin_layout
from calibration.table import TableFileError, load_table, write_table_file

PROFILE = {"game": "blackjack", "decks": 6, "side_bets": ["mtd", "bonus"],
           "mtd_odds": {"unsuited": 4, "suited": 11}, "bonus_payout": {"1": 15, "5": 75}}


def _calibration(layout_id: str = "blackjack-7-mtd-bonus") -> dict:
    cam = PinholeCamera.looking_at((950, 550), 25, 0, 1920, 1080, 1300)
    return {"layout": layout_id, "image_size": [1920, 1080], "homography": cam.homography().tolist(),
            "reprojection_error_mm": 0}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "bj.yaml").write_text((LAYOUT_DIR / "blackjack-7-mtd-bonus.yaml").read_text())
    (tmp_path / "cal.json").write_text(json.dumps(_calibration()))
    return tmp_path


def _write(folder: Path, **fields) -> Path:
    data = {"id": "bj-07", "layout": "layouts/bj.yaml", "calibration": "cal.json", "profile": PROFILE,
            "chips": {"white": 1, "red": 5, "green": 25, "black": 100}}
    data.update(fields)
    data = {k: v for k, v in data.items() if v is not None}
    return write_table_file(folder / "table.yaml", data)


def test_a_table_file_names_layout_calibration_profile_and_chips(folder):
    table = load_table(_write(folder, source="rtsp://cam7/stream"))
    assert table.id == "bj-07"
    assert table.layout.id == "blackjack-7-mtd-bonus" and table.layout_path == folder / "layouts" / "bj.yaml"
    assert table.profile.decks == 6 and table.profile.effective_mtd_odds().suited == 11
    assert table.chipset.denomination("green") == 25
    cal = table.require_calibration()
    assert cal.image_size == (1920, 1080) and np.allclose(cal.homography, _calibration()["homography"])
    assert table.source_location() == "rtsp://cam7/stream"


def test_paths_are_relative_to_the_table_file_not_the_working_directory(folder, monkeypatch, tmp_path_factory):
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))
    table = load_table(_write(folder, source="clips/round.mp4"))
    assert table.layout_path == folder / "layouts" / "bj.yaml"
    assert table.source_location() == folder / "clips" / "round.mp4"


def test_profile_may_be_a_file(folder):
    (folder / "profile.yaml").write_text("game: blackjack\ndecks: 8\n")
    assert load_table(_write(folder, profile="profile.yaml")).profile.decks == 8


def test_a_shipped_layout_may_be_named_by_its_id(folder):
    assert load_table(_write(folder, layout="blackjack-7-mtd-bonus")).layout.id == "blackjack-7-mtd-bonus"


def test_chips_default_to_the_shipped_chip_set_and_may_name_a_chip_set_file(folder):
    assert load_table(_write(folder, chips=None)).chipset.denomination("orange") == 1000
    (folder / "chips.yaml").write_text("chips:\n  - {colour: yellow, denomination: 20}\n")
    assert load_table(_write(folder, chips="chips.yaml")).chipset.denomination("yellow") == 20


def test_calibration_may_be_missing_until_the_camera_is_calibrated(folder):
    table = load_table(_write(folder, calibration=None))
    assert table.calibration is None
    with pytest.raises(TableFileError, match="calibration"):
        table.require_calibration()


def test_a_camera_index_source_stays_a_number(folder):
    assert load_table(_write(folder, source=0)).source_location() == 0


@pytest.mark.parametrize("fields, words", [
    (dict(id=None), "field 'id' is missing"),
    (dict(profile=None), "field 'profile' is missing"),
    (dict(layout="layouts/none.yaml"), "no layout file"),
    (dict(calibration="missing.json"), "cannot read calibration"),
    (dict(profile={"game": "blackjack"}), "decks"),
    (dict(profile={"game": "spanish21", "decks": 6}), "does not match layout"),
    (dict(chips={"teal": 5}), "unknown chip colour 'teal'"),
    (dict(chips={"white": 1, "red": 1}), "denomination repeats"),
    (dict(chips=[1, 5]), "chips"),
    (dict(source=True), "source"),
])
def test_bad_fields_are_named(folder, fields, words):
    path = _write(folder, **fields)
    with pytest.raises(TableFileError, match=words) as exc:
        load_table(path)
    assert str(path) in str(exc.value)


def test_a_calibration_for_another_layout_is_refused(folder):
    (folder / "other.json").write_text(json.dumps(_calibration("spanish21-6-mtd")))
    with pytest.raises(TableFileError, match="made for layout 'spanish21-6-mtd'"):
        load_table(_write(folder, calibration="other.json"))


def test_unreadable_and_malformed_files_are_named(folder):
    with pytest.raises(TableFileError, match="cannot read table file"):
        load_table(folder / "absent.yaml")
    (folder / "bad.yaml").write_text("id: [unclosed\n")
    with pytest.raises(TableFileError, match="not valid YAML"):
        load_table(folder / "bad.yaml")
    (folder / "list.yaml").write_text("- a\n- b\n")
    with pytest.raises(TableFileError, match="must be a mapping"):
        load_table(folder / "list.yaml")


def test_rule_breaking_configuration_loads_so_the_monitor_can_report_it(folder):
    table = load_table(_write(folder, profile={**PROFILE, "decks": 4}))
    assert table.profile.config_violations()


def test_unknown_fields_are_kept(folder):
    assert load_table(_write(folder, notes="pit 3")).extra == {"notes": "pit 3"}


def test_written_table_files_are_whole(folder):
    path = _write(folder)
    assert not list(folder.glob(".table.yaml.*"))
    assert load_table(path).layout == builtin_layout("blackjack-7-mtd-bonus")
