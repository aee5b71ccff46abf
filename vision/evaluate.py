"""``pitwatch eval detect``: card precision/recall, confusions, accuracy against index height, chip recall.

Sets (each skipped with a message where absent):

* ``rendered``: hold-out frames rendered now with new seeds and the deck design held
  out of stage-2 training (``proc-caladea-std`` unless told), through the
  calibrated zone-crop path (the true camera is the calibration);
* ``real-cards-zk7wu``: per photo kind (``webcam_multi``, ``phone_whitedeck``,
  ``phone_blackdeck``), without a table file (tiles);
* ``real-felt-layouts-martinabeleda``: the 13 cards of each photo, and the cards
  read in the four unlabelled ``surface*.png`` photos;
* ``real-chips-degen101``: chip stack recall (IoU >= 0.5 and >= 0.3 with a truth stack box).

Per image, cards are compared as multisets of labels (``unreadable`` counts as
no answer, never as a right one).  Where truth boxes exist, each truth card is
matched to the detected index whose centre lies on it; its read label fills
the 52x52 confusion matrix and the accuracy-against-index-height table.  On renders
each card with a corner index at least half in view is also scored once
(``card_identity``): named right through any of those corners.  Rendered chip
stacks are scored by the px per chip their side shows, each band also for the
stacks whose whole side is in view (``in_view``: in frame, not under a card).
"""

from __future__ import annotations

import csv
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from rules.cards import BACK, CARD_LABELS, UNREADABLE
from vision.chip_side import DEFAULT_CHIP_SIDE
from vision.detector import FrameReader, TableView

HEIGHT_BINS = (0, 10, 14, 18, 22, 30, 40, 60, 100, 10000)
"""Index-height bins, pixels (lower edges)."""
TARGET_INDEX_PX = 20
"""The issue's identity target (99.5 %) holds for corner indices at least this tall, image pixels."""
WHOLE_INDEX = 0.95
"""Share of a corner index in view above which it counts as wholly in view (the renderer's visibility grid; any
corner of the card, whether stage 1 boxed it or not)."""

STACK_IN_VIEW = 0.95
"""Least share of a rendered stack in view (in frame and not under a card) for its side to count as showing: a
stack the frame's edge cuts shows part of its side or none of it (the hold-out's abstentions at >= 2 px per chip
were stacks 2-63 % in frame, and one whose bottom chip lay on the frame's bottom edge: twenty-seventh session)."""

REPO = Path(__file__).resolve().parents[1]


class Tally:
    """Accumulates multiset precision/recall, a confusion matrix and accuracy by index height."""

    def __init__(self) -> None:
        self.tp = self.n_pred = self.n_true = 0
        self.images = 0
        self.confusion = np.zeros((53, 53), np.int64)  # last row/col: unreadable / missed
        self.by_height: dict[int, list[int]] = {}
        self.at_target = [0, 0]  # [right, read] among indices >= TARGET_INDEX_PX tall
        self.cards_at_target = [0, 0]  # [named right, cards] among cards whose tallest visible index is >= target
        self.cards_all = [0, 0]
        self.whole_at_target = [0, 0]  # the same, among cards with a corner index wholly in view
        self.suit_at_target = [0, 0]  # the same, among cards with a corner index in view whose suit shows

    def add_card(self, right: bool, index_h: float, whole: bool = True, suit_shows: bool = True) -> None:
        """One physical card with at least one corner index in view: named right in ``cards`` or not.

        Args:
            index_h: height of its tallest corner index in view, image px.
            whole: some corner index shows whole (at least :data:`WHOLE_INDEX` of it): a card whose every index
                is half covered by the next card dealt may show its rank but not its suit.
            suit_shows: some corner index in view (half of it or more) shows at least half of its suit symbol
                (:attr:`datasets.render.CardTruth.suit_visible`): a card that shows only ranks cannot be named,
                and ``unreadable`` is the right answer for it.
        """
        self.cards_all[0] += int(right)
        self.cards_all[1] += 1
        if index_h >= TARGET_INDEX_PX:
            self.cards_at_target[0] += int(right)
            self.cards_at_target[1] += 1
            if whole:
                self.whole_at_target[0] += int(right)
                self.whole_at_target[1] += 1
            if suit_shows:
                self.suit_at_target[0] += int(right)
                self.suit_at_target[1] += 1

    def add_sets(self, truth: list[str], pred: list[str]) -> None:
        t, p = Counter(truth), Counter(x for x in pred if x != UNREADABLE)
        self.tp += sum((t & p).values())
        self.n_true += sum(t.values())
        self.n_pred += sum(p.values())
        self.images += 1

    def add_match(self, truth: str, read: str | None, index_h: float) -> None:
        if truth not in CARD_LABELS:
            return
        i = CARD_LABELS.index(truth)
        j = CARD_LABELS.index(read) if read in CARD_LABELS else 52
        self.confusion[i, j] += 1
        b = int(np.searchsorted(HEIGHT_BINS, index_h, side="right") - 1)
        self.by_height.setdefault(b, [0, 0])
        self.by_height[b][0] += int(i == j)
        self.by_height[b][1] += 1
        if index_h >= TARGET_INDEX_PX:
            self.at_target[0] += int(i == j)
            self.at_target[1] += 1

    def summary(self) -> dict:
        prec = self.tp / self.n_pred if self.n_pred else None
        rec = self.tp / self.n_true if self.n_true else None
        n = int(self.confusion.sum())
        correct = int(np.trace(self.confusion[:52, :52]))
        pairs = []
        for i in range(52):
            for j in range(53):
                if i != j and self.confusion[i, j]:
                    pairs.append({"truth": CARD_LABELS[i], "read": CARD_LABELS[j] if j < 52 else "unreadable/missed",
                                  "count": int(self.confusion[i, j])})
        pairs.sort(key=lambda d: -d["count"])
        heights = [{"index_px": f"{HEIGHT_BINS[b]}-{HEIGHT_BINS[b + 1]}", "cards": v[1],
                    "accuracy": round(v[0] / v[1], 4)} for b, v in sorted(self.by_height.items())]
        return {"images": self.images, "precision": _r(prec), "recall": _r(rec), "true_cards": self.n_true,
                "read_cards": self.n_pred, "matched_cards": n, "identity_accuracy": _r(correct / n if n else None),
                f"identity_accuracy_index_ge_{TARGET_INDEX_PX}px": _r(self.at_target[0] / self.at_target[1]
                                                                     if self.at_target[1] else None),
                f"cards_index_ge_{TARGET_INDEX_PX}px": self.at_target[1],
                "confusion_pairs": pairs[:25], "accuracy_by_index_height": heights,
                **({"card_identity": _r(self.cards_all[0] / self.cards_all[1]),
                    f"card_identity_index_ge_{TARGET_INDEX_PX}px": _r(self.cards_at_target[0] / self.cards_at_target[1]
                                                                      if self.cards_at_target[1] else None),
                    f"cards_with_index_ge_{TARGET_INDEX_PX}px": self.cards_at_target[1],
                    f"card_identity_index_whole_ge_{TARGET_INDEX_PX}px": _r(
                        self.whole_at_target[0] / self.whole_at_target[1] if self.whole_at_target[1] else None),
                    f"cards_with_index_whole_ge_{TARGET_INDEX_PX}px": self.whole_at_target[1],
                    f"card_identity_suit_in_view_ge_{TARGET_INDEX_PX}px": _r(
                        self.suit_at_target[0] / self.suit_at_target[1] if self.suit_at_target[1] else None),
                    f"cards_with_suit_in_view_ge_{TARGET_INDEX_PX}px": self.suit_at_target[1]}
                 if self.cards_all[1] else {})}


def _r(x):
    return None if x is None else round(float(x), 4)


def _iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(N, 4) x (M, 4) -> (N, M) IoU."""
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)


def _match_indices(tally: Tally, result, truth_boxes: np.ndarray, truth_labels: list[str]) -> list[str | None]:
    """Each truth corner box -> the detected index whose centre lies in it: its group's card label.

    The centre, not the box overlap, decides: stage 1 boxes an index in its zone's turned crop,
    so the image-axis box of that box is wider than the index (up to ~3x) while its centre, and
    the square the reader is given, sit on it. The truth box is grown by a quarter each way for
    the match; of several candidates the nearest wins.

    Returns:
        per truth box, the label read (``None``: no index detected there).
    """
    d = result.dets
    rows = np.flatnonzero(d.class_id == 0)
    squares = d.data.get("index_square")
    if len(rows) and squares is not None:
        centres = np.asarray(squares)[rows].reshape(-1, 4, 2).mean(1)
    else:
        centres = (d.xyxy[rows, :2] + d.xyxy[rows, 2:]) / 2 if len(rows) else np.zeros((0, 2))
    card_of_row = {m: c.label for c in result.cards for m in c.members}
    read: list[str | None] = []
    for k, lab in enumerate(truth_labels):
        x1, y1, x2, y2 = (float(v) for v in truth_boxes[k])
        h = y2 - y1
        gx, gy = 0.25 * (x2 - x1), 0.25 * h
        inside = np.flatnonzero((centres[:, 0] >= x1 - gx) & (centres[:, 0] <= x2 + gx)
                                & (centres[:, 1] >= y1 - gy) & (centres[:, 1] <= y2 + gy)) if len(rows) else []
        if len(inside):
            c = np.array([(x1 + x2) / 2, (y1 + y2) / 2])
            j = int(inside[np.argmin(np.linalg.norm(centres[inside] - c, axis=1))])
            got = card_of_row.get(int(rows[j]), d.label[rows[j]])
        else:
            got = None
        tally.add_match(lab, got, h)
        read.append(got)
    return read


# --- rendered hold-out ------------------------------------------------------------------------------------


def holdout_scene(seed: int, deck: str, width: int = 1920, height: int = 1080):
    """A rendered calibrated frame with 1-4 cards per seat (overlapping like dealt hands) and chips in spots.

    Returns:
        (image, :class:`TableView`, RenderResult).
    """
    from calibration.camera import PinholeCamera
    from calibration.layout import builtin_layout
    from datasets.render import Style, render_frame
    from datasets.scene import ChipLayer, ChipStack, PlacedCard, TableState
    from vision.chips import default_chip_set

    rng = np.random.default_rng(seed)
    layout = builtin_layout(str(rng.choice(["blackjack-7-mtd-bonus", "spanish21-6-mtd", "switch-hands-7"])))
    cover = float(rng.uniform(1100, 1900))
    camera = PinholeCamera.looking_at(target=(950, float(rng.uniform(420, 560))), tilt_deg=float(rng.uniform(0, 35)),
                                      yaw_deg=float(rng.uniform(-8, 8)), width=width, height=height, cover_mm=cover)
    shoe = list(rng.permutation(CARD_LABELS * 2))
    denoms = [c.denomination for c in default_chip_set()]
    cards, chips = [], []
    for z in layout.zones:
        if z.kind in ("cards", "dealer_cards") and rng.random() < 0.85:
            cx, cy = z.centroid
            base = float(rng.uniform(-25, 25))
            for k in range(int(rng.integers(1, 5))):
                face_up = not (z.kind == "dealer_cards" and k == 1 and rng.random() < 0.7)
                cards.append(PlacedCard(card=str(shoe.pop()), face_up=face_up,
                                        center=(cx - 25 + 16 * k + rng.normal(0, 2), cy - 10 + 9 * k + rng.normal(0, 2)),
                                        angle_deg=base + float(rng.normal(0, 6)), layer=k, zone=z.name))
        elif z.kind in ("main", "mtd", "bonus") and z.circle is not None and rng.random() < 0.6:
            n_layers = 1 if rng.random() < 0.7 else 2
            layers = tuple(ChipLayer(int(rng.choice(denoms)), int(rng.integers(1, 6))) for _ in range(n_layers))
            chips.append(ChipStack(center=z.circle.center, layers=layers, zone=z.name))
    result = render_frame(layout, TableState(cards=tuple(cards), chips=tuple(chips)), camera, Style(deck=deck), rng=seed)
    view = TableView(id="holdout", layout=layout, homography=camera.homography(), camera=camera,
                     chip_set=default_chip_set())
    return result.image, view, result


def _side_px_per_chip(view: TableView, zone_name: str | None) -> float | None:
    """Pixels per chip on the side of a stack centred in zone ``zone_name``'s spot (the hold-out puts them there)."""
    from vision.chips import chip_geometry

    zone = next((z for z in view.layout.zones if z.name == zone_name), None)
    if zone is None or zone.circle is None or view.camera is None:
        return None
    return chip_geometry(view.camera, zone.circle.center)[0]


def stack_in_view(stack, width: int, height: int) -> bool:
    """Whether a rendered stack (a :class:`datasets.render.ChipTruth`) shows its whole side: its outline ((K, 2)
    image px) inside the ``width`` x ``height`` frame and at least :data:`STACK_IN_VIEW` of it uncovered."""
    outline = np.asarray(stack.outline, np.float64).reshape(-1, 2)
    inside = bool(len(outline)) and bool((outline >= 0).all() and (outline[:, 0] <= width).all()
                                         and (outline[:, 1] <= height).all())
    return inside and stack.visible >= STACK_IN_VIEW


def _tally_stack(band: dict, outcome: str, in_view: bool) -> None:
    """Count one stack's ``outcome`` (``value_exact``, ``abstained`` or ``wrong``) in ``band``, and in its
    ``in_view`` part too where the stack's whole side is in view."""
    for part in (band, band["in_view"]) if in_view else (band,):
        part["stacks"] += 1
        part[outcome] += 1


def eval_rendered(fr: FrameReader, n: int, seed: int, deck: str, log) -> dict:
    from datasets.render import MIN_SUIT_VISIBLE
    from vision.chips import MIN_PX_PER_CHIP, SURE_PX_PER_CHIP

    tally, chips_total, chips_exact, chips_abstain, chips_wrong = Tally(), 0, 0, 0, 0
    # the chip target counts stacks whose side shows >= SURE_PX_PER_CHIP (2) px per chip; thinner sides
    # down to MIN_PX_PER_CHIP are read at a stricter threshold and reported apart; below that they must abstain
    # each band also counts apart the stacks whose whole side is in view (:func:`stack_in_view`)
    countable, thin, too_flat = ({"stacks": 0, "value_exact": 0, "abstained": 0, "wrong": 0,
                                  "in_view": {"stacks": 0, "value_exact": 0, "abstained": 0, "wrong": 0}}
                                 for _ in range(3))
    for k in range(n):
        image, view, truth = holdout_scene(seed + k, deck)
        res = fr(image, view)
        t_labels = [c.label for c in truth.cards if (c.face_up and c.index_boxes) or (not c.face_up and c.visible > 0.3)]
        tally.add_sets(t_labels, [c.label for c in res.cards])
        boxes, labels, owner = [], [], []
        for i, c in enumerate(truth.cards):
            for b in c.index_boxes:  # the corner indices at least half in view
                boxes.append(b)
                labels.append(c.label)
                owner.append(i)
        read = _match_indices(tally, res, np.array(boxes, np.float32).reshape(-1, 4), labels)
        # per card (the measure): named right through any of its corners in view
        for i, c in enumerate(truth.cards):
            mine = [k for k, o in enumerate(owner) if o == i]
            if mine:
                tally.add_card(any(read[k] == c.label for k in mine),
                               max(float(boxes[k][3] - boxes[k][1]) for k in mine),
                               whole=max(c.index_visible, default=0.0) >= WHOLE_INDEX,
                               suit_shows=any(v >= 0.5 and sv >= MIN_SUIT_VISIBLE
                                              for v, sv in zip(c.index_visible, c.suit_visible)))
        # chips: each truth stack of <= 10 chips matched to the detected stack read standing on its betting spot,
        # else to the one overlapping it most. Stage 1 boxes a stack in its seat's rectified crop, and that box's
        # image bounds match the stack's silhouette loosely (IoU 0.26-0.55 for stacks read right), so IoU alone
        # counted stacks valued right as not found.
        det_chips = [(res.dets.xyxy[row], reading) for row, reading in res.chips]
        on_spot = {res.stack_spots[row]: reading for row, reading in res.chips if row in res.stack_spots}
        for ct in truth.chips:
            if ct.box is None or ct.count > 10:
                continue
            chips_total += 1
            ppc = _side_px_per_chip(view, ct.zone)
            band = too_flat if ppc is None or ppc < MIN_PX_PER_CHIP else (
                countable if ppc >= SURE_PX_PER_CHIP else thin)
            reading = on_spot.get(ct.zone)
            if reading is None:
                ious = [_iou(np.array([ct.box], np.float32), b[None])[0, 0] for b, _ in det_chips]
                # not found counts as no answer
                reading = det_chips[int(np.argmax(ious))][1] if ious and max(ious) >= 0.3 else None
            outcome = "abstained" if reading is None or reading.value is None else (
                "value_exact" if reading.value == ct.value else "wrong")
            chips_abstain += outcome == "abstained"
            chips_exact += outcome == "value_exact"
            chips_wrong += outcome == "wrong"
            _tally_stack(band, outcome, stack_in_view(ct, image.shape[1], image.shape[0]))
    out = tally.summary()
    out["deck"] = deck
    out["chips"] = {"stacks": chips_total, "value_exact": chips_exact, "abstained": chips_abstain,
                    "wrong": chips_wrong, "exact_rate": _r(chips_exact / chips_total if chips_total else None),
                    f"side_ge_{SURE_PX_PER_CHIP:g}px_per_chip": {
                        **countable, "exact_rate": _r(countable["value_exact"] / countable["stacks"]
                                                      if countable["stacks"] else None),
                        "in_view": {**countable["in_view"], "exact_rate": _r(
                            countable["in_view"]["value_exact"] / countable["in_view"]["stacks"]
                            if countable["in_view"]["stacks"] else None)}},
                    f"side_{MIN_PX_PER_CHIP:g}_to_{SURE_PX_PER_CHIP:g}px_per_chip": thin,
                    f"side_lt_{MIN_PX_PER_CHIP:g}px_per_chip": too_flat}
    log(f"rendered hold-out: {json.dumps({k: out[k] for k in ('precision', 'recall', 'identity_accuracy')})}")
    return out, tally


# --- real photos -----------------------------------------------------------------------------------------


def _yolo_boxes(path: Path, w: int, h: int) -> tuple[np.ndarray, list[int]]:
    boxes, cls = [], []
    if path.is_file():
        for line in path.read_text().splitlines():
            v = line.split()
            if len(v) == 5:
                c, cx, cy, bw, bh = int(v[0]), *map(float, v[1:])
                boxes.append([(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h])
                cls.append(c)
    return np.array(boxes, np.float32).reshape(-1, 4), cls


ZK7WU_FINE_TUNE_BEFORE = {"webcam_multi": "WIN_20240627_13", "phone_whitedeck": "IMG_20220921_1955",
                          "phone_blackdeck": "IMG_7760"}
"""The `real-cards-zk7wu` photos the card reader may be fine-tuned on (`models.real_indices`): per photo kind, the
files named before this (the earlier shots: webcam frames taken before 13:00 on 27 June 2024, 26 of 57; white-deck
photos before 19:55, 26 of 53; black-deck photos up to IMG_7759, 22 of 47). Names are capture times or counters,
so a repeated shot stays on one side; the later shots are never trained on and `eval detect` reports them apart."""


def zk7wu_fine_tune(file: str, kind: str) -> bool:
    """Whether a `real-cards-zk7wu` photo (file name, manifest ``kind``) is in the reader's fine-tune part."""
    cut = ZK7WU_FINE_TUNE_BEFORE.get(kind)
    return cut is not None and file < cut


def eval_zk7wu(fr: FrameReader, root: Path, log) -> dict:
    """Card precision and recall on `real-cards-zk7wu`, per photo kind and per part of the fine-tune split.

    Returns:
        (per kind: the :meth:`Tally.summary` of all its photos, plus ``reader_on_true_boxes`` (stage 2 alone on the
        labelled corner boxes) and ``fine_tune_photos`` / ``held_out_photos`` (the same two on each part of
        :data:`ZK7WU_FINE_TUNE_BEFORE`), the overall :class:`Tally`).
    """
    names = (root / "classes.txt").read_text().split("\n")
    names = [n.strip() for n in names if n.strip()]
    rows = list(csv.DictReader(open(root / "manifest.csv")))
    per_kind: dict[str, Tally] = {}
    overall = Tally()
    oracle: dict[str, list] = {}  # stage 2 alone, on the true corner boxes: (truth, read, calibrated score, top card)
    for r in rows:
        img = cv2.imread(str(root / "images" / r["file"]))
        if img is None:
            continue
        h, w = img.shape[:2]
        boxes, cls = _yolo_boxes(root / "labels_bbox" / (Path(r["file"]).stem + ".txt"), w, h)
        labels = [names[c] for c in cls]
        keep = [i for i, lab in enumerate(labels) if lab in CARD_LABELS]
        res = fr(img, None)
        part = f"{r['kind']}/{'fine_tune_photos' if zk7wu_fine_tune(r['file'], r['kind']) else 'held_out_photos'}"
        if keep:
            read, score, probs = fr.reader.read(img, boxes[keep])
            rows_ = [(labels[i], str(lab), float(sc), CARD_LABELS[int(pr.argmax())])
                     for i, lab, sc, pr in zip(keep, read, score, probs)]
            oracle.setdefault(r["kind"], []).extend(rows_)
            oracle.setdefault(part, []).extend(rows_)
        truth_set = sorted(set(labels[i] for i in keep))
        pred = [c.label for c in res.cards if c.label not in (BACK,)]
        for t in (per_kind.setdefault(r["kind"], Tally()), per_kind.setdefault(part, Tally()), overall):
            t.add_sets(truth_set, sorted(set(pred)))
            _match_indices(t, res, boxes[keep], [labels[i] for i in keep])
    out = {kind: t.summary() for kind, t in sorted(per_kind.items())}
    for kind, rows_ in sorted(oracle.items()):
        n = len(rows_)
        answered = [x for x in rows_ if x[1] != UNREADABLE]
        top1 = Counter((t, p) for t, p, _, _ in rows_ if t != p and p != UNREADABLE)
        out[kind]["reader_on_true_boxes"] = {
            "indices": n, "top1_accuracy": _r(sum(t == a for t, _, _, a in rows_) / n if n else None),
            "coverage": _r(len(answered) / n if n else None),
            "accuracy_answered": _r(sum(t == p for t, p, _, _ in answered) / len(answered) if answered else None),
            "wrong_answers": sum(top1.values()),
            "confusion_pairs": [{"truth": t, "read": p, "count": c} for (t, p), c in top1.most_common(12)]}
    for kind in [k for k in out if "/" in k]:
        whole, part = kind.split("/")
        out[whole][part] = out.pop(kind)
    for kind, s in out.items():
        log(f"zk7wu {kind}: precision {s['precision']} recall {s['recall']} index accuracy {s['identity_accuracy']}")
        log(f"zk7wu {kind} reader on true boxes: {s.get('reader_on_true_boxes')}")
        for part in ("fine_tune_photos", "held_out_photos"):
            if part in s:
                q = s[part]
                log(f"zk7wu {kind} {part}: precision {q['precision']} recall {q['recall']} "
                    f"reader on true boxes top-1 {q.get('reader_on_true_boxes', {}).get('top1_accuracy')}")
    return out, overall


def eval_martinabeleda(fr: FrameReader, root: Path, log) -> dict:
    rows = list(csv.DictReader(open(root / "image_labels.csv")))
    tally = Tally()
    per_image = []
    for r in rows:
        img = cv2.imread(str(root / "images" / r["file"]))
        if img is None:
            continue
        truth = r["cards_row_major"].split()
        res = fr(img, None)
        read = [c.label for c in res.cards if c.label not in (BACK, UNREADABLE)]
        tally.add_sets(truth, sorted(set(read)))
        got = sorted(set(truth) & set(read))
        per_image.append({"image": r["file"], "named": len(got), "of": len(truth),
                          "wrong": sorted(set(read) - set(truth)), "missed": sorted(set(truth) - set(read))})
    unl = []
    for p in sorted((root / "images_unlabeled").glob("surface*.png")):
        img = cv2.imread(str(p))
        if img is not None:
            res = fr(img, None)
            unl.append({"image": p.name, "cards": [c.label for c in res.cards], "chips": len(res.chips)})
    out = tally.summary()
    out.pop("confusion_pairs")
    out.pop("accuracy_by_index_height")
    out["all_13_named"] = sum(1 for x in per_image if x["named"] == x["of"])
    out["per_image"] = per_image
    out["unlabelled"] = unl
    log(f"martinabeleda: all 13 named in {out['all_13_named']}/{len(per_image)}; recall {out['recall']}")
    return out


DEGEN101_FINE_TUNE_PREFIX = "2023"
"""The `real-chips-degen101` photos stage 1 may be fine-tuned on (`models.stage1_data.real_chip_set`): the phone
photos named by date (59). The `IMG_*` photos (55, another camera) are never trained on."""


def eval_chips(fr: FrameReader, root: Path, log) -> dict:
    """Chip stack recall on `real-chips-degen101` (one box per stack), all photos and each part of the split.

    Returns:
        {"stacks", "detected", "recall_iou50", "recall_iou30", "fine_tune_photos": {...}, "held_out_photos": {...}}:
        a truth stack is found when a chip box overlaps it by IoU >= 0.5 (or >= 0.3).
    """
    keys = ("found50", "found30", "stacks", "detected")
    tally = {part: dict.fromkeys(keys, 0) for part in ("fine_tune_photos", "held_out_photos")}
    for p in sorted((root / "images").glob("*.jpg")):
        img = cv2.imread(str(p))
        if img is None:
            continue
        h, w = img.shape[:2]
        boxes, cls = _yolo_boxes(root / "labels_bbox" / (p.stem + ".txt"), w, h)
        res = fr(img, None)
        det = res.dets.xyxy[res.dets.class_id == 2]
        iou = _iou(boxes, det)
        t = tally["fine_tune_photos" if p.name.startswith(DEGEN101_FINE_TUNE_PREFIX) else "held_out_photos"]
        t["stacks"] += len(boxes)
        t["detected"] += len(det)
        if iou.size:
            t["found50"] += int((iou.max(1) >= 0.5).sum())
            t["found30"] += int((iou.max(1) >= 0.3).sum())

    def summary(t: dict) -> dict:
        n = t["stacks"]
        return {"stacks": n, "detected": t["detected"], "recall_iou50": _r(t["found50"] / n if n else None),
                "recall_iou30": _r(t["found30"] / n if n else None)}

    out = summary({key: sum(t[key] for t in tally.values()) for key in keys})
    out.update((part, summary(t)) for part, t in tally.items())
    log(f"degen101 chips: {out}")
    return out


# --- plots (OpenCV only: the runtime has no matplotlib) -----------------------------------------------------


def confusion_png(confusion: np.ndarray, path: Path) -> None:
    """52x52 confusion matrix (rows truth, columns read) as a PNG, log-scaled cells, labels on both axes."""
    cell, margin = 14, 40
    m = confusion[:52, :52].astype(np.float64)
    img = np.full((margin + 52 * cell + 4, margin + 52 * cell + 4, 3), 255, np.uint8)
    scale = np.log1p(m) / max(np.log1p(m).max(), 1e-9)
    for i in range(52):
        for j in range(52):
            if m[i, j]:
                v = int(255 * (1 - scale[i, j]))
                colour = (v, v, 255) if i != j else (v, 255, v)
                cv2.rectangle(img, (margin + j * cell, margin + i * cell), (margin + (j + 1) * cell - 1,
                              margin + (i + 1) * cell - 1), colour, -1)
    for k, lab in enumerate(CARD_LABELS):
        cv2.putText(img, lab, (2, margin + k * cell + 11), cv2.FONT_HERSHEY_PLAIN, 0.7, (0, 0, 0), 1)
        strip = np.full((cell, margin - 4, 3), 255, np.uint8)
        cv2.putText(strip, lab, (2, 11), cv2.FONT_HERSHEY_PLAIN, 0.7, (0, 0, 0), 1)
        img[2:margin - 2, margin + k * cell:margin + (k + 1) * cell] = np.rot90(strip)
    _write_png(img, path)


def height_png(rows: dict[str, list[dict]], path: Path) -> None:
    """Accuracy against index height, one line per set (x: index height bin, y: accuracy 0-1)."""
    W, H, m = 640, 360, 50
    img = np.full((H, W, 3), 255, np.uint8)
    cv2.rectangle(img, (m, 20), (W - 20, H - m), (0, 0, 0), 1)
    bins = [f"{HEIGHT_BINS[b]}-{HEIGHT_BINS[b + 1]}" for b in range(len(HEIGHT_BINS) - 1)]
    xs = {b: m + int((k + 0.5) * (W - 20 - m) / len(bins)) for k, b in enumerate(bins)}
    for k, b in enumerate(bins):
        cv2.putText(img, b.replace("-10000", "+"), (xs[b] - 18, H - m + 16), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 0, 0), 1)
    for y in (0, 0.5, 0.9, 1.0):
        py = int(H - m - y * (H - m - 20))
        cv2.line(img, (m, py), (W - 20, py), (220, 220, 220), 1)
        cv2.putText(img, f"{y:.1f}", (8, py + 4), cv2.FONT_HERSHEY_PLAIN, 0.9, (0, 0, 0), 1)
    cv2.putText(img, "card accuracy vs index height (px)", (m, 14), cv2.FONT_HERSHEY_PLAIN, 1.0, (0, 0, 0), 1)
    colours = [(200, 0, 0), (0, 150, 0), (0, 0, 200), (150, 0, 150), (0, 120, 160)]
    for n, (name, pts) in enumerate(rows.items()):
        c = colours[n % len(colours)]
        prev = None
        for p in pts:
            pt = (xs[p["index_px"]], int(H - m - p["accuracy"] * (H - m - 20)))
            cv2.circle(img, pt, 3, c, -1)
            if prev:
                cv2.line(img, prev, pt, c, 1, cv2.LINE_AA)
            prev = pt
        cv2.putText(img, name, (W - 200, 40 + 16 * n), cv2.FONT_HERSHEY_PLAIN, 1.0, c, 1)
    _write_png(img, path)


def _write_png(img: np.ndarray, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    ok, buf = cv2.imencode(".png", img)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(buf.tobytes())
    os.replace(tmp, path)


CHECKED_DESIGNS = ("proc-duplex-std", "proc-roboto-large", "proc-simplex-large", "proc-serif-large", "proc-black-gold")
"""Training deck designs ``eval detect --per-design`` renders: the two most common in the round videos, the other
large-index ones, and the black-faced deck."""


def run_eval(out: Path, data: Path | None = None, holdout: int = 40, seed: int = 9001, deck: str = "proc-caladea-std",
             log=sys.stderr, stage1: Path | None = None, reader: Path | None = None, px_per_mm: float = 1.0,
             real: bool = True, chip_side: Path | None = DEFAULT_CHIP_SIDE, per_design: int = 0,
             designs: tuple[str, ...] = CHECKED_DESIGNS) -> dict:
    """Run every available set; write ``confusion.png``, ``height.png`` and ``metrics.json`` under ``out``.

    Args:
        px_per_mm: zone-crop resolution of the calibrated path (rendered hold-out).
        real: also run the real sets in ``data`` (each skipped with a reason where absent).
        chip_side: the chip-side model (None: stacks valued from their box height only).
        per_design: frames rendered (new seeds, ``seed`` + 50,000) for each of ``designs``, deck designs the
            models trained on, reported as ``rendered:<design>`` (the hold-out design alone flattered the
            detector: large-index decks read worst); 0 to skip. Their cards are not in the confusion plot.
    """
    from vision.detector import DEFAULT_STAGE1

    def say(msg: str) -> None:
        print(msg, file=log, flush=True)

    data = data or REPO.parent / "shared" / "data"
    fr = FrameReader(stage1 or DEFAULT_STAGE1, reader, px_per_mm=px_per_mm, chip_side=chip_side)
    t0 = time.time()
    result: dict = {"sets": {}, "skipped": {}}
    confusion = np.zeros((53, 53), np.int64)
    heights = {}
    if holdout:
        s, tally = eval_rendered(fr, holdout, seed, deck, say)
        result["sets"]["rendered"] = s
        confusion += tally.confusion
        heights["rendered"] = s["accuracy_by_index_height"]
    for design in designs if per_design else ():
        s, _ = eval_rendered(fr, per_design, seed + 50_000, design, lambda m: None)
        s.pop("confusion_pairs", None)
        result["sets"][f"rendered:{design}"] = s
        say(f"rendered {design}: " + json.dumps({k: s[k] for k in ("precision", "recall", "card_identity")}))
    sets = {"real-cards-zk7wu": eval_zk7wu, "real-felt-layouts-martinabeleda": eval_martinabeleda,
            "real-chips-degen101": eval_chips}
    for name, fn in sets.items() if real else ():
        root = data / name
        if not root.is_dir():
            result["skipped"][name] = f"{root} is absent"
            say(f"skipping {name}: {root} is absent")
            continue
        r = fn(fr, root, say)
        if isinstance(r, tuple):
            r, tally = r
            confusion += tally.confusion
            heights[name] = tally.summary()["accuracy_by_index_height"]
        result["sets"][name] = r
    confusion_png(confusion, out / "confusion.png")
    height_png(heights, out / "height.png")
    result["plots"] = {"confusion": str(out / "confusion.png"), "height": str(out / "height.png")}
    result["seconds"] = round(time.time() - t0, 1)
    tmp = out / ".metrics.json.tmp"
    tmp.write_text(json.dumps(result, indent=2))
    os.replace(tmp, out / "metrics.json")
    return result
