"""Frame sources: video files, RTSP/HTTP streams and cameras behind one interface.

Every source yields :class:`Frame` records (0-based index, seconds from the start,
wall-clock UTC where known, BGR pixels) and, once exhausted, tells where and why
it stopped (:attr:`FrameSource.stopped`), so a review of a truncated file or a
dropped stream reports what was read instead of losing it.

Example:
    >>> src = open_source("round.mp4")                      # doctest: +SKIP
    >>> for frame in src.frames(): ...                       # doctest: +SKIP
    >>> src.stopped                                          # doctest: +SKIP
    Stopped(frame=512, t_s=17.07, reason='decoding failed: ...')
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from functools import partial
from typing import Callable, Iterator

import numpy as np


class SourceError(ValueError):
    """A source that cannot be opened at all (not a video, no such camera, unreachable stream)."""


class Frame:
    """One decoded frame.

    Attributes:
        index: 0-based frame number in decode order.
        t_s: seconds from the start of the source (presentation time for files, so
            variable frame rates and dropped frames keep true times).
        image: (H, W, 3) uint8 BGR pixels, converted from the decoder's own format on first
            use (a review that analyses 10 of 30 frames a second and writes no video never
            pays for the other 20 conversions).
        utc: wall-clock time of the frame where the source gives it, else ``None``.
    """

    __slots__ = ("index", "t_s", "utc", "_image", "_convert")

    def __init__(self, index: int, t_s: float, image: np.ndarray | None = None, utc: datetime | None = None,
                 convert: Callable[[], np.ndarray] | None = None) -> None:
        if image is None and convert is None:
            raise ValueError("a Frame needs its image or a way to convert it")
        self.index, self.t_s, self.utc = index, t_s, utc
        self._image, self._convert = image, convert

    @property
    def image(self) -> np.ndarray:
        if self._image is None:
            self._image = self._convert()
            self._convert = None
        return self._image

    def __repr__(self) -> str:
        return f"Frame(index={self.index}, t_s={self.t_s:.3f})"


@dataclass(frozen=True)
class Stopped:
    """Where a source stopped early, and why (contracts: report ``stopped``)."""

    frame: int
    t_s: float
    reason: str

    def to_json(self) -> dict:
        return {"frame": self.frame, "t_s": round(self.t_s, 3), "reason": self.reason}


class FrameSource:
    """Common interface: :meth:`frames` yields frames; :attr:`stopped` says how it ended."""

    name: str
    fps: float
    expected_frames: int | None
    stopped: Stopped | None = None

    def frames(self) -> Iterator[Frame]:  # pragma: no cover - interface
        raise NotImplementedError


class VideoFileSource(FrameSource):
    """A video file decoded with PyAV (FFmpeg), timestamps from presentation times.

    Raises:
        SourceError: when the file is missing or holds no decodable video stream.
    """

    def __init__(self, path: str | Path) -> None:
        import av

        self.path = Path(path)
        self.name = self.path.name
        if not self.path.is_file():
            raise SourceError(f"{self.path}: no such video file")
        try:
            self._container = av.open(str(self.path))
        except (av.error.FFmpegError, OSError) as exc:
            raise SourceError(f"{self.path}: not a readable video: {exc}") from exc
        if not self._container.streams.video:
            self._container.close()
            raise SourceError(f"{self.path}: holds no video stream")
        stream = self._container.streams.video[0]
        stream.thread_type = "AUTO"  # frame-parallel decoding: both cores decode H.264
        rate = stream.average_rate or stream.guessed_rate
        self.fps = float(rate) if rate else 30.0
        self.expected_frames = int(stream.frames) if stream.frames else None
        if self.expected_frames is None and stream.duration and stream.time_base:
            self.expected_frames = int(round(float(stream.duration * stream.time_base) * self.fps))
        self.width, self.height = stream.codec_context.width, stream.codec_context.height
        created = self._container.metadata.get("creation_time")
        self.start_utc = _parse_utc(created) if created else None
        self._stream = stream
        self.stopped = None

    def frames(self) -> Iterator[Frame]:
        import av

        index = 0
        last_t = 0.0
        t0: float | None = None
        try:
            for frame in self._container.decode(self._stream):
                t = float(frame.time) if frame.time is not None else index / self.fps
                t0 = t if t0 is None else t0
                t_s = t - t0
                last_t = t_s
                utc = self.start_utc + timedelta(seconds=t_s) if self.start_utc else None
                yield Frame(index, t_s, utc=utc, convert=partial(frame.to_ndarray, format="bgr24"))
                index += 1
        except av.error.FFmpegError as exc:
            self.stopped = Stopped(index, last_t, f"decoding failed after {index} frames: {exc}")
        finally:
            self._container.close()
        if self.stopped is None and self.expected_frames and index < self.expected_frames - 1:
            self.stopped = Stopped(index, last_t,
                                   f"file ends early: read {index} of {self.expected_frames} frames (truncated?)")
        if self.stopped is None and index == 0:
            self.stopped = Stopped(0, 0.0, "no frame could be decoded")


class CaptureSource(FrameSource):
    """A live source through OpenCV: a camera index, or an RTSP/HTTP URL.

    A dropped stream is retried ``reconnects`` times (``retry_s`` apart) before the
    source stops with a reason. Times are wall-clock seconds since the first frame.

    Raises:
        SourceError: when the source cannot be opened.
    """

    def __init__(self, spec: str | int, reconnects: int = 3, retry_s: float = 1.0, fps: float | None = None) -> None:
        import cv2

        self.spec = spec
        self.name = str(spec)
        self.reconnects = reconnects
        self.retry_s = retry_s
        self._cap = cv2.VideoCapture(spec)
        if not self._cap.isOpened():
            raise SourceError(f"cannot open video source {spec!r}")
        self.fps = fps or float(self._cap.get(cv2.CAP_PROP_FPS) or 0) or 30.0
        self.expected_frames = None
        self.stopped = None

    def frames(self) -> Iterator[Frame]:
        import cv2

        index, start, misses, t_s = 0, None, 0, 0.0
        start_utc = None
        try:
            while True:
                ok, image = self._cap.read()
                if not ok:
                    misses += 1
                    if misses > self.reconnects:
                        self.stopped = Stopped(index, t_s, f"stream dropped: no frame after {self.reconnects} reconnects")
                        return
                    time.sleep(self.retry_s)
                    self._cap.release()
                    self._cap = cv2.VideoCapture(self.spec)
                    continue
                misses = 0
                now = time.monotonic()
                if start is None:
                    start, start_utc = now, datetime.now(timezone.utc)
                t_s = now - start
                yield Frame(index, t_s, image, start_utc + timedelta(seconds=t_s))
                index += 1
        finally:
            self._cap.release()


def open_source(spec: str | int | Path) -> FrameSource:
    """Open a file path, a camera index (``0`` or ``"0"``), or an ``rtsp://``/``http(s)://`` URL."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        return CaptureSource(int(spec))
    text = str(spec)
    if text.startswith(("rtsp://", "rtsps://", "http://", "https://")):
        return CaptureSource(text)
    return VideoFileSource(text)


def _parse_utc(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)
    except ValueError:
        return None
