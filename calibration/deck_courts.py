"""The court cards' pictures: framed, mirrored art of shapes, robes, faces and crowns."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.deck_art import DeckArt
from calibration.deck_design import RGB, SS, DeckDesign, mix
from calibration.deck_fonts import F32, RENDER, U8, ink_of, pil_font, text_mask
from calibration.deck_paint import paint, stamp


def _court_half(rng: np.random.Generator, w: int, h: int, rank: str, d: DeckDesign,
                bg: RGB) -> U8:
    """The top half of a court picture: a figure of coloured shapes."""
    red, blue, yellow, black = (tuple(int(v) for v in c) for c in d.court_palette)
    skin = (250, 226, 196)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = np.asarray(bg, np.uint8)
    lw = max(1, round(w * 0.012))
    pal = [red, blue, yellow, black]

    def col() -> tuple[int, ...]:
        return pal[int(rng.integers(len(pal)))]

    # background: hatching, dots, or plain
    kind = int(rng.integers(3))
    if kind == 0:
        step = max(4, int(w * rng.uniform(0.04, 0.08)))
        c = col()
        for x in range(-h, w, step):
            cv2.line(img, (x, 0), (x + h, h), c, 1, cv2.LINE_AA)
    elif kind == 1:
        step = max(5, int(w * rng.uniform(0.06, 0.1)))
        c = col()
        for yy in range(step // 2, h, step):
            for xx in range(step // 2, w, step):
                cv2.circle(img, (xx, yy), max(1, step // 6), c, -1, cv2.LINE_AA)
    cx = int(w * rng.uniform(0.4, 0.6))
    hy = int(h * rng.uniform(0.34, 0.44))
    hr = max(3, int(min(w * rng.uniform(0.14, 0.2), h * rng.uniform(0.15, 0.21))))
    # shoulders and robe down to the middle line
    sh_w = int(w * rng.uniform(0.3, 0.48))
    robe = col()
    body = np.array([[cx - hr, hy + hr], [cx + hr, hy + hr], [cx + sh_w, hy + int(hr * 1.8)],
                     [min(w, cx + sh_w + hr), h], [max(0, cx - sh_w - hr), h],
                     [cx - sh_w, hy + int(hr * 1.8)]], np.int32)
    cv2.fillPoly(img, [body], robe, cv2.LINE_AA)
    cv2.polylines(img, [body], True, black, lw, cv2.LINE_AA)
    for _ in range(int(rng.integers(2, 6))):  # stripes and patterns on the robe
        y = int(rng.uniform(min(hy + hr * 2, h - 1), h))
        cv2.line(img, (cx - sh_w, y), (cx + sh_w, y + int(rng.uniform(-hr, hr))), col(),
                 max(1, int(lw * rng.uniform(1, 4))), cv2.LINE_AA)
    for _ in range(int(rng.integers(2, 7))):
        px = int(rng.uniform(cx - sh_w, cx + sh_w))
        py = int(rng.uniform(min(hy + hr * 2, h - 1), h))
        r = max(2, int(w * rng.uniform(0.015, 0.05)))
        if rng.random() < 0.5:
            cv2.circle(img, (px, py), r, col(), -1, cv2.LINE_AA)
        else:
            tri = np.array([[px, py - r], [px + r, py + r], [px - r, py + r]], np.int32)
            cv2.fillPoly(img, [tri], col(), cv2.LINE_AA)
    # a collar
    cv2.ellipse(img, (cx, hy + int(hr * 1.3)), (int(hr * 1.4), int(hr * 0.5)), 0, 0, 180,
                col(), -1, cv2.LINE_AA)
    # hair, head, face
    hair = yellow if rng.random() < 0.5 else black
    cv2.ellipse(img, (cx, hy + hr // 4), (int(hr * 1.25), int(hr * 1.3)), 0, 0, 360, hair, -1,
                cv2.LINE_AA)
    cv2.ellipse(img, (cx, hy), (hr, int(hr * 1.15)), 0, 0, 360, skin, -1, cv2.LINE_AA)
    cv2.ellipse(img, (cx, hy), (hr, int(hr * 1.15)), 0, 0, 360, black, lw, cv2.LINE_AA)
    ex = int(hr * 0.4)
    for sx in (-ex, ex):
        cv2.ellipse(img, (cx + sx, hy - hr // 5), (max(1, hr // 6), max(1, hr // 10)), 0, 0, 360,
                    black, -1, cv2.LINE_AA)
    cv2.line(img, (cx, hy - hr // 8), (cx - hr // 8, hy + hr // 4), black, lw, cv2.LINE_AA)
    cv2.ellipse(img, (cx, hy + hr // 2), (hr // 3, hr // 8), 0, 0, 180, red, lw, cv2.LINE_AA)
    if rank == "K" and rng.random() < 0.7:  # a beard
        cv2.ellipse(img, (cx, hy + int(hr * 0.9)), (int(hr * 0.8), int(hr * 0.6)), 0, 0, 180,
                    hair, -1, cv2.LINE_AA)
    # headwear: crown (K, Q) or hat (J)
    top = hy - int(hr * 1.1)
    if rank in "KQ":
        n = int(rng.integers(3, 6))
        xs = np.linspace(cx - hr * 1.1, cx + hr * 1.1, 2 * n + 1)
        pts = [[int(xs[0]), top]]
        for i, x in enumerate(xs):
            pts.append([int(x), top - (int(hr * (0.9 if rank == "K" else 0.6)) if i % 2 else 0)])
        pts.append([int(xs[-1]), top])
        crown = np.array(pts, np.int32)
        cv2.fillPoly(img, [crown], yellow, cv2.LINE_AA)
        cv2.polylines(img, [crown], True, black, lw, cv2.LINE_AA)
        cv2.rectangle(img, (int(xs[0]), top - hr // 5), (int(xs[-1]), top + hr // 6), col(), -1)
    else:
        cv2.ellipse(img, (cx, top), (int(hr * 1.5), int(hr * 0.5)), 0, 180, 360, col(), -1,
                    cv2.LINE_AA)
        cv2.ellipse(img, (cx, top), (int(hr * 1.5), int(hr * 0.5)), 0, 180, 360, black, lw,
                    cv2.LINE_AA)
    # something held: a sceptre, sword or flower
    side = 1 if rng.random() < 0.5 else -1
    sx0 = cx + side * int(sh_w * rng.uniform(0.5, 0.9))
    cv2.line(img, (sx0, h), (sx0 + side * int(w * 0.05), int(h * rng.uniform(0.05, 0.3))),
             col(), max(1, lw * 2), cv2.LINE_AA)
    cv2.circle(img, (sx0 + side * int(w * 0.05), int(h * 0.12)), max(2, int(w * 0.03)), col(),
               -1, cv2.LINE_AA)
    return img


def draw_court(canvas: F32, deck: DeckArt, rank: str, suit: str, color: RGB,
                rng: np.random.Generator) -> None:
    d = deck.d
    x0, y0, x1, y1 = (round(v) for v in deck.court_field)
    fw, fh = x1 - x0, y1 - y0
    if fw < 8 or fh < 8:
        return
    bg = mix(d.paper, (255.0, 255.0, 255.0), 0.3) if rng.random() < 0.7 else mix(
        d.paper, d.court_palette[2], 0.25)
    half = (fh + 1) // 2
    top = _court_half(rng, fw, half, rank, d, bg)
    art = np.empty((fh, fw, 3), np.uint8)
    art[fh - half :] = top[::-1, ::-1]
    art[:half] = top
    lw = max(1, round(d.court_frame_w * SS))
    black = tuple(int(v) for v in d.court_palette[3])
    if d.court_divider == "line":
        cv2.line(art, (0, fh // 2), (fw, fh // 2), black, lw, cv2.LINE_AA)
    elif d.court_divider == "diagonal":
        cv2.line(art, (0, int(fh * 0.6)), (fw, int(fh * 0.4)), black, lw, cv2.LINE_AA)
    cv2.rectangle(art, (0, 0), (fw - 1, fh - 1), tuple(int(v) for v in d.court_frame),
                  lw * 2 - 1)
    sub = canvas[y0:y1, x0:x1]
    sub[:] = art.astype(np.float32)
    # a small suit and/or letter inside the frame, by the index's corner
    s = min(fw, fh) * 0.11
    pad = lw * 2 + s * 0.25
    x = pad
    if d.court_letter:
        font = pil_font(str(d.font), RENDER)
        letter = ink_of(text_mask(font, deck.rank_text[rank]))
        lw_ = letter.shape[1] / letter.shape[0] * s
        blk = np.zeros((int(s) + 2, int(lw_) + 2), np.float32)
        stamp(blk, letter, 0, 0, lw_, s)
        paint(sub, blk, int(x), int(pad), color)
        paint(sub, blk[::-1, ::-1].copy(), int(fw - x - blk.shape[1]),
               int(fh - pad - blk.shape[0]), color)
        x += lw_ + s * 0.2
    if d.court_suit:
        m = deck.pip(suit, s)
        paint(sub, m, int(x), int(pad), color)
        paint(sub, m[::-1, ::-1].copy(), int(fw - x - m.shape[1]), int(fh - pad - m.shape[0]),
               color)
