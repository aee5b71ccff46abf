"""Reading image files for the command line, with bad input reported as such."""

from __future__ import annotations

from pathlib import Path

from api.errors import BadInput


def read_image(path: Path):
    """(H, W, 3) uint8 BGR image; raises BadInput naming the file when it is missing or cannot be decoded."""
    import cv2
    import numpy as np

    if not path.is_file():
        raise BadInput(f"{path}: image file not found")
    data = np.fromfile(str(path), dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise BadInput(f"{path}: not a readable image (empty, truncated or not an image format OpenCV reads)")
    return image
