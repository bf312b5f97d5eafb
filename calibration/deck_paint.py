"""Painting on a card's float canvas: ink resized, stamped and laid on in a colour."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.deck_design import RGB
from calibration.deck_fonts import F32


def resize(ink: F32, w: int, h: int) -> F32:
    w, h = max(1, w), max(1, h)
    interp = cv2.INTER_AREA if w < ink.shape[1] or h < ink.shape[0] else cv2.INTER_LINEAR
    out: F32 = np.asarray(cv2.resize(ink, (w, h), interpolation=interp), np.float32)
    return out


def paint(canvas: F32, mask: F32, x0: int, y0: int, color: RGB) -> None:
    """canvas = canvas * (1 - mask) + color * mask, mask's top-left at (x0, y0)."""
    hh, ww = canvas.shape[:2]
    h, w = mask.shape
    xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + w, ww), min(y0 + h, hh)
    if xa >= xb or ya >= yb:
        return
    m = mask[ya - y0 : yb - y0, xa - x0 : xb - x0, None]
    sub = canvas[ya:yb, xa:xb]
    sub *= 1 - m
    sub += m * np.asarray(color, np.float32)


def stamp(block: F32, ink: F32, x: float, y: float, w: float, h: float) -> None:
    """Max-combine ink, resized to w x h, at (x, y) of block (block pixels)."""
    m = resize(ink, round(w), round(h))
    x0, y0 = round(x), round(y)
    hh, ww = block.shape
    xa, ya = max(x0, 0), max(y0, 0)
    xb, yb = min(x0 + m.shape[1], ww), min(y0 + m.shape[0], hh)
    if xa < xb and ya < yb:
        np.maximum(block[ya:yb, xa:xb], m[ya - y0 : yb - y0, xa - x0 : xb - x0],
                   out=block[ya:yb, xa:xb])


def rounded_box(h: int, w: int, x0: float, y0: float, x1: float, y1: float, r: float,
                 stroke: float = 0.0) -> F32:
    """Coverage (0..1) of a rounded box (pixel-edge coordinates), or of a
    stroke that wide along its inside edge when stroke > 0."""
    ys = np.arange(h, dtype=np.float32)[:, None] + 0.5
    xs = np.arange(w, dtype=np.float32)[None, :] + 0.5
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    r = max(0.0, min(r, (x1 - x0) / 2, (y1 - y0) / 2))
    qx = np.abs(xs - cx) - ((x1 - x0) / 2 - r)
    qy = np.abs(ys - cy) - ((y1 - y0) / 2 - r)
    outside = np.sqrt(np.maximum(qx, 0) ** 2 + np.maximum(qy, 0) ** 2)
    d = outside + np.minimum(np.maximum(qx, qy), 0) - r  # < 0 inside
    if stroke > 0:
        d = np.abs(d + stroke / 2) - stroke / 2
    out: F32 = np.clip(0.5 - d, 0, 1).astype(np.float32)
    return out
