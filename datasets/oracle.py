"""Perfect zone readings from a scripted video: what an ideal detector would report per frame.

Used to test the round engine and the audit apart from the detector: the readings
come from the script's timeline (each resting card's label, ``BACK`` when face down;
each zone's chip value), optionally hiding whatever a hand covers, as a camera would.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from datasets.scene import TableState


def zone_readings(state: TableState, hide_under_hands: bool = True,
                  with_points: bool = False) -> tuple:
    """Cards and chip values per zone in ``state``.

    Args:
        state: the table at one instant.
        hide_under_hands: drop cards and stacks whose centre lies under a hand occluder.

    Returns:
        (zone -> card labels, zone -> chip value in dollars), plus zone -> card centres (mm) when
        ``with_points``; objects in transit (no zone) are left out.
    """
    hands = [np.asarray(h.polygon, np.float32) for h in state.hands] if hide_under_hands else []

    def hidden(point) -> bool:
        if not hands:
            return False
        import cv2

        return any(cv2.pointPolygonTest(poly, (float(point[0]), float(point[1])), False) >= 0 for poly in hands)

    cards: dict[str, list[str]] = defaultdict(list)
    points: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for c in state.cards:
        if c.zone is None or hidden(c.center):
            continue
        cards[c.zone].append(c.card if c.face_up else "BACK")
        points[c.zone].append((float(c.center[0]), float(c.center[1])))
    chips: dict[str, float] = defaultdict(float)
    for st in state.chips:
        if st.zone is None or hidden(st.center):
            continue
        chips[st.zone] += st.value
    if with_points:
        return dict(cards), dict(chips), dict(points)
    return dict(cards), dict(chips)


class OracleObserver:
    """An observer (see :class:`vision.review.Observer`) that reads a scripted video's truth instead of pixels.

    Args:
        script: a :class:`datasets.rounds.VideoScript`; frames are matched to it by their time.
    """

    def __init__(self, script) -> None:
        self.script = script

    def observe(self, frame):
        from vision.review import Observation

        cards, chips, points = zone_readings(self.script.timeline.state_at(frame.t_s), with_points=True)
        return Observation(cards=cards, chips=chips, card_points=points)
