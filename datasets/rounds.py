"""Scripted blackjack rounds for test videos: who bets what, which cards fall where and when, and the truth.

One seed fixes everything: the game (blackjack with match-the-dealer and bonus,
Spanish 21 with match-the-dealer, or Switch Hands), the shoe, the table's posted
profile, the camera, the players and every round.  A round follows the
regulations:

1. wagers placed (main; match-the-dealer 13:69F-2.23(c)/19.6(b); blackjack bonus 2.20(b));
2. the deal from the shoe, in the standard order (rules.md §2.6) or the Switch
   Hands order (2B.6(d)), with a burn card after a new shoe in Switch Hands (2B.6(c));
3. side bets settled after every player's second card (2.23(e), 2.20(e)): losing
   match-the-dealer wagers collected, then winners paid; losing bonus wagers collected
   and a winning bonus player's two cards placed under the bonus wager.  In blackjack
   this happens before the dealer's hole card (2.23(e): "prior to any additional cards
   being dealt to ... the dealer"); in Spanish 21 after it (19.6(d));
4. Switch Hands: each player keeps a pair, the other pair goes to the discard rack (2B.6(f)); a face-down pair kept
   is turned over spread, both cards' indices in view;
5. hits, the dealer's play (stand on all 17s), main settlement from the dealer's right;
6. bonus winners paid after the round, from the dealer's left (2.20(f));
7. pick-up from the dealer's right, the dealer's cards last (2B.6(l)); players take their chips.

Cards slide from the shoe under the dealer's hand, chips move between the spots,
the payout zones and the chip tray, and hands (skin-coloured occluders with their
forearm) cover whatever they pass over.  A :class:`~datasets.faults.Fault` may
change any step; the round's truth records the alert it must raise
(timing definitions in :mod:`datasets.faults`).

Truth times: a round's ``start_s`` is the first frame at which one of its wagers
stands on its spot; ``end_s`` the first frame at which the last of its cards and
chips has left the table.

Example:
    >>> script = script_video(RoundVideoOptions(seed=7, rounds=1, faults=()))
    >>> truth = script.truth()
    >>> truth["rounds"][0]["alerts"], truth["video"]
    ([], 'video.mp4')
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import cv2
import numpy as np

from calibration.camera import PinholeCamera
from calibration.layout import Layout, builtin_layout
from datasets.faults import (
    FAULT_KINDS,
    Fault,
    FaultKindError,
    alert_record,
    break_deal_order,
    choose_fault_rounds,
    kinds_for_table,
    prepare_fault,
    wrong_payout,
)
from datasets.scene import ChipLayer
from datasets.timeline import Timeline, Track, hand_polygon
from vision.video_out import H264Writer
from rules.cards import Card
from rules.dealing import DealEvent, check_dealing_order, expected_deal_order
from rules.hands import hand_total, is_blackjack
from rules.money import money_json
from rules.profile import MTD_MINIMUM_ODDS, TableProfile, load_profile
from rules.settle import RoundSettlement, SeatHand, settle_round
from rules.shoe import ShoeComposition

GAMES: tuple[str, ...] = ("blackjack", "spanish21", "switch_hands")
GAME_LAYOUT: dict[str, str] = {
    "blackjack": "blackjack-7-mtd-bonus",
    "spanish21": "spanish21-6-mtd",
    "switch_hands": "switch-hands-7",
}
"""The shipped layout each game is rendered on (its side-bet spots decide the side bets offered)."""

GAME_SIDE_BETS: dict[str, tuple[str, ...]] = {"blackjack": ("mtd", "bonus"), "spanish21": ("mtd",), "switch_hands": ()}

DEFAULT_CHIPS: dict[str, int] = {"white": 1, "red": 5, "green": 25, "black": 100, "purple": 500, "orange": 1000}
"""Chip colour -> denomination (dollars) of the rendered chip set."""

TILT_RANGE = (15.0, 35.0)
"""Camera tilt picked by the seed, degrees from straight down."""

VIDEO_FILE = "video.mp4"

# Durations, seconds: what a brisk dealer takes.
PLACE_S = 0.45        # a player sets a stack on a spot
BET_STAGGER_S = 0.3   # between players placing wagers
NO_MORE_BETS_S = 0.5
SLIDE_S = 0.32        # a card from the shoe to its place
CARD_GAP_S = 0.16     # the dealer's hand back to the shoe
COLLECT_S = 0.4       # a losing stack to the chip tray
PAY_S = 0.45          # a payout stack from the tray to the payout zone
FLIP_S = 0.3
MOVE_CARDS_S = 0.45
DECIDE_S = 0.35       # a player signals hit or stand
PICKUP_S = 0.45
TAKE_S = 0.35         # a player takes one stack back
CHANGED_STACK_SHOWN_S = 0.8  # a past-posted or pinched stack stands in view this long before the dealer settles
ROUND_GAP_S = 0.8
HOLE_REST_S = 1.2     # the hole card lies face down at least this long before it is turned
BURN_REST_S = 2.0     # the burn card is in view on the discard rack this long
LEAD_IN_S = 0.5       # empty table before the first wager
TAIL_S = 0.6          # empty table after the last round


class RoundOptionsError(ValueError):
    """Options that cannot make a video (bad seed, a game/deck pair the rules forbid...)."""


@dataclass(frozen=True)
class RoundVideoOptions:
    """What ``pitwatch synth round`` was asked for; ``None`` lets the seed choose.

    Attributes:
        seed: any integer.
        faults: fault kinds allowed (``None``: all, ``()``: none).
        fps: frames per second.
        rounds: rounds in the video.
        game, decks, tilt_deg: fix the game, deck count or camera tilt.
        width, height: frame size, pixels.
    """

    seed: int
    faults: tuple[str, ...] | None = None
    fps: float = 30.0
    rounds: int | None = None
    game: str | None = None
    decks: int | None = None
    tilt_deg: float | None = None
    width: int = 1920
    height: int = 1080


# -- chips ------------------------------------------------------------------------------------

def chip_layers(amount: Fraction | int, denominations: list[int], rng: random.Random | None = None,
                max_chips: int = 20) -> tuple[ChipLayer, ...]:
    """A stack worth ``amount`` dollars, big chips at the bottom (bottom to top).

    With ``rng`` the top chip is sometimes broken into smaller ones, as players do,
    while the stack stays within ``max_chips``.

    Raises:
        ValueError: for an amount the chips cannot make (cents, or below the smallest chip).
    """
    amount = Fraction(amount)
    if amount.denominator != 1 or amount <= 0:
        raise ValueError(f"cannot stack ${float(amount):.2f} in chips")
    left = int(amount)
    counts: dict[int, int] = {}
    for d in sorted(denominations, reverse=True):
        if d <= left:
            counts[d], left = divmod(left, d)[0], left % d
    if left:
        raise ValueError(f"cannot stack ${int(amount)} with chips of {sorted(denominations)}")
    if rng is not None and rng.random() < 0.4:
        big = [d for d in sorted(counts) if counts[d] and any(s < d and d % s == 0 for s in denominations)]
        if big:
            d = big[0]
            smaller = max(s for s in denominations if s < d and d % s == 0)
            if sum(counts.values()) - 1 + d // smaller <= max_chips:
                counts[d] -= 1
                counts[smaller] = counts.get(smaller, 0) + d // smaller
    layers = tuple(ChipLayer(d, counts[d]) for d in sorted(counts, reverse=True) if counts[d])
    return layers


def stack_value(layers: tuple[ChipLayer, ...]) -> int:
    return sum(layer.denomination * layer.count for layer in layers)


# -- geometry of the table ----------------------------------------------------------------------

@dataclass(frozen=True)
class Slot:
    """Where a card comes to rest: centre (mm), angle (degrees), zone, drawing layer."""

    center: tuple[float, float]
    angle_deg: float
    zone: str
    layer: int = 0


class TableGeometry:
    """Where things go on a layout: card places, spots, payout places, tray, shoe, discard rack (mm).

    Seat positions use each seat's own frame: ``u`` along the table edge (towards
    higher seat numbers), ``v`` from the table centre out to the player.
    """

    def __init__(self, layout: Layout):
        self.layout = layout
        self.tc = np.array(layout.table_center, float)
        dz = layout.zone("dealer.cards")
        self.dealer_center = np.array(dz.centroid)
        shoe = np.array(layout.zone("shoe").polygon)
        self.shoe_mouth = (float(shoe[:, 0].min() + 30), float(shoe[:, 1].max() - 10))
        self.discard = tuple(map(float, layout.zone("discard").centroid))
        self.tray = tuple(map(float, layout.zone("tray").centroid))
        cx = float(self.tc[0])
        # the dealer faces +y: the right hand is on the small-x side
        self.shoulders = {"right": (cx - 190.0, -170.0), "left": (cx + 190.0, -170.0)}

    def axes(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """(radial, tangential) unit vectors of a seat's frame."""
        m = np.array(self.layout.zone(f"seat{seat}.main").centroid)
        r = (m - self.tc) / np.linalg.norm(m - self.tc)
        return r, np.array([-r[1], r[0]])

    def seat_point(self, seat: int, du: float, dv: float, base: str = "cards") -> tuple[float, float]:
        """A point ``du``/``dv`` mm from the centre of zone ``seat{seat}.{base}`` in the seat's frame."""
        r, t = self.axes(seat)
        c = np.array(self.layout.zone(f"seat{seat}.{base}").centroid) + du * t + dv * r
        return (round(float(c[0]), 2), round(float(c[1]), 2))

    def player_angle(self, seat: int) -> float:
        """Card angle that reads upright for the player (long side radial, top towards the dealer)."""
        r, _ = self.axes(seat)
        return round(math.degrees(math.atan2(-r[0], -r[1])) % 360.0, 2)

    def seat_card(self, seat: int, k: int, layer: int) -> Slot:
        """The ``k``-th card of a seat's hand (0 = first), each overlapping the one before."""
        return Slot(self.seat_point(seat, -22 + 15 * k, -32 + 19 * k), self.player_angle(seat),
                    f"seat{seat}.cards", layer)

    def switch_card(self, seat: int, pair: str, k: int, layer: int) -> Slot:
        """Switch Hands: card ``k`` (0, 1) of the face-down (``down``) or face-up (``up``) pair."""
        if pair == "down":
            return Slot(self.seat_point(seat, 8 + 12 * k, 38 + 10 * k), self.player_angle(seat),
                        f"seat{seat}.cards", layer)
        # 2B.6(d)5: the second face-up card overlaps the lower left corner of the first (dealer's view)
        return Slot(self.seat_point(seat, -26 + 16 * k, -44 + 18 * k), self.player_angle(seat),
                    f"seat{seat}.cards", layer)

    def switch_turned(self, seat: int, layer: int) -> Slot:
        """Switch Hands: where the second card of the face-down pair comes to rest when the pair kept is turned
        over (2B.6(f)). The first card is turned where it lies; the second is turned and slid off it as a hand's
        second card lies on its first (:meth:`seat_card`), so both cards' indices show. Dealt face down, the pair
        lies nearly squared: turned over so, the second card would cover half the first one's index (0.46-0.54 of
        it showing), from the player as from the camera."""
        return Slot(self.seat_point(seat, 8 + 15, 38 + 19), self.player_angle(seat), f"seat{seat}.cards", layer)

    def spot(self, seat: int, kind: str) -> tuple[float, float]:
        c = self.layout.zone(f"seat{seat}.{kind}").circle.center
        return (float(c[0]), float(c[1]))

    def payout_place(self, seat: int, wager: str) -> tuple[float, float]:
        """Where the payout for ``wager`` stands in ``seat{seat}.payout`` (three places, one per wager)."""
        du, dv = {"mtd": (-19, -27), "main": (-19, 27), "bonus": (19, 27)}[wager]
        return self.seat_point(seat, du, dv, base="payout")

    def bonus_card(self, seat: int, k: int) -> Slot:
        """A bonus winner's card tucked under the bonus wager (2.20(e)2)."""
        r, t = self.axes(seat)
        c = np.array(self.spot(seat, "bonus")) + (-9 + 18 * k) * t + (-6 + 8 * k) * r
        return Slot((round(float(c[0]), 2), round(float(c[1]), 2)), self.player_angle(seat), f"seat{seat}.bonus", k)

    def dealer_card(self, k: int, layer: int, opened: bool = True) -> Slot:
        """The dealer's ``k``-th card: up card, hole card (tucked under the up card until turned), draws."""
        dx, dy = self.dealer_center
        if k == 0:
            x, y = dx - 80, dy
        elif k == 1 and not opened:
            x, y = dx - 55, dy - 14
        else:
            x, y = dx - 80 + 58 * k, dy
        return Slot((round(float(x), 2), round(float(y), 2)), 180.0, "dealer.cards", layer)

    def player_edge(self, seat: int, kind: str = "main") -> tuple[float, float]:
        """Where a player's hand comes from and chips go back to: beyond the table edge."""
        r, t = self.axes(seat)
        c = np.array(self.spot(seat, kind)) + 330 * r
        return (round(float(c[0]), 2), round(float(c[1]), 2))

    def player_shoulder(self, seat: int) -> tuple[float, float]:
        r, t = self.axes(seat)
        c = np.array(self.layout.zone(f"seat{seat}.main").centroid) + 520 * r + 60 * t
        return (round(float(c[0]), 2), round(float(c[1]), 2))

    def hand_side(self, x: float) -> str:
        return "left" if x >= self.tc[0] else "right"


def _zone_image_polygon(layout: Layout, camera: PinholeCamera, name: str, heights=(0.0, 40.0)) -> np.ndarray:
    """(K, 2) float32 convex outline in pixels of a zone and of what stands in it up to ``heights`` mm."""
    poly = np.array(layout.zone(name).polygon, float)
    pts = np.vstack([camera.project(np.column_stack([poly, np.full(len(poly), -h)])) for h in heights])
    return cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)


def seats_in_view(layout: Layout, camera: PinholeCamera, margin_px: float = 8.0) -> list[int]:
    """Seats whose every zone (and a stack of chips on it) lies inside the image."""
    out = []
    for seat in range(1, layout.seats + 1):
        ok = True
        for z in layout.seat_zones(seat):
            pts = _zone_image_polygon(layout, camera, z.name, heights=(0.0, 60.0))
            if not (np.isfinite(pts).all() and (pts[:, 0] >= margin_px).all() and (pts[:, 1] >= margin_px).all()
                    and (pts[:, 0] <= camera.width - margin_px).all()
                    and (pts[:, 1] <= camera.height - margin_px).all()):
                ok = False
                break
        if ok:
            out.append(seat)
    return out


def sample_camera(rng: random.Random, layout: Layout, width: int, height: int,
                  tilt_deg: float | None = None) -> tuple[PinholeCamera, list[int], float]:
    """A camera over the betting and card areas: about 1.3 m wide at the aim point.

    Returns the camera, the seats fully in view (at least two where the layout
    allows) and the tilt.  The dealer's card zone is always in view.
    """
    best = None
    for attempt in range(400):
        tilt = tilt_deg if tilt_deg is not None else rng.uniform(*TILT_RANGE)
        yaw = rng.uniform(-8.0, 8.0)
        roll = rng.uniform(-2.0, 2.0)
        # wider views only when the narrow ones keep failing (steep tilts see less of the table)
        cover = rng.uniform(1300.0, 1450.0) + (attempt // 100) * 120.0
        target = (float(layout.table_center[0]) + rng.uniform(-170.0, 170.0), rng.uniform(470.0, 620.0))
        cam = PinholeCamera.looking_at(target, tilt, yaw, width, height, cover, rng.uniform(1700.0, 2300.0), roll)
        d = _zone_image_polygon(layout, cam, "dealer.cards", heights=(0.0,))
        if not (np.isfinite(d).all() and (d[:, 1] >= 4).all() and (d[:, 0] >= 4).all()
                and (d[:, 0] <= width - 4).all()):
            continue
        seats = seats_in_view(layout, cam)
        if len(seats) >= 2:
            return cam, seats, tilt
        if seats and best is None:
            best = (cam, seats, tilt)
    if best is not None:
        return best
    raise RoundOptionsError(f"no camera pose at tilt {tilt_deg} sees the dealer's cards and a whole seat; "
                            "try a tilt between 15 and 35 degrees")


# -- the shoe -----------------------------------------------------------------------------------

class DealingShoe:
    """A shuffled shoe with a cut card three quarters of the way in (13:69F-2.5).

    Attributes:
        composition: what the shoe holds (Spanish decks have no 10s).
        cards: the shuffled cards; ``pos``: the next card to leave the shoe.
    """

    def __init__(self, composition: ShoeComposition, seed: int):
        self.composition = composition
        self.cards: list[Card] = composition.shuffled(seed)
        self.pos = 0
        self.cut = int(len(self.cards) * 0.75)

    @property
    def past_cut_card(self) -> bool:
        return self.pos >= self.cut

    def peek(self, n: int) -> list[Card]:
        return self.cards[self.pos:self.pos + n]

    def take(self, n: int) -> list[Card]:
        out = self.peek(n)
        if len(out) < n:
            raise RuntimeError("the shoe ran out of cards")
        self.pos += n
        return out

    def draw(self) -> Card:
        return self.take(1)[0]

    def swap_in(self, offset: int, wanted: Callable[[Card], bool], keep_clear: int = 40) -> Card:
        """Put a card satisfying ``wanted`` at ``pos + offset``, taken from deep in the shoe.

        The shoe stays a permutation of its composition, so no card appears more
        often than the shoe holds it.
        """
        here = self.pos + offset
        if wanted(self.cards[here]):
            return self.cards[here]
        for j in range(len(self.cards) - 1, self.pos + offset + keep_clear, -1):
            if wanted(self.cards[j]):
                self.cards[here], self.cards[j] = self.cards[j], self.cards[here]
                return self.cards[here]
        raise RuntimeError("no such card left in the shoe")


# -- one round, planned ----------------------------------------------------------------------

@dataclass
class SeatPlan:
    """One seat in one round.

    Attributes:
        seat: seat number.
        wagers: dollars by kind as they stand at the round's first card.
        dealt: every card of the initial deal, in the order the seat received them.
        first_two: the pair played (Switch Hands: the pair kept), in dealing order.
        switched: Switch Hands: the other pair, in dealing order.
        kept: Switch Hands: ``up`` or ``down``, the pair kept.
        hits: later cards, in order.
    """

    seat: int
    wagers: dict[str, int]
    dealt: list[Card] = field(default_factory=list)
    first_two: tuple[Card, ...] = ()
    switched: tuple[Card, ...] | None = None
    kept: str | None = None
    hits: list[Card] = field(default_factory=list)


@dataclass
class RoundPlan:
    """One round before it is timed: wagers, cards, decisions, settlement, fault."""

    index: int
    game: str
    order: str
    seats: list[SeatPlan]
    deal: list[tuple[DealEvent, Card]]
    burn_expected: bool
    dealer_cards: list[Card]
    settlement: RoundSettlement
    fault: Fault | None
    paid: dict[tuple[int, str], Fraction]
    """(seat, ``mtd``/``bonus``) -> the payout the dealer makes."""

    def seat(self, number: int) -> SeatPlan:
        return next(s for s in self.seats if s.seat == number)

    @property
    def up_card(self) -> Card:
        return self.dealer_cards[0]


def _wants_hit(cards: list[Card], up: Card) -> bool:
    """A plain player: hit to 12; 12-16 against a 7 or better; else stand."""
    total = hand_total(cards)
    if total.total >= 17 or (total.soft and total.total >= 18):
        return False
    if total.total <= 11:
        return True
    up_points = 11 if up.is_ace else up.points
    return up_points >= 7


def _pair_value(pair: tuple[Card, Card]) -> float:
    """How a Switch Hands player ranks a pair: blackjack, then 20-18 and 11-9 ahead of 12-16."""
    if is_blackjack(pair):
        return 100.0
    total = hand_total(list(pair)).total
    if total >= 17:
        return float(total)
    if total >= 9:
        return 16.5 + total / 100
    return total - 10.0


# -- the video script --------------------------------------------------------------------------

@dataclass
class VideoScript:
    """A whole scripted video: its table, camera, timeline and each round's truth."""

    options: RoundVideoOptions
    game: str
    decks: int
    layout: Layout
    profile: TableProfile
    profile_data: dict
    chips: dict[str, int]
    camera: PinholeCamera
    tilt_deg: float
    table_id: str
    timeline: Timeline
    rounds: list[RoundPlan]
    round_truth: list[dict]
    frames: int

    @property
    def fps(self) -> float:
        return self.options.fps

    def truth(self) -> dict:
        """``truth.json``: the contracts' ``report.json`` form for this video."""
        return {"video": VIDEO_FILE, "fps": float(self.fps), "frames": self.frames, "table": self.table_id,
                "rounds": self.round_truth}

    def calibration(self) -> dict:
        """The true camera as the contracts' ``calibration.json`` (plus ``camera``)."""
        H = self.camera.homography()
        return {"layout": self.layout.id, "image_size": [self.camera.width, self.camera.height],
                "homography": [[float(f"{v:.10g}") for v in row] for row in H.tolist()],
                "reprojection_error_mm": 0, "method": "synthetic",
                "camera": _rounded(self.camera.to_json())}

    def table_file(self, layout_path: str = "layout.yaml", calibration_path: str = "calibration.json") -> dict:
        """The table file the video was rendered with (paths relative to it)."""
        return {"id": self.table_id, "layout": layout_path, "calibration": calibration_path,
                "profile": self.profile_data, "chips": dict(self.chips)}


@functools.lru_cache(maxsize=8)
def _shipped_layout(layout_id: str) -> Layout:
    """A shipped layout, parsed once per process (layouts are frozen; parsing the YAML takes ~0.2 s)."""
    return builtin_layout(layout_id)


def _rounded(obj):
    if isinstance(obj, float):
        return float(f"{obj:.10g}")
    if isinstance(obj, list):
        return [_rounded(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _rounded(v) for k, v in obj.items()}
    return obj


def _rng(seed: int, part: str) -> random.Random:
    # str seeds hash with SHA-512 in CPython: stable across runs and platforms
    return random.Random(f"pitwatch.synth.round:{seed}:{part}")


def choose_table(options: RoundVideoOptions) -> tuple[str, int]:
    """The game and deck count: the options', else the seed's (among games that can show the faults asked for).

    Raises:
        RoundOptionsError: unknown game, a deck count the rules forbid for it, or faults the game cannot have.
    """
    rng = _rng(options.seed, "table")
    if options.game is not None and options.game not in GAMES:
        raise RoundOptionsError(f"--game: unknown game {options.game!r}; expected one of {', '.join(GAMES)}")
    games = [options.game] if options.game else list(GAMES)
    if options.faults:
        able = [g for g in games if kinds_for_table(options.faults, GAME_SIDE_BETS[g])]
        if not able:
            raise FaultKindError(f"--faults {','.join(options.faults)}: a {games[0]} table offers no wager "
                                 "these faults need (match-the-dealer or blackjack bonus)")
        games = able
    game = rng.choice(games)
    decks = options.decks if options.decks is not None else rng.choice([6, 8])
    if not isinstance(decks, int) or not 1 <= decks <= 8:
        raise RoundOptionsError(f"--decks: expected a whole number of decks from 1 to 8, got {decks!r}")
    probe = TableProfile(game=game, decks=decks, side_bets=list(GAME_SIDE_BETS[game]))
    problems = probe.config_violations()
    if problems:
        v = problems[0]
        raise RoundOptionsError(f"--decks {decks} with --game {game}: {v.message} ({v.rule})")
    return game, decks


def _profile_data(rng: random.Random, game: str, decks: int) -> dict:
    """A posted profile the rules allow: regulation or better odds, a legal bonus paytable, limits."""
    data: dict = {"game": game, "decks": decks, "side_bets": list(GAME_SIDE_BETS[game])}
    if "mtd" in GAME_SIDE_BETS[game]:
        u, s, _ = MTD_MINIMUM_ODDS[(game, decks)]
        bump = 1 if rng.random() < 0.3 else 0
        data["mtd_odds"] = {"unsuited": u + bump, "suited": s + bump}
        data["mtd_min"] = 5 if game == "blackjack" else 1
        data["mtd_max"] = rng.choice([25, 50, 100])
    if "bonus" in GAME_SIDE_BETS[game]:
        one, five = rng.choice([(15, 75), (18, 90), (20, 100), (15, 100)])
        data["bonus_payout"] = {"1": one, "5": five}
        data["bonus_payout_includes_wager"] = False
    data["main_min"] = 10
    data["main_max"] = rng.choice([500, 1000])
    data["deal_order"] = "switch_hands" if game == "switch_hands" else "standard"
    return data


def script_video(options: RoundVideoOptions) -> VideoScript:
    """Plan and time every round of a video from its options.

    Raises:
        RoundOptionsError, FaultKindError: for options that cannot make a video.
    """
    if not isinstance(options.seed, int) or isinstance(options.seed, bool):
        raise RoundOptionsError(f"--seed: expected a whole number, got {options.seed!r}")
    if not (0 < options.fps <= 120):
        raise RoundOptionsError(f"--fps: expected a frame rate above 0 and at most 120, got {options.fps}")
    if options.rounds is not None and not 1 <= options.rounds <= 200:
        raise RoundOptionsError(f"--rounds: expected 1 to 200 rounds, got {options.rounds}")
    if options.tilt_deg is not None and not 0 <= options.tilt_deg <= 60:
        raise RoundOptionsError(f"--tilt: expected 0 to 60 degrees from straight down, got {options.tilt_deg}")
    if options.width < 64 or options.height < 64 or options.width % 2 or options.height % 2:
        raise RoundOptionsError(f"--size: expected even width and height of at least 64 px, "
                                f"got {options.width}x{options.height}")
    if options.faults:
        unknown = [k for k in options.faults if k not in FAULT_KINDS]
        if unknown:
            raise FaultKindError(f"--faults: unknown fault kind {unknown[0]!r}")

    game, decks = choose_table(options)
    layout = _shipped_layout(GAME_LAYOUT[game])
    profile_data = _profile_data(_rng(options.seed, "profile"), game, decks)
    profile = load_profile(profile_data, "synthetic profile")
    camera, visible, tilt = sample_camera(_rng(options.seed, "camera"), layout, options.width, options.height,
                                          options.tilt_deg)
    rng = _rng(options.seed, "rounds")
    n_rounds = options.rounds if options.rounds is not None else rng.choice([2, 2, 3])
    kinds = kinds_for_table(options.faults, GAME_SIDE_BETS[game]) if options.faults != () else ()
    plan_faults = choose_fault_rounds(_rng(options.seed, "faults"), n_rounds, kinds)
    occupied = sorted(rng.sample(visible, rng.randint(min(2, len(visible)), len(visible))))

    planner = _RoundPlanner(rng, game, decks, profile, profile_data, DEFAULT_CHIPS, options.seed)
    plans = [planner.plan(i, occupied, plan_faults[i]) for i in range(n_rounds)]

    timeline = Timeline()
    geo = TableGeometry(layout)
    choreo = _Choreographer(timeline, geo, sorted(DEFAULT_CHIPS.values()), _rng(options.seed, "motion"))
    t = LEAD_IN_S
    timings = []
    for plan in plans:
        timing = choreo.play(plan, t)
        timings.append(timing)
        t = timing.end + ROUND_GAP_S
    choreo.build_hands()
    duration = max(timeline.duration, t - ROUND_GAP_S) + TAIL_S
    frames = int(math.ceil(duration * options.fps))

    clock = _Clock(timeline, layout, camera, options.fps, frames)
    round_truth = [_round_truth(plan, timing, clock, profile) for plan, timing in zip(plans, timings)]
    return VideoScript(options=options, game=game, decks=decks, layout=layout, profile=profile,
                       profile_data=profile_data, chips=dict(DEFAULT_CHIPS), camera=camera, tilt_deg=tilt,
                       table_id=f"synth-{options.seed}", timeline=timeline, rounds=plans, round_truth=round_truth,
                       frames=frames)


class _RoundPlanner:
    """Wagers, cards (from one shoe across rounds), decisions and settlement of each round."""

    def __init__(self, rng: random.Random, game: str, decks: int, profile: TableProfile, profile_data: dict,
                 chips: dict[str, int], seed: int):
        self.rng = rng
        self.game = game
        self.profile = profile
        self.data = profile_data
        self.denominations = sorted(chips.values())
        self.composition = ShoeComposition(decks, spanish=profile.spanish_decks)
        self.shoe_seed = _rng(seed, "shoe")
        self.shoe = DealingShoe(self.composition, self.shoe_seed.getrandbits(32))
        self.new_shoe = True  # the first round deals from a freshly placed shoe
        self.order = profile.effective_deal_order

    def _wagers(self, occupied: list[int]) -> dict[int, dict[str, int]]:
        rng = self.rng
        seats = [s for s in occupied if rng.random() < 0.85] or [rng.choice(occupied)]
        out: dict[int, dict[str, int]] = {}
        main_max = self.data["main_max"]
        for s in seats:
            w = {"main": min(main_max, rng.choice([10, 20, 20, 30, 40, 50, 50, 60, 100, 150, 200]))}
            if "mtd" in GAME_SIDE_BETS[self.game] and rng.random() < 0.55:
                cap = self.data["mtd_max"] if self.game == "blackjack" else min(self.data["mtd_max"], w["main"])
                options = [a for a in ((5, 10, 15, 25) if self.game == "blackjack" else (1, 5, 10, 25))
                           if self.data["mtd_min"] <= a <= cap]
                if options:
                    w["mtd"] = rng.choice(options)
            if "bonus" in GAME_SIDE_BETS[self.game] and rng.random() < 0.4:
                w["bonus"] = rng.choice([1, 1, 5])
            out[s] = w
        return out

    def plan(self, index: int, occupied: list[int], fault_kind: str | None) -> RoundPlan:
        rng = self.rng
        if self.shoe.past_cut_card:
            self.shoe = DealingShoe(self.composition, self.shoe_seed.getrandbits(32))
            self.new_shoe = True
        burn = self.new_shoe and self.profile.expects_burn_card
        self.new_shoe = False

        wagers = self._wagers(occupied)
        fault = None
        if fault_kind is not None:
            limits = {k: self.data.get(k) for k in ("main_max", "mtd_min", "mtd_max")}
            fault, wagers = prepare_fault(fault_kind, rng, wagers, self.game, limits, self.order, burn)
        seats = sorted(wagers)
        events = expected_deal_order(self.order, seats, burn)
        if fault is not None and fault.kind == "dealing_order":
            events = break_deal_order(events, fault.variant, rng)

        self._rig(events, fault, seats)
        cards = self.shoe.take(len(events))
        deal = list(zip(events, cards))
        plans = {s: SeatPlan(s, wagers[s]) for s in seats}
        dealer: list[Card] = []
        for ev, card in deal:
            if ev.recipient == "dealer":
                dealer.append(card)
            elif ev.recipient != "burn":
                plans[ev.recipient].dealt.append(card)
        up = dealer[0]

        for sp in plans.values():
            if self.order == "switch_hands":
                down, upp = tuple(sp.dealt[:2]), tuple(sp.dealt[2:4])
                if _pair_value(down) > _pair_value(upp):
                    sp.first_two, sp.switched, sp.kept = down, upp, "down"
                else:
                    sp.first_two, sp.switched, sp.kept = upp, down, "up"
            else:
                sp.first_two = tuple(sp.dealt[:2])

        dealer_bj = is_blackjack(dealer[:2])
        if not dealer_bj:
            forced = fault is not None and any(n[0] == "hit" for n in fault.needs)
            forced_seat = None
            if forced:
                forced_seat = next(s for s in seats if hand_total(list(plans[s].first_two)).total <= 16
                                   and not is_blackjack(plans[s].first_two))
            for s in seats:
                sp = plans[s]
                if is_blackjack(sp.first_two):
                    continue
                hand = list(sp.first_two)
                while hand_total(hand).total < 21 and (_wants_hit(hand, up) or (s == forced_seat and not sp.hits)):
                    card = self.shoe.draw()
                    sp.hits.append(card)
                    hand.append(card)
            live = [s for s in seats if not hand_total(list(plans[s].first_two) + plans[s].hits).bust
                    and not is_blackjack(plans[s].first_two)]
            if live:
                while hand_total(dealer).total < 17:
                    dealer.append(self.shoe.draw())

        hands = [SeatHand(s, plans[s].first_two, wagers[s], tuple(plans[s].hits)) for s in seats]
        settlement = settle_round(self.profile, up, hands, dealer_cards=dealer)
        paid: dict[tuple[int, str], Fraction] = {}
        for st in settlement.seats:
            for kind in ("mtd", "bonus"):
                res = st.result(kind)
                if res.outcome == "win":
                    paid[(st.seat, kind)] = res.payout
                elif res.outcome in ("lose", "void"):
                    paid[(st.seat, kind)] = Fraction(0)
        if fault is not None and fault.kind.endswith(("underpaid", "overpaid")):
            res = settlement.seat(fault.seat).result(fault.wager)
            odds = self.profile.effective_mtd_odds()
            suited = sum(1 for m in res.matches if m.suited)
            amount = wrong_payout(fault, res.payout, Fraction(wagers[fault.seat][fault.wager]), self.denominations,
                                  rng, odds.suited if odds else None, odds.unsuited if odds else None, suited)
            fault = Fault(fault.kind, fault.seat, fault.wager, amount, fault.limit, fault.variant, fault.needs)
            paid[(fault.seat, fault.wager)] = amount
        return RoundPlan(index=index, game=self.game, order=self.order, seats=[plans[s] for s in seats], deal=deal, burn_expected=burn,
                         dealer_cards=dealer, settlement=settlement, fault=fault, paid=paid)

    def _rig(self, events: list[DealEvent], fault: Fault | None, seats: list[int]) -> None:
        """Arrange the next cards of the shoe so that the fault's conditions hold (swapping cards in)."""
        if fault is None or not fault.needs:
            return
        shoe = self.shoe
        idx: dict[object, list[int]] = {}
        for i, ev in enumerate(events):
            idx.setdefault(ev.recipient, []).append(i)
        up_i = idx["dealer"][0]
        up = shoe.peek(len(events))[up_i]
        ten = {"10", "J", "Q", "K"}
        for need, seat in fault.needs:
            cards = shoe.peek(len(events))
            if need == "mtd_win":
                a, b = idx[seat][:2]
                if not any(cards[i].rank == up.rank for i in (a, b)):
                    shoe.swap_in(b, lambda c: c.rank == up.rank)
            elif need == "mtd_lose":
                for i in idx[seat][:2]:
                    if cards[i].rank == up.rank:
                        shoe.swap_in(i, lambda c: c.rank != up.rank)
            elif need == "bonus_win":
                a, b = idx[seat][:2]
                if not is_blackjack((cards[a], cards[b])):
                    shoe.swap_in(a, lambda c: c.rank == "A")
                    shoe.swap_in(b, lambda c: c.rank in ten)
            elif need == "bonus_lose":
                a, b = idx[seat][:2]
                if is_blackjack((cards[a], cards[b])):
                    shoe.swap_in(b, lambda c: c.rank not in ten and c.rank != "A")
            elif need == "hit":
                hole = idx["dealer"][1]
                if is_blackjack((cards[up_i], cards[hole])):
                    shoe.swap_in(hole, lambda c: c.rank not in ten and c.rank != "A")
                cards = shoe.peek(len(events))
                if not any(hand_total([cards[i] for i in idx[s][:2]]).total <= 16 for s in seats):
                    shoe.swap_in(idx[seats[0]][1], lambda c: c.rank in ("2", "3", "4", "5"))


# -- timing the rounds ---------------------------------------------------------------------------

@dataclass
class _HandJob:
    t0: float
    t1: float
    path: list[tuple[float, tuple[float, float]]]


@dataclass
class RoundTiming:
    """When things happened in one round (seconds) and where (zone names), for the truth."""

    start: float = 0.0
    end: float = 0.0
    first_card: tuple[float, str] | None = None
    deal_arrivals: list[tuple[float, str]] = field(default_factory=list)
    pickup_done: float = 0.0
    settled: dict[tuple[int, str], tuple[float, str]] = field(default_factory=dict)
    changed: dict[tuple[int, str], tuple[float, str]] = field(default_factory=dict)
    first_extra_card: float | None = None
    placed: list[float] = field(default_factory=list)
    tracks: list[Track] = field(default_factory=list)


class _Choreographer:
    """Turns planned rounds into tracks on the timeline, one dealer action after another."""

    def __init__(self, timeline: Timeline, geo: TableGeometry, denominations: list[int], rng: random.Random):
        self.tl = timeline
        self.geo = geo
        self.den = denominations
        self.rng = rng
        self.jobs: dict[str, list[_HandJob]] = {}
        self.shoulder: dict[str, tuple[float, float]] = {}
        self.skin: dict[str, tuple[int, int, int]] = {}
        skins = [(224, 182, 150), (198, 150, 118), (160, 112, 80), (120, 80, 56), (236, 200, 172)]
        self.dealer_skin = rng.choice(skins)
        self._skins = skins

    # -- hands ---------------------------------------------------------------------------------

    def _job(self, hand: str, path: list[tuple[float, tuple[float, float]]]) -> None:
        self.jobs.setdefault(hand, []).append(_HandJob(path[0][0], path[-1][0], path))

    def _palm(self, obj: tuple[float, float], hand: str, reach: float = 42.0) -> tuple[float, float]:
        s = np.array(self.shoulder[hand])
        o = np.array(obj, float)
        d = s - o
        p = o + reach * d / (np.linalg.norm(d) or 1.0)
        return (float(p[0]), float(p[1]))

    def _dealer_hand(self, x: float) -> str:
        name = f"dealer.{self.geo.hand_side(x)}"
        self.shoulder.setdefault(name, self.geo.shoulders[self.geo.hand_side(x)])
        self.skin.setdefault(name, self.dealer_skin)
        return name

    def _player_hand(self, seat: int) -> str:
        name = f"player{seat}"
        if name not in self.shoulder:
            self.shoulder[name] = self.geo.player_shoulder(seat)
            self.skin[name] = self.rng.choice(self._skins)
        return name

    def build_hands(self, merge_gap: float = 0.7, approach: float = 0.2) -> None:
        """Turn each hand's jobs into visits: reach in from the shoulder, work, withdraw, vanish."""
        for hand in sorted(self.jobs):
            jobs = sorted(self.jobs[hand], key=lambda j: j.t0)
            visits: list[list[_HandJob]] = []
            for job in jobs:
                if visits and job.t0 - visits[-1][-1].t1 < merge_gap:
                    visits[-1].append(job)
                else:
                    visits.append([job])
            shoulder = np.array(self.shoulder[hand])
            for n, visit in enumerate(visits):
                first = np.array(visit[0].path[0][1])
                d = shoulder - first
                entry = first + min(260.0, float(np.linalg.norm(d))) * d / (np.linalg.norm(d) or 1.0)
                track = self.tl.hand(f"{hand}#{n}", visit[0].t0 - approach, (float(entry[0]), float(entry[1])),
                                     self.shoulder[hand], self.skin[hand])
                for job in visit:
                    for t, palm in job.path:
                        if t - track.last.t > 1e-6:
                            track.move(track.last.t, t, palm)
                        else:
                            track.set(max(t, track.last.t), center=palm)
                last = np.array(track.last.center)
                d = shoulder - last
                exit_ = last + min(260.0, float(np.linalg.norm(d))) * d / (np.linalg.norm(d) or 1.0)
                track.move(track.last.t, track.last.t + approach, (float(exit_[0]), float(exit_[1])))
                track.vanish(track.last.t + 1e-6)

    # -- dealer actions ------------------------------------------------------------------------

    def deal(self, card: Card, slot: Slot | None, face_up: bool, t: float, timing: RoundTiming) -> tuple[Track, float]:
        """A card from the shoe to ``slot`` (``None``: the burn card to the discard rack); returns (track, arrival)."""
        hand = "dealer.right"  # 2B.6(b): cards are placed with the right hand
        self.shoulder.setdefault(hand, self.geo.shoulders["right"])
        self.skin.setdefault(hand, self.dealer_skin)
        dest = slot.center if slot else self.geo.discard
        angle = slot.angle_deg if slot else 0.0
        tr = self.tl.card(str(card), t, self.geo.shoe_mouth, face_up=False, angle_deg=angle,
                          layer=slot.layer if slot else 0)
        t1 = t + SLIDE_S
        if slot is None:
            # the burn card lies on the discard rack, face down, where the camera can see it go in
            tr.move(t, t1, dest, angle, zone="discard").vanish(t1 + BURN_REST_S)
        else:
            tr.move(t, t1, dest, angle, zone=slot.zone, during_face_up=face_up)
        self._job(hand, [(t, self._palm(self.geo.shoe_mouth, hand)), (t1, self._palm(dest, hand))])
        timing.tracks.append(tr)
        return tr, t1

    def move_cards(self, tracks: list[Track], slots: list[Slot] | None, t: float, vanish: bool = False,
                   flip: bool | None = None) -> float:
        """Slide cards together to ``slots`` (``None``: the discard rack); returns the arrival."""
        t1 = t + MOVE_CARDS_S
        dests = [s.center for s in slots] if slots else [self.geo.discard] * len(tracks)
        for i, tr in enumerate(tracks):
            kw = {}
            if slots:
                kw = {"zone": slots[i].zone, "layer": slots[i].layer}
            if flip is not None:
                kw["during_face_up"] = flip
            tr.move(t, t1, dests[i], slots[i].angle_deg if slots else tr.last.angle_deg, **kw)
            if vanish:
                tr.vanish(t1)
        src = tracks[0].at_key(t).center
        hand = self._dealer_hand(src[0])
        self._job(hand, [(t, self._palm(src, hand)), (t1, self._palm(dests[0], hand))])
        return t1

    def flip(self, tr: Track, t: float, slot: Slot | None = None) -> float:
        """Turn a card face up in place (or while sliding it to ``slot``)."""
        t1 = t + FLIP_S
        pos = tr.at_key(t).center
        hand = self._dealer_hand(pos[0])
        if slot is not None:
            tr.move(t, t1, slot.center, slot.angle_deg, zone=slot.zone, face_up=True, layer=slot.layer)
            self._job(hand, [(t, self._palm(pos, hand)), (t1, self._palm(slot.center, hand))])
        else:
            tr.set(t + FLIP_S / 2, face_up=True)
            self._job(hand, [(t, self._palm(pos, hand)), (t1, self._palm(pos, hand))])
        return t1

    def collect(self, stack: Track, t: float) -> float:
        """A losing stack to the chip tray; returns when it is gone."""
        pos = stack.at_key(t).center
        hand = self._dealer_hand(pos[0])
        t1 = t + COLLECT_S
        stack.move(t, t1, self.geo.tray).vanish(t1)
        self._job(hand, [(t, self._palm(pos, hand, 25)), (t1, self._palm(self.geo.tray, hand, 25))])
        return t1

    def pay(self, seat: int, wager: str, amount: Fraction, t: float, timing: RoundTiming) -> tuple[Track, float]:
        """A payout stack from the tray to the seat's payout zone; returns (track, arrival)."""
        dest = self.geo.payout_place(seat, wager)
        hand = self._dealer_hand(dest[0])
        t1 = t + PAY_S
        stack = self.tl.chips(f"pay{seat}.{wager}", t, self.geo.tray, chip_layers(amount, self.den, self.rng))
        stack.move(t, t1, dest, zone=f"seat{seat}.payout")
        self._job(hand, [(t, self._palm(self.geo.tray, hand, 25)), (t1, self._palm(dest, hand, 25))])
        timing.tracks.append(stack)
        return stack, t1

    # -- player actions ------------------------------------------------------------------------

    def place(self, seat: int, kind: str, layers: tuple[ChipLayer, ...], t: float, timing: RoundTiming) -> Track:
        spot = self.geo.spot(seat, kind)
        edge = self.geo.player_edge(seat, kind)
        hand = self._player_hand(seat)
        stack = self.tl.chips(f"bet{seat}.{kind}", t, edge, layers)
        stack.move(t, t + PLACE_S, spot, zone=f"seat{seat}.{kind}")
        timing.placed.append(t + PLACE_S)
        self._job(hand, [(t, self._palm(edge, hand, 25)), (t + PLACE_S, self._palm(spot, hand, 25))])
        timing.tracks.append(stack)
        return stack

    def touch_stack(self, seat: int, stack: Track, layers: tuple[ChipLayer, ...], t: float) -> float:
        """A player reaches to a wager and leaves it as ``layers`` (past-posting or pinching); returns the hand's exit."""
        hand = self._player_hand(seat)
        pos = stack.at_key(t).center
        palm = self._palm(pos, hand, 25)
        edge = self._palm(self.geo.player_edge(seat), hand, 25)
        stack.set(t + 0.45, layers=layers)
        self._job(hand, [(t, edge), (t + 0.3, palm), (t + 0.6, palm), (t + 0.9, edge)])
        return t + 0.9

    def take(self, seat: int, stacks: list[Track], t: float) -> float:
        """A player takes stacks back off the table, one after another; returns when the last is gone."""
        hand = self._player_hand(seat)
        edge = self.geo.player_edge(seat)
        path = []
        for st in stacks:
            pos = st.at_key(t).center
            st.move(t, t + TAKE_S, edge).vanish(t + TAKE_S)
            path += [(t, self._palm(pos, hand, 25)), (t + TAKE_S, self._palm(edge, hand, 25))]
            t += TAKE_S + 0.05
        if path:
            self._job(hand, path)
        return t

    # -- one round -----------------------------------------------------------------------------

    def play(self, plan: RoundPlan, t0: float) -> RoundTiming:
        """Lay one round on the timeline from ``t0``; returns its timing."""
        geo, rng, timing = self.geo, self.rng, RoundTiming()
        fault = plan.fault
        kind = fault.kind if fault else None
        game_switch = plan.order == "switch_hands"
        seats = [sp.seat for sp in plan.seats]
        timing.start = t0

        # 1. wagers, placed by the players (several at once)
        stacks: dict[tuple[int, str], Track] = {}
        t = t0
        last = t0
        for i, sp in enumerate(plan.seats):
            ts = t0 + BET_STAGGER_S * i
            for kind_w in ("main", "mtd", "bonus"):
                if kind_w in sp.wagers:
                    amount = sp.wagers[kind_w]
                    layers = self._wager_layers(plan, sp.seat, kind_w, amount)
                    stacks[(sp.seat, kind_w)] = self.place(sp.seat, kind_w, layers, ts, timing)
                    last = max(last, ts + PLACE_S)
                    ts += PLACE_S + 0.05
        t = last + NO_MORE_BETS_S

        # 2. the deal
        layer = 1
        card_tracks: dict[object, list[Track]] = {s: [] for s in seats}
        card_tracks["dealer"] = []
        counts: dict[object, int] = {s: 0 for s in seats}
        counts["dealer"] = 0
        settle_after = self._side_bet_point(plan, plan.game == "spanish21")
        player_touch_end = t
        hole_landed = t
        for i, (ev, card) in enumerate(plan.deal):
            if ev.recipient == "burn":
                _, t1 = self.deal(card, None, False, t, timing)
            elif ev.recipient == "dealer":
                slot = geo.dealer_card(counts["dealer"], layer if counts["dealer"] == 0 else 0, opened=False)
                tr, t1 = self.deal(card, slot, ev.face_up, t, timing)
                card_tracks["dealer"].append(tr)
                counts["dealer"] += 1
                if counts["dealer"] == 2:
                    hole_landed = t1
            else:
                s = ev.recipient
                k = counts[s]
                if game_switch:
                    slot = geo.switch_card(s, "down" if k < 2 else "up", k % 2, layer)
                else:
                    slot = geo.seat_card(s, k, layer)
                tr, t1 = self.deal(card, slot, ev.face_up, t, timing)
                card_tracks[s].append(tr)
                counts[s] += 1
                # a cheating player acts once the dealer has moved on from the seat
                if fault and kind in ("past_posting", "pinching") and s == fault.seat \
                        and counts[s] == len(plan.seat(s).dealt):
                    player_touch_end = self._touch(plan, stacks, t1 + 0.15, timing)
            layer += 1
            timing.deal_arrivals.append((t1, self._zone_of(ev.recipient)))
            if timing.first_card is None and ev.recipient != "burn":
                timing.first_card = (t1, self._zone_of(ev.recipient))
            t = t1 + CARD_GAP_S
            if i == settle_after:
                t = max(t, player_touch_end + CHANGED_STACK_SHOWN_S)
                t = self._settle_side_bets(plan, stacks, card_tracks, t, timing, late=False)

        # 3. Switch Hands: each player keeps a pair (2B.6(f)), from the dealer's left
        if game_switch:
            for sp in plan.seats:
                trs = card_tracks[sp.seat]
                down, upp = trs[:2], trs[2:4]
                if sp.kept == "down":
                    t = self.move_cards(upp, None, t, vanish=True) + 0.1
                    t = self.flip(down[0], t) + 0.05
                    t = self.flip(down[1], t, geo.switch_turned(sp.seat, down[1].at_key(t).layer)) + 0.05
                    card_tracks[sp.seat] = down
                else:
                    t = self.move_cards(down, None, t, vanish=True) + 0.1
                    card_tracks[sp.seat] = upp
                t += DECIDE_S
        t = max(t, player_touch_end + CHANGED_STACK_SHOWN_S)

        # 4. hits (the late match-the-dealer settlement comes after the first of them)
        late_pending = kind == "mtd_settled_late"
        dealer_bj = is_blackjack(plan.dealer_cards[:2])
        hole_opened = False
        if dealer_bj:
            t = self.flip(card_tracks["dealer"][1], max(t, hole_landed + HOLE_REST_S),
                          geo.dealer_card(1, layer, opened=True)) + 0.2
            hole_opened = True
        for sp in plan.seats:
            for card in sp.hits:
                t += DECIDE_S
                k = len(card_tracks[sp.seat])
                slot = (geo.seat_card(sp.seat, k, layer) if not game_switch else
                        self._switch_hit_slot(sp.seat, card_tracks[sp.seat], layer))
                tr, t1 = self.deal(card, slot, True, t, timing)
                layer += 1
                card_tracks[sp.seat].append(tr)
                if timing.first_extra_card is None:
                    timing.first_extra_card = t1
                t = t1 + CARD_GAP_S
                if late_pending:
                    late_pending = False
                    t = self._settle_side_bets(plan, stacks, card_tracks, t + 0.2, timing, late=True)

        # 5. the dealer's play
        if not hole_opened:
            t = self.flip(card_tracks["dealer"][1], max(t + 0.2, hole_landed + HOLE_REST_S),
                          geo.dealer_card(1, layer, opened=True)) + 0.15
        layer += 1
        for card in plan.dealer_cards[2:]:
            slot = geo.dealer_card(len(card_tracks["dealer"]), layer)
            tr, t1 = self.deal(card, slot, True, t, timing)
            layer += 1
            card_tracks["dealer"].append(tr)
            if timing.first_extra_card is None:
                timing.first_extra_card = t1
            t = t1 + CARD_GAP_S
        t += 0.3

        # 6. main wagers settled from the dealer's right (2B.6(k))
        for sp in sorted(plan.seats, key=lambda s: -s.seat):
            res = plan.settlement.seat(sp.seat).main
            stack = stacks[(sp.seat, "main")]
            if res.outcome == "lose":
                t = self.collect(stack, t) + 0.1
                stacks.pop((sp.seat, "main"))
            elif res.outcome == "win" and res.payout:
                # the dealer pays what the stack shows now (after any past-posting or pinching)
                now = Fraction(stack_value(stack.last.layers))
                amount = res.payout * now / Fraction(sp.wagers["main"])
                _, t1 = self.pay(sp.seat, "main", amount, t, timing)
                t = t1 + 0.1

        # 7. bonus winners paid after the round, from the dealer's left (2.20(f))
        for sp in plan.seats:
            res = plan.settlement.seat(sp.seat).bonus
            if res.outcome == "win":
                amount = plan.paid[(sp.seat, "bonus")]
                _, t1 = self.pay(sp.seat, "bonus", amount, t + 0.2, timing)
                timing.settled[(sp.seat, "bonus")] = (t1, f"seat{sp.seat}.payout")
                # the dealer announces the amount (2.20(g)3) and lets go of the stack before the pick-up
                t = t1 + 0.9

        # 8. pick-up from the dealer's right, the dealer's cards last (2B.6(l))
        t += 0.3
        for sp in sorted(plan.seats, key=lambda s: -s.seat):
            trs = card_tracks[sp.seat]
            if trs:
                t = self.move_cards(trs, None, t, vanish=True) + 0.08
        t = self.move_cards(card_tracks["dealer"], None, t, vanish=True)
        timing.pickup_done = t

        # 9. players take back what is theirs (winnings, wagers not lost, uncollected chips)
        t += 0.3
        end = t
        for i, sp in enumerate(plan.seats):
            mine = [tr for tr in self.tl.tracks if tr.kind == "chips" and tr.end == math.inf
                    and tr.label.split(".")[0] in (f"bet{sp.seat}", f"pay{sp.seat}")]
            if mine:
                end = max(end, self.take(sp.seat, mine, t + 0.1 * i))
        timing.end = end
        return timing

    def _zone_of(self, recipient) -> str:
        if recipient == "dealer":
            return "dealer.cards"
        if recipient == "burn":
            return "discard"
        return f"seat{recipient}.cards"

    def _side_bet_point(self, plan: RoundPlan, spanish: bool) -> int:
        """Index of the deal step after which side bets are settled (-1: no side bets).

        Blackjack: once every player has two cards (2.23(e), 2.20(e)); Spanish 21: once
        the dealer has two as well (19.6(d)).
        """
        if not any(k in sp.wagers for sp in plan.seats for k in ("mtd", "bonus")):
            return -1
        need = {sp.seat: 2 for sp in plan.seats}
        have: dict[object, int] = {}
        for i, (ev, _) in enumerate(plan.deal):
            have[ev.recipient] = have.get(ev.recipient, 0) + 1
            if all(have.get(s, 0) >= n for s, n in need.items()) and (not spanish or have.get("dealer", 0) >= 2):
                return i
        return len(plan.deal) - 1

    def _wager_layers(self, plan: RoundPlan, seat: int, kind: str, amount: int) -> tuple[ChipLayer, ...]:
        """The stack a wager is placed as; for pinching, the chips to be taken sit on top."""
        f = plan.fault
        if f and f.kind == "pinching" and f.seat == seat and f.wager == kind:
            keep = chip_layers(f.amount, self.den)
            return _merge(keep, chip_layers(amount - int(f.amount), self.den))
        return chip_layers(amount, self.den, self.rng)

    def _touch(self, plan: RoundPlan, stacks: dict, t: float, timing: RoundTiming) -> float:
        f = plan.fault
        stack = stacks[(f.seat, f.wager)]
        before = stack.last.layers
        if f.kind == "pinching":
            layers = chip_layers(f.amount, self.den)
        else:
            layers = _merge(before, chip_layers(int(f.amount) - stack_value(before), self.den))
        end = self.touch_stack(f.seat, stack, layers, t)
        timing.changed[(f.seat, f.wager)] = (end, f"seat{f.seat}.{f.wager}")
        return end

    def _switch_hit_slot(self, seat: int, trs: list[Track], layer: int) -> Slot:
        last = trs[-1].last
        r, tng = self.geo.axes(seat)
        c = np.array(last.center) + 15 * tng + 19 * r
        return Slot((round(float(c[0]), 2), round(float(c[1]), 2)), last.angle_deg, f"seat{seat}.cards", layer)

    def _settle_side_bets(self, plan: RoundPlan, stacks: dict, card_tracks: dict, t: float, timing: RoundTiming,
                          late: bool) -> float:
        """Match-the-dealer losers collected then winners paid; bonus losers collected, winners' cards tucked.

        ``late``: only the match-the-dealer part, after a hit (the ``mtd_settled_late`` fault).
        """
        f = plan.fault
        kind = f.kind if f else None
        delay_mtd = kind == "mtd_settled_late" and not late
        up = plan.up_card
        order = sorted(plan.seats, key=lambda s: -s.seat)  # from the dealer's right
        if not delay_mtd:
            for sp in order:
                if "mtd" in sp.wagers and not any(c.rank == up.rank for c in sp.first_two):
                    if kind == "mtd_not_collected" and f.seat == sp.seat:
                        continue
                    t = self.collect(stacks.pop((sp.seat, "mtd")), t) + 0.1
                    timing.settled[(sp.seat, "mtd")] = (t - 0.1, f"seat{sp.seat}.mtd")
            for sp in order:
                if "mtd" in sp.wagers and any(c.rank == up.rank for c in sp.first_two):
                    _, t1 = self.pay(sp.seat, "mtd", plan.paid[(sp.seat, "mtd")], t, timing)
                    timing.settled[(sp.seat, "mtd")] = (t1, f"seat{sp.seat}.payout")
                    t = t1 + 0.15
        if late:
            return t
        for sp in order:
            if "bonus" in sp.wagers and not is_blackjack(sp.first_two):
                if kind == "bonus_not_collected" and f.seat == sp.seat:
                    continue
                t = self.collect(stacks.pop((sp.seat, "bonus")), t) + 0.1
        for sp in plan.seats:
            if "bonus" in sp.wagers and is_blackjack(sp.first_two):
                trs = card_tracks[sp.seat]
                slots = [self.geo.bonus_card(sp.seat, k) for k in range(2)]
                t = self.move_cards(trs[:2], slots, t) + 0.15
        return t


def _merge(a: tuple[ChipLayer, ...], b: tuple[ChipLayer, ...]) -> tuple[ChipLayer, ...]:
    """Stack ``b`` on top of ``a``, joining equal neighbouring layers."""
    out = list(a)
    for layer in b:
        if out and out[-1].denomination == layer.denomination:
            out[-1] = ChipLayer(layer.denomination, out[-1].count + layer.count)
        else:
            out.append(layer)
    return tuple(out)


# -- truth ---------------------------------------------------------------------------------------

class _Clock:
    """Frames of the video, and when the image shows a zone free of hands."""

    def __init__(self, timeline: Timeline, layout: Layout, camera: PinholeCamera, fps: float, frames: int):
        self.tl, self.layout, self.camera, self.fps, self.frames = timeline, layout, camera, fps, frames
        self._zones: dict[str, np.ndarray] = {}
        self._hands = [tr for tr in timeline.tracks if tr.kind == "hand"]

    def frame_at(self, t: float) -> int:
        """The first frame showing the table at or after ``t`` seconds."""
        return min(self.frames - 1, int(math.ceil(t * self.fps - 1e-6)))

    def _zone(self, name: str) -> np.ndarray:
        if name not in self._zones:
            self._zones[name] = _zone_image_polygon(self.layout, self.camera, name)
        return self._zones[name]

    def clear_frame(self, t: float, zone: str, limit_s: float = 10.0) -> int:
        """The first frame at or after ``t`` at which no hand covers ``zone`` in the image."""
        z = self._zone(zone)
        f = self.frame_at(t)
        last = min(self.frames - 1, f + int(limit_s * self.fps))
        while f < last:
            ft = f / self.fps
            covered = False
            for tr in self._hands:
                if not tr.alive(ft):
                    continue
                palm = tr.at_key(ft).center
                poly = np.array(hand_polygon(palm, tr.anchor), float)
                img = self.camera.project(np.column_stack([poly, np.full(len(poly), -60.0)]))
                if not np.isfinite(img).all():
                    continue
                hull = cv2.convexHull(img.astype(np.float32)).reshape(-1, 2)
                area, _ = cv2.intersectConvexConvex(hull, z)
                if area > 1.0:
                    covered = True
                    break
            if not covered:
                return f
            f += 1
        return f


def _round_truth(plan: RoundPlan, timing: RoundTiming, clock: _Clock, profile: TableProfile) -> dict:
    """One round of ``truth.json`` (contracts' ``report.json`` round), alerts included."""
    fps = clock.fps
    start_f = clock.frame_at(min(timing.placed) if timing.placed else timing.start)
    end_f = clock.frame_at(timing.end)
    seats = []
    for sp in plan.seats:
        res = plan.settlement.seat(sp.seat)
        entry: dict = {"seat": sp.seat, "cards": [str(c) for c in sp.first_two]}
        if sp.switched is not None:
            entry["switched"] = [str(c) for c in sp.switched]
        entry["hits"] = [str(c) for c in sp.hits]
        entry["wagers"] = {k: sp.wagers[k] for k in ("main", "mtd", "bonus") if k in sp.wagers}
        for kind in ("mtd", "bonus"):
            if kind in sp.wagers:
                r = res.result(kind)
                entry[kind] = {"outcome": r.outcome, "expected_payout": money_json(r.payout),
                               "observed_payout": money_json(plan.paid.get((sp.seat, kind), Fraction(0)))}
        seats.append(entry)
    return {"index": plan.index, "start_s": round(start_f / fps, 3), "end_s": round(end_f / fps, 3),
            "dealer": {"up": str(plan.up_card), "cards": [str(c) for c in plan.dealer_cards]},
            "seats": seats, "alerts": _alerts(plan, timing, clock)}


def _alerts(plan: RoundPlan, timing: RoundTiming, clock: _Clock) -> list[dict]:
    """Every alert a correct monitor must raise for this round (definitions in :mod:`datasets.faults`)."""
    f = plan.fault
    if f is None:
        return []
    fps = clock.fps
    out: list[dict] = []
    if f.kind in ("mtd_underpaid", "mtd_overpaid", "bonus_underpaid", "bonus_overpaid"):
        t, zone = timing.settled[(f.seat, f.wager)]
        expected = plan.settlement.seat(f.seat).result(f.wager).payout
        out.append(alert_record(f.kind, f.seat, clock.clear_frame(t, zone), fps, money_json(expected),
                                money_json(f.amount), f.wager))
    elif f.kind in ("mtd_not_collected", "bonus_not_collected"):
        wager = plan.seat(f.seat).wagers[f.wager]
        out.append(alert_record(f.kind, f.seat, clock.clear_frame(timing.pickup_done, f"seat{f.seat}.{f.wager}"),
                                fps, wager, 0, f.wager))
    elif f.kind == "mtd_settled_late":
        for sp in plan.seats:
            if "mtd" in sp.wagers:
                t, zone = timing.settled[(sp.seat, "mtd")]
                out.append(alert_record(f.kind, sp.seat, clock.clear_frame(t, zone), fps, None, None, "mtd"))
    elif f.kind in ("past_posting", "pinching"):
        t, zone = timing.changed[(f.seat, f.wager)]
        out.append(alert_record(f.kind, f.seat, clock.clear_frame(t, zone), fps,
                                plan.seat(f.seat).wagers[f.wager], money_json(f.amount), f.wager))
    elif f.kind == "wager_over_limit":
        t, zone = timing.first_card
        out.append(alert_record(f.kind, f.seat, clock.clear_frame(t, zone), fps, money_json(f.limit),
                                money_json(f.amount), f.wager))
    elif f.kind == "dealing_order":
        events = [ev for ev, _ in plan.deal]
        seats = [sp.seat for sp in plan.seats]
        v = check_dealing_order(events, seats, plan.order, plan.burn_expected, complete=True)
        if v is not None:
            t, zone = timing.deal_arrivals[v.step] if v.observed is not None else timing.deal_arrivals[-1]
            out.append(alert_record(f.kind, v.recipient, clock.clear_frame(t, zone), fps,
                                    v.expected.recipient if v.expected else None,
                                    v.observed.recipient if v.observed else None))
    out.sort(key=lambda a: (a["frame"], a["type"], str(a["seat"])))
    return out


# -- pixels ---------------------------------------------------------------------------------------

FELT_COLOURS: tuple[tuple[int, int, int] | None, ...] = (None, None, (18, 82, 52), (24, 58, 112), (92, 26, 36))
"""Felt shades a video may use (``None``: the layout's own green)."""


def video_style(seed: int):
    """The look of one video (deck, back, chips, felt, light), fixed by its seed.

    Procedural decks only, so a clean clone renders the same video; glare is off
    because it would flicker from frame to frame.
    """
    from dataclasses import replace as _replace

    from datasets.cards import list_deck_designs
    from datasets.cards.backs import list_back_designs
    from datasets.chips import CHIP_DESIGNS
    from datasets.effects import Effects
    from datasets.felt import FeltStyle
    from datasets.render import Style

    rng = _rng(seed, "style")
    felt = FeltStyle(felt_rgb=rng.choice(FELT_COLOURS), font=rng.choice(["simplex", "duplex", "complex", "triplex"]),
                     texture=rng.uniform(3.0, 8.0), spot_fill=rng.random() < 0.7, seed=rng.randrange(1 << 16))
    effects = _replace(Effects.video(), glare=0.0, glare_p=0.0, light_dir_deg=rng.uniform(0, 360),
                       lighting=rng.uniform(0.05, 0.2), colour_temp=rng.uniform(-0.3, 0.4))
    return Style(deck=rng.choice(list_deck_designs(include_svg=False)),
                 back=rng.choice(list_back_designs(include_svg=False)),
                 felt=felt, chip_design=rng.choice([d.name for d in CHIP_DESIGNS]), effects=effects)


@dataclass
class RenderStats:
    """How a video was made: frames written, frames drawn (the rest repeat a still table), seconds."""

    frames: int
    drawn: int
    seconds: float


def render_video(script: VideoScript, path, style=None, crf: int = 26, preset: str = "veryfast",
                 progress: Callable[[int, int], None] | None = None, keyframe_s: float = 10.0) -> RenderStats:
    """Draw every frame of ``script`` and encode it as H.264 (yuv420p MP4) at ``path``.

    Frame ``i`` shows the table at ``i / fps`` seconds.  A frame whose table state
    equals the previous one is not drawn again.  The file appears whole or not at all.

    Args:
        script: from :func:`script_video`.
        path: the ``.mp4`` to write.
        style: a :class:`datasets.render.Style` (default: :func:`video_style` of the seed).
        crf, preset: x264 quality and speed.
        keyframe_s: seconds between key frames.  The felt's texture makes a key frame cost
            as much as seconds of the mostly still table between them, so they are kept apart.
        progress: called with (frames done, frames in all) after each frame.
    """
    import time

    from datasets.render import Renderer

    started = time.perf_counter()
    style = style or video_style(script.options.seed)
    renderer = Renderer(script.layout, script.camera, style)
    fps = script.fps
    last_state = None
    image = None
    drawn = 0
    # one fixed noise draw for the whole video: sensor noise that changed every frame
    # would cost most of the bit rate and make the sample video too big to commit
    noise_seed = _rng(script.options.seed, "noise").randrange(1 << 31)
    with H264Writer(path, fps, script.camera.width, script.camera.height, crf=crf, preset=preset,
                    gop=max(1, round(keyframe_s * fps))) as writer:
        for i in range(script.frames):
            state = script.timeline.state_at(i / fps)
            if image is None or state != last_state:
                image = renderer.render(state, rng=noise_seed).image
                last_state = state
                drawn += 1
            writer.write(image)
            if progress is not None:
                progress(i + 1, script.frames)
    return RenderStats(frames=script.frames, drawn=drawn, seconds=time.perf_counter() - started)
