"""Chip stacks counted from their side: front and back of the stack unrolled along the calibrated vertical.

With the camera's pose known, a stack standing at ``base_mm`` is a cylinder of known radius
whose image the calibration fixes.  :func:`stack_strips` samples it into a small upright
image of six channels, ``ROWS_PER_CHIP`` rows per chip thickness from just below the felt to
``SLOTS`` chips up (and a little above):

* the **front** (BGR channels 0-2): the arc facing the camera, where each chip's edge shows,
  bottom up, so each slot's denomination can be read;
* the **back** (channels 3-5): the arc facing away.  Below the stack's top the camera sees the
  top chip's face there; above it, the felt behind the stack.  That step marks the top.

The base is a guess (a betting spot's centre, or a box's), and a millimetre of error along the
line of sight moves the strip by most of a chip at these tilts, so :class:`ChipSideReader` reads
strips at bases moved along the line of sight (:data:`SEARCH_MM` either way) and
keeps the one its model finds *aligned* (the strip's slot 0 on the bottom chip). The bases are screened first
in tall strips, several bases a strip, by the model's *search graph* (its alignment at every row offset:
:func:`models.export.chip_side_search_graph`, ``models/chip_side_search.onnx``).  The model
(``models/chip_side.onnx``, trained on rendered stacks) gives, per strip, that alignment
probability and, for each chip slot bottom-up, the probability that it holds a chip of each
denomination of the default chip set or nothing.  The count is the number of slots before the
first empty one; a slot read below ``threshold`` (:data:`THIN_SIDE_THRESHOLD` where the side shows
under 2 px per chip), a chip above an empty slot, no aligned base or a side the frame's edge cuts
(:func:`side_in_frame`) makes the stack unreadable (count and value null), never a guess.

A stack set down behind and beside another (a side-bet payout beside the main one) shows part of its front arc
hidden by that stack: :meth:`ChipSideReader.read_stacks`, told where the frame's counted stacks stand, reads it
again with both arcs turned away from the one in front (:func:`side_away`, :data:`TURNS_AWAY_RAD`).
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from vision.onnx_runtime import unit_nchw

SLOTS = 16
"""Chip slots read per stack, bottom up (a taller stack is read as unreadable)."""
ROWS_PER_CHIP = 4
"""Strip rows per chip thickness."""
ROWS_BELOW = 4
"""Strip rows below the felt (the felt in front of the stack's base)."""
ROWS_ABOVE = 4
"""Strip rows above the top slot (so the back strip shows the felt above the tallest stack read)."""
ARC_POINTS = 12
"""Strip columns across each arc."""
ARC_RAD = 0.9
"""Half-width of the front arc sampled, radians either side of the direction to the camera."""
BACK_ARC_RAD = 0.6
"""Half-width of the back arc, radians either side of the direction away from the camera."""
STRIP_ROWS = ROWS_BELOW + ROWS_PER_CHIP * SLOTS + ROWS_ABOVE
ALIGNED_ROWS = ROWS_BELOW + 3 * ROWS_PER_CHIP
"""Bottom strip rows the model's alignment head reads (below the felt and three chips up)."""
REACH_ROWS = 16
"""Strip rows either side of a feature row that reach it through the model's convolutions (two 3 x 3, then 1-D
kernels of 5 at dilations 1, 2 and 4: 1 + 1 + 2 + 4 + 8)."""
SEARCH_ROWS = ALIGNED_ROWS + REACH_ROWS
"""Strip rows the coarse base search samples and reads: all the alignment depends on (a strip cut there reads the
same alignment as the whole strip, to float rounding), under half the rows and so under half the model's time.
Used with a model whose row count is free (:func:`_open_chip_side`); a model fixed at :data:`STRIP_ROWS` reads
whole strips."""
STRIP_CHANNELS = 6
"""Front BGR then back BGR."""
SEARCH_MM = 10.0
"""How far along the line of sight the base is searched either side of the guess, mm: a wager stands within a
centimetre of its spot's centre."""
SEARCH_MIN_CHIPS = 3.0
"""The search reaches at least this many chip thicknesses (as the image shows them) either side."""
SEARCH_STEP_CHIPS = 0.5
"""Coarse search step, chip thicknesses; the best base is then tried half a step either side."""
ALIGNED_MIN = 0.5
"""Least alignment probability of the best base for a reading."""
TIED_ALIGNMENT = 0.02
"""Bases aligned within this much of the best are tied: the model's alignment saturates over a quarter chip or more."""
TIED_REACH_CHIPS = 1.0
"""Only bases within this many chip thicknesses of the best one (along the line of sight) are tied with it: a run of
saturated bases spans under a chip; an alignment as high a few chips off is another boundary (a stripe, a layer)."""
THIN_SIDE_THRESHOLD = 0.95
"""Least probability of every slot for a stack whose side shows under :data:`vision.chips.SURE_PX_PER_CHIP` px per
chip (down to :data:`vision.chips.MIN_PX_PER_CHIP`).  Measured on fresh renders (nineteenth session, 300 frames,
base at the spot's centre, `.cache/s19/band.py`): at 1.6-2.0 px per chip 0.85 read 204 of 246 stacks right and 7
wrong (2.8 %), 0.95 186 right and 5 wrong (2.0 %), as wrong as 2.0-2.4 px per chip at 0.85 (217 of 239, 4 wrong,
1.7 %); with the base guessed 3 mm off, 79 right and 6 wrong of 190 (3.2 %) against 166 and 12 of 248 (4.8 %)."""
TIED_AGREEING = 2
"""Tied bases that must give one and the same count and value to stand in for the best one where it cannot count."""
TURNS_AWAY_RAD = (0.3, 0.45, 0.6)
"""How far the arcs of a stack that another stack partly hides are turned away from it, radians (:func:`side_away`).
Measured on 200 fresh frames of stacks set down 40-60 mm behind and beside another (`scripts/occluded_stacks.py 200
9401`; 879 stacks, 273 at >= 2 px per chip that the front arc cannot count): one turn of 0.3 counts 59 of those 273
right and 24 wrong; and the front arc misreads the stacks the one in front partly hides nearly three times as often
as those it does not (37 of 325 against 18 of 446).  So an uncounted stack is counted only where all three turns
read it alike, and one counted at its front arc keeps its count only where a turn reads it alike: with both (and
:data:`BESIDE_MM`), 450 right and 26 wrong where the front arc alone read 443 and 55."""
BESIDE_MM = 55.0
"""Bases nearer than this (mm) may hide part of each other's front arc: a chip's diameter and 16 mm.  Measured on 200
fresh frames of pairs 40-90 mm apart (`scripts/occluded_stacks.py 200 9403 --apart 40 90`, 811 stacks behind at
>= 2 px per chip): read so within 55 mm, 525 right and 19 wrong; within 90 mm, 498 and 14; never, 527 and 27.
Beyond ~55 mm the stack in front hides nothing the strips sample, and the turns cost right readings."""
IN_FRONT_RAD = 1.05
"""A stack within this bearing (radians) of a stack's direction to the camera stands in front of it."""
TURNS_AROUND_RAD = (-0.6, -0.45, -0.3, -0.15, 0.15, 0.3, 0.45, 0.6)
"""How far, either way round the stack, the arcs of a stack seen but not counted surely are turned to read it again
(:meth:`ChipSideReader.read_stacks`), radians. Each turn's columns are other points of the chips' rim, other pixels
(in H.264 video, other 2 x 2 colour samples), so each turn is a look of its own. Chosen on 900 fresh frames of stacks
(`scripts/turned_rereads.py` seeds 9501-9503, two thirds as H.264 video shows them; 5,280 stacks at >= 1.6 px per
chip, base guessed 3 mm off): of the stacks the front arc left uncounted, those read alike at 3 of the six turns of
0.3-0.6 were right 151 times and wrong 15, and the wrong ones were nearly all read from one side only, their bottom
chips missed (a $125 of five $25 read $25); read alike at 4 or more of these eight turns with both sides among them,
111 right and 3 wrong. On 600 frames not looked at before (seeds 9504 as video, 9505 as renders; 3,422 stacks) the
front arc read 2,355 right and 128 wrong, the reader with this second look 2,442 and 133: the new counts as often
right (87 of 92) as the front arc's own (2,355 of 2,483)."""
AROUND_AGREEING = 4
"""Turns of :data:`TURNS_AROUND_RAD` that must count such a stack, every turn that counts it reading it alike, with at
least one of them on each side."""
UNSURE_NOTES = ("a chip slot read at", "a chip seen above an empty slot")
"""How :func:`reading_from_slots` begins the note of a stack whose bottom chip was found and whose chips were seen,
but not surely enough to count: the stacks read again turned round (a stack not found, too tall or running out of the
frame is not)."""

FP32_CHIP_SIDE = Path(__file__).resolve().parents[1] / "models" / "chip_side.onnx"
"""The committed chip-side model, float (the one training exports and fine-tunes start from)."""
DEFAULT_CHIP_SIDE = FP32_CHIP_SIDE
"""The chip-side model the runtime uses: the float one.  :data:`INT8_CHIP_SIDE` is 1.5-2x faster per strip but read
more stacks wrong on fresh renders (twentieth session), so it is not the default."""
INT8_CHIP_SIDE = FP32_CHIP_SIDE.with_name("chip_side_int8.onnx")
""":data:`FP32_CHIP_SIDE` in static int8 (7-bit weights: :func:`models.export.quantize_chip_side`); usable as the
base search's model only (``ChipSideReader(search_model=...)``), measured, not the default."""


def chip_side_model(path: Path | None = None, off: bool = False) -> Path | None:
    """The chip-side model a command asked for: ``path``, else the committed one; None with ``off``
    (``--no-chip-side``: stacks valued from their box height only)."""
    return None if off else (path or DEFAULT_CHIP_SIDE)


def _towards_camera(camera, base_mm) -> np.ndarray:
    """Unit layout direction from each base ((2,) or (K, 2) mm) towards the point under the camera, same shape."""
    front = camera.center_mm[:2] - np.asarray(base_mm, np.float64)
    return front / np.maximum(np.linalg.norm(front, axis=-1, keepdims=True), 1e-6)


def side_strip(image: np.ndarray, camera, base_mm, back: bool = False) -> np.ndarray:
    """Unroll the front (or back) of a stack standing at ``base_mm`` into an upright strip.

    Args:
        image: (H, W, 3) uint8 BGR frame.
        camera: :class:`calibration.camera.PinholeCamera` with the table's pose.
        base_mm: (x, y) mm of the stack's base centre on the layout.
        back: the arc facing away from the camera (:data:`BACK_ARC_RAD` either side) instead of the one facing it
            (:data:`ARC_RAD` either side).

    Returns:
        (STRIP_ROWS, ARC_POINTS, 3) uint8 BGR, row 0 at the bottom (below the felt), each
        chip thickness ``ROWS_PER_CHIP`` rows, on a chip's radius; pixels outside the frame replicate its edge.
    """
    strips = strips_at(image, camera, [base_mm])[0]
    return strips[..., 3:] if back else strips[..., :3]


def stack_strips(image: np.ndarray, camera, base_mm) -> np.ndarray:
    """(STRIP_ROWS, ARC_POINTS, 6) uint8: the front strip's BGR then the back strip's, row 0 at the bottom."""
    return strips_at(image, camera, [base_mm])[0]


STRIP_CHUNK = 16
"""Bases sampled per projection and ``cv2.remap`` call in :func:`strips_at`: enough to spread the calls' overhead,
few enough that the ~28,000 points stay in cache (all of a frame's bases at once took twice as long)."""


def strips_at(image: np.ndarray, camera, bases_mm, rows: int = STRIP_ROWS, turns=None) -> np.ndarray:
    """:func:`stack_strips` at each of ``bases_mm`` ((K, 2) mm), sampled :data:`STRIP_CHUNK` bases at a time.

    The chip side reads 12-17 bases per stack; sampled one arc at a time, with a projection and a remap each,
    they cost about as much as the model (nineteenth session: 78 ms of a bench frame with ten thin-sided
    stacks).

    Args:
        rows: the bottom rows only (e.g. :data:`SEARCH_ROWS`); each is the whole strip's row.
        turns: (K,) radians each base's two arcs are turned round the stack from facing the camera (the layout's
            angle, from +x towards +y); None: 0.  Each column stays a point of the chips' rim, further round, so a
            turned strip shows the same chips' edges, from a side another stack may not hide.

    Returns:
        (K, rows, ARC_POINTS, 6) uint8, front BGR then back BGR, row 0 at the bottom.
    """
    b = np.asarray(bases_mm, np.float64).reshape(-1, 2)
    t = np.zeros(len(b)) if turns is None else np.broadcast_to(np.asarray(turns, np.float64), (len(b),))
    out = [_strips_chunk(image, camera, b[a:a + STRIP_CHUNK], rows, t[a:a + STRIP_CHUNK])
           for a in range(0, len(b), STRIP_CHUNK)]
    return np.concatenate(out) if out else np.zeros((0, rows, ARC_POINTS, STRIP_CHANNELS), np.uint8)


def _strips_chunk(image: np.ndarray, camera, b: np.ndarray, rows: int = STRIP_ROWS, turns=None) -> np.ndarray:
    from vision.chips import CHIP_DIAMETER_MM, CHIP_THICKNESS_MM

    k = len(b)
    front = _towards_camera(camera, b)
    facing = np.arctan2(front[:, 1], front[:, 0]) + (0.0 if turns is None else turns)
    ang = np.stack([facing[:, None] + np.linspace(-ARC_RAD, ARC_RAD, ARC_POINTS),
                    facing[:, None] + np.pi + np.linspace(-BACK_ARC_RAD, BACK_ARC_RAD, ARC_POINTS)], 1)  # (K, 2, P)
    r = CHIP_DIAMETER_MM / 2
    z = (ROWS_BELOW - np.arange(rows) - 0.5) * CHIP_THICKNESS_MM / ROWS_PER_CHIP  # up is -z
    shape = (k, 2, rows, ARC_POINTS)
    pts = np.stack([np.broadcast_to((b[:, 0, None, None] + r * np.cos(ang))[:, :, None, :], shape),
                    np.broadcast_to((b[:, 1, None, None] + r * np.sin(ang))[:, :, None, :], shape),
                    np.broadcast_to(z[None, None, :, None], shape)], -1)
    uv = camera.project(pts.reshape(-1, 3)).reshape(k * 2 * rows, ARC_POINTS, 2).astype(np.float32)
    uv = np.nan_to_num(uv, nan=-1.0)
    out = cv2.remap(image, uv[..., 0], uv[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    out = out.reshape(k, 2, rows, ARC_POINTS, -1)
    return np.concatenate([out[:, 0], out[:, 1]], -1)


def side_away(camera, base_mm, neighbours, reach_mm: float = BESIDE_MM) -> float:
    """Which way (+1.0 or -1.0, the sign of the turns :func:`strips_at` takes) turns the arcs of a stack at
    ``base_mm`` (mm) away from the stacks standing in front of it to one side (within ``reach_mm`` and
    :data:`IN_FRONT_RAD` of its direction to the camera); 0.0 where none stands so, or they stand on both sides.

    A payout set down beside and behind another shows its front arc cut by that stack's side; the rest of its front
    (the side away from that stack) still shows each chip's edge.

    Args:
        neighbours: (x, y) mm bases of the other stacks in the frame (the stack's own base may be among them).
    """
    b = np.asarray(base_mm, np.float64).reshape(2)
    front = _towards_camera(camera, b)
    facing = float(np.arctan2(front[1], front[0]))
    sides = set()
    for n in neighbours:
        d = np.asarray(n, np.float64).reshape(2) - b
        dist = float(np.hypot(*d))
        if dist < 1.0 or dist >= reach_mm:
            continue
        bearing = (float(np.arctan2(d[1], d[0])) - facing + np.pi) % (2 * np.pi) - np.pi
        if abs(bearing) < IN_FRONT_RAD:
            sides.add(1.0 if bearing > 0 else -1.0)
    return -sides.pop() if len(sides) == 1 else 0.0


def side_in_frame(image_shape, camera, base_mm, chips: int) -> bool:
    """Whether the side of a stack of ``chips`` standing at ``base_mm`` (mm), and the slot above it, lie inside the
    frame (``image_shape`` (H, W, ...)) on both the arcs :func:`stack_strips` unrolls.

    Beyond the frame's edge a strip repeats the edge's pixels, and a stack the edge cuts was read from them: on 300
    rendered hold-out frames, 10 of the 11 stacks valued wrong at >= 2 px per chip were stacks the frame cut
    (twenty-seventh session). Such a stack is not counted."""
    from vision.chips import CHIP_DIAMETER_MM, CHIP_THICKNESS_MM

    b = np.asarray(base_mm, np.float64).reshape(2)
    facing = float(np.arctan2(*_towards_camera(camera, b)[::-1]))
    ang = np.concatenate([facing + np.linspace(-ARC_RAD, ARC_RAD, ARC_POINTS),
                          facing + np.pi + np.linspace(-BACK_ARC_RAD, BACK_ARC_RAD, ARC_POINTS)])
    r = CHIP_DIAMETER_MM / 2
    top = (min(chips, SLOTS) + 1) * CHIP_THICKNESS_MM
    pts = [(b[0] + r * np.cos(a), b[1] + r * np.sin(a), z) for z in (0.0, -top) for a in ang]  # up is -z
    uv = np.asarray(camera.project(np.array(pts, np.float64)), np.float64)
    h, w = image_shape[:2]
    return bool(np.isfinite(uv).all() and (uv >= 0).all() and (uv[:, 0] <= w - 1).all() and (uv[:, 1] <= h - 1).all())


def sight_step_mm(camera, base_mm) -> tuple[np.ndarray, float]:
    """(unit (2,) layout direction towards the camera, mm of base moved that way per chip the image shows).

    Moving a base ``d`` mm towards the camera moves its image as far as ``d / step`` chip
    thicknesses on the side do.
    """
    front, step, _ = _sight(camera, base_mm)
    return front, step


def _sight(camera, base_mm) -> tuple[np.ndarray, float, float]:
    """:func:`sight_step_mm` and the px per chip the side shows at ``base_mm``."""
    from vision.chips import chip_geometry

    b = np.asarray(base_mm, np.float64)
    front = _towards_camera(camera, b)
    p = camera.project([[b[0], b[1], 0.0], [b[0] + front[0], b[1] + front[1], 0.0]])
    px_per_mm = float(np.linalg.norm(p[1] - p[0]))
    ppc = chip_geometry(camera, (float(b[0]), float(b[1])))[0]
    return front, ppc / max(px_per_mm, 1e-6), ppc


def strips_to_blob(strips) -> np.ndarray:
    """(B, H, W, 6) uint8 front+back BGR strips -> (B, 6, H, W) float32 RGB+RGB in [0, 1]."""
    batch = strips if isinstance(strips, np.ndarray) else np.stack(strips)
    return unit_nchw(np.concatenate([batch[..., 2::-1], batch[..., 5:2:-1]], -1))


def _open_chip_side(model, threads: int | None):
    """(onnxruntime session, denominations, rows free) of a chip-side model file; rows free: the input's row count
    is a free dimension (:func:`models.export.free_chip_side_rows`), so the base search can read
    :data:`SEARCH_ROWS`-row strips.

    Raises:
        ModelFileError: the model is missing, corrupt, or of an older strip layout.
    """
    from vision.onnx_runtime import ModelFileError, open_session

    session = open_session(model, threads=threads)
    shape = session.get_inputs()[0].shape
    rows_free = len(shape) == 4 and not isinstance(shape[2], int)
    if len(shape) != 4 or shape[1] != STRIP_CHANNELS or shape[3] != ARC_POINTS \
            or not (rows_free or shape[2] == STRIP_ROWS) or len(session.get_outputs()) != 2:
        raise ModelFileError(f"{model}: a chip-side model reads (batch, {STRIP_CHANNELS}, {STRIP_ROWS}, "
                             f"{ARC_POINTS}) strips and gives slots and alignment; this one takes {shape}")
    return session, json.loads(session.get_modelmeta().custom_metadata_map.get("denominations", "[]")), rows_free


SEARCH_CHUNK = 8
"""Coarse bases of the search read per tall strip through the search graph (:meth:`ChipSideReader.
_windowed_alignment`). A strip cut at the chunk's first base shows each next base two rows up only to within the
perspective's drift, which grows along the strip (grey levels off per row: 0-2 at the fourth base, 5-14 at the
sixteenth, up to 45 at the fiftieth); measured on fresh renders (`scripts/chip_search_compare.py`, model card,
Speed, twenty-fifth session)."""


SEARCH_SCREEN = 0.01
"""Least alignment a coarse base must show in its tall strip to be read again in a strip of its own. In the tall
strip the rows below a base are the image's, where its own strip has the model's zero padding, and the model reads
some bases otherwise there: chosen on the tall strips alone, the best base and its ties gave 18-41 fewer right values
of 1,700 fresh stacks (`scripts/chip_search_compare.py 300 8201 3`). Screened so and read again, the choice is made on
each base's own strip, as before: 1,238 right and 62 wrong against 1,240 and 65 a strip per base (at 0.1: 1,218 and
63; at 0.03: 1,228 and 64), and at the spot's centre (`... 300 8202 0`) 1,636 and 25 against 1,635 and 27."""


def search_graph_path(model: str | Path) -> Path:
    """Where the search graph of chip-side model ``model`` lies: ``<stem>_search.onnx`` beside it."""
    model = Path(model)
    return model.with_name(model.stem + "_search.onnx")


def _open_search_graph(model: Path, search_graph: str | Path, threads: int | None):
    """The onnxruntime session of ``model``'s search graph (:func:`models.export.chip_side_search_graph`), or None.

    ``search_graph`` ``"auto"``: :func:`search_graph_path`, where it exists and was made from this very file (its
    ``source_sha256`` metadata), None otherwise (the search then reads every coarse base's strip through the
    model, as before). A path: that graph, which must have been made from ``model``.

    Raises:
        ModelFileError: a search graph named by path is missing, corrupt, or made from another model.
    """
    import hashlib

    from vision.onnx_runtime import ModelFileError, open_session

    auto = search_graph == "auto"
    path = search_graph_path(model) if auto else Path(search_graph)
    if auto and not path.is_file():
        return None
    try:
        session = open_session(path, threads=threads)
    except ModelFileError:
        if auto:
            return None
        raise
    source = session.get_modelmeta().custom_metadata_map.get("source_sha256")
    if source != hashlib.sha256(model.read_bytes()).hexdigest():
        if auto:
            return None
        raise ModelFileError(f"{path}: a search graph made from another chip-side model than {model}")
    return session


class ChipSideReader:
    """Counts and values chip stacks from :func:`stack_strips` with the committed ONNX model.

    Args:
        model: path of ``chip_side.onnx`` (its metadata names the denominations it reads).
        threads: onnxruntime intra-op threads.
        threshold: least probability of every slot's reading; below it the stack is unreadable (at least
            :data:`THIN_SIDE_THRESHOLD` where the side shows under :data:`vision.chips.SURE_PX_PER_CHIP` px per chip).
        search_model: a second chip-side model (e.g. :data:`INT8_CHIP_SIDE`) that reads the coarse bases of the
            search for the bottom chip; the readings, and the bases either side of the best, are the first model's.
            None: one model for both.
        search_graph: the model's search graph (:func:`models.export.chip_side_search_graph`), which reads the
            coarse bases' alignment :data:`SEARCH_CHUNK` bases per tall strip, about three times as fast as a strip
            each: ``"auto"`` (the one beside the model, :func:`search_graph_path`, if made from it), a path, or
            None (a strip each). Not used with ``search_model``.
        search_chunk: coarse bases per tall strip (1: a strip each).

    Raises:
        ModelFileError: a model is missing, corrupt, or of an older strip layout, or the two read other
            denominations.

    Example:
        >>> reader = ChipSideReader()                          # doctest: +SKIP
        >>> reader.read(frame, table.camera, (812.0, 455.0))    # doctest: +SKIP
        StackReading(count=4, value=45, layers=[...], note=None, px_per_chip=2.4)
    """

    search_rows: int = STRIP_ROWS
    """Rows of the coarse search's strips: :data:`SEARCH_ROWS` where the search model's row count is free."""
    search_graph = None
    """onnxruntime session of the search graph, or None (a strip per coarse base)."""
    screen: float = SEARCH_SCREEN
    """:data:`SEARCH_SCREEN` (an attribute, so that a comparison can try others)."""

    def __init__(self, model: str | Path = DEFAULT_CHIP_SIDE, threads: int | None = None,
                 threshold: float = 0.85, search_model: str | Path | None = None,
                 search_graph: str | Path | None = "auto", search_chunk: int = SEARCH_CHUNK) -> None:
        self.session, self.denominations, rows_free = _open_chip_side(model, threads)
        self.search_chunk = max(1, int(search_chunk))
        self.search_graph = None
        if search_model is None and search_graph is not None and self.search_chunk > 1:
            self.search_graph = _open_search_graph(Path(model), search_graph, threads)
        self.search_session = self.session
        if search_model is not None:
            from vision.onnx_runtime import ModelFileError

            self.search_session, denominations, rows_free = _open_chip_side(search_model, threads)
            if denominations != self.denominations:
                raise ModelFileError(f"{search_model}: reads denominations {denominations}, {model} {self.denominations}")
        self.search_rows = SEARCH_ROWS if rows_free else STRIP_ROWS
        self.threshold = threshold
        self.input_name = self.session.get_inputs()[0].name

    def run(self, strips, search: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(N, H, W, 6) uint8 strips (an array or a list) -> (slot probabilities (N, SLOTS, 1 + D) float32: empty
        then each denomination, alignment (N,) float32); ``search``: with the search model where there is one.
        Strips of :data:`SEARCH_ROWS` rows give the alignment only (their slot probabilities cover the rows
        they have: (N, (SEARCH_ROWS - ROWS_BELOW) // ROWS_PER_CHIP, 1 + D), not a reading)."""
        if not len(strips):
            return np.zeros((0, SLOTS, 1 + len(self.denominations)), np.float32), np.zeros(0, np.float32)
        from vision.card_reader import softmax

        session = self.search_session if search else self.session
        slot_logits, aligned_logit = session.run(None, {self.input_name: strips_to_blob(strips)})
        return softmax(slot_logits).astype(np.float32), (1.0 / (1.0 + np.exp(-aligned_logit))).astype(np.float32)

    def read(self, image: np.ndarray, camera, base_mm):
        """Read one stack standing near ``base_mm`` (mm): a :class:`vision.chips.StackReading`."""
        return self.read_stacks(image, camera, [base_mm])[0]

    def read_stacks(self, image: np.ndarray, camera, bases_mm, turns=None, counted_beside=None,
                    look_around: bool = True) -> list:
        """Read the stacks standing near each of ``bases_mm`` ((x, y) mm each) in one batch.

        For each stack, strips are cut at the base moved along the line of sight, :data:`SEARCH_MM` either
        way (at least :data:`SEARCH_MIN_CHIPS` chips) in steps of :data:`SEARCH_STEP_CHIPS`, and half a step
        either side of the best; the one the model finds best aligned is read, if it is aligned at all.  The
        coarse bases are read for their alignment only, on their bottom :attr:`search_rows` rows; with a search
        graph, :data:`SEARCH_CHUNK` bases per tall strip first, and only those aligned :data:`SEARCH_SCREEN` or
        more there a strip each. Where the best base cannot count, the coarse bases tied with it are read whole.

        Args:
            turns: per base, radians the arcs are turned from facing the camera (:func:`strips_at`); None: 0.
            counted_beside: (x, y) mm bases of the stacks counted in the frame outside this batch; None: no second
                look. A stack that cannot be counted, whose side shows at least
                :data:`vision.chips.SURE_PX_PER_CHIP` px per chip, with a counted stack (one of these, or of the
                batch) in front of it to one side (:func:`side_away`), is read again with its arcs turned away from
                it, at each of :data:`TURNS_AWAY_RAD`, and counted where they all read it alike; one counted so is
                read turned too, and left uncounted unless a turn reads it alike (a stack partly hidden is misread
                at its front arc nearly three times as often as one clear of it: :data:`TURNS_AWAY_RAD`). A stack
                in front that cannot be counted may be the dealer's hand setting a payout down over it (4K seed
                7191: a $150 wager read $75 for 0.2 s so), so it turns nothing.
            look_around: a stack whose bottom chip was found and whose chips were seen, but not surely enough to
                count (:data:`UNSURE_NOTES`), with no counted stack in front of it, is read again at every turn of
                :data:`TURNS_AROUND_RAD` and counted where :data:`AROUND_AGREEING` of them count it, all alike, turns
                either way among them (4K seed 7301 r0: two $100 chips whose bottom one read 0.50 facing the camera
                read $200 at six of the eight turns). False: the front arc (and the turns away) only.

        Returns:
            One :class:`vision.chips.StackReading` per base, in order.
        """
        out = self._read_stacks(image, camera, bases_mm, turns)
        if turns is not None:
            return out
        from vision.chips import SURE_PX_PER_CHIP, StackReading

        unsure = {i for i, r in enumerate(out)
                  if look_around and r.count is None and (r.note or "").startswith(UNSURE_NOTES)}
        sides = {}
        if counted_beside is not None:
            counted = list(counted_beside) + [b for b, r in zip(bases_mm, out) if r.count is not None]
            sides = {i: side_away(camera, bases_mm[i], counted) for i, r in enumerate(out)
                     if i in unsure or (r.px_per_chip or 0.0) >= SURE_PX_PER_CHIP}
        # a stack seen but not counted surely, clear of any stack in front of it, is read again turned either way
        around = sorted(i for i in unsure if not sides.get(i))
        if around:
            out = self._read_around(image, camera, bases_mm, out, around)
        again = [(i, side) for i, side in sides.items() if side and (out[i].px_per_chip or 0.0) >= SURE_PX_PER_CHIP]
        if not again:
            return out
        away = self._read_turned(image, camera,
                                 [(bases_mm[i], [side * t for t in TURNS_AWAY_RAD]) for i, side in again])
        for (i, _), reads in zip(again, away):
            if out[i].count is None:
                if reads[0].count is not None and all(_same(r, reads[0]) for r in reads):
                    out[i] = reads[0]
            elif not any(_same(r, out[i]) for r in reads):
                out[i] = StackReading(None, None, [], px_per_chip=out[i].px_per_chip,
                                      note="partly hidden by the stack in front of it, and not read alike from its "
                                           "side away from that stack: cannot count")
        return out

    def _read_around(self, image: np.ndarray, camera, bases_mm, out: list, around: list[int]) -> list:
        """``out`` with each stack of ``around`` (indices) read again at every turn of :data:`TURNS_AROUND_RAD`,
        counted where :data:`AROUND_AGREEING` of them count it, all that count it read it alike, and turns either way
        round the stack are among them (a stack misread turned is misread from one side)."""
        out = list(out)
        turned = self._read_turned(image, camera, [(bases_mm[i], TURNS_AROUND_RAD) for i in around])
        for i, reads in zip(around, turned):
            counted = [(t, r) for t, r in zip(TURNS_AROUND_RAD, reads) if r.count is not None]
            if len(counted) < AROUND_AGREEING or not all(_same(r, counted[0][1]) for _, r in counted):
                continue
            if any(t < 0 for t, _ in counted) and any(t > 0 for t, _ in counted):
                out[i] = counted[0][1]
        return out

    def _read_turned(self, image: np.ndarray, camera, tries: list) -> list[list]:
        """Per (base (x, y) mm, turns radians) of ``tries``: the stack read at each of its turns, all in one batch."""
        turned = self._read_stacks(image, camera, [b for b, turns in tries for _ in turns],
                                   [t for _, turns in tries for t in turns])
        cuts = np.cumsum([0] + [len(turns) for _, turns in tries])
        return [turned[a:b] for a, b in zip(cuts[:-1], cuts[1:])]

    def _read_stacks(self, image: np.ndarray, camera, bases_mm, turns=None) -> list:
        """:meth:`read_stacks` without its second look at stacks partly hidden or read unsurely."""
        from vision.chips import SURE_PX_PER_CHIP, StackReading, chip_geometry

        turns = [0.0] * len(bases_mm) if turns is None else [float(t) for t in turns]
        coarse, sight, steps, guessed_ppc = [], [], [], []
        for base in bases_mm:
            b = np.asarray(base, np.float64)
            front, step, ppc0 = _sight(camera, b)
            guessed_ppc.append(ppc0)
            steps.append(step)
            reach = max(SEARCH_MIN_CHIPS, SEARCH_MM / max(step, 1e-6))
            offsets = np.arange(-reach, reach + 1e-9, SEARCH_STEP_CHIPS)
            coarse.append([b + o * step * front for o in offsets])
            sight.append(0.5 * SEARCH_STEP_CHIPS * step * front)  # half a step along the line of sight, mm
        if self.search_graph is not None:
            a_coarse, own = self._windowed_alignment(image, camera, coarse, turns)
            # the tall strips screen the bases; those that may be aligned are read again a strip each, so the best
            # base and the ties are chosen on what the model reads of each base's own strip, as before (a chunk's
            # first base was read so already: its window is its own strip's bottom)
            again = [np.flatnonzero((a >= self.screen) & ~o) for a, o in zip(a_coarse, own)]
            if any(len(k) for k in again):
                _, exact = self._run_bases(image, camera, [[bases[i] for i in k] for bases, k in zip(coarse, again)],
                                           search=True, rows=self.search_rows, turns=turns)
                for a, o, k, e in zip(a_coarse, own, again, exact):
                    a[~o] = np.minimum(a[~o], self.screen * 0.999)
                    a[k] = e
        else:
            _, a_coarse = self._run_bases(image, camera, coarse, search=True, rows=self.search_rows, turns=turns)
        fine, refined = [], [int(np.argmax(ai)) for ai in a_coarse]
        for bases, k, half in zip(coarse, refined, sight):
            fine.append([bases[k], bases[k] + half, bases[k] - half])
        p, aligned = self._run_bases(image, camera, fine, turns=turns)
        out = []
        for bases, pi, ai, ac, cb, k, step, ppc0, turn in zip(fine, p, aligned, a_coarse, coarse, refined, steps,
                                                               guessed_ppc, turns):
            best = int(np.argmax(ai))
            ppc = chip_geometry(camera, (float(bases[best][0]), float(bases[best][1])))[0]
            if ai[best] < ALIGNED_MIN:
                out.append(StackReading(None, None, [], px_per_chip=ppc,
                                        note=f"the stack's bottom chip was not found (alignment {ai[best]:.2f}): "
                                             "cannot count"))
                continue
            # the stack was let in by the ppc at its guessed base, and the search moves it a little: the thinner of
            # the two decides, so a stack banded under 2 px per chip is never counted at the looser threshold
            thin = min(ppc, ppc0) < SURE_PX_PER_CHIP
            threshold = max(self.threshold, THIN_SIDE_THRESHOLD) if thin else self.threshold
            reading = reading_from_slots(pi[best], self.denominations, threshold, ppc)
            if reading.count is None:
                # the tie runs over every base tried near the best one (a run of saturated bases can span the
                # coarse steps), each once: the coarse step refined from is the first fine base; only the coarse
                # bases tied with the best are read whole (the others' slots are never looked at)
                floor = max(ALIGNED_MIN, float(ai[best]) - TIED_ALIGNMENT)
                near = (np.arange(len(ac)) != k) & (ac >= floor) & (
                    np.linalg.norm(np.asarray(cb) - bases[best], axis=1) <= TIED_REACH_CHIPS * step + 1e-9)
                if near.any():
                    [pc], _ = self._run_bases(image, camera, [[c for c, n in zip(cb, near) if n]], search=True,
                                              turns=[turn])
                    pi, ai = np.concatenate([pi, pc[:int(near.sum())]]), np.concatenate([ai, ac[near]])
                reading = _tied_reading(pi, ai, best, self.denominations, threshold, ppc) or reading
            if reading.count is not None and not side_in_frame(image.shape, camera, bases[best], reading.count):
                reading = StackReading(None, None, [], px_per_chip=ppc,
                                       note="the stack's side runs out of the frame: cannot count")
            out.append(reading)
        return out

    def _windowed_alignment(self, image, camera, groups: list[list[np.ndarray]],
                            turns=None) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Per group of coarse bases (in search order, along the line of sight away from the camera's side last):
        their alignment (K,) float32, read :attr:`search_chunk` bases per tall strip by the search graph
        (:func:`models.export.chip_side_search_graph`), and (K,) bool: the chunks' first bases, whose alignment is
        their own strip's (its window is that strip's bottom rows). Each next base of a chunk lies half a chip
        further from the camera, where the strip of the chunk's first (nearest the camera) shows it two rows up."""
        shift = int(round(SEARCH_STEP_CHIPS * ROWS_PER_CHIP))
        rows = SEARCH_ROWS + shift * (self.search_chunk - 1)
        starts, where, start_turns = [], [], []
        for g, bases in enumerate(groups):
            order = list(range(len(bases)))[::-1]  # nearest the camera first
            for a in range(0, len(order), self.search_chunk):
                chunk = order[a:a + self.search_chunk]
                starts.append(bases[chunk[0]])
                where.append((g, chunk))
                start_turns.append(0.0 if turns is None else turns[g])
        out = [np.zeros(len(bases), np.float32) for bases in groups]
        own = [np.zeros(len(bases), bool) for bases in groups]
        if not starts:
            return out, own
        strips = strips_at(image, camera, starts, rows, start_turns)
        name = self.search_graph.get_inputs()[0].name
        aligned = self.search_graph.run(None, {name: strips_to_blob(strips)})[0]
        for row, (g, chunk) in zip(aligned, where):
            out[g][chunk] = row[[shift * j for j in range(len(chunk))]]
            own[g][chunk[0]] = True
        return out, own

    def _run_bases(self, image, camera, groups: list[list[np.ndarray]], search: bool = False,
                   rows: int = STRIP_ROWS, turns=None) -> tuple[list, list]:
        """Per group of bases: (slot probabilities (K, SLOTS, 1 + D), alignment (K,)), all groups in one batch;
        ``rows``: strips of the bottom rows only (:meth:`run`)."""
        per_base = None if turns is None else [t for bases, t in zip(groups, turns) for _ in bases]
        strips = strips_at(image, camera, [c for bases in groups for c in bases], rows, per_base)
        p, aligned = self.run(strips, search)
        cuts = np.cumsum([0] + [len(bases) for bases in groups])
        return [p[a:b] for a, b in zip(cuts[:-1], cuts[1:])], [aligned[a:b] for a, b in zip(cuts[:-1], cuts[1:])]


def _same(a, b) -> bool:
    """Whether two :class:`vision.chips.StackReading` count the same chips."""
    return a.count is not None and (a.count, a.value, a.layers) == (b.count, b.value, b.layers)


def _tied_reading(p: np.ndarray, aligned: np.ndarray, best: int, denominations: list[int], threshold: float,
                  ppc: float | None):
    """The reading of the bases tied with ``best`` (whose strip could not be counted), or None.

    The alignment saturates (1.000) over a run of bases a quarter chip apart, and the run's
    first base can cut its slots across two chips (seed 7117: $40 and $50 wagers unreadable
    there, read right a quarter and a half chip on).  The stack is counted only when at least
    :data:`TIED_AGREEING` other tied bases read it, all alike: one tied base alone once gave
    six $1 chips for six $5 ones, and a disagreement is no reading.

    Args:
        p: (K, SLOTS, 1 + D) slot probabilities of the K bases tried; aligned: (K,) their alignment.
    """
    floor = max(ALIGNED_MIN, float(aligned[best]) - TIED_ALIGNMENT)
    tied = [k for k in range(len(aligned)) if k != best and aligned[k] >= floor]
    counted = [r for r in (reading_from_slots(p[k], denominations, threshold, ppc) for k in tied)
               if r.count is not None]
    if len(counted) < TIED_AGREEING:
        return None
    if not all(_same(r, counted[0]) for r in counted):
        return None
    return counted[0]


def reading_from_slots(p: np.ndarray, denominations: list[int], threshold: float, ppc: float | None = None):
    """A :class:`vision.chips.StackReading` from (SLOTS, 1 + D) slot probabilities, or null with a note."""
    from vision.chips import StackReading

    top = p.argmax(1)
    conf = p.max(1)
    n = int(np.argmax(top == 0)) if (top == 0).any() else SLOTS
    if n == SLOTS:
        return StackReading(None, None, [], px_per_chip=ppc, note=f"taller than {SLOTS} chips: cannot count")
    if (top[n:] != 0).any():
        return StackReading(None, None, [], px_per_chip=ppc, note=f"{UNSURE_NOTES[1]}: cannot count")
    if (conf[:n + 1] < threshold).any():
        return StackReading(None, None, [], px_per_chip=ppc,
                            note=f"{UNSURE_NOTES[0]} {conf[:n + 1].min():.2f} (< {threshold:g}): cannot count")
    if n == 0:
        return StackReading(None, None, [], px_per_chip=ppc, note="no chip on the side where the stack was found")
    layers: list[dict] = []
    for k in top[:n]:
        d = denominations[int(k) - 1]
        if layers and layers[-1]["denomination"] == d:
            layers[-1]["count"] += 1
        else:
            layers.append({"denomination": d, "count": 1})
    value = int(sum(layer["denomination"] * layer["count"] for layer in layers))
    return StackReading(n, value, layers, px_per_chip=ppc)
