"""Card readers scored on the corner indices of the kept round videos, cut as the review cuts them.

A reader's figures on rendered crops have twice disagreed with what it does on the round videos (Stage 2, items 19
and 20 of ``models/MODEL_CARD.md``): the videos' indices are caught mid-turn, half under the next card of a hand,
under compression. This cuts those very crops, labels them from the render's own truth, and reads them with any
number of readers in seconds.

    python scripts/video_crops.py build KEEP --seeds 7170-7349 --every 3 --out .cache/s46/vcrops.npz
    python scripts/video_crops.py read .cache/s46/vcrops.npz models/card_reader_int8.onnx OTHER_int8.onnx

``build``: for each kept video (``KEEP/seedN/video.mp4`` and ``table.yaml``, as ``pitwatch eval review --keep``
leaves them), the frames every ``--every`` seconds that show a face-up card are decoded and run through the
detector (stage 1, grouping; not live); each corner index it finds is cut with :func:`vision.card_reader.square_crop`
and labelled from the render of that instant (:class:`models.scene_indices.SceneCrops`,
:func:`models.scene_indices.index_label`): the card whose printed index, at least ``--min-visible`` of it in view,
holds the detection's centre; a detection on no such index is kept as ``not an index`` (label -1), which a reader
should leave ``unreadable``. ``pitwatch train scene-crops`` cuts training crops the same way from fresh seeds,
rendered rather than decoded.

``read``: per reader, over the indices and per deck design: top-1, the share answered (calibrated top probability
at or above the reader's threshold, red cards struck out for an index with no red ink as
:meth:`vision.card_reader.CardReader.read` does), right when answered, the not-index crops answered (wrongly), and
the indices whose rank shows with their suit under the next card (``suit_covered``, files cut since the thirty-ninth
session; labelled -1, as a reader should leave them) answered.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def build(args) -> None:
    import cv2

    from datasets.render import Renderer
    from datasets.round_cli import parse_size
    from datasets.rounds import RoundVideoOptions, script_video, video_style
    from models.scene_indices import SceneCrops, shows_a_dealt_card
    from vision.detector import FrameReader, load_table_view
    from vision.review_cli import _parse_seeds

    width, height = parse_size(args.size)
    frame_reader = FrameReader(threads=args.threads, live=False)
    crops = SceneCrops()
    started = time.perf_counter()
    for n, seed in enumerate(_parse_seeds(args.seeds)):
        d = Path(args.keep) / f"seed{seed}"
        if not (d / "video.mp4").exists():
            print(f"seed {seed}: no video in {d}, skipped", file=sys.stderr)
            continue
        script = script_video(RoundVideoOptions(seed=seed, fps=args.fps, width=width, height=height))
        style = video_style(seed)
        renderer = Renderer(script.layout, script.camera, style)
        view = load_table_view(d / "table.yaml")
        step = max(1, round(args.every * script.fps))
        wanted = set(range(step // 2, script.frames, step))
        cap = cv2.VideoCapture(str(d / "video.mp4"))
        i, kept = 0, 0
        while True:
            ok, image = cap.read()
            if not ok:
                break
            if i in wanted:
                # the render of that instant gives the truth; the crops are cut from the decoded video frame
                truth = renderer.render(script.timeline.state_at(i / script.fps), rng=0)
                if shows_a_dealt_card(truth.cards):
                    kept += crops.add_frame(image, truth.cards, frame_reader, view, seed, i / script.fps,
                                            style.deck, args.min_visible)
            i += 1
        cap.release()
        print(f"[{n + 1}] seed {seed} {style.deck}: {kept} indices, {time.perf_counter() - started:.0f} s",
              file=sys.stderr, flush=True)
    crops.save(Path(args.out))
    print(f"{len(crops.labels)} indices ({sum(v >= 0 for v in crops.labels)} on a card) -> {args.out}",
          file=sys.stderr)


def read(args) -> None:
    import json

    from vision.card_reader import CardReader

    data = np.load(args.crops)
    crops, labels, black, designs = data["crops"], data["labels"], data["black"], data["designs"]
    # files cut before the thirty-ninth session do not mark the indices whose suit lies under the next card
    covered = data["suit_covered"] if "suit_covered" in data.files else np.zeros(len(labels), bool)
    on_card = labels >= 0
    table: dict = {}
    for path in args.readers:
        reader = CardReader(path, threads=args.threads)
        # the round videos are in colour: the ink veto applies as in the review
        p = np.concatenate([reader.read_crops(list(crops[i:i + 512]), black=black[i:i + 512])[2]
                            for i in range(0, len(crops), 512)])
        top, score = p.argmax(1), p.max(1)
        answered = score >= reader.threshold
        right = top == labels

        def figures(mask):
            m = mask & on_card
            a = m & answered
            return {"indices": int(m.sum()), "top1": round(float(right[m].mean()), 4) if m.any() else None,
                    "answered": round(float(a.sum() / max(m.sum(), 1)), 4),
                    "right_when_answered": round(float(right[a].mean()), 4) if a.any() else None,
                    "wrong_answers": int((a & ~right).sum()),
                    "not_index": int((mask & ~on_card).sum()),
                    "not_index_answered": int((mask & ~on_card & answered).sum()),
                    "suit_covered": int((mask & covered).sum()),
                    "suit_covered_answered": int((mask & covered & answered).sum())}

        row = {"all": figures(np.ones(len(labels), bool))}
        for d in sorted(set(designs.tolist())):
            row[d] = figures(designs == d)
        table[path] = row
    if args.json:
        print(json.dumps(table, indent=1))
        return
    names = list(table)
    print(f"{'':22s}" + "".join(f"{Path(n).parent.name + '/' + Path(n).stem:>56s}" for n in names))
    for key in table[names[0]]:
        cells = []
        for n in names:
            f = table[n][key]
            cells.append(f"{f['top1']:.3f} ans {f['answered']:.3f} rwa {f['right_when_answered']:.3f} "
                         f"w{f['wrong_answers']:3d} cov {f['suit_covered_answered']:3d}/{f['suit_covered']:<3d}"
                         if f["top1"] is not None else "-")
        print(f"{key[:22]:22s}" + "".join(f"{c:>56s}" for c in cells) + f"  n={table[names[0]][key]['indices']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="cut and label the kept videos' corner indices")
    b.add_argument("keep")
    b.add_argument("--seeds", required=True)
    b.add_argument("--size", default="3840x2160")
    b.add_argument("--fps", type=float, default=10.0)
    b.add_argument("--every", type=float, default=3.0, help="seconds between frames read")
    b.add_argument("--min-visible", type=float, default=0.5, help="share of a printed index in view to label it")
    b.add_argument("--threads", type=int, default=2)
    b.add_argument("--out", required=True)
    r = sub.add_parser("read", help="score card readers on built crops")
    r.add_argument("crops")
    r.add_argument("readers", nargs="+")
    r.add_argument("--threads", type=int, default=2)
    r.add_argument("--json", action="store_true")
    a = ap.parse_args()
    build(a) if a.cmd == "build" else read(a)


if __name__ == "__main__":
    main()
