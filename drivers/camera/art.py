"""A court picture's coloured art over the index, and the suit it covers.

Some decks draw their court pictures into the index column: svg-cards'
king of spades has the gold finial of his sceptre drawn over the right lobe
of the small spade under the K, in every print of the card; its king of
clubs' finial touches the club. The ink map (generic.ink_map: darkness in
the green channel) takes the gold and its dark outline for ink, so the suit
glyph is the suit and the finial joined, and the reader refuses it.

Ink is black or red; the art is coloured otherwise. Two later looks of the
generic reader use that:

- the art and its outline cut out of the ink (`art_mask`, `ART_RING`): a
  suit that only touched the art stands alone again;
- a suit whose one side the art covers (a black suit: spades and clubs are
  mirror images of themselves about the column of their apex) completed
  from its other side (`mirrored`).

Both are reads like any other look: every threshold, with the later looks'
margin.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.glyphs import RING, FloatMap, Image

# A pixel is art where its colour spread (the greatest of B, G, R less the
# least, over a 3x3 mean: sensor noise in a dark frame spreads single
# pixels) exceeds ART_CHROMA: paper and black ink are grey, the gold of a
# finial spreads 150-200 in a well lit frame and 60-100 in a dim or blurred
# one. Under a red rank, a pixel whose red leads its spread (red ink) is
# not art.
ART_CHROMA = 50
ART_RED_SHARE = 0.5
# The art's dark outline (its strokes are a pixel or two wide at the
# corner's scale) is cut with it: pixels this near the art.
ART_RING = 2


def art_mask(patch: Image, red_ink: bool) -> npt.NDArray[np.bool_]:
    """The pixels of coloured art in a colour corner patch (see ART_CHROMA)."""
    # (OpenCV's per-channel max and min: numpy's reductions over the three
    # channels of so small an image cost ten times more)
    b, g, r = cv2.split(cv2.blur(patch, (3, 3)))
    spread = cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))
    art = spread > ART_CHROMA
    if red_ink:
        red = cv2.subtract(r, cv2.max(b, g))  # (saturating: a pixel less red than 0 is 0)
        art &= red < ART_RED_SHARE * spread
    return np.asarray(art, np.bool_)


# The suit's apex: the ink-weighted column of its top APEX_ROWS rows.
APEX_ROWS = 2
# The side the art covers: of the glyph's pixels that touch the art, more
# than a column from the apex's, at least COVERED_SHARE lie on that side.
COVERED_SHARE = 0.8


def mirrored(suit: FloatMap, art: npt.NDArray[np.bool_]) -> FloatMap | None:
    """The suit completed from its uncovered side about the column of its
    apex, or None when the art does not cover one side of it.

    `suit`: the suit glyph's ink in its box (its pixels: those with ink);
    `art`: the art with its outline, in the same box grown by one pixel on
    each side (what the glyph touches)."""
    glyph = suit > 0
    rows = np.flatnonzero(glyph.any(axis=1))
    if rows.size < 2 * APEX_ROWS:
        return None
    top = suit[rows[0] : rows[0] + APEX_ROWS] * glyph[rows[0] : rows[0] + APEX_ROWS]
    weight = top.sum(axis=0)
    if float(weight.sum()) <= 0.0:
        return None
    cols = np.arange(suit.shape[1], dtype=np.float32)
    double = round(2.0 * float((weight * cols).sum() / weight.sum()))  # 2 x the axis
    grown = cv2.dilate(glyph.view(np.uint8), RING) > 0
    side = 2 * np.nonzero(grown & art[1:-1, 1:-1])[1] - double
    side = side[np.abs(side) > 2]  # (a column from the axis: on neither side)
    if side.size == 0:
        return None
    right = np.count_nonzero(side > 0) / side.size
    if max(right, 1.0 - right) < COVERED_SHARE:
        return None  # the art on both sides, or on the axis: no side is whole
    x = np.arange(suit.shape[1])
    kept = np.where((2 * x <= double) if right >= 0.5 else (2 * x >= double), suit, 0.0)
    # The kept side and its mirror image (column x goes to double - x) on
    # one canvas spanning both.
    lo, hi = min(0, double - (suit.shape[1] - 1)), max(suit.shape[1] - 1, double)
    canvas = np.zeros((suit.shape[0], hi - lo + 1), np.float32)
    canvas[:, -lo : -lo + suit.shape[1]] = kept
    flipped = np.zeros_like(canvas)
    flipped[:, double - lo - (suit.shape[1] - 1) : double - lo + 1] = kept[:, ::-1]
    whole = np.maximum(canvas, flipped)
    on = np.flatnonzero(whole.any(axis=0))
    ys = np.flatnonzero(whole.any(axis=1))
    out: FloatMap = whole[ys[0] : ys[-1] + 1, on[0] : on[-1] + 1]
    return out
