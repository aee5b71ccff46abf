"""Automatic calibration from the printed layout itself: betting circles and printed arcs.

Steps (each a function below, so the drift check and the tests can reuse them):

1. :func:`print_mask` -- the ink of the layout (light print on darker felt) as a
   binary mask, robust to slow lighting changes (local background subtracted).
2. :func:`detect_ellipses` -- closed ink contours that are ellipses (the images of
   the printed spot circles); concentric rings are merged into one detection.
3. :func:`match_circles` -- RANSAC over pairs: two ellipses matched to two layout
   circles fix a homography (each ellipse gives the local affine map up to a
   rotation, the pair fixes the rotation), which is scored by how many other
   layout circles land on detected ellipses of the right size.
4. :func:`refine_homography` -- Levenberg-Marquardt on the edge points of every
   matched ring and then of the printed arcs (their reach shrinking 8 -> 4 -> 2.5 mm),
   measured as distances on the felt (unbiased: the centre of an imaged circle is
   *not* the centre of its ellipse).
5. The layouts repeat seat by seat about the dealer, so circles alone often match
   equally well one seat off: :func:`asymmetry_contrast` (ink where the arcs end and
   where the words along them are printed, none just beside) ranks the candidates.
6. Rejection: too few circles, an ambiguous match, arcs and words that do not line
   up, or too large a residual raise :class:`~calibration.homography.CalibrationError`
   saying what was found.

Example:
    >>> cal = calibrate_auto(frame, builtin_layout("blackjack-7-mtd-bonus"))  # doctest: +SKIP
    >>> cal.reprojection_error_mm < 1.0  # doctest: +SKIP
    True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.homography import (
    CalibrationError,
    CalibrationResult,
    apply_homography,
    local_scale_px_per_mm,
    normalise_homography,
)
from calibration.layout import Layout, PrintedArc

MIN_CIRCLES = 4
"""Fewest matched betting circles accepted for a calibration."""
MAX_ERROR_MM = 2.5
"""Largest RMS edge residual (mm on the felt) accepted for a calibration."""
MIN_CONTRAST = 0.15
"""Least :func:`asymmetry_contrast` accepted where an arc end or the words along the arcs are in view (right: 0.3
for words alone to 0.9 for arc ends; a seat off: about 0 or below on the rendered layouts)."""


# --- layout features ----------------------------------------------------------------
@dataclass(frozen=True)
class LayoutCircle:
    """A printed spot circle of the layout: ``name`` (zone), ``center`` (2,) mm, ``radius`` mm."""

    name: str
    center: tuple[float, float]
    radius: float


def layout_circles(layout: Layout) -> list[LayoutCircle]:
    """Every printed betting-spot circle of ``layout`` (the features the automatic calibration looks for)."""
    return [LayoutCircle(z.name, tuple(z.circle.center), float(z.circle.radius)) for z in layout.spots()]


def layout_arcs(layout: Layout) -> list[PrintedArc]:
    """The printed arc lines of ``layout``."""
    return list(layout.arcs)


def arc_points(arc: PrintedArc, step_mm: float = 10.0, radius: float | None = None) -> np.ndarray:
    """(N, 2) mm points along ``arc`` (its centre line unless ``radius`` is given), one per ``step_mm``."""
    r = arc.radius if radius is None else radius
    span = math.radians(arc.end_deg - arc.start_deg)
    n = max(2, int(abs(span) * r / step_mm) + 1)
    a = np.linspace(math.radians(arc.start_deg), math.radians(arc.end_deg), n)
    return np.column_stack([arc.center[0] + r * np.cos(a), arc.center[1] + r * np.sin(a)])


def _text_width_mm(text: str, height_mm: float) -> float:
    """Approximate printed width of ``text`` at cap height ``height_mm`` (Hershey duplex proportions)."""
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, 1.0, 1)
    return height_mm * w / max(h, 1)


def asymmetry_samples(layout: Layout, step_mm: float = 4.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample points of the printed features that break the layout's rotation symmetry.

    The seats repeat at equal angles about the dealer, so circles -- and the arcs'
    long bodies -- cannot tell a view of seats 2-5 from one of seats 3-6.  The ends
    of the arcs and the words along them (centred on the middle seat) can.  Each
    feature is a group of points where ink must be (1) and nearby points where it
    must not (0): the last 20 degrees of an arc and the 25 beyond its end; the
    middle 80 % of a line of words and 20 degrees of bare felt beyond each end.

    Returns:
        ((N, 2) mm points, (N,) expected ink 0 or 1, (N,) int group of each point).
    """
    pts: list[np.ndarray] = []
    val: list[np.ndarray] = []
    grp: list[np.ndarray] = []

    def band(center, radius, half_h, a0, a1, v, g):
        if a1 <= a0:
            return
        rr = np.arange(radius - half_h, radius + half_h + 1e-9, step_mm)
        aa = np.arange(a0, a1, step_mm / radius)
        A_, R_ = np.meshgrid(aa, rr)
        P = np.column_stack([center[0] + R_.ravel() * np.cos(A_.ravel()), center[1] + R_.ravel() * np.sin(A_.ravel())])
        pts.append(P)
        val.append(np.full(len(P), float(v)))
        grp.append(np.full(len(P), g))

    g = 0
    for arc in layout.arcs:
        a0, a1 = math.radians(arc.start_deg), math.radians(arc.end_deg)
        pad = 8.0 / arc.radius  # clear of the round end caps
        gap = pad + arc.width_mm / arc.radius
        reach = math.radians(20)
        band(arc.center, arc.radius, arc.width_mm / 4, a0 + pad, a0 + reach, 1, g)
        band(arc.center, arc.radius, arc.width_mm / 4, a0 - math.radians(25), a0 - gap, 0, g)
        band(arc.center, arc.radius, arc.width_mm / 4, a1 - reach, a1 - pad, 1, g + 1)
        band(arc.center, arc.radius, arc.width_mm / 4, a1 + gap, a1 + math.radians(25), 0, g + 1)
        g += 2
    for t in layout.texts:
        width = _text_width_mm(t.text, t.height_mm)
        half_h = t.height_mm * 0.3
        if t.arc_center is not None and t.arc_radius:
            c = t.arc_center
            phi = math.atan2(t.center[1] - c[1], t.center[0] - c[0])
            half = width / 2 / t.arc_radius
            band(c, t.arc_radius, half_h, phi - 0.8 * half, phi + 0.8 * half, 1, g)
            band(c, t.arc_radius, half_h, phi + 1.2 * half, phi + 1.2 * half + math.radians(20), 0, g)
            band(c, t.arc_radius, half_h, phi - 1.2 * half - math.radians(20), phi - 1.2 * half, 0, g)
            g += 1
        elif len(t.text) >= 6 and t.height_mm >= 15:
            a = math.radians(-t.angle_deg)  # counter-clockwise on screen
            d = np.array([math.cos(a), math.sin(a)])
            nrm = np.array([-d[1], d[0]])
            us = np.arange(-0.6 * width, 0.6 * width, step_mm)
            vs = np.arange(-half_h, half_h + 1e-9, step_mm)
            U, V = np.meshgrid(us, vs)
            U, V = U.ravel(), V.ravel()
            keep = (np.abs(U) < 0.4 * width) | (np.abs(U) > 0.6 * width - step_mm)
            pts.append(np.array(t.center) + U[keep, None] * d + V[keep, None] * nrm)
            val.append((np.abs(U[keep]) < 0.4 * width).astype(float))
            grp.append(np.full(int(keep.sum()), g))
            g += 1
    if not pts:
        return np.zeros((0, 2)), np.zeros(0), np.zeros(0, int)
    return np.vstack(pts), np.concatenate(val), np.concatenate(grp).astype(int)


def asymmetry_contrast(H: np.ndarray, mask: np.ndarray, samples: tuple[np.ndarray, np.ndarray, np.ndarray],
                       min_samples: int = 8) -> float:
    """How well the symmetry-breaking features line up under ``H`` (mm -> px).

    For each feature of :func:`asymmetry_samples` with at least ``min_samples``
    points of each kind in view: the ink fraction where it must be minus where it
    must not; the mean over those features.  About 0.9 for an arc end, 0.3-0.5 for
    words, near 0 or below when ``H`` is a seat (or more) off; 0 when no feature is
    in view (no evidence either way).
    """
    P, v, grp = samples
    if len(P) == 0:
        return 0.0
    uv = apply_homography(H, P)
    h, w = mask.shape
    ok = np.isfinite(uv).all(axis=1) & (uv[:, 0] >= 0) & (uv[:, 0] < w - 1) & (uv[:, 1] >= 0) & (uv[:, 1] < h - 1)
    if ok.sum() == 0:
        return 0.0
    ink = np.zeros(len(P), bool)
    ink[ok] = mask[uv[ok, 1].round().astype(int), uv[ok, 0].round().astype(int)] > 0
    scores = []
    for g in np.unique(grp[ok]):
        on = ok & (grp == g) & (v > 0.5)
        off = ok & (grp == g) & (v < 0.5)
        if on.sum() >= min_samples and off.sum() >= min_samples:
            scores.append(ink[on].mean() - ink[off].mean())
    return float(np.mean(scores)) if scores else 0.0


# --- ink ------------------------------------------------------------------------------
def print_mask(image: np.ndarray, contrast: float | None = None) -> np.ndarray:
    """The layout's ink as a mask.

    Args:
        image: (H, W, 3) uint8 BGR or (H, W) grey frame.
        contrast: grey levels above the local felt level counted as ink; ``None``
            picks it per frame (Otsu on the background-subtracted image).

    Returns:
        (H, W) uint8, 255 on ink.
    """
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape
    # Background: a median over a window much wider than any printed line, taken at
    # low resolution for speed, so lighting gradients and vignetting drop out.
    f = max(1, int(round(max(h, w) / 480)))
    small = cv2.resize(grey, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    bg = cv2.medianBlur(small, 21)
    bg = cv2.resize(bg, (w, h), interpolation=cv2.INTER_LINEAR)
    diff = cv2.subtract(grey, bg)
    if contrast is None:
        t, _ = cv2.threshold(diff, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        contrast = max(float(t), 20.0)
    _, mask = cv2.threshold(diff, contrast, 255, cv2.THRESH_BINARY)
    return mask


# --- ellipses -------------------------------------------------------------------------
@dataclass
class Ellipse:
    """An ellipse found in the image.

    Attributes:
        center: (2,) pixels.
        axes: (semi-major, semi-minor) pixels.
        angle_deg: direction of the major axis, degrees (image x towards image y).
        edges: list of (K, 2) float64 contour points, pixels: every concentric ink edge of this spot.
        fit_error: mean relative radial misfit of the contour to the ellipse.
    """

    center: np.ndarray
    axes: tuple[float, float]
    angle_deg: float
    edges: list[np.ndarray] = field(default_factory=list)
    fit_error: float = 0.0

    @property
    def size(self) -> float:
        """Geometric-mean semi-axis, pixels."""
        return math.sqrt(self.axes[0] * self.axes[1])

    @property
    def affine(self) -> np.ndarray:
        """(2, 2) map of the unit circle onto this ellipse (up to a rotation of the circle)."""
        a = math.radians(self.angle_deg)
        Rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return Rot @ np.diag(self.axes)


def _fit(contour: np.ndarray) -> tuple[np.ndarray, tuple[float, float], float, float] | None:
    pts = contour.reshape(-1, 2).astype(np.float64)
    if len(pts) < 12:
        return None
    (cx, cy), (d1, d2), ang = cv2.fitEllipseDirect(pts.astype(np.float32))
    if not (np.isfinite([cx, cy, d1, d2, ang]).all()) or min(d1, d2) <= 1:
        return None
    a1, a2 = d1 / 2, d2 / 2
    if a2 > a1:
        a1, a2, ang = a2, a1, ang + 90
    t = math.radians(ang)
    c, s = math.cos(t), math.sin(t)
    d = pts - (cx, cy)
    u = (d[:, 0] * c + d[:, 1] * s) / a1
    v = (-d[:, 0] * s + d[:, 1] * c) / a2
    rho = np.hypot(u, v)
    err = float(np.mean(np.abs(rho - 1)))
    # the contour must go all the way round (not an arc of a larger curve or a letter)
    phi = np.arctan2(v, u)
    bins = np.clip(((phi + math.pi) * (16 / (2 * math.pi))).astype(np.int64), 0, 15)
    coverage = float(np.mean(np.bincount(bins, minlength=16) > 0))
    return np.array([cx, cy]), (a1, a2), ang % 180.0, err if coverage > 0.99 else 1.0


def detect_ellipses(image: np.ndarray, mask: np.ndarray | None = None, min_semi_minor_px: float = 5.0,
                    max_fit_error: float = 0.05, min_axis_ratio: float = 0.35) -> list[Ellipse]:
    """Find the printed spot circles: closed ink contours that fit an ellipse well.

    Args:
        image: (H, W, 3) uint8 BGR frame (undistorted).
        mask: its :func:`print_mask`, if already computed.
        min_semi_minor_px: smaller ellipses are ignored (letters, noise).
        max_fit_error: largest mean relative radial misfit accepted.
        min_axis_ratio: flatter ellipses are ignored (tilt beyond ~70 degrees, or lines).

    Returns:
        Ellipses, concentric ink edges of one spot merged (largest edge gives ``axes``).
    """
    mask = print_mask(image) if mask is None else mask
    h, w = mask.shape
    contours, _ = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    found: list[Ellipse] = []
    for cnt in contours:
        if len(cnt) < 24:
            continue
        x, y, bw, bh = cv2.boundingRect(cnt)
        if x <= 0 or y <= 0 or x + bw >= w or y + bh >= h:
            continue  # cut by the frame's edge
        if min(bw, bh) < 2 * min_semi_minor_px or len(cnt) > 8 * (bw + bh):
            continue  # too small, or far too long an outline for an ellipse of this size (noise, lettering)
        fit = _fit(cnt)
        if fit is None:
            continue
        c, axes, ang, err = fit
        if axes[1] < min_semi_minor_px or axes[0] > 0.3 * max(h, w) or axes[1] / axes[0] < min_axis_ratio:
            continue
        if err > max_fit_error:
            continue
        found.append(Ellipse(center=c, axes=axes, angle_deg=ang, edges=[cnt.reshape(-1, 2).astype(np.float64)],
                             fit_error=err))
    # merge concentric edges (outer and inner edge of a ring, inner rings) into one spot
    found.sort(key=lambda e: -e.size)
    merged: list[Ellipse] = []
    for e in found:
        for m in merged:
            if np.linalg.norm(e.center - m.center) < 0.25 * m.axes[1] and e.size > 0.5 * m.size:
                m.edges.append(e.edges[0])
                break
        else:
            merged.append(e)
    return merged


# --- matching -------------------------------------------------------------------------
@dataclass
class CircleMatch:
    """Matched circles: ``pairs`` of (ellipse index, layout-circle index) under homography ``H`` (mm -> px)."""

    H: np.ndarray
    pairs: list[tuple[int, int]]
    score: float
    missing: int = 0


def _rot(theta: np.ndarray) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)


def _match_under(H: np.ndarray, ellipses: list[Ellipse], circles: list[LayoutCircle], image_size: tuple[int, int],
                 pos_tol: float = 0.35, size_tol: float = 0.3) -> CircleMatch:
    """Greedy one-to-one match of layout circles to ellipses under ``H``; score = matches - 0.25 x visible misses."""
    C = np.array([c.center for c in circles])
    r = np.array([c.radius for c in circles])
    P = apply_homography(H, C)
    s_pred = r * local_scale_px_per_mm(H, C)
    E = np.array([e.center for e in ellipses])
    S = np.array([e.size for e in ellipses])
    w, h = image_size
    D = np.linalg.norm(P[:, None, :] - E[None, :, :], axis=2)
    ok = (D < pos_tol * s_pred[:, None]) & (np.abs(S[None, :] / s_pred[:, None] - 1) < size_tol)
    ok &= np.isfinite(D)
    pairs: list[tuple[int, int]] = []
    used_e: set[int] = set()
    for k in np.argsort(np.where(ok, D, np.inf).min(axis=1)):
        cand = np.where(ok[k])[0]
        cand = [i for i in cand[np.argsort(D[k, cand])] if i not in used_e]
        if cand:
            pairs.append((int(cand[0]), int(k)))
            used_e.add(int(cand[0]))
    matched = {k for _, k in pairs}
    inside = np.isfinite(P).all(axis=1) & (P[:, 0] > s_pred) & (P[:, 0] < w - s_pred) & (P[:, 1] > s_pred) & (P[:, 1] < h - s_pred)
    missing = int(sum(1 for k in np.where(inside)[0] if k not in matched))
    return CircleMatch(H=H, pairs=pairs, score=len(pairs) - 0.25 * missing, missing=missing)


def _fit_from_pairs(pairs, ellipses, circles) -> np.ndarray | None:
    src = np.array([circles[k].center for _, k in pairs], np.float64)
    dst = np.array([ellipses[i].center for i, _ in pairs], np.float64)
    if len(pairs) < 4:
        return None
    H, _ = cv2.findHomography(src, dst, 0)
    if H is None or not np.all(np.isfinite(H)):
        return None
    return H


def _batch_dlt(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """(N, K, 2) mm -> (N, K, 2) px correspondences -> (N, 3, 3) homographies (normalised DLT)."""
    def norm(P):
        c = P.mean(axis=1, keepdims=True)
        d = np.linalg.norm(P - c, axis=2).mean(axis=1) / math.sqrt(2)
        d = np.maximum(d, 1e-9)
        T = np.zeros((len(P), 3, 3))
        T[:, 0, 0] = T[:, 1, 1] = 1 / d
        T[:, 0, 2] = -c[:, 0, 0] / d
        T[:, 1, 2] = -c[:, 0, 1] / d
        T[:, 2, 2] = 1
        return (P - c) / d[:, None, None], T
    x, Ts = norm(src)
    y, Td = norm(dst)
    N, K, _ = x.shape
    o, z = np.ones((N, K)), np.zeros((N, K))
    X, Y, u, v = x[..., 0], x[..., 1], y[..., 0], y[..., 1]
    r1 = np.stack([-X, -Y, -o, z, z, z, u * X, u * Y, u], -1)
    r2 = np.stack([z, z, z, -X, -Y, -o, v * X, v * Y, v], -1)
    A = np.concatenate([r1, r2], axis=1)
    _, _, Vt = np.linalg.svd(A)
    Hn = Vt[:, -1].reshape(N, 3, 3)
    H = np.linalg.inv(Td) @ Hn @ Ts
    with np.errstate(divide="ignore", invalid="ignore"):
        H = H / H[:, 2:3, 2:3]
    # orientation-preserving only: the felt is never seen mirrored
    det = np.linalg.det(H[:, :2, :2] - np.einsum("ni,nj->nij", H[:, :2, 2], H[:, 2, :2]))
    H[~(det > 0)] = np.nan
    return H


def _batch_score(Hs: np.ndarray, E: np.ndarray, S: np.ndarray, C: np.ndarray, r: np.ndarray,
                 image_size: tuple[int, int], pos_tol: float = 0.35, size_tol: float = 0.3) -> np.ndarray:
    """(N,) score of each homography: layout circles with a compatible ellipse minus 0.25 x visible misses."""
    w_ = C @ np.transpose(Hs[:, 2, :2]) + Hs[:, 2, 2]  # (m, N)
    w_ = w_.T  # (N, m)
    P = (np.einsum("nij,mj->nmi", Hs[:, :2, :2], C) + Hs[:, None, :2, 2]) / w_[..., None]
    scale = np.sqrt(np.abs(np.linalg.det(Hs))[:, None] / np.abs(w_) ** 3)
    s_pred = r[None] * scale  # (N, m)
    D = np.linalg.norm(P[:, :, None, :] - E[None, None], axis=3)  # (N, m, n)
    ok = (D < pos_tol * s_pred[..., None]) & (np.abs(S[None, None] / s_pred[..., None] - 1) < size_tol) & (w_[..., None] > 0)
    hit = ok.any(axis=2)
    w, h = image_size
    inside = (P[..., 0] > s_pred) & (P[..., 0] < w - s_pred) & (P[..., 1] > s_pred) & (P[..., 1] < h - s_pred) & (w_ > 0)
    score = hit.sum(axis=1) - 0.25 * (inside & ~hit).sum(axis=1)
    return np.where(np.isfinite(score), score, -np.inf)


def match_circles(ellipses: list[Ellipse], circles: list[LayoutCircle], image_size: tuple[int, int],
                  max_hypotheses: int = 3000, neighbours: int = 6) -> list[CircleMatch]:
    """Match detected ellipses to layout circles (RANSAC over ellipse pairs).

    Returns:
        Distinct solutions, best first (refined by least squares on the matched
        ellipse centres); empty when fewer than two ellipses or circles exist.
    """
    n, m = len(ellipses), len(circles)
    if n < 2 or m < 2:
        return []
    E = np.array([e.center for e in ellipses])
    S = np.array([e.size for e in ellipses])
    A = np.array([e.affine for e in ellipses])
    Ainv = np.linalg.inv(A)
    C = np.array([c.center for c in circles])
    r = np.array([c.radius for c in circles])

    # image pairs: each ellipse with its nearest neighbours
    D = np.linalg.norm(E[:, None] - E[None], axis=2)
    np.fill_diagonal(D, np.inf)
    k = min(neighbours, n - 1)
    I = np.repeat(np.arange(n), k)
    J = np.argsort(D, axis=1)[:, :k].ravel()
    # layout pairs: every ordered pair
    a_idx, b_idx = np.where(~np.eye(m, dtype=bool))
    V = C[b_idx] - C[a_idx]  # (L, 2)
    vlen = np.linalg.norm(V, axis=1)

    W = E[J] - E[I]  # (P, 2)
    Ui = np.einsum("pij,pj->pi", Ainv[I], W)  # layout direction of the pair seen from ellipse i, per unit radius
    Uj = np.einsum("pij,pj->pi", Ainv[J], W)
    li = np.linalg.norm(Ui, axis=1)[:, None] * r[a_idx][None, :]  # (P, L) implied layout distance
    lj = np.linalg.norm(Uj, axis=1)[:, None] * r[b_idx][None, :]
    ratio_ok = np.abs(np.log((S[I][:, None] / r[a_idx][None]) / (S[J][:, None] / r[b_idx][None]))) < math.log(1.35)
    len_ok = (np.abs(np.log(li / vlen[None])) < math.log(1.3)) & (np.abs(np.log(lj / vlen[None])) < math.log(1.3))
    p_ok, l_ok = np.where(ratio_ok & len_ok)
    if len(p_ok) == 0:
        return []
    # consistency of the second ellipse's shape with the first one's local affine map
    th_i = np.arctan2(Ui[p_ok, 1], Ui[p_ok, 0]) - np.arctan2(V[l_ok, 1], V[l_ok, 0])
    th_j = np.arctan2(Uj[p_ok, 1], Uj[p_ok, 0]) - np.arctan2(V[l_ok, 1], V[l_ok, 0])
    Ji = A[I[p_ok]] @ _rot(th_i) / r[a_idx[l_ok]][:, None, None]
    Jj = A[J[p_ok]] @ _rot(th_j) / r[b_idx[l_ok]][:, None, None]
    Mi = Ji @ np.transpose(Ji, (0, 2, 1))
    Mj = Jj @ np.transpose(Jj, (0, 2, 1))
    shape_err = np.linalg.norm(Mi - Mj, axis=(1, 2)) / np.linalg.norm(Mj, axis=(1, 2))
    order = np.argsort(shape_err)
    order = order[shape_err[order] < 0.5][:max_hypotheses]

    ang = np.array([0, 0.5, 1, 1.5]) * math.pi
    unit = np.stack([np.cos(ang), np.sin(ang)], 1)  # (4, 2)
    q = order
    ia, ib, ca, cb = I[p_ok[q]], J[p_ok[q]], a_idx[l_ok[q]], b_idx[l_ok[q]]
    # each circle's centre and its points at 0, 90, 180, 270 degrees through the local affine map of its ellipse
    src = np.concatenate([C[ca][:, None], C[ca][:, None] + r[ca][:, None, None] * unit[None],
                          C[cb][:, None], C[cb][:, None] + r[cb][:, None, None] * unit[None]], axis=1)
    dst = np.concatenate([E[ia][:, None], E[ia][:, None] + np.einsum("kd,qed->qke", unit, Ji[q] * r[ca][:, None, None]),
                          E[ib][:, None], E[ib][:, None] + np.einsum("kd,qed->qke", unit, Jj[q] * r[cb][:, None, None])],
                         axis=1)
    Hs = _batch_dlt(src, dst)
    good = np.isfinite(Hs).all(axis=(1, 2))
    Hs = Hs[good]
    if len(Hs) == 0:
        return []
    counts = _batch_score(Hs, E, S, C, r, image_size)
    best: dict[tuple, CircleMatch] = {}
    for h_i in np.argsort(-counts, kind="stable")[:60]:
        if counts[h_i] < 3:
            break
        match = _match_under(Hs[h_i], ellipses, circles, image_size)
        if len(match.pairs) < 3:
            continue
        key = tuple(sorted(match.pairs))
        if key not in best or match.score > best[key].score:
            best[key] = match
    # least-squares refit on each distinct matched set, then re-match
    solutions: list[CircleMatch] = []
    for match in sorted(best.values(), key=lambda x: -x.score)[:20]:
        cur = match
        for _ in range(3):
            H = _fit_from_pairs(cur.pairs, ellipses, circles)
            if H is None:
                break
            nxt = _match_under(H, ellipses, circles, image_size)
            if nxt.score < cur.score or sorted(nxt.pairs) == sorted(cur.pairs):
                cur = nxt if nxt.score >= cur.score else cur
                break
            cur = nxt
        solutions.append(cur)
    solutions.sort(key=lambda x: -x.score)
    distinct: list[CircleMatch] = []
    centre = C.mean(axis=0, keepdims=True)
    for s in solutions:
        p = apply_homography(s.H, centre)
        if all(np.linalg.norm(p - apply_homography(d.H, centre)) > 0.5 * np.median(S) for d in distinct):
            distinct.append(s)
    return distinct


# --- refinement -----------------------------------------------------------------------
@dataclass
class _EdgeGroup:
    """Edge points (pixels) that lie on one circle of the felt about ``center`` (mm), radius free."""

    points_px: np.ndarray
    center: np.ndarray
    kind: str  # "circle" or "arc"
    name: str


class _EdgeProblem:
    """Edge groups stacked for least squares on ``G``, the pixel -> mm homography (normalised pixels)."""

    def __init__(self, groups: list[_EdgeGroup], image_centre: np.ndarray, image_scale: float):
        self.groups = groups
        self.c0, self.s0 = image_centre, image_scale
        pts = np.vstack([g.points_px for g in groups])
        self.uv = (pts - self.c0) / self.s0
        self.centres = np.vstack([np.repeat(g.center[None], len(g.points_px), 0) for g in groups])
        self.gid = np.concatenate([np.full(len(g.points_px), k) for k, g in enumerate(groups)])
        self.counts = np.bincount(self.gid, minlength=len(groups)).astype(np.float64)
        self.T = np.array([[1 / image_scale, 0, -image_centre[0] / image_scale],
                           [0, 1 / image_scale, -image_centre[1] / image_scale], [0, 0, 1.0]])

    def _group_mean(self, x: np.ndarray) -> np.ndarray:
        if x.ndim == 1:
            return (np.bincount(self.gid, x, len(self.groups)) / self.counts)[self.gid]
        return np.column_stack([self._group_mean(x[:, k]) for k in range(x.shape[1])])

    def residuals(self, g: np.ndarray, jacobian: bool = False, px_weight: bool = True):
        """Residuals (distance to the group's circle, radius free), mm or ~px; optional (N, 8) Jacobian."""
        u, v = self.uv[:, 0], self.uv[:, 1]
        nx = g[0] * u + g[1] * v + g[2]
        ny = g[3] * u + g[4] * v + g[5]
        w = g[6] * u + g[7] * v + 1.0
        x, y = nx / w, ny / w
        dx, dy = x - self.centres[:, 0], y - self.centres[:, 1]
        d = np.hypot(dx, dy) + 1e-12
        res = d - self._group_mean(d)  # the radius of each edge is free (ink width, threshold level)
        if px_weight:
            # |det| of the mm -> normalised px Jacobian is w^3 / det(G); back to pixels with s0
            Gm = np.append(g, 1.0).reshape(3, 3)
            wt = np.sqrt(np.abs(w**3 / np.linalg.det(Gm))) * self.s0
        else:
            wt = np.ones_like(res)
        if not jacobian:
            return res * wt
        ex, ey = dx / d, dy / d
        Jd = np.column_stack([ex * u / w, ex * v / w, ex / w, ey * u / w, ey * v / w, ey / w,
                              -(ex * x + ey * y) * u / w, -(ex * x + ey * y) * v / w])
        Jr = Jd - self._group_mean(Jd)
        return res * wt, Jr * wt[:, None]

    def solve(self, g0: np.ndarray, iterations: int = 25) -> np.ndarray:
        """Levenberg-Marquardt from ``g0`` (8,)."""
        g = g0.copy()
        r, Jm = self.residuals(g, jacobian=True)
        cost = float(r @ r)
        lam = 1e-4
        for _ in range(iterations):
            A = Jm.T @ Jm
            b = Jm.T @ r
            improved = False
            for _ in range(10):
                try:
                    step = -np.linalg.solve(A + lam * np.diag(np.diag(A) + 1e-12), b)
                except np.linalg.LinAlgError:
                    lam *= 10
                    continue
                r_new, J_new = self.residuals(g + step, jacobian=True)
                c_new = float(r_new @ r_new)
                if np.isfinite(c_new) and c_new < cost:
                    rel = (cost - c_new) / max(cost, 1e-12)
                    g, r, Jm, cost = g + step, r_new, J_new, c_new
                    lam = max(lam / 10, 1e-12)
                    improved = True
                    break
                lam *= 10
            if not improved or rel < 1e-10:
                break
        return g

    def g_from_h(self, H: np.ndarray) -> np.ndarray:
        G = np.linalg.inv(self.T @ H)  # normalised px -> mm
        return (G / G[2, 2]).ravel()[:8]

    def h_from_g(self, g: np.ndarray) -> np.ndarray:
        return normalise_homography(np.linalg.inv(self.T) @ np.linalg.inv(np.append(g, 1.0).reshape(3, 3)))


def collect_edge_groups(H: np.ndarray, ellipses: list[Ellipse], pairs: list[tuple[int, int]],
                        circles: list[LayoutCircle], arcs: list[PrintedArc], mask: np.ndarray,
                        arc_tol_mm: float = 6.0, max_points: int = 48) -> list[_EdgeGroup]:
    """Edge points for the refinement: every edge of each matched ring, and the ink edges along each printed arc."""
    groups: list[_EdgeGroup] = []
    for i, k in pairs:
        for e in ellipses[i].edges:
            step = max(1, len(e) // max_points)
            groups.append(_EdgeGroup(e[::step], np.array(circles[k].center), "circle", circles[k].name))
    if arcs:
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        pts = np.vstack([c.reshape(-1, 2) for c in contours]).astype(np.float64) if contours else np.zeros((0, 2))
        h, w = mask.shape
        pts = pts[(pts[:, 0] > 1) & (pts[:, 1] > 1) & (pts[:, 0] < w - 2) & (pts[:, 1] < h - 2)]
        if len(pts):
            mm = apply_homography(np.linalg.inv(H), pts)
            for ai, arc in enumerate(arcs):
                c = np.array(arc.center)
                d = np.linalg.norm(mm - c, axis=1)
                ang = np.degrees(np.arctan2(mm[:, 1] - c[1], mm[:, 0] - c[0])) % 360
                lo, hi = arc.start_deg % 360, arc.end_deg % 360
                # stay clear of the arc's round end caps
                margin = math.degrees((arc.width_mm + arc_tol_mm) / arc.radius) + 1
                inside = (ang > lo + margin) & (ang < hi - margin) if lo < hi else ((ang > lo + margin) | (ang < hi - margin))
                half = arc.width_mm / 2
                for side, sel in (("outer", (d > arc.radius) & (d < arc.radius + half + arc_tol_mm)),
                                  ("inner", (d < arc.radius) & (d > arc.radius - half - arc_tol_mm))):
                    s = inside & sel
                    if s.sum() < 20:
                        continue
                    p_sel = pts[s]
                    step = max(1, len(p_sel) // 300)
                    groups.append(_EdgeGroup(p_sel[::step], c, "arc", f"arc{ai}.{side}"))
    return groups


def refine_homography(H0: np.ndarray, groups: list[_EdgeGroup], image_size: tuple[int, int]) -> tuple[np.ndarray, float, np.ndarray]:
    """Refine ``H0`` (mm -> px) on edge groups; drops outlying points (> 3 sigma) once.

    Returns:
        (H, rms_mm, residuals_mm) -- the refined homography, the RMS edge residual
        on the felt, mm, and every kept point's residual, mm.
    """
    centre = np.array([image_size[0] / 2, image_size[1] / 2])
    scale = max(image_size) / 2
    prob = _EdgeProblem(groups, centre, scale)
    g = prob.solve(prob.g_from_h(normalise_homography(H0)))
    r_mm = prob.residuals(g, px_weight=False)
    sigma = 1.4826 * np.median(np.abs(r_mm)) + 1e-6
    kept = []
    for k, grp in enumerate(groups):
        sel = np.abs(r_mm[prob.gid == k]) < max(3 * sigma, 0.3)
        if sel.sum() >= 8:
            kept.append(_EdgeGroup(grp.points_px[sel], grp.center, grp.kind, grp.name))
    if kept:
        prob = _EdgeProblem(kept, centre, scale)
        g = prob.solve(g)
    r_mm = prob.residuals(g, px_weight=False)
    return prob.h_from_g(g), float(np.sqrt(np.mean(r_mm**2))), r_mm


# --- the whole job --------------------------------------------------------------------
def calibrate_auto(image: np.ndarray, layout: Layout, *, min_circles: int = MIN_CIRCLES,
                   max_error_mm: float = MAX_ERROR_MM, camera_matrix: np.ndarray | None = None,
                   dist_coeffs: np.ndarray | None = None, source: str = "image") -> CalibrationResult:
    """Calibrate a camera from one frame of the empty (or nearly empty) layout.

    Args:
        image: (H, W, 3) uint8 BGR frame.
        layout: the layout printed on the felt.
        min_circles: fewest betting circles that must be matched; one fewer (but at
            least 3) is enough where a printed arc is matched too.
        max_error_mm: largest accepted RMS edge residual, mm on the felt.
        camera_matrix, dist_coeffs: a lens model (ChArUco); the frame is undistorted first.
        source: the image's name for error messages.

    Returns:
        The calibration (``method="auto"``).

    Raises:
        CalibrationError: where the layout cannot be found: too few ellipses or circles
            matched, an ambiguous match (seats repeat; nothing asymmetric in view),
            arcs and words that do not line up (:data:`MIN_CONTRAST`), or a residual
            above ``max_error_mm``; the message says how many ellipses were found and
            how many circles and arcs matched.
    """
    if image is None or image.ndim != 3 or image.shape[2] != 3:
        raise CalibrationError(f"{source}: expected a colour image")
    h, w = image.shape[:2]
    lens = camera_matrix is not None
    if lens:
        dist = np.zeros(5) if dist_coeffs is None else np.asarray(dist_coeffs, np.float64)
        image = cv2.undistort(image, np.asarray(camera_matrix, np.float64), dist)
    circles = layout_circles(layout)
    arcs = layout_arcs(layout)
    mask = print_mask(image)
    ellipses = detect_ellipses(image, mask)
    what = f"layout {layout.id} not found in {source}"
    need_any = max(3, min_circles - 1) if arcs else min_circles
    if len(ellipses) < need_any:
        raise CalibrationError(
            f"{what}: found {len(ellipses)} ellipse(s) that could be betting circles, need at least {need_any} "
            f"of the layout's {len(circles)} (is the layout in view, lit and in focus?)")
    sols = match_circles(ellipses, circles, (w, h))
    best = sols[0] if sols else None
    n_best = len(best.pairs) if best else 0
    if best is None or n_best < need_any:
        raise CalibrationError(
            f"{what}: matched {n_best} of {len(circles)} betting circles (need {min_circles}) "
            f"among {len(ellipses)} ellipse(s) found")
    # nearly rotation-symmetric layouts: a one-seat-off solution may score close to the true one
    asym = asymmetry_samples(layout)
    # a layout repeats seat by seat: up to one equally good match per seat offset; the
    # words and arc ends rank them (cheaply, before refinement), the best few are refined
    cands = [s for s in sols[:12] if s.score >= best.score - 2]
    cands.sort(key=lambda s: -(s.score + 6.0 * asymmetry_contrast(s.H, mask, asym)))
    refined = []
    for s in cands[:3]:
        # the circles' own edges first, then the arcs with a shrinking reach, so that words
        # printed beside an arc are not taken for its edge while the estimate is still rough
        H2, pairs = s.H, s.pairs
        for tol in (None, 8.0, 4.0, 2.5):
            groups = collect_edge_groups(H2, ellipses, pairs, circles, arcs if tol else [], mask,
                                         arc_tol_mm=tol or 0.0)
            H2, rms, _ = refine_homography(H2, groups, (w, h))
            m2 = _match_under(H2, ellipses, circles, (w, h))
            pairs = m2.pairs if len(m2.pairs) >= len(pairs) else pairs
        contrast = asymmetry_contrast(H2, mask, asym)
        refined.append((m2.score + 6.0 * contrast, m2, H2, rms, groups))
    refined.sort(key=lambda t: -t[0])
    score, match, H, rms, groups = refined[0]
    if len(refined) > 1 and refined[1][0] > score - 1.0:
        other = refined[1][2]
        c = np.array([cc.center for cc in circles]).mean(axis=0, keepdims=True)
        shift = float(np.linalg.norm(apply_homography(np.linalg.inv(H), apply_homography(other, c)) - c))
        if shift > 20:
            raise CalibrationError(
                f"{what}: ambiguous: {len(match.pairs)} of {len(circles)} betting circles matched two ways "
                f"{shift:.0f} mm apart; bring an end seat into view or use --markers/--points")
    n_arcs = len({g.name.split(".")[0] for g in groups if g.kind == "arc"})
    contrast = asymmetry_contrast(H, mask, asym)
    if contrast and contrast < MIN_CONTRAST:
        raise CalibrationError(
            f"{what}: the printed arcs and words do not line up with {len(match.pairs)} of {len(circles)} matched "
            f"betting circles (ink contrast {contrast:.2f}, need {MIN_CONTRAST:g}); is this the right layout?")
    if len(match.pairs) < min_circles and not contrast:
        raise CalibrationError(f"{what}: matched only {len(match.pairs)} of {len(circles)} betting circles and no "
                               f"printed arc ends or words are in view to confirm them (need {min_circles} circles)")
    if len(match.pairs) < min_circles and not (len(match.pairs) >= need_any and n_arcs >= 1):
        raise CalibrationError(f"{what}: matched {len(match.pairs)} of {len(circles)} betting circles and {n_arcs} of "
                               f"{len(arcs)} arcs after refinement (need {min_circles} circles, or {need_any} and an arc)")
    if not np.isfinite(rms) or rms > max_error_mm:
        raise CalibrationError(
            f"{what}: residual {rms:.1f} mm RMS exceeds {max_error_mm:g} mm with {len(match.pairs)} of "
            f"{len(circles)} betting circles and {n_arcs} of {len(arcs)} arcs matched")
    return CalibrationResult(
        homography=H, image_size=(w, h), layout_id=layout.id, reprojection_error_mm=rms, method="auto",
        features_matched=len(match.pairs) + n_arcs,
        camera_matrix=np.asarray(camera_matrix, np.float64) if lens else None,
        dist_coeffs=(np.zeros(5) if dist_coeffs is None else np.asarray(dist_coeffs, np.float64)) if lens else None,
        extra={"circles_matched": len(match.pairs), "circles_total": len(circles), "arcs_matched": n_arcs,
               "print_contrast": round(contrast, 3)},
    )
