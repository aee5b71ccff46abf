"""Corner indices -> physical cards, so that ``cards`` lists each card once.

A card shows up to two corner indices (top-left and bottom-right, the same
identity, 180 degrees apart).  Their centres lie about 4 index heights apart on a
poker-size card (63.5 x 88.9 mm, indices ~20 mm tall, inset ~6 x 13 mm), so two
indices are taken as one card when their probability vectors agree on the card
and their centres are within ``max_dist`` index heights.  The pair's
probabilities are averaged (two looks at one card) before the label is chosen.

Limitation: two cards of the same identity (multi-deck shoe) lying within one card
length of each other in one zone are merged into one card.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rules.cards import BACK, CARD_LABELS, UNREADABLE
from vision.detections import BACK_ID, INDEX, Detections


@dataclass(frozen=True)
class PhysicalCard:
    """One card on the table.

    Attributes:
        label: a card (``10H``), ``BACK`` or ``unreadable``.
        score: calibrated confidence of ``label`` (stage 1's score for ``BACK``).
        box: (4,) float32 xyxy image pixels: the union of its corner-index boxes, or the BACK box.
        zone: layout zone or None.
        members: row numbers of the detections that make it up.
    """

    label: str
    score: float
    box: np.ndarray
    zone: str | None
    members: tuple[int, ...]


def group_cards(dets: Detections, threshold: float = 0.5, max_dist: float = 6.0,
                min_agree: float = 0.05) -> list[PhysicalCard]:
    """Group read corner indices (and BACK boxes) into physical cards, and set ``dets.group``.

    Args:
        dets: detections whose index rows have been read (``data["probs"]`` (52,) per row).
        threshold: calibrated probability below which the merged card is ``unreadable``.
        max_dist: most centre distance between two corners of one card, in index heights.
        min_agree: least probability each corner must give the other's top card to be paired.

    Returns:
        The physical cards, sorted left to right then top to bottom.
    """
    rows = np.flatnonzero(dets.class_id == INDEX)
    probs = dets.column("probs")
    cards: list[PhysicalCard] = []
    P = np.stack([probs[r] if probs[r] is not None else np.full(len(CARD_LABELS), 1 / len(CARD_LABELS))
                  for r in rows]) if len(rows) else np.zeros((0, len(CARD_LABELS)))
    c = dets.centers[rows]
    h = np.maximum(dets.heights[rows], 1.0)
    top = P.argmax(1) if len(rows) else np.zeros(0, int)
    pairs = []
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            if dets.zone[rows[i]] != dets.zone[rows[j]] and dets.zone[rows[i]] and dets.zone[rows[j]]:
                continue
            d = float(np.linalg.norm(c[i] - c[j])) / float((h[i] + h[j]) / 2)
            if d < 1.0 or d > max_dist:  # overlapping boxes are duplicates NMS left, not two corners
                continue
            if P[i, top[j]] < min_agree or P[j, top[i]] < min_agree:
                continue
            agree = float((P[i] * P[j]).sum())
            pairs.append((-agree, d, i, j))
    pairs.sort()
    used = np.zeros(len(rows), bool)
    groups: list[tuple[int, ...]] = []
    for _, _, i, j in pairs:
        if not used[i] and not used[j]:
            used[i] = used[j] = True
            groups.append((i, j))
    groups += [(i,) for i in range(len(rows)) if not used[i]]
    for members in groups:
        p = P[list(members)].mean(0)
        k = int(p.argmax())
        label = CARD_LABELS[k] if p[k] >= threshold else UNREADABLE
        box = dets.xyxy[rows[list(members)]]
        box = np.concatenate([box[:, :2].min(0), box[:, 2:].max(0)]).astype(np.float32)
        cards.append(PhysicalCard(label=label, score=float(p[k]), box=box, zone=dets.zone[rows[members[0]]],
                                  members=tuple(int(rows[m]) for m in members)))
    for r in np.flatnonzero(dets.class_id == BACK_ID):
        cards.append(PhysicalCard(label=BACK, score=float(dets.score[r]), box=dets.xyxy[r].copy(),
                                  zone=dets.zone[r], members=(int(r),)))
    cards.sort(key=lambda pc: (float(pc.box[0]), float(pc.box[1])))
    for g, pc in enumerate(cards):
        dets.group[list(pc.members)] = g
    return cards
