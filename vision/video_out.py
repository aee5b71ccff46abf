"""H.264 video files through PyAV: what browsers play (MP4, yuv420p, ``+faststart``).

Used for the annotated review video, evidence clips and the rendered round videos.  A file is written under a temporary name and renamed
into place when :meth:`H264Writer.close` succeeds, so a reader never sees half a video.

Example:
    >>> import numpy as np, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "clip.mp4"
    >>> with H264Writer(path, fps=10, width=64, height=48) as w:
    ...     for i in range(5):
    ...         w.write(np.full((48, 64, 3), 40 * i, np.uint8))
    >>> probe_video(path)["frames"], probe_video(path)["codec"]
    (5, 'h264')
"""

from __future__ import annotations

import hashlib
import os
from fractions import Fraction
from pathlib import Path

import av
import cv2
import numpy as np


def fps_fraction(fps: float) -> Fraction:
    """Frame rate as an exact fraction (29.97 -> 30000/1001)."""
    f = Fraction(fps).limit_denominator(1001)
    if f <= 0:
        raise ValueError(f"frame rate must be positive, got {fps}")
    return f


class H264Writer:
    """Write BGR frames to an H.264 MP4 file.

    Args:
        path: the final file (written as ``path.tmp`` first).
        fps: frames per second.
        width, height: frame size in pixels; both must be even (yuv420p).
        crf: x264 constant rate factor (lower = better, larger; 23 is x264's default).
        preset: x264 speed preset (``ultrafast`` ... ``veryslow``).
        gop: frames between key frames (default: two seconds' worth), so a player can seek.
        threads: encoder threads (0 = x264 chooses).

    Raises:
        ValueError: for an odd or non-positive size, or a frame of the wrong shape.
    """

    def __init__(self, path: str | Path, fps: float, width: int, height: int, crf: int = 26,
                 preset: str = "veryfast", gop: int | None = None, threads: int = 2):
        if width <= 0 or height <= 0 or width % 2 or height % 2:
            raise ValueError(f"H.264 in yuv420p needs an even frame size, got {width}x{height}")
        self.path = Path(path)
        self.tmp = self.path.with_name(self.path.name + ".tmp")
        self.width, self.height = width, height
        self.frames = 0
        rate = fps_fraction(fps)
        self._container = av.open(str(self.tmp), mode="w", format="mp4", options={"movflags": "+faststart"})
        stream = self._container.add_stream("libx264", rate=rate)
        stream.width, stream.height = width, height
        stream.pix_fmt = "yuv420p"
        stream.time_base = 1 / rate
        stream.codec_context.gop_size = gop or max(1, round(2 * float(rate)))
        # Frames are converted to YUV by OpenCV (BT.601, limited range: several times faster
        # than swscale here), so the stream says so; otherwise players assume BT.709 for HD.
        stream.options = {"crf": str(crf), "preset": preset, "threads": str(threads), "profile": "high",
                          "x264-params": "colormatrix=smpte170m:colorprim=smpte170m:transfer=smpte170m:range=tv"}
        self._stream = stream
        self._closed = False
        self._last_bgr: np.ndarray | None = None
        self._last_yuv: np.ndarray | None = None

    def write(self, bgr: np.ndarray) -> None:
        """Append one frame: (height, width, 3) uint8 BGR."""
        if bgr.shape != (self.height, self.width, 3) or bgr.dtype != np.uint8:
            raise ValueError(f"frame must be ({self.height}, {self.width}, 3) uint8, got {bgr.shape} {bgr.dtype}")
        if bgr is not self._last_bgr:  # a repeated frame (a still table) is converted once
            self._last_bgr, self._last_yuv = bgr, cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420)
        frame = av.VideoFrame.from_ndarray(self._last_yuv, format="yuv420p")
        frame.pts = self.frames
        self.frames += 1
        for packet in self._stream.encode(frame):
            self._container.mux(packet)

    def close(self) -> Path:
        """Flush, close and move the file into place; returns the final path."""
        if self._closed:
            return self.path
        for packet in self._stream.encode():
            self._container.mux(packet)
        self._container.close()
        self._closed = True
        os.replace(self.tmp, self.path)
        return self.path

    def abort(self) -> None:
        """Close and delete the temporary file (after an error)."""
        if not self._closed:
            self._closed = True
            try:
                self._container.close()
            except Exception:  # noqa: BLE001 - the file is being thrown away anyway
                pass
        self.tmp.unlink(missing_ok=True)

    def __enter__(self) -> "H264Writer":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def h264_still(bgr: np.ndarray, crf: int = 26, preset: str = "veryfast", repeats: int = 4) -> np.ndarray:
    """``bgr`` as a video shows it: encoded as H.264 (yuv420p) ``repeats`` times over, as a still table is, and the
    last frame decoded. The key frame's coarse blocks and 4:2:0 colour, refined by the predicted frames after it, are
    what a reader of recorded video sees: a chip side two pixels per chip thick loses its colour there.

    Args:
        bgr: (H, W, 3) uint8 BGR; H and W even.
        crf, preset: x264 quality and speed (the rendered round videos: 26, ``veryfast``).
        repeats: frames encoded (1: the key frame alone).

    Returns:
        (H, W, 3) uint8 BGR.

    Raises:
        ValueError: for an odd size or a frame that is not (H, W, 3) uint8.
    """
    import tempfile

    h, w = bgr.shape[:2]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "still.mp4"
        with H264Writer(path, fps=10, width=w, height=h, crf=crf, preset=preset, gop=max(1, repeats),
                        threads=1) as writer:
            for _ in range(max(1, repeats)):
                writer.write(bgr)
        with av.open(str(path)) as container:
            last = None
            for frame in container.decode(video=0):
                last = frame
            return last.to_ndarray(format="bgr24")


def probe_video(path: str | Path) -> dict:
    """Codec, pixel format, size, frame rate and decoded frame count of a video file.

    Returns ``{"codec", "pix_fmt", "width", "height", "fps", "frames"}`` (frames counted by decoding).
    """
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        info = {"codec": stream.codec_context.name, "pix_fmt": stream.codec_context.pix_fmt,
                "width": stream.codec_context.width, "height": stream.codec_context.height,
                "fps": float(stream.average_rate) if stream.average_rate else None}
        info["frames"] = sum(1 for _ in container.decode(stream))
    return info


def sha256_file(path: str | Path) -> str:
    """Hex sha256 of a file (evidence clips carry it)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
