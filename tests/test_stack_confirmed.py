"""Live video: a stack's doubtful reading confirmed by its last confident one (vision.detector.FrameReader)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from vision.chip_side import SLOTS
from vision.chips import StackReading
from vision.detector import FrameReader

DENOMS = [1, 5, 25, 100, 500, 1000]


def _live_reader() -> SimpleNamespace:
    """The part of a live :class:`FrameReader` that confirms readings (no models loaded)."""
    return SimpleNamespace(_confident=[], chip_side=SimpleNamespace(denominations=DENOMS))


def _doubtful(*chips, torn_slot: int, other: int) -> StackReading:
    """An abstention: ``chips`` bottom up, one slot torn 55/40 between its chip and ``other``."""
    p = np.full((SLOTS, 1 + len(DENOMS)), 0.001, np.float32)
    for i in range(SLOTS):
        p[i, 1 + DENOMS.index(chips[i]) if i < len(chips) else 0] = 0.99
    p[torn_slot] = 0.001
    p[torn_slot, 1 + DENOMS.index(other)] = 0.55
    p[torn_slot, 1 + DENOMS.index(chips[torn_slot])] = 0.4
    return StackReading(None, None, [], note="a chip slot read at 0.55 (< 0.85): cannot count", slot_p=p)


TEN = StackReading(6, 10, [{"denomination": 5, "count": 1}, {"denomination": 1, "count": 5}])


def test_a_doubtful_reading_that_does_not_contradict_the_last_confident_one_is_that_stack():
    fr = _live_reader()
    assert FrameReader._confirmed(fr, (100.0, 200.0), TEN) is TEN
    # a $1 chip now torn between $1 and $500: nothing says the stack changed
    again = FrameReader._confirmed(fr, (103.0, 198.0), _doubtful(5, 1, 1, 1, 1, 1, torn_slot=3, other=500))
    assert again.value == 10 and again.count == 6


def test_a_doubtful_reading_with_a_chip_more_is_not_confirmed():
    fr = _live_reader()
    FrameReader._confirmed(fr, (100.0, 200.0), TEN)
    grown = _doubtful(5, 1, 1, 1, 1, 1, 25, torn_slot=3, other=500)  # a seventh chip where the empty slot was
    assert FrameReader._confirmed(fr, (100.0, 200.0), grown).value is None


def test_a_doubtful_reading_elsewhere_is_not_confirmed():
    fr = _live_reader()
    FrameReader._confirmed(fr, (100.0, 200.0), TEN)
    there = _doubtful(5, 1, 1, 1, 1, 1, torn_slot=3, other=500)
    assert FrameReader._confirmed(fr, (160.0, 200.0), there).value is None


def test_one_image_has_no_memory():
    fr = SimpleNamespace(_confident=None, chip_side=SimpleNamespace(denominations=DENOMS))
    doubtful = _doubtful(5, 1, 1, 1, 1, 1, torn_slot=3, other=500)
    assert FrameReader._confirmed(fr, (100.0, 200.0), doubtful) is doubtful
