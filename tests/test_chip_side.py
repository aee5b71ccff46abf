"""Chip stacks read from their side along the calibrated vertical (vision.chip_side)."""

import numpy as np
import pytest

from vision.chip_side import ARC_POINTS, DEFAULT_CHIP_SIDE, SLOTS, STRIP_ROWS, reading_from_slots, side_strip

DENOMS = [1, 5, 25, 100, 500, 1000]


def slots(*chips, p=0.98):
    """Slot probabilities: the given denominations bottom up, then empty slots."""
    out = np.full((SLOTS, 1 + len(DENOMS)), (1 - p) / len(DENOMS), np.float32)
    for i in range(SLOTS):
        k = 1 + DENOMS.index(chips[i]) if i < len(chips) else 0
        out[i, k] = p
    return out


def test_the_count_is_the_chips_below_the_first_empty_slot_and_layers_run_bottom_up():
    r = reading_from_slots(slots(5, 5, 25), DENOMS, 0.9)
    assert r.count == 3 and r.value == 35
    assert r.layers == [{"denomination": 5, "count": 2}, {"denomination": 25, "count": 1}]


def test_a_doubtful_slot_makes_the_stack_unreadable_not_a_guess():
    p = slots(5, 5, 25)
    p[1] = 1 / p.shape[1]
    r = reading_from_slots(p, DENOMS, 0.9)
    assert r.count is None and r.value is None and "cannot count" in r.note


def test_a_chip_above_an_empty_slot_is_not_counted():
    p = slots(5, 5, 25)
    p[5] = slots(100)[0]
    r = reading_from_slots(p, DENOMS, 0.9)
    assert r.value is None and "above an empty slot" in r.note


def test_the_strip_unrolls_the_front_of_the_stack_upright():
    from calibration.camera import PinholeCamera

    cam = PinholeCamera.looking_at(target=(500, 500), tilt_deg=30, yaw_deg=0, width=640, height=480, cover_mm=600)
    image = np.zeros((480, 640, 3), np.uint8)
    image[:, :, 2] = (np.arange(480) // 2).astype(np.uint8)[:, None]  # red grows down the image
    strip = side_strip(image, cam, (500, 500))
    assert strip.shape == (STRIP_ROWS, ARC_POINTS, 3)
    assert strip[0, :, 2].mean() > strip[-1, :, 2].mean()  # row 0 (the felt) is lower in the image than the top


@pytest.mark.skipif(not DEFAULT_CHIP_SIDE.is_file(), reason="committed models/chip_side.onnx absent")
def test_the_committed_chip_side_model_loads_and_names_its_denominations():
    from vision.chip_side import ChipSideReader

    reader = ChipSideReader()
    assert reader.denominations == DENOMS
    assert reader.slots([np.zeros((STRIP_ROWS, ARC_POINTS, 3), np.uint8)]).shape == (1, SLOTS, 1 + len(DENOMS))
