"""The printed felt drawn top-down from a layout: colour, arcs, betting spots and words.

The image is the layout frame itself scaled by ``px_per_mm``: pixel ``(u, v)``
is felt point ``(u / px_per_mm, v / px_per_mm)`` mm, so the dealer is at the top
and a camera view is one homography away (:func:`felt_to_image_homography`).

Everything drawn comes from the layout data (:mod:`calibration.layout`): the
felt and print colours, the printed arcs, the spot circles of every betting spot
and the printed words ("BLACKJACK PAYS 3 TO 2", "INSURANCE PAYS 2 TO 1",
"MATCH THE DEALER", "BLACKJACK BONUS", ...), words on an arc following it.

Example:
    >>> from calibration.layout import builtin_layout
    >>> img = draw_layout_topdown(builtin_layout("blackjack-7-mtd-bonus"), px_per_mm=0.5)
    >>> img.shape, img.dtype
    ((500, 950, 3), dtype('uint8'))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.layout import Layout, PrintedText

_HERSHEY = {
    "simplex": cv2.FONT_HERSHEY_SIMPLEX,
    "duplex": cv2.FONT_HERSHEY_DUPLEX,
    "complex": cv2.FONT_HERSHEY_COMPLEX,
    "triplex": cv2.FONT_HERSHEY_TRIPLEX,
}


@dataclass(frozen=True)
class FeltStyle:
    """How the felt looks beyond what the layout fixes.

    Attributes:
        felt_rgb: felt colour override (else the layout's ``felt_rgb``).
        print_rgb: ink colour override (else the layout's ``print_rgb``).
        rail_rgb: colour of the padded rail beyond the table edge.
        outside_rgb: colour beyond the rail and on the dealer's side (floor, dealer).
        font: a Hershey font name (``simplex``, ``duplex``, ``complex``, ``triplex``).
        texture: amplitude (0..255) of the felt's fibre noise; 0 = flat colour.
        spot_fill: darken the inside of side-bet spots (as many printed layouts do).
        seed: seed of the fibre noise (the same seed draws the same felt).
    """

    felt_rgb: tuple[int, int, int] | None = None
    print_rgb: tuple[int, int, int] | None = None
    rail_rgb: tuple[int, int, int] = (58, 34, 24)
    outside_rgb: tuple[int, int, int] = (30, 28, 26)
    font: str = "duplex"
    texture: float = 6.0
    spot_fill: bool = True
    seed: int = 0


def _bgr(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    return (int(rgb[2]), int(rgb[1]), int(rgb[0]))


def _shift_bits() -> int:
    return 4  # sub-pixel precision for cv2 drawing (1/16 px)


def _fixed(pt: tuple[float, float], s: float) -> tuple[int, int]:
    k = 1 << _shift_bits()
    return (int(round(pt[0] * s * k)), int(round(pt[1] * s * k)))


def text_strip(text: str, height_px: float, font: str = "duplex") -> np.ndarray:
    """Render ``text`` as a white-on-black mask whose capital height is ``height_px``.

    Returns:
        (H, W) uint8 mask, 255 where ink; H is about 1.5 x ``height_px`` (room for
        descenders and the stroke), W fits the words.
    """
    face = _HERSHEY.get(font, cv2.FONT_HERSHEY_DUPLEX)
    # Draw large then shrink: Hershey strokes look thin and jagged when drawn small.
    draw_h = max(24.0, height_px * 2)
    (w1, h1), _ = cv2.getTextSize(text, face, 1.0, 1)
    scale = draw_h / h1
    thick = max(1, int(round(draw_h / 11)))
    (w, h), base = cv2.getTextSize(text, face, scale, thick)
    pad = thick * 2
    mask = np.zeros((h + base + 2 * pad, w + 2 * pad), np.uint8)
    cv2.putText(mask, text, (pad, pad + h), face, scale, 255, thick, cv2.LINE_AA)
    f = height_px / draw_h
    out_w, out_h = max(1, int(round(mask.shape[1] * f))), max(1, int(round(mask.shape[0] * f)))
    return cv2.resize(mask, (out_w, out_h), interpolation=cv2.INTER_AREA)


def _paste_mask(canvas: np.ndarray, mask: np.ndarray, colour: tuple[int, int, int], x0: int, y0: int) -> None:
    """Blend ``colour`` into ``canvas`` through ``mask`` placed with its top-left at (x0, y0); clips."""
    H, W = canvas.shape[:2]
    h, w = mask.shape
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(W, x0 + w), min(H, y0 + h)
    if xa >= xb or ya >= yb:
        return
    m = mask[ya - y0 : yb - y0, xa - x0 : xb - x0].astype(np.float32)[..., None] / 255.0
    roi = canvas[ya:yb, xa:xb].astype(np.float32)
    canvas[ya:yb, xa:xb] = (roi * (1 - m) + np.array(colour, np.float32) * m).astype(np.uint8)


def _draw_text(canvas: np.ndarray, t: PrintedText, s: float, colour: tuple[int, int, int], font: str) -> None:
    strip = text_strip(t.text, t.height_mm * s, font)
    sh, sw = strip.shape
    if t.arc_center is not None and t.arc_radius:
        # Words along an arc: the glyph tops face the arc centre (the dealer), read left to right.
        cx, cy = t.arc_center[0] * s, t.arc_center[1] * s
        R = t.arc_radius * s
        phi0 = math.atan2(t.center[1] * s - cy, t.center[0] * s - cx)
        half = sw / 2 / R
        r0, r1 = R - sh / 2 - 2, R + sh / 2 + 2
        angles = np.linspace(phi0 - half, phi0 + half, 16)
        xs = np.concatenate([cx + r0 * np.cos(angles), cx + r1 * np.cos(angles)])
        ys = np.concatenate([cy + r0 * np.sin(angles), cy + r1 * np.sin(angles)])
        H, W = canvas.shape[:2]
        xa, xb = max(0, int(xs.min()) - 2), min(W, int(xs.max()) + 3)
        ya, yb = max(0, int(ys.min()) - 2), min(H, int(ys.max()) + 3)
        if xa >= xb or ya >= yb:
            return
        gx, gy = np.meshgrid(np.arange(xa, xb, dtype=np.float32), np.arange(ya, yb, dtype=np.float32))
        r = np.hypot(gx - cx, gy - cy)
        phi = np.arctan2(gy - cy, gx - cx)
        map_x = ((phi0 - phi) * R + sw / 2).astype(np.float32)
        map_y = (r - R + sh / 2).astype(np.float32)
        mask = cv2.remap(strip, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        _paste_mask(canvas, mask, colour, xa, ya)
        return
    # Straight words rotated by angle_deg (counter-clockwise on screen) about their centre.
    diag = int(math.hypot(sw, sh)) + 4
    M = cv2.getRotationMatrix2D((sw / 2, sh / 2), t.angle_deg, 1.0)
    M[0, 2] += diag / 2 - sw / 2
    M[1, 2] += diag / 2 - sh / 2
    rot = cv2.warpAffine(strip, M, (diag, diag), flags=cv2.INTER_LINEAR)
    x0 = int(round(t.center[0] * s - diag / 2))
    y0 = int(round(t.center[1] * s - diag / 2))
    _paste_mask(canvas, rot, colour, x0, y0)


@dataclass(frozen=True)
class FeltMasks:
    """The felt's printed parts as alpha masks (uint8, 255 = fully that part), top-down at ``px_per_mm``.

    Attributes:
        ink: printed arcs, spot rings and words; bonus spots' tinted discs are ink at a quarter strength.
        rail: the padded rail beyond the table edge.
        outside: beyond the rail (floor, the dealer's side).
        spot_dark: the darkened disc inside match-the-dealer spots.
    """

    px_per_mm: float
    ink: np.ndarray
    rail: np.ndarray
    outside: np.ndarray
    spot_dark: np.ndarray

    def stacked(self) -> np.ndarray:
        """(H, W, 4) uint8: spot_dark, ink, rail, outside (one array: one warp to a camera)."""
        return np.dstack([self.spot_dark, self.ink, self.rail, self.outside])


def layout_masks(layout: Layout, px_per_mm: float = 1.0, font: str = "duplex", spot_fill: bool = True) -> FeltMasks:
    """Draw the printed parts of ``layout`` as masks (see :class:`FeltMasks`).

    Raises:
        ValueError: for a non-positive ``px_per_mm``.
    """
    if not px_per_mm > 0:
        raise ValueError(f"px_per_mm must be positive, got {px_per_mm!r}")
    s = float(px_per_mm)
    W = int(round(layout.size_mm[0] * s))
    H = int(round(layout.size_mm[1] * s))
    sb = _shift_bits()
    k = 1 << sb
    # The padded rail beyond the table edge (the table is the half disc about table_center).
    cx, cy = layout.table_center
    R = layout.table_radius
    rail = np.full((H, W), 255, np.uint8)
    cv2.circle(rail, _fixed((cx, cy), s), int(round(R * s * k)), 0, -1, cv2.LINE_AA, sb)
    outside = np.full((H, W), 255, np.uint8)
    cv2.circle(outside, _fixed((cx, cy), s), int(round((R + 90.0) * s * k)), 0, -1, cv2.LINE_AA, sb)

    ink = np.zeros((H, W), np.uint8)
    lw = lambda mm: max(1, int(round(mm * s)))  # noqa: E731  (a line width in px)
    for arc in layout.arcs:
        axes = (int(round(arc.radius * s * k)), int(round(arc.radius * s * k)))
        cv2.ellipse(ink, _fixed(arc.center, s), axes, 0, arc.start_deg, arc.end_deg, 255, lw(arc.width_mm),
                    cv2.LINE_AA, sb)
    dark = np.zeros((H, W), np.uint8)
    for zone in layout.spots():
        c = zone.circle
        centre = _fixed(c.center, s)
        radius = int(round(c.radius * s * k))
        if spot_fill and zone.kind in ("mtd", "bonus"):
            # Side-bet spots are usually printed as a tinted disc inside the ring: darker felt for
            # match-the-dealer, a quarter-strength wash of the print colour for the bonus.
            if zone.kind == "mtd":
                cv2.circle(dark, centre, radius, 255, -1, cv2.LINE_AA, sb)
            else:
                cv2.circle(ink, centre, radius, 64, -1, cv2.LINE_AA, sb)
        cv2.circle(ink, centre, radius, 255, lw(4.0 if zone.kind == "main" else 3.0), cv2.LINE_AA, sb)
        if zone.kind == "main":
            # A thin inner ring, as on most printed layouts.
            cv2.circle(ink, centre, int(round((c.radius - 8) * s * k)), 255, lw(1.5), cv2.LINE_AA, sb)
    canvas = np.zeros((H, W, 3), np.uint8)
    for t in layout.texts:
        _draw_text(canvas, t, s, (255, 255, 255), font)
    ink = np.maximum(ink, canvas[..., 0])
    return FeltMasks(s, ink, rail, outside, dark)


def felt_colours(layout: Layout, style: FeltStyle | None = None) -> dict[str, np.ndarray]:
    """The BGR float32 colour of each felt part for ``style`` (keys: felt, ink, rail, outside, spot_dark)."""
    style = style or FeltStyle()
    felt = np.array(_bgr(style.felt_rgb or layout.felt_rgb), np.float32)
    ink = np.array(_bgr(style.print_rgb or layout.print_rgb), np.float32)
    return {
        "felt": felt, "ink": ink,
        "rail": np.array(_bgr(style.rail_rgb), np.float32),
        "outside": np.array(_bgr(style.outside_rgb), np.float32),
        "spot_dark": felt * 0.7,
    }


def colourise(masks: np.ndarray, colours: dict[str, np.ndarray], texture: np.ndarray | None = None) -> np.ndarray:
    """Paint felt masks with colours.

    Args:
        masks: (H, W, 4) uint8 spot_dark / ink / rail / outside (:meth:`FeltMasks.stacked`, maybe warped).
        colours: from :func:`felt_colours`.
        texture: optional (H, W) float32 brightness offset (fibre noise) added to the felt, DN.

    Returns:
        (H, W, 3) uint8 BGR.
    """
    H, W = masks.shape[:2]
    if texture is not None:
        # convertScaleAbs saturates to uint8 fast; felt colour plus noise never goes below zero in practice
        base = colours["felt"]
        out = cv2.merge([cv2.convertScaleAbs(texture, alpha=1.0, beta=float(base[ch])) for ch in range(3)])
    else:
        out = np.empty((H, W, 3), np.uint8)
        cv2.rectangle(out, (0, 0), (W, H), tuple(float(v) for v in np.round(colours["felt"])), -1)
    solid = np.empty_like(out)
    for ch, key in enumerate(("spot_dark", "ink", "rail", "outside")):
        m = np.ascontiguousarray(masks[..., ch])
        x, y, w, h = cv2.boundingRect(m)
        if w == 0 or h == 0:
            continue
        # Masks are mostly 0 or 255: copy the solid pixels, blend only the anti-aliased edge.
        m = m[y : y + h, x : x + w]
        roi = out[y : y + h, x : x + w]
        colour = colours[key]
        sol = solid[y : y + h, x : x + w]
        cv2.rectangle(sol, (0, 0), (w, h), tuple(float(v) for v in np.round(colour)), -1)  # a fast fill
        # (numpy comparisons: cv2.compare with a scalar misreads some small odd-shaped masks)
        cv2.copyTo(sol, (m == 255).view(np.uint8), roi)
        edge = np.flatnonzero((m > 0) & (m < 255))
        if edge.size:
            flat = roi.reshape(-1, 3) if roi.flags.c_contiguous else None
            if flat is None:
                rr, cc = np.divmod(edge, w)
                a = m[rr, cc].astype(np.float32)[:, None] * (1 / 255.0)
                roi[rr, cc] = (roi[rr, cc] * (1 - a) + colour * a + 0.5).astype(np.uint8)
            else:
                a = m.reshape(-1)[edge].astype(np.float32)[:, None] * (1 / 255.0)
                flat[edge] = (flat[edge] * (1 - a) + colour * a + 0.5).astype(np.uint8)
    return out


def fibre_noise(height: int, width: int, amplitude: float, seed: int = 0) -> np.ndarray:
    """(H, W) float32 felt fibre noise: fine grain plus a faint low-frequency mottle, DN.

    The grain is a 256 x 256 tile repeated (drawing millions of normals per frame is slow
    and a repeat that fine cannot be seen).
    """
    rng = np.random.default_rng(seed)
    tile = rng.normal(0, amplitude, (256, 256)).astype(np.float32)
    grain = np.tile(tile, (height // 256 + 1, width // 256 + 1))[:height, :width]
    small = rng.normal(0, amplitude * 0.5, (max(2, height // 60), max(2, width // 60))).astype(np.float32)
    return grain + cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)


def draw_layout_topdown(layout: Layout, px_per_mm: float = 1.0, style: FeltStyle | None = None) -> np.ndarray:
    """Draw the felt of ``layout`` seen straight down, dealer at the top.

    Args:
        layout: the table layout (mm).
        px_per_mm: scale; the image is ``size_mm * px_per_mm`` pixels.
        style: colours, font and texture (:class:`FeltStyle`); default = the layout's own colours.

    Returns:
        (H, W, 3) uint8 BGR, ``W = round(size_mm[0] * px_per_mm)``, ``H = round(size_mm[1] * px_per_mm)``.

    Raises:
        ValueError: for a non-positive ``px_per_mm``.
    """
    style = style or FeltStyle()
    masks = layout_masks(layout, px_per_mm, style.font, style.spot_fill)
    stacked = masks.stacked()
    H, W = stacked.shape[:2]
    texture = fibre_noise(H, W, style.texture, style.seed) if style.texture > 0 else None
    return colourise(stacked, felt_colours(layout, style), texture)


def felt_to_image_homography(camera_h: np.ndarray, px_per_mm: float) -> np.ndarray:
    """Compose a camera's felt-mm -> pixel homography with the top-down scale.

    Args:
        camera_h: (3, 3) felt mm -> image px (:meth:`PinholeCamera.homography`).
        px_per_mm: the scale the top-down felt was drawn at.

    Returns:
        (3, 3) float64 mapping top-down felt pixels to image pixels.
    """
    S_inv = np.diag([1.0 / px_per_mm, 1.0 / px_per_mm, 1.0])
    return camera_h @ S_inv
