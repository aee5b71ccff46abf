"""The table layout: the printed felt and its zones, in millimetres.

Coordinates are millimetres on the felt, seen from above with the dealer at the
top: ``x`` grows to the right, ``y`` grows away from the dealer (towards the
players).  The dealer faces +y, so the dealer's left (first base, seat 1) lies
at large ``x`` and seats are numbered clockwise as the dealer sees the table,
ending at third base on the small-``x`` side.

Zones are polygons named ``seat3.main``, ``seat3.mtd``, ``seat3.bonus``,
``seat3.cards``, ``seat3.payout``, ``dealer.cards``, ``shoe``, ``discard``,
``tray``.  Betting spots also carry their circle, which the renderer draws and
the automatic calibration looks for.

Example:
    >>> layout = load_layout(LAYOUT_DIR / "blackjack-7-mtd-bonus.yaml")
    >>> layout.zone("seat3.mtd").circle.radius
    28.0
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml is ~10x faster where present

LAYOUT_DIR = Path(__file__).resolve().parent / "layouts"
"""Folder of the layouts shipped with pitwatch."""

ZoneKind = Literal["main", "mtd", "bonus", "cards", "payout", "dealer_cards", "shoe", "discard", "tray"]
SEAT_ZONE_KINDS: tuple[str, ...] = ("main", "mtd", "bonus", "cards", "payout")
SPOT_KINDS: tuple[str, ...] = ("main", "mtd", "bonus")

Point = tuple[float, float]


class LayoutError(ValueError):
    """A layout file that cannot be used (unreadable, malformed, overlapping spots)."""


class Circle(BaseModel):
    """A printed circle: ``center`` (x, y) mm and ``radius`` mm."""

    model_config = ConfigDict(frozen=True)
    center: Point
    radius: float = Field(gt=0)

    def polygon(self, vertices: int = 48) -> list[Point]:
        """The circle as a closed polygon of ``vertices`` points (mm)."""
        cx, cy = self.center
        return [
            (round(cx + self.radius * math.cos(2 * math.pi * k / vertices), 3),
             round(cy + self.radius * math.sin(2 * math.pi * k / vertices), 3))
            for k in range(vertices)
        ]


class Zone(BaseModel):
    """One named region of the layout.

    Attributes:
        name: e.g. ``seat3.mtd`` or ``dealer.cards``.
        kind: what the zone is for (:data:`ZoneKind`).
        seat: the seat number for seat zones, else ``None``.
        polygon: (K, 2) vertices in mm, in order.
        circle: the printed spot for betting spots, else ``None``.
    """

    model_config = ConfigDict(frozen=True)
    name: str
    kind: ZoneKind
    seat: int | None = None
    polygon: list[Point] = Field(default_factory=list)
    circle: Circle | None = None

    @model_validator(mode="before")
    @classmethod
    def _polygon_from_circle(cls, data):
        if isinstance(data, dict) and not data.get("polygon") and data.get("circle") is not None:
            c = data["circle"]
            circle = c if isinstance(c, Circle) else Circle.model_validate(c)
            data = {**data, "polygon": circle.polygon()}
        return data

    @model_validator(mode="after")
    def _polygon_size(self) -> "Zone":
        if len(self.polygon) < 3:
            raise ValueError(f"zone {self.name}: needs a polygon of at least 3 points or a circle")
        return self

    def contains(self, point: Point) -> bool:
        """Whether ``point`` (mm) lies inside the polygon (even-odd rule)."""
        x, y = point
        inside = False
        pts = self.polygon
        j = len(pts) - 1
        for i in range(len(pts)):
            xi, yi = pts[i]
            xj, yj = pts[j]
            if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
                inside = not inside
            j = i
        return inside

    @property
    def centroid(self) -> Point:
        xs = [p[0] for p in self.polygon]
        ys = [p[1] for p in self.polygon]
        return (sum(xs) / len(xs), sum(ys) / len(ys))


class PrintedArc(BaseModel):
    """A printed arc line: centre (mm), radius (mm), angles (degrees, 0 = +x, clockwise on screen), line width (mm)."""

    model_config = ConfigDict(frozen=True)
    center: Point
    radius: float = Field(gt=0)
    start_deg: float
    end_deg: float
    width_mm: float = Field(default=6.0, gt=0)


GLYPH_WIDTH = 0.75
"""Printed words' length per character, in glyph heights (Hershey faces measure 0.63-0.71; casino layouts' faces
are of that order): generous, so a glyph read as a card index is known for print."""
GLYPH_BAND = 1.5
"""Printed words' extent across their line, in glyph heights (room for the stroke and the estimate's error)."""


class PrintedText(BaseModel):
    """Printed words: centred at ``center`` (mm), glyph height ``height_mm``, rotated ``angle_deg``.

    When ``arc_radius`` is set the words follow an arc of that radius about
    ``arc_center``, centred on the angle of ``center`` seen from ``arc_center``.
    """

    model_config = ConfigDict(frozen=True)
    text: str
    center: Point
    height_mm: float = Field(default=30.0, gt=0)
    angle_deg: float = 0.0
    arc_center: Point | None = None
    arc_radius: float | None = None

    def covers(self, points) -> list[bool]:
        """Whether each of N points (mm) lies on the printed words.

        The words' extent is estimated from their length and glyph height (the face is the printer's, not
        ours): :data:`GLYPH_WIDTH` glyph heights per character along the line (or arc) and :data:`GLYPH_BAND`
        glyph heights across it, both generous.

        Args:
            points: N (x, y) layout mm.

        Returns:
            N bools.
        """
        half_len = 0.5 * len(self.text) * GLYPH_WIDTH * self.height_mm
        half_band = 0.5 * GLYPH_BAND * self.height_mm
        out = []
        for x, y in points:
            if self.arc_center is not None and self.arc_radius:
                cx, cy = self.arc_center
                r = math.hypot(x - cx, y - cy)
                mid = math.atan2(self.center[1] - cy, self.center[0] - cx)
                turn = (math.atan2(y - cy, x - cx) - mid + math.pi) % (2 * math.pi) - math.pi
                out.append(abs(r - self.arc_radius) <= half_band and abs(turn) * self.arc_radius <= half_len)
            else:
                a = math.radians(self.angle_deg)
                dx, dy = x - self.center[0], y - self.center[1]
                along, across = dx * math.cos(a) + dy * math.sin(a), -dx * math.sin(a) + dy * math.cos(a)
                out.append(abs(along) <= half_len and abs(across) <= half_band)
        return out


class Layout(BaseModel):
    """A whole table layout (see the module docstring for the coordinate frame).

    Raises:
        LayoutError: through :func:`load_layout` when spots overlap, zone names
            repeat or a seat's zones disagree with its number.
    """

    model_config = ConfigDict(frozen=True)
    id: str
    name: str = ""
    game: Literal["blackjack", "spanish21", "switch_hands"]
    size_mm: tuple[float, float]
    felt_rgb: tuple[int, int, int] = (22, 96, 60)
    print_rgb: tuple[int, int, int] = (236, 222, 170)
    seats: int = Field(ge=1, le=7)
    table_center: Point
    table_radius: float
    zones: list[Zone]
    arcs: list[PrintedArc] = Field(default_factory=list)
    texts: list[PrintedText] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> "Layout":
        names = [z.name for z in self.zones]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"zone names repeat: {', '.join(dupes)}")
        for z in self.zones:
            if z.seat is not None and not z.name.startswith(f"seat{z.seat}."):
                raise ValueError(f"zone {z.name} says seat {z.seat}")
            if z.seat is not None and not 1 <= z.seat <= self.seats:
                raise ValueError(f"zone {z.name}: seat {z.seat} outside 1..{self.seats}")
        spots = [z for z in self.zones if z.circle is not None]
        for i, a in enumerate(spots):
            for b in spots[i + 1 :]:
                d = math.dist(a.circle.center, b.circle.center)
                if d < a.circle.radius + b.circle.radius:
                    raise ValueError(
                        f"betting spots {a.name} and {b.name} overlap: centres {d:.1f} mm apart, "
                        f"radii {a.circle.radius:g} + {b.circle.radius:g} mm"
                    )
        return self

    def zone(self, name: str) -> Zone:
        """The zone called ``name``; raises ``KeyError`` naming the known zones."""
        for z in self.zones:
            if z.name == name:
                return z
        raise KeyError(f"layout {self.id} has no zone {name!r}")

    def has_zone(self, name: str) -> bool:
        return any(z.name == name for z in self.zones)

    def seat_zones(self, seat: int) -> list[Zone]:
        return [z for z in self.zones if z.seat == seat]

    def spots(self) -> list[Zone]:
        """Every betting spot (zones with a printed circle)."""
        return [z for z in self.zones if z.circle is not None]

    def on_printed_words(self, points) -> list[bool]:
        """Whether each of N points (layout mm) lies on any of the layout's printed words
        (:meth:`PrintedText.covers`): where a glyph, read as a card's corner index, is print, not a card."""
        points = [(float(x), float(y)) for x, y in points]
        hits = [False] * len(points)
        for t in self.texts:
            hits = [h or c for h, c in zip(hits, t.covers(points))]
        return hits

    def zone_at(self, point: Point) -> Zone | None:
        """The zone containing ``point`` (mm); spots win over larger zones they lie in."""
        hits = [z for z in self.zones if z.contains(point)]
        if not hits:
            return None
        hits.sort(key=lambda z: (z.circle is None, _area(z.polygon)))
        return hits[0]


def _area(poly: list[Point]) -> float:
    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]))) / 2


def load_layout(path: str | Path) -> Layout:
    """Load a layout YAML file.

    Raises:
        LayoutError: naming the file and what is wrong with it.
    """
    path = Path(path)
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
    except OSError as exc:
        raise LayoutError(f"{path}: cannot read layout: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise LayoutError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise LayoutError(f"{path}: a layout file must be a mapping")
    try:
        return Layout.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise LayoutError(f"{path}: {where}: {first['msg']}") from exc


def builtin_layout(layout_id: str) -> Layout:
    """One of the shipped layouts by id (file stem)."""
    path = LAYOUT_DIR / f"{layout_id}.yaml"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in LAYOUT_DIR.glob("*.yaml")))
        raise LayoutError(f"no built-in layout {layout_id!r}; known: {known}")
    return load_layout(path)


# --- generating the shipped layouts -------------------------------------------------
# The shipped YAML files are data; this generator is how they were made (and can
# be made again) so that the seat geometry stays consistent across games.


def _seat_frame(center: Point, theta: float, u: float, v: float) -> Point:
    """Point at tangential offset ``u`` and radial distance ``v`` (mm) along angle ``theta`` (rad)."""
    cx, cy = center
    ct, st = math.cos(theta), math.sin(theta)
    # radial unit (ct, st); tangent towards larger seat numbers (clockwise for the dealer) is (-st, ct)
    return (round(cx + v * ct - u * st, 2), round(cy + v * st + u * ct, 2))


def _seat_rect(center: Point, theta: float, u0: float, u1: float, v0: float, v1: float) -> list[Point]:
    return [_seat_frame(center, theta, u, v) for u, v in ((u0, v0), (u1, v0), (u1, v1), (u0, v1))]


def generate_layout(layout_id: str, game: str, seats: int, mtd: bool, bonus: bool, name: str = "") -> Layout:
    """Build a semicircular table of ``seats`` seats with optional MTD and bonus spots."""
    width, depth = 1900.0, 1000.0
    center = (width / 2, 0.0)
    zones: list[Zone] = []
    spread = 130.0 if seats >= 7 else 120.0
    for i in range(seats):
        seat = i + 1
        theta = math.radians((90 - spread / 2) + spread * i / max(1, seats - 1))
        main_c = _seat_frame(center, theta, 0, 740)
        zones.append(Zone(name=f"seat{seat}.main", kind="main", seat=seat,
                          polygon=Circle(center=main_c, radius=45).polygon(), circle=Circle(center=main_c, radius=45)))
        if mtd:
            c = _seat_frame(center, theta, -55, 850)
            zones.append(Zone(name=f"seat{seat}.mtd", kind="mtd", seat=seat,
                              polygon=Circle(center=c, radius=28).polygon(), circle=Circle(center=c, radius=28)))
        if bonus:
            c = _seat_frame(center, theta, 55, 850)
            zones.append(Zone(name=f"seat{seat}.bonus", kind="bonus", seat=seat,
                              polygon=Circle(center=c, radius=28).polygon(), circle=Circle(center=c, radius=28)))
        zones.append(Zone(name=f"seat{seat}.cards", kind="cards", seat=seat,
                          polygon=_seat_rect(center, theta, -95, 95, 490, 685)))
        zones.append(Zone(name=f"seat{seat}.payout", kind="payout", seat=seat,
                          polygon=_seat_rect(center, theta, 52, 128, 690, 800)))
    cx = center[0]
    zones.append(Zone(name="dealer.cards", kind="dealer_cards", polygon=[(cx - 190, 170), (cx + 190, 170), (cx + 190, 330), (cx - 190, 330)]))
    zones.append(Zone(name="tray", kind="tray", polygon=[(cx - 260, 10), (cx + 260, 10), (cx + 260, 120), (cx - 260, 120)]))
    # the shoe sits at the dealer's left (large x), the discard rack at the dealer's right
    zones.append(Zone(name="shoe", kind="shoe", polygon=[(cx + 290, 20), (cx + 390, 20), (cx + 390, 200), (cx + 290, 200)]))
    zones.append(Zone(name="discard", kind="discard", polygon=[(cx - 390, 20), (cx - 290, 20), (cx - 290, 200), (cx - 390, 200)]))
    arcs = [
        PrintedArc(center=center, radius=420, start_deg=25, end_deg=155, width_mm=5),
        PrintedArc(center=center, radius=470, start_deg=22, end_deg=158, width_mm=5),
    ]
    texts = [
        PrintedText(text="INSURANCE PAYS 2 TO 1", center=(cx, 445), height_mm=22, arc_center=center, arc_radius=445),
        PrintedText(text="BLACKJACK PAYS 3 TO 2", center=(cx, 375), height_mm=30, arc_center=center, arc_radius=375),
    ]
    if game == "spanish21":
        texts.append(PrintedText(text="DEALER MUST DRAW TO 16 AND STAND ON ALL 17'S", center=(cx, 395), height_mm=14,
                                 arc_center=center, arc_radius=400))
    if game == "switch_hands":
        # above the 3-to-2 line, clear of it, following the same arc
        texts.append(PrintedText(text="SWITCH HANDS", center=(cx, 332), height_mm=26, arc_center=center, arc_radius=332))
    for z in zones:
        if z.kind in ("mtd", "bonus") and z.circle is not None:
            word = "MATCH THE DEALER" if z.kind == "mtd" else "BLACKJACK BONUS"
            x, y = z.circle.center
            texts.append(PrintedText(text=word, center=(x, y + z.circle.radius + 10), height_mm=7))
    return Layout(id=layout_id, name=name or layout_id, game=game, size_mm=(width, depth), seats=seats,
                  table_center=center, table_radius=960.0, zones=zones, arcs=arcs, texts=texts)


SHIPPED_LAYOUTS: dict[str, dict] = {
    "blackjack-7-mtd-bonus": dict(game="blackjack", seats=7, mtd=True, bonus=True,
                                  name="7-seat blackjack with match-the-dealer and blackjack bonus"),
    "spanish21-6-mtd": dict(game="spanish21", seats=6, mtd=True, bonus=False,
                            name="6-seat Spanish 21 with match-the-dealer"),
    "switch-hands-7": dict(game="switch_hands", seats=7, mtd=False, bonus=False, name="7-seat Switch Hands"),
}


def write_shipped_layouts(folder: Path = LAYOUT_DIR) -> list[Path]:
    """Regenerate the shipped layout YAML files (a maintenance tool, not used at run time)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for layout_id, kw in SHIPPED_LAYOUTS.items():
        layout = generate_layout(layout_id, **kw)
        path = folder / f"{layout_id}.yaml"
        data = layout.model_dump(mode="json")
        for z in data["zones"]:
            if z["circle"] is not None:
                del z["polygon"]  # derived from the circle on load
        path.write_text(yaml.safe_dump(data, sort_keys=False, width=120, default_flow_style=None), encoding="utf-8")
        out.append(path)
    return out
