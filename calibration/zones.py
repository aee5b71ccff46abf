"""Layout zones in the camera image: polygons, zone of a detection, rectified zone crops.

A card lies flat, so the centre of its box is (nearly) the image of a point of the
card and maps straight to the felt.  A chip stack stands up: under an oblique
camera its box also holds the stack's side and top, which lean *away* from the
point straight below the camera, so the box centre lands millimetres to
centimetres beyond the spot the stack stands on.  The stack's base is found
instead by fitting the image of an upright cylinder (chip radius, unknown
height) standing at an unknown felt point to the box (:meth:`ZoneMap.stack_base_mm`);
the bottom-centre of the box is only the right proxy for a camera on the
players' side with no roll, and even then sits one chip radius in front of the base.

Example:
    >>> zm = ZoneMap(layout, calibration)                        # doctest: +SKIP
    >>> zm.zone_of_boxes(card_boxes, kind="card")               # doctest: +SKIP
    ['seat3.cards', 'dealer.cards']
    >>> crop = zm.crop(frame, ["seat3.mtd", "seat3.bonus"], px_per_mm=3.0)  # doctest: +SKIP
    >>> zm.zone_of_boxes(crop.boxes_to_frame(boxes_in_crop), kind="chip")  # doctest: +SKIP
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable, Literal

import cv2
import numpy as np

from calibration.homography import CalibrationResult, apply_homography
from calibration.layout import Layout, Zone

CHIP_RADIUS_MM = 19.5
"""Radius of a casino chip (39 mm diameter), mm."""

DetectionKind = Literal["card", "chip"]

CARD_SPILL_MM = 45.0
"""How far outside every zone a card's centre may lie and still count for the nearest zone (half a card's length:
the later cards of a fan overhang the printed card area)."""
CARD_ZONE_KINDS = ("cards", "dealer_cards")
"""Zones a card overhanging every zone may be given to: the places hands are laid out."""
STACK_SPILL_MM = CHIP_RADIUS_MM
"""The same for the base of a chip stack: a stack whose base lies within a chip's radius of a zone still stands on
it. The base fitted to a loose stage-1 box (the dealer's hand or a card in it) can lie that far off: in five 4K round
videos (seeds 7112, 7118, 7121, 7124, 7128) wagers read right from their side were dropped for a base 10-15 mm
outside their spot (8 mm before): seats with every wager right 43 % -> 62 %, rounds right 0 -> 2 of 10."""


def polygon_area(polygon) -> float:
    """Area of a (K, 2) polygon (shoelace), in its units squared."""
    P = np.asarray(polygon, dtype=np.float64)
    return float(abs(np.dot(P[:, 0], np.roll(P[:, 1], -1)) - np.dot(P[:, 1], np.roll(P[:, 0], -1))) / 2)


def points_in_polygon(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Even-odd test of (N, 2) points against a (K, 2) polygon (same units); returns (N,) bool."""
    P = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    poly = np.asarray(polygon, dtype=np.float64)
    x, y = P[:, 0:1], P[:, 1:2]
    xi, yi = poly[:, 0][None], poly[:, 1][None]
    xj, yj = np.roll(poly[:, 0], 1)[None], np.roll(poly[:, 1], 1)[None]
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = (yi > y) != (yj > y)
        xint = (xj - xi) * (y - yi) / (yj - yi) + xi
    return (np.sum(cross & (x < xint), axis=1) % 2) == 1


def zones_in_view(layout: Layout, homography: np.ndarray, image_size: tuple[int, int], kind: str,
                  min_share: float = 0.75) -> bool:
    """Whether the layout has a zone of ``kind`` and the camera's frame holds at least ``min_share`` of each one.

    Args:
        layout: the table layout (zones in mm).
        homography: (3, 3) layout mm -> image pixels.
        image_size: (width, height) of the frame, pixels.
        kind: a zone kind (``discard``: the discard rack, where the burn card goes, 13:69F-2B.6(c)).
        min_share: the share (0-1) of each zone's area in the image that must lie inside the frame: a card laid
            in the middle of a rack whose far edge the frame cuts is still seen.
    """
    zones = [z for z in layout.zones if z.kind == kind]
    if not zones:
        return False
    w, h = image_size
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    for z in zones:
        pts = apply_homography(np.asarray(homography, np.float64), np.asarray(z.polygon, np.float64))
        if not np.isfinite(pts).all():
            return False
        hull = cv2.convexHull(pts.astype(np.float32))
        area = cv2.contourArea(hull)
        inside, _ = cv2.intersectConvexConvex(hull, frame)
        if area <= 0 or inside < min_share * area:
            return False
    return True


@dataclass
class ZoneCrop:
    """A rectified, fixed-scale top-down crop of part of the layout.

    Crop pixel (u, v) is felt point ``origin_mm + (u, v) / px_per_mm``.

    Attributes:
        image: (h, w, 3) uint8 BGR crop.
        px_per_mm: crop pixels per layout millimetre.
        origin_mm: (x, y) mm of the crop's top-left corner.
        zones: the zone names the crop was cut for.
        calibration: the frame's calibration (for mapping back to frame pixels).
    """

    image: np.ndarray
    px_per_mm: float
    origin_mm: tuple[float, float]
    zones: list[str]
    calibration: CalibrationResult

    @property
    def crop_from_mm(self) -> np.ndarray:
        """(3, 3) layout mm -> crop pixels."""
        s = self.px_per_mm
        return np.array([[s, 0, -s * self.origin_mm[0]], [0, s, -s * self.origin_mm[1]], [0, 0, 1.0]])

    @property
    def crop_from_frame(self) -> np.ndarray:
        """(3, 3) (undistorted) frame pixels -> crop pixels."""
        return self.crop_from_mm @ self.calibration.inverse

    def points_to_mm(self, points: np.ndarray) -> np.ndarray:
        """(N, 2) crop pixels -> (N, 2) layout mm."""
        P = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        return P / self.px_per_mm + np.asarray(self.origin_mm)

    def points_to_frame(self, points: np.ndarray) -> np.ndarray:
        """(N, 2) crop pixels -> (N, 2) raw frame pixels."""
        return self.calibration.to_pixels(self.points_to_mm(points))

    def boxes_to_mm(self, boxes: np.ndarray) -> np.ndarray:
        """(N, 4) xyxy crop pixels -> (N, 4) xyxy layout mm (exact: the crop is axis-aligned in mm)."""
        B = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
        o = np.tile(np.asarray(self.origin_mm), 2)
        return B / self.px_per_mm + o

    def boxes_to_frame(self, boxes: np.ndarray) -> np.ndarray:
        """(N, 4) xyxy crop pixels -> (N, 4) xyxy raw frame pixels (box around the mapped corners and edge midpoints).

        Exact for flat things (cards); a chip stack's box in a crop holds its
        side and top drawn on the felt plane, so its frame box is a little larger
        than the stack's own.
        """
        B = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
        if len(B) == 0:
            return np.zeros((0, 4))
        x1, y1, x2, y2 = B.T
        xm, ym = (x1 + x2) / 2, (y1 + y2) / 2
        pts = np.stack([np.stack(p, -1) for p in ((x1, y1), (xm, y1), (x2, y1), (x2, ym), (x2, y2), (xm, y2),
                                                   (x1, y2), (x1, ym))], 1)  # (N, 8, 2)
        f = self.points_to_frame(pts.reshape(-1, 2)).reshape(-1, 8, 2)
        return np.concatenate([f.min(axis=1), f.max(axis=1)], axis=1)


class ZoneMap:
    """The layout's zones seen through one calibrated camera.

    Args:
        layout: the table layout (mm).
        calibration: the camera's calibration against ``layout``.
        chip_radius_mm: radius of a chip, for finding the base of a stack.

    Raises:
        ValueError: where the calibration was made for another layout.
    """

    def __init__(self, layout: Layout, calibration: CalibrationResult, chip_radius_mm: float = CHIP_RADIUS_MM):
        if calibration.layout_id != layout.id:
            raise ValueError(f"calibration is for layout {calibration.layout_id!r}, not {layout.id!r}")
        self.layout = layout
        self.calibration = calibration
        self.chip_radius_mm = chip_radius_mm
        # the order layout.zone_at uses: spots before the larger zones they lie in, then smaller zones first
        self._order: list[Zone] = sorted(layout.zones, key=lambda z: (z.circle is None, polygon_area(z.polygon)))
        # live video hands back the same boxes frame after frame (unchanged zone crops keep their detections):
        # each box's zone and anchor are worked out once
        self._memo: dict[tuple, tuple[str | None, np.ndarray]] = {}

    # --- polygons --------------------------------------------------------------------
    def polygon_px(self, name: str, vertices_per_edge: int = 1) -> np.ndarray:
        """(K, 2) float64 raw frame pixels of zone ``name``'s polygon (edges subdivided where a lens bends them).

        Raises:
            KeyError: for an unknown zone.
        """
        poly = np.asarray(self.layout.zone(name).polygon, dtype=np.float64)
        if vertices_per_edge > 1:
            nxt = np.roll(poly, -1, axis=0)
            t = np.arange(vertices_per_edge)[None, :, None] / vertices_per_edge
            poly = (poly[:, None] + t * (nxt - poly)[:, None]).reshape(-1, 2)
        return self.calibration.to_pixels(poly)

    def polygons_px(self) -> dict[str, np.ndarray]:
        """Every zone's polygon in raw frame pixels, by name."""
        k = 8 if self.calibration.distorted else 1
        return {z.name: self.polygon_px(z.name, k) for z in self.layout.zones}

    # --- zone of a point or box --------------------------------------------------------
    def zone_of_mm(self, points_mm: np.ndarray, tolerance_mm: float = 0.0) -> list[str | None]:
        """Zone name (or ``None``) of each (N, 2) layout-mm point, with :meth:`Layout.zone_at`'s priority.

        A point in no zone goes to the nearest zone whose edge lies within
        ``tolerance_mm`` (0: none), so a card of a fan that spills over the printed
        edge still counts for its seat.
        """
        P = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        out: list[str | None] = [None] * len(P)
        todo = np.isfinite(P).all(axis=1)
        for z in self._order:
            if not todo.any():
                break
            idx = np.where(todo)[0]
            if z.circle is not None:
                hit = np.linalg.norm(P[idx] - np.asarray(z.circle.center), axis=1) <= z.circle.radius
            else:
                hit = points_in_polygon(P[idx], np.asarray(z.polygon))
            for i in idx[hit]:
                out[i] = z.name
            todo[idx[hit]] = False
        if tolerance_mm > 0 and todo.any():
            idx = np.where(todo)[0]
            dist = np.stack([self._edge_distance(P[idx], z) for z in self._order], axis=1)
            best = np.argmin(dist, axis=1)
            for row, (i, k) in enumerate(zip(idx, best)):
                if dist[row, k] <= tolerance_mm:
                    out[i] = self._order[k].name
        return out

    @staticmethod
    def _edge_distance(P: np.ndarray, zone: Zone) -> np.ndarray:
        """(N,) distance, mm, from each point to the zone's edge (its circle for a spot)."""
        if zone.circle is not None:
            return np.abs(np.linalg.norm(P - np.asarray(zone.circle.center), axis=1) - zone.circle.radius)
        a = np.asarray(zone.polygon, np.float64)
        b = np.roll(a, -1, axis=0)
        ab = b - a
        t = np.clip(np.einsum("nkd,kd->nk", P[:, None] - a[None], ab) / np.maximum((ab**2).sum(1), 1e-12), 0, 1)
        closest = a[None] + t[..., None] * ab[None]
        return np.linalg.norm(P[:, None] - closest, axis=2).min(axis=1)

    def zone_of_points(self, points_px: np.ndarray, tolerance_mm: float = 0.0) -> list[str | None]:
        """Zone name (or ``None``) of each (N, 2) raw frame pixel point lying on the felt (see :meth:`zone_of_mm`)."""
        return self.zone_of_mm(self.calibration.to_mm(points_px), tolerance_mm)

    def zone_of_boxes(self, boxes: np.ndarray, kind: DetectionKind = "card", tolerance_mm: float | None = None) -> list[str | None]:
        """Zone of each (N, 4) xyxy raw frame pixel box: a card by its centre, a chip stack by its base.

        ``tolerance_mm`` (default :data:`CARD_SPILL_MM` for cards, :data:`STACK_SPILL_MM`
        for stacks): how far outside every zone the point may lie and still be placed: a
        card then goes to the zone (within the tolerance) its footprint overlaps most, a
        stack to the nearest zone.
        """
        return self.place_boxes(boxes, kind, tolerance_mm)[0]

    def place_boxes(self, boxes: np.ndarray, kind: DetectionKind = "card",
                    tolerance_mm: float | None = None) -> tuple[list[str | None], np.ndarray]:
        """Zone (as :meth:`zone_of_boxes`) and (N, 2) layout-mm anchor (as :meth:`box_anchor_mm`) of each box.

        Each distinct box is worked out once per ZoneMap: live video hands back the same boxes
        frame after frame, and a chip stack's base is a small least-squares fit.

        Raises:
            ValueError: for a ``kind`` other than ``card`` or ``chip``.
        """
        if kind not in ("card", "chip"):
            raise ValueError(f"kind must be 'card' or 'chip', got {kind!r}")
        B = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
        keys = [(kind, tolerance_mm, b.tobytes()) for b in B]
        todo = [i for i, k in enumerate(keys) if k not in self._memo]
        if todo:
            if len(self._memo) > 20000:
                self._memo.clear()
            zones, anchors = self._zone_of_boxes(B[todo], kind, tolerance_mm)
            for i, z, a in zip(todo, zones, anchors):
                self._memo[keys[i]] = (z, np.asarray(a, np.float64))
        got = [self._memo[k] for k in keys]
        return [z for z, _ in got], np.array([a for _, a in got], np.float64).reshape(-1, 2)

    def _zone_of_boxes(self, boxes: np.ndarray, kind: DetectionKind = "card", tolerance_mm: float | None = None) -> list[str | None]:
        """:meth:`zone_of_boxes` without the memo: (zones, (N, 2) mm anchors).

        ``tolerance_mm`` (default :data:`CARD_SPILL_MM` for cards, :data:`STACK_SPILL_MM`
        for stacks): how far outside every zone the point may lie and still be placed: a
        card then goes to the zone (within the tolerance) its footprint overlaps most, a
        stack to the nearest zone.
        """
        if tolerance_mm is None:
            tolerance_mm = CARD_SPILL_MM if kind == "card" else STACK_SPILL_MM
        B = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
        anchors = self.box_anchor_mm(B, kind)
        out = self.zone_of_mm(anchors, 0.0)
        if kind == "card" and tolerance_mm > 0:
            # a card whose centre lies in no zone (a fan overhanging the printed area) goes to
            # the card zone its footprint overlaps most, if that zone lies within the tolerance
            for n in [k for k, z in enumerate(out) if z is None]:
                x1, y1, x2, y2 = B[n]
                foot = self.calibration.to_mm([[x1, y1], [x2, y1], [x2, y2], [x1, y2]])
                out[n] = self._most_overlap(foot, tolerance_mm)
        elif tolerance_mm > 0:
            missing = [k for k, z in enumerate(out) if z is None]
            if missing:
                for k, z in zip(missing, self.zone_of_mm(anchors[missing], tolerance_mm)):
                    out[k] = z
        return out, anchors

    def _most_overlap(self, footprint_mm: np.ndarray, tolerance_mm: float) -> str | None:
        """The card zone (:data:`CARD_ZONE_KINDS`) overlapping the (4, 2) mm footprint most, among those within
        ``tolerance_mm`` of its centre."""
        if not np.isfinite(footprint_mm).all():
            return None
        foot = cv2.convexHull(footprint_mm.astype(np.float32))
        centre = footprint_mm.mean(axis=0, keepdims=True)
        best, best_area = None, 0.0
        for z in self._order:
            if z.kind not in CARD_ZONE_KINDS or self._edge_distance(centre, z)[0] > tolerance_mm:
                continue
            poly = cv2.convexHull(np.asarray(z.polygon, np.float32))
            area, _ = cv2.intersectConvexConvex(foot, poly)
            if area > best_area:
                best, best_area = z.name, float(area)
        return best

    def box_anchor_mm(self, boxes: np.ndarray, kind: DetectionKind = "card") -> np.ndarray:
        """(N, 2) layout mm of the felt point each box stands for (card: centre; chip: base of the stack)."""
        B = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
        if kind == "chip":
            return self.stack_base_mm(B)
        if kind != "card":
            raise ValueError(f"kind must be 'card' or 'chip', got {kind!r}")
        return self.calibration.to_mm(np.column_stack([(B[:, 0] + B[:, 2]) / 2, (B[:, 1] + B[:, 3]) / 2]))

    # --- chip stacks -------------------------------------------------------------------
    @cached_property
    def _pose(self):
        return self.calibration.pose()

    def _stack_box(self, base_mm: np.ndarray, height_mm: float) -> np.ndarray:
        """(4,) xyxy undistorted pixels of an upright chip stack standing at ``base_mm`` (2,), ``height_mm`` tall."""
        a = np.linspace(0, 2 * math.pi, 24, endpoint=False)
        ring = np.column_stack([base_mm[0] + self.chip_radius_mm * np.cos(a), base_mm[1] + self.chip_radius_mm * np.sin(a)])
        pts = np.vstack([np.column_stack([ring, np.zeros(len(a))]), np.column_stack([ring, np.full(len(a), -height_mm)])])
        uv = self._pose.project(pts)
        return np.concatenate([uv.min(axis=0), uv.max(axis=0)])

    def stack_base_mm(self, boxes: np.ndarray) -> np.ndarray:
        """(N, 2) layout mm of the base centre of the chip stack in each (N, 4) xyxy raw frame pixel box.

        Fits an upright cylinder of the chip radius, standing at an unknown felt
        point with an unknown height, to the box (Gauss-Newton on 3 unknowns, 4
        box sides), starting from the bottom-centre of the box.  Sides on the
        frame's edge (clipped boxes) are left out of the fit.
        """
        B = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
        out = np.zeros((len(B), 2))
        cal = self.calibration
        w, h = cal.image_size
        for n, box in enumerate(B):
            # a side on the frame's edge was clipped there: it says nothing about the stack
            use = np.array([box[0] > 1, box[1] > 1, box[2] < w - 2, box[3] < h - 2])
            if cal.distorted:
                c = cal.undistort_points(box.reshape(2, 2))
                box = c.ravel()
            if use.sum() < 3:
                out[n] = apply_homography(cal.inverse, [[(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]])[0]
                continue
            start = apply_homography(cal.inverse, [[(box[0] + box[2]) / 2, box[3]]])[0]
            x = np.array([start[0], start[1], 20.0])
            for _ in range(12):
                f0 = (self._stack_box(x[:2], x[2]) - box)[use]
                Jm = np.empty((int(use.sum()), 3))
                for k, step in enumerate((0.5, 0.5, 0.5)):
                    dx = np.zeros(3)
                    dx[k] = step
                    Jm[:, k] = ((self._stack_box(x[:2] + dx[:2], x[2] + dx[2]) - box)[use] - f0) / step
                delta, *_ = np.linalg.lstsq(Jm, -f0, rcond=None)
                if not np.all(np.isfinite(delta)):
                    break
                delta = np.clip(delta, -200, 200)
                x = x + delta
                x[2] = max(x[2], 0.0)
                if np.abs(delta[:2]).max() < 0.05:
                    break
            out[n] = x[:2]
        return out

    # --- crops ---------------------------------------------------------------------------
    def zones_bounds_mm(self, names: Iterable[str], margin_mm: float = 0.0) -> tuple[float, float, float, float]:
        """(x1, y1, x2, y2) mm around the named zones' polygons plus ``margin_mm``.

        Raises:
            KeyError: for an unknown zone.
        """
        pts = np.vstack([np.asarray(self.layout.zone(n).polygon) for n in names])
        x1, y1 = pts.min(axis=0) - margin_mm
        x2, y2 = pts.max(axis=0) + margin_mm
        return float(x1), float(y1), float(x2), float(y2)

    def crop(self, frame: np.ndarray, names: str | Iterable[str], px_per_mm: float = 2.0,
             margin_mm: float = 30.0) -> ZoneCrop:
        """Cut a rectified top-down crop of one zone or a group of zones.

        Args:
            frame: (H, W, 3) uint8 BGR raw frame of the calibrated camera.
            names: a zone name or several; the crop is their bounding box in mm plus ``margin_mm``.
            px_per_mm: the crop's fixed scale.
            margin_mm: felt kept around the zones (chips and cards stick out of them).

        Returns:
            The crop (``ZoneCrop``), mapping back to frame pixels and mm.

        Raises:
            KeyError: for an unknown zone.  ValueError: for a non-positive scale.
        """
        if not px_per_mm > 0:
            raise ValueError(f"px_per_mm must be positive, got {px_per_mm!r}")
        names = [names] if isinstance(names, str) else list(names)
        x1, y1, x2, y2 = self.zones_bounds_mm(names, margin_mm)
        w = max(1, int(math.ceil((x2 - x1) * px_per_mm)))
        h = max(1, int(math.ceil((y2 - y1) * px_per_mm)))
        crop = ZoneCrop(image=np.zeros((h, w, 3), np.uint8), px_per_mm=px_per_mm, origin_mm=(x1, y1), zones=names,
                        calibration=self.calibration)
        cal = self.calibration
        if not cal.distorted:
            crop.image = cv2.warpPerspective(frame, crop.crop_from_frame, (w, h), flags=cv2.INTER_LINEAR,
                                             borderMode=cv2.BORDER_CONSTANT)
        else:
            # lens distortion: look each crop pixel up in the raw frame
            u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
            src = crop.points_to_frame(np.column_stack([u.ravel(), v.ravel()])).astype(np.float32)
            crop.image = cv2.remap(frame, src[:, 0].reshape(h, w), src[:, 1].reshape(h, w), cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_CONSTANT)
        return crop
