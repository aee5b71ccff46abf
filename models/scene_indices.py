"""Corner-index crops cut by the detector from rendered round scenes, labelled from the render's truth.

The card reader is trained on index crops rendered one at a time (:class:`models.train.IndexCropSource`): a card's
corner, pasted, degraded. On the round videos it reads what stage 1 and the grouping cut from a dealt table: indices
caught while a card turns over, half under the next card of a hand, beside the dealer's hand, boxed loose or on the
rank alone. Its figures on the first kind have twice disagreed with the second (Stage 2, items 19 and 20 of
``models/MODEL_CARD.md``). This module makes the second kind for training and for scoring: the frames of scripted
rounds (:func:`datasets.rounds.script_video`, the round videos' own timeline) are rendered, run through the
detector as the review runs it (not live), and each corner index it finds is cut with
:func:`vision.card_reader.square_crop` and labelled with the card whose printed index holds the detection's centre
(:func:`index_label`); a detection on no visible index, or on one whose rank shows and whose suit lies under the next
card of a hand (:func:`index_truth`), is kept with label -1, a crop a reader should leave ``unreadable``.

Only fresh seeds are rendered for training; ``scripts/video_crops.py`` cuts the kept round videos (H.264, the
evaluation seeds) the same way for scoring.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from datasets.render import MIN_SUIT_VISIBLE


def index_truth(centre, cards, min_visible: float = 0.5,
                min_suit_visible: float = MIN_SUIT_VISIBLE) -> tuple[int, bool]:
    """What the corner index under a detection's centre shows, from the render's truth.

    Args:
        centre: (2,) image pixels, the detection's centre.
        cards: the render's :class:`datasets.render.CardTruth` list.
        min_visible: share of a printed index that must be in view (uncovered, in frame) to count.
        min_suit_visible: share of that index's suit symbol that must be in view for it to name its card
            (:attr:`datasets.render.CardTruth.suit_visible`).

    Returns:
        (class, suit_covered): the class (index into :data:`rules.cards.CARD_LABELS`) of the face-up card drawn on
        top among those whose visible index holds ``centre``, or -1 for none or for one whose suit is covered;
        ``suit_covered`` is True in that last case (the rank shows, the card does not: a reader should say
        ``unreadable``).
    """
    from rules.cards import CARD_LABELS

    best, order, covered = -1, -1, False
    point = (float(centre[0]), float(centre[1]))
    for c in cards:
        if not c.face_up:
            continue
        for quad, vis, suit in zip(c.index_quads, c.index_visible, c.suit_visible):
            if vis < min_visible or c.draw_order <= order:
                continue
            if cv2.pointPolygonTest(np.asarray(quad, np.float32).reshape(-1, 1, 2), point, False) >= 0:
                order = c.draw_order
                covered = suit < min_suit_visible
                best = -1 if covered else CARD_LABELS.index(c.card)
    return best, covered


def index_label(centre, cards, min_visible: float = 0.5, min_suit_visible: float = MIN_SUIT_VISIBLE) -> int:
    """The class of the card whose printed index, its suit in view, holds ``centre``; -1 for none
    (:func:`index_truth`'s first value)."""
    return index_truth(centre, cards, min_visible, min_suit_visible)[0]


def shows_a_dealt_card(cards) -> bool:
    """Whether a render's :class:`datasets.render.CardTruth` list has a face-up card in a card zone (a frame worth
    cutting)."""
    return any(c.face_up and c.zone and c.zone.endswith(".cards") for c in cards)


@dataclass
class SceneCrops:
    """Index crops cut from round scenes: ``crops`` (N, 40, 40, 3) uint8 BGR as the runtime cuts them, ``labels``
    (N,) int16 class or -1 (no index, or its suit covered), ``black`` (N,) bool no red ink on the crop
    (:func:`vision.ink.black_ink_only`), ``suit_covered`` (N,) bool an index whose rank shows and whose suit does not
    (:func:`index_truth`), and per crop its ``designs`` (deck design), ``seeds``, ``times`` (s) and ``zones``."""

    crops: list = field(default_factory=list)
    labels: list = field(default_factory=list)
    black: list = field(default_factory=list)
    designs: list = field(default_factory=list)
    seeds: list = field(default_factory=list)
    times: list = field(default_factory=list)
    zones: list = field(default_factory=list)
    suit_covered: list = field(default_factory=list)

    def add_frame(self, image: np.ndarray, truth_cards, frame_reader, view, seed: int, t: float, design: str,
                  min_visible: float = 0.5, min_suit_visible: float = MIN_SUIT_VISIBLE) -> int:
        """Run the detector on one (H, W, 3) uint8 BGR frame and keep its corner indices; returns how many."""
        from vision.card_reader import square_crop
        from vision.ink import black_ink_only

        res = frame_reader(image, view)
        rows = np.flatnonzero(res.dets.class_id == 0)
        if not len(rows):
            return 0
        squares = res.dets.data.get("index_square")
        cut = [square_crop(image, squares[r]) for r in rows]
        ink = black_ink_only(cut)
        for k, r in enumerate(rows):
            self.crops.append(cut[k])
            label, covered = index_truth(res.dets.xyxy[r].reshape(2, 2).mean(0), truth_cards, min_visible,
                                         min_suit_visible)
            self.labels.append(label)
            self.suit_covered.append(covered)
            self.black.append(bool(ink[k]))
            self.designs.append(design)
            self.seeds.append(seed)
            self.times.append(t)
            self.zones.append(str(res.dets.zone[r]))
        return len(rows)

    def save(self, path: Path) -> None:
        """Write the crops as one ``.npz`` (arrays named as the fields)."""
        np.savez_compressed(path, crops=np.stack(self.crops) if self.crops else np.zeros((0, 40, 40, 3), np.uint8),
                            labels=np.array(self.labels, np.int16), black=np.array(self.black, bool),
                            designs=np.array(self.designs), seeds=np.array(self.seeds, np.int32),
                            times=np.array(self.times, np.float32), zones=np.array(self.zones),
                            suit_covered=np.array(self.suit_covered, bool))


def render_scene_crops(seeds: list[int], out: Path, sizes: tuple[tuple[int, int], ...] = ((3840, 2160),),
                       every_s: float = 2.0, fps: float = 10.0, jpeg: tuple[int, int] = (45, 90),
                       min_visible: float = 0.5, threads: int = 2, log=print) -> SceneCrops:
    """Render the round scenes of ``seeds`` and keep the corner indices the detector cuts from them.

    For each seed the scripted video (:func:`datasets.rounds.script_video`, size ``sizes[i % len(sizes)]``) is
    rendered every ``every_s`` seconds where a face-up card lies in a card zone, in the video's own style, and
    JPEG-compressed at a quality drawn from ``jpeg`` (the videos are H.264; the render is not), then read by the
    detector with the video's true calibration.

    Args:
        seeds: video seeds (keep them apart from the round videos scored with ``pitwatch eval review``).
        out: the ``.npz`` to write (:meth:`SceneCrops.save`).
        sizes: (width, height) pixels, taken in turn.
        every_s: seconds between frames.

    Returns:
        the crops, also written to ``out``.

    Raises:
        ValueError: ``out`` is not a ``.npz`` path.
    """
    import tempfile

    from datasets.render import Renderer
    from datasets.round_cli import write_round_outputs
    from datasets.rounds import RoundVideoOptions, video_style
    from vision.detector import FrameReader, load_table_view

    out = Path(out)
    if out.suffix != ".npz":
        raise ValueError(f"{out}: the scene crops are written as one .npz file; name it so")
    out.parent.mkdir(parents=True, exist_ok=True)  # before the rendering, not after it
    frame_reader = FrameReader(threads=threads, live=False)
    crops = SceneCrops()
    started = time.perf_counter()
    for n, seed in enumerate(seeds):
        w, h = sizes[n % len(sizes)]
        style = video_style(seed)
        rng = np.random.default_rng(seed)
        with tempfile.TemporaryDirectory() as tmp:
            # the table file the review would be given: the video's layout and true calibration
            script, _ = write_round_outputs(Path(tmp), RoundVideoOptions(seed=seed, fps=fps, width=w, height=h),
                                            video=False)
            view = load_table_view(Path(tmp) / "table.yaml")
            renderer = Renderer(script.layout, script.camera, style)
            step = max(1, round(every_s * fps))
            kept = 0
            for i in range(step // 2, script.frames, step):
                truth = renderer.render(script.timeline.state_at(i / fps), rng=int(rng.integers(1 << 31)))
                if not shows_a_dealt_card(truth.cards):
                    continue
                ok, buf = cv2.imencode(".jpg", truth.image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*jpeg))])
                image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
                kept += crops.add_frame(image, truth.cards, frame_reader, view, seed, i / fps, style.deck,
                                        min_visible)
        log(f"[{n + 1}/{len(seeds)}] seed {seed} {style.deck} {w}x{h}: {kept} indices, "
            f"{time.perf_counter() - started:.0f} s")
    crops.save(out)
    labelled = sum(1 for v in crops.labels if v >= 0)
    log(f"{len(crops.labels)} indices ({labelled} on a card) -> {out}")
    return crops


class SceneIndexSource:
    """Training crops drawn from a :class:`SceneCrops` file.

    The reader is trained upright (:class:`models.train.IndexCropSource`, ``turn="upright"``); a scene's index lies
    at any angle, so each labelled crop is turned by the quarter turn at which ``teacher`` reads its true card best
    (as :class:`models.real_indices.RealIndexSource` does), then upside down half of the time, and lightly
    re-degraded. Crops on no index (label -1) are turned at random.

    Args:
        path: an ``.npz`` written by :func:`render_scene_crops`.
        seed: random seed.
        teacher: a :class:`vision.card_reader.CardReader`, or ``None`` to keep every crop as cut.
        held_out: deck designs whose crops are left out (the design held out of training entirely).

    Raises:
        FileNotFoundError: no such file.
        ValueError: the file holds no crops (once the held-out designs' are left out).
    """

    def __init__(self, path: Path, seed: int, teacher=None, held_out: tuple[str, ...] = ()) -> None:
        from models.real_indices import best_quarter_turns

        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such scene-crop file (make one with `pitwatch train scene-crops`)")
        data = np.load(path)
        keep = ~np.isin(data["designs"], list(held_out)) if len(data["designs"]) else np.zeros(0, bool)
        self.crops, self.labels = data["crops"][keep], data["labels"][keep].astype(np.int64)
        if not len(self.crops):
            raise ValueError(f"{path}: no crops" + (f" outside the held-out designs {list(held_out)}" if held_out
                                                      else ""))
        self.rng = np.random.default_rng(seed)
        self.quarters = np.zeros(len(self.crops), np.int64)
        on = np.flatnonzero(self.labels >= 0)
        if teacher is not None and len(on):
            self.quarters[on] = best_quarter_turns(teacher, self.crops[on], self.labels[on])

    def __len__(self) -> int:
        return len(self.crops)

    def sample(self) -> tuple[np.ndarray, int]:
        """One ((40, 40, 3) uint8 BGR crop, class or -1)."""
        from models.real_indices import _light_degrade

        rng = self.rng
        i = int(rng.integers(len(self.crops)))
        k = int(self.quarters[i]) + 2 * int(rng.integers(2)) if self.labels[i] >= 0 else int(rng.integers(4))
        return _light_degrade(rng, np.ascontiguousarray(np.rot90(self.crops[i], k))), int(self.labels[i])

