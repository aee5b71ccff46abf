"""The chip set of a casino: which body colour is which denomination.

A chip-set YAML file lists ``colour`` -> ``denomination`` (whole dollars); the
renderer draws chips in these colours and the vision side reads a stack's value
from them.  The default set (:data:`DEFAULT_CHIPSET`, ``chipsets/default.yaml``):
$1 white, $5 red, $25 green, $100 black, $500 purple, $1,000 orange.

Example:
    >>> cs = default_chipset()
    >>> cs.denomination("green"), cs.colour_of(100)
    (25, 'black')
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

CHIPSET_DIR = Path(__file__).resolve().parent / "chipsets"
"""Folder of the chip sets shipped with pitwatch."""

COLOURS: dict[str, tuple[int, int, int]] = {
    "white": (236, 234, 228),
    "red": (196, 30, 36),
    "green": (24, 130, 64),
    "black": (28, 28, 30),
    "purple": (104, 44, 140),
    "orange": (240, 122, 24),
    "yellow": (238, 200, 40),
    "blue": (30, 70, 170),
    "pink": (236, 120, 170),
    "grey": (140, 140, 140),
    "brown": (120, 70, 40),
    "lightblue": (110, 170, 225),
}
"""Known chip body colour names -> a typical RGB shade."""


class ChipSetError(ValueError):
    """A chip-set file that cannot be used (unknown colour, repeated denomination, unreadable)."""


class ChipKind(BaseModel):
    """One chip of the set: body ``colour`` name, ``denomination`` (dollars), optional ``rgb`` shade."""

    model_config = ConfigDict(frozen=True)
    colour: str
    denomination: int = Field(gt=0)
    rgb: tuple[int, int, int] | None = None

    @field_validator("colour")
    @classmethod
    def _known_colour(cls, v: str) -> str:
        name = v.strip().lower()
        if name not in COLOURS:
            raise ValueError(f"unknown chip colour {v!r}; known colours: {', '.join(sorted(COLOURS))}")
        return name

    @property
    def body_rgb(self) -> tuple[int, int, int]:
        """The body colour, RGB 0..255."""
        return self.rgb or COLOURS[self.colour]


class ChipSet(BaseModel):
    """A casino's chips (see the module docstring)."""

    model_config = ConfigDict(frozen=True)
    id: str = "custom"
    name: str = ""
    chips: list[ChipKind]

    @model_validator(mode="after")
    def _unique(self) -> "ChipSet":
        if not self.chips:
            raise ValueError("a chip set needs at least one chip")
        denoms = [c.denomination for c in self.chips]
        colours = [c.colour for c in self.chips]
        for label, values in (("denomination", denoms), ("colour", colours)):
            dupes = sorted({v for v in values if values.count(v) > 1}, key=str)
            if dupes:
                raise ValueError(f"{label} repeats: {', '.join(map(str, dupes))}")
        return self

    def denomination(self, colour: str) -> int:
        """Dollars of the chip with body ``colour``; raises :class:`ChipSetError` for a colour not in the set."""
        name = colour.strip().lower()
        for c in self.chips:
            if c.colour == name:
                return c.denomination
        raise ChipSetError(f"chip set {self.id}: no {colour!r} chip; colours: {', '.join(c.colour for c in self.chips)}")

    def colour_of(self, denomination: int) -> str:
        """Colour name of the ``denomination`` chip; raises :class:`ChipSetError` if the set has none."""
        return self.kind(denomination).colour

    def kind(self, denomination: int) -> ChipKind:
        """The :class:`ChipKind` of ``denomination`` dollars; raises :class:`ChipSetError` if absent."""
        for c in self.chips:
            if c.denomination == denomination:
                return c
        raise ChipSetError(f"chip set {self.id}: no ${denomination} chip; denominations: "
                           f"{', '.join(str(c.denomination) for c in self.chips)}")

    @property
    def denominations(self) -> list[int]:
        """All denominations, smallest first."""
        return sorted(c.denomination for c in self.chips)


def load_chipset(path: str | Path) -> ChipSet:
    """Load a chip-set YAML file.

    Raises:
        ChipSetError: naming the file and the field that is wrong (e.g. an unknown colour).
    """
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ChipSetError(f"{path}: cannot read chip set: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise ChipSetError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ChipSetError(f"{path}: a chip-set file must be a mapping with a 'chips' list")
    try:
        return ChipSet.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        msg = str(first["msg"]).removeprefix("Value error, ")
        raise ChipSetError(f"{path}: {where}: {msg}") from exc


def default_chipset() -> ChipSet:
    """The shipped default chip set (``chipsets/default.yaml``)."""
    return load_chipset(CHIPSET_DIR / "default.yaml")
