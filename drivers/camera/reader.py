"""What the shoe and frame modes ask of a reader: read one corner patch.

Two readers exist: the calibrated one (drivers.camera.match, a deck's own
corners) and the glyph model (drivers.camera.model: rank and suit glyphs cut
out of the corner and compared with templates; the generic model is one).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from drivers.camera.corner import CORNER_H, CORNER_W, MARGIN, RANK_HEIGHT
from drivers.camera.glyphs import Box, Image, find_indices
from drivers.camera.match import CalibratedReader, CornerRead
from drivers.camera.model import GlyphModel


class Reader(Protocol):
    name: str

    def read_corner(self, patch: Image) -> CornerRead: ...


def read_corner(reader: GlyphModel | CalibratedReader, patch: Image) -> CornerRead:
    if isinstance(reader, CalibratedReader):
        return reader.read_corner(patch)
    return read_glyphs(reader, patch)


def read_glyphs(model: GlyphModel, patch: Image) -> CornerRead:
    """The glyph model on a corner patch: the index nearest the corner."""
    inner = np.ascontiguousarray(patch[MARGIN : MARGIN + CORNER_H, MARGIN : MARGIN + CORNER_W])
    found = find_indices(inner, RANK_HEIGHT, limit=1)
    if not found:
        return CornerRead(None, 0.0, "??", (0.0, 0.0, 0.0), 0.0)
    read = model.read(found[0])
    raw = (read.rank.label or "?") + (read.suit.label or "?")
    return CornerRead(read.card, read.confidence, raw, (0.0, 0.0, 0.0), 1.0)


def rank_anchor(reader: GlyphModel | CalibratedReader) -> tuple[float, float]:
    """Canonical corner position of the top left of a rank glyph (where a
    corner is placed from an index found by its ink)."""
    if isinstance(reader, CalibratedReader):
        box: Box = reader.rank_box
        return (box.x + 2.0, box.y + 2.0)
    return (8.0, 6.0)
