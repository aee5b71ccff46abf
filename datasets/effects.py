"""Photographic effects on a rendered frame: light, colour, glare, blur, noise, compression.

:class:`Effects` says how strong each one is; :meth:`Effects.video` is a mild,
fixed preset for round videos (the video encoder adds its own compression), and
:meth:`Effects.random` draws a varied set for training images (notes on
synthetic-to-real: model each noise family separately; never mirror).

Everything here is per image and in place where it can be, for speed: a
1080p frame pays a few milliseconds for light and noise.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Effects:
    """Strength of each effect (0 / ``None`` = off).

    Attributes:
        lighting: amplitude of the low-frequency light gradient and vignette (0..0.6).
        light_dir_deg: direction the light comes from, degrees on screen.
        colour_temp: -1 (cool, bluish) .. +1 (warm, yellowish) white balance shift.
        brightness: overall gain (1 = as drawn).
        glare: strength of a specular patch on cards (0..1) -- each card gets one with probability ``glare_p``.
        glare_p: chance that a card shows glare.
        shadows: darkness of the shadows cast by cards, chips and hands (0..1).
        motion_blur_px: length of a linear motion blur, px.
        motion_dir_deg: its direction, degrees.
        defocus_px: Gaussian blur sigma, px.
        noise: Gaussian sensor noise sigma, DN.
        salt_pepper: fraction of pixels set to black or white (webcam impulse noise).
        downscale: render-then-shrink factor (> 1 shrinks by this and enlarges back: soft webcam look).
        jpeg_quality: JPEG round-trip quality (``None`` = none).
    """

    lighting: float = 0.15
    light_dir_deg: float = 250.0
    colour_temp: float = 0.0
    brightness: float = 1.0
    glare: float = 0.0
    glare_p: float = 0.0
    shadows: float = 0.35
    motion_blur_px: float = 0.0
    motion_dir_deg: float = 0.0
    defocus_px: float = 0.0
    noise: float = 1.5
    salt_pepper: float = 0.0
    downscale: float = 1.0
    jpeg_quality: int | None = None

    @classmethod
    def none(cls) -> "Effects":
        """No effects at all (clean renders for tests)."""
        return cls(lighting=0.0, shadows=0.0, noise=0.0)

    @classmethod
    def video(cls) -> "Effects":
        """A mild fixed look for round videos: steady light, soft shadows, faint noise."""
        return cls(lighting=0.12, shadows=0.3, noise=1.0, glare=0.25, glare_p=0.15)

    @classmethod
    def random(cls, rng: np.random.Generator) -> "Effects":
        """A varied set for one training image (each family on in part of the images)."""
        def maybe(p: float, lo: float, hi: float) -> float:
            return float(rng.uniform(lo, hi)) if rng.random() < p else 0.0

        return cls(
            lighting=float(rng.uniform(0.0, 0.45)),
            light_dir_deg=float(rng.uniform(0, 360)),
            colour_temp=float(rng.uniform(-0.6, 0.8)),
            brightness=float(rng.uniform(0.7, 1.2)),
            glare=float(rng.uniform(0.2, 0.8)),
            glare_p=maybe(0.6, 0.1, 0.5),
            shadows=float(rng.uniform(0.1, 0.6)),
            motion_blur_px=maybe(0.15, 2.0, 7.0),
            motion_dir_deg=float(rng.uniform(0, 180)),
            defocus_px=maybe(0.25, 0.4, 1.4),
            noise=float(rng.choice([0.0, 1.5, 3.0, 6.0])),
            salt_pepper=maybe(0.15, 0.001, 0.006),
            downscale=float(rng.choice([1.0, 1.0, 1.0, 1.5, 2.0])),
            jpeg_quality=int(rng.integers(45, 95)) if rng.random() < 0.7 else None,
        )


def light_gain(height: int, width: int, fx: Effects) -> np.ndarray:
    """(H, W, 3) uint8 light gain, 128 = 1.0: gradient along ``light_dir_deg``, vignette, white balance.

    Multiply with ``cv2.multiply(img, gain, scale=1/128)``.
    """
    h, w = max(2, height // 8), max(2, width // 8)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    xs = xs / (w - 1) - 0.5
    ys = ys / (h - 1) - 0.5
    a = math.radians(fx.light_dir_deg)
    grad = -(xs * math.cos(a) + ys * math.sin(a))
    vign = -(xs ** 2 + ys ** 2)
    g = 1.0 + fx.lighting * (1.2 * grad + 1.0 * vign + 0.25)
    g = np.clip(g * fx.brightness, 0.2, 1.95)
    t = fx.colour_temp
    wb = np.array([1.0 - 0.18 * t, 1.0 + 0.02 * t, 1.0 + 0.14 * t], np.float32)  # BGR gains: warm = less blue
    gain = np.clip(g[..., None] * wb * 128.0, 0, 255).astype(np.uint8)
    return cv2.resize(gain, (width, height), interpolation=cv2.INTER_LINEAR)


@functools.lru_cache(maxsize=6)
def noise_planes(height: int, width: int, sigma: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Positive and negative parts of Gaussian noise (uint8 each), a little larger than the frame so a
    random offset gives fresh-looking noise each frame without drawing new numbers."""
    rng = np.random.default_rng(seed)
    n = rng.standard_normal((height + 32, width + 32, 3), dtype=np.float32) * np.float32(sigma)
    pos, neg = np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)
    pos.setflags(write=False)
    neg.setflags(write=False)
    return pos, neg


def add_noise(img: np.ndarray, planes: tuple[np.ndarray, np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """Add pre-drawn noise (:func:`noise_planes`) at a random offset; returns a new uint8 image."""
    H, W = img.shape[:2]
    dy, dx = int(rng.integers(0, 32)), int(rng.integers(0, 32))
    pos, neg = planes
    out = cv2.add(img, pos[dy : dy + H, dx : dx + W])
    return cv2.subtract(out, neg[dy : dy + H, dx : dx + W])


def salt_and_pepper(img: np.ndarray, fraction: float, rng: np.random.Generator) -> None:
    """Set ``fraction`` of the pixels to black or white, in place."""
    H, W = img.shape[:2]
    n = int(H * W * fraction)
    if n <= 0:
        return
    ys = rng.integers(0, H, n)
    xs = rng.integers(0, W, n)
    img[ys, xs] = np.where(rng.random(n) < 0.5, 0, 255)[:, None].astype(np.uint8)


def motion_blur(img: np.ndarray, length_px: float, angle_deg: float) -> np.ndarray:
    """A linear motion blur ``length_px`` long in direction ``angle_deg``."""
    k = max(3, int(round(length_px)) | 1)
    kernel = np.zeros((k, k), np.float32)
    c = k // 2
    a = math.radians(angle_deg)
    dx, dy = math.cos(a) * c, math.sin(a) * c
    cv2.line(kernel, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1, cv2.LINE_AA)
    kernel /= kernel.sum()
    return cv2.filter2D(img, -1, kernel)


def glare_patch(h: int, w: int, rng: np.random.Generator, strength: float) -> np.ndarray:
    """(h, w) uint8 additive specular highlight: a soft ellipse at a random place and angle."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
    a = rng.uniform(0, math.pi)
    sx, sy = rng.uniform(0.15, 0.5) * w, rng.uniform(0.05, 0.2) * h
    u = (xs - cx) * math.cos(a) + (ys - cy) * math.sin(a)
    v = -(xs - cx) * math.sin(a) + (ys - cy) * math.cos(a)
    g = np.exp(-0.5 * ((u / sx) ** 2 + (v / sy) ** 2))
    return np.clip(g * 255.0 * strength, 0, 255).astype(np.uint8)


def finish(img: np.ndarray, fx: Effects, rng: np.random.Generator, gain: np.ndarray | None = None,
           planes: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Apply the whole-frame effects in camera order: light, optics, sensor, compression.

    Args:
        img: (H, W, 3) uint8 BGR.
        fx: the effects.
        rng: randomness for noise offsets and impulse noise.
        gain: a cached :func:`light_gain` (computed here if ``None``).
        planes: cached :func:`noise_planes` (drawn here if ``None`` and noise is on).

    Returns:
        (H, W, 3) uint8 BGR.
    """
    H, W = img.shape[:2]
    if fx.lighting > 0 or fx.colour_temp != 0 or fx.brightness != 1.0:
        g = gain if gain is not None else light_gain(H, W, fx)
        img = cv2.multiply(img, g, scale=1 / 128.0)
    if fx.motion_blur_px >= 2:
        img = motion_blur(img, fx.motion_blur_px, fx.motion_dir_deg)
    if fx.defocus_px > 0.2:
        img = cv2.GaussianBlur(img, (0, 0), fx.defocus_px)
    if fx.downscale > 1.01:
        small = cv2.resize(img, (int(W / fx.downscale), int(H / fx.downscale)), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (W, H), interpolation=cv2.INTER_LINEAR)
    if fx.noise > 0:
        p = planes if planes is not None else noise_planes(H, W, float(fx.noise))
        img = add_noise(img, p, rng)
    if fx.salt_pepper > 0:
        salt_and_pepper(img, fx.salt_pepper, rng)
    if fx.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(fx.jpeg_quality)])
        if ok:
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img
