"""Render one :class:`~datasets.scene.TableState` through a camera, with exact truth.

The felt is drawn top-down once per layout (:mod:`datasets.felt`) and warped to
the camera once per camera; cards are their textures warped through the
felt-to-image homography; chip stacks are 3-D cylinders built chip by chip (the
side shows under an oblique camera, edge spots and all); the dealer's hands are
skin-tone shapes above the felt.  Truth comes from the same geometry: each
card's quad, the box of each *visible* corner index (an index more than half
covered by a later card, a chip stack or a hand, or out of the frame, is not
listed), and each stack's box, layers and value.

For video use :class:`Renderer` (it keeps the warped felt, light map and noise for
its camera); :func:`render_frame` keeps a few renderers itself so repeated calls
with the same layout, camera and style are just as fast.

Example:
    >>> from calibration.layout import builtin_layout
    >>> from calibration.camera import PinholeCamera
    >>> from datasets.scene import PlacedCard, TableState
    >>> layout = builtin_layout("blackjack-7-mtd-bonus")
    >>> cam = PinholeCamera.looking_at((950, 450), 20, 0, 640, 360, 1300)
    >>> res = render_frame(layout, TableState(cards=(PlacedCard("10H", True, (950, 250)),)), cam)
    >>> res.image.shape, res.cards[0].label, len(res.cards[0].index_boxes)
    ((360, 640, 3), '10H', 2)
"""

from __future__ import annotations

import functools
import math
from collections import OrderedDict
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.camera import PinholeCamera
from calibration.chipset import ChipSet, default_chipset
from calibration.layout import Layout
from datasets.cards import back_texture, get_deck
from datasets.chips import CHIP_TEXTURE_PX_PER_MM, chip_design, chip_face, side_colours
from datasets.effects import Effects, finish, glare_patch, light_gain, noise_planes
from datasets.felt import FeltStyle, colourise, felt_colours, fibre_noise, layout_masks
from datasets.scene import CARD_H_MM, CARD_W_MM, CHIP_DIAMETER_MM, CHIP_THICKNESS_MM, ChipStack, PlacedCard, TableState
from rules.cards import BACK, parse_card

SURFACES: tuple[str, ...] = ("felt", "wood", "white", "cloth")
"""What the cards lie on: the printed layout felt, or (training images only) a plain table."""

_CHIP_SEGMENTS = 32  # polygon vertices per chip circle


@dataclass(frozen=True)
class Style:
    """How a frame looks, beyond the table state.

    Attributes:
        deck: deck design name (:func:`datasets.cards.list_deck_designs`).
        back: card back name (:func:`datasets.cards.list_back_designs`).
        felt: felt colours and font (:class:`~datasets.felt.FeltStyle`).
        surface: one of :data:`SURFACES`; anything but ``felt`` hides the printed layout.
        surface_rgb: colour of a plain ``wood``/``white``/``cloth`` surface (``None`` = typical).
        chip_design: chip decoration (:data:`datasets.chips.CHIP_DESIGNS`).
        chipset: denominations -> colours (default: the shipped default chip set).
        effects: photographic effects (:class:`~datasets.effects.Effects`).
        felt_px_per_mm: resolution the top-down felt is drawn at before warping.
        card_edges: draw the faint grey edge that separates overlapping white cards.
    """

    deck: str = "proc-duplex-std"
    back: str = "back-blue-lattice"
    felt: FeltStyle = field(default_factory=FeltStyle)
    surface: str = "felt"
    surface_rgb: tuple[int, int, int] | None = None
    chip_design: str = "chip-classic"
    chipset: ChipSet | None = None
    effects: Effects = field(default_factory=Effects)
    felt_px_per_mm: float = 2.0
    card_edges: bool = True

    @classmethod
    def video(cls, deck: str = "proc-duplex-std", back: str = "back-blue-lattice", **kw) -> "Style":
        """A steady look for round videos (mild light gradient, soft shadows, faint noise, no JPEG)."""
        return cls(deck=deck, back=back, effects=Effects.video(), **kw)

    def key(self) -> str:
        """A string naming everything that changes the cached background (not the effects' randomness)."""
        return repr((self.felt, self.surface, self.surface_rgb, self.felt_px_per_mm, self.effects.lighting,
                     self.effects.light_dir_deg, self.effects.colour_temp, self.effects.brightness, self.effects.noise))


MIN_SUIT_VISIBLE = 0.5
"""Least share of a corner index's suit symbol in view for that index to name its card: the next card of a hand can
cover a tall index's suit and leave its rank in view (:attr:`CardTruth.suit_visible`)."""


@dataclass
class CardTruth:
    """One drawn card.

    Attributes:
        label: the card (``"10H"``) when face up, else ``"BACK"``.
        card: the identity, known even when face down.
        quad: (4, 2) px, the face's top-left, top-right, bottom-right, bottom-left corners.
        face_up: whether the face shows.
        index_boxes: [(x1, y1, x2, y2)] px of each visible corner index (face-up cards only).
        zone: the layout zone it lies in, or ``None``.
        visible: fraction of the card's area that is in frame and uncovered (0..1).
        box: (x1, y1, x2, y2) px of the card's visible part (``None`` when none shows).
        index_quads: (4, 2) px outline of each printed corner index, top-left then bottom-right,
            listed whether visible or not (face-up cards only).
        index_visible: fraction of each corner index that shows (same order).
        draw_order: position in drawing order (0 = drawn first, lowest).
        suit_visible: fraction of each corner index's suit symbol that shows (same order); the index's own
            fraction where the deck does not know where its suit is (:meth:`datasets.cards.deck.Deck.suit_boxes`).
            A hand's next card can cover a tall index's suit and leave most of its rank in view.
    """

    label: str
    card: str
    quad: np.ndarray
    face_up: bool
    index_boxes: list[tuple[float, float, float, float]]
    zone: str | None
    visible: float
    box: tuple[float, float, float, float] | None
    index_quads: list[np.ndarray] = field(default_factory=list)
    index_visible: list[float] = field(default_factory=list)
    draw_order: int = 0
    suit_visible: list[float] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"label": self.label, "card": self.card, "quad": np.round(self.quad, 2).tolist(), "face_up": self.face_up,
                "index_boxes": [[round(float(v), 2) for v in b] for b in self.index_boxes], "zone": self.zone,
                "visible": round(float(self.visible), 3),
                "box": None if self.box is None else [round(float(v), 2) for v in self.box],
                "index_quads": [np.round(q, 2).tolist() for q in self.index_quads],
                "index_visible": [round(float(v), 3) for v in self.index_visible], "draw_order": self.draw_order,
                "suit_visible": [round(float(v), 3) for v in self.suit_visible]}


@dataclass
class ChipTruth:
    """One drawn chip stack: ``box`` xyxy px of its whole silhouette (clipped to the frame),
    ``layers`` (denomination $, count) bottom to top, ``zone``, ``count``, ``value`` ($), ``visible`` fraction,
    ``outline`` (K, 2) px silhouette polygon, ``draw_order`` among the stacks (drawn after every card)."""

    box: tuple[float, float, float, float] | None
    layers: list[tuple[int, int]]
    zone: str | None
    count: int
    value: int
    visible: float
    outline: np.ndarray | None = None
    draw_order: int = 0

    def to_json(self) -> dict:
        return {"box": None if self.box is None else [round(float(v), 2) for v in self.box],
                "layers": [{"denomination": d, "count": c} for d, c in self.layers],
                "zone": self.zone, "count": self.count, "value": self.value, "visible": round(float(self.visible), 3),
                "outline": None if self.outline is None else np.round(self.outline, 2).tolist(),
                "draw_order": self.draw_order}


@dataclass
class RenderResult:
    """A rendered frame and its truth.

    Attributes:
        image: (H, W, 3) uint8 BGR.
        cards: one :class:`CardTruth` per card of the state, in the state's order.
        chips: one :class:`ChipTruth` per stack, in the state's order.
        camera: the camera it was rendered with.
        hands: (K, 2) px outline of each hand occluder that was drawn.
    """

    image: np.ndarray
    cards: list[CardTruth]
    chips: list[ChipTruth]
    camera: PinholeCamera
    hands: list[np.ndarray] = field(default_factory=list)

    def to_json(self) -> dict:
        """The scene truth in the contracts' form (``cards``, ``chips``, ``camera``), extra fields included
        (``hands``: each hand or sleeve outline, px, in drawing order)."""
        return {"cards": [c.to_json() for c in self.cards], "chips": [c.to_json() for c in self.chips],
                "camera": self.camera.to_json(), "hands": [np.round(h, 2).tolist() for h in self.hands]}


# --- geometry ---------------------------------------------------------------------------


def card_to_felt(card: PlacedCard) -> np.ndarray:
    """(3, 3) affine taking card mm (face upright, origin top-left) to felt mm.

    ``angle_deg`` 0 lays the card upright for the dealer: its top edge points away
    from the dealer (+y); positive angles turn it counter-clockwise on screen.
    """
    a = math.radians(card.angle_deg)
    R = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    M = R @ np.diag([-1.0, -1.0])  # upright for the dealer = turned 180 degrees from upright on screen
    off = np.asarray(card.center, float) - M @ np.array([CARD_W_MM / 2, CARD_H_MM / 2])
    A = np.eye(3)
    A[:2, :2] = M
    A[:2, 2] = off
    return A


def _apply_h(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    q = p @ H[:, :2].T + H[:, 2]
    return q[:, :2] / q[:, 2:3]


def plane_homography(camera: PinholeCamera, z_mm: float) -> np.ndarray:
    """(3, 3) homography from felt (x, y) mm on the plane at height ``z_mm`` (negative = above the felt) to px."""
    R, t, K = camera.R, camera.t, camera.K
    H = K @ np.column_stack([R[:, 0], R[:, 1], R[:, 2] * z_mm + t])
    return H / H[2, 2]


def _bbox(pts: np.ndarray) -> tuple[float, float, float, float]:
    return float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max())


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _corner_quads(HA: np.ndarray, corners) -> list[np.ndarray]:
    """Each box of a :class:`datasets.cards.deck.CornerIndices` (card mm) as a (4, 2) image px quad through ``HA``."""
    return [_apply_h(HA, np.array([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]])) for b in corners.as_list()]


def visible_part(poly: np.ndarray, occluders: list[tuple[np.ndarray, tuple]], width: int, height: int,
                 grid: int = 48) -> tuple[float, tuple[float, float, float, float] | None]:
    """How much of polygon ``poly`` (K, 2) px shows: not under any occluder polygon and inside the frame.

    Args:
        poly: the region, px.
        occluders: (polygon px, its bbox) pairs drawn over the region.
        width, height: frame size, px.
        grid: raster resolution of the region's longer side.

    Returns:
        (visible fraction 0..1, bbox of the visible part xyxy px or ``None``).
    """
    x1, y1, x2, y2 = _bbox(poly)
    box = (x1, y1, x2, y2)
    hits = [o for o in occluders if _overlap(o[1], box)]
    inside = x1 >= 0 and y1 >= 0 and x2 <= width and y2 <= height
    if not hits and inside:
        return 1.0, box
    span = max(x2 - x1, y2 - y1, 1e-6)
    s = grid / span
    gw, gh = int(math.ceil((x2 - x1) * s)) + 2, int(math.ceil((y2 - y1) * s)) + 2
    org = np.array([x1, y1]) - 1 / s
    to_grid = lambda p: np.round((np.asarray(p) - org) * s * 16).astype(np.int32)  # noqa: E731
    region = np.zeros((gh, gw), np.uint8)
    cv2.fillPoly(region, [to_grid(poly)], 255, cv2.LINE_8, 4)
    total = int(np.count_nonzero(region))
    if total == 0:
        return 0.0, None
    cover = np.zeros_like(region)
    for o, _ in hits:
        cv2.fillPoly(cover, [to_grid(o)], 255, cv2.LINE_8, 4)
    # the frame edges: whatever lies outside the image is not seen
    fx0, fy0 = (0 - org[0]) * s, (0 - org[1]) * s
    fx1, fy1 = (width - org[0]) * s, (height - org[1]) * s
    if fx0 > 0:
        cover[:, : int(math.ceil(fx0))] = 255
    if fy0 > 0:
        cover[: int(math.ceil(fy0)), :] = 255
    if fx1 < gw:
        cover[:, max(0, int(math.floor(fx1))) :] = 255
    if fy1 < gh:
        cover[max(0, int(math.floor(fy1))) :, :] = 255
    vis = (region > 0) & (cover == 0)
    n = int(np.count_nonzero(vis))
    if n == 0:
        return 0.0, None
    ys, xs = np.nonzero(vis)
    vx1, vy1 = xs.min() / s + org[0], ys.min() / s + org[1]
    vx2, vy2 = (xs.max() + 1) / s + org[0], (ys.max() + 1) / s + org[1]
    vb = (max(x1, vx1, 0.0), max(y1, vy1, 0.0), min(x2, vx2, float(width)), min(y2, vy2, float(height)))
    return n / total, vb


# --- surfaces ---------------------------------------------------------------------------


class _Memo:
    """A small least-recently-used memo (the felt masks per layout: drawing them takes a second)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict = OrderedDict()

    def get(self, key, make):
        if key in self.items:
            self.items.move_to_end(key)
            return self.items[key]
        value = make()
        self.items[key] = value
        while len(self.items) > self.size:
            self.items.popitem(last=False)
        return value


_MASKS = _Memo(12)  # 3 layouts x 2 fonts x 2 scales: all kept (~230 MB)


@functools.lru_cache(maxsize=1)
def _default_chipset() -> ChipSet:
    return default_chipset()
_RENDERERS = _Memo(4)


def _layout_key(layout: Layout) -> str:
    return layout.model_dump_json()


def _plain_surface(height: int, width: int, kind: str, rgb: tuple[int, int, int] | None, seed: int) -> np.ndarray:
    """A table that is not the printed felt: wood grain, a white top or plain cloth, (H, W, 3) uint8 BGR.

    Drawn at half resolution and enlarged: the grain is soft and this halves the cost at 4K.
    """
    rng = np.random.default_rng(seed)
    h, w = max(2, height // 2), max(2, width // 2)
    if kind == "wood":
        base = np.array(rgb or (150, 100, 60), np.float32)[::-1]
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(-0.3, 0.3)
        u = xs * math.sin(a) + ys * math.cos(a)
        warp = cv2.resize(rng.normal(0, 1, (8, 8)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        period = rng.uniform(5, 12)
        grain = np.sin((u + warp * 20) / period * 2 * math.pi) * 0.5 + 0.5
        fine = cv2.resize(rng.normal(0, 1, (h // 4 + 1, 8)).astype(np.float32), (w, h))
        shade = 0.8 + 0.15 * grain + 0.05 * fine
        img = base * shade[..., None]
    else:
        base = np.array(rgb or ((232, 232, 226) if kind == "white" else tuple(int(v) for v in rng.integers(40, 200, 3))), np.float32)[::-1]
        img = base + fibre_noise(h, w, 3.0, seed)[..., None]
    small = np.clip(img, 0, 255).astype(np.uint8)
    _distractors(small, rng)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)


def _distractors(img: np.ndarray, rng: np.random.Generator) -> None:
    """Things that lie about on a plain table (a keyboard's keys, pens, paper, coins, printed words), so a
    detector learns what a card index is *not*.  Drawn in place on ``img`` (H, W, 3) uint8."""
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(0, 5))):
        kind = rng.choice(["keys", "pen", "paper", "coin", "words"])
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        grey = tuple(int(v) for v in rng.integers(20, 240, 3))
        if kind == "keys":
            kw = int(rng.integers(8, 20))
            for r in range(int(rng.integers(2, 5))):
                for c in range(int(rng.integers(5, 14))):
                    x0, y0 = x + c * (kw + 3), y + r * (kw + 3)
                    cv2.rectangle(img, (x0, y0), (x0 + kw, y0 + kw), (225, 225, 220), -1, cv2.LINE_AA)
                    cv2.rectangle(img, (x0, y0), (x0 + kw, y0 + kw), (150, 150, 150), 1, cv2.LINE_AA)
                    if rng.random() < 0.5:
                        cv2.putText(img, chr(int(rng.integers(65, 91))), (x0 + 2, y0 + kw - 3), cv2.FONT_HERSHEY_PLAIN,
                                    kw / 20, (90, 90, 90), 1, cv2.LINE_AA)
        elif kind == "pen":
            a = rng.uniform(0, math.pi)
            length = rng.uniform(40, 120)
            p2 = (int(x + length * math.cos(a)), int(y + length * math.sin(a)))
            cv2.line(img, (x, y), p2, grey, int(rng.integers(3, 7)), cv2.LINE_AA)
        elif kind == "paper":
            box = cv2.boxPoints(((x, y), (float(rng.uniform(40, 160)), float(rng.uniform(40, 160))), float(rng.uniform(0, 90))))
            cv2.fillPoly(img, [np.round(box * 16).astype(np.int32)], (236, 238, 240), cv2.LINE_AA, 4)
            for k in range(int(rng.integers(0, 6))):
                cv2.line(img, (int(box[:, 0].min()) + 6, int(box[:, 1].min()) + 8 + 7 * k),
                         (int(box[:, 0].max()) - 6, int(box[:, 1].min()) + 8 + 7 * k), (120, 120, 120), 1, cv2.LINE_AA)
        elif kind == "coin":
            cv2.circle(img, (x, y), int(rng.integers(5, 14)), (60, 140, 180) if rng.random() < 0.5 else (170, 170, 165), -1,
                       cv2.LINE_AA)
        else:
            text = "".join(rng.choice(list("ABCDEFGHKMNPRSTXYZ0123456789 "), int(rng.integers(3, 10))))
            cv2.putText(img, text, (x, y), int(rng.choice([0, 2, 3, 4])), float(rng.uniform(0.3, 1.0)), grey, 1, cv2.LINE_AA)


# --- the renderer -------------------------------------------------------------------------


class Renderer:
    """Renders table states for one layout, camera and style, keeping what does not change.

    Args:
        layout: the table layout.
        camera: the camera (its width and height are the frame size).
        style: the look (:class:`Style`); default = ``Style()``.

    Raises:
        ValueError: for an unknown deck, back, chip design or surface.
    """

    def __init__(self, layout: Layout, camera: PinholeCamera, style: Style | None = None) -> None:
        self.layout = layout
        self.camera = camera
        self.style = style or Style()
        st = self.style
        if st.surface not in SURFACES:
            raise ValueError(f"unknown surface {st.surface!r}; known: {', '.join(SURFACES)}")
        self.deck = get_deck(st.deck)
        back_texture(st.back)  # fail early on an unknown back
        self.chip_design = chip_design(st.chip_design)
        self.chipset = st.chipset or _default_chipset()
        self.H = camera.homography()
        self.W, self.Hgt = camera.width, camera.height
        self.cam_center = camera.center_mm
        t = np.linspace(0, 2 * math.pi, _CHIP_SEGMENTS, endpoint=False)
        self._ring_normals = np.stack([np.cos(t), np.sin(t)], 1)
        self._zones: dict[tuple[float, float], str | None] = {}
        # Drawn cards and chip stacks by what they are and where they lie: in a video most of the table
        # stands still from frame to frame, so each is warped once and then only laid on the frame.
        self._sprites: OrderedDict = OrderedDict()
        self._sprite_bytes = 0
        self._shadow_key: bytes | None = None
        self._shadowed: np.ndarray | None = None
        self.background = self._background()
        fx = st.effects
        self.gain = light_gain(self.Hgt, self.W, fx) if (fx.lighting > 0 or fx.colour_temp or fx.brightness != 1.0) else None
        self.planes = noise_planes(self.Hgt, self.W, float(fx.noise)) if fx.noise > 0 else None
        a = math.radians(fx.light_dir_deg)
        # Shadows fall away from the light: a shift of the footprint per mm of height, in felt mm.
        self.shadow_dir = np.array([-math.cos(a), -math.sin(a)]) * 0.35

    def _background(self) -> np.ndarray:
        st = self.style
        if st.surface != "felt":
            return _plain_surface(self.Hgt, self.W, st.surface, st.surface_rgb, st.felt.seed)
        s = st.felt_px_per_mm
        key = (_layout_key(self.layout), s, st.felt.font, st.felt.spot_fill)
        masks = _MASKS.get(key, lambda: layout_masks(self.layout, s, st.felt.font, st.felt.spot_fill).stacked())
        Hs = self.H @ np.diag([1.0 / s, 1.0 / s, 1.0])
        # beyond the drawn layout is "outside" (the last channel)
        warped = cv2.warpPerspective(masks, Hs, (self.W, self.Hgt), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                     borderValue=(0, 0, 0, 255))
        tex = fibre_noise(self.Hgt, self.W, st.felt.texture, st.felt.seed) if st.felt.texture > 0 else None
        return colourise(warped, felt_colours(self.layout, st.felt), tex)

    # -- drawing helpers --
    def _texture_scale(self, quad: np.ndarray) -> float:
        w = max(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[3])) / CARD_W_MM
        h = max(np.linalg.norm(quad[3] - quad[0]), np.linalg.norm(quad[2] - quad[1])) / CARD_H_MM
        return max(w, h)

    def _patch(self, tex: np.ndarray, Htex: np.ndarray, box: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
        """Warp BGRA ``tex`` through ``Htex`` (texture px -> image px) into the image box (x0, y0, x1, y1):
        its BGR and its alpha as float32 0..1."""
        x0, y0, x1, y1 = box
        T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]]) @ Htex
        patch = cv2.warpPerspective(tex, T, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                    borderValue=(0, 0, 0, 0))
        return np.ascontiguousarray(patch[..., :3]), patch[..., 3].astype(np.float32) * np.float32(1 / 255.0)

    def _box(self, pts: np.ndarray, pad: int = 1) -> tuple[int, int, int, int] | None:
        """Integer box round ``pts`` (K, 2) px, clipped to the frame; ``None`` when off frame."""
        x0 = max(0, int(math.floor(pts[:, 0].min())) - pad)
        y0 = max(0, int(math.floor(pts[:, 1].min())) - pad)
        x1 = min(self.W, int(math.ceil(pts[:, 0].max())) + pad + 1)
        y1 = min(self.Hgt, int(math.ceil(pts[:, 1].max())) + pad + 1)
        return (x0, y0, x1, y1) if x0 < x1 and y0 < y1 else None

    @staticmethod
    def _blend(canvas: np.ndarray, x0: int, y0: int, bgr: np.ndarray, a: np.ndarray) -> None:
        """Lay ``bgr`` with alpha ``a`` (float32 0..1) on ``canvas`` at (x0, y0), clipped to the canvas."""
        H, W = canvas.shape[:2]
        h, w = a.shape
        xa, ya, xb, yb = max(0, x0), max(0, y0), min(W, x0 + w), min(H, y0 + h)
        if xa >= xb or ya >= yb:
            return
        sub = (slice(ya - y0, yb - y0), slice(xa - x0, xb - x0))
        aa = np.ascontiguousarray(a[sub])
        roi = canvas[ya:yb, xa:xb]
        roi[:] = cv2.blendLinear(np.ascontiguousarray(bgr[sub]), np.ascontiguousarray(roi), aa, 1.0 - aa)

    def _card_sprite(self, tex: np.ndarray, Htex: np.ndarray, quad: np.ndarray, rng: np.random.Generator | None,
                     glare: float) -> tuple[int, int, np.ndarray, np.ndarray] | None:
        box = self._box(quad, 0)
        if box is None:
            return None
        bgr, a = self._patch(tex, Htex, box)
        if glare > 0 and rng is not None:
            g = glare_patch(box[3] - box[1], box[2] - box[0], rng, glare)
            bgr = cv2.add(bgr, cv2.merge([g, g, g]))
        return box[0], box[1], bgr, a

    def _shadowed_background(self, state: TableState) -> np.ndarray:
        """The background with the state's shadows, reused while nothing that casts one has moved."""
        key = repr(([(c.center, c.angle_deg) for c in state.cards], [(s.center, s.count) for s in state.chips],
                    [(h.polygon, h.height_mm) for h in state.hands])).encode()
        if key != self._shadow_key or self._shadowed is None:
            self._shadowed = self._shadows(self.background, state)
            self._shadow_key = key
        return self._shadowed

    def _shadows(self, img: np.ndarray, state: TableState) -> np.ndarray:
        strength = self.style.effects.shadows
        if strength <= 0 or (not state.cards and not state.chips and not state.hands):
            return img
        f = 4  # draw shadows at quarter resolution and blur: they are soft anyway
        sw, sh = self.W // f + 1, self.Hgt // f + 1
        mask = np.zeros((sh, sw), np.uint8)
        d = self.shadow_dir

        def fill(felt_pts: np.ndarray, level: int) -> None:
            px = _apply_h(self.H, felt_pts) / f
            if np.all(np.isfinite(px)):
                cv2.fillPoly(mask, [np.round(px * 16).astype(np.int32)], level, cv2.LINE_AA, 4)

        for c in state.cards:
            A = card_to_felt(c)
            corners = np.array([[0, 0], [CARD_W_MM, 0], [CARD_W_MM, CARD_H_MM], [0, CARD_H_MM]])
            fill(_apply_h(A, corners) + d * 1.5, 90)
        for s in state.chips:
            h = s.count * CHIP_THICKNESS_MM
            circ = self._circle(s.center, CHIP_DIAMETER_MM / 2, 24)
            fill(cv2.convexHull(np.vstack([circ, circ + d * h]).astype(np.float32)).reshape(-1, 2).astype(np.float64), 200)
        for hand in state.hands:
            poly = np.asarray(hand.polygon, float) + d * hand.height_mm
            fill(poly, 170)
        blur = max(1.0, 6.0 / f * (self.W / 1920))
        mask = cv2.GaussianBlur(mask, (0, 0), blur)
        ys, xs = np.nonzero(mask)
        if len(xs) == 0:
            return img
        # darken only the box the shadows fall in
        bx0, by0 = int(xs.min()), int(ys.min())
        bx1, by1 = int(xs.max()) + 1, int(ys.max()) + 1
        X0, Y0, X1, Y1 = bx0 * f, by0 * f, min(self.W, bx1 * f), min(self.Hgt, by1 * f)
        if X0 >= X1 or Y0 >= Y1:
            return img
        sub = cv2.resize(mask[by0:by1, bx0:bx1], ((bx1 - bx0) * f, (by1 - by0) * f), interpolation=cv2.INTER_LINEAR)
        sub = sub[: Y1 - Y0, : X1 - X0]
        keep = 255 - cv2.convertScaleAbs(sub, alpha=strength)
        out = img.copy()
        out[Y0:Y1, X0:X1] = cv2.multiply(img[Y0:Y1, X0:X1], cv2.merge([keep, keep, keep]), scale=1 / 255.0)
        return out

    _SPRITE_BYTES = 192 << 20  # the sprite memo's memory budget

    def _keep(self, key, sprite) -> None:
        self._sprites[key] = sprite
        self._sprite_bytes += 0 if sprite is None else sprite[2].nbytes + sprite[3].nbytes
        while self._sprite_bytes > self._SPRITE_BYTES and len(self._sprites) > 1:
            _, old = self._sprites.popitem(last=False)
            self._sprite_bytes -= 0 if old is None else old[2].nbytes + old[3].nbytes

    def zone_of(self, center: tuple[float, float]) -> str | None:
        """The name of the layout zone containing ``center`` (mm), memoised (layouts do not move)."""
        key = (round(float(center[0]), 1), round(float(center[1]), 1))
        if key not in self._zones:
            z = self.layout.zone_at(key)
            self._zones[key] = z.name if z else None
        return self._zones[key]

    @staticmethod
    def _circle(center, radius: float, n: int) -> np.ndarray:
        t = np.linspace(0, 2 * math.pi, n, endpoint=False)
        return np.stack([center[0] + radius * np.cos(t), center[1] + radius * np.sin(t)], 1)

    def _stack_geometry(self, s: ChipStack) -> tuple[np.ndarray, np.ndarray]:
        """Projected rims (n+1, S, 2) px for the chip boundaries bottom to top, and the silhouette polygon."""
        n = s.count
        ring = self._circle(s.center, CHIP_DIAMETER_MM / 2, _CHIP_SEGMENTS)
        zs = -np.arange(n + 1) * CHIP_THICKNESS_MM
        pts = np.concatenate([np.column_stack([ring, np.full(len(ring), z)]) for z in zs])
        px = self.camera.project(pts).reshape(n + 1, _CHIP_SEGMENTS, 2)
        hull = cv2.convexHull(np.concatenate([px[0], px[-1]]).astype(np.float32)).reshape(-1, 2).astype(np.float64)
        return px, hull

    def _stack_sprite(self, s: ChipStack, rims: np.ndarray, hull: np.ndarray) -> tuple[int, int, np.ndarray, np.ndarray] | None:
        """The stack drawn once on black and once on white: colour and alpha follow (a sprite to lay on any frame)."""
        box = self._box(hull, 1)
        if box is None or s.count <= 0:
            return None
        x0, y0, x1, y1 = box
        black = np.zeros((y1 - y0, x1 - x0, 3), np.uint8)
        white = np.full_like(black, 255)
        self._draw_stack(black, (x0, y0), s, rims)
        self._draw_stack(white, (x0, y0), s, rims)
        cover = 1.0 - (white.astype(np.float32) - black.astype(np.float32)).mean(-1) * np.float32(1 / 255.0)
        a = np.clip(cover, 0.0, 1.0).astype(np.float32)
        bgr = np.clip(black.astype(np.float32) / np.maximum(a, 1e-3)[..., None], 0, 255).astype(np.uint8)
        return x0, y0, bgr, a

    def _draw_stack(self, roi: np.ndarray, origin: tuple[int, int], s: ChipStack, rims: np.ndarray) -> None:
        """Draw stack ``s`` on ``roi``, a canvas whose top-left pixel is image pixel ``origin``."""
        n = s.count
        kinds = [self.chipset.kind(layer.denomination) for layer in s.layers for _ in range(layer.count)]
        x0, y0 = origin
        h_roi, w_roi = roi.shape[:2]
        x1, y1 = x0 + w_roi, y0 + h_roi
        off = np.array([x0, y0], np.float64)
        k = 16
        to_i = lambda p: np.round((p - off) * k).astype(np.int32)  # noqa: E731
        # which rim points face the camera (their outward normal points towards it)
        normals = self._ring_normals
        view = self.cam_center[:2] - np.asarray(s.center)
        facing = normals @ view > 0
        seed = abs(hash((round(s.center[0], 1), round(s.center[1], 1)))) % 997
        side_layer = np.zeros((y1 - y0, x1 - x0), np.uint8)
        tall = abs(float(rims[-1][:, 1].mean() - rims[0][:, 1].mean())) > 0.6 * n and facing.any()
        if tall:
            # every edge spot of every chip in one projection: (n, spots, 8) points on the side
            spots = self.chip_design.spots
            width = math.radians(self.chip_design.spot_deg)
            phase = (seed * 0.37 + np.arange(n) * 1.3) % (2 * math.pi / spots)
            angs = phase[:, None, None] + (2 * math.pi * np.arange(spots) / spots)[None, :, None] \
                + np.linspace(-width / 2, width / 2, 4)[None, None, :]
            front = (np.cos(angs) * view[0] + np.sin(angs) * view[1] > 0).all(-1)
            r = CHIP_DIAMETER_MM / 2
            xs = s.center[0] + r * np.cos(angs)
            ys = s.center[1] + r * np.sin(angs)
            z0 = (-np.arange(n) * CHIP_THICKNESS_MM)[:, None, None] * np.ones_like(angs)
            lo = np.stack([xs, ys, z0], -1)
            hi = np.stack([xs[..., ::-1], ys[..., ::-1], z0 - CHIP_THICKNESS_MM], -1)
            bands = self.camera.project(np.concatenate([lo, hi], 2).reshape(-1, 3)).reshape(n, spots, 8, 2)
            bands_i = to_i(bands)
        for i in range(n):
            body, spot = side_colours(kinds[i], self.chip_design)
            poly = cv2.convexHull(np.concatenate([rims[i], rims[i + 1]]).astype(np.float32)).reshape(-1, 2)
            pi = to_i(poly)
            cv2.fillPoly(roi, [pi], body, cv2.LINE_AA, 4)
            cv2.fillPoly(side_layer, [pi], 255, cv2.LINE_8, 4)
            if tall:
                vis = [bands_i[i, j] for j in range(bands_i.shape[1]) if front[i, j]]
                if vis:
                    cv2.fillPoly(roi, vis, spot, cv2.LINE_AA, 4)
                if i > 0:
                    # the seam between two chips, a thin dark line along the front of the rim
                    seam = rims[i][facing]
                    seam = seam[np.argsort(seam[:, 0])]
                    cv2.polylines(roi, [to_i(seam)], False, tuple(int(c * 0.55) for c in body), 1, cv2.LINE_AA, 4)
        # round shading of the side: brightest where the side faces the camera head on
        top = rims[-1]
        cx = float(top[:, 0].mean() - x0)
        rx = max(1.0, float(top[:, 0].max() - top[:, 0].min()) / 2)
        xs = (np.arange(x1 - x0, dtype=np.float32) - cx) / rx
        prof = np.clip(0.62 + 0.38 * np.cos(np.clip(xs, -1, 1) * math.pi / 2), 0.3, 1.0)
        shade = np.where(side_layer > 0, prof[None, :], 1.0).astype(np.float32)
        roi[:] = (roi * shade[..., None]).astype(np.uint8)
        # the top chip's face
        face = chip_face(kinds[-1], self.chip_design)
        S = face.shape[0]
        sp = CHIP_TEXTURE_PX_PER_MM
        rot = (seed * 0.61) % (2 * math.pi)
        c, si = math.cos(rot), math.sin(rot)
        A = np.array([[c / sp, -si / sp, 0], [si / sp, c / sp, 0], [0, 0, 1.0]])
        A[:2, 2] = np.asarray(s.center) - A[:2, :2] @ np.array([S / 2, S / 2])
        Hz = plane_homography(self.camera, -n * CHIP_THICKNESS_MM) @ A
        fb = self._box(top, 0)
        if fb is not None:
            bgr, a = self._patch(face, Hz, fb)
            self._blend(roi, fb[0] - x0, fb[1] - y0, bgr, a)

    def _draw_hand(self, img: np.ndarray, poly_px: np.ndarray, skin_rgb: tuple[int, int, int]) -> None:
        """A hand or sleeve: skin-tone (or cloth) shape, rounded by shading, its edge soft (it is near the lens)."""
        box = self._box(poly_px, 3)
        if box is None:
            return
        x0, y0, x1, y1 = box
        w, h = x1 - x0, y1 - y0
        f = 4  # shade at quarter resolution: the rounding is smooth anyway
        sw, sh = max(2, w // f), max(2, h // f)
        small = np.zeros((sh, sw), np.uint8)
        cv2.fillPoly(small, [np.round((poly_px - [x0, y0]) / f * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        thick = max(1.0, float(np.sqrt(np.count_nonzero(small))) / 6)
        round_ = cv2.GaussianBlur(small, (0, 0), thick).astype(np.float32) * (1 / 255.0)
        shade = cv2.resize(0.72 + 0.36 * np.sqrt(round_), (w, h), interpolation=cv2.INTER_LINEAR)
        m = np.zeros((h, w), np.uint8)
        cv2.fillPoly(m, [np.round((poly_px - [x0, y0]) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        m = cv2.GaussianBlur(m, (0, 0), max(0.8, self.W / 1920))
        a = m.astype(np.float32) * np.float32(1 / 255.0)
        skin = np.clip(np.array(skin_rgb[::-1], np.float32) * shade[..., None], 0, 255).astype(np.uint8)
        self._blend(img, x0, y0, skin, a)

    # -- the frame --
    def render(self, state: TableState, rng: np.random.Generator | int | None = None) -> RenderResult:
        """Draw ``state`` and measure its truth.

        Args:
            state: what lies on the table.
            rng: randomness for glare and noise (a seed or a Generator; ``None`` = seed 0).

        Returns:
            :class:`RenderResult`.

        Raises:
            UnknownCardError: for a card that is not in the contract notation.
            ChipSetError: for a chip denomination the chip set does not have.
        """
        rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(0 if rng is None else rng)
        st = self.style
        fx = st.effects
        img = self._shadowed_background(state).copy()

        order = sorted(range(len(state.cards)), key=lambda i: (state.cards[i].layer, i))
        corners = np.array([[0, 0], [CARD_W_MM, 0], [CARD_W_MM, CARD_H_MM], [0, CARD_H_MM]])
        quads: dict[int, np.ndarray] = {}
        index_quads: dict[int, list[np.ndarray]] = {}
        suit_quads: dict[int, list[np.ndarray] | None] = {}
        for i in order:
            c = state.cards[i]
            parse_card(c.card)
            A = card_to_felt(c)
            HA = self.H @ A
            quad = _apply_h(HA, corners)
            quads[i] = quad
            if c.face_up:
                index_quads[i] = _corner_quads(HA, self.deck.index_boxes(c.card))
                suits = self.deck.suit_boxes(c.card)
                suit_quads[i] = None if suits is None else _corner_quads(HA, suits)
            if not np.all(np.isfinite(quad)):
                continue
            key = ("card", c.card, c.face_up, c.center, c.angle_deg)
            sprite = self._sprites.get(key)
            if key in self._sprites:
                self._sprites.move_to_end(key)
            if sprite is None:
                scale = self._texture_scale(quad)
                tex = self.deck.face(c.card, scale) if c.face_up else back_texture(st.back, scale)
                sp = tex.shape[1] / CARD_W_MM
                Htex = HA @ np.diag([1 / sp, 1 / sp, 1.0])
                glare = fx.glare if (fx.glare_p > 0 and rng.random() < fx.glare_p) else 0.0
                sprite = self._card_sprite(tex, Htex, quad, rng, glare)
                self._keep(key, sprite)
            if sprite is not None:
                self._blend(img, *sprite)
            if st.card_edges:
                cv2.polylines(img, [np.round(quad * 16).astype(np.int32)], True, (150, 150, 150), 1, cv2.LINE_AA, 4)

        stacks = list(range(len(state.chips)))
        geo = {}
        for j in stacks:
            geo[j] = self._stack_geometry(state.chips[j])
        # far stacks first, so nearer ones cover them
        stacks.sort(key=lambda j: -float(np.linalg.norm(np.r_[state.chips[j].center, 0.0] - self.cam_center)))
        for j in stacks:
            s = state.chips[j]
            key = ("stack", s.center, s.layers)
            sprite = self._sprites.get(key)
            if key in self._sprites:
                self._sprites.move_to_end(key)
            if sprite is None:
                sprite = self._stack_sprite(s, *geo[j])
                self._keep(key, sprite)
            if sprite is not None:
                self._blend(img, *sprite)

        hand_polys = []
        for hand in state.hands:
            pts = np.column_stack([np.asarray(hand.polygon, float), np.full(len(hand.polygon), -hand.height_mm)])
            px = self.camera.project(pts)
            if np.all(np.isfinite(px)):
                hand_polys.append(px)
                self._draw_hand(img, px, hand.skin_rgb)

        img = finish(img, fx, rng, self.gain, self.planes)
        cards, chips = self._truth(state, order, quads, index_quads, suit_quads, stacks, geo, hand_polys)
        return RenderResult(img, cards, chips, self.camera, hand_polys)

    def _truth(self, state, order, quads, index_quads, suit_quads, stack_order, geo, hand_polys):
        W, Hh = self.W, self.Hgt
        # every occluder (cards in drawing order, then stacks nearest last, then hands) with its box,
        # so each region only rasterises the few that overlap it
        polys = [quads[i] for i in order] + [geo[j][1] for j in stack_order] + list(hand_polys)
        boxes = np.array([_bbox(p) for p in polys]).reshape(-1, 4)
        n_cards = len(order)

        def over(poly: np.ndarray, start: int) -> list:
            """Occluders drawn after position ``start`` that overlap ``poly``'s box."""
            b = _bbox(poly)
            idx = np.nonzero((boxes[:, 0] < b[2]) & (b[0] < boxes[:, 2]) & (boxes[:, 1] < b[3]) & (b[1] < boxes[:, 3]))[0]
            return [(polys[k], tuple(boxes[k])) for k in idx if k > start]

        cards_out: list[CardTruth | None] = [None] * len(state.cards)
        for rank_pos, i in enumerate(order):
            c = state.cards[i]
            vis, box = visible_part(quads[i], over(quads[i], rank_pos), W, Hh, grid=40)
            boxes_i, fracs, suit_fracs = [], [], []
            if c.face_up:
                for iq in index_quads[i]:
                    f, b = visible_part(iq, over(iq, rank_pos), W, Hh, grid=24)
                    fracs.append(f)
                    if f >= 0.5 and b is not None:
                        boxes_i.append(b)
                suit_fracs = list(fracs) if suit_quads.get(i) is None else \
                    [visible_part(sq, over(sq, rank_pos), W, Hh, grid=12)[0] for sq in suit_quads[i]]
            zone = c.zone if c.zone is not None else self.zone_of(c.center)
            ident = str(parse_card(c.card))
            cards_out[i] = CardTruth(ident if c.face_up else BACK, ident, quads[i], c.face_up, boxes_i, zone, vis, box,
                                     index_quads.get(i, []), fracs, rank_pos, suit_fracs)
        chips_out: list[ChipTruth] = []
        pos = {j: p for p, j in enumerate(stack_order)}
        for j, s in enumerate(state.chips):
            hull = geo[j][1]
            vis, _ = visible_part(hull, over(hull, n_cards + pos[j]), W, Hh, grid=32)
            x1, y1, x2, y2 = _bbox(hull)
            box = (max(0.0, x1), max(0.0, y1), min(float(W), x2), min(float(Hh), y2))
            box = box if box[0] < box[2] and box[1] < box[3] else None
            zone = s.zone if s.zone is not None else self.zone_of(s.center)
            chips_out.append(ChipTruth(box, [(layer.denomination, layer.count) for layer in s.layers], zone, s.count,
                                       s.value, vis, hull, pos[j]))
        return cards_out, chips_out


def render_frame(layout: Layout, state: TableState, camera: PinholeCamera, style: Style | None = None,
                 rng: np.random.Generator | int | None = None) -> RenderResult:
    """Render ``state`` on ``layout`` through ``camera`` (see :meth:`Renderer.render`).

    Renderers for the last few (layout, camera, style) triples are kept, so a video
    rendered frame by frame through this function pays for the felt only once.
    """
    style = style or Style()
    key = (_layout_key(layout), camera.K.tobytes(), camera.R.tobytes(), camera.t.tobytes(), camera.width,
           camera.height, repr(style))
    renderer = _RENDERERS.get(key, lambda: Renderer(layout, camera, style))
    return renderer.render(state, rng)
