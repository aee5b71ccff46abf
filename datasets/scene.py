"""What lies on the table at one instant, in layout millimetres: the renderer's input.

A round script (:mod:`datasets.rounds`) produces a sequence of :class:`TableState`
over time; the image renderer draws one state through a camera.  Everything here
is plain data in the layout frame of :mod:`calibration.layout` (mm, ``x`` right,
``y`` away from the dealer; heights above the felt in mm).
"""

from __future__ import annotations

from dataclasses import dataclass, field

CARD_W_MM = 63.5
"""Width of a poker-size casino card, mm."""
CARD_H_MM = 88.9
"""Height of a poker-size casino card, mm."""
CHIP_DIAMETER_MM = 39.0
"""Diameter of a casino chip, mm."""
CHIP_THICKNESS_MM = 3.3
"""Thickness of one casino chip, mm."""


@dataclass(frozen=True)
class PlacedCard:
    """One card on the felt.

    Attributes:
        card: the card's identity in contract notation (``"10H"``), known even when face down.
        face_up: whether the face shows (else the back is drawn and labelled ``BACK``).
        center: (x, y) mm of the card's centre.
        angle_deg: rotation of the card about its centre, degrees, counter-clockwise
            on screen; 0 = upright for the dealer (long side along ``y``).
        layer: drawing order; higher layers cover lower ones.
        zone: the layout zone it was placed in (``"seat3.cards"``), if any.
    """

    card: str
    face_up: bool
    center: tuple[float, float]
    angle_deg: float = 0.0
    layer: int = 0
    zone: str | None = None


@dataclass(frozen=True)
class ChipLayer:
    """``count`` chips of one ``denomination`` (dollars) in a stack."""

    denomination: int
    count: int


@dataclass(frozen=True)
class ChipStack:
    """A stack of chips standing on the felt.

    Attributes:
        center: (x, y) mm of the stack's base.
        layers: bottom to top.
        zone: the layout zone it stands in (``"seat3.mtd"``), if any.
    """

    center: tuple[float, float]
    layers: tuple[ChipLayer, ...]
    zone: str | None = None

    @property
    def count(self) -> int:
        return sum(layer.count for layer in self.layers)

    @property
    def value(self) -> int:
        return sum(layer.denomination * layer.count for layer in self.layers)


@dataclass(frozen=True)
class HandOccluder:
    """The dealer's hand or arm over the felt: a polygon (K, 2) mm at ``height_mm`` above it."""

    polygon: tuple[tuple[float, float], ...]
    height_mm: float = 60.0
    skin_rgb: tuple[int, int, int] = (200, 160, 130)


@dataclass(frozen=True)
class TableState:
    """Everything on the layout at one instant."""

    cards: tuple[PlacedCard, ...] = ()
    chips: tuple[ChipStack, ...] = ()
    hands: tuple[HandOccluder, ...] = ()
    notes: dict = field(default_factory=dict, compare=False)
