"""Objects on the table over time: keyframed tracks, and the :class:`TableState` at any instant.

A round script (:mod:`datasets.rounds`) describes every card, chip stack and hand
as a :class:`Track`: a list of :class:`Key` frames in seconds.  Between two keys
the position and angle glide (smoothstep easing, so things start and stop softly);
everything else (face up or down, zone, chip layers, drawing layer) changes in a
step at a key.  :meth:`Timeline.state_at` samples every track at one instant and
returns the :class:`TableState` the image renderer draws.

Units: seconds, layout millimetres (see :mod:`calibration.layout`), degrees.

Example:
    >>> tl = Timeline()
    >>> card = tl.card("AS", t=0.0, center=(100.0, 100.0), face_up=False)
    >>> _ = card.move(1.0, 2.0, (200.0, 100.0), face_up=True, zone="seat1.cards")
    >>> [c.center for c in tl.state_at(1.5).cards]
    [(150.0, 100.0)]
    >>> tl.state_at(2.5).cards[0].face_up
    True
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from datasets.scene import ChipLayer, ChipStack, HandOccluder, PlacedCard, TableState

Point = tuple[float, float]

TRANSIT_LAYER = 10_000
"""Drawing layer added to a card while it moves, so a card in the dealer's hand covers those on the felt."""


@dataclass(frozen=True)
class Key:
    """One key frame of a track.

    Attributes:
        t: seconds from the start of the video.
        center: (x, y) mm; for a hand, the centre of the palm.
        angle_deg: card rotation (see :class:`datasets.scene.PlacedCard`); unused for chips.
        face_up: cards only.
        layer: cards only; drawing order.
        zone: the zone the object rests in, ``None`` while it is carried.
        layers: chips only; bottom to top.
    """

    t: float
    center: Point
    angle_deg: float = 0.0
    face_up: bool = True
    layer: int = 0
    zone: str | None = None
    layers: tuple[ChipLayer, ...] = ()


def _ease(a: float) -> float:
    """Smoothstep easing of a fraction 0..1."""
    return a * a * (3.0 - 2.0 * a)


class Track:
    """One object over time: a card, a chip stack or a hand.

    The object exists from its first key's time until :attr:`end` (exclusive).

    Attributes:
        kind: ``card``, ``chips`` or ``hand``.
        label: the card (``"10H"``) for a card; a name for the others.
        keys: key frames in time order.
        end: seconds; the object is gone from this instant on (``inf``: never).
        anchor: hands only: the shoulder (x, y) mm the arm runs to.
        skin_rgb: hands only.
    """

    def __init__(self, kind: Literal["card", "chips", "hand"], label: str, first: Key,
                 anchor: Point | None = None, skin_rgb: tuple[int, int, int] = (200, 160, 130)):
        self.kind = kind
        self.label = label
        self.keys: list[Key] = [first]
        self.end = math.inf
        self.anchor = anchor
        self.skin_rgb = skin_rgb

    # -- building ---------------------------------------------------------------------------

    @property
    def last(self) -> Key:
        return self.keys[-1]

    @property
    def start(self) -> float:
        return self.keys[0].t

    def _append(self, key: Key) -> None:
        if key.t < self.last.t - 1e-9:
            raise ValueError(f"track {self.label}: key at {key.t:.3f} s before the last one at {self.last.t:.3f} s")
        if abs(key.t - self.last.t) < 1e-9:
            self.keys[-1] = key  # a later change at the same instant wins
        else:
            self.keys.append(key)

    def set(self, t: float, **changes) -> "Track":
        """Change discrete attributes (``face_up``, ``zone``, ``layers``, ``layer``...) at ``t`` without moving."""
        base = self.at_key(t)
        self._append(replace(base, t=t, **changes))
        return self

    def move(self, t0: float, t1: float, center: Point, angle_deg: float | None = None, **arrive) -> "Track":
        """Carry the object from where it is at ``t0`` to ``center`` at ``t1``.

        While carried its zone is ``None`` (cards also draw above the felt's cards);
        ``arrive`` sets attributes from ``t1`` on (``zone=...``, ``face_up=...``...).
        Attributes in ``arrive`` named with a ``during_`` prefix apply from ``t0``.
        """
        if t1 <= t0:
            raise ValueError(f"track {self.label}: a move must take time ({t0:.3f} -> {t1:.3f} s)")
        during = {k.removeprefix("during_"): v for k, v in arrive.items() if k.startswith("during_")}
        arrive = {k: v for k, v in arrive.items() if not k.startswith("during_")}
        start = self.at_key(t0)
        carried = replace(start, t=t0, zone=None, **during)
        if self.kind == "card":
            carried = replace(carried, layer=start.layer % TRANSIT_LAYER + TRANSIT_LAYER)
        self._append(carried)
        end = replace(carried, t=t1, center=(float(center[0]), float(center[1])),
                      angle_deg=carried.angle_deg if angle_deg is None else float(angle_deg))
        if self.kind == "card":
            end = replace(end, layer=start.layer % TRANSIT_LAYER)
        self._append(replace(end, **arrive))
        return self

    def vanish(self, t: float) -> "Track":
        """The object leaves the table (into the shoe's discard rack, the chip tray, a player's pocket) at ``t``."""
        self.end = min(self.end, t)
        return self

    # -- sampling ---------------------------------------------------------------------------

    def alive(self, t: float) -> bool:
        return self.keys[0].t <= t < self.end

    def at_key(self, t: float) -> Key:
        """The object's state at ``t`` as a key (interpolated position, stepped attributes)."""
        times = [k.t for k in self.keys]
        i = bisect.bisect_right(times, t) - 1
        if i < 0:
            return replace(self.keys[0], t=t)
        k0 = self.keys[i]
        if i + 1 >= len(self.keys):
            return replace(k0, t=t)
        k1 = self.keys[i + 1]
        a = _ease((t - k0.t) / (k1.t - k0.t))
        cx = k0.center[0] + (k1.center[0] - k0.center[0]) * a
        cy = k0.center[1] + (k1.center[1] - k0.center[1]) * a
        ang = k0.angle_deg + (k1.angle_deg - k0.angle_deg) * a
        return replace(k0, t=t, center=(cx, cy), angle_deg=ang)


# -- hands --------------------------------------------------------------------------------

def _hull(points: np.ndarray) -> np.ndarray:
    """Convex hull (monotone chain) of (N, 2) points, counter-clockwise, no repeats."""
    pts = sorted(set(map(tuple, np.round(points, 3).tolist())))
    if len(pts) <= 2:
        return np.array(pts)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


def hand_polygon(palm: Point, anchor: Point, palm_mm: tuple[float, float] = (44.0, 56.0),
                 shoulder_half_width_mm: float = 60.0) -> tuple[tuple[float, float], ...]:
    """The outline of a hand and forearm reaching from ``anchor`` (the shoulder) to ``palm`` (mm).

    The palm is an ellipse (half-width, half-length) mm, long along the arm; the
    forearm widens to ``2 * shoulder_half_width_mm`` at the shoulder.  Returns the
    convex outline as a tuple of (x, y) mm, counter-clockwise.
    """
    p = np.asarray(palm, float)
    s = np.asarray(anchor, float)
    d = p - s
    n = float(np.hypot(*d)) or 1.0
    u = d / n                      # along the arm, towards the fingers
    v = np.array([-u[1], u[0]])    # across the arm
    ang = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    ell = p + np.outer(np.cos(ang) * palm_mm[1], u) + np.outer(np.sin(ang) * palm_mm[0], v)
    shoulder = np.array([s + v * shoulder_half_width_mm, s - v * shoulder_half_width_mm])
    return tuple((float(x), float(y)) for x, y in _hull(np.vstack([ell, shoulder])))


# -- the timeline -------------------------------------------------------------------------

class Timeline:
    """Every track of a video, and the table state at any instant."""

    def __init__(self) -> None:
        self.tracks: list[Track] = []

    def add(self, track: Track) -> Track:
        self.tracks.append(track)
        return track

    def card(self, card: str, t: float, center: Point, face_up: bool = False, angle_deg: float = 0.0,
             layer: int = 0, zone: str | None = None) -> Track:
        """A card appearing at ``t`` (usually at the shoe's mouth)."""
        return self.add(Track("card", card, Key(t, (float(center[0]), float(center[1])), angle_deg, face_up,
                                                 layer, zone)))

    def chips(self, label: str, t: float, center: Point, layers: tuple[ChipLayer, ...],
              zone: str | None = None) -> Track:
        """A chip stack appearing at ``t``."""
        if not layers:
            raise ValueError(f"chip stack {label}: no chips")
        return self.add(Track("chips", label, Key(t, (float(center[0]), float(center[1])), zone=zone,
                                                  layers=tuple(layers))))

    def hand(self, label: str, t: float, palm: Point, anchor: Point,
             skin_rgb: tuple[int, int, int] = (200, 160, 130)) -> Track:
        """A hand (and forearm, to ``anchor``) appearing at ``t`` with its palm at ``palm``."""
        return self.add(Track("hand", label, Key(t, (float(palm[0]), float(palm[1]))), anchor=anchor,
                              skin_rgb=skin_rgb))

    @property
    def duration(self) -> float:
        """Seconds until the last key or disappearance of any track."""
        out = 0.0
        for tr in self.tracks:
            out = max(out, tr.last.t, tr.end if math.isfinite(tr.end) else 0.0)
        return out

    def state_at(self, t: float) -> TableState:
        """What lies on the table at ``t`` seconds.

        Cards come out sorted by drawing layer (stable in creation order), chip
        stacks and hands in creation order.
        """
        cards: list[tuple[int, int, PlacedCard]] = []
        chips: list[ChipStack] = []
        hands: list[HandOccluder] = []
        for i, tr in enumerate(self.tracks):
            if not tr.alive(t):
                continue
            k = tr.at_key(t)
            c = (round(k.center[0], 2), round(k.center[1], 2))
            if tr.kind == "card":
                cards.append((k.layer, i, PlacedCard(card=tr.label, face_up=k.face_up, center=c,
                                                     angle_deg=round(k.angle_deg, 2), layer=k.layer, zone=k.zone)))
            elif tr.kind == "chips":
                chips.append(ChipStack(center=c, layers=k.layers, zone=k.zone))
            else:
                hands.append(HandOccluder(polygon=hand_polygon(c, tr.anchor), skin_rgb=tr.skin_rgb))
        cards.sort(key=lambda x: (x[0], x[1]))
        return TableState(cards=tuple(c for _, _, c in cards), chips=tuple(chips), hands=tuple(hands))

    def frame_times(self, fps: float, frames: int) -> list[float]:
        """Instants of frames ``0..frames-1`` (frame ``i`` shows the table at ``i / fps`` s)."""
        return [i / fps for i in range(frames)]
