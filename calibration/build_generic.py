"""Build the generic reader's model from fonts: `python -m calibration.build_generic`.

Development time only (needs Pillow, a dev dependency, PyTorch, the `build`
extra, for the suit network, and the Debian font packages below); the
run-time reader (drivers.camera.generic) loads the file this writes,
`drivers/camera/data/generic.npz`, with numpy alone.

    apt-get install fonts-dejavu-core fonts-dejavu-extra fonts-liberation fonts-liberation2 \\
        fonts-freefont-ttf fonts-urw-base35 fonts-croscore fonts-crosextra-carlito \\
        fonts-crosextra-caladea fonts-open-sans fonts-roboto-unhinted fonts-lato \\
        fonts-linuxlibertine fonts-ebgaramond fonts-sil-gentium fonts-sil-gentium-basic \\
        fonts-stix fonts-cantarell fonts-karla fonts-league-spartan fonts-bebas-neue \\
        fonts-roboto-slab fonts-quattrocento fonts-adf-accanthis fonts-adf-baskervald \\
        fonts-adf-berenis fonts-adf-gillius fonts-adf-libris fonts-adf-romande \\
        fonts-adf-switzera fonts-adf-universalis fonts-adf-verana \\
        fonts-allerta fonts-arkpandora fonts-averia-sans-gwf fonts-averia-serif-gwf \\
        fonts-b612 fonts-beteckna fonts-cabin fonts-cardo fonts-clear-sans fonts-cmu \\
        fonts-comfortaa fonts-comic-neue fonts-dosis fonts-go fonts-inter fonts-junicode \\
        fonts-jura fonts-manrope fonts-mplus fonts-national-park fonts-ocr-b \\
        fonts-oldstandard fonts-opendin fonts-oxygen fonts-paratype fonts-play \\
        fonts-quicksand fonts-roadgeek fonts-routed-gothic fonts-sil-andika fonts-sil-charis \\
        fonts-sil-gentiumplus fonts-sora fonts-tiresias fonts-tuffy fonts-yrsa-rasa
    .venv/bin/pip install -e '.[dev,build]'
    .venv/bin/python -m calibration.build_generic

What it does, seeded (the same fonts give the same file):

1. Every upright font under /usr/share/fonts that has the glyphs A K Q J
   0-9 in lining figures (no old-style digits, italics, symbol, maths,
   monospaced or hairline faces).
2. Synthetic cards: the rank (A 2..10 J Q K; a ten as two glyphs, sometimes
   tight) in a font at a random height, width (condensed to wide) and place
   in the corner, the suit under it (drawn as a shape, or the font's own
   U+2660-2666 symbol where it has one), red or black ink, and what a real
   card puts near its index: big pips, the frame and colours of a court
   picture, a printed border. Also glyphs that are no rank (other letters and
   digits, e.g. the French 1 R D V): the reader must learn to refuse them.
3. Each card goes through the simulated shoe camera's conditions
   (sim.camera.optics: turn, perspective, scale, exposure, uneven light,
   glare, defocus, motion blur, noise, JPEG), the corner finder and the
   index segmentation of the run-time reader; what the reader sees is what
   the discriminants are fitted on (views the segmentation cut wrongly are
   left out of training). The suit discriminant reads, beside the
   hand-made features, the embedding of a small convolutional network
   (calibration.convnet_train) trained on the same glyphs first.
4. Cross-validation by font family (5 folds: a family's fonts are held out
   together): the thresholds (log-likelihood ratio, distance to the class)
   are set on the reads of the held-out families, for red and for black ink
   apart: those that keep the most right reads with at most 1 misread in
   10,000 accepted, times a margin; then, the same way, a lower ratio over
   the runner-up rank for each rank read whose own out-of-fold errors allow
   it, and for each pair of rank read and runner-up rank (never under the
   median ratio of the fonts' rank confusions). The ratio over "not a rank"
   is chosen with these, from a grid, for the most right reads. Each fold
   trains its own suit network: the held-out families are new to it.
   The shipped network and discriminants are then fitted on every font.

None of the test decks (tests/data/decks) nor the simulator's house deck is
used: their fonts and suit shapes are never rendered here.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.convnet import ConvNet
from drivers.camera.corner import MARGIN, corner_patch, shoe_corners
from drivers.camera.generic import (
    MODEL_PATH,
    NOT_A_RANK,
    GenericReader,
    GenericThresholds,
    IndexParts,
    Verdict,
    index_parts,
    rank_vector,
    save_model,
    shape_vetoed,
    suit_image,
    suit_vector,
)
from drivers.camera.glyphs import Image
from drivers.camera.lda import Discriminant
from sim.camera.optics import OpticsRange, card_corners, expose, place

FONT_DIRS = (Path("/usr/share/fonts"),)
RANKS = "A23456789TJQK"
SUITS = "SHDC"
RANK_TEXT = {r: ("10" if r == "T" else r) for r in RANKS}
# Index glyphs of other decks that are no standard rank: the French 1 R D V,
# the German and Dutch B D H (Bube, Dame; Boer, Heer, Vrouw), tarot's C and
# P, and a few more letters. Letters no deck prints in an index and that
# look like a rank (S and 5, Z and 2, G and 6) are left out.
NOT_RANKS = ("1", "R", "D", "V", "1", "R", "D", "V", "B", "H", "C", "P", "O", "0", "E", "F",
             "L", "M", "N", "U", "W", "X", "Y")
SUIT_CHARS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
_EXCLUDE = re.compile(
    r"(?i)(ital|obl|bdita|math|symbol|d050000l|z003|integrals|sizefive|size[1-5]|nonunicode"
    r"|hairline|thin|extralight|^gen(bk)?basb?i$|-i$|_r?b?z?i$|condit|mono|_k$)")
# By the names a font gives itself, for files whose names do not say it:
# slanted, outlined or inverted faces, monospaced and coding faces, and
# display faces whose letters are not a text face's (Ubuntu Title draws
# lower-case letters only, Engadget and Rampart One are cut and shadowed).
_EXCLUDE_NAME = re.compile(
    r"(?i)(italic|oblique|outline|inverted|mono|\bcode\b|typewriter|ubuntu-title|engadget"
    r"|rampart)")
_EXT_PREF = {".otf": 0, ".ttf": 1, ".t1": 2, ".pfb": 3}
# Fonts whose suit symbols are not the suits they are coded as (FreeSerif
# Bold draws U+2663, the club, as a spade): their ranks are used, their
# suit symbols not.
_WRONG_SUITS = {"FreeSerifBold"}
S = 2  # the synthetic card is drawn at twice the canonical scale (200 x 280)
FACE_W, FACE_H = 200 * S, 280 * S
RAMP = (48, 46, 44)
RENDER_SIZE = 160  # glyphs are rendered this large, then shrunk


# --- fonts ---------------------------------------------------------------


@dataclass(frozen=True)
class Font:
    path: Path
    family: str
    style: str
    has_suits: bool


def _mask(font: Any, text: str) -> npt.NDArray[np.uint8]:
    m = font.getmask(text)
    w, h = m.size
    if w * h == 0:
        return np.zeros((0, 0), np.uint8)
    return np.asarray(m, np.uint8).reshape(h, w)


def _has(font: Any, ch: str, notdef: npt.NDArray[np.uint8]) -> bool:
    a = _mask(font, ch)
    if a.size == 0 or int(a.sum()) == 0:
        return False
    return not (a.shape == notdef.shape and bool((a == notdef).all()))


def _has_suits(path: Path, notdef: npt.NDArray[np.uint8]) -> bool:
    """The four suit symbols, each its own shape: no two alike (a spade and
    a club correlate at about 0.8-0.87). Some fonts draw every missing glyph
    as one box that is not their .notdef, and one draws its club as a spade
    at some sizes."""
    from PIL import ImageFont

    if path.stem in _WRONG_SUITS:
        return False
    font = ImageFont.truetype(str(path), RENDER_SIZE)
    if not all(_has(font, c, notdef) for c in SUIT_CHARS.values()):
        return False
    shapes = [_unit_shape(_crop(_mask(font, c).astype(np.float32) / 255.0))
              for c in SUIT_CHARS.values()]
    return all(float(shapes[i] @ shapes[j]) < 0.95
               for i in range(len(shapes)) for j in range(i + 1, len(shapes)))


def _unit_shape(ink: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    v = np.asarray(cv2.resize(ink, (24, 24), interpolation=cv2.INTER_AREA), np.float32).ravel()
    v = v - v.mean()
    out: npt.NDArray[np.float32] = v / max(float(np.linalg.norm(v)), 1e-6)
    return out


def _lining_figures(font: Any) -> bool:
    """Digits all of one height, as in a card index (old-style figures, whose
    3 4 5 7 9 hang below the line, make a 9 look like a J)."""
    heights: list[float] = []
    for c in "0123456789":
        _, top, _, bottom = font.getbbox(c)
        heights.append(float(bottom - top))
    return max(heights) <= 1.12 * min(heights)


def find_fonts() -> list[Font]:
    """Upright text fonts with every rank glyph and lining figures, one file
    per font (the URW fonts come as .otf, .t1 and .pfb), sorted."""
    from PIL import ImageFont

    by_stem: dict[str, Path] = {}
    for root in FONT_DIRS:
        for p in sorted(root.rglob("*")):
            if p.suffix.lower() not in _EXT_PREF or _EXCLUDE.search(p.stem):
                continue
            old = by_stem.get(p.stem)
            if old is None or _EXT_PREF[p.suffix.lower()] < _EXT_PREF[old.suffix.lower()]:
                by_stem[p.stem] = p
    out: list[Font] = []
    for stem in sorted(by_stem):
        path = by_stem[stem]
        try:
            font = ImageFont.truetype(str(path), 64)
        except OSError:
            continue
        notdef = _mask(font, "\ue000")
        if not all(_has(font, c, notdef) for c in "AKQJ0123456789BCDEFGHLMNOPRSUVWXYZ"):
            continue
        if not _lining_figures(font):
            continue
        family, style = font.getname()
        if _EXCLUDE_NAME.search(f"{family} {style}"):
            continue
        out.append(Font(path, str(family), str(style), _has_suits(path, notdef)))
    return out


FOLDS = 5


def family_folds(fonts: list[Font]) -> dict[str, int]:
    """Cross-validation folds by font family (sorted by name, dealt in
    turn): a family's fonts are held out together, so every validation
    sees letter shapes never trained on."""
    families = sorted({f.family for f in fonts})
    return {fam: i % FOLDS for i, fam in enumerate(families)}


class GlyphCache:
    """Glyphs rendered large once (ink 0..1, cropped to the ink)."""

    def __init__(self) -> None:
        self._fonts: dict[Path, Any] = {}
        self._glyphs: dict[tuple[Path, str], npt.NDArray[np.float32]] = {}

    def glyph(self, font: Font, text: str) -> npt.NDArray[np.float32]:
        key = (font.path, text)
        got = self._glyphs.get(key)
        if got is None:
            from PIL import ImageFont

            f = self._fonts.get(font.path)
            if f is None:
                f = ImageFont.truetype(str(font.path), RENDER_SIZE)
                self._fonts[font.path] = f
            got = _crop(_mask(f, text).astype(np.float32) / 255.0)
            self._glyphs[key] = got
        return got


def _crop(ink: npt.NDArray[np.float32], level: float = 0.3) -> npt.NDArray[np.float32]:
    ys, xs = np.nonzero(ink > level)
    if len(xs) == 0:
        return ink
    return np.ascontiguousarray(ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


# --- suit shapes drawn (not from a font) -----------------------------------


def drawn_suit(suit: str, rng: np.random.Generator) -> npt.NDArray[np.float32]:
    """A suit symbol as shapes, with random proportions (decks differ)."""
    n = 200
    img = np.zeros((n, n), np.uint8)
    c = n / 2

    def circle(x: float, y: float, r: float) -> None:
        cv2.circle(img, (round(x), round(y)), round(r), 255, -1, cv2.LINE_AA)

    def poly(pts: list[tuple[float, float]]) -> None:
        cv2.fillPoly(img, [np.array([[round(x), round(y)] for x, y in pts], np.int32)], 255,
                     cv2.LINE_AA)

    if suit in "HS":
        r = rng.uniform(0.2, 0.27) * n
        dx = r * rng.uniform(0.8, 1.0)
        ly = c - rng.uniform(0.12, 0.22) * n
        tip = c + rng.uniform(0.32, 0.45) * n
        for sx in (-1, 1):
            circle(c + sx * dx, ly, r)
        # Sides tangent-ish to the lobes, down to the point.
        poly([(c - dx - r * 0.97, ly + r * 0.25), (c + dx + r * 0.97, ly + r * 0.25), (c, tip)])
        poly([(c - dx, ly), (c + dx, ly), (c, tip)])
        if suit == "S":
            img[:] = np.flipud(img)
            top = float(np.nonzero(img.max(axis=1))[0].max())
            base = top + rng.uniform(0.12, 0.3) * n
            half = rng.uniform(0.04, 0.16) * n
            poly([(c - 0.03 * n, top - 0.15 * n), (c + 0.03 * n, top - 0.15 * n),
                  (c + half, base), (c - half, base)])
    elif suit == "D":
        hw = rng.uniform(0.26, 0.4) * n
        hh = rng.uniform(0.42, 0.48) * n
        bow = rng.uniform(0.0, 0.08) * n  # concave sides on some decks
        pts = []
        for ang in np.linspace(0, 2 * np.pi, 41)[:-1]:
            x, y = np.sin(ang), -np.cos(ang)
            k = abs(x) + abs(y)
            px, py = x / k, y / k  # a rhombus
            inward = bow * 4 * abs(px) * abs(py)
            pts.append((c + px * (hw - inward), c + py * (hh - inward)))
        poly(pts)
    else:
        r = rng.uniform(0.16, 0.22) * n
        spread = rng.uniform(0.95, 1.25) * r
        circle(c, c - rng.uniform(0.2, 0.27) * n, r)
        for sx in (-1, 1):
            circle(c + sx * spread, c + rng.uniform(0.0, 0.06) * n, r)
        poly([(c, c - 0.15 * n), (c - 0.6 * r, c + 0.05 * n), (c + 0.6 * r, c + 0.05 * n)])
        half = rng.uniform(0.07, 0.15) * n
        poly([(c - 0.025 * n, c), (c + 0.025 * n, c), (c + half, c + rng.uniform(0.38, 0.46) * n),
              (c - half, c + rng.uniform(0.38, 0.46) * n)])
    return _crop(img.astype(np.float32) / 255.0)


# --- synthetic cards -----------------------------------------------------


@dataclass(frozen=True)
class Layout:
    rank_box: tuple[float, float, float, float]  # canonical x, y, w, h
    suit_box: tuple[float, float, float, float]


def _blank(rng: np.random.Generator) -> Image:
    face = np.zeros((FACE_H, FACE_W, 4), np.uint8)
    paper = rng.uniform(236, 255, 3)
    paper[0] -= rng.uniform(0, 12)  # a little warm, sometimes
    face[:, :, :3] = paper.astype(np.uint8)
    radius = int(rng.uniform(5, 13) * S)
    alpha = np.zeros((FACE_H, FACE_W), np.uint8)
    cv2.rectangle(alpha, (radius, 0), (FACE_W - 1 - radius, FACE_H - 1), 255, -1)
    cv2.rectangle(alpha, (0, radius), (FACE_W - 1, FACE_H - 1 - radius), 255, -1)
    for cx, cy in ((radius, radius), (FACE_W - 1 - radius, radius),
                   (radius, FACE_H - 1 - radius), (FACE_W - 1 - radius, FACE_H - 1 - radius)):
        cv2.circle(alpha, (cx, cy), radius, 255, -1, cv2.LINE_AA)
    face[:, :, 3] = alpha
    if rng.random() < 0.25:
        inset = int(rng.uniform(1.5, 4) * S)
        grey = int(rng.uniform(120, 200))
        cv2.rectangle(face, (inset, inset), (FACE_W - 1 - inset, FACE_H - 1 - inset),
                      (grey, grey, grey, 255), 1, cv2.LINE_AA)
    return face


def _ink(rng: np.random.Generator, red: bool) -> tuple[float, float, float]:
    if red:
        return (float(rng.uniform(0, 70)), float(rng.uniform(0, 60)), float(rng.uniform(150, 235)))
    k = float(rng.uniform(0, 55))
    return (k + float(rng.uniform(0, 10)), k, k)


def _stamp(face: Image, ink: npt.NDArray[np.float32], x: float, y: float, w: float, h: float,
           colour: tuple[float, float, float]) -> tuple[float, float, float, float]:
    """Draw an ink map into the face at canonical box (x, y, w, h); returns
    the box actually drawn (canonical)."""
    pw, ph = max(2, round(w * S)), max(2, round(h * S))
    px, py = round(x * S), round(y * S)
    pw = min(pw, FACE_W - px)
    ph = min(ph, FACE_H - py)
    if pw < 2 or ph < 2 or px < 0 or py < 0:
        return (x, y, 0.0, 0.0)
    a = np.asarray(cv2.resize(ink, (pw, ph), interpolation=cv2.INTER_AREA), np.float32)[:, :, None]
    roi = face[py : py + ph, px : px + pw, :3].astype(np.float32)
    face[py : py + ph, px : px + pw, :3] = (roi * (1 - a) + np.array(colour) * a).astype(np.uint8)
    return (px / S, py / S, pw / S, ph / S)


def _rank_ink(font: Font, text: str, cache: GlyphCache, rng: np.random.Generator
              ) -> npt.NDArray[np.float32]:
    """The rank line as one ink map; two glyphs (a ten) are set with a random
    gap, from touching to loose."""
    if len(text) == 1:
        return cache.glyph(font, text)
    if rng.random() < 0.3:
        return cache.glyph(font, text)  # the font's own spacing
    parts = [cache.glyph(font, ch) for ch in text]
    h = max(p.shape[0] for p in parts)
    gap = round(h * float(rng.uniform(-0.02, 0.14)))
    width = sum(p.shape[1] for p in parts) + gap * (len(parts) - 1)
    out = np.zeros((h, max(width, 1)), np.float32)
    x = 0
    for p in parts:
        y = h - p.shape[0]  # digits stand on one baseline
        w = min(p.shape[1], out.shape[1] - x)
        out[y:, x : x + w] = np.maximum(out[y:, x : x + w], p[:, :w])
        x += p.shape[1] + gap
    return _crop(out)


def synthetic_card(rank_text: str, suit: str, font: Font, suit_font: Font | None,
                   cache: GlyphCache, rng: np.random.Generator) -> tuple[Image, Layout]:
    """A card face (BGRA, twice canonical) with one index in its top left
    corner and some of what lies near an index on real cards."""
    face = _blank(rng)
    red = suit in "HD"
    colour = _ink(rng, red)
    rank = _rank_ink(font, rank_text, cache, rng)
    rh = float(rng.uniform(20.0, 48.0))
    stretch = float(rng.uniform(0.6, 1.25))
    if len(rank_text) > 1 and rng.random() < 0.5:
        stretch *= float(rng.uniform(0.6, 0.9))  # a ten squeezed to fit the column
    rw = min(40.0, rh * rank.shape[1] / rank.shape[0] * stretch)
    rx, ry = float(rng.uniform(2.5, 14.0)), float(rng.uniform(2.5, 16.0))
    if rng.random() < 0.1:
        m = cv2.getRotationMatrix2D((rank.shape[1] / 2, rank.shape[0] / 2),
                                    float(rng.uniform(-3, 3)), 1.0)
        rank = np.asarray(cv2.warpAffine(rank, m, (rank.shape[1], rank.shape[0])), np.float32)
    rbox = _stamp(face, rank, rx, ry, rw, rh, colour)
    if suit_font is not None:
        sym = cache.glyph(suit_font, SUIT_CHARS[suit])
    else:
        sym = drawn_suit(suit, rng)
    sh = max(10.5, rh * float(rng.uniform(0.42, 0.85)))
    sw = sh * sym.shape[1] / sym.shape[0] * float(rng.uniform(0.85, 1.15))
    scx = rbox[0] + rbox[2] / 2 + rh * float(rng.uniform(-0.12, 0.12))
    sy = rbox[1] + rbox[3] + rh * float(rng.uniform(0.02, 0.35))
    sbox = _stamp(face, sym, max(1.5, scx - sw / 2), sy, sw, sh, colour)
    _clutter(face, rbox, sbox, suit, red, rng)
    return face, Layout(rbox, sbox)


def _clutter(face: Image, rbox: tuple[float, ...], sbox: tuple[float, ...], suit: str,
             red: bool, rng: np.random.Generator) -> None:
    """Pips, a court picture's frame and colours, beside and under the index."""
    right = max(rbox[0] + rbox[2], sbox[0] + sbox[2])
    below = sbox[1] + sbox[3]
    colour = _ink(rng, red)
    if rng.random() < 0.55:  # a big pip right of the index
        sym = drawn_suit(suit, rng)
        size = float(rng.uniform(18, 40))
        x = right + float(rng.uniform(3, 14))
        y = float(rng.uniform(-0.2, 2.0)) * rbox[3] + rbox[1]
        _stamp(face, sym, x, y, size * sym.shape[1] / sym.shape[0], size, colour)
    if rng.random() < 0.3:  # a pip under the index column
        sym = drawn_suit(suit, rng)
        size = float(rng.uniform(16, 34))
        _stamp(face, sym, float(rng.uniform(2, 20)), below + float(rng.uniform(6, 30)),
               size * sym.shape[1] / sym.shape[0], size, colour)
    if rng.random() < 0.25:  # a court picture: its frame and some colour
        x0 = right + float(rng.uniform(2, 10))
        y0 = float(rng.uniform(4, 30))
        c = (int(rng.uniform(0, 120)), int(rng.uniform(0, 120)), int(rng.uniform(0, 200)), 255)
        cv2.rectangle(face, (round(x0 * S), round(y0 * S)), (FACE_W - round(x0 * S), FACE_H),
                      c, int(rng.integers(1, 5)), cv2.LINE_AA)
        for _ in range(int(rng.integers(2, 8))):
            pts = np.array([[round(float(rng.uniform(x0 + 2, x0 + 70)) * S),
                             round(float(rng.uniform(y0 + 2, y0 + 120)) * S)] for _ in range(5)],
                           np.int32)
            c = (int(rng.uniform(0, 255)), int(rng.uniform(0, 255)), int(rng.uniform(0, 255)),
                 255)
            cv2.fillPoly(face, [pts], c, cv2.LINE_AA)


def view(face: Image, rng: np.random.Generator, optics: OpticsRange
         ) -> tuple[Image, float] | None:
    """The corner patch the run-time reader gets from one shoe-camera view
    of a face (BGRA, twice canonical), and the card width in pixels."""
    width = float(rng.uniform(180.0, 240.0))  # camera mounts differ
    height = width * 1.4
    cw, ch = int(width * 0.55) + 40, int(width * 0.95) + 40
    canvas = np.empty((ch, cw, 3), np.uint8)
    canvas[:] = RAMP
    canvas = np.clip(canvas.astype(np.int16) + rng.normal(0, 4, canvas.shape).astype(np.int16),
                     0, 255).astype(np.uint8)
    x0, y0 = 24.0 + float(rng.uniform(-4, 4)), 30.0 + float(rng.uniform(-4, 4))
    jitter = rng.uniform(-1, 1, (4, 2)).astype(np.float32) * 0.02 * width
    place(canvas, face, card_corners(x0 + width / 2, y0 + height / 2, width, height,
                                     float(rng.uniform(-2.0, 2.0)), jitter))
    canvas = expose(canvas, optics.draw(rng, (cw, ch)), rng)
    ramp = float(np.percentile(canvas[::4, ::4, 1], 10))
    poses = shoe_corners(canvas, width / 200.0, ramp)
    if not poses:
        return None
    return corner_patch(canvas, poses[0]), width


def _fits(parts: IndexParts, layout: Layout) -> bool:
    """The segmentation cut the index where it was drawn (within the pose
    error of the corner finder)."""
    for got, (x, y, w, h) in ((parts.rank_box, layout.rank_box), (parts.suit_box, layout.suit_box)):
        tol = 3.0 + 0.12 * h
        if abs(got.x - MARGIN - x) > tol or abs(got.y - MARGIN - y) > tol:
            return False
        if abs(got.h - h) > tol or abs(got.w - w) > 3.0 + 0.2 * w:
            return False
    return True


@dataclass
class Samples:
    rank_x: list[npt.NDArray[np.float32]]
    rank_y: list[str]
    suit_y: list[str]
    parts: list[IndexParts]  # one per sample pair, for validation
    truth: list[str]  # card code, or "x" + suit for a glyph that is no rank
    family: list[str]  # the font family of each sample
    views: int = 0
    lost: int = 0  # no corner or no index found
    miscut: int = 0  # index found elsewhere than drawn


def generate(fonts: list[Font], per_rank: int, per_other: int, seed: int,
             cache: GlyphCache, log: bool = True,
             every: list[tuple[str, str, Image]] | None = None) -> Samples:
    """The synthetic views' index parts, as the reader finds them; views
    where no index is found, or one elsewhere than drawn, are counted and
    left out. With `every`, each view's corner patch is also kept there
    (truth, font family, patch), those left out included
    (bench.generic_views reads them all)."""
    rng = np.random.default_rng(seed)
    optics = OpticsRange()
    out = Samples([], [], [], [], [], [])
    suit_fonts = [f for f in fonts if f.has_suits]
    t0 = time.perf_counter()
    for fi, font in enumerate(fonts):
        jobs: list[tuple[str, str]] = [(r, SUITS[int(rng.integers(4))])
                                       for r in RANKS for _ in range(per_rank)]
        jobs += [(NOT_A_RANK + NOT_RANKS[int(rng.integers(len(NOT_RANKS)))],
                  SUITS[int(rng.integers(4))]) for _ in range(per_other)]
        for rank, suit in jobs:
            text = rank[1:] if rank.startswith(NOT_A_RANK) else RANK_TEXT[rank]
            label = NOT_A_RANK if rank.startswith(NOT_A_RANK) else rank
            sfont = None
            if suit_fonts and rng.random() < 0.4:
                sfont = suit_fonts[int(rng.integers(len(suit_fonts)))]
            face, layout = synthetic_card(text, suit, font, sfont, cache, rng)
            out.views += 1
            got = view(face, rng, optics)
            if every is not None and got is not None:
                every.append((label + suit, font.family, got[0]))
            parts = index_parts(got[0]) if got is not None else None
            if parts is None:
                out.lost += 1
                continue
            if not _fits(parts, layout):
                out.miscut += 1
                continue
            out.rank_x.append(rank_vector(parts))
            out.rank_y.append(label)
            out.suit_y.append(suit)
            out.parts.append(parts)
            out.truth.append(label + suit)
            out.family.append(font.family)
        if log and (fi % 10 == 9 or fi == len(fonts) - 1):
            print(f"  {fi + 1}/{len(fonts)} fonts, {out.views} views, "
                  f"{time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return out


# --- training and thresholds ---------------------------------------------


SUIT_NETS = 2  # suit networks per model (see GenericReader.suit_nets)


def train(samples: Samples, shrink: float, seed: int,
          keep: npt.NDArray[np.bool_] | None = None
          ) -> tuple[Discriminant, Discriminant, tuple[ConvNet, ...]]:
    """Rank and suit discriminants, and the suit networks whose embeddings
    the suit discriminant reads, on the samples (those `keep` marks). The
    networks are trained on the same glyphs as the discriminants: out of
    fold, the held-out families are new to all of them."""
    from calibration.convnet_train import train_convnet

    idx = np.arange(len(samples.truth)) if keep is None else np.nonzero(keep)[0]
    rank = Discriminant.train(np.stack([samples.rank_x[i] for i in idx]),
                              [samples.rank_y[i] for i in idx], shrink, whitener=True)
    images = [suit_image(samples.parts[i]) for i in idx]
    nets = tuple(train_convnet(np.stack([im for im, _ in images]),
                               np.array([a for _, a in images], np.float32),
                               [samples.suit_y[i] for i in idx], 100 * seed + j)
                 for j in range(SUIT_NETS))
    suit = Discriminant.train(np.stack([suit_vector(samples.parts[i], nets) for i in idx]),
                              [samples.suit_y[i] for i in idx], shrink, whitener=True)
    return rank, suit, nets


@dataclass(frozen=True)
class Scored:
    truth: str  # card code, or NOT_A_RANK + suit
    v: Verdict
    vetoed: bool = False  # refused by the reader's shape checks whatever the ratios


def score(reader: GenericReader, samples: Samples, keep: npt.NDArray[np.bool_] | None = None
          ) -> list[Scored]:
    idx = range(len(samples.truth)) if keep is None else np.nonzero(keep)[0]
    out = []
    for i in idx:
        v = reader.verdict(samples.parts[i])
        out.append(Scored(samples.truth[i], v, shape_vetoed(samples.parts[i], v.rank)))
    return out


def outcome(s: Scored, t: GenericThresholds) -> str:
    """"right", "wrong" or "refused" under thresholds t (and the reader's
    shape checks)."""
    if s.vetoed or not s.v.sure(t):
        return "refused"
    return "right" if s.v.rank + s.v.suit == s.truth else "wrong"


def tally(scored: list[Scored], t: GenericThresholds) -> dict[str, int]:
    out = {"right": 0, "wrong": 0, "refused": 0}
    for s in scored:
        out[outcome(s, t)] += 1
    return out


MISREAD_RATE = 1e-4  # the goal: at most 1 misread in 10,000 reads


def _rate_thresholds(held: list[Scored], rank_d: float, suit_d: float, over_x: float,
                     every_confusion: bool = False) -> tuple[float, float]:
    """The (rank over ranks, suit) ratio thresholds on a grid that keep the
    most right reads while the misreads they let through stay at most
    MISREAD_RATE of the reads they accept, the rank's ratio over no rank at
    least `over_x`. First the suit's, with one threshold for both of the
    rank's ratios, then, the suit's kept, the rank's."""
    v = [s.v for s in held]
    within = np.array([x.rank != NOT_A_RANK and x.rank_d <= rank_d and x.suit_d <= suit_d
                       for x in v], bool)
    # Reads the shape checks refuse are never accepted: they set no ratio
    # (the floors below, medians of the fonts' confusions, still count them).
    usable = within & ~np.array([s.vetoed for s in held], bool)
    right = np.array([x.rank + x.suit == s.truth for x, s in zip(v, held, strict=True)], bool)
    among = np.array([x.rank_llr for x in v])
    over = np.array([x.rank_x_llr for x in v])
    s_llr = np.array([x.suit_llr for x in v])

    def search(ok: npt.NDArray[np.bool_], first: npt.NDArray[np.float64],
               second: npt.NDArray[np.float64]) -> tuple[int, float, float]:
        """The best (right reads, t1, t2) with ok & first >= t1 & second >= t2."""
        best = (-1, 0.0, 0.0)
        for t1 in np.arange(0.0, 200.0, 1.0):
            ok1 = ok & (first >= t1)
            for t2 in np.arange(0.0, 200.0, 1.0):
                acc = ok1 & (second >= t2)
                n_acc = int(acc.sum())
                wrong = int((acc & ~right).sum())
                if wrong <= MISREAD_RATE * n_acc:
                    if n_acc - wrong > best[0]:
                        best = (n_acc - wrong, float(t1), float(t2))
                    break  # higher second thresholds only lose right reads
        return best

    _, ts, _ = search(usable, s_llr, np.minimum(among, over))
    # The rank's ratios or the distance may stop every suit confusion of the
    # fonts (a glyph blurred enough to take for the other suit often leaves
    # its rank unsure too), and the suit's own threshold fall to nothing: it
    # is kept at least at the median ratio of the fonts' suit confusions
    # within the distances, as a rank's is; of all of them when none is.
    # Only glyphs whose rank was read right: those whose rank was misread
    # too (a glyph cut wrongly, a 9 read as a Q and its heart as a diamond)
    # are a wrong card whatever their suit, stopped by the rank's ratios,
    # and one of them alone set the red suit's ratio over every right read.
    # (`every_confusion`: all of them, when the rank's ratios cannot stop
    # one: see choose_thresholds.)
    confused = np.array([x.rank != NOT_A_RANK and x.suit != s.truth[1]
                         and (every_confusion or x.rank == s.truth[0])
                         for x, s in zip(v, held, strict=True)])
    near = confused & within
    if confused.any():
        ts = max(ts, float(np.median(s_llr[near if near.any() else confused])))
    _, tr, _ = search(usable & (s_llr >= ts) & (over >= over_x), among, np.zeros_like(among))
    return tr, ts


def _rank_floor(held: list[Scored]) -> float:
    """The least ratio over the runner-up rank a rank of its own threshold
    may be read at: the median ratio of the fonts' rank confusions (a rank
    read for another, out of fold). A rank the fonts seldom or never
    confuse is still not read below the ratio half of all confusions reach."""
    among = [s.v.rank_llr for s in held if s.v.rank != NOT_A_RANK
             and not s.truth.startswith(NOT_A_RANK) and s.v.rank != s.truth[0]]
    return float(np.median(among)) if among else 0.0


def _rank_thresholds(held: list[Scored], rank_d: float, suit_d: float, tx: float, ts: float,
                     floor: float, pairs: bool = False) -> dict[str, float]:
    """For each rank read (`pairs`: each rank read over each runner-up
    rank): the ratio over the runner-up rank that keeps its misreads (the
    colour's ratios over "not a rank" and of the suit kept) at most
    MISREAD_RATE of its reads accepted, and at least `floor`."""
    out: dict[str, float] = {}
    keys = [r + u for r in RANKS for u in RANKS if u != r] if pairs else list(RANKS)
    for r in keys:
        v = [s for s in held if s.v.rank == r[0] and (not pairs or s.v.rank_second == r[1])
             and not s.vetoed and s.v.rank_d <= rank_d and s.v.suit_d <= suit_d
             and s.v.rank_x_llr >= tx and s.v.suit_llr >= ts]
        among = np.array([s.v.rank_llr for s in v])
        wrong = np.array([s.v.rank + s.v.suit != s.truth for s in v], bool)
        best = 0.0
        for t in np.arange(0.0, 200.0, 1.0):
            acc = among >= t
            if int((acc & wrong).sum()) <= MISREAD_RATE * int(acc.sum()):
                best = float(t)
                break  # higher thresholds only lose right reads
        out[r] = max(best, floor)
    return out


# Ratios over "not a rank" tried for each colour (see choose_thresholds).
OVER_X_GRID = (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0, 25.0, 30.0, 40.0,
               50.0, 60.0, 80.0, 100.0)


def _colour_thresholds(some: list[Scored], colour: str, rank_d: float, suit_d: float,
                       over_x: float, margin: float, floor: float, every_confusion: bool
                       ) -> tuple[list[float], dict[str, float], dict[str, float]]:
    """One colour's thresholds, its ratio over "not a rank" given: ([rank over
    ranks, rank over no rank, suit], per rank read, per pair)."""
    tr, ts = _rate_thresholds(some, rank_d, suit_d, over_x, every_confusion)
    found = [margin * max(x, 1.0) for x in (tr, over_x, ts)]
    by: dict[str, float] = {}
    pair: dict[str, float] = {}
    for r, t in _rank_thresholds(some, rank_d, suit_d, over_x, ts, floor).items():
        if margin * max(t, 1.0) < found[0]:
            by[r + colour] = round(margin * max(t, 1.0), 3)
    for ru, t in _rank_thresholds(some, rank_d, suit_d, over_x, ts, floor, pairs=True).items():
        if margin * max(t, 1.0) < by.get(ru[0] + colour, found[0]):
            pair[ru + colour] = round(margin * max(t, 1.0), 3)
    return found, by, pair


def _best_over_x(some: list[Scored], colour: str, rank_d: float, suit_d: float, margin: float,
                 floor: float, every_confusion: bool
                 ) -> tuple[list[float], dict[str, float], dict[str, float]] | None:
    """The colour's thresholds for the ratio over "not a rank" of OVER_X_GRID
    that gives the most right reads with the misreads within the goal, or
    None when none does."""
    best: tuple[int, list[float], dict[str, float], dict[str, float]] | None = None
    for over_x in OVER_X_GRID:
        f, b, p = _colour_thresholds(some, colour, rank_d, suit_d, over_x, margin, floor,
                                     every_confusion)
        kw = (dict(rank_llr=f[0], rank_x_llr=f[1], suit_llr=f[2]) if colour == "HD" else
              dict(rank_llr_black=f[0], rank_x_llr_black=f[1], suit_llr_black=f[2]))
        got = tally(some, GenericThresholds(rank_distance=rank_d, suit_distance=suit_d,
                                            rank_llr_by=b, rank_llr_pair=p, **kw))
        if got["wrong"] > MISREAD_RATE * (got["right"] + got["wrong"]):
            continue
        if best is None or got["right"] > best[0]:
            best = (got["right"], f, b, p)
    return None if best is None else best[1:]


def choose_thresholds(held: list[Scored], margin: float) -> GenericThresholds:
    """From out-of-fold reads. Distances: the 99.8th percentile of right
    reads (a glyph further from its class than nearly every right one is
    unlike the fonts). Likelihood ratios, for red ink and for black ink
    apart: those that keep the most right reads with at most MISREAD_RATE
    misreads among the reads accepted, times `margin`.

    The ratio over "not a rank" and the ratios over the runner-up rank stop
    the same misreads in part (a letter taken for a rank has a runner-up
    rank too), so they are chosen together: for each ratio over "not a rank"
    of OVER_X_GRID, the colour's other thresholds, then each rank's and each
    pair's; kept, the choice under which the colour's out-of-fold reads,
    glyphs of no rank included, give the most right reads with misreads at
    most MISREAD_RATE of those accepted. (Chosen alone, before the ranks'
    own thresholds, one confusion could set the ratio over "not a rank"
    anywhere between 1 and 60 at about the same count: and the ranks' own
    thresholds then no longer ask what they need.)"""
    base = GenericThresholds()
    ok = [s.v for s in held if s.v.rank + s.v.suit == s.truth]
    rank_d = float(np.percentile([v.rank_d for v in ok], 99.8))
    suit_d = float(np.percentile([v.suit_d for v in ok], 99.8))
    by: dict[str, float] = {}
    pair: dict[str, float] = {}
    found: dict[str, list[float]] = {}
    for colour in ("HD", "SC"):
        some = [s for s in held if s.v.colour == colour]
        floor = _rank_floor(some)
        # The suit's floor from the suit confusions of ranks read right; if
        # then no choice keeps the misreads within the goal (a glyph misread
        # in rank and suit beyond every ratio of the rank's grid), from every
        # suit confusion.
        best = (_best_over_x(some, colour, rank_d, suit_d, margin, floor, False)
                or _best_over_x(some, colour, rank_d, suit_d, margin, floor, True))
        if best is None:
            raise ValueError(f"no thresholds keep the misreads of {colour} within the goal")
        found[colour], b, p = best
        by |= b
        pair |= p
    red, black = found["HD"], found["SC"]
    return GenericThresholds(
        rank_llr=red[0], rank_x_llr=red[1], suit_llr=red[2],
        rank_llr_black=black[0], rank_x_llr_black=black[1], suit_llr_black=black[2],
        rank_distance=rank_d, suit_distance=suit_d,
        red_min=base.red_min, black_max=base.black_max, rank_llr_by=by,
        rank_llr_pair=pair)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _font_meta(f: Font, fold: int) -> dict[str, Any]:
    return {"file": f.path.name, "family": f.family, "style": f.style, "fold": fold,
            "sha256_16": _sha(f.path)}


def fold_readers(data: Samples, fold_of: npt.NDArray[np.int_], shrink: float, seed: int
                 ) -> tuple[list[GenericReader], list[Scored]]:
    """A reader per fold, trained without that fold's families (thresholds
    not set), and its scores of the fold's samples: the out-of-fold reads
    the thresholds are chosen on."""
    readers: list[GenericReader] = []
    held: list[Scored] = []
    for k in range(FOLDS):
        rank, suit, nets = train(data, shrink, seed + 1 + k, fold_of != k)
        readers.append(GenericReader(rank, suit, GenericThresholds(), {}, suit_nets=nets))
        held += score(readers[-1], data, fold_of == k)
    return readers, held


def pick_fonts(font_limit: int | None = None) -> list[Font]:
    """The fonts a build renders: all found, or `font_limit` of them evenly
    through the sorted list (a quick build)."""
    fonts = find_fonts()
    if font_limit is not None and font_limit < len(fonts):
        step = len(fonts) / font_limit
        fonts = [fonts[int(i * step)] for i in range(font_limit)]
    return fonts


def add_build_options(parser: argparse.ArgumentParser) -> None:
    """The options of a build (views, seed, shrinkage, margin, fonts), as the
    shipped model was built with them by default."""
    parser.add_argument("--per-rank", type=int, default=12,
                        help="views of each rank per font (random suit)")
    parser.add_argument("--per-other", type=int, default=16,
                        help="views of glyphs that are no rank, per font")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--shrink", type=float, default=0.1)
    parser.add_argument("--font-limit", type=int, default=None,
                        help="use only this many fonts (a quick build, for tests)")
    parser.add_argument("--margin", type=float, default=1.1,
                        help="likelihood-ratio thresholds: this times those that keep "
                             "out-of-fold misreads within the goal")


def build(out: Path, per_rank: int, per_other: int, seed: int, shrink: float,
          margin: float, font_limit: int | None = None,
          dump: Path | None = None) -> GenericReader:
    fonts = pick_fonts(font_limit)
    folds = family_folds(fonts)
    print(f"{len(fonts)} fonts, {len(folds)} families, {FOLDS} folds", file=sys.stderr)
    cache = GlyphCache()
    data = generate(fonts, per_rank, per_other, seed, cache)
    print(f"views {data.views}: {len(data.truth)} used, {data.lost} lost, "
          f"{data.miscut} cut wrongly", file=sys.stderr)
    fold_of = np.array([folds[f] for f in data.family])
    _, held = fold_readers(data, fold_of, shrink, seed)
    t = choose_thresholds(held, margin)
    if dump is not None:  # for looking into the errors (pickle: development only)
        import pickle

        order = np.concatenate([np.nonzero(fold_of == k)[0] for k in range(FOLDS)])
        with dump.open("wb") as fh:
            pickle.dump([(data.parts[i], data.family[i], s) for i, s in zip(order, held,
                                                                            strict=True)], fh)
    worst = sorted(held, key=lambda s: -min(s.v.rank_llr, s.v.rank_x_llr, s.v.suit_llr))
    worst = [s for s in worst if s.v.rank + s.v.suit != s.truth and s.v.colour_clear
             and s.v.rank != NOT_A_RANK][:5]
    print("most confident out-of-fold errors: " + ", ".join(
        f"{s.truth}->{s.v.rank}{s.v.suit} ({s.v.rank_llr:.1f}, {s.v.rank_x_llr:.1f}, "
        f"{s.v.suit_llr:.1f})"
        for s in worst), file=sys.stderr)
    cards = [s for s in held if not s.truth.startswith(NOT_A_RANK)]
    others = [s for s in held if s.truth.startswith(NOT_A_RANK)]
    print(f"thresholds {t}", file=sys.stderr)
    print(f"out of fold: cards {tally(cards, t)}, no-rank glyphs {tally(others, t)}",
          file=sys.stderr)
    rank, suit, nets = train(data, shrink, seed)  # the shipped model: every font
    meta: dict[str, Any] = {
        "built_by": "calibration.build_generic",
        "seed": seed, "per_rank": per_rank, "per_other": per_other, "shrink": shrink,
        "margin": margin, "font_limit": font_limit, "folds": FOLDS,
        "fonts": [_font_meta(f, folds[f.family]) for f in fonts],
        "views": {"views": data.views, "used": len(data.truth), "lost": data.lost,
                  "miscut": data.miscut},
        "out_of_fold": {"cards": tally(cards, t), "not_ranks": tally(others, t)},
        # The least ratio over the runner-up rank a rank's or a pair's own
        # threshold may come to, by colour (margin x _rank_floor).
        "rank_floor": {c: round(margin * _rank_floor([s for s in held if s.v.colour == c]), 3)
                       for c in ("HD", "SC")},
    }
    reader = GenericReader(rank, suit, t, meta, suit_nets=nets)
    save_model(reader, out)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)", file=sys.stderr)
    return reader


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m calibration.build_generic",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    add_build_options(parser)
    parser.add_argument("--dump-out-of-fold", type=Path, default=None,
                        help="also write the out-of-fold reads (with their glyphs) here")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    build(args.out, args.per_rank, args.per_other, args.seed, args.shrink, args.margin,
          args.font_limit, args.dump_out_of_fold)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
