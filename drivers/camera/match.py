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

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

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
        paper = np.asarray(cv2.blur(closed.astype(np.float32), (5, 5)), np.float32)
        ink = np.clip((paper - g.astype(np.float32)) / np.maximum(paper, 20.0), 0.0, 1.0)
        ink[paper < 60.0] = 0.0  # the ramp around the card holds no print
        out.append(ink)
    return np.stack(out).astype(np.float32)


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


def region(maps: Maps, box: Box, shift: tuple[int, int]) -> npt.NDArray[np.float32]:
    """Feature vector of one region of a patch's maps (which have the MARGIN
    around the corner) at a shift: the ink maps there at half scale."""
    x, y = box.x + MARGIN + shift[0], box.y + MARGIN + shift[1]
    cut = np.ascontiguousarray(maps[:, y : y + box.h, x : x + box.w])
    return coarse(cut).reshape(-1)


def align(maps: Maps, whole: npt.NDArray[np.float32]) -> tuple[tuple[int, int], float]:
    """Shift (canonical px) at which a patch's corner best matches any of the
    template rows `whole` (unit rows of coarse corner maps), and that
    correlation."""
    small = coarse(maps)
    h, w = CORNER_H // COARSE, CORNER_W // COARSE
    off, reach = MARGIN // COARSE, SEARCH // COARSE
    small = small[:, off - reach : off + reach + h, off - reach : off + reach + w]
    win = np.lib.stride_tricks.sliding_window_view(small, (small.shape[0], h, w))[0]
    ny, nx = win.shape[0], win.shape[1]
    scores = unit_rows(np.ascontiguousarray(win).reshape(ny * nx, -1)) @ whole.T
    best = scores.max(axis=1)
    k = int(np.argmax(best))
    return (((k % nx) - reach) * COARSE, ((k // nx) - reach) * COARSE), float(best[k])


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

    def part_fit(self, maps: Maps, shift: tuple[int, int], card: str) -> float:
        """Correlation of the rank region and of the suit region with those
        of the card's own corners (the lower of the two)."""
        h, w = CORNER_H // COARSE, CORNER_W // COARSE
        idx = [i for i, c in enumerate(self.template_labels) if c == card]
        tmpl = self.whole_templates[idx].reshape(len(idx), 2, h, w)
        small = coarse(maps)
        off = MARGIN // COARSE
        sx, sy = shift[0] // COARSE, shift[1] // COARSE
        worst = 1.0
        for box in (self.rank_box, self.suit_box):
            x0, y0 = box.x // COARSE, box.y // COARSE
            x1, y1 = -(-box.x2 // COARSE), -(-box.y2 // COARSE)
            obs = small[:, off + sy + y0 : off + sy + y1, off + sx + x0 : off + sx + x1]
            ref = tmpl[:, :, y0:y1, x0:x1].reshape(len(idx), -1)
            score = float((unit_rows(ref) @ unit_rows(obs.reshape(1, -1))[0]).max())
            worst = min(worst, score)
        return worst

    def read_corner(self, patch: Image) -> CornerRead:
        maps = ink_maps(patch)
        shift, fit = align(maps, self.whole_templates)
        t = self.thresholds
        if fit < t.min_fit:
            # No corner of this deck (a court picture's shapes, read as an
            # index found by its ink): its regions are not read.
            return CornerRead(None, 0.0, "??", (0.0, 0.0, 0.0), fit)
        w = self.whole.decide(region(maps, WHOLE_BOX, shift))
        r = self.rank.decide(region(maps, self.rank_box, shift))
        s = self.suit.decide(region(maps, self.suit_box, shift))
        llr = (w.llr, r.llr, s.llr)
        sure = (w.llr >= t.whole_llr and r.llr >= t.part_llr
                and s.llr >= t.part_llr and w.label == r.label + s.label)
        if sure:
            part_fit = self.part_fit(maps, shift, w.label)
            fit = min(fit, part_fit)
            sure = part_fit >= t.min_part_fit
        if not sure:
            return CornerRead(None, 0.0, w.label, llr, fit)
        # 0.5 at the thresholds, 1 at three times them.
        margin = min(w.llr / t.whole_llr, r.llr / t.part_llr, s.llr / t.part_llr)
        conf = float(np.clip(0.5 + 0.25 * (margin - 1.0), 0.5, 1.0))
        return CornerRead(w.label, conf, w.label, llr, fit)
