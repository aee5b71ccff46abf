"""Card art for the renderer: named deck designs, card backs and corner-index crops.

Designs have stable names so a training run can hold one design out:

* procedural decks (always present): ``proc-duplex-std``, ``proc-triplex-std``, ...
  (see :data:`datasets.cards.procedural.PROCEDURAL_DESIGNS`);
* SVG decks from ``../shared/data/card-art-*`` where that folder exists and its
  rasteriser is installed: ``svg-kennard-standard``, ``svg-kennard-bigface``,
  ``svg-saulspatz-jumbo``.

Example:
    >>> deck = get_deck("proc-duplex-std")
    >>> deck.face("10H").shape
    (711, 508, 4)
    >>> [round(v, 1) for v in deck.index_boxes("10H").top_left]  # card mm, x1 y1 x2 y2
    [1.0, 3.0, 8.2, 16.5]
"""

from __future__ import annotations

import functools

from datasets.cards.backs import BACK_DESIGNS, back_texture, list_back_designs
from datasets.cards.deck import MIP_LEVELS, TEXTURE_PX_PER_MM, CornerIndices, Deck
from datasets.cards.procedural import PROCEDURAL_DESIGNS, TRAINING_DESIGNS, ProceduralDeck

__all__ = [
    "BACK_DESIGNS", "MIP_LEVELS", "TEXTURE_PX_PER_MM", "CornerIndices", "Deck", "back_texture", "get_deck",
    "list_back_designs", "list_deck_designs", "render_index_crop",
]


def list_deck_designs(include_svg: bool = True, include_training: bool = False) -> list[str]:
    """Names of every deck design available here, procedural first.

    Args:
        include_svg: also list the SVG decks found in ``../shared/data`` (when their rasteriser is installed).
        include_training: also the reader's extra training designs (:data:`TRAINING_DESIGNS`), listed last
            among the procedural ones.
    """
    names = [d.name for d in PROCEDURAL_DESIGNS]
    if include_training:
        names += [d.name for d in TRAINING_DESIGNS]
    if include_svg:
        from datasets.cards.svg_decks import available_svg_decks

        names += available_svg_decks()
    return names


@functools.lru_cache(maxsize=32)
def get_deck(name: str) -> Deck:
    """The deck design called ``name`` (textures are drawn on first use and kept in the deck).

    Raises:
        ValueError: for a name not in :func:`list_deck_designs`.
    """
    for d in PROCEDURAL_DESIGNS + TRAINING_DESIGNS:
        if d.name == name:
            return ProceduralDeck(d)
    if name.startswith("svg-"):
        from datasets.cards.svg_decks import load_svg_deck

        return load_svg_deck(name)
    raise ValueError(f"unknown deck design {name!r}; known: {', '.join(list_deck_designs())}")


def render_index_crop(card: str, design: str, rng, size_px: int = 64, **kw):
    """A square crop of one corner index of ``card`` in ``design`` (see :func:`datasets.cards.crops.render_index_crop`)."""
    from datasets.cards.crops import render_index_crop as _crop

    return _crop(card, design, rng, size_px, **kw)
