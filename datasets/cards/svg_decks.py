"""Public-domain SVG decks from ``../shared/data/card-art-*``, rasterised when first used.

* ``svg-kennard-standard`` / ``svg-kennard-bigface``: Adrian Kennard's CC0 deck
  (standard and large-index faces), rasterised with ``resvg-py`` given a ``dpi``
  (cairosvg draws this deck wrong: notes/offline-ml.md).
* ``svg-saulspatz-jumbo``: saulspatz's public-domain jumbo-index deck, rasterised
  with ``cairosvg`` (resvg drops its ``<text>`` indices).

Nothing is committed: rasterised faces are kept in memory and as PNGs under the
git-ignored ``.cache/card-art`` as ``.npy`` arrays (:func:`rasterise_cached`).
A deck whose folder or rasteriser is missing is simply not listed.  Corner-index
boxes are found in each rasterised face (the ink of the rank and the suit symbol
under it in the top-left corner; the bottom-right box is its 180-degree turn), and a
face whose corner holds no index raises :class:`SvgDeckError` rather than being
drawn without one (a silent bad label would poison training).
"""

from __future__ import annotations

import functools
import io
import os
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from datasets.cards.deck import TEXTURE_PX_PER_MM, CornerIndices, Deck, texture_size
from datasets.scene import CARD_H_MM, CARD_W_MM
from rules.cards import parse_card


class SvgDeckError(ValueError):
    """An SVG deck that cannot be used (missing file, no index found in a corner)."""


def shared_data_dir() -> Path:
    """``../shared/data`` beside the repository (``PITWATCH_SHARED_DATA`` overrides it)."""
    env = os.environ.get("PITWATCH_SHARED_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared" / "data"


_SAUL_SUITS = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}
_SAUL_RANKS = {"A": "Ace", "J": "Jack", "Q": "Queen", "K": "King"}


@dataclass(frozen=True)
class SvgDeckSpec:
    """Where one SVG deck lives and how to read it.

    Attributes:
        name: design name.
        folder: path under the shared data folder.
        rasteriser: ``resvg`` or ``cairosvg``.
        corner: (width, height) of the top-left region searched for the index, as fractions of the card.
    """

    name: str
    folder: str
    rasteriser: str
    corner: tuple[float, float]

    def file(self, card: str) -> Path:
        c = parse_card(card)
        if self.name.startswith("svg-kennard"):
            rank = "T" if c.rank == "10" else c.rank
            return shared_data_dir() / self.folder / f"{rank}{c.suit}.svg"
        rank = _SAUL_RANKS.get(c.rank, c.rank)
        return shared_data_dir() / self.folder / f"{_SAUL_SUITS[c.suit]}{rank}.svg"


SVG_DECKS: tuple[SvgDeckSpec, ...] = (
    SvgDeckSpec("svg-kennard-standard", "card-art-kennard-cc0/2color", "resvg", (0.16, 0.30)),
    SvgDeckSpec("svg-kennard-bigface", "card-art-kennard-cc0/2color-bigface", "resvg", (0.34, 0.48)),
    SvgDeckSpec("svg-saulspatz-jumbo", "card-art-saulspatz-pd/Vertical2", "cairosvg", (0.40, 0.34)),
)

SVG_BACKS: dict[str, tuple[str, str]] = {
    "back-svg-kennard": ("card-art-kennard-cc0/back.svg", "resvg"),
    "back-svg-saulspatz-blue": ("card-art-saulspatz-pd/Vertical2/blueBack.svg", "cairosvg"),
    "back-svg-saulspatz-red": ("card-art-saulspatz-pd/Vertical2/redBack.svg", "cairosvg"),
}


@functools.lru_cache(maxsize=4)
def rasteriser_available(name: str) -> bool:
    """Whether the rasteriser ``resvg`` or ``cairosvg`` can be imported and run here."""
    try:
        if name == "resvg":
            import resvg_py  # noqa: F401
        else:
            import cairosvg  # noqa: F401  (imports cairocffi, which needs the system's libcairo)
        return True
    except (ImportError, OSError):
        return False


def available_svg_decks() -> list[str]:
    """Names of the SVG decks whose files and rasteriser are present here."""
    return [s.name for s in SVG_DECKS
            if (shared_data_dir() / s.folder).is_dir() and rasteriser_available(s.rasteriser)]


def available_svg_backs() -> list[str]:
    """Names of the SVG card backs whose file and rasteriser are present here."""
    return [n for n, (f, r) in SVG_BACKS.items() if (shared_data_dir() / f).is_file() and rasteriser_available(r)]


def rasterise(path: Path, rasteriser: str) -> np.ndarray:
    """Rasterise one card SVG to (H, W, 4) uint8 BGRA at :data:`TEXTURE_PX_PER_MM` (card size).

    Raises:
        SvgDeckError: when the file is missing or the rasteriser fails.
    """
    from PIL import Image

    if not path.is_file():
        raise SvgDeckError(f"{path}: card art file missing")
    w, h = texture_size(TEXTURE_PX_PER_MM)
    try:
        if rasteriser == "resvg":
            import resvg_py

            # Kennard's files are 2.5 x 3.5 inches: the dpi gives exactly the card texture size.
            png = bytes(resvg_py.svg_to_bytes(svg_path=str(path), dpi=w / (CARD_W_MM / 25.4)))
        else:
            import cairosvg

            png = cairosvg.svg2png(url=str(path), output_width=w, output_height=h)
    except Exception as exc:  # the rasterisers raise their own types
        raise SvgDeckError(f"{path}: cannot rasterise with {rasteriser}: {exc}") from exc
    rgba = np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))
    # some files draw the card inside a margin: keep only the card, then fit it to the card size
    ys, xs = np.nonzero(rgba[..., 3] > 0)
    if len(xs):
        rgba = rgba[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    if rgba.shape[:2] != (h, w):
        rgba = cv2.resize(rgba, (w, h), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(rgba[..., [2, 1, 0, 3]])


def cache_dir() -> Path:
    """Where rasterised faces are kept between runs: ``.cache/card-art`` in the repository (git-ignored)."""
    return Path(__file__).resolve().parents[2] / ".cache" / "card-art"


def rasterise_cached(path: Path, rasteriser: str) -> np.ndarray:
    """:func:`rasterise`, keeping the result as a ``.npy`` under :func:`cache_dir` (rasterising takes ~0.15 s a face).

    The cache key holds the file's size and modification time, so a changed SVG is rasterised again.
    """
    st = path.stat() if path.is_file() else None
    if st is None:
        raise SvgDeckError(f"{path}: card art file missing")
    w, h = texture_size(TEXTURE_PX_PER_MM)
    key = f"{path.parent.name}-{path.stem}-{rasteriser}-{w}x{h}-{st.st_size}-{int(st.st_mtime)}.npy"
    cached = cache_dir() / key
    if cached.is_file():
        try:
            img = np.load(cached)
            if img.shape == (h, w, 4) and img.dtype == np.uint8:
                return img
        except (OSError, ValueError):
            pass  # a damaged cache file is simply made again
    img = rasterise(path, rasteriser)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_name(f".{cached.stem}.{os.getpid()}.tmp.npy")
        np.save(tmp, img)
        os.replace(tmp, cached)
    except OSError:
        pass  # a read-only checkout just rasterises every time
    return img


def find_index_box(face: np.ndarray, corner: tuple[float, float]) -> tuple[float, float, float, float] | None:
    """The top-left corner index of a rasterised face, card mm (x1, y1, x2, y2), or ``None`` if no ink is there.

    The rank is the top-most ink blob of the corner region (both digits of ``10``);
    the suit symbol is the next blob below it in the same column.  Blobs that run
    out of the region (court pictures, pip frames) are not part of the index.
    """
    h, w = face.shape[:2]
    rw, rh = int(w * corner[0]), int(h * corner[1])
    bgr = face[:rh, :rw, :3].astype(np.int16)
    alpha = face[:rh, :rw, 3]
    # paper colour: the left margin half way down (no art there on any deck)
    paper = np.median(face[h // 2 - 5 : h // 2 + 5, int(0.03 * w) : int(0.06 * w), :3].reshape(-1, 3), axis=0).astype(np.int16)
    ink = (np.abs(bgr - paper).sum(-1) > 90) & (alpha > 200)
    # ignore the printed card outline: anything within 2 % of the card edge
    m = max(2, int(0.02 * w))
    ink[:m, :] = False
    ink[:, :m] = False
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    blobs = []
    for k in range(1, n):
        x, y, bw, bh, area = stats[k]
        if area < 0.00015 * w * h:
            continue
        if x + bw >= rw - 1 or y + bh >= rh - 1:
            continue  # runs out of the corner: part of the picture, not the index
        blobs.append((x, y, x + bw, y + bh))
    if not blobs:
        return None
    blobs.sort(key=lambda b: (b[1], b[0]))
    top = min(blobs, key=lambda b: b[1])
    # the rank row: blobs overlapping the top blob's rows (the two digits of 10)
    row = [b for b in blobs if b[1] < top[3] - 0.3 * (top[3] - top[1]) and b[3] > top[1]]
    rx1, ry1 = min(b[0] for b in row), min(b[1] for b in row)
    rx2, ry2 = max(b[2] for b in row), max(b[3] for b in row)
    tol = 0.04 * w
    # (a Q's tail may reach below the top of the suit symbol, so "below" starts at the rank's lower part)
    below = [b for b in blobs if b not in row and b[1] >= ry1 + 0.6 * (ry2 - ry1) and b[1] < ry2 + 0.12 * h
             and rx1 - tol <= (b[0] + b[2]) / 2 <= rx2 + tol]
    if below:
        suit = min(below, key=lambda b: b[1])
        parts = row + [b for b in below if b[1] < suit[3] and b[3] > suit[1]]
    else:
        parts = row
    x1, y1 = min(b[0] for b in parts), min(b[1] for b in parts)
    x2, y2 = max(b[2] for b in parts), max(b[3] for b in parts)
    s = w / CARD_W_MM
    pad = 0.5 * s
    return (max(0.0, (x1 - pad) / s), max(0.0, (y1 - pad) / s), (x2 + pad) / s, (y2 + pad) / s)


def _flatten(rgba: np.ndarray) -> np.ndarray:
    """Composite the art's colours on white where it is see-through, keeping its alpha (the rounded outline)."""
    out = rgba.copy()
    edge = rgba[..., 3] < 255
    a = rgba[edge, 3:4].astype(np.float32) / 255.0
    out[edge, :3] = (rgba[edge, :3] * a + 255 * (1 - a)).astype(np.uint8)
    return out


class SvgDeck(Deck):
    """A deck rasterised from SVG files (see the module docstring)."""

    kind = "svg"

    def __init__(self, spec: SvgDeckSpec) -> None:
        super().__init__()
        self.spec = spec
        self.name = spec.name
        self._raw: dict[str, np.ndarray] = {}
        self._boxes: dict[str, CornerIndices] = {}

    def _raster(self, card: str) -> np.ndarray:
        if card not in self._raw:
            self._raw[card] = rasterise_cached(self.spec.file(card), self.spec.rasteriser)
            if len(self._raw) > 8:  # the faces themselves are kept by Deck.face; rasters reload fast from the cache
                self._raw.pop(next(iter(self._raw)))
        return self._raw[card]

    def _draw_face(self, card: str) -> np.ndarray:
        return _flatten(self._raster(card))

    def index_boxes(self, card: str) -> CornerIndices:
        """The two index boxes of ``card`` found in its raster (card mm).

        Raises:
            SvgDeckError: when the top-left corner holds no index.
        """
        card = str(parse_card(card))
        if card not in self._boxes:
            box = find_index_box(self._raster(card), self.spec.corner)
            if box is None:
                raise SvgDeckError(f"{self.spec.file(card)}: no corner index found")
            x1, y1, x2, y2 = box
            self._boxes[card] = CornerIndices(box, (CARD_W_MM - x2, CARD_H_MM - y2, CARD_W_MM - x1, CARD_H_MM - y1))
        return self._boxes[card]


def load_svg_deck(name: str) -> SvgDeck:
    """The SVG deck ``name``.

    Raises:
        ValueError: for an unknown name, or a deck whose files or rasteriser are absent here.
    """
    spec = next((s for s in SVG_DECKS if s.name == name), None)
    if spec is None:
        raise ValueError(f"unknown SVG deck {name!r}; known: {', '.join(s.name for s in SVG_DECKS)}")
    if name not in available_svg_decks():
        raise ValueError(f"SVG deck {name} is not available here (needs {shared_data_dir() / spec.folder} "
                         f"and the {spec.rasteriser} rasteriser)")
    return SvgDeck(spec)


@functools.lru_cache(maxsize=8)
def svg_back(name: str) -> np.ndarray:
    """An SVG card back as (H, W, 4) uint8 BGRA at :data:`TEXTURE_PX_PER_MM`; raises ``ValueError`` if absent."""
    if name not in available_svg_backs():
        raise ValueError(f"card back {name} is not available here")
    rel, rasteriser = SVG_BACKS[name]
    out = _flatten(rasterise_cached(shared_data_dir() / rel, rasteriser))
    out.setflags(write=False)
    return out
