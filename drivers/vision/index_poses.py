"""Index corners placed from their own ink: a rank above its suit.

Frame mode finds most cards by their outlines, but a card lying on a white
table, or filling the photo, has no outline a mask can find, and a camera
that mirrors (a webcam's preview, a card seen in a mirror) shows every
index the wrong way round. The index itself is found on any ground: a
glyph (the rank; a ten's two) with a smaller glyph under it (the suit).
The line from rank to suit says which way is down on the card, the rank's
height its scale; the corner is posed so that the rank lies where ranks
lie on a canonical corner (INK_RANK_LEFT, INK_RANK_TOP, INK_RANK_HEIGHT:
the median of the designs learnt from), at three scales (a design's rank
is 26 to 40 canonical pixels tall), and also mirrored. Most such pairs are
two pips, or a pip and a court's ornament: the corner network reads them
as no index, as it reads the corners of any other finder.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from drivers.vision.corner import CornerPose
from drivers.vision.glyphs import Image

# Where the rank lies on a canonical corner, canonical pixels: its left
# side, its top, its height (the medians of the designs learnt from).
INK_RANK_LEFT = 11.7
INK_RANK_TOP = 10.4
INK_RANK_HEIGHT = 32.5
SCALES = (0.8, 1.0, 1.25)  # each rank read at these scales of its height's
MAX_GLYPHS = 400  # the largest ink blobs of a mask paired, at most
INK_CONTRAST = 12  # grey levels darker than the neighbourhood's mean

F32 = npt.NDArray[np.float32]


@dataclass(frozen=True)
class _Glyph:
    centre: F32
    size: float  # the square root of its area
    extent: float  # its bounding box's longer side
    points: F32  # its pixels (x, y)


def _glyphs(mask: Image, lo: float, hi: float) -> list[_Glyph]:
    _n, labels, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
    w, h, area = stats[1:, 2], stats[1:, 3], stats[1:, 4]
    longer = np.maximum(w, h)
    keep = 1 + np.flatnonzero((longer >= lo) & (longer <= hi) & (area >= 0.1 * w * h))
    # the largest blobs: a speckled or printed table makes thousands of specks
    keep = keep[np.argsort(-stats[keep, 4], kind="stable")[:MAX_GLYPHS]]
    out = []
    for i in keep:
        x, y, bw, bh, a = (int(v) for v in stats[i])
        ys, xs = np.nonzero(labels[y : y + bh, x : x + bw] == i)
        out.append(_Glyph(centres[i].astype(np.float32), float(np.sqrt(a)), float(max(bw, bh)),
                          np.stack([xs + x, ys + y], axis=1).astype(np.float32)))
    return out


def ink_masks(gray: Image, short_side: tuple[float, float]) -> list[Image]:
    """Ink darker than its neighbourhood, at a small card's scale and at
    a large one's (255 = ink)."""
    out = []
    for block in (int(short_side[0] * 0.5) | 1, int(short_side[0] * 1.6) | 1):
        out.append(cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                         cv2.THRESH_BINARY_INV, max(block, 15), INK_CONTRAST))
    return out


def _rank_of(glyphs: list[_Glyph], centres: F32, extents: F32, i: int, down: F32
             ) -> tuple[F32, F32]:
    """The rank's pixels and centre: the glyph, with the glyphs as tall
    beside it across `down` (a ten is two glyphs)."""
    g = glyphs[i]
    right = np.array([down[1], -down[0]], np.float32)
    rel = centres - g.centre
    across, along = np.abs(rel @ right), np.abs(rel @ down)
    beside = np.flatnonzero((across > 0.3 * g.extent) & (across < 1.3 * g.extent)
                            & (along < 0.3 * g.extent) & (extents > 0.7 * g.extent)
                            & (extents < 1.4 * g.extent))
    points = np.concatenate([g.points, *(glyphs[k].points for k in beside if k != i)])
    return points, points.mean(axis=0)


def index_poses(gray: Image, short_side: tuple[float, float]
                ) -> list[tuple[int, CornerPose]]:
    """Corner poses placed from every rank-above-suit pair of ink blobs,
    each with its pair's number (one number for its scales; the mirrored
    poses another)."""
    lo, hi = 0.1 * short_side[0], 0.25 * short_side[1]
    out: list[tuple[int, CornerPose]] = []
    key = 0
    for mask in ink_masks(gray, short_side):
        glyphs = _glyphs(mask, lo, hi)
        if len(glyphs) < 2:
            continue
        centres = np.array([g.centre for g in glyphs])
        sizes = np.array([g.size for g in glyphs])
        extents = np.array([g.extent for g in glyphs], np.float32)
        for i, g in enumerate(glyphs):
            gap = np.hypot(*(centres - g.centre).T)
            # the suit: under the rank by about its height, and smaller
            for j in np.flatnonzero((gap > 0.6 * g.size) & (gap < 2.6 * g.size)
                                    & (sizes > 0.3 * g.size) & (sizes < 1.3 * g.size)):
                down = ((centres[j] - g.centre) / gap[j]).astype(np.float32)
                points, centre = _rank_of(glyphs, centres, extents, i, down)
                to_suit = centres[j] - centre
                down = (to_suit / max(float(np.hypot(*to_suit)), 1e-6)).astype(np.float32)
                right = np.array([down[1], -down[0]], np.float32)
                across, along = (points - centre) @ right, (points - centre) @ down
                height = float(along.max() - along.min())
                if height < lo:
                    continue
                for mirror in (False, True):
                    r = -right if mirror else right
                    left = float(-across.max() if mirror else across.min())
                    top = centre + left * r + float(along.min()) * down
                    for f in SCALES:
                        k = height / INK_RANK_HEIGHT * f
                        o = top - k * (INK_RANK_LEFT * r + INK_RANK_TOP * down)
                        out.append((key, CornerPose((float(o[0]), float(o[1])),
                                                    (float(k * r[0]), float(k * r[1])),
                                                    (float(k * down[0]), float(k * down[1])),
                                                    "ink")))
                    key += 1
    return out
