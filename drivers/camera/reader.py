"""What the shoe and frame modes ask of a reader: read one corner patch.

Readers: the calibrated one (drivers.camera.match, a deck's own corners),
the generic one (drivers.camera.generic, standard indices of any deck) and
the glyph template model (drivers.camera.model, what a calibration checks a
deck with).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from drivers.camera.corner import CORNER_H, CORNER_W, MARGIN, RANK_HEIGHT, CornerPose, corner_patch
from drivers.camera.generic import GenericReader
from drivers.camera.glyphs import Box, Image, find_indices
from drivers.camera.learned import LearnedReader
from drivers.camera.match import CalibratedReader, CornerRead
from drivers.camera.model import GlyphModel

Model = GlyphModel | CalibratedReader | GenericReader | LearnedReader


class Reader(Protocol):
    name: str

    def read_corner(self, patch: Image) -> CornerRead: ...


def read_corner(reader: Model, patch: Image, on_face: bool = False) -> CornerRead:
    """`on_face`: a corner placed from index ink on the face of a card whose
    own corner was found (see drivers.camera.shoe.read_band): it more often
    holds a court picture's shapes than an index. The generic reader reads
    it at its first look only, the calibrated one screens it first at a
    coarse scale."""
    if isinstance(reader, GlyphModel):
        return read_glyphs(reader, patch)
    return reader.read_corner(patch, on_face)


def corner_width(reader: Model) -> int:
    """How wide (canonical pixels) the corner region the reader reads is:
    the learned reader looks further right, for a rank beside its suit."""
    return reader.corner_width if isinstance(reader, LearnedReader) else CORNER_W


def patch_for(reader: Model, image: Image, pose: CornerPose) -> Image:
    """The corner patch at `pose` as this reader reads it."""
    return corner_patch(image, pose, corner_width(reader))


def read_glyphs(model: GlyphModel, patch: Image) -> CornerRead:
    """The glyph model on a corner patch: the index nearest the corner."""
    inner = np.ascontiguousarray(patch[MARGIN : MARGIN + CORNER_H, MARGIN : MARGIN + CORNER_W])
    found = find_indices(inner, RANK_HEIGHT, limit=1)
    if not found:
        return CornerRead(None, 0.0, "??", (0.0, 0.0, 0.0), 0.0)
    read = model.read(found[0])
    raw = (read.rank.label or "?") + (read.suit.label or "?")
    return CornerRead(read.card, read.confidence, raw, (0.0, 0.0, 0.0), 1.0)


def rank_anchor(reader: Model) -> tuple[float, float]:
    """Canonical corner position of the top left of a rank glyph (where a
    corner is placed from an index found by its ink)."""
    if isinstance(reader, CalibratedReader):
        box: Box = reader.rank_box
        return (box.x + 2.0, box.y + 2.0)
    return (8.0, 6.0)
