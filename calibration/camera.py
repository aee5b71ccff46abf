"""Pinhole camera over the table: intrinsics and pose, layout millimetres to pixels.

World frame: the layout frame of :mod:`calibration.layout` (``x`` right, ``y``
away from the dealer, millimetres) completed by ``z`` pointing *into* the felt,
so the frame is right-handed and everything above the felt has negative ``z``
(a chip stack 30 mm tall has its top at ``z = -30``).  The camera frame is
OpenCV's: ``x`` right, ``y`` down, ``z`` forward.

Example:
    >>> cam = PinholeCamera.looking_at(target=(950, 450), tilt_deg=25, yaw_deg=0,
    ...                                width=1920, height=1080, cover_mm=1300)
    >>> cam.project([[950, 450, 0]]).round(1).tolist()
    [[960.0, 540.0]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PinholeCamera:
    """A distortion-free pinhole camera.

    Attributes:
        K: (3, 3) float64 intrinsics, pixels.
        R: (3, 3) float64 rotation, world -> camera.
        t: (3,) float64 translation, mm (camera = R @ world + t).
        width, height: image size in pixels.
    """

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    width: int
    height: int

    @classmethod
    def looking_at(
        cls,
        target: tuple[float, float],
        tilt_deg: float,
        yaw_deg: float,
        width: int = 1920,
        height: int = 1080,
        cover_mm: float = 1300.0,
        distance_mm: float = 1800.0,
        roll_deg: float = 0.0,
    ) -> "PinholeCamera":
        """A camera aimed at ``target`` (mm on the felt).

        Args:
            target: the felt point at the image centre, mm.
            tilt_deg: angle between the optical axis and straight down (0 = overhead).
            yaw_deg: direction the camera stands in, seen from the target: 0 puts the
                camera on the players' side (+y) so the dealer is at the top of the
                image; 90 puts it at +x (first base).
            width, height: image size, pixels.
            cover_mm: felt width, mm, spanned by the image width at the target.
            distance_mm: camera-to-target distance, mm.
            roll_deg: rotation about the optical axis.

        Raises:
            ValueError: for a tilt outside [0, 85) degrees or a non-positive size.
        """
        if not 0 <= tilt_deg < 85:
            raise ValueError(f"tilt must be in [0, 85) degrees, got {tilt_deg}")
        if width <= 0 or height <= 0 or cover_mm <= 0 or distance_mm <= 0:
            raise ValueError("image size, cover and distance must be positive")
        tau, psi = math.radians(tilt_deg), math.radians(yaw_deg)
        near = np.array([math.sin(psi), math.cos(psi), 0.0])
        T = np.array([target[0], target[1], 0.0])
        C = T + distance_mm * np.array([math.sin(tau) * near[0], math.sin(tau) * near[1], -math.cos(tau)])
        f = (T - C) / np.linalg.norm(T - C)
        r = np.cross(near, f)
        r /= np.linalg.norm(r)
        d = np.cross(f, r)
        R = np.stack([r, d, f])
        if roll_deg:
            a = math.radians(roll_deg)
            Rz = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1.0]])
            R = Rz @ R
        t = -R @ C
        focal = width * distance_mm / cover_mm
        K = np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1.0]])
        return cls(K=K, R=R, t=t, width=width, height=height)

    @property
    def center_mm(self) -> np.ndarray:
        """(3,) camera centre in world mm."""
        return -self.R.T @ self.t

    def project(self, points: np.ndarray | list) -> np.ndarray:
        """Project world points to pixels.

        Args:
            points: (N, 3) mm, or (N, 2) mm on the felt (z = 0).

        Returns:
            (N, 2) float64 pixels.  Points behind the camera come back as NaN.
        """
        P = np.asarray(points, dtype=np.float64).reshape(-1, np.shape(points)[-1])
        if P.shape[1] == 2:
            P = np.hstack([P, np.zeros((len(P), 1))])
        cam = P @ self.R.T + self.t
        z = cam[:, 2:3]
        with np.errstate(divide="ignore", invalid="ignore"):
            uv = (cam @ self.K.T)[:, :2] / z
        uv[z[:, 0] <= 0] = np.nan
        return uv

    def homography(self) -> np.ndarray:
        """(3, 3) float64 homography mapping felt mm (x, y, 1) to pixels, normalised so H[2, 2] = 1."""
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        return H / H[2, 2]

    def to_json(self) -> dict:
        """A JSON-ready dict of the camera (lists of floats)."""
        return {"K": self.K.tolist(), "R": self.R.tolist(), "t": self.t.tolist(), "width": self.width, "height": self.height}

    @classmethod
    def from_json(cls, data: dict) -> "PinholeCamera":
        return cls(K=np.array(data["K"], float), R=np.array(data["R"], float), t=np.array(data["t"], float),
                   width=int(data["width"]), height=int(data["height"]))
