"""Ink masks for card glyphs: rank characters in several fonts and suit symbols in several styles.

Every mask is a (H, W) uint8 array, 255 where ink, cropped tight to its ink so
callers can scale it to an exact printed height.  Fonts are OpenCV's Hershey
fonts (always present), Pillow's built-in font, and TrueType fonts shipped by pip
packages (``font-roboto``, ``font-lato``, ``font-caladea``, ``font-source-serif-pro``,
``font-fjallaone``); a font whose package is missing falls back to a Hershey font
with a warning so a clean install still draws every design.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import warnings
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

_HERSHEY = {
    "hershey-simplex": cv2.FONT_HERSHEY_SIMPLEX,
    "hershey-duplex": cv2.FONT_HERSHEY_DUPLEX,
    "hershey-complex": cv2.FONT_HERSHEY_COMPLEX,
    "hershey-triplex": cv2.FONT_HERSHEY_TRIPLEX,
    "hershey-plain": cv2.FONT_HERSHEY_PLAIN,
}

# TrueType fonts by (pip package, file path inside the package; a bare name lies in its ``files`` folder).
_TTF = {
    "roboto-bold": ("font_roboto", "Roboto-Bold.ttf"),
    "roboto-black": ("font_roboto", "Roboto-Black.ttf"),
    "roboto-regular": ("font_roboto", "Roboto-Regular.ttf"),
    "lato-black": ("font_lato", "Lato-Black.ttf"),
    "lato-bold": ("font_lato", "Lato-Bold.ttf"),
    "caladea-bold": ("font_caladea", "Caladea-Bold.ttf"),
    "caladea-regular": ("font_caladea", "Caladea-Regular.ttf"),
    "sourceserif-bold": ("font_source_serif_pro", "SourceSerifPro-Bold.ttf"),
    "sourceserif-semibold": ("font_source_serif_pro", "SourceSerifPro-Semibold.ttf"),
    "fjalla": ("font_fjallaone", "FjallaOne-Regular.ttf"),
    # shipped with matplotlib (the train extra): serif faces close to the classic casino index
    "stix-bold": ("matplotlib", "mpl-data/fonts/ttf/STIXGeneralBol.ttf"),
    "stix-regular": ("matplotlib", "mpl-data/fonts/ttf/STIXGeneral.ttf"),
    "dejavuserif-bold": ("matplotlib", "mpl-data/fonts/ttf/DejaVuSerif-Bold.ttf"),
    "dejavusans-bold": ("matplotlib", "mpl-data/fonts/ttf/DejaVuSans-Bold.ttf"),
    "dejavumono-bold": ("matplotlib", "mpl-data/fonts/ttf/DejaVuSansMono-Bold.ttf"),
    "cm-bold": ("matplotlib", "mpl-data/fonts/ttf/cmb10.ttf"),
}

_DRAW_H = 160  # glyphs are drawn this tall, then scaled: small Hershey/TTF renders look ragged


@dataclass(frozen=True)
class FontSpec:
    """A font for rank characters.

    Attributes:
        name: a Hershey name (``hershey-duplex``), ``pil-default`` or a TTF name (``roboto-bold``).
        weight: Hershey stroke thickness as a fraction of the glyph height (ignored for TTF).
        bold_px: dilate (> 0) or erode (< 0) the mask by this many pixels at the drawing size.
    """

    name: str
    weight: float = 0.09
    bold_px: int = 0


def font_path(name: str) -> Path | None:
    """The TTF file of a pip-shipped font, or ``None`` when its package is not installed."""
    if name not in _TTF:
        return None
    package, filename = _TTF[name]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / ("files/" + filename if "/" not in filename else filename)
    return path if path.exists() else None


def font_available(name: str) -> bool:
    """Whether ``name`` draws with its own font here (else it falls back to a Hershey font)."""
    return name in _HERSHEY or name == "pil-default" or font_path(name) is not None


def _crop(mask: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(mask > 24)
    if len(xs) == 0:
        return np.zeros((1, 1), np.uint8)
    return mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


@functools.lru_cache(maxsize=512)
def _text_mask_cached(text: str, font: FontSpec) -> np.ndarray:
    name = font.name
    if name not in _HERSHEY and name != "pil-default" and font_path(name) is None:
        warnings.warn(f"font {name} is not installed; drawing with hershey-duplex", stacklevel=3)
        name = "hershey-duplex"
    if name in _HERSHEY:
        face = _HERSHEY[name]
        (_, h1), _ = cv2.getTextSize("8", face, 1.0, 1)
        scale = _DRAW_H / h1
        thick = max(1, int(round(_DRAW_H * font.weight)))
        (w, h), base = cv2.getTextSize(text, face, scale, thick)
        pad = thick * 2 + 4
        canvas = np.zeros((h + base + 2 * pad, w + 2 * pad), np.uint8)
        cv2.putText(canvas, text, (pad, pad + h), face, scale, 255, thick, cv2.LINE_AA)
    else:
        from PIL import Image, ImageDraw, ImageFont

        size = int(_DRAW_H * 1.4)
        pil_font = ImageFont.load_default(size=size) if name == "pil-default" else ImageFont.truetype(str(font_path(name)), size)
        left, top, right, bottom = pil_font.getbbox(text)
        img = Image.new("L", (right - left + 20, bottom - top + 20), 0)
        ImageDraw.Draw(img).text((10 - left, 10 - top), text, fill=255, font=pil_font)
        canvas = np.asarray(img, dtype=np.uint8).copy()
    if font.bold_px:
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(font.bold_px) + 1,) * 2)
        canvas = cv2.dilate(canvas, k) if font.bold_px > 0 else cv2.erode(canvas, k)
    out = _crop(canvas)
    out.setflags(write=False)
    return out


def text_mask(text: str, font: FontSpec, height_px: int, width_scale: float = 1.0, max_width_px: int | None = None) -> np.ndarray:
    """The ink of ``text`` scaled to exactly ``height_px`` rows.

    Args:
        text: e.g. ``"10"`` or ``"Q"``.
        font: the font.
        height_px: printed height of the ink, pixels.
        width_scale: horizontal stretch (< 1 condenses, as jumbo-index decks do for ``10``).
        max_width_px: squeeze narrower than this if needed.

    Returns:
        (height_px, W) uint8 mask.
    """
    m = _text_mask_cached(text, font)
    h, w = m.shape
    out_w = max(1, int(round(w * height_px / h * width_scale)))
    if max_width_px is not None:
        out_w = min(out_w, max_width_px)
    return cv2.resize(m, (out_w, max(1, int(height_px))), interpolation=cv2.INTER_AREA)


# --- suit symbols ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SuitStyle:
    """Shape parameters of the four suit symbols of one design.

    Attributes:
        heart_round: 0 = pointed classic heart, 1 = rounder lobes.
        diamond_aspect: width / height of the diamond (real decks: 0.6-0.8).
        diamond_curve: how much the diamond's sides bow inwards (0 = straight).
        club_lobe: radius of each club lobe as a fraction of the symbol height.
        stem: width of the spade and club stems as a fraction of the height.
    """

    heart_round: float = 0.3
    diamond_aspect: float = 0.72
    diamond_curve: float = 0.08
    club_lobe: float = 0.26
    stem: float = 0.12


def _heart_points(n: int, roundness: float) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - (5 - 2 * roundness) * np.cos(2 * t) - 2 * np.cos(3 * t) - (1 - roundness * 0.6) * np.cos(4 * t))
    return np.stack([x, y], 1)


def _fill(canvas: np.ndarray, pts: np.ndarray) -> None:
    cv2.fillPoly(canvas, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)


@functools.lru_cache(maxsize=128)
def _suit_mask_cached(suit: str, style: SuitStyle) -> np.ndarray:
    S = 200  # drawing size
    c = np.zeros((S + 40, S + 40), np.uint8)
    ox, oy = 20 + S / 2, 20 + S / 2
    if suit == "H":
        p = _heart_points(160, style.heart_round)
        p = (p - p.mean(0)) / (p[:, 1].max() - p[:, 1].min()) * S
        _fill(c, p + (ox, oy))
    elif suit == "D":
        hw, hh = S * style.diamond_aspect / 2, S / 2
        pts = []
        corners = [(0, -hh), (hw, 0), (0, hh), (-hw, 0)]
        for i in range(4):
            a, b = np.array(corners[i]), np.array(corners[(i + 1) % 4])
            mid = (a + b) / 2
            inward = -mid / (np.linalg.norm(mid) + 1e-9) * style.diamond_curve * S
            for u in np.linspace(0, 1, 20, endpoint=False):
                # a quadratic Bezier bowing the side towards the centre
                pts.append((1 - u) ** 2 * a + 2 * u * (1 - u) * (mid + inward) + u ** 2 * b)
        _fill(c, np.array(pts) + (ox, oy))
    elif suit == "S":
        p = _heart_points(160, style.heart_round * 0.6)
        p[:, 1] *= -1  # an upside-down heart is the spade's blade
        body_h = S * 0.78
        p = (p - p.mean(0)) / (p[:, 1].max() - p[:, 1].min()) * body_h
        p[:, 1] += -S / 2 + body_h / 2 - p[:, 1].min() - body_h / 2
        _fill(c, p + (ox, oy))
        sw = S * style.stem
        stem = np.array([(-sw / 2, 0.1 * S), (sw / 2, 0.1 * S), (sw * 1.9, S / 2), (-sw * 1.9, S / 2)])
        _fill(c, stem + (ox, oy))
    elif suit == "C":
        r = S * style.club_lobe
        centres = [(0, -S / 2 + r), (-r * 1.15, -S / 2 + r * 2.55), (r * 1.15, -S / 2 + r * 2.55)]
        for cx, cy in centres:
            cv2.circle(c, (int((ox + cx) * 16), int((oy + cy) * 16)), int(r * 16), 255, -1, cv2.LINE_AA, 4)
        sw = S * style.stem
        _fill(c, np.array([(-r * 0.5, -S / 2 + r * 1.8), (r * 0.5, -S / 2 + r * 1.8), (r * 0.5, -S / 2 + r * 2.6),
                           (-r * 0.5, -S / 2 + r * 2.6)]) + (ox, oy))
        stem = np.array([(-sw / 2, -S / 2 + r * 2.2), (sw / 2, -S / 2 + r * 2.2), (sw * 1.9, S / 2), (-sw * 1.9, S / 2)])
        _fill(c, stem + (ox, oy))
    else:
        raise ValueError(f"unknown suit {suit!r}: expected C, D, H or S")
    out = _crop(c)
    out.setflags(write=False)
    return out


def suit_mask(suit: str, style: SuitStyle, height_px: int) -> np.ndarray:
    """The suit symbol ``suit`` (``C D H S``) scaled to ``height_px`` rows; (height_px, W) uint8."""
    m = _suit_mask_cached(suit, style)
    h, w = m.shape
    return cv2.resize(m, (max(1, int(round(w * height_px / h))), max(1, int(height_px))), interpolation=cv2.INTER_AREA)


def paste(canvas: np.ndarray, mask: np.ndarray, colour: tuple[int, int, int], x0: int, y0: int, rotate180: bool = False) -> None:
    """Blend ``colour`` (BGR) into ``canvas`` through ``mask`` placed at top-left (x0, y0); clips at the edges."""
    if rotate180:
        mask = mask[::-1, ::-1]
    H, W = canvas.shape[:2]
    h, w = mask.shape
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(W, x0 + w), min(H, y0 + h)
    if xa >= xb or ya >= yb:
        return
    m = mask[ya - y0 : yb - y0, xa - x0 : xb - x0].astype(np.float32)[..., None] * (1 / 255.0)
    roi = canvas[ya:yb, xa:xb]
    roi[:] = (roi * (1 - m) + np.asarray(colour, np.float32) * m + 0.5).astype(np.uint8)
