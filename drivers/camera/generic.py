"""The generic reader: standard indices (A K Q J 10..2, four French suits) on
decks that have not been calibrated.

It reads the same corner patch as the calibrated reader (drivers.camera.corner:
placed from the card's edges, upright, at canonical scale), but knows nothing
of the deck. The index is found in the patch from its ink: the rank is the
first glyph line in the card's index column (one or two components: a ten),
the suit the glyph right under it. Each glyph is cut at its box and
stretched to a fixed size (condensed and wide fonts alike), described by its
ink and its gradient directions (the suit also by a small convolutional
network's embedding, drivers.camera.convnet: a small spade and a small club
differ by a few blurred pixels), then read by a linear discriminant
(drivers.camera.lda, as in the calibrated reader).

The discriminants are not trained here: `calibration.build_generic` renders
rank glyphs and suit symbols from many fonts (Debian font packages) on
synthetic cards, sends them through the simulated shoe camera, this corner
finder and this segmentation, and fits them on what this module then sees.
The result ships as package data (`drivers/camera/data/generic.npz`); nothing
is downloaded or rendered at run time.

A card is read only when: the rank is one of the 13 ranks (the model also
knows "not a rank": other letters and digits, such as the French 1 R D V) and
the suit one of the four, each discriminant sure (log-likelihood ratio over
the runner-up; the rank's over the runner-up rank and over "not a rank"
apart), each glyph close to its class (Mahalanobis distance under the
model's covariance: a glyph unlike anything the fonts showed is refused), and
the ink colour agreeing with the suit (red hearts and diamonds, black spades
and clubs). Otherwise the corner is refused, never guessed.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera import kernels
from drivers.camera.art import ART_RING, art_mask, mirrored
from drivers.camera.convnet import ConvNet, fused
from drivers.camera.corner import CORNER_H, CORNER_W, MARGIN
from drivers.camera.glyphs import CCL, RING, Box, FloatMap, Image, member, percentile, redness
from drivers.camera.lda import Discriminant
from drivers.camera.match import CornerRead
from drivers.camera.shapes import INK, left_gap, right_reach

MODEL_PATH = Path(__file__).resolve().parent / "data" / "generic.npz"
FORMAT = "croupier-generic-reader"
VERSION = 1

RANK_SIZE = (12, 18)  # width, height of a normalised rank glyph (pixel part)
SUIT_SIZE = (12, 12)
SUIT_NET_SIZE = (24, 24)  # the suit glyph as the suit network sees it
NOT_A_RANK = "x"  # the discriminant's class for glyphs that are no rank
RED_SUITS = "HD"

_PAPER_K = 21  # closing window of the paper level, canonical pixels
_CHAMFER = 7  # the card's rounded corner: canonical x + y below this is not read

# Where an index may be, canonical pixels of the card.
RANK_H = (11, 58)  # rank glyph height
RANK_TOP_MAX = 30  # a rank starts this near the card's top edge
RANK_LEFT_MAX = 26  # and this near its left edge
# Smaller glyphs are refused: blurred, a small suit is a blob (printed
# indices are larger: 27-45 px ranks, 14-25 px suits on the decks tested).
MIN_RANK_H = 16
MIN_SUIT_H = 10
# Ink is what is darker than INK_LEVEL times the strongest ink in the corner
# (99.5th percentile), and than INK_FLOOR; the rank is then cut again at
# INK_LEVEL times its own strongest ink (index_parts).
INK_LEVEL = 0.42
INK_FLOOR = 0.12


# A 5 has a vertical stroke at its upper left, from the top bar down to the
# bowl; a flat-topped 3 (cardsjs) has the same top bar and bowl but nothing
# there, and the font-trained discriminant takes it for a 5 with confidence
# (8 misreads in 10,000 frames). Share of that region inked: 0.40-0.86 on the
# 5s of the three test decks, 0.20-0.25 on the 3s read as 5. A 5 without it
# is refused (the dealer keys it in), never turned into another card.
FIVE_STEM_MIN = 0.35

# A rank whose ink, followed down to RANK_SPILL_LEVEL of the level it was
# cut at, runs further than RANK_SPILL_MAX of its height beside its box was
# cut in parts, and is refused (rank_spill).
RANK_SPILL_LEVEL = 0.5
RANK_SPILL_MAX = 0.1
# Ink of another glyph at least RANK_SPILL_GLYPH of the rank's height (a big
# pip, a court picture's frame), and its blur (RANK_SPILL_GAP px), is not
# followed: the rank may lie a pixel or two from it. A rank's own fragment
# (the serif of a thin top bar) is smaller.
RANK_SPILL_GLYPH = 0.6
RANK_SPILL_GAP = 2
# The same above the rank: the share of the rank's columns with ink (over
# RANK_SPILL_LEVEL of its level) in the rows from RANK_CAP_REACH of its
# height above its box down to its blur (RANK_SPILL_GAP px), ink that runs
# on beyond its columns left out. A 5 whose thin top bar and stem fell under
# the level leaves its bowl, which reads as a J (svg-cards, 2 in 10,000
# frames once its small spades were read). A J with more than RANK_CAP_MAX
# is refused. Only a J: the house deck has ink there over 2-3 % of its
# right reads of other ranks (not a J's), and no other misread came of it.
RANK_CAP_REACH = 0.5
RANK_CAP_MAX = 0.25
# A J's right edge is its stem, straight from the top to the hook. A 3 whose
# thin left ends fell under the ink level (blurred across) keeps its right
# half, and that passed for a J (svg-cards, 1 in 10,000 frames once the
# fonts' Js were trusted lower): its right edge comes in at the 3's waist.
# A J whose right edge comes in by more than J_NOTCH_MAX of its width at its
# middle is refused (right_notch). Right Js: at most 0.09 on the three test
# decks' frames, 0.11 at the 99.5th percentile of the fonts' out-of-fold
# ones; that 3: 0.18.
J_NOTCH_MAX = 0.15


def five_stem(rank_ink: FloatMap) -> float:
    """Share of the rank glyph's upper-left region (left 30 %, 20-45 % of its
    height) that is ink."""
    h, w = rank_ink.shape
    region = rank_ink[int(0.2 * h) : int(0.45 * h), : max(1, int(0.3 * w))]
    return float((region > INK).mean()) if region.size else 0.0


# svg-cards draws its 5 condensed, the stem from the top bar down to the
# bowl a hairline: blurred, the font-trained discriminant is unsure of it
# over a 3 or a 6 (ratios 1-26 where the fonts' rank confusions set 23-26),
# and a third of the deck's refusals were fives. The glyph's shape tells the
# three apart where the discriminant does not: under the bar, right of the
# stem, a 5 is open (a 3's upper bowl reaches the right there, a 6's stroke
# the left only, as a 5's), and the 5's bowl is open on its left (a 6's is
# closed). A 5 read over a 3 or a 6 whose glyph has all three (five_shaped)
# needs only FIVE_SHAPED_LLR over it.
FIVE_RIVALS = ("3", "6")
FIVE_OPEN_ROWS = (0.1, 0.34)  # under the top bar, above the bowl
FIVE_OPEN_MAX = 0.45  # some row there inked no further right than this share
FIVE_BOWL_ROWS = (0.55, 0.72)  # the bowl's middle
FIVE_BOWL_MIN = 0.45  # some row there starts this share of the width from the left
FIVE_SHAPED_LLR = 2.0


def five_shaped(rank_ink: FloatMap) -> bool:
    """The glyph has a 5's stem at its upper left (FIVE_STEM_MIN), is open
    at its right under the bar and its bowl open at its left."""
    return (five_stem(rank_ink) >= FIVE_STEM_MIN
            and right_reach(rank_ink, *FIVE_OPEN_ROWS) <= FIVE_OPEN_MAX
            and left_gap(rank_ink, *FIVE_BOWL_ROWS) >= FIVE_BOWL_MIN)


@dataclass(frozen=True)
class IndexParts:
    """One index as cut from a corner patch (patch coordinates)."""

    rank_box: Box
    suit_box: Box
    rank_ink: FloatMap  # ink 0..1 inside rank_box, other components masked out
    suit_ink: FloatMap
    rank_parts: int  # components of the rank line (a ten has two)
    rank_red: float  # mean (R - max(G, B)) / 255 over the glyph's ink; NaN: grey image
    suit_red: float
    # rank_spill() and rank_cap() of the rank glyph, measured when first
    # asked for: only a look whose ratios pass is checked for its shape
    # (shape_vetoed); a look refused before needs neither.
    # (partials of module functions, not lambdas: the build's dump pickles them)
    spill_of: Callable[[], float] = field(default=functools.partial(float, 0.0), repr=False,
                                          compare=False)
    cap_of: Callable[[], float] = field(default=functools.partial(float, 0.0), repr=False,
                                        compare=False)

    @functools.cached_property
    def rank_spill(self) -> float:
        return self.spill_of()

    @functools.cached_property
    def rank_cap(self) -> float:
        return self.cap_of()


def ink_map(patch: Image) -> FloatMap:
    """Ink strength 0..1 (darkness against the local paper, green channel:
    red and black ink alike) of a corner patch; nothing outside the card."""
    g = patch[:, :, 1] if patch.ndim == 3 else patch
    g = np.ascontiguousarray(g)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (_PAPER_K, _PAPER_K))
    paper = np.asarray(cv2.blur(cv2.morphologyEx(g, cv2.MORPH_CLOSE, kernel), (5, 5)),
                       np.float32)
    if kernels.COMPILED:
        out: FloatMap = kernels.ink_strength(paper, g, 30.0, 60.0, _off_card(g.shape))
        return out
    ink = np.clip((paper - g.astype(np.float32)) / np.maximum(paper, 30.0), 0.0, 1.0)
    ink[(paper < 60.0) | _off_card(ink.shape)] = 0.0
    return ink.astype(np.float32)


@functools.lru_cache(maxsize=4)
def _off_card(shape: tuple[int, ...]) -> npt.NDArray[np.bool_]:
    """The pixels of a corner patch outside the card: the ramp beyond its
    top and left edges, and its rounded corner (the same for every patch
    of a size: made once)."""
    yy, xx = np.mgrid[: shape[0], : shape[1]]
    off: npt.NDArray[np.bool_] = (xx - MARGIN) + (yy - MARGIN) < _CHAMFER
    off[: MARGIN + 2] = True
    off[:, : MARGIN + 2] = True
    off.flags.writeable = False
    return off


def _boxes(stats: npt.NDArray[np.int32]) -> list[Box]:
    return [Box(x, y, w, h) for x, y, w, h, _ in stats.tolist()]


Components = tuple[int, npt.NDArray[np.int32], npt.NDArray[np.int32], list[Box]]


def _components(ink: FloatMap, level: float, cut: npt.NDArray[np.bool_] | None = None,
                memo: dict[float, Components] | None = None,
                add: npt.NDArray[np.bool_] | None = None) -> Components:
    """Connected components (8-connected) of the ink stronger than `level`,
    but for the pixels of `cut` (see _split) and with those of `add` (see
    _stacked): count, labels, stats, boxes. `memo`: those of the uncut ink
    found before, by level (the looks of one corner start again from the
    same glyphs; the labels are not written to)."""
    if cut is None and add is None and memo is not None:
        if level not in memo:
            memo[level] = _components(ink, level)
        return memo[level]
    mask = ink > level
    if add is not None:
        mask |= add
    if cut is not None:
        mask &= ~cut
    n, labels, raw_stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        mask.astype(np.uint8), 8, cv2.CV_32S, CCL)
    stats = np.asarray(raw_stats, np.int32)
    return int(n), np.asarray(labels, np.int32), stats, _boxes(stats)


def _rank_seeds(n: int, stats: npt.NDArray[np.int32], boxes: list[Box],
                heights: tuple[int, int] = RANK_H) -> list[int]:
    """Components that may be the rank (or the first part of a ten): rank
    sized (`heights`), near the card's corner."""
    o = MARGIN
    return [i for i in range(1, n)
            if heights[0] <= boxes[i].h <= heights[1] and boxes[i].w <= 0.9 * RANK_H[1]
            and boxes[i].y - o <= RANK_TOP_MAX and boxes[i].x - o <= RANK_LEFT_MAX
            and stats[i, 4] >= 18]


def _nearest_corner(ids: list[int], boxes: list[Box]) -> int:
    """Of glyphs that may be the rank, the one nearest the card's corner."""
    return min(ids, key=lambda i: boxes[i].y + 0.5 * boxes[i].x)


# The suit under a rank of height h: at most SUIT_H_MAX h tall and
# SUIT_W_MAX h wide, its centre at most SUIT_OFF_MAX h beside the rank's
# columns (index_parts; a glyph under the rank that is not is cut, _split).
SUIT_H_MAX = 1.1
SUIT_W_MAX = 1.4
SUIT_OFF_MAX = 0.35


def _centred_under(b: Box, rb: Box, h: float) -> bool:
    return rb.x - SUIT_OFF_MAX * h <= b.cx <= rb.x2 + SUIT_OFF_MAX * h


@dataclass(frozen=True)
class _NoSuit:
    """A rank found with no suit-sized glyph under it: what _split needs."""

    labels: npt.NDArray[np.int32]
    boxes: list[Box]
    seed: int
    rank_box: Box
    under: list[int]  # glyphs under the rank, of no suit's size


def index_parts(patch: Image) -> IndexParts | None:
    """The index (rank over suit) nearest the card's corner in a corner
    patch, or None when there is nothing like one: the first of
    index_candidates."""
    return next(index_candidates(patch))


def index_candidates(patch: Image, rank_refused: Callable[[IndexParts], bool] | None = None
                     ) -> Iterator[IndexParts | None]:
    """The index as it is first found (`_index_found`), then as the glyphs
    may be taken apart otherwise, one way after the other as they are asked
    for (the reader asks for the next only when the one before is refused,
    so a corner read at the first look costs nothing more):

    - a rank glyph tall for its width cut across where it is thinnest in
      its lower part (_joined: a rank and its suit joined in one glyph no
      taller than a rank, taken for the rank with the big pip under it for
      the suit);
    - a rank glyph as wide as tall cut down where it is thinnest in its
      right part (_beside: a rank joined to a big pip beside it);
    - the index with a court picture's coloured art over it cut out
      (_unveiled: an svg-cards king's small club against the gold finial
      of his sceptre), then its black suit completed from the side the art
      leaves whole (_mirrored: the king of spades, whose finial is drawn
      over the right lobe of his small spade);
    - the suit found with the thin strokes hanging off it beside its
      middle pruned (_suit_pruned: a small club with a piece of a court
      picture's outline at its lobe);
    - the suit as the uppermost fat part of a glyph under the rank too big
      for a suit, that part taken deeper inside the glyph at each look
      (_suit_core, SUIT_CORES: a small suit on a court picture's ink);
    - the rank joined again to a part of it that its faint ink joins it to
      (_stacked: a 5 whose thin stem fell under the level, its top bar
      over its bowl).

    Each is a whole index, read against every threshold and check on its
    own (the reader asks more of a look after the first: LATER_MARGIN).
    None is what an uncut corner would be without an index.

    `rank_refused`, when given, says of an index that its rank glyph alone
    refuses it: the looks that take only the suit apart again, keeping
    that rank glyph, are then not tried."""
    ink = ink_map(patch)
    inner = ink[MARGIN : MARGIN + CORNER_H, MARGIN : MARGIN + CORNER_W]
    top = percentile(inner, 99.5)
    if top < 0.15:
        yield None
        return
    level = max(INK_FLOOR, INK_LEVEL * top)
    memo: dict[float, Components] = {}
    first = _index_at(patch, ink, level, None, memo=memo)
    found, cut = _index_found(patch, ink, level, first)
    yield found
    whole = _index_at(patch, ink, level, None, whole=True, memo=memo)
    if isinstance(whole, _NoSuit):
        yield _joined(patch, ink, level, whole)
        yield _beside(patch, ink, level, whole)
    if first is not None:
        # (before the looks that take the suit apart by its shape: where
        # coloured art touches the suit, they seldom read it and cost more)
        unveiled = _unveiled(patch, ink, level, first)
        if unveiled is not None:
            yield unveiled[0]
            if not (rank_refused and rank_refused(unveiled[0])):
                yield _mirrored(unveiled[0], unveiled[1])
    if found is not None and not (rank_refused and rank_refused(found)):
        yield _suit_pruned(patch, ink, level, found, cut, memo)
    if isinstance(first, _NoSuit):
        for core in SUIT_CORES:
            cored = _suit_core(ink, first, core)
            parts = None if cored is None else _index_at(patch, ink, level, cored)
            if not isinstance(parts, IndexParts) or parts.rank_box != first.rank_box:
                continue  # (a look at the suit that changes the rank is none)
            yield parts
            if rank_refused and rank_refused(parts):
                break  # (the rank glyph is the seed's at every share)
    if first is not None:
        yield from _stacked(patch, ink, level, first, memo)


# A rank glyph more than TALL_RANK times as tall as wide may be a rank and
# its suit joined (index_candidates): a screen of which glyphs to try, not
# a test (svg-cards' condensed ranks reach 2.7 and its J 3.7, a cardsjs 9
# on its heart 2.9; the part cut off must prove a suit). It is cut at the
# row of least ink in its lower part when the ink there is at most
# JOINED_THIN of its median (more than _split allows: a 9's tail lying on
# its heart's lobes is as wide as a stroke), and the part cut off is the
# suit when it starts at the cut and is at least JOINED_SUIT_H of the
# rank's height left above it (svg-cards' Q, whose tail touches its heart,
# is 37-39 px with that tail over a heart of 17-18: 0.46-0.49).
TALL_RANK = 2.2
JOINED_THIN = 0.75
JOINED_SUIT_H = 0.45


def _joined(patch: Image, ink: FloatMap, level: float, found: _NoSuit) -> IndexParts | None:
    if found.rank_box.h > RANK_H[1] or found.rank_box.h <= TALL_RANK * found.rank_box.w:
        return None  # (a glyph too tall for a rank is cut by _index_found)
    rb, h = found.rank_box, found.rank_box.h
    own = found.labels == found.seed
    y = _valley(ink, own, 0, rb.y + 0.45 * h, rb.y2 - 0.2 * h, JOINED_THIN)
    if y is None:
        return None
    # Across the glyph's whole width: its ink at the lower level the rank
    # is cut at again (_index_at) must not join the parts again.
    cut = np.zeros(ink.shape, bool)
    cut[y, rb.x : rb.x2] = True
    parts = _index_at(patch, ink, level, cut)
    if (not isinstance(parts, IndexParts) or abs(parts.suit_box.y - y) > 2
            or parts.suit_box.h < JOINED_SUIT_H * parts.rank_box.h):
        return None
    return parts


# A rank glyph at least WIDE_RANK times as wide as tall may be a rank and a
# glyph beside it joined (an svg-cards K whose foot touches the big diamond
# beside it). It is cut down the column of least ink in its right part,
# when the ink there is at most JOINED_THIN of its median, and the rank
# found then must be narrower.
WIDE_RANK = 0.8


def _beside(patch: Image, ink: FloatMap, level: float, found: _NoSuit) -> IndexParts | None:
    rb = found.rank_box
    if rb.w < WIDE_RANK * rb.h:
        return None
    own = found.labels == found.seed
    x = _valley(ink, own, 1, rb.x + 0.4 * rb.w, rb.x2 - 0.1 * rb.w, JOINED_THIN)
    if x is None:
        return None
    cut = np.zeros(ink.shape, bool)
    cut[rb.y : rb.y2, x] = True
    parts = _index_at(patch, ink, level, cut)
    if not isinstance(parts, IndexParts) or parts.rank_box.w >= rb.w:
        return None
    return parts


# A glyph under the rank too tall or too wide for a suit, and nowhere thin
# enough to cut (_split), may be the suit lying on a court picture's ink (an
# svg-cards king's small club on the gold finial of its sceptre). Its suit
# is then taken as its uppermost fat part: the pixels deeper inside it than
# a share (`core`) of its greatest depth (distance to its edge), the highest
# piece of them centred under the rank, grown back by that depth (an
# opening: the strokes and bridges to what it touches, thinner, fall away).
# Where the picture's ink is nearly as fat as the suit (a spade on the
# finial's dark cap), a piece at one share takes part of it along, so the
# shares of SUIT_CORES are looked at one after the other, deeper each time.
SUIT_CORES = (0.5, 0.6, 0.7)


def _suit_core(ink: FloatMap, found: _NoSuit, core: float) -> npt.NDArray[np.bool_] | None:
    """The pixels to cut so that the suit stands alone, or None."""
    rb, h = found.rank_box, found.rank_box.h
    cut = np.zeros(ink.shape, bool)
    for j in found.under:
        b = found.boxes[j]
        if b.h <= SUIT_H_MAX * h and b.w <= SUIT_W_MAX * h:
            continue
        own = found.labels == j
        depth = cv2.distanceTransform(own.astype(np.uint8), cv2.DIST_L2, 3)
        reach = core * float(depth.max())
        n, lab, stats, centres = cv2.connectedComponentsWithStatsWithAlgorithm(
            (depth > reach).astype(np.uint8), 8, cv2.CV_32S, CCL)
        cores = [k for k in range(1, n)
                 if rb.x - SUIT_OFF_MAX * h <= centres[k][0] <= rb.x2 + SUIT_OFF_MAX * h]
        if len(cores) < 2:
            continue  # one fat part: nothing to take apart
        top = min(cores, key=lambda k: int(stats[k, cv2.CC_STAT_TOP]))
        suit = cv2.dilate((lab == top).astype(np.uint8), _disc(math.ceil(reach))) > 0
        suit &= own
        cut |= own & ~suit
    return cut if cut.any() else None


def _disc(r: int) -> npt.NDArray[np.uint8]:
    return np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)),
                      np.uint8)


# The suit found may carry a thin stroke of what it touches (an svg-cards
# king's small club with the outline of its sceptre's finial hanging from a
# lobe: too far from every suit). Looked at again, its strokes thinner than
# PRUNE_CORE of its greatest depth (what an opening takes away) are pruned
# where they hang from one fat part of it, beside its middle: not a stroke
# in its middle (|x - centre| <= PRUNE_STEM of its width: a spade's or
# club's stem, whose neck is as thin), nor one that joins two fat parts (a
# club's lobe to its middle). A look at the suit that changes the rank found
# is none.
PRUNE_CORE = 0.3
PRUNE_STEM = 0.2
# And the strokes pruned must shrink the suit's box by at least PRUNE_REACH
# pixels (its width and height together): a pixel is what blur and the ink
# level move from one frame to the next, and a suit pruned by so little is
# the same glyph read again (out of fold, an M PLUS 1 club unsure at the
# first look, a pixel off its edge, was then read as a spade).
PRUNE_REACH = 2


def _reach(mask: npt.NDArray[np.bool_]) -> int:
    """The mask's box: its width plus its height, less 2."""
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    return int(rows[-1] - rows[0] + cols[-1] - cols[0]) if rows.size else 0


def _suit_pruned(patch: Image, ink: FloatMap, level: float, found: IndexParts,
                 cut: npt.NDArray[np.bool_] | None,
                 memo: dict[float, Components] | None = None) -> IndexParts | None:
    _, labels, _, _ = _components(ink, level, cut, memo)
    sb = found.suit_box
    ids, counts = np.unique(labels[sb.y : sb.y2, sb.x : sb.x2], return_counts=True)
    counts[ids == 0] = 0
    own = labels == ids[int(np.argmax(counts))]
    depth = cv2.distanceTransform(own.astype(np.uint8), cv2.DIST_L2, 3)
    r = max(1, math.ceil(PRUNE_CORE * float(depth.max())))
    body = cv2.morphologyEx(own.astype(np.uint8), cv2.MORPH_OPEN, _disc(r)) > 0
    nb, fat = cv2.connectedComponentsWithAlgorithm(body.astype(np.uint8), 8, cv2.CV_32S, CCL)
    if nb < 2:
        return None
    cols = np.flatnonzero(body.any(axis=0))
    middle = 0.5 * float(cols[0] + cols[-1])
    band = PRUNE_STEM * float(cols[-1] - cols[0] + 1)
    nt, thin, stats, centres = cv2.connectedComponentsWithStatsWithAlgorithm(
        (own & ~body).astype(np.uint8), 8, cv2.CV_32S, CCL)
    pruned = np.zeros(own.shape, bool)
    for k in range(1, nt):
        if abs(centres[k][0] - middle) <= band:
            continue  # a stem
        x, y, w, h = (int(v) for v in stats[k, :4])
        box = (slice(max(y - 1, 0), y + h + 1), slice(max(x - 1, 0), x + w + 1))
        ring = cv2.dilate((thin[box] == k).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        touched = np.unique(fat[box][ring & (fat[box] > 0)])
        if touched.size <= 1:
            pruned |= thin == k  # hangs from one fat part: no bridge within the suit
    if not pruned.any() or _reach(own) - _reach(own & ~pruned) < PRUNE_REACH:
        return None  # (no stroke out beyond the suit: the same glyph, read again)
    parts = _index_at(patch, ink, level, pruned if cut is None else cut | pruned)
    if not isinstance(parts, IndexParts) or parts.rank_box != found.rank_box:
        return None  # (a look at the suit that changes the rank is none)
    return parts


# A court picture's coloured art drawn over the index (drivers.camera.art):
# looked at again, the art and its outline are cut out of the ink, when
# there are at least ART_MIN pixels of it in the suit's place under the rank
# (rows down to a rank's height under it, columns as _centred_under). A
# rank whose ink is redder than RED_RANK is red ink (the middle of the
# model's black_max and red_min, 0.04 and 0.08): red art is then ink. A
# look that changes the rank found is none.
ART_MIN = 6
RED_RANK = 0.06


def _unveiled(patch: Image, ink: FloatMap, level: float, first: IndexParts | _NoSuit
              ) -> tuple[IndexParts, npt.NDArray[np.bool_]] | None:
    """The index with the art over it cut out, and that art (with its
    outline); None when there is none, or no index without it."""
    if patch.ndim != 3:
        return None
    rb, h = first.rank_box, first.rank_box.h
    if isinstance(first, IndexParts):
        red = first.rank_red
    else:
        red = _redness(patch, first.labels, [first.seed], first.rank_box)
    art = art_mask(patch, red > RED_RANK)
    x0, x1 = max(0, int(rb.x - SUIT_OFF_MAX * h)), int(rb.x2 + SUIT_OFF_MAX * h) + 1
    if int(art[rb.y2 : rb.y2 + h, x0:x1].sum()) < ART_MIN:
        return None
    cut = cv2.dilate(art.astype(np.uint8), _disc(ART_RING)) > 0  # (with its outline)
    parts = _index_at(patch, ink, level, cut)
    if not isinstance(parts, IndexParts) or parts.rank_box != rb:
        return None
    return parts, cut


def _mirrored(parts: IndexParts, cut: npt.NDArray[np.bool_]) -> IndexParts | None:
    """The index with its black suit completed from the side the art does
    not cover (drivers.camera.art.mirrored); None when the ink is red or the
    art covers no one side."""
    if not parts.suit_red <= RED_RANK:
        return None  # (a heart's top is two lobes, not an apex on its axis; NaN: grey)
    sb = parts.suit_box
    # (the suit's box grown by a pixel, off the patch taken as no art)
    art = np.zeros((sb.h + 2, sb.w + 2), bool)
    y0, x0 = max(sb.y - 1, 0), max(sb.x - 1, 0)
    inside = cut[y0 : sb.y2 + 1, x0 : sb.x2 + 1]
    art[y0 - sb.y + 1 : y0 - sb.y + 1 + inside.shape[0],
        x0 - sb.x + 1 : x0 - sb.x + 1 + inside.shape[1]] = inside
    whole = mirrored(parts.suit_ink, art)
    if whole is None:
        return None
    # (the same rank glyph: its shape is measured once, for both looks)
    return replace(parts, suit_ink=whole, suit_box=Box(sb.x, sb.y, whole.shape[1], whole.shape[0]),
                   spill_of=functools.partial(getattr, parts, "rank_spill"),
                   cap_of=functools.partial(getattr, parts, "rank_cap"))


# A rank whose thin stroke fell under the ink level lies in parts: an
# svg-cards 5 whose hairline stem from the top bar to the bowl faded under
# blur leaves its bowl, read as a J, and its top bar over it; an A or a 7
# leaves a serif of its foot or its bar beside it (refused: rank_spill).
# Looked at again, a part that joins the rank in the ink over
# RANK_SPILL_LEVEL of the level (as rank_spill follows a glyph) is joined
# to it by that ink, between the two, and the rank is the whole glyph, read
# against every threshold and check, over the same suit. A part is either
# stacked on the rank, over its columns (at least half the narrower's
# width), above it at most STACK_GAP of their joined height away or from
# within its rows on down; or, when the rank was refused as one cut in parts
# (rank_spill), a fragment beside it within its rows, at most RANK_SPILL_GAP
# pixels away and at most STACK_FRAGMENT of its height.
STACK_GAP = 0.25
STACK_BELOW = 0.1  # a part below starts this share of the rank's height above its foot
STACK_FRAGMENT = 0.5


def _stacked(patch: Image, ink: FloatMap, level: float, first: IndexParts | _NoSuit,
             memo: dict[float, Components]) -> Iterator[IndexParts]:
    n, labels, stats, boxes = _components(ink, level, None, memo)
    rb = first.rank_box
    rank = [i for i in range(1, n) if boxes[i].x >= rb.x and boxes[i].x2 <= rb.x2
            and boxes[i].y >= rb.y and boxes[i].y2 <= rb.y2]
    # (a fragment beside the rank is looked for only where the rank was
    # refused as one cut in parts: elsewhere the strokes of a court picture
    # lie beside it, a pixel or two away, and none is a piece of it)
    spilt = isinstance(first, IndexParts) and first.rank_spill > RANK_SPILL_MAX
    for j in range(1, n):
        b = boxes[j]
        if j in rank or stats[j, 4] < 4:
            continue
        u = rb.union(b)
        if not RANK_H[0] <= u.h <= RANK_H[1] or u.w > 0.9 * RANK_H[1]:
            continue
        rows, cols = slice(0, u.h), slice(0, u.w)  # of the union: where to bridge
        over = min(b.x2, rb.x2) - max(b.x, rb.x) >= 0.5 * min(b.w, rb.w)
        if over and b.y < rb.y and rb.y - b.y2 <= STACK_GAP * u.h:
            rows = slice(max(b.y2 - 1 - u.y, 0), rb.y + 1 - u.y)
        elif over and rb.y < b.y < rb.y2 - STACK_BELOW * rb.h and b.y2 > rb.y2:
            rows = slice(max(b.y - 1 - u.y, 0), rb.y2 + 1 - u.y)
        elif (spilt and b.y2 > rb.y and b.y2 <= rb.y2 + RANK_SPILL_GAP
              and b.h <= STACK_FRAGMENT * rb.h and max(b.x - rb.x2, rb.x - b.x2) <= RANK_SPILL_GAP):
            lo, hi = sorted((min(b.x2, rb.x2), max(b.x, rb.x)))
            cols = slice(max(lo - 1 - u.x, 0), hi + 1 - u.x)
        else:
            continue
        box = (slice(u.y, u.y2), slice(u.x, u.x2))
        _, low = cv2.connectedComponentsWithAlgorithm(
            (ink[box] > RANK_SPILL_LEVEL * level).astype(np.uint8), 8, cv2.CV_32S, CCL)
        mine = np.unique(low[member(labels[box], rank)])
        theirs = np.unique(low[labels[box] == j])
        shared = np.intersect1d(mine[mine > 0], theirs[theirs > 0])
        if shared.size == 0:
            continue  # not joined even at half the level
        bridge = np.zeros(ink.shape, bool)
        bridge[box][rows, cols] = member(low[rows, cols], shared)
        parts = _index_at(patch, ink, level, None, add=bridge)
        if (not isinstance(parts, IndexParts) or parts.rank_box.union(u) != parts.rank_box
                or (isinstance(first, IndexParts) and parts.suit_box != first.suit_box)):
            continue  # (joined, the glyph must be the rank, over the same suit)
        yield parts


def _index_found(patch: Image, ink: FloatMap, level: float, first: IndexParts | _NoSuit | None
                 ) -> tuple[IndexParts | None, npt.NDArray[np.bool_] | None]:
    """The index as first found (see index_candidates).

    When a rank is found with no suit under it, the joined glyph is cut
    where its ink is thinnest (_split) and the corner looked at again, at
    most SPLIT_ROUNDS times: a small index's rank, suit and the big pip or
    court picture beside and under it lie a pixel or two apart, and blur
    joins them (a cardsjs 2 standing on its heart, a small club touching the
    big pip beside it, an svg-cards J on its club). Where no glyph is thin
    enough to cut, the corner is refused as before. With the index, the
    pixels cut to find it (None: none)."""
    cut: npt.NDArray[np.bool_] | None = None
    found = first  # the glyphs as they are, uncut
    for _ in range(SPLIT_ROUNDS + 1):
        if cut is not None:
            found = _index_at(patch, ink, level, cut)
        if not isinstance(found, _NoSuit):
            return found, cut
        more = _split(ink, found)
        if more is None:
            return None, cut
        cut = more if cut is None else cut | more
    return None, cut


# The suit starts at most SUIT_GAP_MAX of the rank's height under it. A
# glyph on the rank's line that runs on out of the patch's right side is
# not the index's (no index glyph reaches that far) but a big pip beside
# it: svg-cards draws the one beside its queen and jack of hearts as tall
# as the rank and a pixel or two from it, and it was taken with the rank
# for a rank of two glyphs, like a ten's. Such a pip is left off the rank's
# line; with pips that near the index, the next one down may be taken for
# the suit under a rank joined to its own small suit (out of fold: a Q on
# its spade read as an 8 over the big spade under it, gaps of 0.41-0.52 of
# the rank's height), so the suit must then start within PIP_SUIT_GAP_MAX
# (the fonts' right reads with a pip beside: 0.37 at the 99th percentile;
# svg-cards' queens and jacks: 0.12 at most).
SUIT_GAP_MAX = 0.8
PIP_SUIT_GAP_MAX = 0.4


def _index_at(patch: Image, ink: FloatMap, level: float, cut: npt.NDArray[np.bool_] | None,
              whole: bool = False, memo: dict[float, Components] | None = None,
              add: npt.NDArray[np.bool_] | None = None) -> IndexParts | _NoSuit | None:
    """The index at this ink level, or what _split needs to cut it apart;
    with `whole`, the rank glyph as one whose suit is to be cut off it;
    `add`: pixels taken as ink whatever their strength (_stacked)."""
    n, labels, stats, boxes = _components(ink, level, cut, memo, add)
    seeds = _rank_seeds(n, stats, boxes)
    if not seeds:
        # A rank and the suit under it joined in one glyph too tall for a rank.
        tall = _rank_seeds(n, stats, boxes, (RANK_H[1] + 1, 2 * RANK_H[1]))
        if not tall:
            return None
        t = _nearest_corner(tall, boxes)
        return _NoSuit(labels, boxes, t, boxes[t], [])
    seed = _nearest_corner(seeds, boxes)
    # The rank cut at its own ink level: a faint rank beside a saturated suit
    # or pip (the level above is set by the strongest ink in the corner)
    # keeps only its strongest strokes, and a part of a glyph can pass for
    # another glyph (the top bar, diagonal and right of the bowl of a faint
    # flat-topped 3 read as a 5). Cut again at its level, the glyph must
    # still be one rank-sized component, else the corner is refused; or,
    # joined at that level to the suit under it (an svg-cards J's foot to
    # its club), too tall for a rank, it is cut apart as such (_split).
    # (the seed's pixels looked for in its box alone: a tenth of the patch)
    kb = boxes[seed]
    in_box = labels[kb.y : kb.y2, kb.x : kb.x2] == seed
    own = max(INK_FLOOR, INK_LEVEL * float(ink[kb.y : kb.y2, kb.x : kb.x2][in_box].max()))
    if own < level:
        at = np.argwhere(in_box)[0]  # its first pixel, row by row
        n, labels, stats, boxes = _components(ink, own, cut, memo, add)
        seed = int(labels[kb.y + at[0], kb.x + at[1]])
        if seed not in _rank_seeds(n, stats, boxes):
            if seed in _rank_seeds(n, stats, boxes, (RANK_H[1] + 1, 2 * RANK_H[1])):
                return _NoSuit(labels, boxes, seed, boxes[seed], [])
            return None
    area = stats[:, 4]
    if whole:
        return _NoSuit(labels, boxes, seed, boxes[seed], [])
    rb, best, group, under, suit, spill = _index_glyphs(stats, boxes, seed, ink.shape[1])
    if best < 0:
        return _NoSuit(labels, boxes, seed, rb, under)
    sb = boxes[best]
    if rb.h < MIN_RANK_H or sb.h < MIN_SUIT_H:
        return None  # too small to tell a club from a spade under blur
    cut_at = own if own < level else level
    return IndexParts(
        spill_of=functools.partial(rank_spill, ink, labels, group, rb, cut_at, spill),
        cap_of=functools.partial(rank_cap, ink, rb, cut_at),
        rank_box=rb, suit_box=sb,
        rank_ink=_cut(ink, labels, group, rb), suit_ink=_cut(ink, labels, suit, sb),
        rank_parts=len([j for j in group if area[j] >= 0.15 * area[seed]]),
        rank_red=_redness(patch, labels, group, rb),
        suit_red=_redness(patch, labels, suit, sb),
    )


SeedGlyphs = tuple[Box, int, list[int], list[int], list[int], list[int]]


def _index_glyphs(stats: npt.NDArray[np.int32], boxes: list[Box], seed: int, width: int
                  ) -> SeedGlyphs:
    """Round the rank seed: the rank line's box, the suit (-1: none), the
    rank line's components, those under it that are no suit (what _split
    cuts), the suit's components and the other glyphs as tall as a part of
    the rank (what rank_spill leaves alone); the last two only with a suit.
    `width`: the patch's. Compiled where numba is (kernels.index_glyphs)."""
    if kernels.COMPILED:
        out: list[int] = kernels.index_glyphs(
            stats, seed, width, SUIT_GAP_MAX, PIP_SUIT_GAP_MAX, SUIT_OFF_MAX, SUIT_H_MAX,
            SUIT_W_MAX, RANK_SPILL_GLYPH).tolist()
        ng, nu, ns, nsp = out[5:9]
        k = 9 + ng + nu
        return (Box(*out[:4]), out[4], out[9 : 9 + ng], out[9 + ng : k], out[k : k + ns],
                out[k + ns : k + ns + nsp])
    n = len(boxes)
    area = stats[:, 4]
    rb = boxes[seed]
    group = [seed]
    h = rb.h
    suit_gap = SUIT_GAP_MAX
    for j in sorted(range(1, n), key=lambda i: boxes[i].x):
        if j == seed or area[j] < 4:
            continue
        b = boxes[j]
        inside = b.x >= rb.x and b.x2 <= rb.x2 and b.y >= rb.y and b.y2 <= rb.y2
        same_line = (abs(b.y - boxes[seed].y) <= 0.2 * h and abs(b.y2 - boxes[seed].y2) <= 0.2 * h
                     and b.h >= 0.6 * h)
        gap = max(b.x - rb.x2, rb.x - b.x2)
        if same_line and b.x2 >= width:
            suit_gap = PIP_SUIT_GAP_MAX  # a big pip beside the rank: see PIP_SUIT_GAP_MAX
            continue
        if inside or (same_line and gap <= 0.35 * h and rb.union(b).w <= 1.5 * h):
            group.append(j)
            rb = rb.union(b)
    # The suit: the glyph right under the rank, centred under it. The
    # highest such glyph whose centre lies within the rank's columns; only
    # when there is none, the highest one near them. (The left rim of a big
    # pip beside the index, the only ink a large pip leaves in the ink map,
    # can start higher than the suit: it was taken for the suit, a diamond
    # for a heart.)
    best = -1
    best_key = (2, 0)
    under: list[int] = []
    for j in range(1, n):
        if j in group or area[j] < 10:
            continue
        b = boxes[j]
        gap = b.y - rb.y2
        if not -0.1 * h <= gap <= suit_gap * h:
            if b.y < rb.y2 and b.y2 > rb.y2 + 0.3 * h and b.x <= rb.x2 and b.x2 >= rb.x:
                under.append(j)  # from beside the rank down into the suit's rows
            continue
        if not _centred_under(b, rb, h):
            if b.x <= rb.x2 and b.x2 >= rb.x:
                under.append(j)  # under the rank, its centre pulled aside
            continue
        if not (0.22 * h <= b.h <= SUIT_H_MAX * h and 0.2 * h <= b.w <= SUIT_W_MAX * h):
            under.append(j)
            continue
        key = (0 if rb.x <= b.cx <= rb.x2 else 1, b.y)
        if key < best_key:
            best, best_key = j, key
    if best < 0:
        return rb, best, group, under, [], []
    sb = boxes[best]
    suit = [best] + [j for j in range(1, n) if j != best and j not in group
                     and boxes[j].x >= sb.x and boxes[j].x2 <= sb.x2
                     and boxes[j].y >= sb.y and boxes[j].y2 <= sb.y2]
    spill = [j for j in range(1, n) if j not in group and boxes[j].h >= RANK_SPILL_GLYPH * rb.h]
    return rb, best, group, under, suit, spill


# A glyph is cut (_split) where its ink is thinnest, when the ink across it
# there is at most SPLIT_THIN of its median; at most SPLIT_ROUNDS times
# (a rank on its suit on a court picture's flower takes two).
SPLIT_THIN = 0.5
SPLIT_ROUNDS = 2


def _valley(ink: FloatMap, own: npt.NDArray[np.bool_], axis: int, lo: float, hi: float,
            thin: float = SPLIT_THIN) -> int | None:
    """The row (axis 0) or column (axis 1) in [lo, hi) where the glyph
    `own` has least ink, when thin enough there (at most `thin` of its
    median)."""
    weight = np.where(own, ink, 0.0).sum(axis=1 - axis)
    inked = weight[weight > 0]
    lo, hi = max(round(lo), 0), min(round(hi), weight.size)
    if hi - lo < 1 or inked.size == 0:
        return None
    at = lo + int(np.argmin(weight[lo:hi]))
    return at if weight[at] <= thin * float(np.median(inked)) else None


def _split(ink: FloatMap, miss: _NoSuit) -> npt.NDArray[np.bool_] | None:
    """Pixels to cut so that the index's glyphs come apart, or None. With
    nothing under the rank, the suit is taken to hang from it: the rank's
    glyph is cut across in its lower part. Otherwise each glyph under it is
    cut where it is too tall (across, in the suit's rows) or too wide (down,
    right of the rank's middle: a suit pulled aside by a big pip)."""
    rb, h = miss.rank_box, miss.rank_box.h
    cut = np.zeros(ink.shape, bool)
    if not miss.under:
        own = miss.labels == miss.seed
        y = _valley(ink, own, 0, rb.y + round(0.45 * h), rb.y2 - round(0.2 * h))
        if y is None:
            return None
        cut[y] = own[y]
        return cut
    for j in miss.under:
        b = miss.boxes[j]
        own = miss.labels == j
        if b.h > SUIT_H_MAX * h:
            y = _valley(ink, own, 0, b.y + round(0.3 * h), b.y + round(0.8 * h))
            if y is not None:
                cut[y] = own[y]
        if b.w > SUIT_W_MAX * h or not _centred_under(b, rb, h):
            x = _valley(ink, own, 1, max(b.x, rb.cx), rb.x2 + round(0.6 * h))
            if x is not None:
                cut[:, x] = own[:, x]
    return cut if cut.any() else None


def right_notch(rank_ink: FloatMap) -> float:
    """How far (share of the glyph's width) its right edge comes in at its
    middle (rows 40-60 %) against the nearer of its upper (15-35 %) and
    lower (62-80 %) reaches: 0 for a straight stem, about a fifth for a 3."""
    h, w = rank_ink.shape
    inked = rank_ink > 0.5 * float(rank_ink.max())
    has = inked.any(axis=1)
    right = np.where(has, w - 1 - np.argmax(inked[:, ::-1], axis=1), -1)

    def reach(f0: float, f1: float) -> npt.NDArray[np.intp]:
        rows = right[int(f0 * h) : max(int(f1 * h), int(f0 * h) + 1)]
        return rows[rows >= 0]

    upper, middle, lower = reach(0.15, 0.35), reach(0.4, 0.6), reach(0.62, 0.8)
    if not (upper.size and middle.size and lower.size):
        return 1.0  # no ink in a band: nothing like a stem
    edge = min(int(upper.max()), int(lower.max()))
    return float(edge - int(middle.min())) / float(w)


def rank_cap(ink: FloatMap, box: Box, level: float) -> float:
    """Share of the rank's columns with ink over RANK_SPILL_LEVEL of the
    level it was cut at above its box (see RANK_CAP_REACH). Ink that runs
    on past the rank's columns (the card's edge, a printed border) is no
    part of it and not counted."""
    top = max(0, box.y - round(RANK_CAP_REACH * box.h))
    bottom = max(top, box.y - RANK_SPILL_GAP)
    x0 = max(0, box.x - box.w)
    band = (ink[top:bottom, x0 : box.x2 + box.w] > RANK_SPILL_LEVEL * level).astype(np.uint8)
    if band.size == 0 or not band.any():
        return 0.0
    n, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(band, 8, cv2.CV_32S, CCL)
    left, right = box.x - x0 - RANK_SPILL_GAP, box.x2 - x0 + RANK_SPILL_GAP
    inside = [i for i in range(1, n)
              if stats[i, 0] >= left and stats[i, 0] + stats[i, 2] <= right]
    cols = member(labels[:, box.x - x0 : box.x2 - x0], inside).any(axis=0)
    return float(cols.mean()) if cols.size else 0.0


def rank_spill(ink: FloatMap, labels: npt.NDArray[Any], ids: list[int], box: Box,
               level: float, glyphs: list[int] | None = None) -> float:
    """How far (share of the rank's height) the rank's ink runs beyond its
    box to the left or right, in the rank's rows, when followed down to half
    the level it was cut at: a glyph cut whole spreads by its blur alone; a
    glyph whose thin strokes fell under the level was cut in parts, and the
    part kept may be another glyph's shape (the diagonal and bowl of a 3
    whose top bar is thin make a 5). The ink of `glyphs` (other glyphs,
    not fragments of the rank) and its blur is not followed."""
    y0, y1 = box.y, box.y2
    if kernels.COMPILED:
        first: int
        last: int
        first, last = kernels.spill_columns(ink, labels, np.asarray(ids, np.int64),
                                            np.asarray(glyphs or [], np.int64), y0, y1,
                                            RANK_SPILL_LEVEL * level, RANK_SPILL_GAP)
        if first < 0:
            return 0.0
        return max(box.x - first, last + 1 - box.x2, 0) / max(box.h, 1)
    low = (ink[y0:y1] > RANK_SPILL_LEVEL * level).astype(np.uint8)
    if glyphs:
        near = cv2.dilate(member(labels[y0:y1], glyphs).astype(np.uint8),
                          np.ones((2 * RANK_SPILL_GAP + 1, 2 * RANK_SPILL_GAP + 1), np.uint8))
        low[near > 0] = 0
    n, low_labels = cv2.connectedComponentsWithAlgorithm(low, 8, cv2.CV_32S, CCL)
    # (the parts the rank touches, as a table over the labels)
    touched = np.bincount(low_labels[member(labels[y0:y1], ids)], minlength=n) > 0
    touched[0] = False
    cols = np.flatnonzero(touched[low_labels].any(axis=0))
    if cols.size == 0:
        return 0.0
    spill = max(box.x - int(cols[0]), int(cols[-1]) + 1 - box.x2, 0)
    return spill / max(box.h, 1)


def _cut(ink: FloatMap, labels: npt.NDArray[Any], ids: list[int], box: Box) -> FloatMap:
    """The ink in the box of the glyphs `ids` and the pixel around them."""
    if kernels.COMPILED:
        cut: FloatMap = kernels.glyph_cut(ink[box.y : box.y2, box.x : box.x2],
                                          labels[box.y : box.y2, box.x : box.x2],
                                          np.asarray(ids, np.int64))
        return cut
    keep = cv2.dilate(member(labels[box.y : box.y2, box.x : box.x2], ids).view(np.uint8),
                      RING)
    out: FloatMap = ink[box.y : box.y2, box.x : box.x2].astype(np.float32)  # (a copy)
    out[keep == 0] = 0.0
    return out



def _redness(patch: Image, labels: npt.NDArray[Any], ids: list[int], box: Box) -> float:
    """Mean (R - max(G, B)) / 255 over the glyph's ink (glyphs.redness); NaN
    in a grey image."""
    red = redness(patch, labels, ids, box)
    return math.nan if red is None else red


def _normalised(ink: FloatMap, size: tuple[int, int]) -> FloatMap:
    """A glyph stretched to `size`, its ink scaled to a peak of 1."""
    img = np.asarray(cv2.resize(ink, size, interpolation=cv2.INTER_AREA), np.float32)
    peak = percentile(img, 98)
    out: FloatMap = np.clip(img / max(peak, 0.05), 0.0, 1.0)
    return out


def _gradients(img: FloatMap, cells: tuple[int, int], bins: int = 8) -> npt.NDArray[np.float32]:
    """Histograms of gradient directions in a grid of cells (square-rooted,
    unit length): the shape of the strokes, alike in thin and bold fonts."""
    img = cv2.GaussianBlur(img, (3, 3), 0.8)
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.sqrt(gx * gx + gy * gy)
    # (in place, and the cells' offsets made once: two glyphs a read)
    turn = np.arctan2(gy, gx)
    turn += np.pi
    turn *= bins / (2 * np.pi)
    b = turn.astype(np.int32)
    b %= bins
    h, w = img.shape
    index = _cell_offsets(h, w, cells, bins) + b
    hist = np.sqrt(np.bincount(index.ravel(), weights=mag.ravel(),
                               minlength=cells[0] * cells[1] * bins))
    # (np.linalg.norm of a vector is the root of its dot product, so taken)
    norm = math.sqrt(float(hist.dot(hist)))
    out: npt.NDArray[np.float32] = (hist / max(norm, 1e-6)).astype(np.float32)
    return out


@functools.cache
def _cell_offsets(h: int, w: int, cells: tuple[int, int], bins: int) -> npt.NDArray[np.int64]:
    """Each pixel's cell, as the first bin of its histogram."""
    cy = (np.arange(h) * cells[1] // h)[:, None]
    cx = (np.arange(w) * cells[0] // w)[None, :]
    out: npt.NDArray[np.int64] = (cy * cells[0] + cx) * bins
    out.flags.writeable = False
    return out


def glyph_vector(ink: FloatMap, size: tuple[int, int], stretched: FloatMap,
                 cells: tuple[int, int]) -> npt.NDArray[np.float32]:
    """Feature vector of one glyph: its ink stretched to `size`, gradient
    direction histograms of `stretched` (the ink _normalised to the size
    they are taken at) in `cells`, and the log of its aspect ratio (a
    narrow glyph stays unlike a wide one)."""
    h, w = ink.shape
    aspect = np.float32(2.0 * np.log(max(w, 1) / max(h, 1)))
    return np.concatenate([
        _normalised(ink, size).reshape(-1),
        4.0 * _gradients(stretched, cells),
        [aspect],
    ]).astype(np.float32)


def rank_vector(parts: IndexParts) -> npt.NDArray[np.float32]:
    return glyph_vector(parts.rank_ink, RANK_SIZE, _normalised(parts.rank_ink, (24, 36)), (4, 6))


def suit_image(parts: IndexParts) -> tuple[FloatMap, float]:
    """The suit glyph as the suit network takes it: stretched to
    SUIT_NET_SIZE, ink peak 1, and its log aspect ratio."""
    h, w = parts.suit_ink.shape
    return _normalised(parts.suit_ink, SUIT_NET_SIZE), math.log(max(w, 1) / max(h, 1))


def suit_vector(parts: IndexParts, nets: tuple[ConvNet, ...] = ()) -> npt.NDArray[np.float32]:
    """The suit's hand-made features, then the embedding of the glyph by
    each of the model's suit networks."""
    # (the gradients are taken at the size the network sees the glyph at:
    # it is stretched once for both)
    image, aspect = suit_image(parts)
    hand = glyph_vector(parts.suit_ink, SUIT_SIZE, image, (4, 4))
    if not nets:
        return hand
    return np.concatenate([hand, *(net.embed(image, aspect) for net in nets)]).astype(np.float32)


@dataclass(frozen=True)
class GenericThresholds:
    """Log-likelihood ratios needed, for red ink (hearts or diamonds) and for
    black ink (spades or clubs): the colour settles which two suits compete,
    and the two pairs differ (a spade and a club are far more alike than a
    heart and a diamond).

    The rank's ratio is taken twice: over the runner-up among the 13 ranks
    (`rank_llr`: one rank taken for another, a 3 for a 5, is a wrong card)
    and over "not a rank" (`rank_x_llr`: a glyph of no standard index, or
    junk, taken for a rank). The two errors differ: in the fonts' views a
    rank read for another rank reaches ratios of 50-75, a glyph of no rank
    read as a rank about 10, so one threshold for both refused every rank
    that merely looks a little like a letter (a bold J, a looped Q)."""

    rank_llr: float = 8.0  # red ink
    suit_llr: float = 8.0
    rank_llr_black: float = 8.0
    suit_llr_black: float = 8.0
    rank_distance: float = 1e9  # squared Mahalanobis distance to the class read
    suit_distance: float = 1e9
    red_min: float = 0.08  # red ink at least this red (rank and suit)
    black_max: float = 0.04  # black ink at most this red
    rank_x_llr: float = 8.0  # red ink
    rank_x_llr_black: float = 8.0
    # The ratio over the runner-up rank needed for one rank read, in one
    # colour ("5SC": a black 5), where the fonts' views set one lower than
    # rank_llr: the colour's threshold is set by its most confident
    # confusion (a 3 read as a 5, a 9 as a Q), which says nothing of reading
    # a J or an A. Never above the colour's threshold.
    rank_llr_by: dict[str, float] = field(default_factory=dict)
    # The same for one rank read over one runner-up rank ("J3SC": a black J
    # whose runner-up is a 3); never above the rank's own threshold.
    rank_llr_pair: dict[str, float] = field(default_factory=dict)

    def for_colour(self, suits: str, rank: str | None = None, second: str | None = None,
                   five: bool = False) -> tuple[float, float, float]:
        """(rank over ranks, rank over no rank, suit) ratios for the suits
        the colour allows (and for `rank` read over the runner-up `second`,
        when given; `five`: the glyph is five_shaped)."""
        if suits in (RED_SUITS, "SC"):
            red = suits == RED_SUITS
            top = self.rank_llr if red else self.rank_llr_black
            among = min(top, self.rank_llr_by.get(f"{rank}{suits}", top))
            among = min(among, self.rank_llr_pair.get(f"{rank}{second}{suits}", among))
            if five and rank == "5" and second in FIVE_RIVALS:
                among = min(among, FIVE_SHAPED_LLR)
            if red:
                return among, self.rank_x_llr, self.suit_llr
            return among, self.rank_x_llr_black, self.suit_llr_black
        return (max(self.rank_llr, self.rank_llr_black),
                max(self.rank_x_llr, self.rank_x_llr_black),
                max(self.suit_llr, self.suit_llr_black))


@dataclass(frozen=True)
class RankVerdict:
    """What the rank discriminant says of one rank glyph."""

    rank: str  # NOT_A_RANK when that class scores above every rank
    llr: float  # over the runner-up rank
    distance: float
    over_x: float  # the best rank over NOT_A_RANK
    second: str  # the runner-up rank
    colours: tuple[str, ...]  # what ink_colour may say, the suit's ink aside
    five: bool = False  # read as a 5 and five_shaped


@dataclass(frozen=True)
class Verdict:
    """What the discriminants say of one index, before the thresholds."""

    rank: str  # NOT_A_RANK when that class scores above every rank
    suit: str
    rank_llr: float  # the best rank over the runner-up rank
    suit_llr: float
    rank_d: float
    suit_d: float
    colour: str | None  # suits the ink allows (ink_colour); None: not clear
    rank_x_llr: float = math.inf  # the best rank over NOT_A_RANK
    rank_second: str = ""  # the runner-up rank
    rank_five: bool = False  # read as a 5 and five_shaped

    @property
    def colour_clear(self) -> bool:
        return self.colour is not None

    def margin(self, t: GenericThresholds) -> float:
        """The smallest of the three ratios over its threshold (at least 1:
        sure); 0 when the colour is not clear or the glyph is no rank."""
        if self.colour is None or self.rank == NOT_A_RANK:
            return 0.0
        need = t.for_colour(self.colour, self.rank, self.rank_second, self.rank_five)
        got = (self.rank_llr, self.rank_x_llr, self.suit_llr)
        return min(g / max(n, 1e-6) for g, n in zip(got, need, strict=True))

    def sure(self, t: GenericThresholds) -> bool:
        return (self.margin(t) >= 1.0
                and self.rank_d <= t.rank_distance and self.suit_d <= t.suit_distance)


def _label(rank: str) -> str:
    """A rank as a read's card gives it (? for no rank)."""
    return rank if rank != NOT_A_RANK else "?"


def shape_vetoed(parts: IndexParts, rank: str) -> bool:
    """The checks of the glyph's shape after the discriminants (read as
    `rank`): a 5 without the stroke at its upper left (FIVE_STEM_MIN), a
    rank cut in parts (RANK_SPILL_MAX), a J under ink of its own columns
    (RANK_CAP_MAX) or whose right edge is no stem (J_NOTCH_MAX). The model
    build applies them to the out-of-fold reads too, so its thresholds are
    those of the reader as it runs."""
    return ((rank == "5" and five_stem(parts.rank_ink) < FIVE_STEM_MIN)
            or parts.rank_spill > RANK_SPILL_MAX
            or (rank == "J" and (parts.rank_cap > RANK_CAP_MAX
                                 or right_notch(parts.rank_ink) > J_NOTCH_MAX)))


def _same(a: IndexParts, b: IndexParts) -> bool:
    """The two indices read alike: the same glyphs, cut alike."""
    return (a.rank_box == b.rank_box and a.suit_box == b.suit_box
            and a.rank_parts == b.rank_parts and a.rank_spill == b.rank_spill
            and a.rank_cap == b.rank_cap
            and np.array_equal(a.rank_red, b.rank_red, equal_nan=True)
            and np.array_equal(a.suit_red, b.suit_red, equal_nan=True)
            and np.array_equal(a.rank_ink, b.rank_ink) and np.array_equal(a.suit_ink, b.suit_ink))


def glyph_colours(red: float, t: GenericThresholds) -> tuple[str, ...]:
    """The colours one glyph's redness allows: ("HD",) red, ("SC",) black,
    () neither clearly, ("SHDC",) for a grey image. An index is of the
    colour both its glyphs allow (ink_colour); the rank's alone already
    rules one colour out, or both, whatever the suit's (rank_refused)."""
    if math.isnan(red):
        return ("SHDC",)
    return ((RED_SUITS,) if red >= t.red_min else ()) + (("SC",) if red <= t.black_max else ())


def ink_colour(parts: IndexParts, t: GenericThresholds) -> str | None:
    """The suits the ink's colour allows ("HD" red, "SC" black, "SHDC" for a
    grey image), or None when rank and suit are neither clearly red nor
    clearly black, or not of one colour."""
    if math.isnan(parts.suit_red) or math.isnan(parts.rank_red):
        return "SHDC"
    suit = glyph_colours(parts.suit_red, t)
    return next((c for c in glyph_colours(parts.rank_red, t) if c in suit), None)


_Read = TypeVar("_Read")


def _glyph_memo(memo: list[tuple[Box, FloatMap, _Read]], box: Box, ink: FloatMap,
                read: Callable[[], _Read]) -> _Read:
    """What `read` gives of this glyph (its box and ink), read once among
    the looks of one corner (a short list: a corner has a few looks)."""
    for b, i, got in memo:
        if b == box and np.array_equal(i, ink):
            return got
    got = read()
    memo.append((box, ink, got))
    return got


# A look after the first is one more chance to read a refused corner, and
# so to misread it: out of fold over every synthetic view of the build
# (bench/generic_views.py), the later looks misread 3 of 585 reads, about 1
# in 200, where the first look misreads about 1 in 700. A later look's read
# must clear every threshold by this margin (Verdict.margin).
LATER_MARGIN = 1.25


@dataclass
class GenericReader:
    """Reads standard indices on any deck; see the module doc."""

    rank: Discriminant  # 13 ranks and NOT_A_RANK
    suit: Discriminant  # 4 suits
    thresholds: GenericThresholds
    meta: dict[str, Any]
    name: str = "generic"
    # Learnt suit features (drivers.camera.convnet), read by `suit` beside
    # the hand-made ones: networks trained alike from different seeds, whose
    # embeddings together vary less from one build to the next than one
    # alone. Empty in a model built without them.
    suit_nets: tuple[ConvNet, ...] = ()

    @functools.cached_property
    def _ranks(self) -> str:
        """The 13 ranks' labels (the rank discriminant's classes but NOT_A_RANK)."""
        return "".join(lab for lab in self.rank.labels if lab != NOT_A_RANK)

    @functools.cached_property
    def _suit_net(self) -> tuple[ConvNet, ...]:
        """The suit networks run as one (drivers.camera.convnet.fused)."""
        return (fused(self.suit_nets),) if self.suit_nets else ()

    def rank_of(self, parts: IndexParts) -> RankVerdict:
        """The rank discriminant's say on the index's rank glyph alone."""
        rv = rank_vector(parts)
        g = self.rank.scores(rv)
        r = self.rank.decide(rv, self._ranks, g)
        over_x = float(g[self.rank.labels.index(r.label)] - g[self.rank.labels.index(NOT_A_RANK)])
        return RankVerdict(r.label if over_x >= 0.0 else NOT_A_RANK, r.llr,
                           self.rank.distance(rv, r.label), over_x, r.runner_up,
                           glyph_colours(parts.rank_red, self.thresholds),
                           r.label == "5" and five_shaped(parts.rank_ink))

    def suit_vector(self, parts: IndexParts) -> npt.NDArray[np.float32]:
        return suit_vector(parts, self._suit_net)

    def verdict(self, parts: IndexParts, rank: RankVerdict | None = None,
                suit: npt.NDArray[np.float32] | None = None, suit_distance: bool = True
                ) -> Verdict:
        """`rank`: the rank_of() this rank glyph, when known; `suit`: its
        suit_vector(), when known; `suit_distance`: False leaves the suit's
        distance unmeasured (NaN: read_parts measures it only for a read
        its ratios would pass)."""
        r = rank or self.rank_of(parts)
        sv = self.suit_vector(parts) if suit is None else suit
        colour = ink_colour(parts, self.thresholds)
        s = self.suit.decide(sv, colour)
        return Verdict(r.rank, s.label, r.llr, s.llr, r.distance,
                       self.suit.distance(sv, s.label) if suit_distance else math.nan,
                       colour, r.over_x, r.second, r.five)

    def rank_refused(self, r: RankVerdict) -> bool:
        """The rank alone refuses the index, whatever the suit (under each
        colour its ink allows): reading the suit is then no use."""
        t = self.thresholds
        if r.rank == NOT_A_RANK or r.distance > t.rank_distance or not r.colours:
            return True
        need = [t.for_colour(c, r.rank, r.second, r.five) for c in r.colours]
        return r.llr < min(n[0] for n in need) or r.over_x < min(n[1] for n in need)

    def read_parts(self, parts: IndexParts, rank: RankVerdict | None = None,
                   need: float = 1.0, suit: npt.NDArray[np.float32] | None = None
                   ) -> CornerRead:
        """`need`: the margin over the thresholds the read must reach
        (Verdict.margin; 1: the thresholds themselves); `rank`, `suit`: as
        for verdict()."""
        t = self.thresholds
        sv = self.suit_vector(parts) if suit is None else suit
        # (the suit's distance, a product with a 401 x 401 matrix, measured
        # last: a look its ratios, colour or shape refuse needs none)
        v = self.verdict(parts, rank, sv, suit_distance=False)
        raw = _label(v.rank) + v.suit
        rank_llr = min(v.rank_llr, v.rank_x_llr)
        llr = (min(rank_llr, v.suit_llr), rank_llr, v.suit_llr)
        margin = v.margin(t)
        if (margin < need or v.colour is None or shape_vetoed(parts, v.rank)
                or not replace(v, suit_d=self.suit.distance(sv, v.suit)).sure(t)):
            return CornerRead(None, 0.0, raw, llr, 1.0)
        conf = float(np.clip(0.5 + 0.25 * (margin - 1.0), 0.5, 1.0))
        return CornerRead(v.rank + v.suit, conf, raw, llr, 1.0)

    def read_corner(self, patch: Image, first_look: bool = False) -> CornerRead:
        """The first of the index's candidates (index_candidates) read sure;
        when none is, the first refusal. `first_look`: read the index as
        first found only (a corner placed from index ink on a card's face:
        see drivers.camera.shoe.read_band)."""
        refused: CornerRead | None = None
        ranks: list[tuple[Box, FloatMap, RankVerdict]] = []  # rank glyphs read so far
        suits: list[tuple[Box, FloatMap, npt.NDArray[np.float32]]] = []  # and suit glyphs

        # The later looks mostly take the suit apart and keep the rank glyph,
        # or join the rank again and keep the suit: a glyph is read once,
        # and when the rank alone refuses the index, its suit is neither
        # taken apart again nor read. (Nor is it at the first refusal, which
        # is the one reported: its card is then the rank's alone. A refusal
        # is only ever reported, and a court picture's shapes, read as
        # corners, are mostly refused by their "rank".)
        def rank_of(parts: IndexParts) -> RankVerdict:
            return _glyph_memo(ranks, parts.rank_box, parts.rank_ink,
                               lambda: self.rank_of(parts))

        def suit_of(parts: IndexParts) -> npt.NDArray[np.float32]:
            return _glyph_memo(suits, parts.suit_box, parts.suit_ink,
                               lambda: self.suit_vector(parts))

        refused_parts: list[IndexParts] = []
        looks = index_candidates(patch, lambda p: self.rank_refused(rank_of(p)))
        # (the looks after the first are not even made: each is made only
        # when asked for)
        for look, parts in enumerate(itertools.islice(looks, 1) if first_look else looks):
            if parts is None or any(_same(parts, q) for q in refused_parts):
                continue  # (a look may cut the glyphs as one before did)
            rank = rank_of(parts)
            if self.rank_refused(rank):
                if refused is None:  # (its ratio as read_parts gives it; no suit read)
                    rank_llr = min(rank.llr, rank.over_x)
                    refused = CornerRead(None, 0.0, _label(rank.rank) + "?",
                                         (rank_llr, rank_llr, 0.0), 1.0)
                    refused_parts.append(parts)
                continue
            read = self.read_parts(parts, rank, 1.0 if look == 0 else LATER_MARGIN,
                                   suit_of(parts))
            if read.card is not None:
                return read
            refused = refused or read
            refused_parts.append(parts)
        return refused or CornerRead(None, 0.0, "??", (0.0, 0.0, 0.0), 0.0)


# --- the model file ------------------------------------------------------


def save_model(reader: GenericReader, path: Path) -> None:
    arrays: dict[str, Any] = {}
    for part in ("rank", "suit"):
        d: Discriminant = getattr(reader, part)
        if d.whitener is None:
            raise ValueError(f"the {part} discriminant has no whitener")
        arrays[f"{part}_weights"] = d.weights
        arrays[f"{part}_bias"] = d.bias
        arrays[f"{part}_mean"] = d.mean
        arrays[f"{part}_whitener"] = d.whitener
    for i, net in enumerate(reader.suit_nets):
        arrays |= net.arrays(f"suit_net{i}")
    meta = dict(reader.meta)
    meta["labels"] = {"rank": reader.rank.labels, "suit": reader.suit.labels}
    meta["thresholds"] = reader.thresholds.__dict__
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        np.savez_compressed(fh, format=np.array(FORMAT), version=np.array(VERSION),
                            meta=np.array(json.dumps(meta, sort_keys=True)), **arrays)


def load_model(path: Path = MODEL_PATH) -> GenericReader:
    with np.load(path, allow_pickle=False) as data:
        if str(data["format"]) != FORMAT or int(data["version"]) != VERSION:
            raise ValueError(f"{path}: not a generic reader model of version {VERSION}")
        meta = json.loads(str(data["meta"]))
        parts = {}
        for part in ("rank", "suit"):
            parts[part] = Discriminant(
                meta["labels"][part], np.asarray(data[f"{part}_weights"], np.float32),
                np.asarray(data[f"{part}_bias"], np.float32),
                np.asarray(data[f"{part}_mean"], np.float32),
                whitener=np.asarray(data[f"{part}_whitener"], np.float32))
        arrays = dict(data)
        nets: list[ConvNet] = []
        while (net := ConvNet.from_arrays(arrays, f"suit_net{len(nets)}")) is not None:
            nets.append(net)
    thresholds = GenericThresholds(**meta["thresholds"])
    kernels.warm()  # (a reader made is a reader about to read: its loops ready first)
    return GenericReader(parts["rank"], parts["suit"], thresholds, meta, suit_nets=tuple(nets))


@functools.lru_cache(maxsize=1)
def generic_model() -> GenericReader:
    """The shipped generic reader (loaded once per process)."""
    return load_model()
