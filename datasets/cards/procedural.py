"""Procedurally drawn decks: fonts, index sizes, pip shapes and court styles that vary by design.

Each :class:`ProceduralDesign` is a stable, named set of choices; the same name
always draws the same cards.  Index sizes follow real decks: a standard poker
index has a rank about 6-7 mm tall, a casino large ("jumbo") index 11-15 mm.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from datasets.cards.deck import TEXTURE_PX_PER_MM, CornerIndices, Deck, texture_size
from datasets.cards.glyphs import FontSpec, SuitStyle, paste, suit_mask, text_mask
from datasets.scene import CARD_H_MM, CARD_W_MM
from rules.cards import parse_card

# Pip positions in the pip area (0..1 across, 0..1 down); lower-half pips are drawn turned 180 degrees.
_PIPS: dict[str, list[tuple[float, float]]] = {
    "2": [(0.5, 0.0), (0.5, 1.0)],
    "3": [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    "4": [(0, 0), (1, 0), (0, 1), (1, 1)],
    "5": [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    "6": [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    "7": [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    "8": [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    "9": [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)],
    "10": [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0.5, 5 / 6), (0, 1), (1, 1)],
}

_COURT_PALETTES = (
    # (primary, secondary, accent) BGR: the traditional red / blue / yellow / black court colours
    ((40, 40, 200), (160, 80, 20), (40, 190, 235)),
    ((50, 30, 170), (30, 30, 30), (60, 170, 220)),
    ((140, 60, 20), (40, 40, 190), (90, 200, 240)),
)


@dataclass(frozen=True)
class ProceduralDesign:
    """The choices that make one procedural deck.

    Attributes:
        name: stable design name (``proc-duplex-std``).
        font: rank font.
        rank_h_mm: printed height of the index rank, mm.
        suit_h_mm: printed height of the index suit symbol, mm.
        index_x_mm, index_y_mm: index centre line from the left edge / top of the rank from the top edge, mm.
        gap_mm: space between rank and suit symbol, mm.
        ten_width: width of the ``10`` relative to its natural width (jumbo decks squeeze it).
        suits: suit symbol shapes.
        red_bgr, black_bgr, paper_bgr: ink and paper colours.
        pip_scale: centre pip height as a fraction of the standard 11 mm.
        court: ``frame`` | ``figure`` | ``letter`` court-card style.
        border_bgr: a thin printed border line, or ``None``.
        corner_radius_mm: rounding of the card corners.
    """

    name: str
    font: FontSpec
    rank_h_mm: float = 6.5
    suit_h_mm: float = 5.0
    index_x_mm: float = 4.6
    index_y_mm: float = 3.5
    gap_mm: float = 1.0
    ten_width: float = 1.0
    suits: SuitStyle = field(default_factory=SuitStyle)
    red_bgr: tuple[int, int, int] = (40, 30, 200)
    black_bgr: tuple[int, int, int] = (25, 20, 20)
    paper_bgr: tuple[int, int, int] = (246, 248, 250)
    pip_scale: float = 1.0
    court: str = "figure"
    border_bgr: tuple[int, int, int] | None = None
    corner_radius_mm: float = 3.0
    palette: int = 0

    @property
    def large_index(self) -> bool:
        return self.rank_h_mm >= 10


class ProceduralDeck(Deck):
    """A deck drawn from a :class:`ProceduralDesign`."""

    kind = "procedural"

    def __init__(self, design: ProceduralDesign) -> None:
        super().__init__()
        self.design = design
        self.name = design.name
        self.corner_radius_mm = design.corner_radius_mm
        self._boxes: dict[str, CornerIndices] = {}

    # --- the index -------------------------------------------------------------------------
    def _index_masks(self, card: str, s: float) -> tuple[np.ndarray, np.ndarray]:
        d = self.design
        c = parse_card(card)
        rank_h = int(round(d.rank_h_mm * s))
        # the 10 is squeezed to keep at least 1.5 mm of paper between the index and the card edge
        max_w = int(round((d.index_x_mm - 1.5) * 2 * s)) if c.rank == "10" else None
        rank = text_mask(c.rank, d.font, rank_h, width_scale=d.ten_width if c.rank == "10" else 1.0, max_width_px=max_w)
        suit = suit_mask(c.suit, d.suits, int(round(d.suit_h_mm * s)))
        return rank, suit

    def index_boxes(self, card: str) -> CornerIndices:
        """The two index boxes of ``card`` in card mm (computed from the drawn glyphs)."""
        box = self._boxes.get(card)
        if box is None:
            s = TEXTURE_PX_PER_MM
            rank, suit = self._index_masks(card, s)
            d = self.design
            cx = d.index_x_mm * s
            w = max(rank.shape[1], suit.shape[1])
            h = rank.shape[0] + d.gap_mm * s + suit.shape[0]
            pad = 0.5 * s  # half a millimetre of paper round the ink
            x1, y1 = (cx - w / 2 - pad) / s, (d.index_y_mm * s - pad) / s
            x2, y2 = (cx + w / 2 + pad) / s, (d.index_y_mm * s + h + pad) / s
            x1, y1 = max(0.0, x1), max(0.0, y1)
            box = CornerIndices((x1, y1, x2, y2), (CARD_W_MM - x2, CARD_H_MM - y2, CARD_W_MM - x1, CARD_H_MM - y1))
            self._boxes[card] = box
        return box

    def suit_boxes(self, card: str) -> CornerIndices:
        """The suit symbol's box in each corner index of ``card``, card mm, with the index box's half millimetre of
        paper round the ink (:meth:`index_boxes`)."""
        s = TEXTURE_PX_PER_MM
        rank, suit = self._index_masks(card, s)
        d = self.design
        pad = 0.5 * s
        cx = d.index_x_mm * s
        top = d.index_y_mm * s + rank.shape[0] + int(round(d.gap_mm * s))  # as _draw_index places it
        x1, y1 = (cx - suit.shape[1] / 2 - pad) / s, (top - pad) / s
        x2, y2 = (cx + suit.shape[1] / 2 + pad) / s, (top + suit.shape[0] + pad) / s
        return CornerIndices((x1, y1, x2, y2), (CARD_W_MM - x2, CARD_H_MM - y2, CARD_W_MM - x1, CARD_H_MM - y1))

    def _draw_index(self, img: np.ndarray, card: str, colour: tuple[int, int, int]) -> None:
        d = self.design
        s = TEXTURE_PX_PER_MM
        rank, suit = self._index_masks(card, s)
        H, W = img.shape[:2]
        cx = d.index_x_mm * s
        y = int(round(d.index_y_mm * s))
        parts = [(rank, int(round(cx - rank.shape[1] / 2)), y),
                 (suit, int(round(cx - suit.shape[1] / 2)), y + rank.shape[0] + int(round(d.gap_mm * s)))]
        for mask, x0, y0 in parts:
            paste(img, mask, colour, x0, y0)
            # the opposite corner: the same index turned 180 degrees about the card centre
            paste(img, mask, colour, W - x0 - mask.shape[1], H - y0 - mask.shape[0], rotate180=True)

    # --- the centre ------------------------------------------------------------------------
    def _pip_area(self, s: float) -> tuple[float, float, float, float]:
        d = self.design
        margin_x = (d.index_x_mm * 2 + 1.5) if d.large_index else max(11.0, d.index_x_mm * 2 + 2)
        return margin_x * s, 9.0 * s, (CARD_W_MM - margin_x) * s, (CARD_H_MM - 9.0) * s

    def _draw_pips(self, img: np.ndarray, rank: str, suit: str, colour: tuple[int, int, int]) -> None:
        d = self.design
        s = TEXTURE_PX_PER_MM
        x0, y0, x1, y1 = self._pip_area(s)
        if rank == "A":
            h = int(round((26 if suit == "S" else 20) * d.pip_scale * s * (0.8 if d.large_index else 1.0)))
            m = suit_mask(suit, d.suits, h)
            paste(img, m, colour, int((x0 + x1) / 2 - m.shape[1] / 2), int((y0 + y1) / 2 - h / 2))
            return
        ph = 11.0 * d.pip_scale * s * (0.75 if d.large_index else 1.0)
        ph = min(ph, (y1 - y0) / 4.2) if rank in ("9", "10") else ph
        m = suit_mask(suit, d.suits, int(round(ph)))
        pw = m.shape[1]
        ax0, ax1 = x0 + pw / 2, x1 - pw / 2
        ay0, ay1 = y0 + ph / 2, y1 - ph / 2
        for fx, fy in _PIPS[rank]:
            cx, cy = ax0 + fx * (ax1 - ax0), ay0 + fy * (ay1 - ay0)
            paste(img, m, colour, int(round(cx - pw / 2)), int(round(cy - ph / 2)), rotate180=fy > 0.5)

    def _draw_court(self, img: np.ndarray, rank: str, suit: str, colour: tuple[int, int, int]) -> None:
        d = self.design
        s = TEXTURE_PX_PER_MM
        x0, y0, x1, y1 = self._pip_area(s)
        x0, x1 = x0 - 1.0 * s, x1 + 1.0 * s
        prim, sec, acc = _COURT_PALETTES[d.palette % len(_COURT_PALETTES)]
        if suit in ("C", "S"):
            prim, sec = sec, prim
        top = img[int(y0) : int((y0 + y1) / 2), int(x0) : int(x1)]
        h, w = top.shape[:2]
        if d.court == "letter":
            # A big letter and suit symbol in a plain frame (some casino jumbo decks).
            big = text_mask(rank, d.font, int(h * 0.55))
            paste(top, big, colour, int(w / 2 - big.shape[1] / 2), int(h * 0.12))
            sm = suit_mask(suit, d.suits, int(h * 0.25))
            paste(top, sm, colour, int(w / 2 - sm.shape[1] / 2), int(h * 0.72))
        else:
            # A two-headed figure: head, crown or cap, shoulders in coloured bands.
            cv2.rectangle(top, (int(w * 0.05), int(h * 0.55)), (int(w * 0.95), h), prim, -1, cv2.LINE_AA)
            for k in range(4):
                yb = int(h * (0.62 + 0.09 * k))
                cv2.line(top, (int(w * 0.05), yb), (int(w * 0.95), yb), acc if k % 2 else sec, max(1, int(s * 0.8)), cv2.LINE_AA)
            head_c = (int(w * 0.5), int(h * 0.42))
            r = int(w * 0.16)
            cv2.circle(top, head_c, r, (170, 200, 235), -1, cv2.LINE_AA)
            cv2.circle(top, head_c, r, (20, 20, 20), max(1, int(s * 0.35)), cv2.LINE_AA)
            cv2.line(top, (head_c[0] - r // 3, head_c[1] - r // 5), (head_c[0] - r // 6, head_c[1] - r // 5), (20, 20, 20), max(1, int(s * 0.3)))
            cv2.line(top, (head_c[0] + r // 6, head_c[1] - r // 5), (head_c[0] + r // 3, head_c[1] - r // 5), (20, 20, 20), max(1, int(s * 0.3)))
            if rank == "K":
                pts = [(head_c[0] - r, head_c[1] - r), (head_c[0] - r, head_c[1] - 2 * r), (head_c[0] - r // 2, head_c[1] - int(1.4 * r)),
                       (head_c[0], head_c[1] - 2 * r), (head_c[0] + r // 2, head_c[1] - int(1.4 * r)), (head_c[0] + r, head_c[1] - 2 * r),
                       (head_c[0] + r, head_c[1] - r)]
                cv2.fillPoly(top, [np.array(pts, np.int32)], acc, cv2.LINE_AA)
            elif rank == "Q":
                cv2.ellipse(top, (head_c[0], head_c[1] - r), (r, int(r * 0.6)), 0, 180, 360, acc, -1, cv2.LINE_AA)
                for k in (-1, 0, 1):
                    cv2.circle(top, (head_c[0] + k * r * 2 // 3, head_c[1] - int(r * 1.55)), max(1, r // 5), prim, -1, cv2.LINE_AA)
            else:
                cv2.rectangle(top, (head_c[0] - r, head_c[1] - int(1.5 * r)), (head_c[0] + r, head_c[1] - int(0.8 * r)), sec, -1, cv2.LINE_AA)
                cv2.line(top, (head_c[0] + r, head_c[1] - int(1.2 * r)), (head_c[0] + int(1.7 * r), head_c[1] - int(1.9 * r)), acc, max(1, int(s * 1.2)), cv2.LINE_AA)
            sm = suit_mask(suit, d.suits, int(h * 0.16))
            paste(top, sm, colour, int(w * 0.1), int(h * 0.12))
            if d.court == "frame":
                big = text_mask(rank, d.font, int(h * 0.16))
                paste(top, big, colour, int(w * 0.9 - big.shape[1]), int(h * 0.12))
        # the lower half is the upper half turned 180 degrees (double-headed courts)
        bottom = img[int((y0 + y1) / 2) : int((y0 + y1) / 2) + h, int(x0) : int(x1)]
        hh = min(bottom.shape[0], h)
        bottom[:hh] = top[::-1, ::-1][h - hh :] if hh < h else top[::-1, ::-1]
        cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y0) + 2 * h), colour, max(1, int(s * 0.35)), cv2.LINE_AA)

    def _draw_face(self, card: str) -> np.ndarray:
        d = self.design
        c = parse_card(card)
        w, h = texture_size(TEXTURE_PX_PER_MM)
        img = np.empty((h, w, 3), np.uint8)
        img[:] = d.paper_bgr
        colour = d.red_bgr if c.is_red else d.black_bgr
        if d.border_bgr is not None:
            s = TEXTURE_PX_PER_MM
            cv2.rectangle(img, (int(1.6 * s), int(1.6 * s)), (w - int(1.6 * s), h - int(1.6 * s)), d.border_bgr,
                          max(1, int(0.3 * s)), cv2.LINE_AA)
        if c.rank in ("J", "Q", "K"):
            self._draw_court(img, c.rank, c.suit, colour)
        else:
            self._draw_pips(img, c.rank, c.suit, colour)
        self._draw_index(img, card, colour)
        return img


def _designs() -> list[ProceduralDesign]:
    red1, red2, red3 = (40, 30, 200), (50, 20, 170), (60, 40, 220)
    blk1, blk2 = (25, 20, 20), (40, 35, 30)
    cream = (226, 240, 248)
    return [
        ProceduralDesign("proc-duplex-std", FontSpec("hershey-duplex", 0.10), suits=SuitStyle(0.3, 0.72, 0.08)),
        ProceduralDesign("proc-triplex-std", FontSpec("hershey-triplex", 0.08), rank_h_mm=7.0, suits=SuitStyle(0.1, 0.66, 0.12),
                         red_bgr=red2, court="frame", palette=1),
        ProceduralDesign("proc-complex-large", FontSpec("hershey-complex", 0.10), rank_h_mm=12.0, suit_h_mm=7.0, index_x_mm=6.5,
                         index_y_mm=3.0, ten_width=0.8, suits=SuitStyle(0.5, 0.78, 0.04, 0.27, 0.10), court="letter", palette=2),
        ProceduralDesign("proc-simplex-large", FontSpec("hershey-simplex", 0.13), rank_h_mm=13.0, suit_h_mm=8.0, index_x_mm=7.0,
                         index_y_mm=2.8, ten_width=0.7, suits=SuitStyle(0.2, 0.70, 0.0), red_bgr=red3, black_bgr=blk2),
        ProceduralDesign("proc-roboto-std", FontSpec("roboto-bold"), rank_h_mm=6.8, suit_h_mm=5.2, suits=SuitStyle(0.4, 0.74, 0.06),
                         border_bgr=(150, 120, 60), court="frame"),
        ProceduralDesign("proc-roboto-large", FontSpec("roboto-black"), rank_h_mm=14.0, suit_h_mm=8.5, index_x_mm=7.2, index_y_mm=2.6,
                         ten_width=0.72, gap_mm=1.2, suits=SuitStyle(0.35, 0.72, 0.05), court="letter", palette=1),
        ProceduralDesign("proc-lato-std", FontSpec("lato-black"), rank_h_mm=6.4, suit_h_mm=4.8, index_x_mm=4.4,
                         suits=SuitStyle(0.6, 0.62, 0.15, 0.24, 0.13), paper_bgr=cream, red_bgr=red2, palette=2),
        ProceduralDesign("proc-caladea-std", FontSpec("caladea-bold"), rank_h_mm=7.2, suit_h_mm=5.0, suits=SuitStyle(0.15, 0.7, 0.1),
                         court="frame", black_bgr=blk2),
        ProceduralDesign("proc-serif-large", FontSpec("sourceserif-bold"), rank_h_mm=11.5, suit_h_mm=7.5, index_x_mm=6.6,
                         index_y_mm=3.0, ten_width=0.75, suits=SuitStyle(0.25, 0.68, 0.09, 0.28, 0.11), palette=1),
        ProceduralDesign("proc-fjalla-jumbo", FontSpec("fjalla"), rank_h_mm=15.0, suit_h_mm=8.0, index_x_mm=6.4, index_y_mm=2.5,
                         suits=SuitStyle(0.3, 0.75, 0.03), red_bgr=red1, court="letter", palette=2, border_bgr=(60, 60, 60)),
        ProceduralDesign("proc-pil-std", FontSpec("pil-default"), rank_h_mm=6.6, suit_h_mm=5.0, suits=SuitStyle(0.45, 0.7, 0.07),
                         paper_bgr=(240, 244, 244)),
        # a black-faced deck with gold and silver ink, like the "black deck" phone photos of the real test set
        ProceduralDesign("proc-black-gold", FontSpec("lato-bold"), rank_h_mm=7.5, suit_h_mm=5.5, index_x_mm=5.0,
                         suits=SuitStyle(0.3, 0.7, 0.1), red_bgr=(70, 175, 225), black_bgr=(205, 205, 200),
                         paper_bgr=(28, 26, 26), court="letter", border_bgr=(70, 175, 225)),
    ]


PROCEDURAL_DESIGNS: tuple[ProceduralDesign, ...] = tuple(_designs())
"""Every procedural design, by stable name."""


def _training_designs() -> list[ProceduralDesign]:
    red1, red2 = (40, 30, 200), (35, 35, 185)
    blk1 = (20, 20, 20)
    return [
        # a Times-like bold serif, the look of the classic casino and club decks
        ProceduralDesign("proc-stix-std", FontSpec("stix-bold"), rank_h_mm=7.0, suit_h_mm=5.0,
                         suits=SuitStyle(0.2, 0.7, 0.08), court="frame", palette=1, red_bgr=red2),
        ProceduralDesign("proc-stix-large", FontSpec("stix-regular", bold_px=3), rank_h_mm=12.5, suit_h_mm=7.5,
                         index_x_mm=6.8, index_y_mm=2.8, ten_width=0.75, suits=SuitStyle(0.35, 0.74, 0.05),
                         court="letter", palette=2),
        ProceduralDesign("proc-dejavuserif-std", FontSpec("dejavuserif-bold"), rank_h_mm=6.6, suit_h_mm=5.2,
                         suits=SuitStyle(0.5, 0.68, 0.1), court="frame", paper_bgr=(236, 244, 248), black_bgr=blk1),
        ProceduralDesign("proc-dejavusans-jumbo", FontSpec("dejavusans-bold"), rank_h_mm=14.5, suit_h_mm=8.0,
                         index_x_mm=7.0, index_y_mm=2.6, ten_width=0.7, suits=SuitStyle(0.25, 0.76, 0.04),
                         court="letter", palette=1, red_bgr=red1),
        ProceduralDesign("proc-mono-std", FontSpec("dejavumono-bold"), rank_h_mm=7.0, suit_h_mm=5.0,
                         suits=SuitStyle(0.4, 0.72, 0.06), border_bgr=(40, 40, 160)),
        ProceduralDesign("proc-cm-std", FontSpec("cm-bold"), rank_h_mm=7.2, suit_h_mm=5.0, suits=SuitStyle(0.1, 0.7, 0.12),
                         court="frame", palette=2),
    ]


TRAINING_DESIGNS: tuple[ProceduralDesign, ...] = tuple(_training_designs())
"""More procedural designs for training the reader only, drawn with the fonts matplotlib ships (the train
extra). Kept out of :data:`PROCEDURAL_DESIGNS` so that the rendered scenes and round videos of a seed stay
what they were (those pick a deck from that list)."""
