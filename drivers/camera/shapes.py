"""Where a rank glyph's ink lies, row by row: measures of its shape that the
font-trained discriminant may weigh too little for a deck unlike the fonts.

Each takes the glyph's ink (0..1, its box only: `IndexParts.rank_ink`) and
looks at a band of its rows. A row counts its ink over INK; a row of the
band with none counts against the shape asked about (a glyph cut in parts
proves nothing)."""

from __future__ import annotations

import numpy as np

from drivers.camera.glyphs import FloatMap

INK = 0.3  # a pixel of the glyph counts as inked over this (generic.five_stem too)


def _rows(rank_ink: FloatMap, lo: float, hi: float) -> list[np.ndarray]:
    """The inked columns of each row from `lo` to `hi` of the glyph's height."""
    h = rank_ink.shape[0]
    top = int(lo * h)
    band = rank_ink[top : max(top + 1, int(hi * h))] > INK
    return [np.flatnonzero(row) for row in band]


def right_reach(rank_ink: FloatMap, lo: float, hi: float) -> float:
    """The least, over the band's rows, of how far right a row's ink reaches
    (share of the width): small when some row of the band is inked at the
    left only. A row with no ink counts as reaching the right edge."""
    w = rank_ink.shape[1]
    return float(min(((xs[-1] + 1) / w if xs.size else 1.0 for xs in _rows(rank_ink, lo, hi)),
                     default=1.0))


def left_gap(rank_ink: FloatMap, lo: float, hi: float) -> float:
    """The most, over the band's rows, of how far from the left a row's ink
    starts (share of the width): large when some row of the band is open at
    the left. A row with no ink counts as inked from the left edge."""
    w = rank_ink.shape[1]
    return float(max((xs[0] / w if xs.size else 0.0 for xs in _rows(rank_ink, lo, hi)),
                     default=0.0))
