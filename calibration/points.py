"""Calibration from point pairs given by a person (``pitwatch calibrate IMAGE --points FILE``).

The ``--points`` file pairs image pixels with layout positions.  Two forms:

JSON (``.json``)::

    {"points": [
      {"image": [812.5, 640.0], "layout": [1620.67, 312.74]},
      {"image": [1004, 702], "layout": "seat2.main"}
    ]}

Text (any other name): one pair per line, ``#`` starts a comment, fields split by
spaces or commas::

    # u_px  v_px  x_mm     y_mm
    812.5   640   1620.67  312.74
    1004    702   seat2.main

A layout position is either ``[x, y]`` millimetres in the layout frame (x right,
y away from the dealer) or the name of a betting spot (``seat2.main``), meaning
the centre of its printed circle.  Pixels are raw pixels of ``IMAGE`` (or of the
undistorted image where a lens model is given).  At least 4 pairs are needed, no
3 of them on one line; with 6 or more a RANSAC pass drops a mis-clicked pair
(reported in the result's ``points_rejected``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.homography import CalibrationError, CalibrationResult, apply_homography
from calibration.layout import Layout

MAX_POINTS_ERROR_MM = 8.0
"""Largest accepted RMS error of a hand-made calibration, mm on the felt."""


@dataclass(frozen=True)
class PointPair:
    """One pair: ``image`` (u, v) pixels and ``layout`` (x, y) mm; ``label`` is where it came from (line or index)."""

    image: tuple[float, float]
    layout: tuple[float, float]
    label: str = ""


def _layout_position(value, layout: Layout, where: str) -> tuple[float, float]:
    if isinstance(value, str):
        try:
            zone = layout.zone(value)
        except KeyError:
            raise CalibrationError(f"{where}: layout {layout.id} has no zone {value!r}") from None
        if zone.circle is None:
            raise CalibrationError(f"{where}: zone {value!r} is not a betting spot; give [x, y] mm instead")
        return (float(zone.circle.center[0]), float(zone.circle.center[1]))
    try:
        x, y = (float(v) for v in value)
    except (TypeError, ValueError):
        raise CalibrationError(f"{where}: layout position must be [x, y] mm or a spot name, got {value!r}") from None
    return (x, y)


def _pixel(value, where: str) -> tuple[float, float]:
    try:
        u, v = (float(x) for x in value)
    except (TypeError, ValueError):
        raise CalibrationError(f"{where}: image position must be [u, v] pixels, got {value!r}") from None
    if not (np.isfinite(u) and np.isfinite(v)):
        raise CalibrationError(f"{where}: image position is not finite")
    return (u, v)


def load_points(path: str | Path, layout: Layout) -> list[PointPair]:
    """Read a ``--points`` file (see the module docstring for its two forms).

    Raises:
        CalibrationError: naming the file and line (or entry) that is wrong.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(f"{path}: cannot read points: {exc.strerror or exc}") from None
    pairs: list[PointPair] = []
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"{path}: not valid JSON: {exc}") from None
        items = data.get("points") if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise CalibrationError(f"{path}: expected {{\"points\": [...]}}")
        for k, item in enumerate(items):
            where = f"{path}: points[{k}]"
            if not isinstance(item, dict) or "image" not in item or "layout" not in item:
                raise CalibrationError(f"{where}: needs 'image' and 'layout'")
            pairs.append(PointPair(_pixel(item["image"], where), _layout_position(item["layout"], layout, where),
                                   f"points[{k}]"))
        return pairs
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{path}:{n}"
        fields = [f for f in re.split(r"[,\s]+", line) if f]
        if len(fields) == 3:
            pos = _layout_position(fields[2], layout, where)
        elif len(fields) == 4:
            pos = _layout_position(fields[2:], layout, where)
        else:
            raise CalibrationError(f"{where}: expected 'u v x y' or 'u v SPOT', got {len(fields)} fields")
        pairs.append(PointPair(_pixel(fields[:2], where), pos, f"line {n}"))
    return pairs


def _collinear(P: np.ndarray, tol: float) -> bool:
    """Whether every point of (N, 2) ``P`` lies within ``tol`` of one line."""
    c = P - P.mean(axis=0)
    s = np.linalg.svd(c, compute_uv=False)
    return s[-1] / np.sqrt(len(P)) < tol


def calibrate_points(pairs: list[PointPair], layout: Layout, image_size: tuple[int, int],
                     max_error_mm: float = MAX_POINTS_ERROR_MM, camera_matrix: np.ndarray | None = None,
                     dist_coeffs: np.ndarray | None = None, source: str = "points") -> CalibrationResult:
    """Solve the homography from person-given pairs.

    Args:
        pairs: at least 4 point pairs (pixels of the raw image; undistorted here where a lens model is given).
        layout: the layout the positions refer to.
        image_size: (width, height) pixels.
        max_error_mm: largest accepted RMS error on the felt, mm.
        camera_matrix, dist_coeffs: optional lens model.
        source: the points file's name for messages.

    Returns:
        The calibration (``method="points"``).

    Raises:
        CalibrationError: too few pairs, pairs on one line, or an error above ``max_error_mm``.
    """
    if len(pairs) < 4:
        raise CalibrationError(f"{source}: {len(pairs)} point pair(s) given, need at least 4")
    src = np.array([p.layout for p in pairs], np.float64)
    dst = np.array([p.image for p in pairs], np.float64)
    lens = camera_matrix is not None
    D = np.zeros(5) if dist_coeffs is None else np.asarray(dist_coeffs, np.float64)
    if lens:
        K = np.asarray(camera_matrix, np.float64)
        dst = cv2.undistortPoints(dst.reshape(-1, 1, 2), K, D, P=K).reshape(-1, 2)
    if _collinear(src, 20.0):
        raise CalibrationError(f"{source}: the layout positions lie (nearly) on one line; spread them over the table")
    rejected: list[str] = []
    kept = list(pairs)
    if len(pairs) >= 6:
        H, inl = cv2.findHomography(src, dst, cv2.RANSAC, ransacReprojThreshold=max(4.0, 0.005 * max(image_size)))
        if H is not None and inl is not None and inl.sum() >= 4:
            keep = inl.ravel().astype(bool)
            rejected = [p.label for p, k in zip(pairs, keep) if not k]
            kept = [p for p, k in zip(pairs, keep) if k]
            src, dst = src[keep], dst[keep]
    H, _ = cv2.findHomography(src, dst, 0)
    if H is None or not np.all(np.isfinite(H)):
        raise CalibrationError(f"{source}: the point pairs do not determine a homography")
    back = apply_homography(np.linalg.inv(H), dst)
    err = np.linalg.norm(back - src, axis=1)
    rms = float(np.sqrt(np.mean(err**2)))
    # with exactly 4 pairs the fit is exact: the error says nothing (reported as 0)
    if not np.isfinite(rms) or rms > max_error_mm:
        worst = int(np.argmax(err))
        raise CalibrationError(
            f"{source}: RMS error {rms:.1f} mm exceeds {max_error_mm:g} mm (worst pair: {kept[worst].label}, "
            f"{err[worst]:.1f} mm)")
    return CalibrationResult(
        homography=H, image_size=image_size, layout_id=layout.id, reprojection_error_mm=rms, method="points",
        features_matched=len(src), camera_matrix=np.asarray(camera_matrix, np.float64) if lens else None,
        dist_coeffs=D if lens else None,
        extra={"points_rejected": rejected} if rejected else {},
    )
