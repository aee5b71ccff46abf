"""Calibration from ArUco markers at known layout positions, and lens calibration from a ChArUco board.

Markers (``pitwatch calibrate IMAGE --markers [--marker-map FILE]``): square ArUco
markers are laid on the felt at known places for the calibration shot.  Without a
marker map the default placement is used (:func:`default_marker_map`): marker
``k`` (``DICT_4X4_50``, 40 mm) centred on seat ``k``'s main betting spot, marker 0
centred on the dealer's card area, every marker upright for the dealer (its top
edge towards the dealer).  A marker map file (YAML or JSON) says otherwise::

    dictionary: DICT_4X4_50
    markers:
      - {id: 0, center: [950, 250], size_mm: 40}
      - {id: 3, center: [1240.5, 688.1], size_mm: 40, angle_deg: 15}

``angle_deg`` turns a marker counter-clockwise as seen from above (on screen).

Lens (``pitwatch calibrate-lens IMAGE... --out lens.json``): a ChArUco board
photographed in several poses gives the intrinsics and distortion (OpenCV's
model); ``pitwatch calibrate --lens lens.json`` then stores them in
``calibration.json`` and the homography maps to undistorted pixels.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import yaml

from calibration.homography import CalibrationError, CalibrationResult, apply_homography, atomic_write_text
from calibration.layout import Layout

DEFAULT_DICTIONARY = "DICT_4X4_50"
DEFAULT_MARKER_MM = 40.0


def aruco_dictionary(name: str) -> "cv2.aruco.Dictionary":
    """OpenCV's predefined dictionary called ``name`` (``DICT_4X4_50``, ...).

    Raises:
        CalibrationError: for an unknown name.
    """
    code = getattr(cv2.aruco, name, None) if name.startswith("DICT_") else None
    if not isinstance(code, int):
        raise CalibrationError(f"unknown ArUco dictionary {name!r} (e.g. {DEFAULT_DICTIONARY}, DICT_5X5_100)")
    return cv2.aruco.getPredefinedDictionary(code)


@dataclass(frozen=True)
class MarkerSpec:
    """One marker on the felt: ``id``, ``center`` (x, y) mm, side ``size_mm``, ``angle_deg`` (counter-clockwise from above)."""

    id: int
    center: tuple[float, float]
    size_mm: float = DEFAULT_MARKER_MM
    angle_deg: float = 0.0

    def corners_mm(self) -> np.ndarray:
        """(4, 2) mm corners in OpenCV's order: top-left, top-right, bottom-right, bottom-left (top = towards the dealer)."""
        h = self.size_mm / 2
        local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
        a = math.radians(-self.angle_deg)  # counter-clockwise on screen, where y points down
        R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return local @ R.T + np.asarray(self.center)


@dataclass
class MarkerMap:
    """Markers placed on a layout: the ArUco ``dictionary`` name and the ``markers``."""

    dictionary: str = DEFAULT_DICTIONARY
    markers: list[MarkerSpec] = field(default_factory=list)

    def by_id(self) -> dict[int, MarkerSpec]:
        return {m.id: m for m in self.markers}


def default_marker_map(layout: Layout, size_mm: float = DEFAULT_MARKER_MM) -> MarkerMap:
    """Marker ``k`` on seat ``k``'s main spot, marker 0 on the dealer's card area (see the module docstring)."""
    markers = []
    if layout.has_zone("dealer.cards"):
        markers.append(MarkerSpec(0, tuple(layout.zone("dealer.cards").centroid), size_mm))
    for seat in range(1, layout.seats + 1):
        name = f"seat{seat}.main"
        if layout.has_zone(name):
            z = layout.zone(name)
            c = z.circle.center if z.circle is not None else z.centroid
            markers.append(MarkerSpec(seat, tuple(c), size_mm))
    return MarkerMap(DEFAULT_DICTIONARY, markers)


def load_marker_map(path: str | Path) -> MarkerMap:
    """Read a marker map (YAML or JSON, see the module docstring).

    Raises:
        CalibrationError: naming the file and the entry that is wrong.
    """
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CalibrationError(f"{path}: cannot read marker map: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise CalibrationError(f"{path}: not valid YAML/JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("markers"), list):
        raise CalibrationError(f"{path}: expected a mapping with a 'markers' list")
    name = str(data.get("dictionary", DEFAULT_DICTIONARY))
    aruco_dictionary(name)
    markers = []
    for k, m in enumerate(data["markers"]):
        try:
            markers.append(MarkerSpec(int(m["id"]), (float(m["center"][0]), float(m["center"][1])),
                                      float(m.get("size_mm", DEFAULT_MARKER_MM)), float(m.get("angle_deg", 0.0))))
        except (KeyError, TypeError, ValueError, IndexError):
            raise CalibrationError(f"{path}: markers[{k}]: needs id, center [x, y] mm, optional size_mm, angle_deg") from None
    ids = [m.id for m in markers]
    if len(set(ids)) != len(ids):
        raise CalibrationError(f"{path}: marker ids repeat")
    return MarkerMap(name, markers)


def marker_image(marker_id: int, side_px: int, dictionary: str = DEFAULT_DICTIONARY, border_bits: int = 1) -> np.ndarray:
    """(side_px, side_px) uint8 image of one marker (black on white, including its white quiet zone of one cell).

    The marker's own square fills the central ``side_px * n / (n + 2)`` pixels,
    where ``n`` is the dictionary's marker size plus two border cells.
    """
    d = aruco_dictionary(dictionary)
    n = d.markerSize + 2 * border_bits
    inner = int(round(side_px * n / (n + 2)))
    img = cv2.aruco.generateImageMarker(d, marker_id, inner, borderBits=border_bits)
    out = np.full((side_px, side_px), 255, np.uint8)
    o = (side_px - inner) // 2
    out[o:o + inner, o:o + inner] = img
    return out


def detect_markers(image: np.ndarray, dictionary: str = DEFAULT_DICTIONARY) -> dict[int, np.ndarray]:
    """ArUco markers in ``image``: id -> (4, 2) float64 corner pixels (top-left, top-right, bottom-right, bottom-left)."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    det = cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), params)
    corners, ids, _ = det.detectMarkers(grey)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).astype(np.float64) for i, c in zip(ids.ravel(), corners)}


def calibrate_markers(image: np.ndarray, layout: Layout, marker_map: MarkerMap | None = None, min_markers: int = 3,
                      max_error_mm: float = 3.0, camera_matrix: np.ndarray | None = None,
                      dist_coeffs: np.ndarray | None = None, source: str = "image") -> CalibrationResult:
    """Solve the homography from the corners of the ArUco markers found in ``image``.

    Args:
        image: (H, W, 3) uint8 BGR frame with markers on the felt.
        layout: the layout the marker map refers to.
        marker_map: where the markers lie (default: :func:`default_marker_map`).
        min_markers: fewest known markers that must be found.
        max_error_mm: largest accepted RMS corner error, mm on the felt.
        camera_matrix, dist_coeffs: optional lens model (the image is undistorted first).
        source: the image's name for messages.

    Returns:
        The calibration (``method="markers"``).

    Raises:
        CalibrationError: too few known markers found, or too large an error.
    """
    marker_map = marker_map or default_marker_map(layout)
    h, w = image.shape[:2]
    lens = camera_matrix is not None
    D = np.zeros(5) if dist_coeffs is None else np.asarray(dist_coeffs, np.float64)
    if lens:
        image = cv2.undistort(image, np.asarray(camera_matrix, np.float64), D)
    found = detect_markers(image, marker_map.dictionary)
    known = marker_map.by_id()
    use = sorted(i for i in found if i in known)
    if len(use) < min_markers:
        raise CalibrationError(
            f"{source}: found {len(use)} of the {len(known)} placed {marker_map.dictionary} markers "
            f"(ids {sorted(use)}; {len(found)} marker(s) in view in all), need {min_markers}")
    src = np.vstack([known[i].corners_mm() for i in use])
    dst = np.vstack([found[i] for i in use])
    H, _ = cv2.findHomography(src, dst, cv2.RANSAC if len(use) >= 3 else 0, ransacReprojThreshold=3.0)
    if H is None:
        raise CalibrationError(f"{source}: marker corners do not determine a homography")
    inl = np.linalg.norm(apply_homography(H, src) - dst, axis=1) < 3.0
    H, _ = cv2.findHomography(src[inl], dst[inl], 0)
    back = apply_homography(np.linalg.inv(H), dst)
    err = np.linalg.norm(back - src, axis=1)
    rms = float(np.sqrt(np.mean(err**2)))
    if not np.isfinite(rms) or rms > max_error_mm:
        raise CalibrationError(f"{source}: marker corners disagree by {rms:.1f} mm RMS (limit {max_error_mm:g} mm): "
                               "is the marker map right for this table?")
    return CalibrationResult(
        homography=H, image_size=(w, h), layout_id=layout.id, reprojection_error_mm=rms, method="markers",
        features_matched=len(use), camera_matrix=np.asarray(camera_matrix, np.float64) if lens else None,
        dist_coeffs=D if lens else None, extra={"markers": use},
    )


# --- lens: ChArUco --------------------------------------------------------------------
@dataclass(frozen=True)
class CharucoSpec:
    """A ChArUco board: ``squares`` (columns, rows), ``square_mm``, ``marker_mm``, ArUco ``dictionary``."""

    squares: tuple[int, int] = (7, 5)
    square_mm: float = 40.0
    marker_mm: float = 30.0
    dictionary: str = "DICT_5X5_100"

    def board(self) -> "cv2.aruco.CharucoBoard":
        return cv2.aruco.CharucoBoard(self.squares, self.square_mm, self.marker_mm, aruco_dictionary(self.dictionary))

    def image(self, px_per_mm: float = 4.0, margin_px: int = 20) -> np.ndarray:
        """(H, W) uint8 printable image of the board."""
        size = (int(self.squares[0] * self.square_mm * px_per_mm) + 2 * margin_px,
                int(self.squares[1] * self.square_mm * px_per_mm) + 2 * margin_px)
        return self.board().generateImage(size, marginSize=margin_px)


@dataclass
class LensModel:
    """Intrinsics and distortion from a ChArUco calibration.

    Attributes:
        camera_matrix: (3, 3) pixels.  dist_coeffs: (K,) OpenCV's (k1, k2, p1, p2, k3, ...).
        image_size: (width, height).  rms_px: RMS reprojection error of the board corners, pixels.
        views: how many images had the board.
    """

    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    image_size: tuple[int, int]
    rms_px: float
    views: int

    def to_json(self) -> dict:
        return {"camera_matrix": self.camera_matrix.tolist(), "dist_coeffs": self.dist_coeffs.ravel().tolist(),
                "image_size": list(self.image_size), "rms_px": round(self.rms_px, 4), "views": self.views}

    def save(self, path: str | Path) -> Path:
        """Write ``lens.json`` whole or not at all."""
        return atomic_write_text(path, json.dumps(self.to_json(), indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> "LensModel":
        """Read ``lens.json`` (or a ``calibration.json`` that holds a lens model).

        Raises:
            CalibrationError: naming the file when it is unreadable or lacks the lens fields.
        """
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            K = np.array(data["camera_matrix"], np.float64).reshape(3, 3)
            D = np.array(data["dist_coeffs"], np.float64).ravel()
            size = tuple(int(v) for v in data["image_size"])
        except OSError as exc:
            raise CalibrationError(f"{path}: cannot read lens model: {exc.strerror or exc}") from None
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            raise CalibrationError(f"{path}: not a lens model (needs camera_matrix, dist_coeffs, image_size)") from None
        return cls(K, D, size, float(data.get("rms_px", 0.0)), int(data.get("views", 0)))


def calibrate_lens(images: list[np.ndarray], spec: CharucoSpec = CharucoSpec(), min_views: int = 3,
                   min_corners: int = 8, source: str = "images") -> LensModel:
    """Intrinsics and distortion from photos of a ChArUco board (OpenCV's ``calibrateCamera``).

    Args:
        images: (H, W, 3) or (H, W) frames of one camera, the board in several poses.
        spec: the board.
        min_views: fewest images in which the board must be found.
        min_corners: fewest ChArUco corners for an image to count.

    Raises:
        CalibrationError: too few usable views, or images of different sizes.
    """
    board = spec.board()
    det = cv2.aruco.CharucoDetector(board)
    obj_pts, img_pts = [], []
    size = None
    for img in images:
        grey = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        if size is None:
            size = (grey.shape[1], grey.shape[0])
        elif size != (grey.shape[1], grey.shape[0]):
            raise CalibrationError(f"{source}: images differ in size ({size} vs {grey.shape[1]}x{grey.shape[0]})")
        ch_corners, ch_ids, _, _ = det.detectBoard(grey)
        if ch_ids is None or len(ch_ids) < min_corners:
            continue
        o, i = board.matchImagePoints(ch_corners, ch_ids)
        if o is None or len(o) < min_corners:
            continue
        obj_pts.append(o.astype(np.float32))
        img_pts.append(i.astype(np.float32))
    if len(obj_pts) < min_views:
        raise CalibrationError(f"{source}: the ChArUco board ({spec.squares[0]}x{spec.squares[1]}, {spec.dictionary}) "
                               f"was found in {len(obj_pts)} of {len(images)} image(s), need {min_views}")
    rms, K, D, _, _ = cv2.calibrateCamera(obj_pts, img_pts, size, None, None)
    return LensModel(K, D.ravel(), size, float(rms), len(obj_pts))
