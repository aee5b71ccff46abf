"""Corner indices -> physical cards, so that ``cards`` lists each card once.

A card shows up to two corner indices (top-left and bottom-right, the same
identity, 180 degrees apart).  Indices are grouped in three steps, then what is no card is dropped:

1. **One index seen twice** (overlapping zone crops, NMS leftovers): detections
   whose centres lie within :data:`DUPLICATE_MM` (or 0.6 index heights without a
   calibration) and agree on the card are one index.  So is **part of an index boxed again**: stage 1 now and then
   boxes the lower half of an index (with a pip of the card over it) beside its whole box; a box read below
   ``threshold`` whose centre lies inside a box read surely is that index, and has no say in what it reads (seed
   7117 at 4K: the 3S's corner boxed twice, the half box read unreadable, dealt as a card out of turn); in a
   calibrated frame only where it is the smaller box (:data:`PART_OF_INDEX_AREA`). Neither join
   may bring two indices read surely as different cards into one: a box read unsurely across the indices of two
   fanned cards is part of each, and chained them into one card that lost one of them (rendered hold-out seed 9003:
   an 8H under a 6D). Nearest pairs join first.
2. **Two corners of one card**: indices that agree on the card and lie a card's
   diagonal apart.  On the layout that is :data:`CORNER_PAIR_MM` (the index centres of
   a 63.5 x 88.9 mm card are ~88 mm apart on the renders; 98 % of true pairs and 0.7 % of
   other pairs in one zone fall in it on the rendered hold-out); two indices that read the same card
   may lie :data:`SAME_CARD_PAIR_MM` apart (a card turned towards a seat at the end of the arc);
   without a calibration, :data:`CORNER_PAIR_HEIGHTS` index heights in the image.
3. **Marks printed inside a card**: court cards often repeat their letter and suit in
   the picture's frame.  A lone index lying inside a card whose two corners are both in view, reading the same
   card or read below :data:`BACK_PRINT_CONF` (the suit pip beside a king's crown, read `unreadable` for seconds
   and dealt to the dealer out of turn: seeds 7115 and 7126 at 4K; the unsure reading only in a calibrated frame,
   where "inside" is measured on the layout), is such a mark, not another card: nothing can
   lie on that card's face while both its corners show, short of a card turned
   sideways across it (a double down), whose index shows in the clear and reads surely.
4. **A card back seen on a card's face**: stage 1 now and then finds ``BACK`` on the picture of a
   court card. A ``BACK`` box whose centre lies inside a card whose two corners are in view is
   dropped: a face-down card under it would show beyond the face card's edges, not in its middle.

5. **A card back's print read as an index**: a lone index centred in a ``BACK`` box near one of its edges (or just
   outside it) and read below :data:`BACK_PRINT_CONF` is the back's pattern at its corner (a crosshatch back's
   white-bordered corner looks like an index to stage 1): it is dropped.  A face-up card lying on a face-down one
   shows its index in the clear.
6. **The layout's printed words read as an index**: a lone index centred on the layout's printed words (a calibrated
   frame: ``on_print``) and read below :data:`BACK_PRINT_CONF` is a glyph (the 2 of "BLACKJACK PAYS 3 TO 2" read as
   a 7H, then unreadable, for seconds in the dealer's area): it is dropped.  A card lying on the words hides them and
   shows its own index, read surely.
7. **A court card's picture read as an index**: a lone index read below :data:`BACK_PRINT_CONF` as a jack, queen or
   king within :data:`COURT_ART_MM` of a card surely read as the same rank is that card's picture (its big letter,
   read with any suit), not another card: dropped. Unlike step 3 this needs only one corner of the court card in
   view (the picture peeking out from under the next card dealt).

8. **Another card's corner read into an index**: a lone index whose box lies a quarter or more
   (:data:`MIXED_INK_SHARE` of its area) under a corner index of a card whose two corners show, and that reads that
   card's rank in another suit below :data:`MIXED_INK_CONF`, is read from both cards' ink: ``unreadable``, not a
   card. The card whose two corners show lies on top there, and the crop of the index under it holds its rank
   (seed 7117 at 4K: an AH whose corner a 6D turned over covered read 6H at 0.91-0.96 from then on, after reading
   AH while in the clear).
9. **A card's corner boxed again**: a lone index whose box lies as far under a corner index of a card whose two
   corners show and that reads that very card below :data:`MIXED_INK_CONF` is that corner boxed loosely (seed 7117
   at 4K: a box round an AD's corner and the 3D's corner peeking out above it, read AD at 0.77, 13 mm from the AD's
   index: a second AD for three frames). It joins the card and has no say in what it reads.

The group's probabilities are averaged (several looks at one card) before the label is chosen; where one corner of
the card is read surely and the other not (its suit under the next card of a hand), the unsure one has no say.

Limitation: two cards of the same identity (multi-deck shoe) whose indices lie a card
diagonal apart in one zone, or one index's width apart, are merged into one card.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rules.cards import ALL_CARDS, BACK, CARD_LABELS, UNREADABLE
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


DUPLICATE_MM = 8.0
"""Index centres closer than this on the layout (mm) are one index detected twice."""

CORNER_PAIR_MM = (75.0, 97.0)
"""Layout distance (mm) between the two corner-index centres of one card: ~88 mm on the renders (98 % of true
pairs in this band). Widened to 65-100 mm (for real decks whose indices sit further in), the rendered hold-out lost
2.3 points of per-card identity at index >= 20 px: other cards' corners got paired."""

SAME_CARD_PAIR_MM = (68.0, 100.0)
"""The band for two indices whose top reading is the same card. In 12 rendered round videos (1080p), 91 frames
held two unpaired indices of one card 72-75 mm apart (cards dealt at an angle at the ends of the arc); two cards of
one identity in one zone, a card's diagonal apart, are rarer than that in a 6-8 deck shoe."""

BACK_PRINT_CONF = 0.8
"""Below this a lone index inside a ``BACK`` box is the back's print.  Seen in rendered Switch Hands videos (4K):
the corner of a face-down card read as 10H at 0.57, held for seconds, and dealt to the seat as a face-up card."""

BACK_PRINT_CORNER = 0.25
"""How far into a ``BACK`` box (share of its width or height from an edge) a lone index may lie and be its print: a
box round two face-down cards dealt overlapping puts the front card's corner 22 % in (seed 7113 at 4K; 0.2 before,
the same hold-out figures either way)."""

COURT_ART_MM = 60.0
"""A lone index read below :data:`BACK_PRINT_CONF` as a jack, queen or king this close (mm) to a card surely read
as the same rank is that court card's picture (its big letter), whatever suit it reads: the picture's centre lies
~40 mm from the card's own index, its other corner 75-97 mm. Seen in rendered round videos (seed 7121 at 4K): the
top of a JH's picture, peeking above the 5S dealt over it, read JD at 0.5-0.66 for three frames and dealt to the
seat as a third card."""

COURT_RANKS = ("J", "Q", "K")

PART_OF_INDEX_AREA = 0.85
"""Step 1b: a box is part of an index boxed again only where its area is at most this share of the index's box
(the 3S's lower half, seed 7117 at 4K: 0.70). A box as large as the sure one beside it is another card's index: the
3D peeking out beside the AD dealt over it (seed 7117 at 4K, Switch Hands: the same size, 20 px to the side, read
3D at 0.25) had joined the AD, and the 3D left the tracker for five frames. In a calibrated frame only: there every
index is boxed in a zone crop rectified at one scale; on the uncalibrated webcam photos of ``real-cards-zk7wu`` the
boxes of one index come in any size, and the rule left 3 of the 235 held-out cards unnamed."""

MIXED_INK_SHARE = 0.25
"""Least share of a lone index's box lying under a corner index of a card whose two corners show for step 8."""
MIXED_INK_CONF = 0.99
"""Step 8 leaves a lone index read this surely as it reads: a second card of that rank fanned tight beside the
first (a pair to split) shows its own index whole and reads it at 0.99 and more; the crop holding two cards' ink
read 0.91-0.96 (seed 7117, frame by frame: at 0.95 the rule let two frames through and the AH was voted 6H)."""

DUPLICATE_HEIGHTS = 0.6
CORNER_PAIR_HEIGHTS = (2.0, 9.0)
"""Without a calibration: the same bounds in index heights, in the image. On the labelled real photos
(``real-cards-zk7wu``, labels seen exactly twice in a photo) the ratio runs 2.6-7.0 (5th-95th percentile) on the
webcam frames, 3.4-5.3 on the white deck and 3.4-9.3 on the black deck."""


def _vote(P: np.ndarray, weight: np.ndarray, members) -> np.ndarray:
    """(52,) mean of the rows ``members`` of (N, 52) probabilities, weighted by (N,) ``weight`` (all of them where
    every weight is 0)."""
    w = weight[list(members)]
    rows = P[list(members)]
    return rows.mean(0) if w.sum() <= 0 else (rows * w[:, None]).sum(0) / w.sum()


def _agree(P: np.ndarray, i: int, j: int, min_agree: float) -> bool:
    """Each of rows ``i`` and ``j`` of (N, 52) probabilities gives the other's top card at least ``min_agree``."""
    return bool(P[i, P[j].argmax()] >= min_agree and P[j, P[i].argmax()] >= min_agree)


PAIR_OVERLAP = 0.5
"""Step 2 also pairs two corners a card's diagonal apart whose readings overlap this much (Bhattacharyya coefficient,
the sum of the square roots of their products), though the surer gives the other's top card under ``min_agree``:
a KD's corner read KD at 0.98 and its other corner, the next card's ink beside it, KH 0.54 / KD 0.37 (seed 7109 at
4K): left two cards, the lone corner was dealt as a KH. In a calibrated frame only: without one, "a diagonal apart" is
in index heights, loose enough that it paired other cards' corners (webcam held out, recall 0.638 -> 0.613)."""


def _overlap(P: np.ndarray, i: int, j: int) -> float:
    """Bhattacharyya coefficient of rows ``i`` and ``j`` of (N, 52) probabilities: 1 alike, 0 disjoint."""
    return float(np.sqrt(np.clip(P[i], 0, None) * np.clip(P[j], 0, None)).sum())


def _distances(pos: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """(N, N) distances between the points of (N, 2) ``pos``, each pair in units of its mean (N,) ``unit``
    (one array op: the pair loops below ran a norm per pair, ~4 ms of a 1080p frame's 30 indices)."""
    diff = pos[:, None, :] - pos[None, :, :]
    return np.sqrt((diff ** 2).sum(-1)) / ((unit[:, None] + unit[None, :]) / 2)


def inside_card(p: np.ndarray, a: np.ndarray, b: np.ndarray, along: tuple[float, float] = (0.2, 0.8),
                 across: float = 1 / 3) -> bool:
    """Point ``p`` lies on the card whose two corner indices are at ``a`` and ``b`` (same units): between
    them along their diagonal (``along``: shares of its length) and within ``across`` of its length of it."""
    axis = b - a
    length = float(np.linalg.norm(axis))
    if length < 1e-9:
        return False
    v = p - a
    t = float(np.dot(v, axis)) / length ** 2
    off = abs(float(axis[0] * v[1] - axis[1] * v[0])) / length
    return along[0] <= t <= along[1] and off <= across * length


def _inside_a_back(boxes: np.ndarray, backs: np.ndarray) -> bool:
    """Whether the centre of every (N, 4) xyxy px index box lies inside one of the (M, 4) xyxy px ``BACK`` boxes,
    near one of its edges (within :data:`BACK_PRINT_CORNER` of its width or height), where a card's index would be
    printed.

    A face-down card turned on the layout touches each edge of its axis-aligned box with one corner, anywhere
    along that edge, so its corners lie near an edge, not only in the box's corners (seed 7116 at 4K: the second of
    two backs under one box, its corner 12 % from the top edge and 34 % from the nearest side). The index box's centre
    may lie outside the back's box by half the index box: stage 1's box of a back may hold only the front one of two
    face-down cards, the other's edge peeking out beyond it (seed 7129 at 4K, read as 8H at 0.79)."""
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    grow = (boxes[:, 2:] - boxes[:, :2]) / 2  # (N, 2): half each index box's size
    for b in backs:
        if not ((centres >= b[:2] - grow).all() and (centres <= b[2:] + grow).all()):
            continue
        size = np.maximum(b[2:] - b[:2], 1.0)
        near = np.minimum(centres - b[:2], b[2:] - centres) / size  # (N, 2) share of the box to its nearest edges
        if (near.min(axis=1) <= BACK_PRINT_CORNER).all():
            return True
    return False


def _court_picture(k: int, at: np.ndarray, others: list[tuple[np.ndarray, np.ndarray]]) -> bool:
    """Whether an unsure reading of card ``k`` at ``at`` (mm) is the picture of a court card of its rank read surely
    within :data:`COURT_ART_MM` (``others``: (vote (52,), (M, 2) mm of its index clusters) per other card)."""
    rank = ALL_CARDS[k].rank
    if rank not in COURT_RANKS:
        return False
    for vote, where in others:
        top = int(vote.argmax())
        if vote[top] >= BACK_PRINT_CONF and ALL_CARDS[top].rank == rank and \
                float(np.min(np.linalg.norm(np.asarray(where) - at, axis=1))) < COURT_ART_MM:
            return True
    return False


SAME_PLACE_MM = 12.0
"""Two cards whose centres lie closer than this (mm) are one place: two cards of one identity paired crosswise."""


def _under_a_corner(k: int, box: np.ndarray, gi: int, groups: list[list[int]], votes: list[np.ndarray],
                    clusters: list[list[int]], boxes: np.ndarray, threshold: float) -> int | None:
    """Steps 8 and 9: the group of a surely read card whose two corners show, that reads ``k``'s rank (in any suit),
    and under one of whose corner indices the lone index of group ``gi`` (read as card ``k``, its (4,) xyxy pixel
    box ``box``) lies :data:`MIXED_INK_SHARE` or more (``boxes``: (n, 4) xyxy of every index row, by cluster
    member); None where there is none."""
    area = max(float(np.prod(box[2:] - box[:2])), 1e-6)
    for h, g in enumerate(groups):
        if h == gi or len(g) < 2:
            continue
        other = int(votes[h].argmax())
        if votes[h][other] < threshold or ALL_CARDS[other].rank != ALL_CARDS[k].rank:
            continue
        for i in (i for c in g[:2] for i in clusters[c]):  # its two corners (step 3's marks come after them)
            lo, hi = np.maximum(box[:2], boxes[i, :2]), np.minimum(box[2:], boxes[i, 2:])
            if float(np.prod(np.clip(hi - lo, 0, None))) >= MIXED_INK_SHARE * area:
                return h
    return None


def _uncross_twins(groups: list[list[int]], pos: np.ndarray, P: np.ndarray) -> None:
    """Two cards of one identity (a multi-deck shoe) dealt one over the other show four corners that all read the
    same card; paired crosswise (each card's top-left index with the other's bottom-right) both pairs lie a card's
    diagonal apart too, and both cards land on one place, where the tracker sees one card (seed 7012 at 1080p: a
    pair of 7D dealt to one seat, the second never dealt). Where two pairs reading one card put both cards within
    :data:`SAME_PLACE_MM`, the corners are paired the other way that keeps both pairs a card's diagonal apart and
    parts the two cards (of two such ways, the one nearer the diagonal's middle): changed in place.

    Args:
        groups: pairs (and more) of cluster numbers; pairs are re-paired in place.
        pos: (K, 2) layout mm of each cluster.
        P: (K, 52) probabilities of each cluster.
    """
    lo, hi = SAME_CARD_PAIR_MM
    mid = (lo + hi) / 2

    def off(x: int, y: int) -> float | None:
        d = float(np.linalg.norm(pos[x] - pos[y]))
        return abs(d - mid) if lo <= d <= hi else None

    two = [g for g in groups if len(g) == 2]
    for i, g in enumerate(two):
        for h in two[i + 1:]:
            if int(P[g].mean(0).argmax()) != int(P[h].mean(0).argmax()):
                continue
            if float(np.linalg.norm(pos[g].mean(0) - pos[h].mean(0))) > SAME_PLACE_MM:
                continue
            (a, b), (c, d) = g, h
            best = None
            for first, second in (((a, c), (b, d)), ((a, d), (b, c))):
                o1, o2 = off(*first), off(*second)
                if o1 is None or o2 is None or float(np.linalg.norm(pos[list(first)].mean(0)
                                                                    - pos[list(second)].mean(0))) <= SAME_PLACE_MM:
                    continue
                if best is None or o1 + o2 < best[0]:
                    best = (o1 + o2, first, second)
            if best is not None:  # crossed pairs share one centre: a pairing a diagonal apart that parts them is truer
                g[:], h[:] = list(best[1]), list(best[2])


def group_cards(dets: Detections, threshold: float = 0.5, min_agree: float = 0.05,
                positions_mm: np.ndarray | None = None, on_print: np.ndarray | None = None) -> list[PhysicalCard]:
    """Group read corner indices (and BACK boxes) into physical cards, and set ``dets.group``.

    Args:
        dets: detections whose index rows have been read (``data["probs"]`` (52,) per row).
        threshold: calibrated probability below which the merged card is ``unreadable``.
        min_agree: least probability each index must give the other's top card to be grouped.
        positions_mm: (N, 2) float layout mm of every detection's centre (a calibrated frame), or
            None to measure distances in index heights in the image.
        on_print: (N,) bool, whether each detection's centre lies on the layout's printed words
            (:meth:`calibration.layout.Layout.on_printed_words`), or None where the layout is not known.

    Returns:
        The physical cards, sorted left to right then top to bottom.
    """
    rows = np.flatnonzero(dets.class_id == INDEX)
    probs = dets.column("probs")
    P = np.stack([probs[r] if probs[r] is not None else np.full(len(CARD_LABELS), 1 / len(CARD_LABELS))
                  for r in rows]) if len(rows) else np.zeros((0, len(CARD_LABELS)))
    if positions_mm is not None:
        pos = np.asarray(positions_mm, np.float64)[rows].reshape(-1, 2)
        unit = np.ones(len(rows))
        dup, (near, far) = DUPLICATE_MM, CORNER_PAIR_MM
    else:
        pos = dets.centers[rows].astype(np.float64)
        unit = np.maximum(dets.heights[rows], 1.0).astype(np.float64)
        dup, (near, far) = DUPLICATE_HEIGHTS, CORNER_PAIR_HEIGHTS
    n = len(rows)

    # 1. one index detected twice
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    sure = P.max(1) >= threshold if n else np.zeros(0, bool)
    # the cards read surely in each cluster: an unsure box between two indices must not chain them into one card
    sure_cards = {i: {int(P[i].argmax())} if sure[i] else set() for i in range(n)}

    def join(i: int, j: int, direct: bool = False) -> bool:
        ri, rj = root(i), root(j)
        if ri == rj:
            return True
        if not direct and len(sure_cards[ri] | sure_cards[rj]) > 1:
            return False
        parent[rj] = ri
        sure_cards[ri] |= sure_cards.pop(rj)
        return True

    dist = _distances(pos, unit)
    close = [(float(dist[i, j]), i, j) for i in range(n) for j in range(i + 1, n) if dist[i, j] < dup]
    for _, i, j in sorted(close):  # nearest first: a box between two indices joins the one it overlaps most
        if _agree(P, i, j, min_agree):
            join(i, j, direct=bool(sure[i] and sure[j]))
    # 1b. part of an index boxed again, read unsurely, is that index (and has no say in what it reads)
    boxes = dets.xyxy[rows]
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    weight = np.ones(n)
    areas = np.prod(np.maximum(boxes[:, 2:] - boxes[:, :2], 0), axis=1)
    for j in np.flatnonzero(~sure):
        inside = [i for i in np.flatnonzero(sure)
                  if (centres[j] >= boxes[i, :2]).all() and (centres[j] <= boxes[i, 2:]).all()
                  and (positions_mm is None or areas[j] <= PART_OF_INDEX_AREA * areas[i])]
        if any(join(int(i), int(j)) for i in inside):
            weight[j] = 0.0
    seen: dict[int, list[int]] = {}
    for i in range(n):
        seen.setdefault(root(i), []).append(i)
    clusters = list(seen.values())
    Pc = np.stack([_vote(P, weight, c) for c in clusters]) if clusters else np.zeros((0, len(CARD_LABELS)))
    posc = np.stack([pos[c].mean(0) for c in clusters]) if clusters else np.zeros((0, 2))
    unitc = np.array([unit[c].mean() for c in clusters])
    zone_of = [dets.zone[rows[c[0]]] for c in clusters]

    # 2. two corners of one card
    pairs = []
    distc = _distances(posc, unitc)
    for a in range(len(clusters)):
        for b in range(a + 1, len(clusters)):
            if zone_of[a] != zone_of[b] and zone_of[a] and zone_of[b]:
                continue
            d = float(distc[a, b])
            lo, hi = near, far
            if positions_mm is not None and int(Pc[a].argmax()) == int(Pc[b].argmax()):
                lo, hi = SAME_CARD_PAIR_MM
            if not lo <= d <= hi or not (_agree(Pc, a, b, min_agree) or (
                    positions_mm is not None and _overlap(Pc, a, b) >= PAIR_OVERLAP)):
                continue
            pairs.append((-float((Pc[a] * Pc[b]).sum()), d, a, b))
    pairs.sort()
    used = np.zeros(len(clusters), bool)
    groups: list[list[int]] = []
    for _, _, a, b in pairs:
        if not used[a] and not used[b]:
            used[a] = used[b] = True
            groups.append([a, b])
    if positions_mm is not None:
        _uncross_twins(groups, posc, Pc)

    # 3. a lone index inside a card whose two corners show, reading that card or read unsurely, is a mark printed on
    # that card
    for k in np.flatnonzero(~used):
        for g in groups:
            same = int(Pc[k].argmax()) == int(Pc[g].mean(0).argmax())
            if not same and (Pc[k].max() >= BACK_PRINT_CONF or positions_mm is None):
                continue  # uncalibrated, "inside" is in index heights: loose enough to swallow fanned real cards
            if inside_card(posc[k], posc[g[0]], posc[g[1]], along=(0.1, 0.9), across=0.4):
                g.append(int(k))
                used[k] = True
                if not same:  # a mark read as another card has no say in what the card reads
                    weight[clusters[k]] = 0.0
                break
    groups += [[int(k)] for k in np.flatnonzero(~used)]

    back_boxes = dets.xyxy[dets.class_id == BACK_ID]
    # 2b. a corner read unsurely has no say where the card's other corner is read surely: the reader leaves a corner
    # whose suit lies under the next card of a hand unsure, and its near-flat reading halved the sure one's (seed
    # 7281 at 4K: a QH's corners read 0.74 and 0.08, the card unreadable)
    for g in groups:
        if len(g) > 1:
            sure_clusters = [c for c in g if Pc[c].max() >= threshold]
            if sure_clusters and len(sure_clusters) < len(g):
                for c in g:
                    if c not in sure_clusters:
                        weight[clusters[c]] = 0.0
    votes = [_vote(P, weight, [i for c in g for i in clusters[c]]) for g in groups]

    # 9. a lone index under a corner of a card whose two corners show, reading that very card unsurely, is that
    # corner boxed again: it joins the card and has no say in what it reads; one reading that card's rank in another
    # suit is remembered for step 8
    mixed_ink: set[int] = set()  # id() of the lone groups step 8 makes unreadable
    for gi, g in enumerate(groups):
        k = int(votes[gi].argmax())
        if len(g) != 1 or votes[gi][k] >= MIXED_INK_CONF:
            continue
        member_boxes = boxes[clusters[g[0]]]
        box = np.concatenate([member_boxes[:, :2].min(0), member_boxes[:, 2:].max(0)])
        h = _under_a_corner(k, box, gi, groups, votes, clusters, boxes, threshold)
        if h is not None and int(votes[h].argmax()) == k:
            groups[h].append(g[0])
            weight[clusters[g[0]]] = 0.0
            g.clear()
        elif h is not None:
            mixed_ink.add(id(g))
    keep = [gi for gi, g in enumerate(groups) if g]
    groups, votes = [groups[gi] for gi in keep], [votes[gi] for gi in keep]

    cards: list[PhysicalCard] = []
    for gi, g in enumerate(groups):
        members = sorted(int(rows[i]) for c in g for i in clusters[c])
        p = votes[gi]
        k = int(p.argmax())
        if len(g) == 1 and p[k] < BACK_PRINT_CONF and positions_mm is not None and \
                _court_picture(k, posc[g[0]], [(votes[h], posc[groups[h]]) for h in range(len(groups)) if h != gi]):
            continue  # 7. a court card's picture
        if len(g) == 1 and p[k] < BACK_PRINT_CONF and _inside_a_back(dets.xyxy[members], back_boxes):
            continue  # 5. the back's print at its corner
        if len(g) == 1 and p[k] < BACK_PRINT_CONF and on_print is not None and bool(np.all(on_print[members])):
            continue  # 6. a glyph of the layout's words
        label = CARD_LABELS[k] if p[k] >= threshold else UNREADABLE
        box = dets.xyxy[members]
        box = np.concatenate([box[:, :2].min(0), box[:, 2:].max(0)]).astype(np.float32)
        if label != UNREADABLE and id(g) in mixed_ink:
            label = UNREADABLE  # 8. another card's corner read into this index (step 9 took those reading that card)
        cards.append(PhysicalCard(label=label, score=float(p[k]), box=box, zone=zone_of[g[0]],
                                  members=tuple(members)))
    backs = np.flatnonzero(dets.class_id == BACK_ID)
    if positions_mm is not None and len(backs):
        back_mm = np.asarray(positions_mm, np.float64)[backs].reshape(-1, 2)
        faces = [(posc[g[0]], posc[g[1]]) for g in groups if len(g) >= 2]
        backs = [r for r, p in zip(backs, back_mm) if not any(inside_card(p, a, b) for a, b in faces)]
    for r in backs:
        cards.append(PhysicalCard(label=BACK, score=float(dets.score[r]), box=dets.xyxy[r].copy(),
                                  zone=dets.zone[r], members=(int(r),)))
    cards.sort(key=lambda pc: (float(pc.box[0]), float(pc.box[1])))
    for g, pc in enumerate(cards):
        dets.group[list(pc.members)] = g
    return cards
