"""Finding the index of a card (rank glyph above suit glyph) in an image patch.

The patch is either the corner of a card warped to the canonical size (frame
mode) or the band of the shoe camera that the index corner crosses (shoe
mode). Ink is measured against a local estimate of the paper white instead of
one global threshold, so uneven light and glare spots do not erase glyphs
(the weak spot of the classic single-threshold detectors).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.vision import kernels

# OpenCV's stubs type every returned array as "integer or floating", so the
# image aliases say what an array holds in their names, not in their dtype.
Image = npt.NDArray[Any]  # uint8, HxW or HxWx3 (BGR)

# Ink must be this much darker than the local paper, relative and absolute.
INK_RATIO = 0.62
INK_MIN_CONTRAST = 28.0
# Paper must be at least this bright for ink on it to count (a dark felt is
# not paper, so glyph-sized dark spots on it are ignored).
PAPER_MIN = 70.0
_OPEN_KERNEL = np.ones((2, 2), np.uint8)

# The connected components algorithm: Grana's (BBDT 8-way, SAUF 4-way).
# OpenCV's default (Spaghetti) labels the same components in the same
# order (tests/vision/test_components.py), in 1.5 times the time on the
# band and twice the time on a corner patch with the statistics.
CCL = cv2.CCL_GRANA


@dataclass(frozen=True)
class Box:
    x: int
    y: int
    w: int
    h: int

    @property
    def x2(self) -> int:
        return self.x + self.w

    @property
    def y2(self) -> int:
        return self.y + self.h

    @property
    def cx(self) -> float:
        return self.x + self.w / 2.0

    @property
    def cy(self) -> float:
        return self.y + self.h / 2.0

    def union(self, other: Box) -> Box:
        x, y = min(self.x, other.x), min(self.y, other.y)
        return Box(x, y, max(self.x2, other.x2) - x, max(self.y2, other.y2) - y)


@dataclass(frozen=True)
class InkLayer:
    """The ink of a patch: its mask's connected components."""

    labels: npt.NDArray[np.int32]
    stats: npt.NDArray[np.int32]


def _order_stats(flat: npt.NDArray[Any], lo: int, hi: int) -> tuple[Any, Any]:
    """The lo-th and hi-th smallest values (hi is lo or lo + 1)."""
    part = np.partition(flat, (lo, hi)) if hi > lo else np.partition(flat, lo)
    return part[lo], part[hi]


# The order statistics of a tail (a percentile under TAIL_SHARE or over 1 -
# TAIL_SHARE of at least TAIL_MIN values) are taken among the values beyond
# a threshold read off a sample. A partial sort of them all is slow on an
# image's many equal values: the band's paper level (the 97th percentile of
# 12,240 values) cost 0.08 ms that way, as much as a full sort.
TAIL_SHARE = 0.15
TAIL_MIN = 1024


def _tail_order_stats(arr: npt.NDArray[Any], lo: int, hi: int) -> tuple[Any, Any] | None:
    """_order_stats of a tail, found among the values beyond a threshold;
    None when they are not in a tail, or the threshold does not hold them
    (the caller then sorts them all: the same values)."""
    n = arr.size
    top = n - lo  # the values from the lo-th up
    if n < TAIL_MIN or min(top, hi + 1) > TAIL_SHARE * n:
        return None
    sample = arr[::4, ::4].reshape(-1) if arr.ndim == 2 else arr.reshape(-1)[::16]
    m = sample.size
    if m < 16:
        return None
    # (the threshold leaves, as sampled, twice the values needed beyond it)
    if top < hi + 1:  # the upper tail
        k = math.floor((1.0 - min(1.0, 2.0 * top / n + 4.0 / m)) * (m - 1))
        cand = arr[arr >= np.partition(sample, k)[k]]
        under = n - cand.size  # the values under the threshold
        if under > lo:
            return None
        return _order_stats(cand, lo - under, hi - under)
    k = math.ceil(min(1.0, 2.0 * (hi + 1) / n + 4.0 / m) * (m - 1))
    cand = arr[arr <= np.partition(sample, k)[k]]
    if cand.size < hi + 1:
        return None
    return _order_stats(cand, lo, hi)


# Float values are selected by the compiled quickselect up to this many (a
# glyph's stretched ink: 144-864 values, five a read); past it the sampled
# tail above is faster (the band's 12,240, the corner's 4,800).
SELECT_MAX = 1024


def percentile(values: npt.NDArray[Any], q: float) -> float:
    """`np.percentile(values, q)` (linear interpolation, its default), the
    same value by a partial sort of the two neighbours (in a tail, of the
    values past a sampled threshold: _tail_order_stats): np.percentile's
    generality costs about 40 microseconds a call, and a corner read takes
    half a dozen (a tenth of a millisecond on every frame)."""
    arr = np.asarray(values)
    n = arr.size
    if n == 0:
        raise ValueError("percentile of no values")
    pos = q / 100.0 * (n - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, n - 1)
    if kernels.COMPILED and arr.dtype == np.uint8:
        # (the values back in the array's own type: the compiled loop hands
        # them over as Python floats, exactly)
        pair = kernels.order_pair_u8(arr if arr.ndim == 2 else arr.reshape(1, -1), lo, hi)
        below, above = arr.dtype.type(pair[0]), arr.dtype.type(pair[1])
    elif kernels.COMPILED and arr.dtype == np.float32 and n <= SELECT_MAX:
        pair = kernels.order_pair_f32(arr if arr.ndim == 2 else arr.reshape(1, -1), lo, hi)
        below, above = arr.dtype.type(pair[0]), arr.dtype.type(pair[1])
    else:
        below, above = _tail_order_stats(arr, lo, hi) or _order_stats(arr.reshape(-1), lo, hi)
    t = pos - lo
    # numpy's lerp as numpy writes it (from the nearer end, in the values'
    # own type, the weight a Python float), for the same bits.
    step = above - below
    return float(below + step * t if t < 0.5 else above - step * (1.0 - t))


def to_gray(patch: Image) -> Image:
    """The ink channel: green. Red and black ink are both dark in it (in a
    plain grey conversion red ink keeps only a third of the contrast), and
    the yellow and gold of court card artwork stay light."""
    if patch.ndim == 2:
        return patch
    return np.ascontiguousarray(patch[:, :, 1])


def paper_level(gray: Image, glyph_size: int) -> Image:
    """Local paper white (8-bit): a morphological closing wider than any
    glyph stroke fills the glyphs with the paper around them but keeps the
    outline of the card, so the dark surround is not taken for ink and a
    glyph printed close to the card edge stays apart from it."""
    k = max(5, int(0.7 * glyph_size) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    paper: Image = cv2.blur(cv2.morphologyEx(gray, cv2.MORPH_CLOSE, kernel), (3, 3))
    return paper


def _ink_below() -> Image:
    """The ink test as a table: 8-bit ink channel g on 8-bit paper p is ink
    when g < p * INK_RATIO, p - g > INK_MIN_CONTRAST and p > PAPER_MIN (in
    float32, as the strength is measured), which for each p holds for g
    below a bound: the table of the bounds. A lookup and a comparison over
    a band instead of five float passes over it (0.2 ms a frame)."""
    p = np.arange(256, dtype=np.float32)[:, None]
    g = np.arange(256, dtype=np.float32)[None, :]
    ink = (g < p * INK_RATIO) & (p - g > INK_MIN_CONTRAST) & (p > PAPER_MIN)
    # (each row is a run from g = 0, so the count is the bound: tested)
    out: Image = ink.sum(axis=1).astype(np.uint8)
    return out


_INK_BELOW = _ink_below()


def ink_layer(patch: Image, glyph_size: int) -> InkLayer:
    """Ink strength and connected components of a patch (8-bit); glyph_size
    is the expected rank height in pixels (sets the paper filter width)."""
    gray = to_gray(patch)
    # OpenCV's filters pay for each row: on the band (480 rows of 102 px)
    # they cost two to three times what they cost on its transpose, and the
    # same results (square kernels, borders alike on all four sides).
    tall = gray.shape[0] > gray.shape[1]
    across = cv2.transpose(gray) if tall else gray
    paper = paper_level(across, glyph_size)
    mask: Image = cv2.compare(across, cv2.LUT(paper, _INK_BELOW), cv2.CMP_LT)
    # Opening cuts thin lines (a printed card border, the blurred card edge)
    # that would otherwise join a glyph to the background.
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _OPEN_KERNEL)
    if tall:
        mask, paper = cv2.transpose(mask), cv2.transpose(paper)
    labels, stats = components(mask, 4)
    return InkLayer(labels, stats)


def components(mask: Image, connectivity: int) -> tuple[npt.NDArray[np.int32],
                                                       npt.NDArray[np.int32]]:
    """`cv2.connectedComponentsWithStats(mask, connectivity)`'s labels and
    the statistics of its components, the same arrays but for row 0 (the
    paper's box, which nothing reads: left zero). OpenCV's statistics cost
    four times its labelling (0.3 ms on a band of sparse ink, whose every
    pixel, paper included, it visits), numpy's on the inked pixels alone
    half as much."""
    count, found = cv2.connectedComponentsWithAlgorithm(mask, connectivity, cv2.CV_32S, CCL)
    labels: npt.NDArray[np.int32] = np.asarray(found, np.int32)
    if kernels.COMPILED and labels.size:
        stats_of: npt.NDArray[np.int32] = kernels.label_stats(labels, int(count))
        return labels, stats_of
    return labels, _label_stats(labels)


def _label_stats(labels: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    """The statistics of `components`, in numpy (drivers.vision.kernels.
    label_stats compiled)."""
    n = int(labels.max()) + 1 if labels.size else 1
    w = labels.shape[1]
    flat = labels.reshape(-1)
    # The inked pixels, in raster order (np.flatnonzero counts a boolean
    # array's fast, 32-bit labels four times as slowly).
    at = np.flatnonzero(flat > 0)
    own = flat[at]
    counts = np.bincount(own, minlength=n)
    stats = np.zeros((n, 5), np.int32)
    if n > 1:
        # Pixels grouped by label, each group in raster order: its first
        # pixel is on its top row, its last on its bottom row. (A stable
        # sort of 16-bit keys is a radix sort.)
        keys = own.astype(np.uint16) if n <= 1 << 16 else own
        at = at[np.argsort(keys, kind="stable")]
        ys, xs = np.divmod(at, w)
        first = np.cumsum(counts)[:-1]
        last = first + counts[1:] - 1
        x0, x1 = np.minimum.reduceat(xs, first), np.maximum.reduceat(xs, first)
        stats[1:, 0], stats[1:, 1] = x0, ys[first]
        stats[1:, 2], stats[1:, 3] = x1 - x0 + 1, ys[last] - ys[first] + 1
        stats[1:, 4] = counts[1:]
    return stats


def _box(stats: npt.NDArray[np.int32], i: int) -> Box:
    x, y, w, h = stats[i, :4].tolist()
    return Box(x, y, w, h)


def glyph_candidates(layer: InkLayer, glyph_size: int) -> list[int]:
    """Components that could be part of a rank or a suit: not touching the
    patch border (clipped pips, card edges, the dark background) and of
    glyph-like size relative to the expected rank height."""
    h, w = layer.labels.shape
    # (on the whole table at once: a band of a court card holds hundreds of
    # components, and one Box apiece was a tenth of a slow frame's time)
    x, y, bw, bh, area = (layer.stats[1:, k].astype(np.int64) for k in range(5))
    ok = ((x > 0) & (y > 0) & (x + bw < w) & (y + bh < h)
          & (bh >= 0.12 * glyph_size) & (bh <= 1.7 * glyph_size) & (bw <= 2.2 * glyph_size)
          & (area >= 0.004 * glyph_size * glyph_size))
    return (np.flatnonzero(ok) + 1).tolist()


def _rank_group(seed: int, cands: list[int], boxes: dict[int, Box]) -> list[int]:
    """The seed component plus its neighbours on the same text line (the "1"
    and "0" of a ten, the parts of a broken glyph); `boxes`: the candidates'."""
    group = [seed]
    # (the box kept as numbers, not Box objects: a court card's band holds
    # a score of candidates, each seed compares them all, and the property
    # lookups were a third of a court card's search of the band)
    sb = boxes[seed]
    x, y, x2, y2 = sb.x, sb.y, sb.x2, sb.y2
    for j in cands:
        if j == seed:
            continue
        b = boxes[j]
        bx, by, bh = b.x, b.y, b.h
        bx2, by2 = bx + b.w, by + bh
        h = y2 - y
        same_line = abs(by - y) < 0.2 * h and abs(bh - h) < 0.25 * h
        inside = bx >= x - 1 and bx2 <= x2 + 1 and by >= y - 1 and by2 <= y2 + 1
        gap = max(bx - x2, x - bx2)
        if (same_line and gap < 0.25 * h) or inside:
            group.append(j)
            x, y, x2, y2 = min(x, bx), min(y, by), max(x2, bx2), max(y2, by2)
    return group


@dataclass(frozen=True)
class IndexPlace:
    """Where an index (a rank over its suit) lies in a patch: its rank and
    suit glyphs' boxes and components."""

    rank_box: Box
    suit_box: Box
    rank_ids: list[int]
    suit_ids: list[int]
    suit_px: int  # the suit's inked pixels in its box

    @property
    def box(self) -> Box:
        return self.rank_box.union(self.suit_box)


def find_index_places(patch: Image, glyph_size: int, limit: int = 4) -> list[IndexPlace]:
    """Every rank-over-suit pair in the patch, top to bottom: a rank line
    (one or two glyphs of rank height) with a suit glyph right under it,
    centred under the rank and smaller than it. The shoe's band search
    places corners by them; the network reads each corner's own patch."""
    return _index_places(ink_layer(patch, glyph_size), glyph_size, limit)


def _index_places(layer: InkLayer, glyph_size: int, limit: int) -> list[IndexPlace]:
    if kernels.COMPILED:
        return _index_places_compiled(layer, glyph_size, limit)
    return _index_places_numpy(layer, glyph_size, limit)


def _index_places_compiled(layer: InkLayer, glyph_size: int, limit: int) -> list[IndexPlace]:
    """_index_places in one compiled call: a court card's band holds a
    score of candidate glyphs, each seed compares them all, and in Python
    that was a third of the band's search."""
    places, ids = kernels.index_places(layer.labels, layer.stats, glyph_size, limit)
    id_list: list[int] = ids.tolist()
    return [IndexPlace(Box(rx, ry, rw, rh), Box(sx, sy, sw, sh), id_list[a:b], id_list[b:c], px)
            for rx, ry, rw, rh, sx, sy, sw, sh, px, a, b, c in places.tolist()]


def _index_places_numpy(layer: InkLayer, glyph_size: int, limit: int) -> list[IndexPlace]:
    cands = glyph_candidates(layer, glyph_size)
    boxes = {i: _box(layer.stats, i) for i in cands}
    found: list[IndexPlace] = []
    used: set[int] = set()
    for seed in sorted(cands, key=lambda i: (boxes[i].y, boxes[i].x)):
        sb = boxes[seed]
        if seed in used or sb.h < 0.5 * glyph_size:
            continue
        group = _rank_group(seed, cands, boxes)
        rbox = boxes[group[0]]
        for j in group[1:]:
            rbox = rbox.union(boxes[j])
        if rbox.w > 1.6 * rbox.h:
            continue
        suit = _suit_under(rbox, [i for i in cands if i not in group], boxes)
        if suit is not None:
            sbox = boxes[suit]
            suit_ids = [suit, *(i for i in cands if i != suit and i not in group and
                                _inside(boxes[i], sbox))]
            suit_px = int(layer.stats[suit_ids, 4].sum())
        else:
            merged = _suit_in_merged(layer, rbox, group)
            if merged is None:
                continue
            suit_ids, sbox, suit_px = merged
        used.update(group)
        used.update(suit_ids)
        found.append(IndexPlace(rbox, sbox, group, suit_ids, suit_px))
        if len(found) >= limit:
            break
    return found


def _inside(b: Box, outer: Box) -> bool:
    return b.x >= outer.x and b.x2 <= outer.x2 and b.y >= outer.y and b.y2 <= outer.y2


def _suit_under(rbox: Box, others: list[int], boxes: dict[int, Box]) -> int | None:
    best: int | None = None
    best_gap = 0.0
    for i in others:
        b = boxes[i]
        gap = b.y - rbox.y2
        if gap < -0.08 * rbox.h or gap > 0.6 * rbox.h:
            continue
        if abs(b.cx - rbox.cx) > 0.45 * max(rbox.w, b.w):
            continue
        if not (0.25 * rbox.h <= b.h <= 0.95 * rbox.h and 0.2 * rbox.h <= b.w <= 1.3 * rbox.h):
            continue
        if best is None or gap < best_gap:
            best, best_gap = i, gap
    return best


def _suit_in_merged(layer: InkLayer, rbox: Box, group: list[int]
                    ) -> tuple[list[int], Box, int] | None:
    """A suit glyph joined to other ink: artwork under it (the sceptre of a
    court card) or, in a blurred frame, a pip beside it. Only the columns
    under the rank are kept, and the glyph is cut at its first narrow row
    below its widest one, where a point or stem meets the artwork."""
    h, w = layer.labels.shape
    x0, x1 = max(0, int(rbox.x - 0.15 * rbox.h)), min(w, int(rbox.x2 + 0.15 * rbox.h))
    y0 = max(0, int(rbox.y2 - 0.08 * rbox.h))
    y1 = min(h, int(rbox.y2 + 1.5 * rbox.h))
    window = layer.labels[y0:y1, x0:x1]
    # The components that start under the rank, off the patch's edge, with
    # a box that meets the window, in label order (a court card's band
    # holds hundreds: their boxes are tested all at once, where the labels
    # in the window were sorted out of its pixels, a third of this search).
    # One whose box meets the window but none of its pixels has no rows.
    x, y, bw, bh = (layer.stats[:, k] for k in range(4))
    gap = y - rbox.y2
    near = ((x > 0) & (y > 0) & (gap >= -0.08 * rbox.h) & (gap <= 0.6 * rbox.h)
            & (x < x1) & (x + bw > x0) & (y < y1) & (y + bh > y0))
    for i in np.flatnonzero(near).tolist():
        if i in group:
            continue
        sub = window == i
        widths = sub.sum(axis=1)
        rows = np.nonzero(widths)[0]
        if len(rows) < 3:
            continue
        first = int(rows[0])
        top = min(len(widths), first + int(0.6 * rbox.h))
        widest = first + int(np.argmax(widths[first:top]))
        neck = np.nonzero(widths[widest:] <= 0.35 * widths[widest])[0]
        cut = widest + int(neck[0]) if len(neck) else min(len(widths), first + int(0.8 * rbox.h))
        ys, xs = np.nonzero(sub[:cut])
        if len(xs) == 0:
            continue
        sbox = Box(x0 + int(xs.min()), y0 + int(ys.min()), int(xs.max() - xs.min()) + 1,
                   int(ys.max() - ys.min()) + 1)
        if abs(sbox.cx - rbox.cx) > 0.45 * max(rbox.w, sbox.w) or sbox.w > 1.3 * rbox.h:
            continue
        if not 0.25 * rbox.h <= sbox.h <= 0.95 * rbox.h:
            continue
        return [int(i)], sbox, len(xs)
    return None
