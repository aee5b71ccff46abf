"""The calibration record: layout millimetres <-> image pixels, saved as ``calibration.json``.

A :class:`CalibrationResult` holds the plane homography ``H`` that maps a point on
the felt (x, y mm in the layout frame of :mod:`calibration.layout`) to pixels,
``[u, v, 1] ~ H @ [x, y, 1]``.  Where lens distortion is modelled (``camera_matrix``
and ``dist_coeffs`` in OpenCV's convention, from a ChArUco board) ``H`` maps to
*undistorted* pixels and the mapping helpers undistort / distort on the way.

File form (contracts, ``pitwatch calibrate``)::

    {"layout": "blackjack-7-mtd-bonus", "image_size": [1920, 1080],
     "homography": [[...], [...], [...]], "reprojection_error_mm": 0.8,
     "date": "2025-01-01T12:00:00+00:00", "method": "auto", "features_matched": 21,
     "camera_matrix": [[...]], "dist_coeffs": [...]}          # the last two optional

Example:
    >>> cal = CalibrationResult(homography=np.eye(3), image_size=(1920, 1080), layout_id="x")
    >>> cal.to_pixels([[10, 20]]).tolist()
    [[10.0, 20.0]]
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np


class CalibrationError(ValueError):
    """A calibration that cannot be made or used: the message says what was missing or wrong."""


def _now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` whole or not at all (temporary file in the same folder, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def normalise_homography(H: np.ndarray) -> np.ndarray:
    """``H`` scaled so that ``H[2, 2] == 1`` (or its Frobenius norm is 1 where ``H[2, 2]`` is ~0).

    Raises:
        CalibrationError: for a matrix that is not 3x3, not finite or singular.
    """
    H = np.asarray(H, dtype=np.float64)
    if H.shape != (3, 3) or not np.all(np.isfinite(H)):
        raise CalibrationError(f"homography must be a finite 3x3 matrix, got shape {H.shape}")
    if abs(np.linalg.det(H)) < 1e-12 * max(1.0, np.abs(H).max() ** 3):
        raise CalibrationError("homography is singular")
    s = H[2, 2] if abs(H[2, 2]) > 1e-12 else np.linalg.norm(H)
    return H / s


def apply_homography(H: np.ndarray, points: np.ndarray | list) -> np.ndarray:
    """Map (N, 2) points through the (3, 3) homography ``H``; returns (N, 2) float64 (NaN at infinity)."""
    P = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    q = P @ H[:, :2].T + H[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = q[:, :2] / q[:, 2:3]
    out[np.abs(q[:, 2]) < 1e-12] = np.nan
    return out


def local_scale_px_per_mm(H: np.ndarray, points_mm: np.ndarray | list) -> np.ndarray:
    """(N,) pixels per millimetre of the homography around each layout point (sqrt of the Jacobian's determinant)."""
    P = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    w = P @ H[2, :2] + H[2, 2]
    # det of the Jacobian of a homography at p is det(H) / w(p)^3
    return np.sqrt(np.abs(np.linalg.det(H) / w**3))


@dataclass(frozen=True)
class CameraPose:
    """A pinhole camera recovered from a homography (approximate where the focal length is assumed).

    Attributes:
        K: (3, 3) intrinsics, pixels.
        R: (3, 3) rotation world -> camera.
        t: (3,) translation, mm (camera = R @ world + t); world z points into the felt.
        focal_from_homography: whether the focal length was solved from ``H`` (else assumed).
    """

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    focal_from_homography: bool

    @property
    def center_mm(self) -> np.ndarray:
        """(3,) camera centre in layout mm (negative z: above the felt)."""
        return -self.R.T @ self.t

    def project(self, points: np.ndarray) -> np.ndarray:
        """(N, 3) mm (z < 0 above the felt) -> (N, 2) pixels."""
        P = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        cam = P @ self.R.T + self.t
        uv = cam @ self.K.T
        return uv[:, :2] / uv[:, 2:3]


def pose_from_homography(H: np.ndarray, image_size: tuple[int, int], camera_matrix: np.ndarray | None = None) -> CameraPose:
    """Decompose a felt -> pixel homography into a camera (K, R, t).

    Where no ``camera_matrix`` is given the principal point is taken at the image
    centre with square pixels and the focal length is solved from the two
    orthogonality constraints of the rotation; where those are ill-conditioned
    (a camera looking nearly straight down) a focal length of one image width is
    assumed, which then barely matters because the vertical runs along the optical axis.
    """
    w, h = image_size
    if camera_matrix is not None:
        K = np.asarray(camera_matrix, dtype=np.float64)
        from_h = True
    else:
        cx, cy = w / 2.0, h / 2.0
        T = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1.0]])
        G = T @ H
        g1, g2 = G[:, 0], G[:, 1]
        cands = []
        den1 = g1[2] * g2[2]
        den2 = g2[2] ** 2 - g1[2] ** 2
        weights = []
        if abs(den1) > 1e-14:
            cands.append(-(g1[0] * g2[0] + g1[1] * g2[1]) / den1)
            weights.append(abs(den1))
        if abs(den2) > 1e-14:
            cands.append((g1[0] ** 2 + g1[1] ** 2 - g2[0] ** 2 - g2[1] ** 2) / den2)
            weights.append(abs(den2))
        f2 = [c for c in cands if c > 0]
        f = None
        if f2:
            good = [(c, wt) for c, wt in zip(cands, weights) if c > 0]
            f = math.sqrt(sum(c * wt for c, wt in good) / sum(wt for _, wt in good))
        # perspective terms this small mean a near-overhead view: f is unobservable there
        # relative change of the projective depth across one image width of felt
        scale = math.sqrt(abs(np.linalg.det(G[:2, :2]))) / max(abs(G[2, 2]), 1e-12)
        persp = math.hypot(g1[2], g2[2]) / max(abs(G[2, 2]), 1e-12) * w / max(scale, 1e-12)
        from_h = f is not None and persp > 0.02 and 0.2 * w < f < 20 * w
        if not from_h:
            f = float(w)
        K = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]])
    M = np.linalg.inv(K) @ H
    lam = 2.0 / (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1]))
    M = M * lam
    if M[2, 2] < 0:  # the felt lies in front of the camera: t_z > 0
        M = -M
    r1, r2, t = M[:, 0], M[:, 1], M[:, 2]
    R = np.column_stack([r1, r2, np.cross(r1, r2)])
    U, _, Vt = np.linalg.svd(R)
    R = U @ Vt
    if np.linalg.det(R) < 0:
        R = U @ np.diag([1, 1, -1]) @ Vt
    return CameraPose(K=K, R=R, t=t, focal_from_homography=from_h)


@dataclass
class CalibrationResult:
    """One camera's calibration against one layout.

    Attributes:
        homography: (3, 3) float64, layout mm (x, y, 1) -> (undistorted) pixels, ``H[2, 2] == 1``.
        image_size: (width, height) pixels of the calibrated camera.
        layout_id: the layout's ``id``.
        reprojection_error_mm: RMS error of the calibration features, mm on the felt.
        date: ISO 8601 time the calibration was made (UTC).
        method: ``auto``, ``markers`` or ``points``.
        features_matched: how many layout features (circles, arcs, markers, points) were used.
        camera_matrix: (3, 3) intrinsics where a lens was calibrated, else ``None``.
        dist_coeffs: (K,) OpenCV distortion coefficients where a lens was calibrated, else ``None``.
    """

    homography: np.ndarray
    image_size: tuple[int, int]
    layout_id: str
    reprojection_error_mm: float = 0.0
    date: str = field(default_factory=_now_iso)
    method: str = "auto"
    features_matched: int = 0
    camera_matrix: np.ndarray | None = None
    dist_coeffs: np.ndarray | None = None
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.homography = normalise_homography(self.homography)
        self.image_size = (int(self.image_size[0]), int(self.image_size[1]))
        if self.camera_matrix is not None:
            self.camera_matrix = np.asarray(self.camera_matrix, dtype=np.float64).reshape(3, 3)
            self.dist_coeffs = np.asarray(self.dist_coeffs if self.dist_coeffs is not None else np.zeros(5), dtype=np.float64).ravel()

    # --- mapping ------------------------------------------------------------------
    @property
    def inverse(self) -> np.ndarray:
        """(3, 3) pixels -> layout mm."""
        return normalise_homography(np.linalg.inv(self.homography))

    @property
    def distorted(self) -> bool:
        return self.camera_matrix is not None and self.dist_coeffs is not None and bool(np.any(self.dist_coeffs != 0))

    def to_pixels(self, points_mm: np.ndarray | list, distort: bool = True) -> np.ndarray:
        """(N, 2) layout mm -> (N, 2) float64 pixels of the raw image (distorted where a lens model exists and ``distort``)."""
        uv = apply_homography(self.homography, points_mm)
        if distort and self.distorted:
            K = self.camera_matrix
            norm = (uv - K[:2, 2]) / np.diag(K)[:2]
            obj = np.hstack([norm, np.ones((len(norm), 1))])
            uv, _ = cv2.projectPoints(obj.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), K, self.dist_coeffs)
            uv = uv.reshape(-1, 2)
        return uv

    def to_mm(self, points_px: np.ndarray | list, undistort: bool = True) -> np.ndarray:
        """(N, 2) pixels of the raw image -> (N, 2) float64 layout mm (undistorted first where a lens model exists)."""
        P = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
        if undistort and self.distorted:
            P = self.undistort_points(P)
        return apply_homography(self.inverse, P)

    def undistort_points(self, points_px: np.ndarray) -> np.ndarray:
        """(N, 2) raw pixels -> (N, 2) undistorted pixels (identity without a lens model)."""
        P = np.asarray(points_px, dtype=np.float64).reshape(-1, 1, 2)
        if not self.distorted:
            return P.reshape(-1, 2)
        K = self.camera_matrix
        return cv2.undistortPoints(P, K, self.dist_coeffs, P=K).reshape(-1, 2)

    def undistort_image(self, image: np.ndarray) -> np.ndarray:
        """The image with lens distortion removed (the same image without a lens model)."""
        if not self.distorted:
            return image
        return cv2.undistort(image, self.camera_matrix, self.dist_coeffs)

    def px_per_mm(self, points_mm: np.ndarray | list) -> np.ndarray:
        """(N,) image pixels per layout mm around each point."""
        return local_scale_px_per_mm(self.homography, points_mm)

    def pose(self) -> CameraPose:
        """The camera (K, R, t) behind the homography (see :func:`pose_from_homography`)."""
        return pose_from_homography(self.homography, self.image_size, self.camera_matrix)

    def scaled(self, factor: float) -> "CalibrationResult":
        """The same calibration for the image resized by ``factor`` (e.g. 0.25 for a quarter-size frame)."""
        # pixel centres sit at integer coordinates: resizing by f maps x to (x + 0.5) f - 0.5
        o = 0.5 * factor - 0.5
        S = np.array([[factor, 0, o], [0, factor, o], [0, 0, 1.0]])
        K = None if self.camera_matrix is None else S @ self.camera_matrix
        return CalibrationResult(
            homography=S @ self.homography,
            image_size=(round(self.image_size[0] * factor), round(self.image_size[1] * factor)),
            layout_id=self.layout_id, reprojection_error_mm=self.reprojection_error_mm, date=self.date,
            method=self.method, features_matched=self.features_matched, camera_matrix=K,
            dist_coeffs=self.dist_coeffs, extra=dict(self.extra),
        )

    # --- file ---------------------------------------------------------------------
    def to_json(self) -> dict:
        """The contracts' ``calibration.json`` form (lists of floats)."""
        data = {
            "layout": self.layout_id,
            "image_size": [self.image_size[0], self.image_size[1]],
            "homography": [[float(v) for v in row] for row in self.homography],
            "reprojection_error_mm": round(float(self.reprojection_error_mm), 4),
            "date": self.date,
            "method": self.method,
            "features_matched": int(self.features_matched),
        }
        if self.camera_matrix is not None:
            data["camera_matrix"] = [[float(v) for v in row] for row in self.camera_matrix]
            data["dist_coeffs"] = [float(v) for v in self.dist_coeffs]
        data.update(self.extra)
        return data

    @classmethod
    def from_json(cls, data: dict, source: str = "calibration") -> "CalibrationResult":
        """Read the contracts' form.

        Raises:
            CalibrationError: naming ``source`` and the field that is missing or malformed.
        """
        if not isinstance(data, dict):
            raise CalibrationError(f"{source}: a calibration must be a JSON object")
        for key in ("layout", "image_size", "homography"):
            if key not in data:
                raise CalibrationError(f"{source}: missing field {key!r}")
        try:
            H = np.array(data["homography"], dtype=np.float64)
            size = data["image_size"]
            if len(size) != 2 or int(size[0]) <= 0 or int(size[1]) <= 0:
                raise ValueError
        except (TypeError, ValueError):
            raise CalibrationError(f"{source}: field 'homography' or 'image_size' is malformed") from None
        if H.shape != (3, 3):
            raise CalibrationError(f"{source}: field 'homography' must be 3x3, got shape {H.shape}")
        K = data.get("camera_matrix")
        D = data.get("dist_coeffs")
        try:
            K = None if K is None else np.array(K, dtype=np.float64).reshape(3, 3)
            D = None if D is None else np.array(D, dtype=np.float64).ravel()
        except (TypeError, ValueError):
            raise CalibrationError(f"{source}: field 'camera_matrix' or 'dist_coeffs' is malformed") from None
        known = {"layout", "image_size", "homography", "reprojection_error_mm", "date", "method", "features_matched",
                 "camera_matrix", "dist_coeffs"}
        try:
            return cls(
                homography=H, image_size=(int(size[0]), int(size[1])), layout_id=str(data["layout"]),
                reprojection_error_mm=float(data.get("reprojection_error_mm", 0.0)), date=str(data.get("date", "")),
                method=str(data.get("method", "auto")), features_matched=int(data.get("features_matched", 0)),
                camera_matrix=K, dist_coeffs=D, extra={k: v for k, v in data.items() if k not in known},
            )
        except CalibrationError as exc:
            raise CalibrationError(f"{source}: {exc}") from None

    def save(self, path: str | Path) -> Path:
        """Write the JSON whole or not at all (temporary file in the same folder, then rename)."""
        return atomic_write_text(path, json.dumps(self.to_json(), indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> "CalibrationResult":
        """Read ``calibration.json``.

        Raises:
            CalibrationError: naming the file when it cannot be read or is malformed.
        """
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise CalibrationError(f"{path}: cannot read calibration: {exc.strerror or exc}") from None
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"{path}: not valid JSON: {exc}") from None
        return cls.from_json(data, source=str(path))


def reprojection_rms_mm(H: np.ndarray, points_mm: np.ndarray, points_px: np.ndarray) -> float:
    """RMS distance, mm on the felt, between ``points_mm`` and ``points_px`` mapped back through ``H`` (layout -> px)."""
    back = apply_homography(np.linalg.inv(H), points_px)
    d = np.linalg.norm(back - np.asarray(points_mm, dtype=np.float64).reshape(-1, 2), axis=1)
    return float(np.sqrt(np.mean(d**2))) if len(d) else float("nan")
