"""Per-zone tracking: what each zone holds, stabilised over frames, as change events.

Each analysed frame brings the cards (labels) and chip stacks (values) detected
in every zone.  A zone's state changes only when the new reading has persisted:
``rise_s`` for something appearing (a card dealt, chips added), ``fall_s`` for
something disappearing, which is longer because the dealer's hand or a moving
card often hides a zone for a moment.  A change is reported with the time and
frame of the first reading that showed it (backdated), and the time it was
confirmed, so the audit can say both when a thing happened and when it knew.

Cards are tracked in one of two ways.  Without positions, as a multiset of labels per
zone (``10H``, ``BACK``, ``unreadable``): a label's count rises when more copies persist,
so one misread frame changes nothing, but a card read two ways for long enough counts
twice.  With positions (``by_position``: the detector's cards placed on the layout, in mm),
each physical card is a track: readings are matched to tracks by place, the track's card
is the vote of all its face readings, an ``unreadable`` reading never makes a card of its
own, and a card whose vote changes (a misread outvoted, a face-down card turned over in
place) is reported as ``card_relabelled`` rather than as one card leaving and another coming.

What the detector hands over for one card is not always one reading, so a reading that matches no card is
first weighed against the cards there (with the round engine's tolerance of unseen face-down cards, these rules
took the dealing-order alerts on 12 rendered round videos from 22 reported, 2 true, to 2 reported, 1 true; seats'
first two cards right 67 % -> 90 %):

* on a known corner of a card read elsewhere in the same frame: that corner, half covered by the next card
  and misread (it still votes);
* alone on the face of a card whose two corners show: a court card's picture read as an index;
* ``unreadable`` beside a face-down card: that card's border;
* within :data:`SAME_CARD_S` of a card's first reading: that card still sliding into place, or its other
  corner read as another card (cards to one spot come a pass of the deal apart).

A face-down card is followed by its box centre, which moves when a card dealt over it hides part of it
(:data:`BACK_MATCH_MM`), and a card's corners follow it only until it is confirmed: a confirmed card lies still,
and a card passing over it does not drag it along. A wager read for a moment in its seat's payout area (a loose
box) is kept on its spot.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from rules.cards import RED_SUITS
from rules.settle import WAGER_KINDS
from vision.grouping import SAME_CARD_PAIR_MM as CORNER_PAIR_MM, inside_card


@dataclass(frozen=True)
class ZoneChange:
    """One confirmed change in a zone.

    Attributes:
        kind: ``card_arrived``, ``card_left``, ``card_relabelled`` (the same card now read as ``label``,
            read before as ``previous``), ``card_squared`` (a second face-down card laid square on a zone's only
            card, face down: :data:`SQUARED_MM`; the zone still shows one card), ``chips``, or ``stack_seen`` and
            ``stack_left`` (one stack of a payout area first seen, and gone: :mod:`vision.stack_tracking`).
        zone: the zone name (``seat3.cards``).
        frame, t_s: the first analysed frame that showed the change (backdated).
        confirmed_frame, confirmed_t_s: when the change had persisted long enough to be believed.
        label: the card label for card changes.
        before, after: chip value in dollars for chip changes (``None`` = could not be read).
        position: (x, y) mm on the layout of the card that came or went, or of the stack valued.
        since_t_s: ``stack_seen`` and ``stack_left`` only: when that stack was first seen where it stands (s).
        stack: ``stack_seen`` and ``stack_left`` only: the stack's number (the tracker's, one per stack followed).
    """

    kind: str
    zone: str
    frame: int
    t_s: float
    confirmed_frame: int
    confirmed_t_s: float
    label: str | None = None
    before: float | None = None
    after: float | None = None
    position: tuple[float, float] | None = None
    previous: str | None = None
    since_t_s: float | None = None
    stack: int | None = None


OVERSHOOT_HOLD_S = 0.3
"""A chip reading first valued where it was unvalued and read lower a moment later is that value overshooting once the
lower reading has held this long (s, from its first sighting): shorter, it is as often a hand over the stack reading
it low for 0.3 s before it covers the stack again (a false pinching or underpaid payout)."""
TRACK_MATCH_MM = 12.0
"""A reading one of whose corners lies within this distance (mm on the layout) of a corner of a track's card is
that card. Cards fanned in a hand lie ~18 mm apart, corner to corner."""

BACK_MATCH_MM = 30.0
"""A face-down reading this close (mm) to a face-down card's centre is that card: its box centre shifts by up to
half a card's width when a card dealt over it (Switch Hands' face-up card) hides part of it."""

MARK_SAME_MM = 6.0
"""Corner readings this close (mm) are the same corner of a card."""

INDEX_SAME_MM = 10.0
"""Two boxes read within this distance (mm) of each other in one frame are one index boxed twice; the corner of a
card fanned beside it lies ~18 mm off."""

CORNER_SAME_MM = 8.0
"""A reading this close (mm) to a known corner of a card read elsewhere in the same frame is that corner, however it
reads (half covered by the next card); the next card's own corner lies 18-25 mm off."""

ON_FACE_ALONG = (0.12, 0.88)
"""A reading lies on a card's face (its picture or pips read as an index, :func:`_on_face`) between these shares of
the card's index diagonal; nearer either index corner it is the next card's index laid beside that corner (4K seed
7224 r1: a Switch Hands 2S dealt 28 mm from the 5C's index, at 0.89 of its diagonal, was set aside as the 5C's print
and the face-up pass read out of order, a false `dealing_order`). (0.1, 0.9) until the thirty-third session."""

SQUARED_MM = (7.0, BACK_MATCH_MM)
SQUARED_STEADY_MM = 2.5
"""A player's only card, face down and confirmed, whose box centre steps this far (mm) to a new place and stays there
(within :data:`SQUARED_STEADY_MM` for ``rise_s``) is a second face-down card squared on it: Switch Hands deals each
player two, the second laid on the first a pass of the deal later (2B.6(d)), and a camera sees one card back. On the
4K renders the step is 9-29 mm, one pass after the first card. A card dealt face up beside or over it moves its centre
too (3-13 mm), and is read: while any reading in the zone is not a card back, no step counts. The second card is not
always laid square at once (4K seed 7167: 29 mm off, then 11 mm back a frame later), so a step is timed from where it
came to rest."""

ART_FACES = 3
ART_SHARE = 0.2
"""A card read as a face fewer than :data:`ART_FACES` times in all, and in under :data:`ART_SHARE` of its readings,
is ``unreadable``: one face reading lent by a card passing over printed art does not make the art that card."""

BACK_REACH_MM = 65.0
"""An ``unreadable`` index this close (mm) to a face-down card's centre is on that card: half its diagonal, and
some, since the centre of a face-down card partly covered is the centre of the part that shows."""

UNREADABLE_WAIT_S = 0.45
"""A new card read only as ``unreadable`` is reported after this long (it may be read a frame or two later,
once the dealer's hand is off it); the round engine holds changes 0.7 s, so the report keeps its place in order."""

SET_ASIDE_SINCE_S = 0.5
"""A card's corner read as no card (on another card's face) since within this long of a card's first reading, and a
card's diagonal from it, is that card's other corner when it is read as that card later: seed 7119 at 4K, a 7C dealt
over a 7D, its top-left index lying on the 7D's face was set aside as the 7D's print for 1.4 s, then read 7C while a
hand hid the 7C's other corner and dealt to the seat as a hit. A card dealt later to the spot comes a pass of the deal
after the first (the real hit in seed 7115: a 3D laid 72 mm from the seat's first 3D, seconds later)."""

SAME_CARD_S = 0.3
SAME_CARD_MM = 100.0
"""A reading that matches no card, within this long of a card's first reading in the same zone and this close
(mm, a card's diagonal) to it, is that card: still settling into place, or its other corner read as another
card. Cards dealt to one spot come a pass of the deal apart (~1 s on a table of one player)."""

RELABEL_MARGIN = 2
RELABEL_SHARE = 0.25
"""A card's vote changes only when the new card leads the old by this many readings, and by this share of the
old one's: after hundreds of readings, a few dozen of a half-covered corner do not turn the card."""

COVER_MM = 45.0
"""A card seen arriving this close (mm) to a face card already reported covers part of its index (a hand's next card
lies 18-25 mm off): the covered card's face, read in the clear, is not changed by what its half-hidden index reads
afterwards (seed 7125 at 4K: an AD, once an 8C lay over it, read 4D for seconds and was relabelled; 45 rather than
40 since seed 7116 r2 at 4K, a Switch Hands pair spread with the top card's point 40.5 mm off). Turning over
(face down to face up, or back) is still followed."""

COVER_READ_CLEAR = 15
"""Readings of its face (analysed frames) a card needs before it is covered for that face to stand: one seen
briefly, misread as it landed, is still corrected after."""

COVER_READ_STEADY = (8, 0.9)
"""Fewer readings stand as well where they all but agree: this many at least, this share of them the card reported
(1080p seed 7006: a 7H read 7H in all of its 10 frames before the 9S was dealt over it; its half-covered corner then
read JH for 1.8 s and relabelled it)."""

COVER_READ_UNCONFIRMED = 3
"""A card not yet confirmed when another card lands over it is covered too where every one of its readings so far,
at least this many, named one face: that face stands, and it is the card reported once the card is confirmed.
Switch Hands' face-down pair is turned over together and spread, the top card over the other's index within a few
frames (4K seed 7116 r2: an AH read AH in the 3 frames before the 7S settled 40.5 mm off, then 4H, the 7S's ink
beside its index, for 4 s, and relabelled)."""

PRESENCE_DECAY = 0.8
PRESENCE_TO_CONFIRM = 0.7
"""A track's presence is a running average of seen (1) / not seen (0) over analysed frames, decayed by
:data:`PRESENCE_DECAY` each frame and starting at 0.5: a card seen frame after frame passes
:data:`PRESENCE_TO_CONFIRM` at its fourth reading, while something read in every other frame (printed layout
art, a glint) settles near 0.56 and never becomes a card. The same decay ages the recent face / back /
unreadable counts that tell a face-down card from a turned one."""


@dataclass
class _Track:
    pos: tuple[float, float]
    frame: int
    t_s: float
    last_t: float
    marks: list = field(default_factory=list)  # layout mm of the card's corners (or point) seen so far
    now_marks: list = field(default_factory=list)  # the corners read in the last frame it was seen
    faces: Counter = field(default_factory=Counter)  # face readings, all time
    recent: dict = field(default_factory=lambda: {"face": 0.0, "BACK": 0.0, "unreadable": 0.0})
    seen: int = 0
    reported: str | None = None  # the label last reported; None until the card is confirmed
    pending: tuple[str, int, float] | None = None  # (label, frame, t) a different label was first voted
    missing: tuple[int, float] | None = None  # (frame, t) first analysed frame without it
    presence: float = 0.5
    clear_face: str | None = None  # covered: the face read in the clear before another card was laid over it
    clear_colour: str | None = None  # the one face every reading named before a card landed beside it
    rest: tuple[float, float] | None = None  # face down and confirmed: where its box centre lay still
    step: tuple | None = None  # ((x, y) mm, frame, t_s, still since t_s): where its centre stepped to, and when
    squared: bool = False  # a second face-down card seen laid square on it
    last_p: tuple[float, float] | None = None  # where it was read last (mm), unsmoothed
    now_label: str | None = None  # what it was read as last (in frame ``last_t``)

    @property
    def covered(self) -> bool:
        """Another card has been seen laid beside or over it (:data:`COVER_MM`) once its face stood."""
        return self.clear_face is not None

    def _art(self) -> bool:
        """Read unreadable nearly always, and as a card only a couple of times: printed layout art (or a felt
        mark) that a card passing over it lent a reading, not a card."""
        faces = sum(self.faces.values())
        return faces < ART_FACES and faces < ART_SHARE * self.seen

    def label(self) -> str:
        """The card as voted: face down when mostly seen so lately, else the face vote, else unreadable."""
        r = self.recent
        if r["BACK"] > r["face"] and r["BACK"] >= r["unreadable"] * 0.5:
            return "BACK"
        if self.faces and not self._art():
            best, n = self.faces.most_common(1)[0]
            held = self.faces.get(self.reported, 0) if self.reported in self.faces else None
            if held is not None and n < held + max(RELABEL_MARGIN, RELABEL_SHARE * held):
                return self.reported  # hysteresis: near ties keep the card as reported
            if self.reported == "unreadable" and len(self.faces) > 1 and \
                    n < self.faces.most_common(2)[1][1] + RELABEL_MARGIN:
                # a card reported unreadable is named only by a clear vote: faces read nearly as often as each
                # other are a guess (4K seed 7193 r1: an 8S read 8S twice and QS three times as it was picked up)
                return "unreadable"
            return best
        return "BACK" if r["BACK"] > 0 and r["BACK"] >= r["face"] else "unreadable"


@dataclass
class _Pending:
    value: object
    frame: int
    t_s: float
    points: list = field(default_factory=list)


def _stacks_kept_in_place(before: dict[str, float | None], now: dict[str, float | None]) -> dict[str, float | None]:
    """``now`` (zone -> chip value), with a wager that seems to have jumped from its betting spot to the seat's
    payout area since the last frame put back on its spot: the same value gone from the spot and new beside it.
    Stage 1 now and then boxes a stack loosely (with the dealer's hand or its shadow), and the base found from a
    loose box can lie in the payout area; a wager is never slid into the payout area (winnings are slid onto the
    spot, between rounds, so that way round is a move). A spot still showing a stack, valued or not, kept its wager:
    the value beside it is a payout of the same amount (4K seed 7238 r1: an unvalued $150 wager read $75 for 0.3 s
    as a $75 payout was set beside it, the payout then put back on the spot as if the wager had moved)."""
    out = dict(now)
    for zone, value in now.items():
        if value is None or before.get(zone) or not (zone.startswith("seat") and zone.endswith(".payout")):
            continue
        seat = zone.split(".", 1)[0]
        home = next((z for z, v in before.items() if z.split(".", 1)[0] == seat and z.split(".", 1)[1] in
                     ("main", "mtd", "bonus") and v == value and out.get(z, 0) == 0), None)
        if home is not None:
            del out[zone]
            out[home] = value
    return out


def _pair_turned_face_up(young: _Track, label: str, p, tracks: list[_Track], t_s: float) -> bool:
    """Switch Hands' face-down pair kept and turned face up where it lay, squared: one card's index shows at one
    corner and the other's at the opposite one, a card's diagonal apart, as one card's two corners do. Read in the
    same frame as two different faces where a squared face-down pair is still tracked (not yet seen gone), they are
    two cards, not one card's corners voting against each other (4K seed 7238 r1: the 9D and the KS on it tracked as
    one card, read 9D 13 times and KS 11, the KS never reported). A hit laid later finds no face-down pair there."""
    if young.last_t != t_s or label in ("BACK", "unreadable") or young.label() in ("BACK", "unreadable", label):
        return False
    return any(o.squared and o.reported == "BACK" and math.dist(o.pos, p) <= COVER_MM for o in tracks)


def _on_face(point, tr: _Track, known: bool = False) -> bool:
    """``point`` (mm) lies on the face of ``tr``'s card, between two of its corners a card's diagonal apart that
    were both read this frame (so no card lies over it), or (``known``) that it is known to have."""
    marks = tr.marks if known else tr.now_marks
    for i, a in enumerate(marks):
        for b in marks[i + 1:]:
            if CORNER_PAIR_MM[0] <= math.dist(a, b) <= CORNER_PAIR_MM[1] and inside_card(
                    np.asarray(point, float), np.asarray(a, float), np.asarray(b, float), along=ON_FACE_ALONG,
                    across=0.4):
                return True
    return False


def _corners_known(marks: list) -> bool:
    """Two of ``marks`` (mm) lie a card's diagonal apart: both index corners of the card are known.

    A confirmed card that lies still has no other index corner to learn, so a mark further off than
    :data:`TRACK_MATCH_MM` is the next card's corner that the grouping read with it (seed 7001 at 1080p: a KC
    dealt over a QD lent the QD track its corner 27 mm from the QD's own, and every later reading of the KC
    matched the QD there, so the KC was never dealt)."""
    return any(CORNER_PAIR_MM[0] <= math.dist(a, b) <= CORNER_PAIR_MM[1]
               for i, a in enumerate(marks) for b in marks[i + 1:])


def _second_boxes_dropped(labels: list[str], pts: list, marks: list[list]) -> tuple[list, list, list]:
    """One frame's readings of a zone, less the second boxes on an index already read.

    Stage 1 now and then boxes one index twice, a few mm apart, and each box is read: counted as two looks, a
    misread box outvotes the card (4K seed 7274 r0: a JD's top index boxed twice 9 mm apart, both read 7D, against
    the JD its bottom index read, and reported 7D). A face read from one corner within :data:`INDEX_SAME_MM` of a
    corner of a face read from two or more corners (in this frame, otherwise) is dropped: the card whose two ends
    agree is what lies there. Two one-corner faces alike that close are one reading, at the middle of the two.

    Args:
        labels: the readings' labels; pts: their points (mm); marks: per reading, its corners (mm).

    Returns:
        ``(labels, pts, marks)`` as given (the same lists where nothing is dropped), less the second boxes.
    """
    face = [lab not in ("BACK", "unreadable") for lab in labels]
    dropped: set[int] = set()
    moved: dict[int, tuple[float, float]] = {}
    for k, (lab, ms) in enumerate(zip(labels, marks)):
        if not face[k] or len(ms) != 1:
            continue
        for j, (other, ns) in enumerate(zip(labels, marks)):
            if j == k or j in dropped or not face[j] or not any(math.dist(ms[0], n) <= INDEX_SAME_MM for n in ns):
                continue
            if len(ns) >= 2 and other != lab:
                dropped.add(k)
                break
            if len(ns) == 1 and other == lab and j < k:
                dropped.add(k)
                moved[j] = ((ns[0][0] + ms[0][0]) / 2, (ns[0][1] + ms[0][1]) / 2)
                break
    if not dropped:
        return labels, pts, marks
    keep = [k for k in range(len(labels)) if k not in dropped]
    return ([labels[k] for k in keep], [moved.get(k, pts[k]) for k in keep],
            [[moved[k]] if k in moved else marks[k] for k in keep])


def _covered_corners_dropped(tracks: list, labels: list[str], marks: list[list]) -> list[list]:
    """Each reading's corner marks, less those that are another card's corner under it.

    A card dealt over the previous one can lie with an index on (or just beside) that card's
    known corner, and the grouping then reads that corner as part of the new card: the new card
    matched the old card's track through it and was never dealt (seed 7019 at 1080p: a 2H laid
    over a 7C, one of its three marks on the 7C's lower corner). A mark within
    :data:`CORNER_SAME_MM` of a corner of a card reported as another face is dropped from a
    reading when the reading has, away from that card (> :data:`TRACK_MATCH_MM`), two corners a
    card's diagonal apart (a card of its own) and that card is read as itself at another of its
    corners in the same frame: it is seen, so what lies on its corner with a different label is
    the card over it.

    Args:
        tracks: the zone's card tracks; labels: this frame's readings; marks: per reading, its corners (mm).

    Returns:
        A new list of marks per reading (the same lists where nothing is dropped).
    """
    out = list(marks)
    for tr in tracks:
        face = tr.reported
        if face in (None, "BACK", "unreadable") or len(tr.marks) < 2:
            continue
        for k, (label, ms) in enumerate(zip(labels, out)):  # out: what other cards' corners left of it
            if label in (face, "BACK", "unreadable") or len(ms) < 2:
                continue
            on = [m for m in ms if min(math.dist(m, c) for c in tr.marks) <= CORNER_SAME_MM]
            away = [m for m in ms if min(math.dist(m, c) for c in tr.marks) > TRACK_MATCH_MM]
            # what is left must be a card of its own: two corners a card's diagonal apart (not one mark of a
            # court card's picture beside its index)
            if not on or not any(CORNER_PAIR_MM[0] <= math.dist(a, b) <= CORNER_PAIR_MM[1]
                                 for i, a in enumerate(away) for b in away[i + 1:]):
                continue
            # the card under it, read as itself at a corner of its own that this reading does not touch
            itself = any(lab == face and j != k and any(
                min(math.dist(m, c) for m in ms2) <= TRACK_MATCH_MM and min(math.dist(c, m) for m in on) > TRACK_MATCH_MM
                for c in tr.marks) for j, (lab, ms2) in enumerate(zip(labels, marks)))
            if itself:
                out[k] = [m for m in ms if m not in on]
    return out


def _one_face(tr: _Track) -> str | None:
    """The face every one of ``tr``'s readings so far named, at least :data:`COVER_READ_UNCONFIRMED` of them, or
    None."""
    if len(tr.faces) != 1:
        return None
    face, n = next(iter(tr.faces.items()))
    return face if n >= COVER_READ_UNCONFIRMED else None


def _clear_face(tr: _Track) -> str | None:
    """The face ``tr``'s card was read as in the clear for long enough to stand once a card covers part of it, or
    None: its reported face (:data:`COVER_READ_CLEAR`, :data:`COVER_READ_STEADY`), or, for a card not yet
    confirmed, the one face all its readings gave (:data:`COVER_READ_UNCONFIRMED`)."""
    if tr.reported is None:
        face = _one_face(tr)
        if face is None or tr.recent["BACK"] > tr.recent["face"]:
            return None
        return face if tr.faces[face] >= COVER_READ_STEADY[1] * tr.seen else None
    if tr.reported in ("BACK", "unreadable"):
        return None
    return tr.reported if _read_clear(tr) else None


def _read_clear(tr: _Track) -> bool:
    """Whether ``tr``'s reported face was read in the clear for long enough to stand once a card covers part of it
    (:data:`COVER_READ_CLEAR`, :data:`COVER_READ_STEADY`)."""
    n = tr.faces.get(tr.reported, 0)
    least, share = COVER_READ_STEADY
    return n >= COVER_READ_CLEAR or (n >= least and n >= share * sum(tr.faces.values()))


def _other_colour(label: str, card: str) -> bool:
    """A face reading whose suit is of the other colour than ``card``'s: no part of that card's face (its pips and
    picture bear its own suit), but another card's index, dealt over it (seed 7124: JS on 7H's face)."""
    if label in ("BACK", "unreadable") or card in ("BACK", "unreadable"):
        return False
    return (label[-1] in RED_SUITS) != (card[-1] in RED_SUITS)


class _StableSignal:
    """A scalar reading made stable by persistence; asymmetric for rises and falls."""

    def __init__(self, initial: object, rise_s: float, fall_s: float) -> None:
        self.value = initial
        self.rise_s = rise_s
        self.fall_s = fall_s
        self._pending: _Pending | None = None
        self._rose: tuple[float, object] | None = None  # (first seen s, value before) of the last rise

    def update(self, reading: object, frame: int, t_s: float, points: list | None = None) -> tuple[_Pending, object] | None:
        """Feed one reading; returns (first sighting, old value) when the stable value changes.

        A fall is confirmed after ``fall_s`` (a hand hides a stack as often as it takes it), except a fall back to
        what was read before the last rise (a value, or unvalued; not nothing), begun within ``fall_s`` of that
        rise: the rise undone so soon was a misreading (a dealer's arm over a wager read as one $1,000 chip for
        0.3 s, 4K seed 7174 r1; an unvalued $150 wager read $75 for 0.3 s as a payout was set beside it, 1080p seed
        7050 r1), and it is confirmed as quickly as the rise was, so the round engine, holding changes for its
        latency, sees both. So is a fall part of the way back, to a value between the two: the rise overshot (4K
        seed 7256 r1: a payout of $225 read $267 for 0.3 s as $17 more was set beside it, then $242). From unvalued,
        a lower value held :data:`OVERSHOOT_HOLD_S` is so too (4K seed 7299 r0: a payout unvalued for 7 s read $155
        for 0.3 s, then $150)."""
        if reading == self.value:
            self._pending = None
            return None
        if self._pending is None or self._pending.value != reading:
            # a reading that flickers between two new values restarts the clock only when it changes again
            self._pending = _Pending(reading, frame, t_s, list(points or []))
            return None
        rising = _is_rise(self.value, reading)
        undone = (not rising and reading != 0 and self._rose is not None
                  and (reading == self._rose[1] or _between(reading, self._rose[1], self.value))
                  and self._pending.t_s - self._rose[0] <= self.fall_s + 1e-9)
        wait = self.rise_s if rising or undone else self.fall_s
        if undone and self._rose[1] is None and reading is not None:
            # from unvalued, a lower value is the rise overshooting only if it holds: a hand over the stack reads it
            # low for 0.3 s as often (then unvalued again as it covers it)
            wait = max(wait, OVERSHOOT_HOLD_S)
        if t_s - self._pending.t_s + 1e-9 >= wait:
            old, first = self.value, self._pending
            self.value = reading
            self._pending = None
            self._rose = (first.t_s, old) if rising else None
            return first, old
        return None


def _changed_points(known: list, now: list, arrived: bool) -> list:
    """The positions that came (``arrived``) or went: points of one list not near any of the other."""
    if arrived:
        out, pool = [], list(known)
        for p in now:
            near = min(pool, key=lambda q: (q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2, default=None)
            if near is not None and (near[0] - p[0]) ** 2 + (near[1] - p[1]) ** 2 < 20.0 ** 2:
                pool.remove(near)
            else:
                out.append(p)
        return out
    out, pool = [], list(now)
    for q in known:
        near = min(pool, key=lambda p: (q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2, default=None)
        if near is not None and (near[0] - q[0]) ** 2 + (near[1] - q[1]) ** 2 < 20.0 ** 2:
            pool.remove(near)
        else:
            out.append(q)
    return out


def _between(value: object, low: object, high: object) -> bool:
    """``value`` a chip value strictly between ``low`` and the valued ``high``, ``low`` a stack (not nothing: a stack
    placed and partly taken soon after is a fall like any other). An unvalued ``low`` is a stack of no known value:
    any value above nothing and under ``high`` lies between (4K seed 7299 r0: a payout stack unvalued for 7 s, read
    $155 for 0.3 s as the dealer's hand left it, then $150). ``None``, unvalued, is between nothing."""
    if value is None or high is None or low == 0:
        return False
    if low is None:
        return 0 < _as_number(value) < _as_number(high)
    return _as_number(low) < _as_number(value) < _as_number(high)


def _is_rise(old: object, new: object) -> bool:
    """Whether a reading going from ``old`` to ``new`` is confirmed as quickly as an arrival (``rise_s``) rather
    than as a departure (``fall_s``). ``None`` is something there that could not be valued: a stack going from
    unvalued to nothing has gone (a hand hides it for a moment as often as it takes it); one whose value becomes
    known, or a card count that grows, has arrived."""
    if new == 0:
        return False
    if old == 0 or old is None:
        return True
    if new is None:
        return False
    return _as_number(new) > _as_number(old)


def _as_number(v: object) -> float:
    if v is None:
        return -1.0
    return float(v)  # type: ignore[arg-type]


@dataclass
class ZoneState:
    """What one zone holds now, as believed.

    Attributes:
        cards: stable multiset of card labels.
        chips: stable chip value in dollars (``None`` when the stack could not be valued).
        since_t_s: time of the last change.
    """

    cards: Counter = field(default_factory=Counter)
    chips: float | None = 0
    since_t_s: float = 0.0


class ZoneTracker:
    """Tracks every zone's cards and chip value over frames.

    Args:
        zones: the zone names to track.
        rise_s: seconds a new card or a chip increase must persist.
        fall_s: seconds a card's absence or a chip decrease must persist.
        by_position: track each card by its place on the layout (frames must then come with
            ``card_points``; a zone's frame without them falls back to the label multiset).

    Example:
        >>> t = ZoneTracker(["seat1.cards"], rise_s=0.2, fall_s=0.5)
        >>> [c.kind for f in range(4) for c in t.update(f, f * 0.1, {"seat1.cards": ["AS"]}, {})]
        ['card_arrived']
    """

    def __init__(self, zones: Iterable[str], rise_s: float = 0.3, fall_s: float = 1.0,
                 by_position: bool = False) -> None:
        self.zones = list(zones)
        self.rise_s, self.fall_s = rise_s, fall_s
        self.by_position = by_position
        self._tracks: dict[str, list[_Track]] = {z: [] for z in self.zones}
        self.state: dict[str, ZoneState] = {z: ZoneState() for z in self.zones}
        self._card_signals: dict[tuple[str, str], _StableSignal] = {}
        self._chip_signals: dict[str, _StableSignal] = {z: _StableSignal(0, rise_s, fall_s) for z in self.zones}
        self._positions: dict[tuple[str, str], list[tuple[float, float]]] = {}
        self._last_chips: dict[str, float | None] = {}
        # per zone, readings set aside as print on a card's face: [point mm, first seen s, last seen s]
        self._set_aside: dict[str, list[list]] = {z: [] for z in self.zones}
        from vision.stack_tracking import HiddenPayoutStacks, PayoutStackTracker  # (they use this module's ZoneChange)

        self._payout_stacks = PayoutStackTracker(rise_s, fall_s)
        self._hidden_stacks = HiddenPayoutStacks()
        self._wagers_gone: dict[str, list[tuple[float, float]]] = {}  # seat -> (s, $) of stacks gone from its spots
        self._stacks_given = False

    def update(self, frame: int, t_s: float, cards: dict[str, list[str]],
               chips: dict[str, float | None],
               card_points: dict[str, list[tuple[float, float]]] | None = None,
               card_marks: dict[str, list[list[tuple[float, float]]]] | None = None,
               chip_stacks: dict[str, list[tuple[float, float, float | None]]] | None = None) -> list[ZoneChange]:
        """Feed one analysed frame.

        Args:
            frame, t_s: the frame's index and time.
            cards: zone -> labels of the cards seen in it this frame.
            chips: zone -> chip value seen in it this frame (dollars; ``None`` when a stack
                was seen but not valued). Zones absent from the dict hold no chips.
            card_points: zone -> (x, y) mm of each card in ``cards`` (same order), optional;
                a card change then carries the position of the card that came or went.
            card_marks: ``by_position`` only, optional: zone -> per card, the (x, y) mm of the corner
                indices it was read from; a reading is then matched to the card one of whose corners lies
                where one of its own does (a card's point moves when another card covers a corner of it).
            chip_stacks: optional: zone -> each stack seen in it, (x, y) mm of its base and its value (dollars or
                ``None``); the stacks of payout areas are then followed one by one as well
                (:mod:`vision.stack_tracking`: ``stack_seen`` and ``stack_left`` changes).

        Returns:
            The changes confirmed by this frame, in time order.
        """
        changes: list[ZoneChange] = []
        before = self._last_chips
        chips = self._last_chips = _stacks_kept_in_place(before, chips)
        if chip_stacks is None and self._stacks_given:
            chip_stacks = {}  # (a source that places stacks on the layout and gives none this frame saw none)
        if chip_stacks is not None:
            self._stacks_given = True
            chips = self._hidden_payouts_counted(t_s, before, chips, chip_stacks)
        for zone in self.zones:
            labels = cards.get(zone, ())
            seen = Counter(labels)
            pts = (card_points or {}).get(zone)
            state = self.state[zone]
            # a zone with nothing on it ages its cards whether or not the frame came with positions (a detector
            # frame with no card anywhere has none): the last cards picked up must leave
            if self.by_position and (not labels or card_points is not None and (pts is None or len(pts) == len(labels))):
                marks = (card_marks or {}).get(zone)
                if marks is None or len(marks) != len(labels):
                    marks = [[tuple(p)] for p in (pts or [])]
                changes += self._update_tracks(zone, frame, t_s, list(labels), list(pts or []), marks)
                self._chip_update(zone, frame, t_s, chips, changes)
                continue
            for label in sorted(set(seen) | set(state.cards)):
                key = (zone, label)
                sig = self._card_signals.get(key)
                if sig is None:
                    sig = self._card_signals[key] = _StableSignal(0, self.rise_s, self.fall_s)
                here = ([p for lab, p in zip(labels, pts) if lab == label]
                        if pts is not None and len(pts) == len(labels) else None)
                res = sig.update(seen.get(label, 0), frame, t_s, here)
                if res is None:
                    continue
                first, old = res
                new = sig.value
                kind = "card_arrived" if new > old else "card_left"
                moved = _changed_points(self._positions.get(key, []), first.points, kind == "card_arrived")
                if kind == "card_arrived":
                    self._positions[key] = self._positions.get(key, []) + moved
                else:
                    self._positions[key] = [p for p in self._positions.get(key, []) if p not in moved]
                for i in range(abs(int(new) - int(old))):
                    changes.append(ZoneChange(kind, zone, first.frame, first.t_s, frame, t_s, label=label,
                                              position=moved[i] if i < len(moved) else None))
                if new:
                    state.cards[label] = int(new)
                else:
                    state.cards.pop(label, None)
                state.since_t_s = first.t_s
            self._chip_update(zone, frame, t_s, chips, changes)
        if chip_stacks is not None:
            for zone in self.zones:
                if zone.endswith(".payout"):
                    changes += self._payout_stacks.update(zone, frame, t_s, chip_stacks.get(zone, []))
        changes.sort(key=lambda c: (c.t_s, c.kind != "card_arrived"))
        return changes

    def _hidden_payouts_counted(self, t_s: float, before: dict[str, float | None], chips: dict[str, float | None],
                                chip_stacks: dict[str, list[tuple[float, float, float | None]]]) -> dict:
        """``chips`` with each payout area's total counting the stacks hidden behind a payout set down touching them
        (:class:`vision.stack_tracking.HiddenPayoutStacks`; every payout area fed every frame)."""
        from vision.stack_tracking import WAGER_DRAWN_S  # (it imports this module)

        out = dict(chips)
        for zone, value in before.items():
            seat, _, kind = zone.partition(".")
            if kind in WAGER_KINDS and value and not chips.get(zone):
                self._wagers_gone.setdefault(seat, []).append((t_s, value))
        for zone in self.zones:
            if not zone.endswith(".payout"):
                continue
            seat = zone.partition(".")[0]
            gone = [(t, v) for t, v in self._wagers_gone.get(seat, []) if t_s - t <= WAGER_DRAWN_S]
            self._wagers_gone[seat] = gone
            total = self._hidden_stacks.total(zone, t_s, chips.get(zone, 0), chip_stacks.get(zone, []),
                                              wagers_drawn=tuple(v for _, v in gone))
            if total != chips.get(zone, 0):
                out[zone] = total
        return out

    def finish(self, frame: int, t_s: float) -> list[ZoneChange]:
        """The end of the source (``frame``, ``t_s``): the changes only the end confirms (the payout stacks still
        followed, as last read: :meth:`vision.stack_tracking.PayoutStackTracker.finish`), for
        :meth:`vision.rounds.RoundEngine.finish`."""
        return self._payout_stacks.finish(frame, t_s)

    def _chip_update(self, zone: str, frame: int, t_s: float, chips: dict, changes: list[ZoneChange]) -> None:
        state = self.state[zone]
        res = self._chip_signals[zone].update(chips.get(zone, 0), frame, t_s)
        if res is not None:
            first, old = res
            state.chips = self._chip_signals[zone].value
            state.since_t_s = first.t_s
            changes.append(ZoneChange("chips", zone, first.frame, first.t_s, frame, t_s, before=old,
                                      after=state.chips))

    def _update_tracks(self, zone: str, frame: int, t_s: float, labels: list[str],
                       pts: list[tuple[float, float]], marks: list[list[tuple[float, float]]]) -> list[ZoneChange]:
        """One frame's readings of ``zone`` (labels, layout mm points and corner marks) matched to its card tracks."""
        tracks = self._tracks[zone]
        out: list[ZoneChange] = []
        labels, pts, marks = _second_boxes_dropped(labels, pts, marks)
        marks = _covered_corners_dropped(tracks, labels, marks)
        # a card not yet confirmed is judged on what it read before this frame: the frame a card lands over its index
        # is the first to misread it
        fresh = {id(tr): _clear_face(tr) for tr in tracks if tr.reported is None and not tr.covered}
        one_face = {id(tr): _one_face(tr) for tr in tracks if tr.clear_colour is None}
        free = set(range(len(tracks)))
        # a face-down card is placed by its box centre, which moves when a card dealt over it hides part of it
        back_scale = TRACK_MATCH_MM / BACK_MATCH_MM
        pairs = sorted((min(math.dist(a, b) for a in tr.marks for b in marks[k])
                        * (back_scale if labels[k] == "BACK" and tr.label() == "BACK" else 1.0), i, k)
                       for i, tr in enumerate(tracks) for k in range(len(pts)))
        taken: set[int] = set()
        for d, i, k in pairs:
            if d > TRACK_MATCH_MM or i not in free or k in taken:
                continue
            free.discard(i)
            taken.add(k)
            self._read(tracks[i], labels[k], pts[k], marks[k], t_s)
        for k, p in enumerate(pts):
            if k in taken:
                continue
            # a card read as two (its corners not grouped this frame) whose corners the track already knows
            d_owner, owner = next(((d, tracks[i]) for d, i, kk in pairs
                                   if kk == k and d <= TRACK_MATCH_MM and i not in free), (None, None))
            if owner is not None and (labels[k] in (owner.label(), "unreadable") or d_owner <= CORNER_SAME_MM):
                # ... or read otherwise, lying on one of its known corners: that corner half covered by the
                # card dealt next to it and misread, not a card of its own; a second look at the card all the same
                taken.add(k)
                if labels[k] not in ("BACK", "unreadable"):
                    owner.faces[labels[k]] += 1
                continue
            if len(marks[k]) == 1 and any(_on_face(marks[k][0], tr, labels[k] == "unreadable") for tr in tracks
                                          if tr.last_t == t_s and not _other_colour(labels[k], tr.label())):
                taken.add(k)  # a court card's picture read as an index
                self._remember_set_aside(zone, marks[k][0], t_s)
                continue
            if labels[k] == "unreadable" and any(
                    tr.label() == "BACK" and tr.last_t == t_s and math.dist(tr.pos, marks[k][0]) <= BACK_REACH_MM
                    for tr in tracks):
                taken.add(k)  # the border of a face-down card read as an index
                continue
            corner_of = self._other_corner_of(zone, tracks, labels[k], marks[k], t_s)
            if corner_of is not None:
                taken.add(k)  # that card's other corner, lying on the card under it since it was dealt
                self._vote(corner_of, labels[k], marks[k])
                continue
            young = self._young_track(tracks, labels[k], marks[k], t_s)
            if young is not None and _pair_turned_face_up(young, labels[k], p, tracks, t_s):
                young = None
            if young is not None:
                # a card's first moments: still settling, or its two corners read as two cards
                taken.add(k)
                if young.last_t < t_s:
                    self._read(young, labels[k], p, marks[k], t_s)
                else:
                    self._vote(young, labels[k], marks[k])
                continue
            tr = _Track(pos=tuple(p), frame=frame, t_s=t_s, last_t=t_s)
            self._read(tr, labels[k], p, marks[k], t_s)
            for other in tracks:
                if math.dist(other.pos, tr.pos) > COVER_MM:
                    continue
                if not other.covered:
                    other.clear_face = fresh.get(id(other)) if other.reported is None else _clear_face(other)
                if other.clear_colour is None:
                    other.clear_colour = one_face.get(id(other))
            tracks.append(tr)
        keep = []
        for tr in tracks:
            if tr.last_t < t_s:  # not seen this frame
                for key in tr.recent:
                    tr.recent[key] *= PRESENCE_DECAY
                tr.presence *= PRESENCE_DECAY
                tr.missing = tr.missing or (frame, t_s)
                if t_s - tr.missing[1] + 1e-9 >= self.fall_s:
                    if tr.reported is not None:
                        out.append(ZoneChange("card_left", zone, tr.missing[0], tr.missing[1], frame, t_s,
                                              label=tr.reported, position=tr.pos))
                    continue  # gone (an unconfirmed one silently: a flicker)
                keep.append(tr)
                continue
            tr.missing = None
            label = tr.label()
            if tr.reported == label == "BACK" and not tr.squared:
                if any(lab != "BACK" for lab in labels):
                    tr.step = None  # a card face up beside or over it (it moves its centre, and is a card of its own)
                elif not any(o is not tr and o.reported is not None for o in tracks):
                    # (another card seen here but not yet confirmed: the next one, still in the dealer's hand)
                    step = self._squared_step(tr, frame, t_s)
                    if step is not None:
                        out.append(ZoneChange("card_squared", zone, step[1], step[2], frame, t_s, label="BACK",
                                              position=step[0]))
            if tr.reported is None:
                ready = t_s - tr.t_s + 1e-9 >= self.rise_s and tr.seen >= 2 and tr.presence >= PRESENCE_TO_CONFIRM
                if ready and (label != "unreadable" or t_s - tr.t_s + 1e-9 >= UNREADABLE_WAIT_S):
                    if tr.covered and label != "BACK":
                        label = tr.clear_face  # covered before it was confirmed: the face read in the clear
                    tr.reported = label
                    out.append(ZoneChange("card_arrived", zone, tr.frame, tr.t_s, frame, t_s, label=label,
                                          position=tr.pos))
            elif label != tr.reported and label != "unreadable" and not (
                    tr.covered and label != "BACK" and tr.reported not in ("BACK", "unreadable")) and not (
                    tr.clear_colour is not None and _other_colour(label, tr.clear_colour)):
                # (a face read in the clear is not read anew once another card lies over its index; nor, read in
                # the clear too briefly to stand, as a card of the other colour: its suit is the ink of the card
                # beside it, 4K seed 7170 r0: a 6D read alone 5 times, then 6S for seconds beside the 10S)
                if tr.pending is None or tr.pending[0] != label:
                    tr.pending = (label, frame, t_s)
                elif t_s - tr.pending[2] + 1e-9 >= self.rise_s:
                    out.append(ZoneChange("card_relabelled", zone, tr.pending[1], tr.pending[2], frame, t_s,
                                          label=label, position=tr.pos, previous=tr.reported))
                    tr.reported, tr.pending = label, None
            else:
                tr.pending = None
            keep.append(tr)
        self._tracks[zone] = keep
        state = self.state[zone]
        now = Counter(tr.reported for tr in keep if tr.reported is not None)
        if now != state.cards:
            state.cards, state.since_t_s = now, t_s
        return out

    def _squared_step(self, tr: _Track, frame: int, t_s: float) -> tuple[tuple[float, float], int, float] | None:
        """Follow where a zone's only card, face down and confirmed, lies: ``(place, frame, t_s)`` of the step its
        box centre took when a second face-down card was laid square on it (:data:`SQUARED_MM`), once the new
        place has held for ``rise_s``; else None."""
        p = tr.last_p
        if p is None:
            return None
        if tr.rest is None:
            tr.rest = p
            return None
        off = math.dist(p, tr.rest)
        if tr.step is not None and math.dist(p, tr.step[0]) <= SQUARED_STEADY_MM:
            place, f0, t0, still_since = tr.step
            if t_s - still_since + 1e-9 < self.rise_s:
                return None
            tr.squared, tr.rest, tr.step = True, place, None
            return place, f0, t0
        if off < SQUARED_MM[0]:
            tr.step = None  # where it lay (a hand's shadow shifted its box for a frame)
        elif off <= SQUARED_MM[1]:
            # stepped (the step's time kept while the second card settles; its new place timed from now)
            tr.step = (p, frame, t_s, t_s) if tr.step is None else (p, tr.step[1], tr.step[2], t_s)
        else:
            tr.rest, tr.step = p, None  # slid along the layout: a new place to lie
        return None

    def _remember_set_aside(self, zone: str, point, t_s: float) -> None:
        """Keep where a reading was set aside as print on a card's face, and since when (forgotten after
        ``fall_s`` unseen)."""
        kept = [g for g in self._set_aside[zone] if t_s - g[2] <= self.fall_s + 1e-9]
        for g in kept:
            if math.dist(g[0], point) <= TRACK_MATCH_MM:
                g[2] = t_s
                break
        else:
            kept.append([(float(point[0]), float(point[1])), t_s, t_s])
        self._set_aside[zone] = kept

    def _other_corner_of(self, zone: str, tracks: list[_Track], label: str, marks, t_s: float) -> _Track | None:
        """The card whose other corner a face reading at a single point is (:data:`SET_ASIDE_SINCE_S`), or None."""
        if label in ("BACK", "unreadable") or len(marks) != 1:
            return None
        point = marks[0]
        aside = [g for g in self._set_aside[zone]
                 if t_s - g[2] <= self.fall_s + 1e-9 and math.dist(g[0], point) <= TRACK_MATCH_MM]
        for tr in tracks:
            if tr.reported != label or not any(abs(g[1] - tr.t_s) <= SET_ASIDE_SINCE_S for g in aside):
                continue
            if any(CORNER_PAIR_MM[0] <= math.dist(m, point) <= CORNER_PAIR_MM[1] for m in tr.marks):
                return tr
        return None

    @staticmethod
    def _young_track(tracks: list[_Track], label: str, marks, t_s: float) -> _Track | None:
        """The track begun within :data:`SAME_CARD_S` that a reading matching no track belongs to, or None.

        Cards to one spot come a pass of the deal apart, so a reading this soon after a card's first one is
        that card: within :data:`SAME_CARD_MM` of where it was in the frame before (it is still settling), or a card's
        diagonal from it in the same frame (its other corner read as another card). Two cards side by side
        seen at once (a video that starts mid-round) lie closer than that and stay two.

        A face-down card has no index corners (its reading's point is its box's centre), so a face read a card's
        diagonal from a young card read face down in the same frame is a card of its own (4K seed 7202 r0, Switch
        Hands: the JS dealt face up over the 6C, read in the frame the face-down pair under them showed again, 68 mm
        from its centre, was taken into it and never dealt), and a face-down reading is no card's other corner. A
        young face-down card not read face down this frame may be turning over (the hole card, 4K seed 7313 r0: read
        ``unreadable`` at one corner, then KS at the other). A card dealt face up is not turned face down: a
        face-down reading near a face-down card already there is that card, not a young face-up one (4K seed 7177
        r0, Switch Hands: the 2H of the pair kept turned over, and the 8C under it, its centre moved 34 mm as the 2H
        was lifted off it, taken for the 2H; the 8C never dealt)."""
        back_near = label == "BACK" and any(tr.reported == "BACK" and math.dist(tr.pos, marks[0]) <= SAME_CARD_MM
                                            for tr in tracks)
        near = []
        for i, tr in enumerate(tracks):
            if t_s - tr.t_s > SAME_CARD_S + 1e-9 or not tr.marks:
                continue
            d = min(math.dist(a, b) for a in tr.marks for b in marks)
            corner_pair = CORNER_PAIR_MM[0] <= d <= CORNER_PAIR_MM[1] and label != "BACK" and not (
                tr.last_t == t_s and tr.now_label == "BACK")
            if label == "BACK" and tr.faces and back_near:
                continue
            if (tr.last_t < t_s and tr.missing is None and d <= SAME_CARD_MM) or d <= TRACK_MATCH_MM or corner_pair:
                near.append((d, i))
        return tracks[min(near)[1]] if near else None

    @staticmethod
    def _vote(tr: _Track, label: str, marks) -> None:
        """Add one reading's corners and label to ``tr`` (a second look at it in the same frame: no presence)."""
        for m in marks:  # corners: a known one refined (or followed, if it moved a little), a new one remembered
            near = min(range(len(tr.marks)), key=lambda j: math.dist(tr.marks[j], m), default=None)
            d = math.dist(tr.marks[near], m) if near is not None else math.inf
            if d <= MARK_SAME_MM:
                tr.marks[near] = ((tr.marks[near][0] + m[0]) / 2, (tr.marks[near][1] + m[1]) / 2)
            elif d <= TRACK_MATCH_MM and tr.reported is None:
                tr.marks[near] = (float(m[0]), float(m[1]))  # still settling: follow it
            elif d <= TRACK_MATCH_MM:
                continue  # a confirmed card lies still: a reading that far off is another card passing over it
            elif tr.reported is None or (len(tr.marks) < 4 and not _corners_known(tr.marks)):
                if len(tr.marks) >= 4:
                    tr.marks.pop(0)  # settling: its first places are the stalest
                tr.marks.append((float(m[0]), float(m[1])))
        tr.now_marks += [(float(m[0]), float(m[1])) for m in marks]
        if label not in ("BACK", "unreadable"):
            tr.faces[label] += 1

    @classmethod
    def _read(cls, tr: _Track, label: str, p, marks, t_s: float) -> None:
        if tr.reported is None and tr.marks and all(math.dist(a, b) > TRACK_MATCH_MM for a in tr.marks for b in marks):
            tr.marks = []  # the card moved (still sliding into place): where it was is no longer where it is
        tr.now_marks = []
        for key in tr.recent:
            tr.recent[key] *= PRESENCE_DECAY
        kind = label if label in ("BACK", "unreadable") else "face"
        tr.recent[kind] += 1.0
        cls._vote(tr, label, marks)
        tr.pos = (0.5 * tr.pos[0] + 0.5 * float(p[0]), 0.5 * tr.pos[1] + 0.5 * float(p[1]))
        tr.last_p = (float(p[0]), float(p[1]))
        tr.now_label = label
        if tr.seen:  # a new track starts at 0.5
            tr.presence = PRESENCE_DECAY * tr.presence + (1 - PRESENCE_DECAY)
        tr.last_t = t_s
        tr.seen += 1
