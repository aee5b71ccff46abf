"""Corner-index crops cut by the detector from rendered round scenes, labelled from the render (models.scene_indices)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from models.scene_indices import SceneCrops, SceneIndexSource, index_label, index_truth, render_scene_crops
from rules.cards import CARD_LABELS


def _card(card: str, quad_xyxy, visible: float = 1.0, order: int = 0, face_up: bool = True, suit: float = 1.0):
    x1, y1, x2, y2 = quad_xyxy
    quad = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)
    return SimpleNamespace(card=card, face_up=face_up, index_quads=[quad], index_visible=[visible], draw_order=order,
                           suit_visible=[suit])


def test_a_detection_on_a_printed_index_is_labelled_with_its_card():
    assert index_label((15, 15), [_card("QH", (10, 10, 20, 20))]) == CARD_LABELS.index("QH")


def test_where_two_cards_indices_hold_the_detection_the_card_on_top_names_it():
    cards = [_card("8S", (10, 10, 20, 20), order=3), _card("QC", (12, 12, 22, 22), order=4)]
    assert index_label((15, 15), cards) == CARD_LABELS.index("QC")


def test_an_index_mostly_hidden_names_nothing():
    assert index_label((15, 15), [_card("9C", (10, 10, 20, 20), visible=0.3)]) == -1


def test_an_index_whose_suit_lies_under_the_next_card_names_no_card_and_says_so():
    cards = [_card("4C", (10, 10, 20, 30), visible=0.7, suit=0.1)]
    assert index_truth((15, 15), cards) == (-1, True)
    assert index_truth((15, 15), [_card("4C", (10, 10, 20, 30), visible=0.7, suit=0.8)]) == (CARD_LABELS.index("4C"),
                                                                                              False)


def test_a_card_on_top_with_its_suit_in_view_names_the_detection_over_a_covered_one_below():
    cards = [_card("4C", (10, 10, 20, 30), order=1, suit=0.0), _card("7H", (12, 12, 22, 32), order=2)]
    assert index_truth((15, 15), cards) == (CARD_LABELS.index("7H"), False)


def test_a_face_down_card_and_the_bare_felt_name_nothing():
    assert index_label((15, 15), [_card("9C", (10, 10, 20, 20), face_up=False)]) == -1
    assert index_label((50, 50), [_card("9C", (10, 10, 20, 20))]) == -1


def _crop_file(tmp_path, labels):
    crops = SceneCrops()
    rng = np.random.default_rng(0)
    for k, label in enumerate(labels):
        crops.crops.append(rng.integers(0, 255, (40, 40, 3), dtype=np.uint8))
        crops.labels.append(label)
        crops.black.append(False)
        crops.designs.append("proc-pil-std")
        crops.seeds.append(1)
        crops.times.append(float(k))
        crops.zones.append("seat1.cards")
        crops.suit_covered.append(False)
    path = tmp_path / "scene.npz"
    crops.save(path)
    return path


def test_scene_crops_are_drawn_with_their_labels_no_index_kept_as_minus_one(tmp_path):
    src = SceneIndexSource(_crop_file(tmp_path, [5, -1, 40]), seed=3)
    drawn = [src.sample() for _ in range(60)]
    assert {y for _, y in drawn} == {5, -1, 40}
    assert all(x.shape == (40, 40, 3) and x.dtype == np.uint8 for x, _ in drawn)


def test_the_held_out_deck_designs_scene_crops_are_never_drawn(tmp_path):
    with pytest.raises(ValueError, match="held-out"):
        SceneIndexSource(_crop_file(tmp_path, [5, 7]), seed=0, held_out=("proc-pil-std",))


def test_scene_crops_from_a_missing_or_empty_file_are_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="scene-crop"):
        SceneIndexSource(tmp_path / "none.npz", seed=0)
    with pytest.raises(ValueError, match="no crops"):
        SceneIndexSource(_crop_file(tmp_path, []), seed=0)


def test_a_rendered_round_scene_gives_labelled_crops_of_the_cards_dealt(tmp_path):
    from datasets.rounds import RoundVideoOptions, script_video

    crops = render_scene_crops([20001], tmp_path / "s.npz", sizes=((1920, 1080),), every_s=6.0, log=lambda m: None)
    data = np.load(tmp_path / "s.npz")
    labelled = data["labels"][data["labels"] >= 0]
    assert len(data["crops"]) == len(crops.labels) > 0 and len(labelled) > 0
    assert len(data["suit_covered"]) == len(data["labels"]) and (data["labels"][data["suit_covered"]] == -1).all()
    script = script_video(RoundVideoOptions(seed=20001, fps=10.0, width=1920, height=1080))
    dealt = {str(c) for r in script.rounds for s in r.seats for c in s.dealt + s.hits} | \
            {str(c) for r in script.rounds for c in r.dealer_cards}
    assert {CARD_LABELS[v] for v in labelled} <= dealt


def test_scene_crops_command_refuses_seeds_it_cannot_read(tmp_path):
    from typer.testing import CliRunner

    from api.cli import app

    res = CliRunner().invoke(app, ["train", "scene-crops", "--seeds", "twenty", "--out", str(tmp_path / "s.npz")])
    assert res.exit_code != 0 and "--seeds" in str(res.exception)
    assert not (tmp_path / "s.npz").exists()


def test_scene_crops_command_refuses_an_output_that_is_not_an_npz_file(tmp_path):
    from typer.testing import CliRunner

    from api.cli import app

    res = CliRunner().invoke(app, ["train", "scene-crops", "--seeds", "20001", "--out", str(tmp_path / "s.zip")])
    assert res.exit_code != 0 and ".npz" in str(res.exception)
    assert not any(tmp_path.iterdir())
