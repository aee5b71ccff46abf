"""Random but plausible table scenes for training images: who sits, what is bet, what is dealt, the camera, the look.

One scene = a layout, a :class:`~datasets.scene.TableState`, a camera and a
:class:`~datasets.render.Style`, all drawn from one seeded generator, so the same
``(seed, index)`` always gives the same scene.  Cards come from a shuffled shoe
of the layout's game (six or eight decks; 48-card decks for Spanish 21), so a
scene never shows a card its shoe cannot hold.

Placement follows the table: each occupied seat has a wager in its betting spot
(and side bets where the layout has the spots), a hand of 2-6 cards fanned in its
card zone the way dealers pitch them (each card offset along the diagonal so the
index of the one below stays visible), sometimes a payout stack in its payout
zone; the dealer has an up card and a hole card (or a finished hand).  The
dealer's hands reach over the felt in some scenes.

The camera varies: straight down to 60 degrees tilt (15-35 typical), 1080p and
4K, whole-table and close views; a few scenes lie on wood, white or plain cloth
instead of the printed felt.  Nothing is ever mirrored.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from calibration.camera import PinholeCamera
from calibration.layout import SHIPPED_LAYOUTS, Layout, builtin_layout
from datasets.cards import list_back_designs, list_deck_designs
from datasets.chips import CHIP_DESIGNS
from datasets.effects import Effects
from datasets.felt import FeltStyle
from datasets.render import Style
from datasets.scene import ChipLayer, ChipStack, HandOccluder, PlacedCard, TableState
from rules.cards import format_card
from rules.shoe import ShoeComposition

FELT_COLOURS: tuple[tuple[int, int, int], ...] = (
    (22, 96, 60), (18, 110, 58), (30, 80, 50), (20, 60, 110), (25, 45, 90), (110, 20, 30), (80, 20, 40),
    (40, 40, 44), (60, 30, 80), (16, 90, 90),
)
"""Felt colours seen on casino tables (RGB): greens, blues, reds, black, purple, teal."""

PRINT_COLOURS: tuple[tuple[int, int, int], ...] = ((236, 222, 170), (240, 240, 235), (220, 190, 90), (250, 230, 120))

def casino_felt(rng: np.random.Generator) -> FeltStyle:
    """A felt of any casino colour printed in any ink (training renders).

    Draws, in this order: the felt colour (the layout's own green 30 % of the time, else one of
    :data:`FELT_COLOURS`), the ink (the layout's own half the time, else one of :data:`PRINT_COLOURS`), the Hershey
    font, the fibre texture (3-8), whether side-bet spots are filled (70 %) and the noise seed.
    """
    return FeltStyle(felt_rgb=None if rng.random() < 0.3 else tuple(int(v) for v in FELT_COLOURS[rng.integers(len(FELT_COLOURS))]),
                     print_rgb=None if rng.random() < 0.5 else tuple(int(v) for v in PRINT_COLOURS[rng.integers(len(PRINT_COLOURS))]),
                     font=str(rng.choice(["simplex", "duplex", "complex", "triplex"])),
                     texture=float(rng.uniform(3.0, 8.0)), spot_fill=bool(rng.random() < 0.7),
                     seed=int(rng.integers(1 << 16)))


SKIN_TONES: tuple[tuple[int, int, int], ...] = (
    (241, 194, 160), (224, 172, 135), (198, 140, 100), (160, 105, 70), (120, 78, 50), (90, 58, 38),
)


@dataclass(frozen=True)
class Scene:
    """Everything needed to render one training image.

    Attributes:
        layout: the table layout.
        state: what lies on it.
        camera: the camera.
        style: the look.
        seed: the generator seed the scene was drawn from (for the scene JSON).
    """

    layout: Layout
    state: TableState
    camera: PinholeCamera
    style: Style
    seed: tuple[int, int]


def _seat_angle(layout: Layout, seat: int) -> float:
    """Direction (rad) from the table centre to ``seat``'s betting spot."""
    cx, cy = layout.table_center
    x, y = layout.zone(f"seat{seat}.main").circle.center
    return math.atan2(y - cy, x - cx)


def _chips(rng: np.random.Generator, denoms: list[int], max_count: int = 20, mixed_p: float = 0.35) -> tuple[ChipLayer, ...]:
    """A stack of 1..max_count chips, sometimes of mixed denominations (bottom to top, biggest at the bottom)."""
    n = int(min(max_count, max(1, rng.geometric(0.18))))
    if rng.random() < mixed_p and n >= 2:
        k = int(rng.integers(2, min(4, n) + 1))
        picks = sorted(rng.choice(denoms, size=k, replace=False).tolist(), reverse=True)
        cuts = sorted(rng.choice(np.arange(1, n), size=k - 1, replace=False).tolist())
        counts = np.diff([0, *cuts, n]).tolist()
        return tuple(ChipLayer(int(d), int(c)) for d, c in zip(picks, counts))
    w = np.array([0.3, 0.3, 0.22, 0.12, 0.04, 0.02][: len(denoms)])
    d = int(rng.choice(denoms, p=w / w.sum()))
    return (ChipLayer(d, n),)


def _jitter(rng: np.random.Generator, p, r: float) -> tuple[float, float]:
    return (float(p[0] + rng.normal(0, r)), float(p[1] + rng.normal(0, r)))


def _fan(rng: np.random.Generator, cards: list[str], start: tuple[float, float], angle_deg: float, zone: str,
         face_up: bool = True, layer0: int = 0) -> list[PlacedCard]:
    """Pitch ``cards`` as a dealer does: each next card offset along the card's diagonal, slightly turned."""
    dx, dy = float(rng.uniform(9, 18)), float(rng.uniform(12, 24))
    sx = 1 if rng.random() < 0.5 else -1
    out = []
    a = math.radians(angle_deg)
    for k, card in enumerate(cards):
        # offsets in the card's own frame (x across, y along), turned to the felt like the card
        ox, oy = sx * dx * k, dy * k
        x = start[0] - (math.cos(a) * ox + math.sin(a) * oy)
        y = start[1] - (-math.sin(a) * ox + math.cos(a) * oy)
        out.append(PlacedCard(card, face_up, (x, y), angle_deg + float(rng.normal(0, 3)), layer0 + k, zone))
    return out


def random_state(layout: Layout, rng: np.random.Generator, denoms: list[int]) -> TableState:
    """A plausible table state on ``layout`` (see the module docstring)."""
    spanish = layout.game == "spanish21"
    shoe = ShoeComposition(decks=int(rng.choice([6, 8])), spanish=spanish).shuffled(int(rng.integers(1 << 31)))
    draw = iter(format_card(c) for c in shoe)
    cards: list[PlacedCard] = []
    chips: list[ChipStack] = []
    players = int(rng.integers(1, layout.seats + 1))
    seats = sorted(rng.choice(np.arange(1, layout.seats + 1), size=players, replace=False).tolist())
    stage = rng.choice(["bets", "dealt", "dealt", "dealt", "settling"])
    for seat in seats:
        main = layout.zone(f"seat{seat}.main")
        chips.append(ChipStack(_jitter(rng, main.circle.center, 4), _chips(rng, denoms), main.name))
        for kind in ("mtd", "bonus"):
            name = f"seat{seat}.{kind}"
            if layout.has_zone(name) and rng.random() < 0.5:
                z = layout.zone(name)
                chips.append(ChipStack(_jitter(rng, z.circle.center, 2.5), _chips(rng, denoms, 8, 0.15), name))
        if stage == "bets":
            continue
        theta = _seat_angle(layout, seat)
        angle = 90.0 - math.degrees(theta) + float(rng.normal(0, 8))
        if rng.random() < 0.1:
            angle += 90.0  # a card pitched sideways
        zone = layout.zone(f"seat{seat}.cards")
        n = int(rng.choice([2, 2, 2, 3, 3, 4, 5, 6]))
        hand = [next(draw) for _ in range(n)]
        start = _jitter(rng, zone.centroid, 12)
        cards += _fan(rng, hand, start, angle, zone.name)
        if stage == "settling" and rng.random() < 0.6:
            pz = layout.zone(f"seat{seat}.payout")
            chips.append(ChipStack(_jitter(rng, pz.centroid, 5), _chips(rng, denoms), pz.name))
    if stage != "bets":
        dz = layout.zone("dealer.cards")
        c = _jitter(rng, dz.centroid, 15)
        if stage == "dealt":
            up, hole = next(draw), next(draw)
            cards.append(PlacedCard(up, True, c, float(rng.normal(0, 4)), 1, dz.name))
            hx = float(rng.uniform(14, 40)) * (1 if rng.random() < 0.5 else -1)
            cards.append(PlacedCard(hole, False, (c[0] + hx, c[1] + float(rng.normal(0, 4))), float(rng.normal(0, 4)),
                                    0 if rng.random() < 0.6 else 2, dz.name))
        else:
            n = int(rng.integers(2, 6))
            step = float(rng.uniform(18, 40))
            for k in range(n):
                cards.append(PlacedCard(next(draw), True, (c[0] + (k - (n - 1) / 2) * step, c[1] + float(rng.normal(0, 3))),
                                        float(rng.normal(0, 4)), k, dz.name))
    # a burn card or a stray face-down card now and then
    if rng.random() < 0.2:
        z = layout.zone("discard")
        cards.append(PlacedCard(next(draw), False, _jitter(rng, z.centroid, 10), float(rng.uniform(-30, 30)), 0, z.name))
    hands: list[HandOccluder] = []
    for _ in range(int(rng.choice([0, 0, 1, 1, 2]))):
        hands += random_hand(layout, rng, cards)
    return TableState(tuple(cards), tuple(chips), tuple(hands))


SLEEVES: tuple[tuple[int, int, int], ...] = ((245, 245, 242), (30, 30, 32), (120, 20, 30), (40, 40, 90), (200, 180, 120))
"""Dealer shirt colours (RGB)."""


def random_hand(layout: Layout, rng: np.random.Generator, cards: list[PlacedCard]) -> list[HandOccluder]:
    """The dealer's hand and forearm reaching from the dealer's side towards a card or spot: a sleeve and the hand."""
    if cards and rng.random() < 0.7:
        goal = cards[int(rng.integers(len(cards)))].center
    else:
        goal = layout.zones[int(rng.integers(len(layout.zones)))].centroid
    goal = _jitter(rng, goal, 25)
    cx = layout.table_center[0]
    elbow = (cx + float(rng.normal(0, 250)), -float(rng.uniform(50, 250)))
    d = np.array(goal) - np.array(elbow)
    d /= np.linalg.norm(d) + 1e-9
    n = np.array([-d[1], d[0]])
    if rng.random() < 0.5:
        n = -n  # the other hand: the thumb comes out on the other side
    palm_w = float(rng.uniform(75, 95))
    palm_l = float(rng.uniform(80, 105))
    wrist = np.array(goal) - d * palm_l
    fingers = float(rng.uniform(55, 80))
    pts = [np.array(elbow) + n * 38, wrist + n * 30, wrist + n * palm_w / 2 + d * palm_l * 0.25]
    # four finger tips, rounded, and the thumb on one side
    for k in range(4):
        off = (1.5 - k) / 1.5 * palm_w * 0.38
        base = wrist + d * palm_l + n * off
        tip = base + d * fingers * (1 - 0.12 * abs(1.5 - k))
        pts += [base + n * 9, tip + n * 7, tip + d * 6, tip - n * 7, base - n * 9]
    thumb_base = wrist + d * palm_l * 0.75 - n * palm_w / 2
    pts += [thumb_base, wrist + d * palm_l * 0.55 - n * (palm_w / 2 + 40) + d * 30,
            wrist + d * palm_l * 0.3 - n * (palm_w / 2 + 12)]
    pts += [wrist - n * 30, np.array(elbow) - n * 38]
    poly = tuple((float(p[0]), float(p[1])) for p in pts)
    skin = SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
    height = float(rng.uniform(25, 90))
    # the shirt sleeve covers the forearm from the elbow to part way down to the wrist
    cuff = np.array(elbow) + (wrist - np.array(elbow)) * float(rng.uniform(0.3, 0.8))
    sleeve = tuple((float(p[0]), float(p[1])) for p in
                   (np.array(elbow) + n * 48, cuff + n * 40, cuff - n * 40, np.array(elbow) - n * 48))
    shirt = SLEEVES[int(rng.integers(len(SLEEVES)))]
    # the sleeve first: the hand is drawn over the cuff
    return [HandOccluder(sleeve, height + 10, shirt), HandOccluder(poly, height, skin)]


def random_camera(layout: Layout, rng: np.random.Generator, state: TableState) -> PinholeCamera:
    """A camera over ``layout``: tilt 0-60 degrees (15-35 typical), 1080p or 4K, whole-table or close view."""
    width, height = (3840, 2160) if rng.random() < 0.2 else (1920, 1080)
    r = rng.random()
    tilt = float(rng.uniform(15, 35) if r < 0.6 else rng.uniform(0, 15) if r < 0.8 else rng.uniform(35, 60))
    view = rng.random()
    if view < 0.25:  # the whole table
        cover = float(rng.uniform(1700, 2300))
        target = (layout.table_center[0] + float(rng.normal(0, 60)), float(rng.uniform(380, 520)))
    elif view < 0.65:  # the betting and card areas, as the round videos see them
        cover = float(rng.uniform(1100, 1600))
        target = (layout.table_center[0] + float(rng.normal(0, 120)), float(rng.uniform(380, 520)))
    else:  # close: a few seats or the dealer's cards; now and then a webcam's very near view of one hand
        cover = float(rng.uniform(250, 450)) if rng.random() < 0.25 else float(rng.uniform(450, 1000))
        things = [c.center for c in state.cards] + [s.center for s in state.chips]
        target = _jitter(rng, things[int(rng.integers(len(things)))], 60) if things else \
            _jitter(rng, layout.zone("dealer.cards").centroid, 80)
    yaw = float(rng.normal(0, 12)) if rng.random() < 0.85 else float(rng.uniform(-180, 180))
    return PinholeCamera.looking_at(target, tilt, yaw, width, height, cover, float(rng.uniform(1300, 2600)),
                                    float(rng.normal(0, 3)))


def random_style(layout: Layout, rng: np.random.Generator, camera: PinholeCamera, decks: list[str] | None = None) -> Style:
    """The look of one training image: deck, back, felt, surface, chips and effects, each uniform over its options."""
    decks = decks or list_deck_designs()
    backs = list_back_designs()
    r = rng.random()
    surface = "felt" if r < 0.8 else "wood" if r < 0.88 else "white" if r < 0.96 else "cloth"
    felt = FeltStyle(
        felt_rgb=FELT_COLOURS[int(rng.integers(len(FELT_COLOURS)))] if rng.random() < 0.6 else None,
        print_rgb=PRINT_COLOURS[int(rng.integers(len(PRINT_COLOURS)))],
        font=str(rng.choice(["duplex", "triplex"])),
        texture=float(rng.uniform(2, 9)),
        seed=int(rng.integers(1 << 20)),
    )
    px_per_mm = px_per_mm_at_centre(camera)
    return Style(
        deck=str(decks[int(rng.integers(len(decks)))]),
        back=str(backs[int(rng.integers(len(backs)))]),
        felt=felt,
        surface=surface,
        surface_rgb=None,
        chip_design=CHIP_DESIGNS[int(rng.integers(len(CHIP_DESIGNS)))].name,
        effects=Effects.random(rng),
        felt_px_per_mm=2.0 if px_per_mm > 1.3 else 1.0,
    )


def px_per_mm_at_centre(camera: PinholeCamera) -> float:
    """Image pixels per felt millimetre at the image centre (the larger of the two directions)."""
    H = camera.homography()
    c = np.linalg.solve(H, np.array([camera.width / 2, camera.height / 2, 1.0]))
    c = c[:2] / c[2]
    px = camera.project(np.array([c, c + [1.0, 0.0], c + [0.0, 1.0]]))
    return float(max(np.linalg.norm(px[1] - px[0]), np.linalg.norm(px[2] - px[0])))


@functools.lru_cache(maxsize=16)
def _layout(layout_id: str) -> Layout:
    return builtin_layout(layout_id)  # frozen model: safe to share between scenes


@functools.lru_cache(maxsize=1)
def _denominations() -> list[int]:
    from calibration.chipset import default_chipset

    return default_chipset().denominations


def random_scene(seed: int, index: int, decks: list[str] | None = None, layouts: list[str] | None = None) -> Scene:
    """Scene number ``index`` of the data set made with ``seed`` (the same pair always gives the same scene).

    Args:
        seed: the data set's seed (an integer).
        index: the image number.
        decks: deck designs to draw from (default: every available design, uniformly).
        layouts: layout ids to draw from (default: every shipped layout).

    Raises:
        ValueError: for a seed or index that is not a non-negative integer.
    """
    for name, v in (("seed", seed), ("index", index)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {v!r}")
    rng = np.random.default_rng([int(seed), int(index)])
    ids = layouts or sorted(SHIPPED_LAYOUTS)
    layout = _layout(ids[int(rng.integers(len(ids)))])
    denoms = _denominations()
    state = random_state(layout, rng, denoms)
    camera = random_camera(layout, rng, state)
    style = random_style(layout, rng, camera, decks)
    return Scene(layout, state, camera, style, (int(seed), int(index)))


__all__ = ["Scene", "random_scene", "random_state", "random_camera", "random_style", "random_hand",
           "px_per_mm_at_centre"]
