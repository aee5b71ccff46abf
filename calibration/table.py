"""The table file: everything the monitor must know about one table (contracts: "Table files and profiles").

A table file is YAML::

    id: bj-07                      # the table's name in reports and alerts
    layout: layouts/bj7.yaml       # the layout YAML (or a shipped layout id, e.g. blackjack-7-mtd-bonus)
    calibration: calibration.json  # the camera's calibration (optional until calibrated)
    profile:                       # inline, or a path to a profile YAML
      game: blackjack
      decks: 6
      side_bets: [mtd, bonus]
      mtd_odds: {unsuited: 4, suited: 11}
      bonus_payout: {"1": 15, "5": 75}
    chips: {white: 1, red: 5, green: 25, black: 100}   # colour -> denomination, or a chip-set YAML path
    source: rtsp://camera-7/stream # for ``serve``: a URL, a camera index or a video path

Paths are relative to the table file.  :func:`load_table` reads and checks it all
and says, naming the file and field, what is wrong: a missing field, a file that
cannot be read, a profile whose game differs from the layout's, a calibration made
for another layout, an unknown chip colour.  Configuration the rules forbid
(an MTD table with four decks...) is *not* a load error: the monitor reports it.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "t.yaml").write_text(
    ...     "id: bj-07\\nlayout: blackjack-7-mtd-bonus\\nprofile: {game: blackjack, decks: 6}\\n")
    >>> table = load_table(folder / "t.yaml")
    >>> table.id, table.layout.id, table.profile.decks, table.chipset.denomination("green")
    ('bj-07', 'blackjack-7-mtd-bonus', 6, 25)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from calibration.files import write_atomic
from calibration.chipset import ChipSet, ChipSetError, default_chipset, load_chipset
from calibration.homography import CalibrationError, CalibrationResult
from calibration.layout import LAYOUT_DIR, Layout, LayoutError, load_layout
from rules.profile import ProfileError, TableProfile, load_profile, profile_from_yaml

KNOWN_FIELDS: tuple[str, ...] = ("id", "layout", "calibration", "profile", "chips", "source")


class TableFileError(ValueError):
    """A table file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class Table:
    """A loaded table file.

    Attributes:
        id: the table's id (``table`` in reports and alerts).
        path: the table file.
        layout: the layout; ``layout_path`` the file it came from.
        profile: the posted configuration (:class:`rules.profile.TableProfile`).
        chipset: colour -> denomination (:class:`calibration.chipset.ChipSet`).
        calibration: the camera's calibration, ``None`` when the file names none.
        calibration_path: the calibration file, ``None`` when the file names none.
        source: the video source as written (URL, camera index or path), or ``None``.
        extra: fields of the file this module does not know, kept as written.
    """

    id: str
    path: Path
    layout: Layout
    layout_path: Path
    profile: TableProfile
    chipset: ChipSet
    calibration: CalibrationResult | None = None
    calibration_path: Path | None = None
    source: str | int | None = None
    extra: dict = field(default_factory=dict)

    def require_calibration(self) -> CalibrationResult:
        """The calibration, or :class:`TableFileError` when the table has none yet."""
        if self.calibration is None:
            raise TableFileError(f"{self.path}: field 'calibration' is missing: calibrate the camera first "
                                 "(pitwatch calibrate IMAGE --layout LAYOUT --out calibration.json)")
        return self.calibration

    def source_location(self) -> str | int | Path | None:
        """The source resolved: a camera index (int), a URL (str with ``://``) or a file path relative to the table file."""
        s = self.source
        if s is None or isinstance(s, int):
            return s
        if "://" in s:
            return s
        if s.strip().isdigit():
            return int(s)
        p = Path(s)
        return p if p.is_absolute() else self.path.parent / p


def _where(path: Path, key: str) -> str:
    return f"{path}: field {key!r}"


def _resolve(path: Path, value: object, key: str) -> Path:
    if not isinstance(value, str) or not value.strip():
        raise TableFileError(f"{_where(path, key)} must be a path (text), got {value!r}")
    p = Path(value)
    return p if p.is_absolute() else path.parent / p


def _load_layout(path: Path, value: object) -> tuple[Layout, Path]:
    layout_path = _resolve(path, value, "layout")
    if not layout_path.exists() and (LAYOUT_DIR / f"{value}.yaml").exists():
        layout_path = LAYOUT_DIR / f"{value}.yaml"  # a shipped layout named by its id
    if not layout_path.exists():
        raise TableFileError(f"{_where(path, 'layout')}: no layout file {layout_path} "
                             f"(nor a shipped layout called {value!r})")
    try:
        return load_layout(layout_path), layout_path
    except LayoutError as exc:
        raise TableFileError(f"{_where(path, 'layout')}: {exc}") from exc


def _load_profile(path: Path, value: object) -> TableProfile:
    try:
        if isinstance(value, dict):
            return load_profile(value, f"{path}: profile")
        profile_path = _resolve(path, value, "profile")
        try:
            text = profile_path.read_text(encoding="utf-8")
        except OSError as exc:
            raise TableFileError(f"{_where(path, 'profile')}: cannot read {profile_path}: "
                                 f"{exc.strerror or exc}") from exc
        return profile_from_yaml(text, str(profile_path))
    except ProfileError as exc:
        raise TableFileError(str(exc)) from exc


def _load_chips(path: Path, value: object) -> ChipSet:
    try:
        if value is None:
            return default_chipset()
        if isinstance(value, str):
            return load_chipset(_resolve(path, value, "chips"))
        if isinstance(value, dict) and "chips" in value:
            return ChipSet.model_validate(value)
        if isinstance(value, dict):
            return ChipSet.model_validate({"id": "table", "chips": [
                {"colour": str(k), "denomination": v} for k, v in value.items()]})
    except ChipSetError as exc:
        raise TableFileError(f"{_where(path, 'chips')}: {exc}") from exc
    except ValueError as exc:  # pydantic's ValidationError
        errors = getattr(exc, "errors", None)
        msg = str(errors()[0]["msg"]).removeprefix("Value error, ") if errors else str(exc)
        raise TableFileError(f"{_where(path, 'chips')}: {msg}") from exc
    raise TableFileError(f"{_where(path, 'chips')} must map chip colours to denominations "
                         f"(e.g. {{white: 1, red: 5}}) or name a chip-set file, got {value!r}")


def _load_calibration(path: Path, value: object, layout: Layout) -> tuple[CalibrationResult, Path]:
    cal_path = _resolve(path, value, "calibration")
    try:
        cal = CalibrationResult.load(cal_path)
    except CalibrationError as exc:
        raise TableFileError(f"{_where(path, 'calibration')}: {exc}") from exc
    if cal.layout_id != layout.id:
        raise TableFileError(f"{_where(path, 'calibration')}: {cal_path} was made for layout {cal.layout_id!r}, "
                             f"but the table's layout is {layout.id!r}")
    return cal, cal_path


def table_from_mapping(data: object, path: str | Path) -> Table:
    """Build a :class:`Table` from the parsed YAML of the table file at ``path``.

    Raises:
        TableFileError: naming ``path`` and the field that is missing or wrong.
    """
    path = Path(path)
    if not isinstance(data, dict):
        raise TableFileError(f"{path}: a table file must be a mapping with id, layout, profile, ...")
    for key in ("id", "layout", "profile"):
        if data.get(key) in (None, ""):
            raise TableFileError(f"{_where(path, key)} is missing")
    table_id = data["id"]
    if not isinstance(table_id, (str, int)) or isinstance(table_id, bool) or not str(table_id).strip():
        raise TableFileError(f"{_where(path, 'id')} must be a name like 'bj-07', got {table_id!r}")
    layout, layout_path = _load_layout(path, data["layout"])
    profile = _load_profile(path, data["profile"])
    if profile.game != layout.game:
        raise TableFileError(f"{_where(path, 'profile')}: game {profile.game!r} does not match layout "
                             f"{layout.id!r}, which is a {layout.game} layout")
    chipset = _load_chips(path, data.get("chips"))
    cal, cal_path = (None, None)
    if data.get("calibration") not in (None, ""):
        cal, cal_path = _load_calibration(path, data["calibration"], layout)
    source = data.get("source")
    if source is not None and (isinstance(source, bool) or not isinstance(source, (str, int))):
        raise TableFileError(f"{_where(path, 'source')} must be a URL, a camera index or a video path, got {source!r}")
    extra = {k: v for k, v in data.items() if k not in KNOWN_FIELDS}
    return Table(id=str(table_id).strip(), path=path, layout=layout, layout_path=layout_path, profile=profile,
                 chipset=chipset, calibration=cal, calibration_path=cal_path, source=source, extra=extra)


def load_table(path: str | Path) -> Table:
    """Read and check a table file; paths in it are relative to it.

    Raises:
        TableFileError: the file cannot be read, is not YAML, or a field is missing or wrong
            (the message names the file and the field).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TableFileError(f"{path}: cannot read table file: {exc.strerror or exc}") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise TableFileError(f"{path}: not valid YAML{where}") from exc
    return table_from_mapping(data, path)


def write_table_file(path: str | Path, data: dict) -> Path:
    """Write a table file's mapping as YAML, whole or not at all (temporary file, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(path, yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=100))
