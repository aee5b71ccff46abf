"""The documented split of the real card photos: the reader is fine-tuned on the earlier shots only."""

import numpy as np

from models.real_indices import RealIndexSource
from rules.cards import CARD_LABELS
from vision.evaluate import zk7wu_fine_tune


def test_webcam_frames_before_one_oclock_on_27_june_are_fine_tune_photos():
    assert zk7wu_fine_tune("WIN_20240627_12_54_54_Pro.jpg", "webcam_multi")


def test_webcam_frames_from_the_afternoon_and_30_june_are_held_out():
    assert not zk7wu_fine_tune("WIN_20240627_17_00_45_Pro.jpg", "webcam_multi")
    assert not zk7wu_fine_tune("WIN_20240630_19_34_50_Pro.jpg", "webcam_multi")


def test_repeated_phone_shots_two_seconds_apart_stay_on_one_side():
    assert zk7wu_fine_tune("IMG_20220921_195500.jpg", "phone_whitedeck") == \
        zk7wu_fine_tune("IMG_20220921_195502.jpg", "phone_whitedeck")


def test_a_photo_kind_without_a_split_is_never_trained_on():
    assert not zk7wu_fine_tune("WIN_20240627_11_36_02_Pro.jpg", "screenshot")


def test_real_crops_come_only_from_fine_tune_photos_and_are_labelled_cards(shared_dir):
    src = RealIndexSource(shared_dir / "data" / "real-cards-zk7wu", seed=0)
    assert src.files and all(
        zk7wu_fine_tune(f, "webcam_multi" if f.startswith("WIN_") else
                        "phone_whitedeck" if f.startswith("IMG_2022") else "phone_blackdeck") for f in src.files)
    crop, label = src.sample()
    assert crop.shape == (40, 40, 3) and crop.dtype == np.uint8
    assert 0 <= label < len(CARD_LABELS)


def test_stage1_real_card_set_holds_only_fine_tune_photos_as_index_and_back_boxes(shared_dir, tmp_path):
    from models.stage1_data import real_card_set

    counts = real_card_set(shared_dir / "data" / "real-cards-zk7wu", tmp_path, repeat=1)
    written = [p.stem for p in tmp_path.glob("*/images/*.jpg")]
    assert len(written) == counts["train"] + counts["val"] and counts["held_out"] > 0
    assert not any(s.startswith("WIN_20240627_17") or s.startswith("WIN_20240630") for s in written)
    classes = {line.split()[0] for p in tmp_path.glob("*/labels/*.txt") for line in p.read_text().splitlines()}
    assert classes <= {"0", "1"}
