"""Round reconstruction and side-bet audit: from zone changes to rounds, settlements and alerts.

The engine reads what the zones show over time (:class:`vision.tracking.ZoneChange`)
and follows each round through its phases::

    betting -> deal -> side-bet settlement -> play -> dealer's play -> settlement -> pick-up

It records the wagers as they stood when the round's first card was dealt, the
dealing sequence, each seat's first two cards (Switch Hands: the pair kept), hits,
the dealer's up card and hole card, and the chips collected and paid per zone.
At each settlement it asks :mod:`rules` for the expected outcome and payout and
compares them with what the chips show; every difference is an :class:`Alert`.

Ordering: changes arrive when the tracker has *confirmed* them, but carry the time
they first showed.  The engine therefore holds them for ``latency_s`` (at least the
tracker's longest confirmation delay) and processes them in the order they
happened, so a losing wager collected just before a hit is never judged late
because its disappearance took longer to confirm than the hit's arrival.

Payout attribution: the dealer pays each winning wager with its own stack in the
seat's payout zone, in the order the procedure prescribes: match-the-dealer right
after the deal (before the dealer's hole card is turned), then the main wager once
the dealer's hand is complete, then the blackjack bonus after the round (2.20(f)). A side-bet payout set down where
it cannot be counted (touching the stack paid before it) is counted at what its own stack reads once it stands
alone, where the tracker follows payout stacks one by one (:class:`StackedPayout`, :mod:`vision.stack_tracking`).

What a camera cannot see is not taken for a fault: a face-down card hidden where it lies (the hole card under the up
card, Switch Hands' squared pair, the burn card where the discard rack is out of view) is passed over by the
deal-order check (:func:`rules.dealing.check_observed_deal`) and the deal ends at the first hit without it; a wager
or payout seen but not valued is still audited for what the cards and the timing decide (outcome, collected or not,
late or not, paid or not), with an ``unreadable`` alert for the amount (a wager unvalued at the first card and read
within :data:`LATE_VALUE_S` after it, before any side bet is due, is valued then instead; read later, its stack on the
spot all along, before its settlement is due, it is valued then and its alert stands); printed layout art read as a
card is set aside.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from rules.cards import BACK, RANK_POINTS, UNREADABLE, parse_card
from rules.dealing import DealEvent, check_observed_deal, expected_deal_order
from rules.hands import dealer_stands, hand_total
from rules.bonus import bonus_wager_violations
from rules.main_wager import main_wager_violations
from rules.match_the_dealer import mtd_wager_violations
from rules.money import money_json
from rules.profile import TableProfile
from rules.settle import SeatHand, settle_round
from vision.tracking import ZoneChange

SIDE_BETS = ("mtd", "bonus")
DROP_TOLERANCE_S = 1.5
"""An emptied spot this long before the moment that settles it still counts as that settlement
(the dealer's hand hides the last card dealt while the other hand already collects)."""
ROUND_END_S = 0.3
"""The table must stay clear of cards this long (beyond the engine's hold, with no card seen arriving
meanwhile) before the round counts as picked up: a Switch Hands table is briefly bare while the pairs
are swapped, and the not-collected alerts wait on this, so it is kept short (live alerts within 1 s). With the
engine's 0.7 s hold, a card seen again up to ~0.85 s after the table went bare keeps the round open; 0.5 here kept
the not-collected alerts 1.2 s after the pick-up (4K seeds 7196, 7272, 7277), whose moment is judged as the table
cleared whatever this wait."""
REREAD_MM = 15.0
"""A face card seen where another reading of a card just left, this close (card centres, mm), is that card read anew."""
REAPPEAR_S = 3.0
"""A card gone from a zone and back within this long, in the same place, was hidden, not taken."""
PAYOUT_TAKEN_S = 2.0
"""A seat's payout zone empty this long was emptied by the player taking the chips paid, not by a hand over them:
a stack placed there next is a new payout, counted whole (seed 7013 at 1080p: the main wager's $75 blackjack payout
taken with the wager, then the bonus's $75 placed 5 s later, which, no larger than the most the zone had shown,
was not counted, and the paid bonus was reported never paid). The dealer's hand over a payout while paying hides it
for about a second (the tracker holds a stack 0.6 s)."""
MERGED_PAYOUT_S = 3.0
"""A wager grown as its seat's payout stack went from beside it is judged this long on (or as soon as it is back to
its amount): the payout set down touching the wager is read with it until the dealer's hand squares them apart;
still grown, chips were added (past-posting, raised that much later)."""
HIDDEN_WAGER_S = 3.0
"""A wager stack gone this shortly before the first card was under the dealer's hand dealing it: it stands as the
seat's wager until seen again (the same stack: no change), or, not seen again this long after the first card and
its seat dealt nothing, it was taken back before the deal."""
LATE_VALUE_S = 1.0
"""A wager stack standing unvalued at the first card is valued by its first reading this shortly after it, while no
side bet is due yet (the camera often counts a stack a few frames after the dealer's hand left it: 4K seed 7100
round 2, a $60 main wager read 0.6 s after the round's first card); not valued by then, it is ``unreadable`` (the
alert decided at that moment).  Chips added in that second would be taken for the wager: a wager the camera could
not value at the first card gave no past-posting check before either.  A side-bet payout seen unvalued is likewise
``unreadable`` only if not valued this long after (``RoundEngine._unvalued_payouts``)."""
STACK_WAIT_S = 20.0
"""A side-bet payout seen placed but not valued, while a stack first seen as it was placed still stands in its
payout area, waits for that stack to be taken, at most this long (s): the payout stands on the layout until the
player takes it, and is read right once the stack beside it is gone (:mod:`vision.stack_tracking`). Then it is
``unreadable`` if that stack left unvalued."""
STACK_SINCE_SLACK_S = 0.5
"""A stack first seen this shortly before a payout was seen placed unvalued may be that payout: the stack can be seen
(unvalued, under the dealer's hand) a few frames before the area's total is confirmed unvalued."""
LATE_TOLERANCE_S = 0.3
"""A settlement seen this close before a hit card is first seen may be hidden behind the same hand. On the kept 4K and
1080p round videos every match-the-dealer wager collected late was seen gone 0.3 s or more after the hit, and every
one collected in time 0.6 s or more before it (4K seed 7208 r1, at 0.6 s before, was reported late with 0.6 here)."""
PINCH_WAIT_S = 6.0
"""An emptied spot whose settling moment has not come after this long is judged as pinching."""
TRANSIT_S = 0.6
"""A wager seen grown as another wager stack is taken within this long of it may be that stack carried across its
spot by the dealer collecting it (4K seed 7124: a losing match-the-dealer stack slid past the main wager's spot read
there as a $5 past-posting): the growth is judged this long after it, past-posting only if it stayed. Chips added
while another stack is being collected are therefore raised this much later than the engine's latency alone."""
CARD_TRANSIT_S = 1.0
"""A face-down card seen on the dealer's spot during the deal before the dealer's first card is judged this long after
it: the dealer's first card is the up card, face up (13:69F-2.6, 2B.6(d)), so one face down there is a card carried
over the spot to a seat (1080p seed 7016, Switch Hands: a player's face-down card seen 0.6 s on the dealer's spot, taken
as the dealer's first card, a false ``dealing_order``) unless it stays. The changes after it wait for that judgement,
so everything is still processed in the order it happened; alerts decided meanwhile come up to this much later."""
SAME_SPOT_S = 0.35
"""Two cards arriving on one spot this close in time are one card (cards to one spot come a pass of the deal apart,
at least ~0.8 s even with one player)."""
BACK_PRINT_MM = 60.0
"""A face read this close (mm) to a player's face-down card's centre, or closer, may be the back's print read as an
index; a card is 63 x 88 mm, so nothing on it lies farther than 54 mm from its centre."""
DRAWN_BESIDE_MM = 40.0
"""After the deal, two faces arriving on one spot within :data:`SAME_SPOT_S` this far apart (mm, card centres) or
more are two cards: a card is 63 mm wide, and cards drawn are laid beside each other."""
CARD_MOVED_S = 0.3
"""Switch Hands, the pair kept being turned: a face arriving on the spot within this many seconds of a reading of that
card leaving it is that card moved (:meth:`RoundEngine._card_moved`): the tracker reports both in one analysed
frame."""
FLIP_MM = 45.0
"""A player's face-down card turned over shows its face this close (mm, card centres) to where it lay; farther off,
a face arriving as a face-down card leaves is another card (Switch Hands: the pair not kept is taken away as the
other is played)."""
SWITCH_TURN_S = 2.5
"""Switch Hands: how soon after a card of the face-up pair left its seat a face showing there is the face-down pair
turned over (the dealer takes the pair not kept away and turns the other over in one movement, 2B.6(f)). A card
missing for longer than that before a new one arrives was lost by the camera, and the new card is a hit."""
FIXTURE_MM = 15.0
"""An ``unreadable`` card this close (mm) to where layout art was once read as a card is that art again."""
WAGERS = ("main", "mtd", "bonus")


@dataclass
class Alert:
    """A wrong payout, a wrong step, or something the monitor could not decide.

    Attributes:
        type: a contracts' alert type (``mtd_underpaid``, ``dealing_order``, ...).
        seat: seat number, ``"dealer"``, or ``None`` for table-wide alerts.
        t_s, frame: the first frame that showed what makes the alert decidable.
        expected, observed: dollars (or recipients for ``dealing_order``).
        wager: ``main``, ``mtd`` or ``bonus`` for alerts on one wager.
        rule: the section broken.
        message: for a person.
        cards: the cards that decided it (seat's first two, the up card).
        raised_t_s, raised_frame: when the engine raised it (decision latency = raised - t_s).
        round_index: the round it belongs to.
        utc: wall-clock time of ``t_s`` where the source gives it.
        evidence, clip, clip_sha256: files written by the report sink.
    """

    type: str
    seat: int | str | None
    t_s: float
    frame: int
    expected: Any = None
    observed: Any = None
    wager: str | None = None
    rule: str = ""
    message: str = ""
    cards: list[str] = field(default_factory=list)
    raised_t_s: float = 0.0
    raised_frame: int = 0
    round_index: int = 0
    utc: datetime | None = None
    evidence: str | None = None
    clip: str | None = None
    clip_sha256: str | None = None

    def to_json(self) -> dict:
        out: dict = {"type": self.type, "seat": self.seat, "t_s": round(self.t_s, 3), "frame": self.frame,
                     "expected": _jsonable(self.expected), "observed": _jsonable(self.observed)}
        if self.wager:
            out["wager"] = self.wager
        if self.utc is not None:
            out["utc"] = self.utc.isoformat()
        out["rule"] = self.rule
        out["message"] = self.message
        if self.cards:
            out["cards"] = self.cards
        out["raised_t_s"] = round(self.raised_t_s, 3)
        if self.evidence:
            out["evidence"] = self.evidence
        if self.clip:
            out["clip"] = self.clip
            out["clip_sha256"] = self.clip_sha256
        return out


def _jsonable(v: Any) -> Any:
    if isinstance(v, (Fraction, int)) and not isinstance(v, bool):
        return money_json(v)
    if isinstance(v, float):
        return money_json(Fraction(str(v)))
    return v


@dataclass
class Event:
    """Something the engine decided: ``round_started``, ``first_card`` (the wagers standing), ``wager_valued`` (a wager
    unvalued at the first card, valued within :data:`LATE_VALUE_S`), ``card_dealt``, ``side_bets_due``, ``alert``,
    ``round_ended``."""

    kind: str
    t_s: float
    frame: int
    round_index: int
    data: dict = field(default_factory=dict)


@dataclass
class SeatRecord:
    """One seat's part of a round, as observed."""

    seat: int
    wagers: dict[str, float] = field(default_factory=dict)
    unvalued: set[str] = field(default_factory=set)      # wagers whose chips were seen but could not be valued
    dealt: list[str] = field(default_factory=list)       # labels in arrival order, the deal only
    dealt_at: list = field(default_factory=list)         # (x, y) mm of each dealt card where known
    kept: list[str] | None = None                        # Switch Hands: the pair kept
    turned: tuple | None = None                          # (t, mm) of the last face-down card turned over
    hits: list[str] = field(default_factory=list)
    hits_at: list = field(default_factory=list)          # (x, y) mm of each hit where known
    hits_t: list = field(default_factory=list)           # when each hit was first seen (s)
    tucked: list[str] = field(default_factory=list)      # faces seen arriving under the bonus wager (2.20)
    expected: dict[str, Any] = field(default_factory=dict)   # wager -> WagerResult
    observed_payout: dict[str, Fraction] = field(default_factory=dict)
    settled_t: dict[str, float] = field(default_factory=dict)
    settled_by: dict[str, ZoneChange] = field(default_factory=dict)
    collected: dict[str, bool] = field(default_factory=dict)
    paid_unvalued: set[str] = field(default_factory=set)  # wagers paid with a stack that could not be valued
    unvalued_payout: str | None = None    # the wager the payout stack now standing unvalued was taken to pay
    payout_high: Fraction = Fraction(0)   # most the payout zone has shown: a hidden stack seen again is not paid twice
    payout_empty_since: float | None = None  # when the payout zone last emptied (s): long empty, its chips were taken
    payout_gone: tuple | None = None  # (t_s, value before, wager its unvalued stack paid) of the zone's last emptying
    payout_overshoot: float | None = None  # a payout reading passed over as read high: its next reading counts
    payout_counted_t: float = -math.inf  # when a payout to it was last counted from its area's total (s)

    @property
    def first_two(self) -> list[str]:
        if self.kept is not None:
            return self.kept
        return self.dealt[:2]


@dataclass
class StackedPayout:
    """A side-bet payout seen placed and not valued: read in a moment (:data:`LATE_VALUE_S`), or, where the tracker
    follows payout stacks, valued from its own stack once that stack stands alone (:mod:`vision.stack_tracking`;
    :meth:`RoundEngine._stack_left`), or ``unreadable``.

    Attributes:
        placed: the payout area's change that showed it placed (unvalued).
        floor_t: when the seat's payouts were last counted before it (s): a stack first seen by then is one of those.
        left: stack number -> (its value read last in dollars or ``None``, when it was first seen and when last, in
            s), for each stack of the area that came with this payout and has gone.
        ceiling_t: a stack first seen from then on is not this payout's (s): the seat's next payout was set down
            then (:data:`STACK_SINCE_SLACK_S` before it was seen), a card was dealt after a match-the-dealer payout,
            or the next round was dealt.
        fallback: (amount, change): what the area's total, read again once other chips were taken, gave; counted
            only where no stack of its own does.
    """

    placed: ZoneChange
    floor_t: float
    ceiling_t: float = math.inf
    left: dict[int, tuple[float | None, float, float]] = field(default_factory=dict)
    fallback: tuple[Fraction, ZoneChange] | None = None

    def is_its_stack(self, since_t_s: float | None) -> bool:
        """Whether a stack first seen at ``since_t_s`` came with this payout: as it was placed
        (:data:`STACK_SINCE_SLACK_S`) or after (set down touching another, it may first be seen apart once the
        other is taken), after the seat's last payout counted before it, and before :attr:`ceiling_t`."""
        return (since_t_s is not None and self.placed.t_s - STACK_SINCE_SLACK_S <= since_t_s < self.ceiling_t
                and since_t_s > self.floor_t)

    def amount(self) -> tuple[Fraction, float] | None:
        """(dollars, when read last) of the stacks that came with it, once gone, each read: their sum where they
        stood together (a large payout set down as two stacks), the last one's where each was seen only once the one
        before was gone (one stack drawn across the layout, followed as a new one); ``None`` otherwise."""
        stacks = sorted(self.left.values(), key=lambda v: v[1])
        together = [a[2] >= b[1] for i, a in enumerate(stacks) for b in stacks[i + 1:]]
        if together and not any(together):
            stacks = stacks[-1:]
        elif not all(together):
            return None
        if not stacks or any(v is None for v, _, _ in stacks):
            return None
        return sum((_money(v) for v, _, _ in stacks), Fraction(0)), max(last for _, _, last in stacks)


@dataclass
class RoundRecord:
    """A round as reconstructed (the contracts' report ``rounds[]`` entry)."""

    index: int
    start_s: float
    start_frame: int
    end_s: float | None = None
    first_card_s: float | None = None
    seats: dict[int, SeatRecord] = field(default_factory=dict)
    dealer: list[str] = field(default_factory=list)
    deal: list[tuple[DealEvent, str, float]] = field(default_factory=list)
    alerts: list[Alert] = field(default_factory=list)
    sidebets_due_s: float | None = None
    first_extra_card_s: float | None = None
    hole_revealed_s: float | None = None
    hole_unseen: bool = False  # the hole card taken as dealt out of sight (:meth:`RoundEngine._end_deal_unseen`)
    pickup_done_s: float | None = None
    phase: str = "betting"
    pending_drops: list = field(default_factory=list)   # (seat, wager, change): emptied spots awaiting judgement
    pending_growths: list = field(default_factory=list)  # (seat, wager, change, its value then): grown as a stack went
    # (seat, wager, change, its value then, the wager its unvalued payout was taken to pay, the seat's payouts then):
    # grown as its payout went
    merged_growths: list = field(default_factory=list)
    hidden_wagers: dict = field(default_factory=dict)   # zone -> t: a wager hidden at the first card, awaited back
    unvalued_at_first: dict = field(default_factory=dict)  # zone -> first card's change: awaiting a late value
    # (seat, wager) -> StackedPayout: a side-bet payout seen unvalued, likewise (or valued from its own stack)
    unvalued_payouts: dict = field(default_factory=dict)
    clear_t: float | None = None                        # when the table last became clear of cards
    clear_chips: dict = field(default_factory=dict)     # the chips on the table at that moment

    def to_json(self) -> dict:
        up = self.dealer[0] if self.dealer else None
        seats = []
        for number in sorted(self.seats):
            s = self.seats[number]
            placed = {k: _jsonable(v) for k, v in s.wagers.items() if v}
            placed.update({k: None for k in sorted(s.unvalued)})  # placed, but the camera could not value it
            if not placed and not s.dealt:
                continue
            if not placed:
                placed = {"main": None}  # dealt cards, so a main wager stood there (2.6): the camera did not see it
            entry: dict = {"seat": number, "cards": s.first_two, "hits": s.hits, "wagers": placed}
            if s.kept is not None:
                # the pair not kept: the face-down pair (dealt first, 2B.6(d)) unless that is the pair kept
                entry["switched"] = ((s.dealt[:2] if s.kept == s.dealt[2:4] else s.dealt[2:4])
                                     if len(s.dealt) >= 4 else [])
            for bet in SIDE_BETS:
                if bet in placed:
                    res = s.expected.get(bet)
                    expected = None
                    outcome = "open"
                    if res is not None and bet in s.unvalued:
                        outcome = res.outcome  # the cards decide the outcome; the payout needs the wager's value
                    elif res is not None:
                        outcome = res.outcome
                        expected = res.payout if res.payout is not None else (
                            [money_json(res.payout_min), money_json(res.payout_max)] if res.payout_min is not None
                            else None)
                    entry[bet] = {"outcome": outcome, "expected_payout": _jsonable(expected),
                                  "observed_payout": _jsonable(s.observed_payout.get(bet, 0))}
            seats.append(entry)
        return {"index": self.index, "start_s": round(self.start_s, 3),
                "end_s": round(self.end_s, 3) if self.end_s is not None else None,
                "dealer": {"up": up, "cards": [c for c in self.dealer]},
                "seats": seats,
                "deal": [{"to": e.recipient, "face_up": e.face_up, "card": label, "t_s": round(t, 3)}
                         for e, label, t in self.deal],
                "alerts": [a.to_json() for a in sorted(self.alerts, key=lambda a: a.t_s)]}


def _zone_parts(zone: str) -> tuple[int | str | None, str]:
    """``seat3.mtd`` -> (3, "mtd"); ``dealer.cards`` -> ("dealer", "cards"); ``discard`` -> (None, "discard")."""
    if zone.startswith("seat"):
        head, _, kind = zone.partition(".")
        return int(head[4:]), kind
    if zone.startswith("dealer."):
        return "dealer", zone.split(".", 1)[1]
    return None, zone


def _nearest_of(label: str, hands: list[tuple[list, list]], position) -> tuple[list, int] | None:
    """(hand, index) of the card reading ``label`` that lay nearest ``position`` (mm), among ``hands`` given as
    (labels, positions) pairs; ``None`` unless ``position`` is known and two or more such cards have a position."""
    if position is None:
        return None
    found = [(math.dist(at[k], position), hand, k) for hand, at in hands for k, c in enumerate(hand)
             if c == label and k < len(at) and at[k] is not None]
    if len(found) < 2:
        return None
    _, hand, k = min(found, key=lambda f: f[0])
    return hand, k


def _within(a: tuple[float, float], b: tuple[float, float], mm: float) -> bool:
    """Two card centres (layout mm) at most ``mm`` apart."""
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 <= mm ** 2


def _is_card_zone(zone: str) -> bool:
    """``seat3.cards``, ``seat3.bonus`` (a bonus winner's cards are tucked under the wager), ``dealer.cards``."""
    owner, kind = _zone_parts(zone)
    return owner is not None and kind in ("cards", "bonus")


class RoundEngine:
    """Follows rounds through their phases and audits the side bets.

    Args:
        profile: the table's rules (:class:`rules.profile.TableProfile`).
        table_id: the table file's ``id`` (goes into every alert's evidence).
        latency_s: how long changes are held so they are processed in the order they
            happened; at least the tracker's ``fall_s``.
        flip_window_s: a face-down card leaving and a face-up card arriving in the same
            zone within this time is one card turned over, not a new card.
        keep_rounds: live mode: how many finished rounds to keep in :attr:`rounds` (the
            store keeps them all), so a worker that runs all shift holds bounded memory;
            ``None`` (review) keeps every round for the report.
        discard_in_view: the camera sees the discard rack (:func:`calibration.zones.zones_in_view`), so the burn
            card a new shoe's deal opens with (Switch Hands, 13:69F-2B.6(c)) is seen going in: a deal without it
            is a ``dealing_order`` alert at its first card. Otherwise a burn card not seen is taken as hidden.
        uncountable_spots: {betting spot's zone: px per chip} of the spots this camera shows too flat for any
            stack on them to be counted (:func:`vision.chips.uncountable_spots`). A wager there is never valued, so
            that is said once, as a table alert (``unreadable``, ``round_index`` -1) the first time such a wager
            stands unvalued at a round's first card, not again every round; the round still lists the wager as
            unvalued, and a side-bet payout made on it is an ``unreadable`` alert of its round (its amount is not
            checked). Other unvalued wagers are ``unreadable`` alerts of their round, as always.
    """

    def __init__(self, profile: TableProfile, table_id: str = "", fps: float = 30.0, latency_s: float = 0.7,
                 flip_window_s: float = 1.5, keep_rounds: int | None = None, discard_in_view: bool = False,
                 uncountable_spots: dict[str, float] | None = None) -> None:
        self.profile = profile
        self.discard_in_view = discard_in_view
        self.uncountable_spots = dict(uncountable_spots or {})
        self._coverage_said: set[str] = set()  # uncountable spots whose table alert has been raised
        self.fps = fps
        self.table_id = table_id
        self.latency_s = latency_s
        self.flip_window_s = flip_window_s
        self.rounds: list[RoundRecord] = []
        self.keep_rounds = keep_rounds
        self._rounds_opened = 0
        self.current: RoundRecord | None = None
        self.table_alerts: list[Alert] = []               # alerts outside any round (camera moved, ...)
        self._queue: list[tuple[float, int, ZoneChange]] = []
        self._seq = 0
        self._chips: dict[str, float | None] = {}         # zone -> value after the changes processed so far
        # payout area -> stack number -> when it was first seen (s): the stacks standing, where the tracker follows them
        self._standing_stacks: dict[str, dict[int, float]] = {}
        # rounds closed with a side-bet payout still to be valued from its stack
        self._closed_with_payouts: list[RoundRecord] = []
        self._cards: dict[str, list[str]] = {}            # zone -> labels present, processed so far
        self._stray: dict[str, list[str]] = {}            # zone -> labels that arrived with no wager on the layout
        self._fixtures: list[tuple[str, tuple[float, float]]] = []  # (zone, mm) of layout art read as a card
        self._pending_flips: list[tuple[str, float, tuple | None]] = []  # (zone, t, mm) of BACK departures awaiting a face
        self._held: ZoneChange | None = None              # a dealer face-down arrival awaiting CARD_TRANSIT_S
        self._departed: list[ZoneChange] = []              # recent card departures (a hand may only hide them)
        self._left_at: dict[tuple[str, str], float] = {}   # (zone, label) -> when that card last left the zone
        self._arrived_at: dict[tuple[str, str], tuple] = {}  # (zone, label) -> where (mm) that card last arrived
        self._backs_at: dict[str, list[tuple]] = {}  # zone -> where (mm) its face-down cards arrived or squared
        self._wager_gone: dict[str, tuple[float, float | None]] = {}  # wager zone -> (t, value) of its last going
        self._last_departure_t = 0.0
        self._utc0: datetime | None = None
        self._now_frame = 0
        self._now_t = 0.0
        self._new_shoe = True

    # -- feeding ------------------------------------------------------------------------------

    def step(self, frame: int, t_s: float, changes: list[ZoneChange], utc: datetime | None = None) -> list[Event]:
        """Take the changes the tracker confirmed at this frame; returns the events decided so far."""
        if utc is not None and self._utc0 is None:
            self._utc0 = utc - timedelta(seconds=t_s)
        self._now_frame, self._now_t = frame, t_s
        self._hold(changes)
        events: list[Event] = []
        now_t = t_s - self.latency_s
        while True:
            if self._held is not None:
                if now_t - self._held.t_s < CARD_TRANSIT_S:
                    break  # what came after a held card waits for its judgement, so all is processed in order
                events += self._judge_held()
                continue
            if not self._queue or self._queue[0][0] > now_t:
                break
            _, _, ch = heapq.heappop(self._queue)
            events += self._process(ch)
        judged_t = now_t if self._held is None else self._held.t_s  # (time-outs judged up to what was processed)
        if self.current is not None and self.current.pending_drops:
            events += self._judge_drops(self.current, judged_t)
        if self.current is not None and (self.current.pending_growths or self.current.merged_growths):
            events += self._judge_growths(self.current, judged_t)
        if self.current is not None and self.current.hidden_wagers:
            self._forget_hidden_wagers(self.current, judged_t)
        if self.current is not None and self.current.unvalued_at_first:
            events += self._unvalued_wagers(self.current, judged_t)
        if self.current is not None and self.current.unvalued_payouts:
            events += self._unvalued_payouts(self.current, judged_t)
        for closed in list(self._closed_with_payouts):
            events += self._unvalued_payouts(closed, judged_t)
        self._closed_with_payouts = [c for c in self._closed_with_payouts if c.unvalued_payouts]
        if self._held is None:  # (a held card lies on the table: the round goes on at least until it is judged)
            events += self._check_round_end()
        return events

    def finish(self, frame: int, t_s: float, changes: list[ZoneChange] = ()) -> list[Event]:
        """End of the source: process what is held, and ``changes`` (what only the end confirms:
        :meth:`vision.tracking.ZoneTracker.finish`), and close the open round as it stands."""
        self._now_frame, self._now_t = frame, t_s
        self._hold(changes)
        events: list[Event] = []
        while self._queue or self._held is not None:
            if self._held is not None:
                events += self._judge_held()
                continue
            _, _, ch = heapq.heappop(self._queue)
            events += self._process(ch)
        events += self._check_round_end(force=True)
        if self.current is not None:
            events += self._close_round(t_s, complete=False)
        for closed in self._closed_with_payouts:
            events += self._unvalued_payouts(closed, t_s, force=True)
        self._closed_with_payouts = []
        return events

    def _hold(self, changes: list[ZoneChange]) -> None:
        """Queue ``changes`` to be processed in the order they happened (by ``t_s``, then as given)."""
        for ch in changes:
            heapq.heappush(self._queue, (ch.t_s, self._seq, ch))
            self._seq += 1

    # -- processing one change ----------------------------------------------------------------

    def _process(self, ch: ZoneChange, held_over: bool = False) -> list[Event]:
        """One change, in the order they happened (``held_over``: an arrival held and judged to have stayed)."""
        owner, kind = _zone_parts(ch.zone)
        if ch.kind == "stack_seen":
            self._standing_stacks.setdefault(ch.zone, {})[ch.stack] = ch.since_t_s
            return []
        if ch.kind == "stack_left":
            self._standing_stacks.get(ch.zone, {}).pop(ch.stack, None)
            return self._stack_left(ch, owner)
        if ch.kind == "card_arrived" and self.current is not None:
            for (_, bet), sp in self.current.unvalued_payouts.items():
                if bet == "mtd" and sp.placed.t_s < ch.t_s:
                    # match-the-dealer wagers are settled before any further card (2.23(e), 19.6(d)): a stack first
                    # seen after one is another payout (the main wager's, after the dealer's hand)
                    sp.ceiling_t = min(sp.ceiling_t, ch.t_s)
        if self.current is not None and self.current.phase == "closing" and not (
                ch.kind == "chips" and (ch.after or 0) > (self._chips.get(ch.zone) or 0)
                and kind in WAGERS):
            self.current.end_s = ch.t_s
        if ch.kind == "chips":
            before = self._chips.get(ch.zone, 0)
            self._chips[ch.zone] = ch.after
            if ch.after is None and before and kind in WAGERS and isinstance(owner, int):
                # a wager valued, then not valued this time (a hand's shadow, a blurred chip edge): an abstention
                # is no news, so it stands at its last value until its spot is seen empty or valued anew
                self._chips[ch.zone] = before
            if kind in WAGERS and isinstance(owner, int):
                if ch.after == 0 and before != 0:
                    self._wager_gone[ch.zone] = (ch.t_s, before)
                elif ch.after != 0:
                    self._wager_gone.pop(ch.zone, None)
                return self._wager_change(ch, owner, kind, before)
            if kind == "payout" and isinstance(owner, int):
                return self._payout_change(ch, owner, before)
            return []
        if ch.kind == "card_squared":
            if ch.position is not None:
                self._backs_at.setdefault(ch.zone, []).append(ch.position)
            return self._card_squared(ch, owner, kind)
        labels = self._cards.setdefault(ch.zone, [])
        stray = self._stray.setdefault(ch.zone, [])
        if ch.kind == "card_relabelled":
            return self._card_relabelled(ch, owner, kind, labels, stray)
        if ch.kind == "card_left" and ch.label in stray:
            stray.remove(ch.label)
            if ch.label in labels:
                labels.remove(ch.label)
            return []
        if ch.kind == "card_left":
            self._departed.append(ch)
            self._left_at[(ch.zone, ch.label)] = ch.t_s
            self._last_departure_t = max(self._last_departure_t, ch.t_s)
            if ch.label in labels:
                labels.remove(ch.label)
            r = self.current
            if r is not None and r.first_card_s is not None and not self._cards_on_table():
                r.clear_t, r.clear_chips = ch.t_s, dict(self._chips)
            if ch.label == BACK and kind == "cards":
                self._pending_flips.append((ch.zone, ch.t_s, ch.position))
            return self._card_left(ch, owner, kind)
        labels.append(ch.label)
        if ch.position is not None:
            self._arrived_at[(ch.zone, ch.label)] = ch.position
            if ch.label == BACK:
                self._backs_at.setdefault(ch.zone, []).append(ch.position)
        if ch.label == UNREADABLE and ch.position is not None and any(
                z == ch.zone and _within(p, ch.position, FIXTURE_MM) for z, p in self._fixtures):
            stray.append(ch.label)  # printed layout art, seen again once a hand moved off it
            return []
        if (self.current is None or self.current.phase in ("closing", "betting")) and isinstance(owner, int) \
                and kind == "cards" and ch.label == BACK and self.profile.effective_deal_order != "switch_hands":
            # players' cards come face up from the shoe, except Switch Hands' first two (13:69F-2B.6(d)): a
            # face-down card on a player's spot before the deal is no round's first card (a printed ring read
            # as a card back)
            stray.append(ch.label)
            return []
        if kind == "bonus" and ch.label == BACK:
            # a bonus winner's cards go under the wager face up (2.20(f)): face down there is the printed spot
            stray.append(ch.label)
            return []
        if owner == "dealer" and ch.label in (UNREADABLE, BACK) and not self._players_have_first_cards(ch.t_s):
            # the dealer's first card is the up card, face up (13:69F-2.6, 2B.6(d)): a face-down or unreadable
            # card there before any player has one is printed layout art read as a card, or a card left lying
            return self._set_aside(ch, stray)
        if (self.current is None or self.current.phase == "closing") and _is_card_zone(ch.zone) \
                and not self._wager_on_layout():
            # cards are dealt only to spots with a wager: with none on the layout this is no round's card
            # (printed layout art read as a card, a card left lying): remembered, never dealt
            return self._set_aside(ch, stray)
        if self.current is not None and ch.zone.startswith(("seat", "dealer.")):
            self.current.clear_t = None
        if self._reappeared(ch):
            return []
        if owner == "dealer" and kind == "cards" and self._dealer_hand_done(self.current):
            # the dealer draws no card to a standing hand (13:69F-2.2): a card seen arriving there now is one
            # in the dealer's hand at the pick-up, passing over the layout
            stray.append(ch.label)
            return []
        if owner == "dealer" and kind == "cards" and ch.label == BACK and self.current is not None \
                and self.current.phase == "deal" and not self.current.dealer and not held_over:
            # perhaps a card carried over the dealer's spot: judged once it has had CARD_TRANSIT_S to pass
            labels.remove(ch.label)
            self._held = ch
            return []
        return self._card_arrived(ch, owner, kind)

    def _judge_held(self) -> list[Event]:
        """The face-down card held on the dealer's spot, :data:`CARD_TRANSIT_S` on. Its departure within that time,
        held for ordering, shows a card carried over the spot: both are dropped. A relabel of it to a face (the up
        card first seen face down) is taken with it. Otherwise it is dealt as it came; what came after it is
        processed after it. Nothing else is processed meanwhile, so its round is still the one in play."""
        c, self._held = self._held, None

        def mine(q: ZoneChange, kind: str, label_field: str) -> bool:
            return (q.kind == kind and q.zone == c.zone and getattr(q, label_field) == BACK
                    and q.t_s - c.t_s <= CARD_TRANSIT_S + 1e-9
                    and (q.position is None or c.position is None or _within(q.position, c.position, FLIP_MM)))

        if self._take_queued(lambda q: mine(q, "card_left", "label")) is not None:
            return []
        turned = self._take_queued(lambda q: mine(q, "card_relabelled", "previous"))
        arrival = c if turned is None else ZoneChange(c.kind, c.zone, c.frame, c.t_s, c.confirmed_frame,
                                                      c.confirmed_t_s, label=turned.label, position=c.position)
        return self._process(arrival, held_over=True)

    @staticmethod
    def _dealer_hand_done(r: RoundRecord | None) -> bool:
        """The round's dealer hand is all face up, its hole card turned, and stands under any house rule."""
        if r is None or r.hole_revealed_s is None or len(r.dealer) < 2 or BACK in r.dealer or UNREADABLE in r.dealer:
            return False
        return dealer_stands([parse_card(c) for c in r.dealer])

    def _players_have_first_cards(self, t_s: float) -> bool:
        """Every wagered player of the round in play had a card by ``t_s`` (before that, the dealer gets none)."""
        r = self.current
        if r is None or r.phase in ("closing", "betting"):
            return False
        seats = self._wagered(r)
        firsts = {e.recipient: t for e, _, t in r.deal if isinstance(e.recipient, int)}
        return bool(seats) and all(s in firsts and firsts[s] <= t_s for s in seats)

    def _set_aside(self, ch: ZoneChange, stray: list[str]) -> list[Event]:
        """Remember a card that is no round's card; an ``unreadable`` one is printed layout art, and its place is
        kept so that it is never taken for a card when it shows again (the dealer's hand hides it now and then)."""
        stray.append(ch.label)
        if ch.label == UNREADABLE and ch.position is not None:
            self._fixtures.append((ch.zone, ch.position))
        return []

    def _card_relabelled(self, ch: ZoneChange, owner, kind: str, labels: list[str], stray: list[str]) -> list[Event]:
        """One card read anew where it lies (a position tracker's vote changed): a face-down card turned over in
        place, or a misread (or a card first seen ``unreadable``) outvoted by later readings."""
        was_stray = ch.previous in stray
        for held in (stray, labels):  # a card set aside is in both: its label changes in both
            if ch.previous in held:
                held[held.index(ch.previous)] = ch.label
        if was_stray:
            return []
        r = self.current
        if r is None or owner is None or kind != "cards" or ch.label == BACK:
            return []
        if ch.previous == BACK and owner == "dealer" and BACK in r.dealer:
            return self._card_turned(r, ch, owner)  # the hole card turned over where it lies
        if isinstance(owner, int) and self._pair_card_turned_on_top(r.seats.get(owner), ch):
            return self._card_reread(r, owner, BACK, ch.label, ch.position)
        return self._card_reread(r, owner, ch.previous, ch.label, ch.position)

    def _pair_card_turned_on_top(self, s: SeatRecord | None, ch: ZoneChange) -> bool:
        """Switch Hands, the face-down pair kept: one card turned over, then the other, squared on it, hiding it.
        The tracker may read the top card where the first one's index was, as that card read anew; with the
        face-down card just gone and the pair's second card not yet read, the new face is that card turned over
        (2B.6(f)), and the first lies under it (4K seed 7246 r1: the AS turned, then the KC on it, reported as the
        AS read KC, the pair kept taken for KC and a card unread)."""
        if s is None or s.kept is None or UNREADABLE not in s.kept or ch.previous not in s.kept:
            return False
        if ch.label in (BACK, UNREADABLE) or ch.label in s.kept or BACK not in s.dealt[:2]:
            return False
        if ch.label[:-1] == ch.previous[:-1] or ch.label[-1] == ch.previous[-1]:
            return False  # a misread outvoted names the rank or the suit it had (8H read anew 6H): the same card
        back_left = self._left_at.get((ch.zone, BACK))
        return back_left is not None and 0.0 <= ch.t_s - back_left <= self.flip_window_s

    def _reappeared(self, arrival: ZoneChange) -> bool:
        """A card hidden for a while (a hand over it) and seen again is not a new card."""
        self._departed = [d for d in self._departed if arrival.t_s - d.t_s <= REAPPEAR_S]
        for d in self._departed:
            if d.zone == arrival.zone and d.label == arrival.label and (
                    d.position is None or arrival.position is None or _within(d.position, arrival.position, 25.0)):
                self._departed.remove(d)
                return True
        return False

    def _open_round(self, t_s: float, frame: int) -> list[Event]:
        index = self._rounds_opened
        self._rounds_opened += 1
        self.current = RoundRecord(index=index, start_s=t_s, start_frame=frame)
        self._wager_gone.clear()  # a stack taken at the last round's settlement is no wager of this one
        self._arrived_at.clear()  # (where the last round's cards lay says nothing of this one's)
        self._backs_at.clear()
        self.rounds.append(self.current)
        if self.keep_rounds is not None and len(self.rounds) > self.keep_rounds + 1:
            del self.rounds[:len(self.rounds) - self.keep_rounds - 1]
        return [Event("round_started", t_s, frame, index)]

    def _wager_change(self, ch: ZoneChange, seat: int, kind: str, before: float | None) -> list[Event]:
        events: list[Event] = []
        r = self.current
        if r is None or r.phase == "closing":
            if r is not None:
                events += self._close_round(ch.t_s, complete=True)
            if ch.after or ch.after is None:  # a stack placed, valued or not
                events += self._open_round(ch.t_s, ch.frame)
            return events
        if r.phase == "betting":
            return events
        s = r.seats.get(seat)
        if ch.zone in r.hidden_wagers and ch.after != 0:
            del r.hidden_wagers[ch.zone]  # the wager hidden at the first card, seen again
            wager_then = s.wagers.get(kind) if s is not None else None
            late = ch.after and ch.zone in r.unvalued_at_first  # an unvalued wager seen again: it may be valued now
            if not late and (ch.after is None or wager_then is None or ch.after == wager_then):
                return events
        wager = s.wagers.get(kind) if s else None
        if s is not None and kind in s.unvalued and not wager:
            return events + self._unvalued_wager_change(r, s, kind, ch)
        if r.clear_t is not None and ch.t_s >= r.clear_t:
            return events  # players taking their chips back after the cards were picked up
        if ch.after is None and ch.before is not None:
            return events  # a stack still there that could not be valued this time: nothing is known to change
        if ch.after:
            # the stack is back: an emptied reading before was a hand over it, not a collection
            r.pending_drops = [d for d in r.pending_drops if (d[0], d[1]) != (seat, kind)]
        after = ch.after or 0
        if after > (wager or 0) and (not wager or kind not in s.settled_t) and self._stack_taken_near(ch):
            r.pending_growths.append((seat, kind, ch, wager or 0))  # perhaps a collected stack carried across
            return events
        if after > (wager or 0) and self._undone_soon(ch):
            return events  # a misreading while a hand crossed the stack, not chips added
        merged = self._payout_merged(s, ch, after - wager) if wager and after > wager and kind not in s.settled_t \
            else None
        if merged is not None:
            # perhaps its payout read with it: judged later
            r.merged_growths.append((seat, kind, ch, wager, merged[0], s.payout_high))
            return events
        if not wager:
            if after:
                events += self._past_posting(r, seat, kind, ch, 0, after)
            return events
        settled = kind in s.settled_t
        if after == 0 and not settled and kind == "bonus" and self._bonus_unpaid(s):
            # a winning bonus stays until paid after the round, the winner's cards put under it (2.20(f)): the
            # dealer's hand doing so hides it for a while; gone for good and never paid, the end check says so
            return events
        if after == 0 and not settled:
            if kind == "mtd" and self._hole_card_implied(r, s, ch, None, collected=True):
                events += self._end_deal_unseen(r, ch)
            # an emptied spot is a settlement if it comes with (or just before) the moment that
            # settles it: judged when that moment is known, or as pinching when it never comes
            due = r.sidebets_due_s if kind in SIDE_BETS else r.hole_revealed_s
            if due is None or ch.t_s < due - DROP_TOLERANCE_S:
                r.pending_drops.append((seat, kind, ch))
                return events
            return events + self._settled_by_collection(r, s, kind, ch)
        if settled:
            return events
        if kind == "bonus" and after and (
                self._bonus_unpaid(s) and (self._cards_tucked_under(ch) or self._hand_off_its_spot(s, ch))
                or s.expected.get("bonus") is None and self._cards_tucked_under(ch, s)):
            # the winner's cards tucked under the wager (2.20(f)) lift its stack and show their edges under it:
            # the chips read differently, none were added or taken (4K seed 7162 r1: a $1 wager read $26 over an
            # AD and a JD, a false past-posting); what the wager was at the first card is what it is paid on. The
            # hand may not be known yet: its second card first seen tucked there (4K seed 7230 r0: $5 read $7 over
            # an AS and a JC, the JC seen 0.3 s on the spot)
            return events
        if after > wager:
            events += self._past_posting(r, seat, kind, ch, wager, after)
        elif after < wager and not self._undone_soon(ch):  # (read low for a moment: no chips taken)
            events += self._alert(r, "pinching", seat, ch, expected=wager, observed=after, wager=kind,
                                  rule=_wager_rule(self.profile, kind),
                                  message=f"chips taken from seat {seat}'s {kind} wager before it was settled: "
                                          f"${money_json(_money(wager))} -> ${money_json(_money(after))}")
        return events

    def _cards_tucked_under(self, ch: ZoneChange, s: SeatRecord | None = None) -> bool:
        """Whether cards lie in the wager zone of the chip change ``ch`` (a bonus winner's, tucked under it), or are
        seen arriving there within :data:`TRANSIT_S` of it (still held in the queue). With the seat ``s`` (its hand
        not known yet), faces only: those seen tucked under its wager, or arriving there (the spot's print read as a
        card is no card)."""
        if s.tucked if s is not None else self._cards.get(ch.zone):
            return True
        return any(c.kind == "card_arrived" and c.zone == ch.zone and abs(c.t_s - ch.t_s) <= TRANSIT_S
                   and (s is None or c.label not in (BACK, UNREADABLE)) for _, _, c in self._queue)

    def _hand_off_its_spot(self, s: SeatRecord, ch: ZoneChange) -> bool:
        """Whether seat ``s``'s first two cards have both left its card spot by the chip change ``ch`` (departures
        still held in the queue count): a bonus winner's hand is moved under the bonus wager (2.20(f)), and on a
        stack that tall its cards may never show as cards in the bonus zone (4K seed 7343 r0: an AH and a QD gone
        from the spot at 5.4 s, the $1 wager on them read $3 at 5.7 s, a false past-posting)."""
        if len(s.dealt) < 2:
            return False
        zone = f"seat{s.seat}.cards"
        here = self._cards.get(zone, [])
        leaving = self._leaving(zone, ch.t_s)
        return not any(c in here and c not in leaving for c in s.dealt[:2])

    def _undone_soon(self, ch: ZoneChange) -> bool:
        """Whether the chip change ``ch`` is seen undone (the zone back to what it showed before) within
        :data:`TRANSIT_S`, among the changes still held: the tracker confirms a rise undone so soon as quickly as the
        rise (:class:`vision.tracking._StableSignal`), so the engine's latency holds both."""
        return any(q.kind == "chips" and q.zone == ch.zone and q.before == ch.after and q.after == ch.before
                   and 0 < q.t_s - ch.t_s <= TRANSIT_S for _, _, q in self._queue)

    def _stack_taken_near(self, ch: ZoneChange) -> bool:
        """Whether another wager stack went within :data:`TRANSIT_S` of the change ``ch`` (seen, or still held in
        the queue): a dealer collecting it may be carrying it across ``ch``'s spot."""
        def near(zone: str, t_s: float) -> bool:
            return zone != ch.zone and abs(t_s - ch.t_s) <= TRANSIT_S

        if any(near(z, t) for z, (t, _) in self._wager_gone.items()):
            return True
        return any(c.kind == "chips" and c.after == 0 and c.before and _zone_parts(c.zone)[1] in WAGERS
                   and near(c.zone, c.t_s) for _, _, c in self._queue)

    def _judge_growths(self, r: RoundRecord, now_t: float, force: bool = False) -> list[Event]:
        """Wagers grown as another stack was taken, :data:`TRANSIT_S` on: back to their wager, the growth was that
        stack carried across the spot; still grown, chips were added after the first card (13:69F-2.3)."""
        events: list[Event] = []
        keep = []
        for seat, kind, ch, wager in r.pending_growths:
            if not force and now_t - ch.t_s < TRANSIT_S:
                keep.append((seat, kind, ch, wager))
                continue
            now = self._chips.get(ch.zone)
            if now is not None and now > wager:
                events += self._past_posting(r, seat, kind, ch, wager, now)
        r.pending_growths = keep
        merged = []
        for seat, kind, ch, wager, unvalued, paid_then in r.merged_growths:
            now = self._chips.get(ch.zone)
            if now is not None and now == wager:
                events += self._payout_read_apart(r, r.seats[seat], ch, ch.after - wager, unvalued, paid_then)
            elif not force and now_t - ch.t_s < MERGED_PAYOUT_S:
                merged.append((seat, kind, ch, wager, unvalued, paid_then))
            elif now is not None and now > wager:
                events += self._past_posting(r, seat, kind, ch, wager, now)
        r.merged_growths = merged
        return events

    def _payout_merged(self, s: SeatRecord, ch: ZoneChange, growth: float) -> tuple[str | None] | None:
        """Whether the seat's payout stack went from its place within :data:`TRANSIT_S` of the wager change ``ch``
        (seen before it, or held in the queue), unvalued or valued at the wager's ``growth``: the payout set down
        touching the wager and read with it. Returns ``(the wager its unvalued stack was taken to pay,)`` (``None``
        in it for a valued one), or ``None`` when it did not go."""
        def with_growth(before) -> bool:
            return before != 0 and (before is None or before == growth)

        zone = f"seat{s.seat}.payout"
        if any(q.kind == "chips" and q.zone == zone and q.after == 0 and with_growth(q.before)
               and abs(q.t_s - ch.t_s) <= TRANSIT_S for _, _, q in self._queue):
            return (s.unvalued_payout,)
        if s.payout_gone is not None and ch.t_s - s.payout_gone[0] <= TRANSIT_S and with_growth(s.payout_gone[1]) \
                and self._chips.get(zone) == 0:
            return (s.payout_gone[2],)
        return None

    def _payout_read_apart(self, r: RoundRecord, s: SeatRecord, ch: ZoneChange, growth: float,
                           unvalued: str | None, paid_then: Fraction) -> list[Event]:
        """A wager grown as its payout stack went from beside it, and back to its amount since: the payout was read
        with the wager meanwhile (4K seed 7259 r1: a $12 match-the-dealer payout set touching a $50 wager, read as a
        $62 wager for 2 s and no payout: a false past-posting, and the overpaid payout missed). A payout seen there
        unvalued (``unvalued``: the wager it was taken to pay) is valued at the growth, unless it has been valued
        on its own since (the seat's payouts above ``paid_then``: counted then); one valued before was counted then."""
        if unvalued is None or unvalued not in s.paid_unvalued:
            return []
        s.paid_unvalued.discard(unvalued)
        if s.payout_high > paid_then:
            return []
        if s.unvalued_payout == unvalued:
            s.unvalued_payout = None
        amount = _money(growth)
        s.observed_payout[unvalued] = s.observed_payout.get(unvalued, Fraction(0)) + amount
        s.payout_high += amount
        if unvalued not in SIDE_BETS:
            return []
        return self._check_payout(r, s, unvalued, replace(ch, zone=f"seat{s.seat}.payout"))

    def _past_posting(self, r: RoundRecord, seat: int, kind: str, ch: ZoneChange, wager: float,
                      observed: float) -> list[Event]:
        """The alert for chips added to seat ``seat``'s ``kind`` wager (``wager`` dollars, 0 for none) after the
        first card, the spot now showing ``observed`` dollars (13:69F-2.3 and the side bets' sections)."""
        if not wager:
            message = f"chips placed on seat {seat}'s {kind} wager after the first card"
        else:
            message = (f"seat {seat}'s {kind} wager grew from ${money_json(_money(wager))} to "
                       f"${money_json(_money(observed))} after the first card")
        return self._alert(r, "past_posting", seat, ch, expected=wager, observed=observed, wager=kind,
                           rule=_wager_rule(self.profile, kind), message=message)

    def _unvalued_wager_change(self, r: RoundRecord, s: SeatRecord, kind: str, ch: ZoneChange) -> list[Event]:
        """A wager seen but never valued: only its going matters (a collection, judged as for a valued wager);
        what it grew or shrank to cannot be told."""
        if r.clear_t is not None and ch.t_s >= r.clear_t:
            return []
        if ch.after and ch.zone in r.unvalued_at_first and r.sidebets_due_s is None \
                and ch.t_s - r.first_card_s <= LATE_VALUE_S:
            return self._valued_late(r, s, kind, ch)
        if ch.after and ch.before is None and kind in s.unvalued and kind not in s.settled_t \
                and (r.hole_revealed_s is None if kind == "main" else r.sidebets_due_s is None and len(s.dealt) < 2) \
                and ch.zone not in r.hidden_wagers and not self._undone_soon(ch) \
                and not any((d[0], d[1]) == (s.seat, kind) for d in r.pending_drops):
            # a wager first valued later in the deal, its stack on the spot all along, before it is settled (a side
            # bet: before the seat's own two cards decide it), and not undone at once (a dealer's arm over the spot
            # read as one big chip for 0.3 s): what it holds is what was wagered, and taking chips from it before the hand is settled is pinching (4K seed
            # 7167 r2: a $50 main wager valued 3 s into a Switch Hands deal, then cut to $20; 7298 r1: a $5
            # match-the-dealer wager valued 1.6 s after the first card, its payout checked). It was `unreadable` at
            # the first card, and stays so in the alerts: its limits were not checked when they applied
            return self._valued_late(r, s, kind, ch)
        if ch.after:
            r.pending_drops = [d for d in r.pending_drops if (d[0], d[1]) != (s.seat, kind)]
            return []
        if ch.after == 0 and kind not in s.settled_t:
            due = r.sidebets_due_s if kind in SIDE_BETS else r.hole_revealed_s
            if due is None or ch.t_s < due - DROP_TOLERANCE_S:
                r.pending_drops.append((s.seat, kind, ch))
                return []
            return self._settled_by_collection(r, s, kind, ch)
        return []

    def _valued_late(self, r: RoundRecord, s: SeatRecord, kind: str, ch: ZoneChange) -> list[Event]:
        """A wager unvalued at the first card, read ``ch.after`` dollars within :data:`LATE_VALUE_S`, or later with
        its stack on the spot all along (a main wager: before the hole card is turned; a side bet: before it falls due
        and before the seat's second card;
        4K seed 7298 r1, a $5 match-the-dealer wager read 1.6 s after the first card): it is the seat's wager, checked
        against the limits as at the first card (13:69F-2.23(c), 19.6(b), 2.20(a))."""
        r.unvalued_at_first.pop(ch.zone, None)
        s.unvalued.discard(kind)
        s.wagers[kind] = ch.after
        # the stack is back: an emptied reading before was a hand over it, not a collection
        r.pending_drops = [d for d in r.pending_drops if (d[0], d[1]) != (s.seat, kind)]
        return [Event("wager_valued", ch.t_s, ch.frame, r.index, {"seat": s.seat, "wager": kind, "amount": ch.after}),
                *self._wager_checks(r, [s], ch)]

    def _unvalued_wagers(self, r: RoundRecord, now_t: float, force: bool = False) -> list[Event]:
        """``unreadable`` for each wager unvalued at the first card and still unvalued :data:`LATE_VALUE_S` on (or
        as soon as a side bet falls due, or the round ends: ``force``), decided at that moment."""
        events: list[Event] = []
        if r.first_card_s is None:
            return events
        decided = r.first_card_s + LATE_VALUE_S
        if not force and now_t < decided and r.sidebets_due_s is None:
            return events
        for zone, ch in list(r.unvalued_at_first.items()):
            del r.unvalued_at_first[zone]
            owner, kind = _zone_parts(zone)
            if kind not in getattr(r.seats.get(owner), "unvalued", ()):
                continue  # the seat left the round (its wager taken back before the deal): nothing to value
            t = min(max(now_t, r.first_card_s), decided)
            at = replace(ch, frame=self._frame_at(t), t_s=t)
            if zone in self.uncountable_spots:
                events += self._uncountable_spot(zone, at)
                continue
            events += self._alert(r, "unreadable", owner, at, wager=kind,
                                  message=f"seat {owner}'s {kind} wager could not be valued from the chips: "
                                          "its limits and settlement are not checked")
        return events

    def _uncountable_spot(self, zone: str, ch: ZoneChange) -> list[Event]:
        """The table alert, raised once, that ``zone``'s wagers cannot be counted from this camera."""
        if zone in self._coverage_said:
            return []
        self._coverage_said.add(zone)
        owner, kind = _zone_parts(zone)
        name = {"mtd": "match-the-dealer", "bonus": "blackjack bonus"}.get(kind, kind)
        return self._table_alert("unreadable", owner, ch, wager=kind,
                                 message=f"seat {owner}'s {name} spot shows {self.uncountable_spots[zone]:g} px per "
                                         "chip from this camera, too flat to count a stack: wagers there are not "
                                         "valued, their limits and side-bet payouts not checked (said once)")

    def _unchecked_payout(self, r: RoundRecord, s: SeatRecord, bet: str, ch: ZoneChange) -> list[Event]:
        """``unreadable`` for a side-bet payout on a wager that stands on an uncountable spot (a payout on another
        unvalued wager is covered by that wager's own ``unreadable`` alert of the round)."""
        if f"seat{s.seat}.{bet}" not in self.uncountable_spots:
            return []
        paid = s.observed_payout.get(bet)
        amount = f" of ${money_json(paid)}" if paid else ""
        return self._alert(r, "unreadable", s.seat, ch, wager=bet,
                           message=f"seat {s.seat}'s {bet} payout{amount} could not be checked: its wager stands on a "
                                   "spot this camera shows too flat to count")

    def _settled_by_collection(self, r: RoundRecord, s: SeatRecord, kind: str, ch: ZoneChange) -> list[Event]:
        s.settled_t[kind] = ch.t_s
        s.settled_by.setdefault(kind, ch)
        s.collected[kind] = True
        return self._check_late(r, s, kind, ch)

    def _forget_hidden_wagers(self, r: RoundRecord, now_t: float) -> None:
        """A wager hidden at the first card and not seen again :data:`HIDDEN_WAGER_S` after it, on a seat dealt
        nothing: it was taken back before the deal, and the seat is not in the round."""
        for zone, _ in [(z, t) for z, t in r.hidden_wagers.items() if now_t - r.first_card_s > HIDDEN_WAGER_S]:
            del r.hidden_wagers[zone]
            owner, kind = _zone_parts(zone)
            s = r.seats.get(owner)
            if s is not None and not s.dealt:
                s.wagers.pop(kind, None)
                s.unvalued.discard(kind)
                if not s.wagers and not s.unvalued:
                    del r.seats[owner]

    def _judge_drops(self, r: RoundRecord, now_t: float) -> list[Event]:
        """Emptied spots: a collection when the settling moment came within the tolerance, else pinching."""
        events: list[Event] = []
        keep = []
        for seat, kind, ch in r.pending_drops:
            due = r.sidebets_due_s if kind in SIDE_BETS else r.hole_revealed_s
            s = r.seats[seat]
            if (due is not None and ch.t_s >= due - DROP_TOLERANCE_S) or (
                    kind == "main" and self._bust_by(r, seat, ch.t_s + DROP_TOLERANCE_S)):
                events += self._settled_by_collection(r, s, kind, ch)
            elif due is not None or now_t - ch.t_s > PINCH_WAIT_S:
                events += self._alert(r, "pinching", seat, ch, expected=s.wagers.get(kind), observed=0, wager=kind,
                                      rule=_wager_rule(self.profile, kind),
                                      message=f"seat {seat}'s {kind} wager taken off before it was settled")
            else:
                keep.append((seat, kind, ch))
        r.pending_drops = keep
        return events

    def _bust_by(self, r: RoundRecord, seat: int, t_s: float) -> bool:
        """Whether ``seat``'s hand was bust by ``t_s`` (s): its cards dealt by then, every one read, total over 21
        (13:69F-2.2). A bust hand loses at once, and the dealer takes its wager then, before the dealer's hand is
        played (4K seed 7344 r1: two busted hands' wagers collected as the dealer played, called pinching). Not where
        its first two cards are a pair (a split makes two hands of them) nor in Switch Hands (four cards dealt)."""
        s = r.seats.get(seat)
        if s is None or self.profile.effective_deal_order == "switch_hands" or len(s.hits) != len(s.hits_t):
            return False
        cards = s.first_two + [c for c, t in zip(s.hits, s.hits_t) if t <= t_s]
        if len(cards) < 3 or any(c in (BACK, UNREADABLE) for c in cards):
            return False
        try:
            parsed = [parse_card(c) for c in cards]
        except ValueError:
            return False
        if RANK_POINTS[parsed[0].rank] == RANK_POINTS[parsed[1].rank]:
            return False  # (a pair, perhaps split)
        return hand_total(parsed).bust

    def _payout_change(self, ch: ZoneChange, seat: int, before: float | None) -> list[Event]:
        r = self.current
        if r is None or r.phase in ("betting", "closing"):
            return []
        s = r.seats.get(seat)
        if s is None:
            return []
        if r.clear_t is not None and ch.t_s >= r.clear_t and not self._bonus_unpaid(s):
            return []  # chips beside a spot once the cards are gone are the player's, but for a bonus still due
        events: list[Event] = []
        if self._hole_card_implied(r, s, ch, before):
            events += self._end_deal_unseen(r, ch)
        return events + self._payout_placed(r, s, ch, before)

    def _hole_card_implied(self, r: RoundRecord, s: SeatRecord, ch: ZoneChange, before: float | None,
                           collected: bool = False) -> bool:
        """Spanish 21 settles match-the-dealer wagers after the dealer's second card (13:69F-19.6(d)): a payout
        placed (or, ``collected``, a losing wager taken) while every player holds two cards and the dealer only the
        up card means the hole card was dealt out of the camera's sight (slid under the up card, or under the
        dealer's hand). Seed 7106 at 4K: the side bets came due only at the first hit, 1.3 s later, and the
        underpaid wager's alert with them; 1080p seed 7047 r1: the hole card, dealt at 22.4 s, first seen at
        24.5 s, a losing wager collected at 22.9 s called pinching."""
        if r.phase != "deal" or self.profile.game != "spanish21" or len(r.dealer) != 1 or not _placed(s, "mtd"):
            return False
        seats = self._deal_seats(r)
        return (bool(seats) and all(len(r.seats[x].dealt) >= 2 for x in seats)
                and (collected or ch.after is None or ch.after > (before or 0))
                and not any(q.kind == "card_arrived" and q.zone == "dealer.cards" for _, _, q in self._queue))

    def _payout_placed(self, r: RoundRecord, s: SeatRecord, ch: ZoneChange, before: float | None) -> list[Event]:
        if ch.after == 0:
            s.payout_gone = (ch.t_s, before, s.unvalued_payout)
            s.unvalued_payout = None
            if s.payout_empty_since is None:
                s.payout_empty_since = ch.t_s
            return []
        if s.payout_empty_since is not None and ch.t_s - s.payout_empty_since >= PAYOUT_TAKEN_S \
                and not any(m[0] == s.seat for m in r.merged_growths):
            # the chips paid before were taken: this stack is all new (but for a payout read with its wager
            # meanwhile, still there)
            s.payout_high = Fraction(0)
        s.payout_empty_since = None
        if ch.after is None:
            # a stack seen but not valued: placed alone, or beside one already counted (touching, the two are
            # read as one stack that cannot be counted): the next wager is paid, by an unknown amount
            return self._unvalued_payout(r, s, ch)
        overshot, s.payout_overshoot = s.payout_overshoot, None
        if (ch.after or 0) <= (before or 0) and not (overshot is not None and before == overshot):
            return []
        if self._payout_settles_lower(ch, s.payout_high):
            s.payout_overshoot = ch.after  # read high for a moment: counted on the reading it settles to, next
            return []
        now_value = _money(ch.after or 0)
        if now_value <= s.payout_high:
            return []
        amount = now_value - s.payout_high
        s.payout_high = now_value
        revalued = before is None and s.unvalued_payout is not None
        stacked = r.unvalued_payouts.get((s.seat, s.unvalued_payout)) if revalued else None
        if stacked is not None and ch.t_s - stacked.placed.t_s >= LATE_VALUE_S \
                and self._stack_may_be_valued(stacked, ch.t_s):
            # read again long after it was placed, the area's total may have lost other chips meanwhile (the
            # player took the main payout in front of it): its own stack, read as it leaves, says; this is counted
            # only where it does not
            stacked.fallback = (amount, ch)
            return []
        if revalued:
            # the stack seen a moment ago but not valued, valued now: the payout it was taken for, not another
            target = s.unvalued_payout
            s.paid_unvalued.discard(target)
            s.unvalued_payout = None
        else:
            target = self._payout_target(r, s, ch)
            if target == "main" and _placed(s, "bonus") and self._payout_growing(ch, TRANSIT_S):
                # the dealer still setting the main wager's payout down, read short: counted whole on the larger
                # reading held, not split with the rest paid to the bonus (4K seed 7206: $45 then $50 for a $50
                # payout, the $5 taken for a bonus paid on a losing wager)
                s.payout_high = now_value - amount
                return []
        if target is None:
            return []
        to_bonus = self._bonus_share(r, s, target, amount) if revalued else Fraction(0)
        if to_bonus:
            amount -= to_bonus
            s.observed_payout["bonus"] = s.observed_payout.get("bonus", Fraction(0)) + to_bonus
            s.settled_t.setdefault("bonus", ch.t_s)
            s.settled_by.setdefault("bonus", ch)
        s.observed_payout[target] = s.observed_payout.get(target, Fraction(0)) + amount
        s.settled_t.setdefault(target, ch.t_s)
        s.settled_by.setdefault(target, ch)
        s.payout_counted_t = ch.t_s
        self._next_payout_placed(r, s.seat, ch)
        events: list[Event] = []
        if to_bonus and not self._payout_growing(ch):
            events += self._check_payout(r, s, "bonus", ch)
        if target == "mtd" and not revalued:
            # (a stack valued now was placed when first seen unvalued, and its timing was judged then: seed 7012 at
            # 1080p, a payout placed before the hit and first counted after it was reported settled late)
            events += self._check_late(r, s, "mtd", ch)
        if target in SIDE_BETS and not self._payout_growing(ch):
            events += self._check_payout(r, s, target, ch)
        return events

    def _bonus_share(self, r: RoundRecord, s: SeatRecord, target: str, amount: Fraction) -> Fraction:
        """Of ``amount`` counted as the main wager's payout on a stack first seen unvalued, what lies beyond the main
        payout due while a winning bonus is still unpaid: the bonus payout, set down with (or just after) the main
        one under the dealer's hand and first valued with it (4K seed 7247 r0: $30 paid on a blackjack and $13 on
        its bonus, read together as $43 once the dealer's hand left them). 0 when the main payout due is not known
        or the amount does not pass it. (A main payout valued as it stands alone is not split: read over what is
        due, the main wager was overpaid, which is not the bonus's.)"""
        if target != "main" or not self._bonus_unpaid(s):
            return Fraction(0)
        res = self._main_result(r, s)
        if res is None or res.outcome != "win" or res.payout is None:
            return Fraction(0)
        due = max(Fraction(0), res.payout - s.observed_payout.get("main", Fraction(0)))
        return amount - due if amount > due else Fraction(0)

    def _payout_settles_lower(self, ch: ZoneChange, high: Fraction) -> bool:
        """Whether the payout reading ``ch`` was read high for a moment: the next reading of its zone, held for
        ordering within :data:`TRANSIT_S`, is lower but above what the seat was paid so far (``high``). The stack is
        then counted on that next reading, and, should it rise again (the dealer's fingers hid part of it), on the
        one after, as any payout still growing (4K seed 7256 r1: a $17 bonus payout set beside the $225 main one
        read $267 for 0.3 s, then $242: a false `bonus_overpaid` for an underpaid bonus)."""
        nxt = min((q for _, _, q in self._queue if q.kind == "chips" and q.zone == ch.zone and q.t_s > ch.t_s),
                  key=lambda q: q.t_s, default=None)
        if nxt is None or nxt.t_s - ch.t_s > TRANSIT_S or nxt.before != ch.after or nxt.after is None:
            return False
        return high < _money(nxt.after) < _money(ch.after or 0)

    def _payout_growing(self, ch: ZoneChange, within_s: float | None = None) -> bool:
        """A larger reading of the same payout stack is already held for ordering: the dealer is still placing it
        (a stack read at $5 on its way to $20), so its amount is judged on that later reading. ``within_s``: only a
        valued one that soon after ``ch`` (the same stack, counted whole on it)."""
        def larger(q: ZoneChange) -> bool:
            if q.after is None:
                return within_s is None
            return q.after > (ch.after or 0) and (within_s is None or 0 < q.t_s - ch.t_s <= within_s)

        return any(q.kind == "chips" and q.zone == ch.zone and larger(q) for _, _, q in self._queue)

    def _unvalued_payout(self, r: RoundRecord, s: SeatRecord, ch: ZoneChange) -> list[Event]:
        """A payout stack seen but not valued: the wager it pays is settled (its timing is checked), its amount
        is not, and a winner is not reported as never paid."""
        target = self._payout_target(r, s, ch)
        # a winning bonus's wager taken up (with the cards under it) is not its payment: the payout still comes
        if target is None or (target in s.settled_t and not (target == "bonus" and self._bonus_unpaid(s))):
            return []
        s.settled_t.setdefault(target, ch.t_s)
        s.settled_by.setdefault(target, ch)
        s.paid_unvalued.add(target)
        s.unvalued_payout = target
        self._next_payout_placed(r, s.seat, ch)
        events = self._check_late(r, s, "mtd", ch) if target == "mtd" else []
        if target in SIDE_BETS and target not in s.unvalued and not self._valued_next(ch, s):
            # unreadable unless read in a moment (LATE_VALUE_S), or from its own stack
            r.unvalued_payouts.setdefault((s.seat, target), StackedPayout(ch, s.payout_counted_t))
        elif target in SIDE_BETS and target in s.unvalued:
            events += self._unchecked_payout(r, s, target, ch)
        return events

    def _unvalued_payouts(self, r: RoundRecord, now_t: float, force: bool = False,
                          closing: bool = False) -> list[Event]:
        """``unreadable`` for each side-bet payout seen unvalued and not valued :data:`LATE_VALUE_S` on (or by the
        round's end: ``force``), decided at that moment. The dealer's hand setting a payout down, or the dealer's
        fingers squaring it, keep it unvalued for a few frames (4K seed 7134 round 2: a $60 match-the-dealer payout
        unvalued for 0.8 s, then read right, had already been reported unreadable). A payout that may still be
        valued as a stack of its own (:meth:`_stack_may_be_valued`) waits, even past the round's close
        (``closing``): the players take their wagers, then their payouts.
        Decided, it is counted at what its own stack was read last where it has one (:class:`StackedPayout`), else
        at what the area's total gave (``fallback``), else it is ``unreadable``."""
        events: list[Event] = []
        for (seat, target), stacked in list(r.unvalued_payouts.items()):
            ch = stacked.placed
            if not force and (now_t - ch.t_s < LATE_VALUE_S or any(m[0] == seat for m in r.merged_growths)):
                continue  # (a payout read with its wager meanwhile is valued once they are read apart)
            s = r.seats.get(seat)
            if s is not None and target in s.paid_unvalued and (not force or closing) \
                    and self._stack_may_be_valued(stacked, now_t):
                continue
            del r.unvalued_payouts[(seat, target)]
            if s is None or target not in s.paid_unvalued:
                continue  # valued since, and its amount checked
            read = stacked.amount()
            if read is not None or stacked.fallback is not None:
                amount, at, valued_t = (read[0], ch, read[1]) if read else (*stacked.fallback, None)
                s.paid_unvalued.discard(target)
                if s.unvalued_payout == target:
                    s.unvalued_payout = None
                s.observed_payout[target] = s.observed_payout.get(target, Fraction(0)) + amount
                if stacked.fallback is None:
                    s.payout_high += amount  # (the area's total read again with it would count it twice)
                events += self._check_payout(r, s, target, at, valued_t_s=valued_t)
                continue
            t = max(ch.t_s, min(now_t, ch.t_s + LATE_VALUE_S))
            at = replace(ch, frame=self._frame_at(t), t_s=t)
            events += self._alert(r, "unreadable", seat, at, wager=target,
                                  message=f"seat {seat}'s {target} payout could not be valued from the chips: "
                                          "its amount is not checked")
        return events

    def _stack_may_be_valued(self, stacked: StackedPayout, now_t: float) -> bool:
        """The payout ``stacked`` may still be valued as a stack of its own, placed less than :data:`STACK_WAIT_S`
        ago: a stack that came with it (:meth:`StackedPayout.is_its_stack`) still stands in its area, or the area
        still reads unvalued (the payout may be boxed with the stack it touches, and first seen apart once that one
        is taken: 4K seed 7308 r2). Only where the tracker follows that area's stacks one by one
        (:mod:`vision.stack_tracking`): readings without stack positions cannot value it later."""
        if now_t - stacked.placed.t_s >= STACK_WAIT_S:
            return False
        standing = self._standing_stacks.get(stacked.placed.zone)
        if not standing:
            return False
        return self._chips.get(stacked.placed.zone, 0) is None or any(map(stacked.is_its_stack, standing.values()))

    def _stack_left(self, ch: ZoneChange, seat) -> list[Event]:
        """One stack of a payout area gone, with the value it was read at last (:mod:`vision.stack_tracking`):
        kept for the side-bet payout it came with, the latest one placed unvalued before it was first seen (4K seed
        7234 r1: a $99 bonus payout set behind the $225 main one, its bottom chips hidden, read right once the
        player took the $225 and it stood alone). The payout is counted when no stack of its own stands any more
        (:meth:`_unvalued_payouts`)."""
        if not isinstance(seat, int):
            return []
        rounds = self._closed_with_payouts + ([self.current] if self.current is not None else [])
        mine = [sp for r in rounds for (owner, _), sp in r.unvalued_payouts.items()
                if owner == seat and sp.placed.zone == ch.zone and sp.is_its_stack(ch.since_t_s)]
        if mine:
            max(mine, key=lambda sp: sp.placed.t_s).left[ch.stack] = (ch.after, ch.since_t_s, ch.t_s)
        return []

    def _next_payout_placed(self, r: RoundRecord, seat: int, ch: ZoneChange) -> None:
        """A payout to ``seat`` set down at ``ch`` (counted or not): the stacks first seen from then on are not those
        of its payouts placed unvalued before it (:attr:`StackedPayout.ceiling_t`)."""
        for (owner, _), sp in r.unvalued_payouts.items():
            if owner == seat and sp.placed.t_s < ch.t_s:
                sp.ceiling_t = min(sp.ceiling_t, ch.t_s - STACK_SINCE_SLACK_S)

    def _valued_next(self, ch: ZoneChange, s: SeatRecord) -> bool:
        """A reading of ``ch``'s zone that will count a payout is already held for ordering (valued above what the
        seat's payouts came to so far): the stack read unvalued as the dealer set it down is counted a moment later
        (4K seed 7125: a $20 match-the-dealer payout unvalued for 0.3 s raised `unreadable`, then was read and
        checked), so its amount will be judged."""
        return any(q.kind == "chips" and q.zone == ch.zone and q.after is not None and _money(q.after) > s.payout_high
                   for _, _, q in self._queue)

    def _payout_target(self, r: RoundRecord, s: SeatRecord, ch: ZoneChange) -> str | None:
        """The wager a payout stack placed now pays, by the order of the procedure (``None``: none)."""
        if r.hole_revealed_s is None or ch.t_s < r.hole_revealed_s:
            return "mtd" if _placed(s, "mtd") else None
        main_res = self._main_result(r, s)
        main_wins = main_res is None or main_res.outcome == "win"
        if main_wins and "main" not in s.observed_payout and "main" not in s.paid_unvalued:
            return "main"
        return "bonus" if _placed(s, "bonus") else "main"

    def _main_result(self, r: RoundRecord, s: SeatRecord):
        """The main wager's outcome once the dealer's hand is complete (``None`` if the cards cannot tell)."""
        if "main" in s.expected:
            return s.expected["main"]
        cards = s.first_two + s.hits
        if not s.wagers.get("main") or len(s.first_two) != 2 or not r.dealer or any(
                c in (BACK, UNREADABLE) for c in cards + r.dealer):
            return None
        hand = SeatHand(s.seat, tuple(parse_card(c) for c in s.first_two), {"main": _money(s.wagers["main"])},
                        tuple(parse_card(c) for c in s.hits))
        dealer = [parse_card(c) for c in r.dealer]
        s.expected["main"] = settle_round(self.profile, dealer[0], [hand], dealer_cards=dealer).seats[0].main
        return s.expected["main"]

    def _check_payout(self, r: RoundRecord, s: SeatRecord, bet: str, ch: ZoneChange,
                      valued_t_s: float | None = None) -> list[Event]:
        """Compare what ``s``'s ``bet`` was paid with what the rules say (2.20(j), 2.23(f), 19.6(e)); ``valued_t_s``:
        when the payout placed at ``ch`` unvalued was read, from its own stack (said in the alert's message)."""
        res = s.expected.get(bet)
        if res is None or res.outcome in ("void", "open", "none"):
            return []
        if bet in s.unvalued:  # an unvalued wager's payout cannot be checked
            return self._unchecked_payout(r, s, bet, ch)
        paid = s.observed_payout.get(bet, Fraction(0))
        if res.payout_min is not None:
            lo, hi = res.payout_min, res.payout_max
            if lo <= paid <= hi:
                return []
            expected = lo if paid < lo else hi
        else:
            expected = res.payout or 0
        if paid == expected:
            return []
        kind = f"{bet}_underpaid" if paid < expected else f"{bet}_overpaid"
        rule = "13:69F-2.20(j)" if bet == "bonus" else _mtd_rule(self.profile, "odds")
        late = "" if valued_t_s is None else (f" (its stack as read last, at {valued_t_s:.1f} s: set down with "
                                              "another, it could not be counted before)")
        return self._alert(r, kind, s.seat, ch, expected=expected, observed=paid, wager=bet, rule=rule,
                           message=f"seat {s.seat} {'match-the-dealer' if bet == 'mtd' else 'blackjack bonus'} "
                                   f"paid ${money_json(paid)}, the rules say ${money_json(expected)}{late}",
                           cards=s.first_two + ([r.dealer[0]] if r.dealer and bet == "mtd" else []))

    def _check_late(self, r: RoundRecord, s: SeatRecord, bet: str, ch: ZoneChange) -> list[Event]:
        # a stack's going is first seen when the hand over it may still be collecting it, so a collection seen a
        # moment before the hit may have come after it; a payout is seen once the hand that placed it is gone,
        # so one seen before the hit was placed before it
        tolerance = 0.0 if ch.zone.endswith(".payout") else LATE_TOLERANCE_S
        if bet != "mtd" or r.first_extra_card_s is None or ch.t_s < r.first_extra_card_s - tolerance - 1e-9:
            return []
        return self._alert(r, "mtd_settled_late", s.seat, ch, expected=None, observed=None, wager="mtd",
                           rule=_mtd_rule(self.profile, "timing"),
                           message=f"seat {s.seat}'s match-the-dealer wager settled after a card beyond the "
                                   "initial deal")

    # -- cards -----------------------------------------------------------------------------------

    def _card_arrived(self, ch: ZoneChange, owner, kind: str) -> list[Event]:
        events: list[Event] = []
        if kind not in ("cards", "bonus") or owner is None:
            if ch.zone == "discard" and ch.label == BACK:
                return self._burn(ch)
            return events
        r = self.current
        if r is None or r.phase == "closing":
            if r is not None:
                events += self._close_round(ch.t_s, complete=True)
            events += self._open_round(ch.t_s, ch.frame)
            r = self.current
        if kind == "bonus":
            # a bonus winner's cards tucked under the wager: not a new card, but it shows the player's second card
            # where the dealer's hand hid it as it was dealt
            return events + self._card_tucked(r, ch, owner)
        if r.phase == "deal" and (self._deal_over_unseen(r, owner) or self._deal_full(r)):
            events += self._end_deal_unseen(r, ch)
        if (r.phase == "deal" and ch.label == UNREADABLE and isinstance(owner, int)
                and self.profile.effective_deal_order == "switch_hands" and self._back_read_here(ch)
                and self._out_of_turn(r, owner)):
            # Switch Hands deals no card face up where a player's face-down card lies, and turns none over during
            # the deal (13:69F-2B.6(d)): an index read unsure where a face-down reading leaves in that instant is
            # the back's print (seed 7010 at 1080p: a false dealing_order); the back is seen again, hidden a moment
            return events
        if r.phase != "deal" and self._card_moved(r, ch, owner):
            return events
        # a face-down card turned over in place is not a new card; none is turned during the deal (a face-down
        # card squared on another, in Switch Hands, is not turned over when the first one moves)
        if r.phase != "deal" and ch.label != BACK and BACK in self._cards.get(ch.zone, ()) \
                and self._take_queued_departure(ch):
            self._cards[ch.zone].remove(BACK)
            return events + self._card_turned(r, ch, owner)
        for i, (zone, t, at) in enumerate(self._pending_flips):
            if r.phase != "deal" and zone == ch.zone and abs(ch.t_s - t) <= self.flip_window_s and ch.label != BACK \
                    and _turned_in_place(at, ch):
                self._pending_flips.pop(i)
                return events + self._card_turned(r, ch, owner)
        if r.phase != "deal" and isinstance(owner, int) and ch.label != BACK and self._pair_turning(r, owner, ch):
            return events + self._card_turned(r, ch, owner)
        # a face card read anew where another reading of it just left is the same card
        misread = self._misread_partner(ch)
        if misread is not None and self._in_hand(r, owner, misread.label):
            return events + self._card_reread(r, owner, misread.label, ch.label, ch.position)
        # (a reading that was never dealt, taken as the card dealt just before it, leaving: no card to read anew)
        # the dealer's only face-down card is the hole card: once it has left the felt face down,
        # the next face card to the dealer is that card turned over (it may move while turning)
        if (owner == "dealer" and ch.label != BACK and BACK in r.dealer
                and BACK not in self._cards.get(ch.zone, ())[:-1] and r.phase != "deal"):
            self._pending_flips = [f for f in self._pending_flips if f[0] != ch.zone]
            return events + self._card_turned(r, ch, owner)
        if (owner == "dealer" and ch.label not in (BACK, UNREADABLE) and self._hole_card_unreadable(r)
                and UNREADABLE not in self._cards.get(ch.zone, ())[:-1] and r.phase != "deal"):
            # ... and so for a hole card whose back was read `unreadable` (the dealer's second card comes face down,
            # 2.6): the next face is that card turned over, not a card drawn (1080p seed 7025: a 7D taken for a
            # third card, the dealer's hand never known, a losing wager collected called pinching)
            return events + self._card_turned(r, ch, owner)
        if self._same_card_again(r, ch, owner):
            return events
        if r.phase == "betting":
            events += self._first_card(r, ch)
        if r.phase == "deal":
            events += self._dealt(r, ch, owner)
        elif ch.label == BACK and isinstance(owner, int):
            pass  # players' cards beyond the deal come face up: a face-down reading there is no card dealt
        else:
            events += self._extra_card(r, ch, owner)
        return events

    def _same_card_again(self, r: RoundRecord, ch: ZoneChange, owner) -> bool:
        """A second arrival on one spot within :data:`SAME_SPOT_S` of the last card dealt there is that card again
        (read as two while it settled, or the face-down pair showing around the face-up card just laid on it):
        cards to one spot come a pass of the deal apart. A face reading replaces a face-down one (the card was
        turned on its way from the shoe) or an ``unreadable`` one (the same card, read once it settled). Returns
        True when ``ch`` is taken as that card."""
        last = next(((k, e, label, t) for k, (e, label, t) in reversed(list(enumerate(r.deal)))
                     if e.recipient == owner), None)
        if last is None or abs(ch.t_s - last[3]) > SAME_SPOT_S:
            return False  # (an arrival seen just before it, confirmed later, is the same card: read unreadable)
        k, e, label, t = last
        if r.phase != "deal" and self._drawn_beside(ch, label):
            return False
        switch_pair = (label == BACK and ch.label != BACK and isinstance(owner, int)
                       and self.profile.effective_deal_order == "switch_hands"
                       and sum(1 for ev, _, _ in r.deal if ev.recipient == owner) <= 2)
        if switch_pair and self._off_the_back(ch):
            return False
        if switch_pair:
            # Switch Hands: a player's first two cards come face down (13:69F-2B.6(d)), so a face read with one of
            # them is the back's print read as an index (seed 7127 at 4K: a lattice back's corner read 10H), not
            # the card turned on its way from the shoe
            return True
        if label in (BACK, UNREADABLE) and ch.label not in (BACK, UNREADABLE):
            r.deal[k] = (DealEvent(owner, True), ch.label, t)
            hand = r.dealer if owner == "dealer" else r.seats[owner].dealt
            for i in range(len(hand) - 1, -1, -1):
                if hand[i] == label:
                    hand[i] = ch.label
                    break
        return True

    def _off_the_back(self, ch: ZoneChange) -> bool:
        """A face arriving farther from every face-down card on its spot (where each arrived, or was seen squared on
        the first) than any point of a card lies from its centre: not the back's print read as an index, but a card
        of its own (4K seed 7255 r1, Switch Hands: an AC dealt face up 88 mm from seat 2's face-down pair 0.3 s after
        its second face-down card, out of turn, taken for the back's print; the dealing-order alert went to the next
        seat)."""
        backs = self._backs_at.get(ch.zone)
        return bool(backs) and ch.position is not None and not any(
            _within(at, ch.position, BACK_PRINT_MM) for at in backs)

    def _drawn_beside(self, ch: ZoneChange, last: str) -> bool:
        """After the deal, a face arriving a card's width or more from the face ``last`` that came just before it
        is another card: the dealer draws in quick succession once the hole card is turned, each card laid beside
        the one before (4K seed 7249 r0: a 2S drawn 0.3 s after the KS turned over was seen to arrive, 58 mm from
        it, and taken for the KS again: a 23 read as 21)."""
        if last in (BACK, UNREADABLE) or ch.label in (BACK, UNREADABLE, last) or ch.position is None:
            return False
        at = self._arrived_at.get((ch.zone, last))
        return at is not None and not _within(at, ch.position, DRAWN_BESIDE_MM)

    def _pair_turning(self, r: RoundRecord, seat: int, ch: ZoneChange) -> bool:
        """Switch Hands: a face showing where the player's face-down pair lies, after the deal, is a card of that
        pair turned over (the pair kept, 2B.6(f)). The pair, squared one on the other, is seen as one face-down
        card, and its face may show before the face-down reading is gone, so no departure is waited for. Both of
        the pair turned, a face is no card of it (:meth:`_card_turned`)."""
        s = r.seats.get(seat)
        if s is None:
            return False
        zone = f"seat{seat}.cards"
        if BACK not in s.dealt[:2]:
            return False
        # a card of the face-up pair seen leaving at the very moment this face shows is gone too: the dealer takes
        # the pair not kept away and turns the other over in one movement, and which the tracker reports first is
        # chance
        leaving = self._leaving(zone, ch.t_s)
        # the face-up pair: the pair kept until the player switches, and what left when one of the face-down pair
        # was turned and the other not yet read (:meth:`_keep_turned_pair`)
        up = s.dealt[2:4] if s.kept and UNREADABLE in s.kept else s.kept
        left_at = {c: leaving.get(c, self._left_at.get((zone, c), -1e9)) for c in (up or ())}
        missing = [c for c in (up or ()) if c not in self._cards.get(zone, ()) or c in leaving]
        if up and not s.hits and missing and (
                len(missing) == len(up)
                or all(0.0 <= ch.t_s - left_at[c] <= SWITCH_TURN_S for c in missing)):
            # before any hit, the face-up pair gone from the layout, or one of it just taken away (the dealer
            # turns the other pair over while taking the pair not kept away): the face-down pair is the one kept
            # (2B.6(f))
            return True
        back_left = self._left_at.get((zone, BACK))
        if (BACK not in self._cards.get(zone, ()) and back_left is not None and r.first_card_s is not None
                and back_left > r.first_card_s and ch.t_s - back_left > self.flip_window_s):
            return False  # the face-down pair was taken away (the player kept the face-up pair): this face is a hit
        if ch.position is None:
            return False
        lying = [p for c, p in zip(s.dealt[:2], s.dealt_at[:2]) if p is not None]
        if s.turned is not None and s.turned[1] is not None:
            lying.append(s.turned[1])
        return any(_within(ch.position, p, FLIP_MM) for p in lying)

    def _card_moved(self, r: RoundRecord, ch: ZoneChange, owner) -> bool:
        """Switch Hands, the face-down pair kept being turned over (2B.6(f)): a face arriving on the seat's spot as a
        reading of that very card leaves it, within :data:`CARD_MOVED_S`, where that card is one of the pair already
        turned and the other not yet, is that card slid along the spot (the tracker lost it and found it a little
        way off), not the other card. The dealer turns the second card over and slides it off the first so that both
        show (4K seeds 7177 r0, 7186 r1, 7192 r0: the 8S turned was seen at one end of its slide, then at the other
        as it left the first place, and taken for the other card of the pair: 8S 8S kept, the 4H under it a hit).
        Nowhere else: a hit of the same identity laid over a card, or the pair kept holding a card like one of the
        face-up pair taken away in the same movement, is another card (multi-deck shoes)."""
        if self.profile.effective_deal_order != "switch_hands" or not isinstance(owner, int):
            return False
        s = r.seats.get(owner)
        if (ch.label in (BACK, UNREADABLE) or s is None or s.hits or ch.label not in s.dealt[:2]
                or BACK not in s.dealt[:2]):
            return False
        left = self._leaving(ch.zone, ch.t_s + CARD_MOVED_S).get(ch.label)
        if left is not None and abs(left - ch.t_s) <= CARD_MOVED_S:
            return True
        # (or its departure came first, in the same analysed frame)
        for d in self._departed:
            if d.zone == ch.zone and d.label == ch.label and abs(d.t_s - ch.t_s) <= CARD_MOVED_S:
                self._departed.remove(d)
                return True
        return False

    def _leaving(self, zone: str, t_s: float) -> dict[str, float]:
        """label -> t_s of the departures from ``zone`` held in the queue that happened by ``t_s`` (seen leaving
        at the moment of a change being processed, though not yet processed themselves)."""
        return {q.label: q.t_s for _, _, q in self._queue if q.kind == "card_left" and q.zone == zone and q.t_s <= t_s}

    @staticmethod
    def _in_hand(r: RoundRecord, owner, label: str) -> bool:
        """``label`` is one of the cards dealt (or drawn) to ``owner`` this round."""
        if owner == "dealer":
            return label in r.dealer
        s = r.seats.get(owner)
        return s is not None and (label in s.dealt or label in s.hits)

    def _card_left(self, ch: ZoneChange, owner, kind: str) -> list[Event]:
        return []  # departures matter at pick-up, which _check_round_end reads from the zones

    def _misread_partner(self, arrival: ZoneChange) -> ZoneChange | None:
        """The departure of a face card read otherwise, from where ``arrival`` shows and about when: the same
        card read anew (a misread corrected once a hand moved off it). Taken out of the queue, or out of
        the recent departures, and returned; ``None`` when there is none."""
        if arrival.label == BACK or arrival.position is None:
            return None

        def same_card(d: ZoneChange) -> bool:
            return (d.kind == "card_left" and d.zone == arrival.zone and d.label not in (BACK, arrival.label)
                    and d.position is not None and abs(d.t_s - arrival.t_s) <= self.flip_window_s
                    and _within(d.position, arrival.position, REREAD_MM))

        ch = self._take_queued(same_card)
        if ch is not None:
            labels = self._cards.get(ch.zone, [])
            if ch.label in labels:
                labels.remove(ch.label)
            return ch
        for d in reversed(self._departed):
            if same_card(d):
                self._departed.remove(d)
                return d
        return None

    def _card_reread(self, r: RoundRecord, owner, old: str, new: str,
                     position: tuple[float, float] | None = None) -> list[Event]:
        """Put the new reading of a card in place of the old one (a reading is never traded for ``unreadable``).

        Where a player holds more than one card of the old reading (two cards first seen ``unreadable``), the one
        that lay nearest ``position`` (mm, where the new reading is) is read anew; else the latest, hits first."""
        if new == UNREADABLE:
            return []
        s = r.seats.get(owner) if owner != "dealer" else None
        hands = [r.dealer] if owner == "dealer" else ([s.hits, s.dealt] if s is not None else [])
        place = _nearest_of(old, [(s.hits, s.hits_at), (s.dealt, s.dealt_at)], position) if s is not None else None
        deal_k = None  # which of the owner's deal cards of that reading was read anew, when it was one
        hit = False     # a hit was read anew: the deal record holds no hits, so it is not touched
        if place is not None:
            hand, k = place
            hand[k] = new
            hit = hand is s.hits
            if hand is s.dealt:
                deal_k = s.dealt[:k].count(old)
        else:
            for hand in hands:  # the latest card of that reading: hits first
                if old in hand:
                    k = len(hand) - 1 - hand[::-1].index(old)
                    hand[k] = new
                    hit = s is not None and hand is s.hits
                    break
        if s is not None and s.kept is not None and old in s.kept:
            s.kept[s.kept.index(old)] = new
        if s is not None and s.kept is not None and old == BACK:
            # Switch Hands: a face-down card of the first pair read as a face in place is that card turned over,
            # as when the face shows as a new card
            self._keep_turned_pair(s, f"seat{owner}.cards")
        if deal_k is not None:
            mine = [k for k, (ev, label, _) in enumerate(r.deal) if label == old and ev.recipient == owner]
            if deal_k < len(mine):
                ev, _, t = r.deal[mine[deal_k]]
                r.deal[mine[deal_k]] = (ev, new, t)
        elif not hit:
            for k in range(len(r.deal) - 1, -1, -1):
                ev, label, t = r.deal[k]
                if label == old and ev.recipient == owner:
                    r.deal[k] = (ev, new, t)
                    break
        # what the rules expect follows the corrected cards: side bets already decided are decided again
        # (later settlements are checked against the new reading), and the main wager when next needed
        if owner == "dealer":
            seats = list(r.seats.values())
        else:
            seats = [s] if s is not None else []
        for seat in seats:
            seat.expected.pop("main", None)
            if r.sidebets_due_s is not None and any(seat.wagers.get(b) for b in SIDE_BETS):
                self._expect_side_bets(r, seat)
        return []

    def _out_of_turn(self, r: RoundRecord, owner: int) -> bool:
        """Whether a face-up card to ``owner`` now would break the deal's order (a face-up card laid on the
        face-down pair in its turn is a card, whatever it is first read as)."""
        return self._deal_violation(r, DealEvent(owner, True)) is not None

    def _deal_violation(self, r: RoundRecord, then: DealEvent | None = None):
        """The deal's first step out of order (13:69F-2.6, 2B.6) as seen so far, and ``then`` after it where given:
        a :class:`rules.dealing.DealingOrderViolation`, or ``None`` (none, or no wagered seat yet)."""
        seats = self._deal_seats(r)
        if not seats:
            return None
        burn = self.profile.expects_burn_card and self._new_shoe
        observed = [e for e, _, _ in r.deal] + ([then] if then is not None else [])
        try:
            # a missing burn card is reported once, at the deal's first card; whether a later card is out of its
            # turn is judged as if it had been burnt
            return check_observed_deal(observed, seats, self.profile.effective_deal_order, burn_expected=burn,
                                       burn_in_view=self.discard_in_view and then is None)
        except ValueError:
            return None

    def _back_read_here(self, arrival: ZoneChange) -> bool:
        """A face-down reading leaving ``arrival``'s zone within :data:`REREAD_MM` of it and within the flip window
        of it (held in the queue, or among the recent departures)."""
        if arrival.position is None:
            return False

        def here(d: ZoneChange) -> bool:
            return (d.kind == "card_left" and d.zone == arrival.zone and d.label == BACK and d.position is not None
                    and abs(d.t_s - arrival.t_s) <= self.flip_window_s and _within(d.position, arrival.position,
                                                                                    REREAD_MM))

        return any(here(q) for _, _, q in self._queue) or any(here(d) for d in self._departed)

    def _take_queued_departure(self, arrival: ZoneChange) -> bool:
        """Remove a queued face-down departure from the same zone close in time to ``arrival`` (a flip)."""
        return self._take_queued(lambda ch: ch.kind == "card_left" and ch.zone == arrival.zone and ch.label == BACK
                                 and abs(ch.t_s - arrival.t_s) <= self.flip_window_s
                                 and _turned_in_place(ch.position, arrival)) is not None

    def _take_queued(self, match) -> ZoneChange | None:
        """Take the first held change for which ``match(change)`` is true out of the queue (``None``: none)."""
        for i, (_, _, ch) in enumerate(self._queue):
            if match(ch):
                self._queue.pop(i)
                heapq.heapify(self._queue)
                return ch
        return None

    def _burn(self, ch: ZoneChange) -> list[Event]:
        r = self.current
        if r is not None and r.phase == "betting":
            r.deal.append((DealEvent("burn", False), BACK, ch.t_s))
        return []

    def _first_card(self, r: RoundRecord, ch: ZoneChange) -> list[Event]:
        """The round's first card: snapshot the wagers and check them (13:69F-2.23(c), 19.6(b), 2.20(a))."""
        r.phase = "deal"
        r.first_card_s = ch.t_s
        for closed in self._closed_with_payouts:  # (stacks first seen from now on are this round's)
            for sp in closed.unvalued_payouts.values():
                sp.ceiling_t = min(sp.ceiling_t, ch.t_s)
        events: list[Event] = []
        standing = dict(self._chips)
        for zone, (t, value) in self._wager_gone.items():
            if standing.get(zone) == 0 and ch.t_s - t <= HIDDEN_WAGER_S:
                standing[zone] = value  # under the hand dealing this card
                r.hidden_wagers[zone] = t
        for zone, value in standing.items():
            owner, kind = _zone_parts(zone)
            if isinstance(owner, int) and kind in WAGERS and value:
                r.seats.setdefault(owner, SeatRecord(owner)).wagers[kind] = value
            elif isinstance(owner, int) and kind in WAGERS and value is None:
                # a stack is on the spot but its value could not be read: the seat plays, nothing is assumed
                r.seats.setdefault(owner, SeatRecord(owner)).unvalued.add(kind)
                r.unvalued_at_first[zone] = ch  # unreadable unless read in a moment (LATE_VALUE_S)
        events += self._wager_checks(r, sorted(r.seats.values(), key=lambda x: x.seat), ch)
        events.append(Event("first_card", ch.t_s, ch.frame, r.index,
                            {"wagers": {s.seat: dict(s.wagers) for s in r.seats.values()}}))
        return events

    def _wager_checks(self, r: RoundRecord, seats: list[SeatRecord], ch: ZoneChange) -> list[Event]:
        """Wager limits and incompatible wagers of ``seats``, as their wagers stand (at the first card, or valued
        just after it), the evidence ``ch``."""
        events: list[Event] = []
        offered = {b for s in r.seats.values() for b in SIDE_BETS if s.wagers.get(b)}
        config = self.profile.config_violations(offered=offered)
        for s in seats:
            main = _money(s.wagers["main"]) if s.wagers.get("main") else None
            limits = main_wager_violations(self.profile, main, s.seat) if main else []
            if s.wagers.get("mtd"):
                limits += mtd_wager_violations(self.profile, _money(s.wagers["mtd"]), main, s.seat)
            if s.wagers.get("bonus"):
                limits += bonus_wager_violations(_money(s.wagers["bonus"]), main, s.seat)
            for v in limits:
                events += self._alert(r, "wager_over_limit", s.seat, ch, expected=_limit_of(self.profile, s, v.wager),
                                      observed=s.wagers.get(v.wager), wager=v.wager, rule=v.rule, message=v.message)
            for v in config:
                if s.wagers.get(v.wager or ""):
                    events += self._alert(r, "incompatible_wager", s.seat, ch, expected=None,
                                          observed=s.wagers.get(v.wager), wager=v.wager, rule=v.rule,
                                          message=v.message)
        return events

    def _wagered(self, r: RoundRecord) -> list[int]:
        return sorted(s.seat for s in r.seats.values()
                      if (s.wagers.get("main") or "main" in s.unvalued) and not self._only_hidden(r, s))

    def _deal_seats(self, r: RoundRecord) -> list[int]:
        """Seats in this deal: those with a main wager, and any seat dealt a card (its wager unseen); not a seat
        whose wager has been hidden since the first card and that has been dealt nothing yet (it may be gone)."""
        return sorted(s.seat for s in r.seats.values()
                      if (s.wagers.get("main") or "main" in s.unvalued or s.dealt) and not self._only_hidden(r, s))

    @staticmethod
    def _only_hidden(r: RoundRecord, s: SeatRecord) -> bool:
        return not s.dealt and bool(r.hidden_wagers) and all(
            f"seat{s.seat}.{k}" in r.hidden_wagers for k in (*s.wagers, *s.unvalued))

    def _dealt(self, r: RoundRecord, ch: ZoneChange, owner) -> list[Event]:
        events: list[Event] = []
        face_up = ch.label != BACK
        recipient = owner
        if owner == "dealer" and not face_up and len(r.dealer) == 1:
            self._second_cards_unseen(r)
        if owner == "dealer":
            r.dealer.append(ch.label)
            if r.hole_revealed_s is None and face_up and (
                    (len(r.dealer) == 2 and ch.label != UNREADABLE) or len(r.dealer) >= 3):
                # the hole card was never seen face down: the dealer's hand is open from here on. Not on a second
                # card read `unreadable`: that is as often the hole card glimpsed face down as the dealer slides it
                # in (seed 7115 at 4K: a winning match-the-dealer payout placed then was taken for the main
                # wager's, and the side bet reported never paid); a third card means the hole card is open
                r.hole_revealed_s = ch.t_s
        else:
            rec = r.seats.setdefault(owner, SeatRecord(owner))
            rec.dealt.append(ch.label)
            rec.dealt_at.append(ch.position)
        r.deal.append((DealEvent(recipient, face_up), ch.label, ch.t_s))
        events.append(Event("card_dealt", ch.t_s, ch.frame, r.index,
                            {"to": recipient, "card": ch.label, "face_up": face_up}))
        if not any(a.type == "dealing_order" for a in r.alerts):
            v = self._deal_violation(r)
            if v is not None:
                who = v.recipient if v.recipient != "burn" else None
                exp = v.expected.recipient if v.expected is not None else None
                at = ch
                if v.step < len(r.deal) - 1:
                    # a card seen now shows an earlier one out of its turn: the evidence is that card's moment
                    at = replace(ch, t_s=r.deal[v.step][2], frame=self._frame_at(r.deal[v.step][2]))
                events += self._alert(r, "dealing_order", who, at, expected=exp, observed=v.recipient,
                                      rule=v.rule, message=v.message)
        return events + self._deal_progress(r, ch)

    def _second_cards_unseen(self, r: RoundRecord) -> None:
        """The hole card, the deal's last card (2.6, 2B.6(e)), has come while a player holding one face-up card lacks
        the second: it was dealt out of the camera's sight (laid on the first card, under a hand) and is recorded
        as ``unreadable`` where the order puts it.  Side bets come due at the last card seen (Spanish 21: at the
        hole card, 19.6(d)).  Not a dealing-order fault: a dealer who deals the hole card early still deals the
        player's card after it, and that card is then seen as a card beyond the deal."""
        seats = self._deal_seats(r)
        short = [s for s in seats if _face_up_count(r.seats[s].dealt) == 1]
        if not short or any(_face_up_count(r.seats[s].dealt) == 0 for s in seats):
            return
        t = r.deal[-1][2]
        for seat in short:
            rec = r.seats[seat]
            label = next((c for c in rec.tucked if c not in rec.dealt), UNREADABLE)
            rec.dealt.append(label)
            rec.dealt_at.append(None)
            r.deal.append((DealEvent(seat, True), label, t))

    def _card_squared(self, ch: ZoneChange, owner, kind: str) -> list[Event]:
        """A second face-down card laid square on a player's first (Switch Hands, 13:69F-2B.6(d)), seen as that card
        stepping in place: a step of the deal, whose order it shows (4K seed 7169 r2: seat 6 dealt first, seat 3's
        first card then taken for its second, the fault unseen). Only while the seat holds that one face-down card;
        the zone still shows one card, so nothing else changes."""
        r = self.current
        if (r is None or r.phase != "deal" or kind != "cards" or not isinstance(owner, int)
                or self.profile.effective_deal_order != "switch_hands"):
            return []
        s = r.seats.get(owner)
        if s is None or s.dealt != [BACK]:
            return []
        return self._dealt(r, replace(ch, kind="card_arrived"), owner)

    def _card_tucked(self, r: RoundRecord, ch: ZoneChange, owner) -> list[Event]:
        """A face seen arriving under a seat's bonus wager, where the dealer tucks a bonus winner's two cards until
        the wager is settled (13:69F-2.20): a card of the seat's own, so one it was not seen to be dealt (the
        dealer's hand over it, 1080p seed 7023: a KC seen for 0.1 s before the AD and it were tucked) is its
        second card, recorded where the deal's order puts it (:meth:`_second_cards_unseen`) or read in place of
        an ``unreadable`` one."""
        s = r.seats.get(owner) if isinstance(owner, int) else None
        if s is None or ch.label in (BACK, UNREADABLE):
            return []
        s.tucked.append(ch.label)
        if ch.label not in s.dealt and UNREADABLE in s.dealt[:2]:
            return self._card_reread(r, owner, UNREADABLE, ch.label)
        if r.phase == "deal" and ch.label not in s.dealt and _face_up_count(s.dealt) == 1:
            # the second card tucked with the first before it was believed where it was dealt (4K seed 7156 r1: an
            # AC seen 0.3 s on the spot, then under the wager): it is dealt by the time it is tucked, so the deal
            # goes on from here rather than taking the seat's next card (a hit) for a card out of turn
            return self._dealt(r, replace(ch, zone=f"seat{owner}.cards", position=None), owner)
        return []

    def _deal_progress(self, r: RoundRecord, ch: ZoneChange) -> list[Event]:
        """Side bets come due once every player (and, in Spanish 21, the dealer) has two cards; the deal ends
        once every player has all of them and the dealer two."""
        events: list[Event] = []
        seats = self._wagered(r)
        if r.sidebets_due_s is None and seats and all(len(r.seats[s].dealt) >= 2 for s in seats) and (
                self.profile.game != "spanish21" or len(r.dealer) >= 2) and r.dealer:
            r.sidebets_due_s = ch.t_s
            if ch.zone == "dealer.cards" and len(r.deal) >= 2 and r.deal[-2][1] == UNREADABLE and \
                    self.profile.game != "spanish21":
                r.sidebets_due_s = r.deal[-2][2]  # a player's second card was dealt unseen, before the hole card
            if ch.zone == "dealer.cards" and len(r.dealer) == 2 and ch.label != BACK and len(r.deal) >= 2:
                # the hole card first seen face up, already turned: it was dealt, unseen, after the last card before
                r.sidebets_due_s = r.deal[-2][2]
            events += self._side_bets_due(r, ch)
        # every player's two face-up cards (Switch Hands' face-down pair may lie unseen under them, 2B.6(d))
        if seats and all(_face_up_count(r.seats[s].dealt) >= 2 for s in seats) and len(r.dealer) >= 2:
            self._end_deal(r)
        return events

    def _end_deal(self, r: RoundRecord) -> None:
        r.phase = "play"
        self._new_shoe = False
        if self.profile.effective_deal_order == "switch_hands":
            for s in self._deal_seats(r):
                rec = r.seats[s]
                missing = 2 - sum(c == BACK for c in rec.dealt[:2])
                if missing > 0 and _face_up_count(rec.dealt) >= 2:
                    # the face-down pair was seen as one card (squared one on the other): both are there (2B.6(d))
                    rec.dealt[:0] = [BACK] * missing
                    rec.dealt_at[:0] = [None] * missing
                rec.kept = [c for c in rec.dealt if c != BACK][:2]  # the face-up pair, until the player switches

    def _deal_over_unseen(self, r: RoundRecord, owner) -> bool:
        """A card to a player who already holds both face-up cards of the deal, when every player does and the
        dealer has the up card: this card is a hit, and whatever of the deal was not seen (the hole card slid
        under the up card, a face-down card squared on another) was dealt out of the camera's sight."""
        if owner == "dealer" or owner not in r.seats or not r.dealer:
            return False
        seats = self._deal_seats(r)
        return owner in seats and all(_face_up_count(r.seats[s].dealt) >= 2 for s in seats)

    def _deal_full(self, r: RoundRecord) -> bool:
        """As many cards seen in the deal as it has (a card read twice, a player seen with one card): the next card
        is play, not an extra card of the deal."""
        seats = self._deal_seats(r)
        if not seats or len(r.dealer) < 2:
            return False
        burn = self.profile.expects_burn_card and self._new_shoe
        return len(r.deal) >= len(expected_deal_order(self.profile.effective_deal_order, seats, burn))

    def _end_deal_unseen(self, r: RoundRecord, ch: ZoneChange) -> list[Event]:
        """End the deal at the last card seen in it; an unseen hole card is taken as dealt just after that card
        (Spanish 21's side bets come due then, 13:69F-19.6(d))."""
        last_t = r.deal[-1][2] if r.deal else ch.t_s
        at = ZoneChange("card_arrived", "dealer.cards", self._frame_at(last_t), last_t, ch.confirmed_frame,
                        ch.confirmed_t_s, label=BACK)
        if len(r.dealer) == 1:
            r.dealer.append(BACK)
            r.hole_unseen = True
        events: list[Event] = []
        if r.sidebets_due_s is None and self._wagered(r):
            r.sidebets_due_s = last_t
            events += self._side_bets_due(r, at)
        self._end_deal(r)
        return events

    def _side_bets_due(self, r: RoundRecord, ch: ZoneChange) -> list[Event]:
        """Expected side-bet outcomes, decided by the up card and each seat's first two cards."""
        events: list[Event] = self._unvalued_wagers(r, ch.t_s, force=True) if r.unvalued_at_first else []
        up_label = r.dealer[0]
        bettors = [s for s in r.seats.values() if any(_placed(s, b) for b in SIDE_BETS)]
        if not bettors:
            return events
        if up_label in (BACK, UNREADABLE):
            for s in bettors:
                events += self._alert(r, "unreadable", "dealer", ch, message="the dealer's up card could not be read")
            return events
        for s in bettors:
            if not self._expect_side_bets(r, s):
                events += self._alert(r, "unreadable", s.seat, ch,
                                      message=f"seat {s.seat}'s first two cards could not be read: {s.dealt[:2]}")
        events.append(Event("side_bets_due", ch.t_s, ch.frame, r.index,
                            {s.seat: {b: s.expected[b].outcome for b in s.expected} for s in bettors}))
        # a payout placed before the engine knew the side bets were due (Spanish 21's hole card dealt unseen, the
        # deal ended by the first hit) is judged now that its outcome is known
        for s in bettors:
            for bet in SIDE_BETS:
                paid_by = s.settled_by.get(bet)
                if bet in s.observed_payout and paid_by is not None and paid_by.zone.endswith(".payout") and \
                        not self._payout_growing(paid_by):
                    events += self._check_payout(r, s, bet, paid_by)
        return events

    def _expect_side_bets(self, r: RoundRecord, s: SeatRecord) -> bool:
        """Set ``s.expected`` for its side bets from the up card and its first two cards; False if unreadable."""
        first = s.first_two
        if not r.dealer or len(first) != 2 or any(c in (BACK, UNREADABLE) for c in first + r.dealer[:1]):
            return False  # two cards not seen (a seat whose main wager the camera missed may have had none)
        # a wager seen but not valued is settled at a nominal amount the limits allow: its outcome is the cards',
        # its payout unknown.  A side bet at its least ($1: 2.20(a), 19.6(b); or the posted minimum, 2.23(c)); a
        # main wager never below a side bet beside it (19.6(b)1) nor the posted minimum
        wagers = {k: _money(v) for k, v in s.wagers.items() if v}
        least = {"mtd": _money(self.profile.mtd_min or 1), "bonus": Fraction(1)}
        wagers.update({k: least[k] for k in s.unvalued if k not in wagers and k in least})
        if "main" in s.unvalued and "main" not in wagers:
            wagers["main"] = max([*wagers.values(), _money(self.profile.main_min or 1)])
        try:
            hand = SeatHand(s.seat, tuple(parse_card(c) for c in first), wagers)
            res = settle_round(self.profile, parse_card(r.dealer[0]), [hand]).seats[0]
        except ValueError:
            return False  # wagers the rules cannot settle as seen (a side bet whose main wager was not seen)
        for bet in SIDE_BETS:
            if _placed(s, bet):
                s.expected[bet] = res.result(bet)
        return True

    @staticmethod
    def _hole_card_unreadable(r: RoundRecord) -> bool:
        """The dealer's hole card (the second card, dealt face down) was read ``unreadable`` and not yet turned."""
        return len(r.dealer) >= 2 and r.dealer[1] == UNREADABLE and BACK not in r.dealer and r.hole_revealed_s is None

    def _card_turned(self, r: RoundRecord, ch: ZoneChange, owner) -> list[Event]:
        if owner == "dealer":
            if BACK in r.dealer:
                r.dealer[r.dealer.index(BACK)] = ch.label
            elif self._hole_card_unreadable(r):
                r.dealer[1] = ch.label
            if r.hole_revealed_s is None:
                r.hole_revealed_s = ch.t_s
                r.phase = "dealer"
            return []
        s = r.seats.get(owner)
        if s is not None:
            s.turned = (ch.t_s, ch.position)
            backs = [i for i, c in enumerate(s.dealt) if c == BACK]
            if backs:
                # the card turned over is the face-down card lying where the face now shows
                known = [i for i in backs if i < len(s.dealt_at) and s.dealt_at[i] is not None]
                if ch.position is not None and known:
                    i = min(known, key=lambda j: (s.dealt_at[j][0] - ch.position[0]) ** 2
                            + (s.dealt_at[j][1] - ch.position[1]) ** 2)
                else:
                    i = backs[0]
                s.dealt[i] = ch.label
            elif s.kept is not None and s.kept == s.dealt[:2]:
                # Switch Hands, both of the face-down pair already turned: a face now is a hit, even one landing
                # over a card of the pair in the instant that card's index is lost (4K seed 7185: a QH hit over the
                # 7C kept, 1.2 s after the pair turned; a card read anew where it settled, which this once took it
                # for, is now followed by the tracker)
                s.hits.append(ch.label)
                s.hits_at.append(ch.position)
                s.hits_t.append(ch.t_s)
            if s.kept is not None:
                self._keep_turned_pair(s, ch.zone)
        return []

    def _keep_turned_pair(self, s: SeatRecord, zone: str) -> None:
        """Switch Hands, a card of the face-down pair just turned over: the pair kept (2B.6(f)). Both turned, that
        pair. One turned once the face-up pair has left the layout: the player switched, so that pair too, its card
        not yet read ``unreadable`` (4K seed 7141 r0: the JS under the AD never showed its index, and the face-up
        5H 9S taken away were reported as the pair kept)."""
        turned = [c for c in s.dealt[:2] if c != BACK]
        if len(turned) == 2:
            s.kept = turned
        elif turned and len(s.dealt) >= 4 and not any(c in self._cards.get(zone, ()) for c in s.dealt[2:4]):
            s.kept = [c if c != BACK else UNREADABLE for c in s.dealt[:2]]

    def _extra_card(self, r: RoundRecord, ch: ZoneChange, owner) -> list[Event]:
        if owner == "dealer" and ch.label == BACK and r.hole_unseen and r.dealer[1:2] == [BACK]:
            # the hole card taken as dealt out of sight, seen now, face down where it lies: no card beyond the deal
            r.hole_unseen = False
            return []
        if owner == "dealer":
            r.dealer.append(ch.label)
            if len(r.dealer) > 2 and r.first_extra_card_s is None:
                return self._first_extra_card(r, ch)
            return []
        s = r.seats.setdefault(owner, SeatRecord(owner))
        s.hits.append(ch.label)
        s.hits_at.append(ch.position)
        s.hits_t.append(ch.t_s)
        if r.first_extra_card_s is None:
            return self._first_extra_card(r, ch)
        return []

    def _first_extra_card(self, r: RoundRecord, ch: ZoneChange) -> list[Event]:
        """The first card beyond the initial deal: settlements just before it may have been hidden behind it."""
        r.first_extra_card_s = ch.t_s
        events: list[Event] = []
        for s in r.seats.values():
            if "mtd" in s.settled_by:
                events += self._check_late(r, s, "mtd", s.settled_by["mtd"])
        return events

    # -- round end ----------------------------------------------------------------------------------

    def _cards_on_table(self) -> bool:
        """Cards lie in a seat's card or bonus zone or the dealer's: a card seen on a betting spot or a
        payout area is not one the dealer dealt (cards are dealt to the card zones), and a detector's
        phantom on a printed spot must not hold the round open."""
        return any(self._dealt_here(zone) for zone in self._cards if _is_card_zone(zone))

    def _dealt_here(self, zone: str) -> list[str]:
        """The cards lying in ``zone`` that are a round's, not set aside; ``unreadable`` ones aside too once the
        dealer's hand is open or cards have begun to leave (the pick-up): printed layout art that a card covered
        shows then."""
        left = list(self._cards.get(zone, ()))
        for label in self._stray.get(zone, ()):
            if label in left:
                left.remove(label)
        r = self.current
        if r is not None and (r.hole_revealed_s is not None or (
                r.first_card_s is not None and self._last_departure_t > r.first_card_s)):
            left = [c for c in left if c != UNREADABLE]
        return left

    def _wager_on_layout(self) -> bool:
        """A main wager stands on some seat's spot (valued, or seen but not valued)."""
        return any(v is None or v > 0 for zone, v in self._chips.items() if _zone_parts(zone)[1] == "main")

    def _card_arrival_held(self) -> bool:
        """A card already seen arriving on the layout but still held for ordering: the table is not clear."""
        return any(ch.kind == "card_arrived" and _is_card_zone(ch.zone) for _, _, ch in self._queue)

    def _check_round_end(self, force: bool = False) -> list[Event]:
        r = self.current
        if r is None or r.phase in ("betting", "closing") or r.first_card_s is None:
            return []
        if self._cards_on_table() or self._card_arrival_held() or (not force and self._bonus_awaiting_payout(r)):
            return []
        # all cards picked up, for long enough that a hand hiding the last ones would have moved on
        if not force and (self._now_t - self.latency_s) - self._last_departure_t < ROUND_END_S - 1e-9:
            return []
        r.pickup_done_s = self._last_departure_t
        for zone, labels in self._cards.items():
            # what is left is art read as a card: set aside, so its going and coming never count
            stray = self._stray.setdefault(zone, [])
            for label in labels[len(stray):] if _is_card_zone(zone) else []:
                stray.append(label)
        return self._end_checks(r)

    def _bonus_awaiting_payout(self, r: RoundRecord) -> bool:
        """A winning blackjack bonus not yet paid whose wager still stands on its spot: it is paid after the round,
        with the winner's cards under the wager until then (2.20(f)), cards the camera may not see there. Or whose
        payout zone's change is seen and held, not yet processed (seed 7013 at 1080p: the wager taken up with the
        cards, its payout placed a moment later and reported never paid)."""
        return any(self._bonus_unpaid(s) and (
            self._chips.get(f"seat{s.seat}.bonus", 0) != 0
            or any(q.kind == "chips" and q.zone == f"seat{s.seat}.payout" and q.after != 0 for _, _, q in self._queue))
            for s in r.seats.values())

    @staticmethod
    def _bonus_unpaid(s: SeatRecord) -> bool:
        res = s.expected.get("bonus")
        return (res is not None and res.outcome == "win" and "bonus" not in s.observed_payout
                and "bonus" not in s.paid_unvalued)

    def _end_checks(self, r: RoundRecord) -> list[Event]:
        """After pick-up: losing side bets never collected, winners never paid (2.23(e), 2.20(e))."""
        events: list[Event] = []
        ch = ZoneChange("end", "", self._frame_at(r.pickup_done_s), r.pickup_done_s, self._now_frame, self._now_t)
        for s in r.seats.values():
            for bet in SIDE_BETS:
                res = s.expected.get(bet)
                if res is None or not _placed(s, bet):
                    continue
                chips = r.clear_chips if r.clear_t is not None else self._chips
                zone = f"seat{s.seat}.{bet}"
                on_spot = zone in chips and chips[zone] != 0  # a stack seen but not valued stands there too
                if res.outcome == "lose" and not s.collected.get(bet) and on_spot:
                    events += self._alert(r, f"{bet}_not_collected", s.seat, ch, expected=s.wagers.get(bet), observed=0,
                                          wager=bet, rule="13:69F-2.20(e)" if bet == "bonus" else
                                          _mtd_rule(self.profile, "timing"),
                                          message=f"seat {s.seat}'s losing {bet} wager was never collected")
                if res.outcome == "win" and bet not in s.observed_payout and bet not in s.paid_unvalued:
                    expected = None if bet in s.unvalued else (res.payout if res.payout is not None
                                                               else res.payout_min)
                    events += self._alert(r, f"{bet}_underpaid", s.seat, ch, expected=expected, observed=0,
                                          wager=bet, rule="13:69F-2.20(j)" if bet == "bonus" else
                                          _mtd_rule(self.profile, "odds"),
                                          message=f"seat {s.seat}'s winning {bet} wager was never paid")
        r.phase = "closing"
        return events

    def _close_round(self, t_s: float, complete: bool) -> list[Event]:
        r = self.current
        if r is None:
            return []
        held = self._judge_growths(r, t_s, force=True) if r.pending_growths or r.merged_growths else []
        if r.unvalued_at_first:
            held += self._unvalued_wagers(r, t_s, force=True)
        if r.unvalued_payouts:
            held += self._unvalued_payouts(r, t_s, force=True, closing=True)
            if r.unvalued_payouts:
                self._closed_with_payouts.append(r)
        if r.end_s is None:
            r.end_s = t_s
        self.current = None
        return held + [Event("round_ended", t_s, self._now_frame, r.index, {"complete": complete})]

    # -- alerts ------------------------------------------------------------------------------------

    def camera_alert(self, kind: str, frame: int, t_s: float, shift_mm: float | None, message: str) -> list[Event]:
        """A camera alert (``camera_moved``, ``camera_lost``): on the open round, else on the table."""
        ch = ZoneChange("camera", "", frame, t_s, frame, t_s)
        r = self.current
        if r is not None:
            return self._alert(r, kind, None, ch, expected=0, observed=shift_mm, rule="", message=message)
        return self._table_alert(kind, None, ch, expected=0, observed=shift_mm, message=message)

    def _table_alert(self, kind: str, seat, ch: ZoneChange, expected=None, observed=None, wager: str | None = None,
                     message: str = "") -> list[Event]:
        """An alert of the table, outside any round (:attr:`table_alerts`, ``round_index`` -1), raised now."""
        alert = Alert(type=kind, seat=seat, t_s=ch.t_s, frame=ch.frame, expected=expected, observed=observed,
                      wager=wager, message=message, raised_t_s=max(self._now_t, ch.t_s),
                      raised_frame=max(self._now_frame, ch.frame), round_index=-1, utc=self._utc_at(ch.t_s))
        self.table_alerts.append(alert)
        if self.keep_rounds is not None and len(self.table_alerts) > 10 * self.keep_rounds:
            del self.table_alerts[: len(self.table_alerts) - 10 * self.keep_rounds]  # a long outage, live
        return [Event("alert", ch.t_s, ch.frame, -1, {"alert": alert})]

    def _utc_at(self, t_s: float) -> datetime | None:
        """Wall-clock UTC of video time ``t_s`` where the source gives it, else None."""
        if self._utc0 is None:
            return None
        return self._utc0 + timedelta(seconds=t_s)

    def _frame_at(self, t_s: float) -> int:
        return max(0, int(round(t_s * self.fps)))

    def _alert(self, r: RoundRecord, kind: str, seat, ch: ZoneChange, expected=None, observed=None,
               wager: str | None = None, rule: str = "", message: str = "", cards: list[str] | None = None) -> list[Event]:
        if any(a.type == kind and a.seat == seat and a.wager == wager for a in r.alerts):
            return []
        s = r.seats.get(seat) if isinstance(seat, int) else None
        alert = Alert(type=kind, seat=seat, t_s=ch.t_s, frame=ch.frame, expected=expected, observed=observed,
                      wager=wager, rule=rule, message=message,
                      cards=cards if cards is not None else (s.first_two if s else []),
                      raised_t_s=self._now_t, raised_frame=self._now_frame, round_index=r.index,
                      utc=self._utc_at(ch.t_s))
        r.alerts.append(alert)
        return [Event("alert", ch.t_s, ch.frame, r.index, {"alert": alert})]


def _turned_in_place(back_at: tuple | None, arrival: ZoneChange) -> bool:
    """A face-down card that left from ``back_at`` (mm) and ``arrival``, a face, are one card turned over: the
    dealer's hole card may move while it turns; a player's card is turned where it lies."""
    if arrival.zone.startswith("dealer.") or back_at is None or arrival.position is None:
        return True
    return _within(back_at, arrival.position, FLIP_MM)


def _placed(s: SeatRecord, bet: str) -> bool:
    """``s`` has chips on its ``bet`` spot: valued, or seen but not valued."""
    return bool(s.wagers.get(bet)) or bet in s.unvalued


def _face_up_count(cards: list[str]) -> int:
    return sum(c != BACK for c in cards)


def _money(v: float | int | Fraction) -> Fraction:
    if isinstance(v, Fraction):
        return v
    if isinstance(v, int):
        return Fraction(v)
    return Fraction(str(v))


def _wager_rule(profile: TableProfile, kind: str) -> str:
    if kind == "bonus":
        return "13:69F-2.20(b)"
    if kind == "mtd":
        return "13:69F-19.6(b)" if profile.game == "spanish21" else "13:69F-2.23(c)"
    return "13:69F-2.3"


def _mtd_rule(profile: TableProfile, what: str) -> str:
    if profile.game == "spanish21":
        return "13:69F-19.6(d)" if what == "timing" else "13:69F-19.6(e)"
    return "13:69F-2.23(e)" if what == "timing" else "13:69F-2.23(f)"


def _limit_of(profile: TableProfile, s: SeatRecord, wager: str | None) -> Any:
    amount = s.wagers.get(wager or "")
    if wager == "bonus":
        return 5 if amount and amount > 5 else 1
    if wager == "mtd":
        limits = [v for v in (s.wagers.get("main") if profile.game == "spanish21" else None, profile.mtd_max)
                  if v is not None]
        if profile.game == "spanish21" and amount is not None and amount < 1:
            return 1
        return min(limits) if limits else None
    amount = s.wagers.get("main")
    if profile.main_min is not None and amount is not None and amount < profile.main_min:
        return profile.main_min
    return profile.main_max
