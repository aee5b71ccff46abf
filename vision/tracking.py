"""Per-zone tracking: what each zone holds, stabilised over frames, as change events.

Each analysed frame brings the cards (labels) and chip stacks (values) detected
in every zone.  A zone's state changes only when the new reading has persisted:
``rise_s`` for something appearing (a card dealt, chips added), ``fall_s`` for
something disappearing, which is longer because the dealer's hand or a moving
card often hides a zone for a moment.  A change is reported with the time and
frame of the first reading that showed it (backdated), and the time it was
confirmed, so the audit can say both when a thing happened and when it knew.

Cards are tracked as a multiset of labels per zone (``10H``, ``BACK``,
``unreadable``).  A label's count rises when more copies persist; identities are
voted over frames by the detector's scores, so one misread frame changes nothing.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Iterable


@dataclass(frozen=True)
class ZoneChange:
    """One confirmed change in a zone.

    Attributes:
        kind: ``card_arrived``, ``card_left`` or ``chips``.
        zone: the zone name (``seat3.cards``).
        frame, t_s: the first analysed frame that showed the change (backdated).
        confirmed_frame, confirmed_t_s: when the change had persisted long enough to be believed.
        label: the card label for card changes.
        before, after: chip value in dollars for chip changes (``None`` = could not be read).
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


@dataclass
class _Pending:
    value: object
    frame: int
    t_s: float
    points: list = field(default_factory=list)


class _StableSignal:
    """A scalar reading made stable by persistence; asymmetric for rises and falls."""

    def __init__(self, initial: object, rise_s: float, fall_s: float) -> None:
        self.value = initial
        self.rise_s = rise_s
        self.fall_s = fall_s
        self._pending: _Pending | None = None
        self._history: deque[tuple[float, object]] = deque()

    def update(self, reading: object, frame: int, t_s: float, points: list | None = None) -> tuple[_Pending, object] | None:
        """Feed one reading; returns (first sighting, old value) when the stable value changes."""
        if reading == self.value:
            self._pending = None
            return None
        if self._pending is None or self._pending.value != reading:
            # a reading that flickers between two new values restarts the clock only when it changes again
            self._pending = _Pending(reading, frame, t_s, list(points or []))
            return None
        rising = _as_number(reading) > _as_number(self.value)
        wait = self.rise_s if rising else self.fall_s
        if t_s - self._pending.t_s + 1e-9 >= wait:
            old, first = self.value, self._pending
            self.value = reading
            self._pending = None
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

    Example:
        >>> t = ZoneTracker(["seat1.cards"], rise_s=0.2, fall_s=0.5)
        >>> [c.kind for f in range(4) for c in t.update(f, f * 0.1, {"seat1.cards": ["AS"]}, {})]
        ['card_arrived']
    """

    def __init__(self, zones: Iterable[str], rise_s: float = 0.3, fall_s: float = 1.0) -> None:
        self.zones = list(zones)
        self.rise_s, self.fall_s = rise_s, fall_s
        self.state: dict[str, ZoneState] = {z: ZoneState() for z in self.zones}
        self._card_signals: dict[tuple[str, str], _StableSignal] = {}
        self._chip_signals: dict[str, _StableSignal] = {z: _StableSignal(0, rise_s, fall_s) for z in self.zones}
        self._positions: dict[tuple[str, str], list[tuple[float, float]]] = {}

    def update(self, frame: int, t_s: float, cards: dict[str, list[str]],
               chips: dict[str, float | None],
               card_points: dict[str, list[tuple[float, float]]] | None = None) -> list[ZoneChange]:
        """Feed one analysed frame.

        Args:
            frame, t_s: the frame's index and time.
            cards: zone -> labels of the cards seen in it this frame.
            chips: zone -> chip value seen in it this frame (dollars; ``None`` when a stack
                was seen but not valued). Zones absent from the dict hold no chips.
            card_points: zone -> (x, y) mm of each card in ``cards`` (same order), optional;
                a card change then carries the position of the card that came or went.

        Returns:
            The changes confirmed by this frame, in time order.
        """
        changes: list[ZoneChange] = []
        for zone in self.zones:
            labels = cards.get(zone, ())
            seen = Counter(labels)
            pts = (card_points or {}).get(zone)
            state = self.state[zone]
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
            reading = chips.get(zone, 0)
            res = self._chip_signals[zone].update(reading, frame, t_s)
            if res is not None:
                first, old = res
                state.chips = self._chip_signals[zone].value
                state.since_t_s = first.t_s
                changes.append(ZoneChange("chips", zone, first.frame, first.t_s, frame, t_s, before=old,
                                          after=state.chips))
        changes.sort(key=lambda c: (c.t_s, c.kind != "card_arrived"))
        return changes
