"""Calibrated reading: the index corner against the deck's own corners.

A calibrated deck is known down to the pixel, so nothing has to be cut into
glyphs: the corner patch (drivers.camera.corner) is first aligned with the
deck's corners by normalised correlation of ink maps over small shifts, then
read by linear discriminants (drivers.camera.lda) trained on simulated
camera views of the deck: one over the whole corner (rank, suit and whatever
of the pips or the court picture lies there: 52 classes), one over the rank
region and one over the suit region. A card is read only when the three
agree and each is sure; a glyph touching a pip or the artwork costs nothing
here, and the pips beside the index tell an eight from a nine as well as the
rank does.

Ink maps: darkness against the local paper level in the green channel (red
and black ink both dark) and in the red channel (black ink only), so colour
takes part in every decision.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera import kernels
from drivers.camera.corner import CORNER_H, CORNER_W, MARGIN
from drivers.camera.glyphs import Box, Image
from drivers.camera.lda import Discriminant

Maps = npt.NDArray[np.float32]  # (2, h, w)
COARSE = 2  # canonical pixels per matching pixel
SEARCH = 6  # shifts searched each way when aligning, canonical pixels
_PAPER_K = 17  # closing window for the paper level, canonical pixels
WHOLE_BOX = Box(0, 0, CORNER_W - 8, CORNER_H - 8)  # region of the whole-corner discriminant


def ink_maps(patch: Image) -> Maps:
    """(2, h, w) ink strength 0..1 of a BGR patch at canonical scale, in the
    green and red channels."""
    if patch.ndim == 2:
        patch = cv2.cvtColor(patch, cv2.COLOR_GRAY2BGR)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (_PAPER_K, _PAPER_K))
    # The paper level is a closing. Done on the patch alone, it would fill a
    # dark strip narrower than half its window along the patch's edge (the
    # ramp above the card's top edge, the black outside the frame) with the
    # paper next to it, and that strip would then be read as a bar of solid
    # ink, or not, as the corner moves by a pixel. The patch is first
    # extended with its own edge pixels, so a dark strip at the edge stays
    # dark (no paper: no ink). Half the window and one pixel is enough: the
    # closing at a pixel sees no further, and further out the copies repeat.
    pad = _PAPER_K // 2 + 1
    out = []
    for ch in (1, 2):
        g = np.ascontiguousarray(patch[:, :, ch])
        wide = cv2.copyMakeBorder(g, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
        closed = cv2.morphologyEx(wide, cv2.MORPH_CLOSE, kernel)[pad:-pad, pad:-pad]
        # (the box filter of the bytes, to float: the mean of the float copy
        # to 1 part in 10^7, in a quarter of its time)
        paper = np.asarray(cv2.boxFilter(closed, cv2.CV_32F, (5, 5)), np.float32)
        if kernels.COMPILED:
            out.append(kernels.ink_strength(paper, g, 20.0, 60.0, _nowhere(g.shape)))
            continue
        ink = np.clip((paper - g.astype(np.float32)) / np.maximum(paper, 20.0), 0.0, 1.0)
        ink[paper < 60.0] = 0.0  # the ramp around the card holds no print
        out.append(ink)
    return np.stack(out).astype(np.float32)


@functools.lru_cache(maxsize=4)
def _nowhere(shape: tuple[int, ...]) -> npt.NDArray[np.bool_]:
    """No pixel of a patch of this shape (made once, read-only)."""
    out = np.zeros(shape, bool)
    out.flags.writeable = False
    return out


def unit_rows(rows: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Rows less their mean, scaled to unit length (float32)."""
    out: npt.NDArray[np.float32] = (rows - rows.mean(axis=1, keepdims=True)).astype(
        np.float32, copy=False)
    # (np.linalg.norm's own sum of squares, and the quotient in place: align
    # takes 49 rows of 2,400 values at each corner, and each copy of them
    # cost 0.01 ms)
    norms = np.sqrt(np.add.reduce(out * out, axis=1, keepdims=True))
    out /= np.maximum(norms, 1e-6)
    return out


def coarse(maps: Maps) -> Maps:
    _, h, w = maps.shape
    out: Maps = np.stack([np.asarray(cv2.resize(m, (w // COARSE, h // COARSE),
                                                interpolation=cv2.INTER_AREA), np.float32)
                          for m in maps])
    return out


def region(maps: Maps, box: Box, shift: tuple[int, int], small: Maps | None = None
           ) -> npt.NDArray[np.float32]:
    """Feature vector of one region of a patch's maps (which have the MARGIN
    around the corner) at a shift: the ink maps there at half scale.
    `small`: coarse(maps), when the caller has it: a region on its grid
    (even offset and size) is cut from it: each pixel the mean of the same
    four, as coarse on the cut (equal to a few parts in 10^7: on 42,140
    regions of 215 patches, none differed by more than 1e-6)."""
    x, y = box.x + MARGIN + shift[0], box.y + MARGIN + shift[1]
    if small is not None and not (x | y | box.w | box.h) % COARSE:
        cut = small[:, y // COARSE : (y + box.h) // COARSE, x // COARSE : (x + box.w) // COARSE]
        return np.ascontiguousarray(cut).reshape(-1)
    cut = np.ascontiguousarray(maps[:, y : y + box.h, x : x + box.w])
    return coarse(cut).reshape(-1)


# Aligning a patch with the deck's corners is a search over shifts of
# SEARCH canonical pixels each way, the patch's coarse corner maps against
# every corner template, and it was most of a read's time: 49 shifts of
# 2,400 values against 104 templates, 0.6 ms. It is done in two steps. At
# the FIRST scale (COARSE again), 25 shifts of up to 8 canonical pixels
# against every template place the corner between shifts; at COARSE, the 9
# shifts round that place against the NEAREST templates there find the best,
# 0.2 ms in all. On 11,639 corners of the three decks (3,000 still frames,
# 8 stuck pairs and a deal of 104 cards each) the two steps found the full
# search's shift in all but 28, each refused either way (under min_fit); no
# read changed, and no read's fit or confidence by 0.001.
FIRST = COARSE * COARSE  # canonical pixels per pixel of the first step: coarse maps made coarse
FIRST_REACH = 2  # shifts of the first step each way, FIRST pixels (8 canonical > SEARCH)
NEAREST = 8  # templates the second step matches: those the first step found nearest


@dataclass(frozen=True)
class Templates:
    """A deck's corner templates laid out for align: columns, each less its
    mean, at COARSE and (unit columns) at the FIRST scale, and after them a
    column of ones, whose product with a window is the window's sum (a
    matrix product is faster against a contiguous right-hand side, and the
    sum comes with it at no cost)."""

    fine: npt.NDArray[np.float32]  # (2 * CORNER_H * CORNER_W / COARSE^2, n + 1)
    first: npt.NDArray[np.float32]  # (2 * CORNER_H * CORNER_W / FIRST^2, n + 1)

    @classmethod
    def of(cls, whole: npt.NDArray[np.float32]) -> Templates:
        """`whole`: unit rows of coarse corner maps (the calibration's
        corner templates)."""
        rows = np.asarray(whole, np.float32)
        h, w = CORNER_H // COARSE, CORNER_W // COARSE
        first = unit_rows(coarse(rows.reshape(len(rows) * 2, h, w)).reshape(len(rows), -1))
        fine = rows - rows.mean(axis=1, keepdims=True)
        return cls(*(np.ascontiguousarray(np.vstack([t, np.ones(t.shape[1], np.float32)]).T)
                     for t in (fine, first)))

    @property
    def count(self) -> int:
        return int(self.fine.shape[1]) - 1


def _products(rows: npt.NDArray[np.float32], columns: npt.NDArray[np.float32]
              ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float64]]:
    """The products of the rows with the template columns (the last column
    of ones left out) and the lengths of the rows less their means: the
    correlations are their quotients. The template columns are each less
    its mean, so the rows' own means drop out of the products, and unit
    rows need not be made (0.03 ms a step in numpy's small operations)."""
    products = rows @ columns
    total = products[:, -1].astype(np.float64)
    squares = np.einsum("ij,ij->i", rows, rows).astype(np.float64)
    norms = np.sqrt(np.maximum(squares - total * total / rows.shape[1], 1e-12))
    return products[:, :-1], norms


def _windows(maps: Maps, top: int, left: int, ny: int, nx: int, h: int, w: int
             ) -> npt.NDArray[np.float32]:
    """The ny x nx windows (h x w, every channel) of the maps whose top
    left corners are (top + j, left + i), one row each. (as_strided itself:
    sliding_window_view's checks cost more than the copy.)"""
    if top < 0 or left < 0 or top + ny - 1 + h > maps.shape[1] or left + nx - 1 + w > maps.shape[2]:
        raise ValueError(f"windows {ny}x{nx} of {h}x{w} at ({top}, {left}) run off maps "
                         f"{maps.shape[1]}x{maps.shape[2]}")
    sc, sy, sx = maps.strides
    view = np.lib.stride_tricks.as_strided(maps[:, top:, left:], (ny, nx, maps.shape[0], h, w),
                                           (sy, sx, sc, sy, sx), writeable=False)
    return np.ascontiguousarray(view).reshape(ny * nx, -1)


@dataclass(frozen=True)
class FirstStep:
    """What align's first step found: where the corner lies (canonical
    pixels, between shifts), its correlation there, and the NEAREST
    templates there, nearest first."""

    near: tuple[float, float]
    fit: float
    nearest: npt.NDArray[np.intp]


def first_step(small: Maps, templates: Templates) -> FirstStep:
    """The first step on a patch's coarse maps: the best of its shifts,
    placed between its neighbours by a parabola through the three scores
    each way."""
    maps = coarse(small)  # at FIRST
    h, w = CORNER_H // FIRST, CORNER_W // FIRST
    n, reach = 2 * FIRST_REACH + 1, FIRST_REACH
    off = MARGIN // FIRST
    products, norms = _products(_windows(maps, off - reach, off - reach, n, n, h, w),
                                templates.first)
    scores = (products.max(axis=1) / norms).reshape(n, n)
    ky, kx = divmod(int(np.argmax(scores)), n)
    near = ((kx - reach + _vertex(scores[ky, kx - 1 : kx + 2])) * FIRST,
            (ky - reach + _vertex(scores[ky - 1 : ky + 2, kx])) * FIRST)
    return FirstStep(near, float(scores[ky, kx]),
                     np.argsort(products[ky * n + kx])[::-1][:NEAREST])


def _vertex(three: npt.NDArray[np.float64]) -> float:
    """Offset (-0.5..0.5) of the top of the parabola through three scores
    round a peak; 0 at the edge of the search (fewer than three)."""
    if len(three) < 3:
        return 0.0
    a, b, c = (float(v) for v in three)
    den = a - 2.0 * b + c
    return min(0.5, max(-0.5, 0.5 * (a - c) / den)) if den < 0.0 else 0.0


def second_step(small: Maps, templates: Templates, first: FirstStep
                ) -> tuple[tuple[int, int], float]:
    """The shift (canonical px, at most SEARCH each way) at which the
    patch's coarse maps best match the first step's nearest templates,
    among those of one COARSE pixel round its place, and that correlation."""
    reach = SEARCH // COARSE
    cx, cy = (min(reach, max(-reach, round(v / COARSE))) for v in first.near)
    x0, x1 = max(-reach, cx - 1), min(reach, cx + 1)
    y0, y1 = max(-reach, cy - 1), min(reach, cy + 1)
    off, nx = MARGIN // COARSE, x1 - x0 + 1
    products, norms = _products(_windows(small, off + y0, off + x0, y1 - y0 + 1, nx,
                                         CORNER_H // COARSE, CORNER_W // COARSE),
                                templates.fine[:, np.append(first.nearest, templates.count)])
    best = products.max(axis=1) / norms
    k = int(np.argmax(best))
    return ((x0 + k % nx) * COARSE, (y0 + k // nx) * COARSE), float(best[k])


def align(maps: Maps, templates: Templates) -> tuple[tuple[int, int], float]:
    """Shift (canonical px) at which a patch's corner best matches any of
    the templates, and that correlation: both steps."""
    small = coarse(maps)
    return second_step(small, templates, first_step(small, templates))


SCREEN_FIT = 0.5  # first-step correlation of a screened corner to be read on


@dataclass(frozen=True)
class CornerRead:
    card: str | None  # None when not sure
    confidence: float
    best: str  # the whole-corner discriminant's card, even when not sure (?? unread)
    llr: tuple[float, float, float]  # whole, rank, suit
    fit: float  # correlation with the nearest template where aligned


@dataclass(frozen=True)
class MatchThresholds:
    min_fit: float = 0.5  # is this a corner of this deck at all
    whole_llr: float = 15.0
    part_llr: float = 10.0
    # The rank and the suit regions must each look like the card read (a
    # covered or washed-out glyph does not, whatever the discriminants say).
    min_part_fit: float = 0.7


@dataclass
class CalibratedReader:
    """What a calibration knows of its deck, ready to read corner patches."""

    whole_templates: npt.NDArray[np.float32]  # unit rows, coarse corner maps
    whole: Discriminant  # 52 cards over WHOLE_BOX
    rank: Discriminant  # 13 ranks over rank_box
    suit: Discriminant  # 4 suits over suit_box
    rank_box: Box
    suit_box: Box
    template_labels: list[str]  # the card of each template row
    thresholds: MatchThresholds = MatchThresholds()
    name: str = "calibrated"
    templates: Templates = field(init=False, repr=False)  # whole_templates, for align
    _refs: dict[str, list[npt.NDArray[np.float32]]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.templates = Templates.of(self.whole_templates)
        self._refs = {}

    def part_fit(self, small: Maps, shift: tuple[int, int], card: str) -> float:
        """Correlation of the rank region and of the suit region of a
        patch's coarse maps with those of the card's own corners (the lower
        of the two)."""
        off = MARGIN // COARSE
        sx, sy = shift[0] // COARSE, shift[1] // COARSE
        worst = 1.0
        for (x0, y0, x1, y1), ref in zip(self._part_boxes(), self._part_refs(card), strict=True):
            obs = small[:, off + sy + y0 : off + sy + y1, off + sx + x0 : off + sx + x1]
            score = float((ref @ unit_rows(obs.reshape(1, -1))[0]).max())
            worst = min(worst, score)
        return worst

    def _part_boxes(self) -> list[tuple[int, int, int, int]]:
        """The rank and the suit regions in coarse pixels (x0, y0, x1, y1),
        covering every canonical pixel of the boxes."""
        return [(box.x // COARSE, box.y // COARSE, -(-box.x2 // COARSE), -(-box.y2 // COARSE))
                for box in (self.rank_box, self.suit_box)]

    def _part_refs(self, card: str) -> list[npt.NDArray[np.float32]]:
        """Unit rows of the card's corners over each part region (made once
        a card: a read is checked against one card, and making them took a
        third of the check)."""
        refs = self._refs.get(card)
        if refs is None:
            h, w = CORNER_H // COARSE, CORNER_W // COARSE
            idx = [i for i, c in enumerate(self.template_labels) if c == card]
            tmpl = self.whole_templates[idx].reshape(len(idx), 2, h, w)
            refs = [unit_rows(np.ascontiguousarray(tmpl[:, :, y0:y1, x0:x1]).reshape(len(idx), -1))
                    for x0, y0, x1, y1 in self._part_boxes()]
            self._refs[card] = refs
        return refs

    def read_corner(self, patch: Image, screen: bool = False) -> CornerRead:
        """`screen`: the corner may well hold no index (one placed from
        index ink on the face of a card whose own corner was found: a court
        picture's or the pips' shapes more often than the index of a card
        lying over it). It is read on only when align's first step matches
        it at SCREEN_FIT or more: of the 215 such corners in 12,000 still
        frames, 24 stuck pairs and 3 deals of 104 cards of the three decks,
        the 86 read matched at 0.79 or more there, and 112 of the 129
        refused at less than SCREEN_FIT."""
        maps = ink_maps(patch)
        small = coarse(maps)
        first = first_step(small, self.templates)
        if screen and first.fit < SCREEN_FIT:
            return CornerRead(None, 0.0, "??", (0.0, 0.0, 0.0), first.fit)
        shift, fit = second_step(small, self.templates, first)
        t = self.thresholds
        if fit < t.min_fit:
            # No corner of this deck (a court picture's shapes, read as an
            # index found by its ink): its regions are not read.
            return CornerRead(None, 0.0, "??", (0.0, 0.0, 0.0), fit)
        w = self.whole.decide(region(maps, WHOLE_BOX, shift, small))
        r = self.rank.decide(region(maps, self.rank_box, shift, small))
        s = self.suit.decide(region(maps, self.suit_box, shift, small))
        llr = (w.llr, r.llr, s.llr)
        sure = (w.llr >= t.whole_llr and r.llr >= t.part_llr
                and s.llr >= t.part_llr and w.label == r.label + s.label)
        if sure:
            part_fit = self.part_fit(small, shift, w.label)
            fit = min(fit, part_fit)
            sure = part_fit >= t.min_part_fit
        if not sure:
            return CornerRead(None, 0.0, w.label, llr, fit)
        # 0.5 at the thresholds, 1 at three times them.
        margin = min(w.llr / t.whole_llr, r.llr / t.part_llr, s.llr / t.part_llr)
        conf = float(np.clip(0.5 + 0.25 * (margin - 1.0), 0.5, 1.0))
        return CornerRead(w.label, conf, w.label, llr, fit)
