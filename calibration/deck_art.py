"""A deck design made ready to draw: its index glyphs, suits and layout, in drawing pixels."""

from __future__ import annotations

import cv2
import numpy as np
from PIL import ImageFont

from calibration.deck_design import FRENCH, RANKS, SS, DeckDesign
from calibration.deck_fonts import F32, RENDER, ink_of, pil_font, text_mask
from calibration.deck_paint import resize, stamp
from calibration.deck_suits import SUIT_CHARS, SUIT_OUTLINE_CHARS, SUITS, outline_of, suit_shape


def stroke_width(ink: F32) -> float:
    """A glyph's stroke width, pixels: twice its area over its outline's
    length (exact for a long thin stroke)."""
    mask = (ink > 0.5).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    outline = sum(cv2.arcLength(c, True) for c in contours)
    return 2.0 * float(mask.sum()) / max(outline, 1.0)


def reweighted(glyphs: dict[str, F32], stroke: float) -> dict[str, F32]:
    """The glyphs with their strokes `stroke` times as wide (the K's stroke
    the measure), grown or thinned on both sides, each glyph on a canvas
    grown to hold it."""
    if abs(stroke - 1.0) < 0.05:
        return glyphs
    side = 0.5 * (stroke - 1.0) * stroke_width(glyphs["K"])
    r = round(abs(side))
    if r < 1:
        return glyphs
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    out: dict[str, F32] = {}
    for rank, ink in glyphs.items():
        padded = cv2.copyMakeBorder(ink, r, r, r, r, cv2.BORDER_CONSTANT, value=0.0)
        grown = cv2.dilate(padded, kernel) if side > 0 else cv2.erode(padded, kernel)
        ys, xs = np.nonzero(grown > 0.02)
        cut = grown[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1] if len(xs) else ink
        out[rank] = np.ascontiguousarray(cut, np.float32)
    return out


class DeckArt:
    """A design's glyphs and geometry, in drawing pixels (SS times final)."""

    def __init__(self, d: DeckDesign) -> None:
        self.d = d
        self.w, self.h = d.width * SS, d.height * SS
        font = pil_font(str(d.font), RENDER)
        self.rank_text = {r: r for r in RANKS}
        self.rank_text["T"] = "10"
        if d.french:
            self.rank_text.update(FRENCH)
            self.rank_text["A"] = d.french_ace
        raw = {r: ink_of(text_mask(font, t))
               for r, t in self.rank_text.items() if r != "T"}
        raw["T"] = self._ten(font, raw)
        raw = reweighted(raw, d.stroke)
        # one scale for every rank: the K (or R) is rank_h high
        ref = raw["K"].shape[0]
        scale = d.rank_h * SS / ref
        self.rank_ink = raw
        self.rank_size = {r: (m.shape[1] * scale * d.glyph_width, m.shape[0] * scale)
                          for r, m in raw.items()}
        widest = max(w for r, (w, _) in self.rank_size.items() if r != "T")
        tw, th = self.rank_size["T"]
        if tw > d.ten_squeeze * widest:
            self.rank_size["T"] = (d.ten_squeeze * widest, th)
        self.suit_ink = self._suits()
        self.pip_ink = {s: self._outlined(s, self.suit_ink[s], 0.07) for s in SUITS}
        self.idx_suit_ink = {s: self._outlined(s, self.suit_ink[s], 0.11) for s in SUITS}
        self._layout()

    def _ten(self, font: ImageFont.FreeTypeFont, raw: dict[str, F32]) -> F32:
        d = self.d
        if d.ten == "font":
            return ink_of(text_mask(font, "10"))
        one = ink_of(text_mask(font, "1"))
        zero = ink_of(text_mask(font, "0"))
        h = max(one.shape[0], zero.shape[0])
        gap = round(h * (d.ten_gap if d.ten == "tight" else d.ten_gap + 0.1))
        w = one.shape[1] + zero.shape[1] + gap
        out = np.zeros((h, max(w, zero.shape[1] + 1)), np.float32)
        out[h - one.shape[0] :, : one.shape[1]] = one
        x0 = max(0, one.shape[1] + gap)
        sub = out[h - zero.shape[0] :, x0 : x0 + zero.shape[1]]
        np.maximum(sub, zero[:, : sub.shape[1]], out=sub)
        return out

    def _suits(self) -> dict[str, F32]:
        d = self.d
        if d.suit_source != "drawn":
            font = pil_font(d.suit_source, RENDER)
            out = {}
            for s in SUITS:
                outlined = d.outline == "all" or (d.outline == "red" and s in "HD")
                ch = SUIT_OUTLINE_CHARS[s] if outlined else SUIT_CHARS[s]
                out[s] = ink_of(text_mask(font, ch))
            return out
        return {s: suit_shape(s, d.suit_style) for s in SUITS}

    def _outlined(self, s: str, ink: F32, frac: float) -> F32:
        d = self.d
        if d.suit_source == "drawn" and (d.outline == "all" or (d.outline == "red" and s in "HD")):
            return outline_of(ink, frac)
        return ink

    def _layout(self) -> None:
        d = self.d
        rh = d.rank_h * SS
        for _ in range(3):  # the index shrunk when it would leave no room
            sh = rh * d.suit_ratio
            self.suit_size = {s: (m.shape[1] / m.shape[0] * sh, sh)
                              for s, m in self.suit_ink.items()}
            gap = rh * d.index_gap
            rank_w = max(w for w, _ in self.rank_size.values())
            rank_h = max(h for _, h in self.rank_size.values())
            suit_w = max(w for w, _ in self.suit_size.values())
            if d.beside:
                self.block = (rank_w + gap + suit_w, max(rank_h, sh))
            else:
                self.block = (max(rank_w, suit_w), rank_h + gap + sh)
            lim_w = (0.42 if d.beside else 0.25) * self.w
            lim_h = (0.2 if d.beside else 0.34) * self.h
            f = min(1.0, lim_w / self.block[0], lim_h / self.block[1])
            if f > 0.995:
                break
            rh *= f
            self.rank_size = {r: (w * f, h * f) for r, (w, h) in self.rank_size.items()}
        self.gap = gap
        self.rank_w = rank_w
        self.rank_top = max(h for r, (_, h) in self.rank_size.items() if r != "Q")
        mx, my = d.margin_x * SS, d.margin_y * SS
        bw, bh = self.block
        # what lies inside the border, and the two places for pips and pictures:
        # beside the index columns, or between the index rows
        inner = 0.0
        if d.border in ("line", "double", "frame"):
            inner = (d.border_inset + d.border_width * (3 if d.border == "double" else 1)) * SS
        elif d.border == "margin":
            inner = d.border_width * SS
        sep = 0.035 * self.w
        self.pip_field = self._field(mx + bw + sep, my + bh + sep,
                                     max(d.pip_pad * self.h, inner + 0.03 * self.w),
                                     max(0.06 * self.w, inner + 0.03 * self.w))
        # a court's index is J, Q or K: the picture need only clear those (a
        # wide 10 in the same column leaves it room), unless the index is in
        # all four corners
        court_right = bw
        if not d.beside and not d.four_corners:
            widths = [self.rank_size[r][0] for r in "JQK"] + [suit_w]
            court_right = max(w if d.left_align else (bw + w) / 2 for w in widths)
        self.court_field = self._field(mx + court_right + sep, my + bh + sep,
                                       max(d.court_pad * self.h, inner + 0.025 * self.w),
                                       max(0.04 * self.w, inner + 0.025 * self.w))

    def _field(self, x_beside: float, y_below: float, pad_y: float,
               pad_x: float) -> tuple[float, float, float, float]:
        beside = (x_beside, pad_y, self.w - x_beside, self.h - pad_y)
        below = (pad_x, y_below, self.w - pad_x, self.h - y_below)
        if not self.d.beside:
            return beside
        if self.d.beside and below[3] - below[1] >= 0.4 * self.h:
            return below

        def area(b: tuple[float, float, float, float]) -> float:
            return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])

        return beside if area(beside) >= area(below) else below

    # -- parts

    def index_block(self, rank: str, suit: str) -> F32:
        d = self.d
        bw, bh = self.block
        block = np.zeros((int(np.ceil(bh)) + 2, int(np.ceil(bw)) + 2), np.float32)
        rw, rh = self.rank_size[rank]
        sw, sh = self.suit_size[suit]
        if d.beside:
            rx = 0.0 if d.left_align else (self.rank_w - rw) / 2
            stamp(block, self.rank_ink[rank], rx, 0, rw, rh)
            top_rank = self.rank_size["K"][1]
            sy = max(0.0, (top_rank - sh) / 2) if not d.left_align else 0.0
            stamp(block, self.idx_suit_ink[suit], self.rank_w + self.gap, sy, sw, sh)
        else:
            col = bw
            rx = 0.0 if d.left_align else (col - rw) / 2
            sx = 0.0 if d.left_align else (col - sw) / 2
            stamp(block, self.rank_ink[rank], rx, 0, rw, rh)
            # the suit at one height for every rank (lower under a Q whose tail hangs)
            top = max(self.rank_top, rh)
            stamp(block, self.idx_suit_ink[suit], sx, top + self.gap, sw, sh)
        return block

    def pip(self, suit: str, h: float) -> F32:
        m = self.pip_ink[suit]
        return resize(m, round(m.shape[1] / m.shape[0] * h), round(h))
