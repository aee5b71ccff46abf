"""A review's zone readings on disk, to audit them again without reading the pixels again.

Reading a 1080p video with the detector costs a couple of minutes on two cores; the tracker and
round engine over the same readings cost well under a second. A review can therefore write each
analysed frame's :class:`vision.review.Observation` to a JSON-lines file (``pitwatch review
--observations FILE``) and have it replayed later: to re-audit a recorded incident against a
corrected paytable, or to measure a change to the tracker or the round engine on the same
detector output (``pitwatch eval review --keep DIR --replay``).

File layout, one JSON object per line::

    {"pitwatch_observations": 1, "video": "video.mp4", "fps": 10.0, "detector": {...}}
    {"frame": 0, "t_s": 0.0, "cards": {...}, "chips": {...}, "card_points": {...}, "card_marks": {...},
     "chip_stacks": {...}}

(``chip_stacks`` since the thirty-sixth session; a file without it replays with payout stacks followed as zone
totals only.)
    ...
    {"end": {"frames_read": 612, "last_frame": 611, "last_t_s": 61.1, "stopped": null}}

The last line is written only when the review finished; a file without it was cut short and
replays up to where it stops.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from vision.review import Observation

FORMAT_VERSION = 1


class ObservationLogError(ValueError):
    """An observations file that is missing, of another format, or unreadable."""


class RecordingObserver:
    """Wraps an observer and writes each observation it makes to ``path`` (JSON lines).

    Args:
        inner: the observer that reads the frames (e.g. :class:`vision.review.DetectorObserver`).
        path: the file to write (its folder is created); ``header``: what made the readings
            (detector settings), kept in the first line so a replay can say what it replays.
    """

    def __init__(self, inner, path: Path, header: dict | None = None) -> None:
        self.inner = inner
        self.tracks_by_position = getattr(inner, "tracks_by_position", False)
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("w", encoding="utf-8")
        self._write({"pitwatch_observations": FORMAT_VERSION, "tracks_by_position": self.tracks_by_position,
                     **(header or {})})

    def _write(self, obj: dict) -> None:
        self._file.write(json.dumps(obj, separators=(",", ":")) + "\n")

    def observe(self, frame) -> Observation:
        obs = self.inner.observe(frame)
        self._write({"frame": frame.index, "t_s": round(frame.t_s, 4), "cards": obs.cards, "chips": obs.chips,
                     "card_points": obs.card_points, "card_marks": obs.card_marks, "chip_stacks": obs.chip_stacks})
        return obs

    def close(self, frames_read: int, last_frame: int, last_t_s: float, stopped: str | None = None) -> None:
        """Write the end line (the review finished) and close the file."""
        self._write({"end": {"frames_read": frames_read, "last_frame": last_frame, "last_t_s": round(last_t_s, 4),
                             "stopped": stopped}})
        self._file.close()

    def abort(self) -> None:
        """Close without the end line: what was written stays, marked as cut short."""
        if not self._file.closed:
            self._file.close()


@dataclass
class ObservationLog:
    """An observations file read back.

    Attributes:
        header: the first line (detector settings, ``tracks_by_position``).
        frames: (frame index, t_s seconds, observation) per analysed frame, in order.
        end: the end line's fields, or ``None`` when the review that wrote it was cut short.
    """

    header: dict
    frames: list[tuple[int, float, Observation]] = field(default_factory=list)
    end: dict | None = None


def _tuples(d: dict | None, depth: int):
    if d is None:
        return None
    if depth == 1:
        return {z: [tuple(p) for p in pts] for z, pts in d.items()}
    return {z: [[tuple(p) for p in card] for card in cards] for z, cards in d.items()}


def read_observations(path: Path) -> ObservationLog:
    """Read an observations file written by :class:`RecordingObserver`.

    Raises:
        ObservationLogError: missing file, another format, or a line that is not JSON (a file cut in the
            middle of a line keeps everything before it).
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ObservationLogError(f"{path}: cannot read observations: {exc}") from exc
    if not lines:
        raise ObservationLogError(f"{path}: empty observations file")
    try:
        header = json.loads(lines[0])
    except ValueError as exc:
        raise ObservationLogError(f"{path}: first line is not JSON: {exc}") from exc
    if not isinstance(header, dict) or header.get("pitwatch_observations") != FORMAT_VERSION:
        raise ObservationLogError(f"{path}: not a pitwatch observations file (version {FORMAT_VERSION})")
    log = ObservationLog(header=header)
    for n, line in enumerate(lines[1:], start=2):
        try:
            row = json.loads(line)
        except ValueError:
            if n == len(lines):
                break  # the last line was being written when the review stopped
            raise ObservationLogError(f"{path}:{n}: not JSON") from None
        if "end" in row:
            log.end = row["end"]
            break
        obs = Observation(cards=row["cards"], chips=row["chips"], card_points=_tuples(row.get("card_points"), 1),
                          card_marks=_tuples(row.get("card_marks"), 2), chip_stacks=_tuples(row.get("chip_stacks"), 1))
        log.frames.append((int(row["frame"]), float(row["t_s"]), obs))
    return log


def replay(log: ObservationLog, tracker, engine) -> Iterator[list]:
    """Feed a log's observations through ``tracker`` (:class:`vision.tracking.ZoneTracker`) and ``engine``
    (:class:`vision.rounds.RoundEngine`) as the review did, then finish the engine at the log's end.

    Yields the events of each analysed frame (the last item: those of ``finish``)."""
    last = (0, 0.0)
    for frame, t_s, obs in log.frames:
        changes = tracker.update(frame, t_s, obs.cards, obs.chips, obs.card_points, obs.card_marks, obs.chip_stacks)
        yield engine.step(frame, t_s, changes)
        last = (frame, t_s)
    if log.end is not None:
        last = (int(log.end["last_frame"]), float(log.end["last_t_s"]))
    yield engine.finish(*last, tracker.finish(*last))
