"""A procedural card's face: paper, border, indices, and pips, an ace or a court picture."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.deck_art import DeckArt
from calibration.deck_courts import draw_court
from calibration.deck_design import RGB, SS
from calibration.deck_fonts import F32, U8, ink_of
from calibration.deck_paint import paint, resize, rounded_box
from calibration.deck_suits import SUITS

_PIPS: dict[str, list[tuple[float, float]]] = {
    "2": [(0.5, 0), (0.5, 1)],
    "3": [(0.5, 0), (0.5, 0.5), (0.5, 1)],
    "4": [(0, 0), (1, 0), (0, 1), (1, 1)],
    "5": [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    "6": [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    "7": [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    "8": [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    "9": [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1),
          (1, 1)],
    "T": [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3),
          (0.5, 5 / 6), (0, 1), (1, 1)],
}


def _draw_pips(canvas: F32, deck: DeckArt, rank: str, suit: str, color: RGB) -> None:
    d = deck.d
    x0, y0, x1, y1 = deck.pip_field
    aw, ah = x1 - x0, y1 - y0
    aspect = deck.pip_ink[suit].shape[1] / deck.pip_ink[suit].shape[0]
    ph = d.pip_frac * deck.h * (0.6 if d.jumbo_small_pips else 1.0)
    ph = min(ph, ah / 4.3, aw / 3.1 / max(aspect, 0.5))
    pw = ph * aspect
    # the columns a bit in from the field's sides when it is wide
    inset = max(0.0, (aw - pw * 3.6) / 2) * 0.5
    cx0, cx1 = x0 + inset + pw / 2, x1 - inset - pw / 2
    cy0, cy1 = y0 + ph / 2, y1 - ph / 2
    up = deck.pip(suit, ph)
    down = np.ascontiguousarray(up[::-1, ::-1])
    for u, v in _PIPS[rank]:
        cx = cx0 + (cx1 - cx0) * u
        cy = cy0 + (cy1 - cy0) * v
        m = down if v > 0.5 else up
        paint(canvas, m, round(cx - m.shape[1] / 2), round(cy - m.shape[0] / 2), color)


def _draw_ace(canvas: F32, deck: DeckArt, suit: str, color: RGB) -> None:
    d = deck.d
    x0, y0, x1, y1 = deck.pip_field
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    ornate = d.ornate_ace if (suit == "S" or d.ornate_all_aces) else "none"
    big = suit == "S" or d.ornate_all_aces
    frac = d.ace_frac if big else min(d.ace_frac, 0.3 + 0.3 * (d.ace_frac - 0.3))
    if d.jumbo_small_pips and not big:
        frac *= 0.7
    ink = deck.pip_ink[suit]
    aspect = ink.shape[1] / ink.shape[0]
    room = 0.62 if ornate != "none" else 0.92
    ph = min(frac * deck.w / max(aspect, 0.7), (x1 - x0) * room / aspect, (y1 - y0) * room)
    pw = ph * aspect
    m = resize(ink, round(pw), round(ph))
    if ornate == "halo":
        t = max(2, round(ph * 0.05))
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * t + 1, 2 * t + 1))
        pad = np.pad(m, 4 * t)
        ring = np.clip(cv2.dilate(pad, k, iterations=3) - cv2.dilate(pad, k, iterations=2), 0, 1)
        paint(canvas, np.asarray(ring, np.float32), round(cx - pad.shape[1] / 2),
               round(cy - pad.shape[0] / 2), color)
    elif ornate in ("dots", "rays"):
        rad = 0.5 * max(pw, ph) * 1.22
        n = 24 if ornate == "dots" else 32
        size = int(np.ceil(rad * 2.6)) + 4
        orn = np.zeros((size, size), np.uint8)
        c = size / 2
        for i in range(n):
            a = 2 * np.pi * i / n
            if ornate == "dots":
                p = (round((c + rad * np.cos(a)) * 16), round((c + rad * np.sin(a)) * 16))
                cv2.circle(orn, p, int(ph * 0.035 * 16) + 8, 255, -1, cv2.LINE_AA, 4)
            else:
                r2 = rad * (1.2 if i % 2 else 1.1)
                p0 = (round(c + rad * np.cos(a)), round(c + rad * np.sin(a)))
                p1 = (round(c + r2 * np.cos(a)), round(c + r2 * np.sin(a)))
                cv2.line(orn, p0, p1, 255, max(1, int(ph * 0.02)), cv2.LINE_AA)
        paint(canvas, ink_of(orn), round(cx - c), round(cy - c),
               color)
    paint(canvas, m, round(cx - pw / 2), round(cy - ph / 2), color)


def render_card(deck: DeckArt, code: str, index: int) -> U8:
    d = deck.d
    rank, suit = code[0], code[1]
    color = d.colors[SUITS.index(suit)]
    h, w = deck.h, deck.w
    canvas = np.empty((h, w, 3), np.float32)
    canvas[:] = np.asarray(d.paper, np.float32)
    r = d.radius * SS
    if d.border == "margin":
        canvas[:] = np.asarray(d.border_color, np.float32)
        bw = d.border_width * SS
        inner = rounded_box(h, w, bw, bw, w - bw, h - bw, max(r - bw, r * 0.4))
        paint(canvas, inner, 0, 0, d.paper)
    elif d.border in ("line", "frame", "double"):
        bi, bwid = d.border_inset * SS, d.border_width * SS
        ring = rounded_box(h, w, bi, bi, w - bi, h - bi, max(r - bi, 0.0), bwid)
        paint(canvas, ring, 0, 0, d.border_color)
        if d.border == "double":
            b2 = bi + 2 * bwid
            ring = rounded_box(h, w, b2, b2, w - b2, h - b2, max(r - b2, 0.0), bwid)
            paint(canvas, ring, 0, 0, d.border_color)
    rng = np.random.default_rng([d.art_seed, index])
    if rank == "A":
        _draw_ace(canvas, deck, suit, color)
    elif rank in "JQK":
        draw_court(canvas, deck, rank, suit, color, rng)
    else:
        _draw_pips(canvas, deck, rank, suit, color)
    block = deck.index_block(rank, suit)
    mx, my = round(d.margin_x * SS), round(d.margin_y * SS)
    turned = np.ascontiguousarray(block[::-1, ::-1])
    bh, bw_ = block.shape
    paint(canvas, block, mx, my, color)
    paint(canvas, turned, w - mx - bw_, h - my - bh, color)
    if d.four_corners:
        paint(canvas, block, w - mx - bw_, my, color)
        paint(canvas, turned, mx, h - my - bh, color)
    small = np.asarray(cv2.resize(canvas, (d.width, d.height), interpolation=cv2.INTER_AREA),
                       np.float32)
    if d.texture > 0:
        low = rng.normal(0, 1, (d.height // 12 + 2, d.width // 12 + 2)).astype(np.float32)
        low = np.asarray(cv2.resize(low, (d.width, d.height), interpolation=cv2.INTER_CUBIC),
                         np.float32)
        fine = np.asarray(cv2.GaussianBlur(rng.normal(0, 1, (d.height, d.width))
                                           .astype(np.float32), (0, 0), 0.8), np.float32)
        small += (d.texture * (0.6 * low + 0.8 * fine))[:, :, None]
    if d.noise > 0:
        small += rng.normal(0, d.noise, small.shape).astype(np.float32)
    rgb = np.clip(np.round(small), 0, 255).astype(np.uint8)
    alpha = rounded_box(d.height, d.width, 0, 0, d.width, d.height, d.radius)
    out = np.empty((d.height, d.width, 4), np.uint8)
    out[:, :, :3] = rgb[:, :, ::-1]
    out[:, :, 3] = np.round(alpha * 255).astype(np.uint8)
    return out
