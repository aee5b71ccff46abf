"""Read freshly rendered chip stacks with a chip-side model, as the runtime does (model card, ninth session).

    python scripts/chip_side_eval.py models/chip_side.onnx

Three checks, each on new frames, stacks whose side shows >= 2 px per chip: the base guessed 3 mm off (N(0, 3 mm))
with half the frames at 3840 x 2160 (120 frames, seed 2005); the spot's centre at 1920 x 1080 (60 frames, seed 7777,
the model card's standing check); the spot's centre at 3840 x 2160 (60 frames, seed 7778).  Prints exact / wrong /
abstained per check, then all of them as one JSON line.  Needs the ``train`` extra (the renderer's scenes).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.chip_side_train import evaluate_reader  # noqa: E402

CHECKS = (("holdout_uhd0.5_sd3", dict(frames=120, seed=2005, uhd_share=0.5)),
          ("card_1080_centre", dict(frames=60, seed=7777, spot_sd_mm=0)),
          ("uhd_centre", dict(frames=60, seed=7778, spot_sd_mm=0, uhd_share=1.0)))


def main(model: Path) -> dict:
    out = {}
    for name, kw in CHECKS:
        out[name] = evaluate_reader(model, log=lambda m: None, **kw)
        print(name, out[name], flush=True)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("models/chip_side.onnx"))
