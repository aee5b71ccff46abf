"""Payout stacks followed one by one by their place on the layout.

A zone's chips are tracked as one total (:class:`vision.tracking.ZoneTracker`), and one stack that cannot be
counted leaves the total unvalued. That is what a payout set down touching one already paid, or just behind it,
does: the camera sees the back stack's bottom chips hidden by the front one, or stage 1 boxes the two as one (4K
seeds 7188 r0, 7234 r1, 7262 r1, 7269 r1, 7308 r2: a bonus payout set beside the main wager's, unvalued until the
player picked up the other stack). The chips stay where the dealer put them until the player takes them, so the
stack that came with the payout, read as it stood alone, tells the payout.

:class:`PayoutStackTracker` follows each stack of a payout area by its base (layout mm, as the detector placed it)
and reports :class:`vision.tracking.ZoneChange` records (``stack`` the stack's number, ``position`` its base,
``since_t_s`` when it was first seen):

* ``stack_seen`` once a stack has been seen for ``rise_s`` (backdated to its first sighting; one seen in a frame or
  two is a box stage 1 drew twice, or a glint), and again when one reported gone shows again where it stood;
* ``stack_left`` once a stack is gone (unseen for :data:`STACK_GONE_S`; backdated to when it was last seen), with
  ``after`` its value read last, in dollars, or ``None`` where it was not read since it was last read unvalued. A
  value is the stack's once read the same for ``rise_s``, or for ``fall_s`` where it is lower than the value before
  (a hand coming over a stack to take it reads it low for a moment, as it does a zone's total).

The value is the one read last because a stack read beside another is read wrong as often as not (7234 r1 read the
$99 bonus payout $149 for 0.3 s as stage 1 missed the $225 in front of it), and right once it stands alone: so the
players take them. The round engine (:class:`vision.rounds.StackedPayout`) counts a side-bet payout it saw placed
and could not value at what the stacks that came with it were read as they left.

:class:`HiddenPayoutStacks` mends the area's total the other way round: a stack counted before the next payout was
set down touching it, and lost or read lower from then on, is counted at its value while the stack in front of it
stands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vision.tracking import ZoneChange

STACK_MATCH_MM = 25.0
"""A stack read this close (mm on the layout) to a stack followed is that stack. Chips are 39 mm across, so two
stacks standing apart have bases at least 39 mm apart; a base placed from stage 1's box is good to ~10 mm (a loose
box with the dealer's hand in it, more)."""

STACK_GONE_S = 1.5
"""A stack unseen this long (s; at least the tracker's ``fall_s``) is gone: the dealer's arm reaching across the
layout hides a payout area for a second."""

STACK_MEMORY_S = 10.0
"""A stack reported gone and seen again this soon where it stood is the same stack (a hand hid it for a while): a
new stack there would need the old one taken first."""


@dataclass
class _StackTrack:
    number: int
    position: tuple[float, float]
    since_frame: int
    since_t_s: float
    last_frame: int
    last_t_s: float
    run: tuple[float, float] | None = None   # (value, first s) read the same since
    value: float | None = None              # its value (module docstring), None since read unvalued
    gone: bool = False                      # reported as stack_left
    seen: bool = False                      # reported as stack_seen: seen for rise_s


class PayoutStackTracker:
    """Follows the chip stacks of payout areas one by one (see the module's docstring).

    Args:
        rise_s: seconds a stack's value must be read the same to be its value.
        fall_s: the same for a value lower than the one before.

    Example:
        >>> t = PayoutStackTracker(rise_s=0.2, fall_s=0.5)
        >>> out = [c for f in range(25) for c in t.update("seat3.payout", f, f / 10,
        ...                                               [] if f > 5 else [(500.0, 600.0, None if f < 3 else 18)])]
        >>> [(c.kind, c.stack, c.after, c.since_t_s, c.t_s) for c in out]
        [('stack_seen', 0, None, 0.0, 0.0), ('stack_left', 0, 18, 0.0, 0.5)]
    """

    def __init__(self, rise_s: float = 0.3, fall_s: float = 1.0) -> None:
        self.rise_s, self.fall_s = rise_s, fall_s
        self.gone_s = max(fall_s, STACK_GONE_S)
        self._tracks: dict[str, list[_StackTrack]] = {}
        self._numbers = 0

    def update(self, zone: str, frame: int, t_s: float,
               stacks: list[tuple[float, float, float | None]]) -> list[ZoneChange]:
        """Feed one analysed frame's stacks of ``zone``.

        Args:
            zone: a payout area (``seat3.payout``).
            frame, t_s: the frame's index and time (s).
            stacks: each stack seen in the zone this frame: (x, y) mm of its base on the layout and its value in
                dollars (``None``: seen, not valued). An empty list: no stack seen.

        Returns:
            ``stack_seen`` for each stack first seen (or seen again after it was reported gone) this frame, and
            ``stack_left`` for each stack now unseen for :attr:`gone_s` (backdated to its last sighting).
        """
        tracks = [tr for tr in self._tracks.get(zone, []) if t_s - tr.last_t_s <= STACK_MEMORY_S]
        pairs = sorted((math.dist(tr.position, (x, y)), i, j) for i, tr in enumerate(tracks)
                       for j, (x, y, _) in enumerate(stacks))
        matched: dict[int, _StackTrack] = {}
        used: set[int] = set()
        for d, i, j in pairs:
            if d > STACK_MATCH_MM:
                break
            if i in used or j in matched:
                continue
            used.add(i)
            matched[j] = tracks[i]
        out: list[ZoneChange] = []
        for j, (x, y, value) in enumerate(stacks):
            tr = matched.get(j)
            if tr is None:
                tr = _StackTrack(self._numbers, (x, y), frame, t_s, frame, t_s)
                self._numbers += 1
                tracks.append(tr)
            if tr.gone or (not tr.seen and t_s - tr.since_t_s + 1e-9 >= self.rise_s):
                first = (tr.since_frame, tr.since_t_s) if not tr.seen else (frame, t_s)
                out.append(ZoneChange("stack_seen", zone, *first, frame, t_s, position=(x, y),
                                      since_t_s=tr.since_t_s, stack=tr.number))
                tr.seen = True
            tr.position, tr.last_frame, tr.last_t_s, tr.gone = (x, y), frame, t_s, False
            if value is None:
                tr.run, tr.value = None, None
                continue
            if tr.run is None or tr.run[0] != value:
                tr.run = (value, t_s)
            hold = self.fall_s if tr.value is not None and value < tr.value else self.rise_s
            if t_s - tr.run[1] + 1e-9 >= hold:
                tr.value = value
        for tr in tracks:
            if tr.seen and not tr.gone and t_s - tr.last_t_s + 1e-9 >= self.gone_s:
                tr.gone = True
                out.append(ZoneChange("stack_left", zone, tr.last_frame, tr.last_t_s, frame, t_s, after=tr.value,
                                      position=tr.position, since_t_s=tr.since_t_s, stack=tr.number))
        self._tracks[zone] = tracks
        return out

    def finish(self, frame: int, t_s: float) -> list[ZoneChange]:
        """The end of the source: ``stack_left`` for every stack still followed (standing, or unseen for less than
        :attr:`gone_s`), at the value it was read at last; nothing more will be seen of it."""
        out = [ZoneChange("stack_left", zone, tr.last_frame, tr.last_t_s, frame, t_s, after=tr.value,
                          position=tr.position, since_t_s=tr.since_t_s, stack=tr.number)
               for zone, tracks in self._tracks.items() for tr in tracks if tr.seen and not tr.gone]
        self._tracks.clear()
        return out


HIDDEN_TOUCH_MM = (30.0, 50.0)
"""A payout stack set down with its base this far (mm) from another's touches it or stands just in front of it
(chips are 39 mm across): from the camera, the front one hides the other's side. Nearer, it is the same stack
boxed anew (a loose box with the dealer's hand in it)."""

HIDDEN_STEADY_S = 0.5
"""A stack is kept as hidden only where it was read at its value this long before (s), and is counted only once the
stack in front of it has been read at one value this long (a stack drawn across the area, or boxed loosely under a
hand, reads another value for a moment before its own)."""

HIDDEN_MAX_S = 20.0
"""A hidden stack is kept at most this long (s; as :data:`vision.rounds.STACK_WAIT_S`)."""

HIDDEN_GAP_S = 0.5
"""What the area held is what its stacks seen this shortly before (s) held: the dealer's hand setting a payout down
hides the area for a few frames first (4K seed 7324 r1: 0.3 s)."""

WAGER_DRAWN_S = 1.5
"""A stack set in a payout area this soon after a stack of the same value left one of the seat's betting spots is
that wager drawn in by its player (s; as :data:`STACK_GONE_S`)."""


@dataclass
class _Known:
    position: tuple[float, float]
    value: float | None
    value_since: float
    last_t_s: float
    hidden_by: tuple[float, float] | None = None  # where the stack in front of it stands
    hidden_since: float = 0.0
    front_value: float | None = None              # what that stack reads, and since when (s)
    front_since: float = 0.0
    counted: bool = False                         # the front stack's reading held: this one counts

    def seen(self, stack: tuple[float, float, float | None], t_s: float) -> None:
        """Read this frame as ``stack`` ((x, y) mm, dollars or ``None``): where it stands and what it reads."""
        x, y, value = stack
        self.position, self.last_t_s = (x, y), t_s
        if value != self.value:
            self.value, self.value_since = value, t_s


class HiddenPayoutStacks:
    """A payout area's total with the stacks hidden behind a payout set down touching them counted at their value.

    A payout stack is never slid away by the dealer, and stays until the player takes it. When the dealer sets the
    next payout down touching one already counted, stage 1 may box the two as one, or the front one hides the
    other's side, so the area's total drops to the new stack's value alone (4K seed 7261 r1: the $75 main payout
    lost as the $17 bonus payout was set down in front of it, the area read $17, and the bonus was reported never
    paid; 7324 r1: a $30 payout read $5 beside the $14 set down in front of it).

    Here a stack read steadily (:data:`HIDDEN_STEADY_S`) that is lost in the frame a new stack shows
    :data:`HIDDEN_TOUCH_MM` from it, or read lower as that new stack stands there, while the area reads less than
    its stacks held a moment before (:data:`HIDDEN_GAP_S`), is hidden by that new stack; once the stack in front
    has read one value for :data:`HIDDEN_STEADY_S`, the hidden one counts at its value while the front one stands
    (at most :data:`HIDDEN_MAX_S`). Not where the area's chips are conserved (a payout cut in two, coloured up,
    drawn across the area: the total does not drop), where the new stack ever reads the lost one's value (the same
    stack moved, misread under a hand for a moment), where it reads a wager just gone from the seat's betting spot
    (the player drawing it in), and one new stack hides one stack. A stack read unvalued leaves the total unvalued,
    as always. Every payout area must be fed every frame (``[]`` where it holds no stack).

    Example:
        >>> h = HiddenPayoutStacks()
        >>> [h.total("seat2.payout", t / 10, 75.0, [(1426.0, 614.0, 75.0)]) for t in range(0, 10, 3)]
        [75.0, 75.0, 75.0, 75.0]
        >>> [h.total("seat2.payout", t / 10, 17.0, [(1399.0, 640.0, 17.0)]) for t in range(10, 17, 3)]
        [17.0, 17.0, 92.0]
    """

    def __init__(self) -> None:
        self._known: dict[str, list[_Known]] = {}
        self._last_t: dict[str, float] = {}  # zone -> its last frame's time (s)

    def total(self, zone: str, t_s: float, total: float | None, stacks: list[tuple[float, float, float | None]],
              wagers_drawn: tuple[float, ...] = ()) -> float | None:
        """The area's total this frame (dollars, ``None`` where a stack is unvalued).

        Args:
            zone: a payout area, fed every analysed frame.
            t_s: the frame's time (s).
            total: the detector's total of the area this frame (dollars; ``None``: a stack unvalued).
            stacks: the stacks placed on the layout: (x, y) mm of the base and the value (dollars or ``None``).
            wagers_drawn: values of the stacks that left the seat's betting spots in the last
                :data:`WAGER_DRAWN_S` (dollars).
        """
        known = [k for k in self._known.get(zone, []) if t_s - k.last_t_s <= STACK_GONE_S
                 or (k.hidden_by is not None and t_s - k.hidden_since <= HIDDEN_MAX_S)]
        pairs = sorted((math.dist(k.position, (x, y)), i, j) for i, k in enumerate(known)
                       for j, (x, y, _) in enumerate(stacks))
        matched: dict[int, int] = {}  # known -> stack
        for d, i, j in pairs:
            if d <= STACK_MATCH_MM and i not in matched and j not in matched.values():
                matched[i] = j
        new = [j for j in range(len(stacks)) if j not in matched.values()]
        prev_t = self._last_t.get(zone)
        self._last_t[zone] = t_s
        # what the area held a moment ago (a hand passing over it hides it for a few frames), by its stacks
        recent = [k.value for k in known if k.hidden_by is None and t_s - k.last_t_s <= HIDDEN_GAP_S]
        dropped = total is not None and bool(recent) and None not in recent and total < sum(recent)
        fronts: set[int] = set()
        extra = 0.0
        keep: list[_Known] = []
        for i, k in enumerate(known):
            j = matched.get(i)
            value = stacks[j][2] if j is not None else None
            if k.hidden_by is not None:
                front = next((jj for jj, (x, y, _) in enumerate(stacks)
                              if jj != j and math.dist((x, y), k.hidden_by) <= STACK_MATCH_MM), None)
                own_again = value is not None and k.value is not None and value >= k.value
                moved = front is not None and stacks[front][2] == k.value  # the same stack, drawn across
                if front is None or moved or own_again:
                    k.hidden_by, k.counted = None, False
                    if j is None:
                        continue  # gone (with the stack in front of it), or it is that stack: forgotten
                    k.seen(stacks[j], t_s)
                    keep.append(k)
                    continue
                fronts.add(front)
                fx, fy, fv = stacks[front]
                k.hidden_by = (fx, fy)
                if fv != k.front_value:
                    k.front_value, k.front_since = fv, t_s
                if fv is not None and t_s - k.front_since + 1e-9 >= HIDDEN_STEADY_S:
                    k.counted = True
                if j is not None:
                    k.position, k.last_t_s = stacks[j][:2], t_s
                if k.counted and k.value is not None and value is not None:
                    extra += k.value - value          # read lower beside the stack in front
                elif k.counted and k.value is not None and j is None:
                    extra += k.value                  # lost behind it
                keep.append(k)
                continue
            steady = k.value is not None and k.last_t_s - k.value_since + 1e-9 >= HIDDEN_STEADY_S
            lost = j is None and k.last_t_s == prev_t  # (lost in the very frame the new one shows)
            lowered = value is not None and k.value is not None and value < k.value
            if steady and dropped and (lost or lowered):
                front = next((jj for jj in new if jj not in fronts
                              and HIDDEN_TOUCH_MM[0] <= math.dist(stacks[jj][:2], k.position) <= HIDDEN_TOUCH_MM[1]
                              and stacks[jj][2] != k.value and stacks[jj][2] not in wagers_drawn), None)
                if front is not None:
                    fronts.add(front)
                    k.hidden_by, k.hidden_since = stacks[front][:2], t_s
                    k.front_value, k.front_since, k.counted = stacks[front][2], t_s, False
                    if j is not None:
                        k.position, k.last_t_s = stacks[j][:2], t_s
                    keep.append(k)
                    continue
            if j is not None:
                k.seen(stacks[j], t_s)
            keep.append(k)
        keep += [_Known(stacks[j][:2], stacks[j][2], t_s, t_s) for j in new]
        self._known[zone] = keep
        return total if not extra or total is None else total + extra
