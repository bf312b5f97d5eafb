"""Procedural card decks: a new deck design for every seed.

Development time only: these decks train the learned card-index classifier,
which must read decks it has never seen, so every seed draws a different
design from the range of real decks (casino, poker, bridge, jumbo-index,
French and four-colour decks):

    .venv/bin/python -m calibration.procedural_decks --out /tmp/decks --seeds 0-19

writes each deck as /tmp/decks/proc-<seed>/<code>.png (BGRA, <code> as
"AS", "TD", "QH": rank in A23456789TJQK, suit in SHDC, T the ten, whatever
the card prints: a French deck's "R" is still the K file).

What varies from deck to deck (all drawn once from
numpy.random.default_rng(seed)): the card's shape (height/width 1.35-1.75,
corner radius 0-8% of the width), its paper (white, cream, ivory, light
grey; sometimes a fine texture and noise), a printed border line or frame,
or a coloured outer margin; the index font (any font of `font_paths()`:
its weights and condensed faces are fonts of the list), its size (8-20% of
the card's height for the rank), margins and layout (suit under the rank or
beside it, smaller or as tall), the ten's two digits (tight, spaced, the
font's own) and French letters (1 or A, R, D, V) in about 25% of decks;
the suits (shapes drawn from circles, polygons and curves with their own
proportions, or a font's U+2660-2667 symbols, filled or outlined), the inks
(orange-red to crimson, black to dark grey or navy, four-colour decks); the
pips (the standard layouts, their size; an ace's big pip, sometimes
ornate; jumbo decks with small pips) and the court pictures (framed,
mirrored art of shapes, robes, faces and crowns in red, blue, yellow and
black, with a small suit or letter inside the frame, never over an index).
The index is always in the top-left corner and, turned 180 degrees, in the
bottom-right one (sometimes in all four).

Fonts: every TTF/OTF font under /usr/share/fonts (and fc-list's) with
the glyphs 0-9 A J Q K R D V, upright, not hairline, with lining figures.
The decks used in training come from these Debian font packages (Debian
12), installed with:

    apt-get install fonts-dejavu fonts-liberation fonts-liberation2 fonts-freefont-ttf \\
        fonts-noto-core fonts-urw-base35 fonts-crosextra-carlito fonts-crosextra-caladea \\
        fonts-linuxlibertine fonts-ebgaramond fonts-roboto fonts-open-sans fonts-lato \\
        fonts-cantarell fonts-firacode fonts-inconsolata fonts-texgyre fonts-cmu \\
        fonts-oldstandard fonts-comic-neue fonts-bebas-neue

A seed gives the same deck on a machine with the same fonts (the design
picks from the sorted font list). Needs numpy, OpenCV and Pillow.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

F32 = npt.NDArray[np.float32]
U8 = npt.NDArray[np.uint8]
RGB = tuple[float, float, float]

RANKS = "A23456789TJQK"
SUITS = "SHDC"
CODES = tuple(r + s for s in SUITS for r in RANKS)
CARD_H = 350  # the card's height in pixels
SS = 2  # drawn at twice the size, then shrunk (smooth edges)
FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
NEEDED_GLYPHS = "0123456789AJQKRDV"
SUIT_CHARS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
SUIT_OUTLINE_CHARS = {"S": "\u2664", "H": "\u2661", "D": "\u2662", "C": "\u2667"}
FRENCH = {"K": "R", "Q": "D", "J": "V"}
_BAD_STYLE = re.compile(
    r"(?i)(ital|oblique|slanted|hairline|thin|extralight|ultralight|outline|inverted|keyboard"
    r"|standard ?symbols)")
_RENDER = 192  # glyphs are rendered this large, then shrunk


# --- fonts ----------------------------------------------------------------


@functools.cache
def _pil_font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


def _text_mask(font: ImageFont.FreeTypeFont, text: str) -> U8:
    """The text's ink (0..255), cut to its box."""
    left, top, right, bottom = font.getbbox(text)
    w, h = int(right - left) + 8, int(bottom - top) + 8
    if w <= 8 or h <= 8:
        return np.zeros((0, 0), np.uint8)
    img = Image.new("L", (w, h), 0)
    ImageDraw.Draw(img).text((4 - left, 4 - top), text, font=font, fill=255)
    a = np.asarray(img, np.uint8)
    ys, xs = np.nonzero(a > 0)
    if len(xs) == 0:
        return np.zeros((0, 0), np.uint8)
    return np.ascontiguousarray(a[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def _ink(mask: U8) -> F32:
    """A 0..255 mask as ink, 0..1."""
    out: F32 = mask.astype(np.float32) * np.float32(1 / 255)
    return out


def _font_files() -> list[Path]:
    files: set[Path] = set()
    fc = shutil.which("fc-list")
    if fc is not None:
        try:
            out = subprocess.run([fc, "--format", "%{file}\n"], capture_output=True,
                                 text=True, timeout=60, check=False).stdout
            files.update(Path(line.strip()) for line in out.splitlines() if line.strip())
        except (OSError, subprocess.SubprocessError):
            pass
    for root in FONT_DIRS:
        if root.is_dir():
            files.update(p for p in root.rglob("*") if p.is_file())
    return sorted(p for p in files if p.suffix.lower() in (".ttf", ".otf") and p.is_file())


def _usable(path: Path) -> tuple[str, bytes] | None:
    """(family, a fingerprint of its glyphs) when the font can print every
    index: each needed glyph drawn, none a missing-glyph box, all
    different, lining figures (old-style 3 4 5 7 9 hang below the line)."""
    if _BAD_STYLE.search(path.stem):
        return None
    try:
        font = _pil_font(str(path), 48)
        family, style = font.getname()
    except (OSError, ValueError):
        return None
    if _BAD_STYLE.search(f"{family} {style}"):
        return None
    notdef = _text_mask(font, "\ue000").tobytes()
    masks = [_text_mask(font, c) for c in NEEDED_GLYPHS]
    keys = {m.tobytes() for m in masks}
    if any(m.size == 0 for m in masks) or len(keys) != len(masks) or notdef in keys:
        return None
    heights = [m.shape[0] for m in masks[:10]]
    if max(heights) > 1.12 * min(heights) or masks[0].shape[0] < 20:
        return None
    return str(family), b"".join(m.tobytes() for m in masks[10:14])


@functools.cache
def _font_table() -> tuple[tuple[Path, str], ...]:
    """(path, family) of every usable font, sorted by path; faces that draw
    the same letters (a script font's copy of its Latin) counted once."""
    out: list[tuple[Path, str]] = []
    seen: set[bytes] = set()
    for path in _font_files():
        got = _usable(path)
        if got is None or got[1] in seen:
            continue
        seen.add(got[1])
        out.append((path, got[0]))
    return tuple(out)


def font_paths() -> list[Path]:
    """The usable index fonts on this machine (see `_usable`), sorted."""
    return [p for p, _ in _font_table()]


@functools.cache
def _suit_fonts() -> tuple[tuple[Path, bool], ...]:
    """(path, has outline suits) of the upright fonts whose U+2660-2667
    symbols are the four suits: four different shapes, matched one to one
    to the drawn suits (a font that draws its club as a spade is left
    out)."""
    refs = [_unit(_suit_shape(s, SuitStyle.plain())) for s in SUITS]
    out: list[tuple[Path, bool]] = []
    seen: list[F32] = []
    for path in _font_files():
        if _BAD_STYLE.search(path.stem):
            continue
        try:
            font = _pil_font(str(path), 96)
            family, style = font.getname()
        except (OSError, ValueError):
            continue
        if _BAD_STYLE.search(f"{family} {style}"):
            continue
        notdef = _text_mask(font, "\ue000").tobytes()
        masks = [_text_mask(font, SUIT_CHARS[s]) for s in SUITS]
        if any(m.size == 0 or m.tobytes() == notdef for m in masks):
            continue
        if not _are_suits([_ink(m) for m in masks], refs):
            continue
        # one font of a design (the URW fonts, Liberation's weights share theirs)
        key: F32 = np.concatenate([_unit(_ink(m)) for m in masks]) * np.float32(0.5)
        if any(float(key @ k) > 0.97 for k in seen):
            continue
        seen.append(key)
        outl = [_text_mask(font, SUIT_OUTLINE_CHARS[s]) for s in SUITS]
        has_outline = (
            all(m.size > 0 and m.tobytes() != notdef for m in outl)
            and all(float(m.mean()) < 0.8 * float(f.mean()) for m, f in zip(outl, masks,
                                                                          strict=True))
            and _are_suits([_fill_holes(_ink(m)) for m in outl], refs))
        out.append((path, has_outline))
    return tuple(out)


def _are_suits(inks: list[F32], refs: list[F32]) -> bool:
    """Four glyphs that are S H D C: no two alike, and the best one-to-one
    match to the drawn suits is the same order."""
    vs = [_unit(m) for m in inks]
    if any(float(vs[i] @ vs[j]) > 0.95 for i in range(4) for j in range(i + 1, 4)):
        return False
    sim = np.array([[float(v @ r) for r in refs] for v in vs])
    best = max(itertools.permutations(range(4)),
               key=lambda p: sum(sim[i, p[i]] for i in range(4)))
    return best == (0, 1, 2, 3)


def _unit(ink: F32) -> F32:
    v = np.asarray(cv2.resize(ink, (24, 24), interpolation=cv2.INTER_AREA), np.float32).ravel()
    v = v - v.mean()
    out: F32 = v / max(float(np.linalg.norm(v)), 1e-6)
    return out


def _fill_holes(ink: F32) -> F32:
    m = (ink > 0.4).astype(np.uint8)
    pad = np.pad(m, 1)
    flood = pad.copy()
    ff = np.zeros((pad.shape[0] + 2, pad.shape[1] + 2), np.uint8)
    cv2.floodFill(flood, ff, (0, 0), 1)
    holes = (flood == 0)[1:-1, 1:-1]
    out: F32 = np.maximum(ink, holes.astype(np.float32))
    return out


# --- suit shapes ------------------------------------------------------------


@dataclass(frozen=True)
class SuitStyle:
    """Proportions of the drawn suits."""

    lobe: float  # heart/spade lobe radius over half the width
    cleft: float  # lobe centres apart, over the radius (smaller: shallower cleft)
    tip: float  # heart/spade length below the lobes' centres, over the radius
    fullness: float  # 0 straight sides to the tip, 1 round
    diamond_w: float  # diamond width over height
    diamond_bow: float  # side curvature: >0 concave, <0 convex
    club_spread: float  # side leaves apart, over the leaf radius
    club_drop: float  # side leaves below the top one, over the leaf radius
    stem: str  # "flare", "straight", "foot"
    stem_w: float  # stem base half-width, over the body's half-width
    stem_len: float  # stem length below the body, over the body height

    @staticmethod
    def plain() -> SuitStyle:
        return SuitStyle(1.0, 0.85, 2.3, 0.55, 0.72, 0.05, 1.1, 1.35, "flare", 0.38, 0.22)

    @staticmethod
    def draw(rng: np.random.Generator) -> SuitStyle:
        return SuitStyle(
            lobe=1.0, cleft=float(rng.uniform(0.7, 1.0)), tip=float(rng.uniform(1.9, 2.8)),
            fullness=float(rng.uniform(0.3, 0.85)),
            diamond_w=float(rng.uniform(0.55, 0.9)),
            diamond_bow=float(rng.choice([0.0, rng.uniform(-0.06, 0.14)])),
            club_spread=float(rng.uniform(0.95, 1.3)), club_drop=float(rng.uniform(1.1, 1.6)),
            stem=str(rng.choice(["flare", "flare", "straight", "foot"])),
            stem_w=float(rng.uniform(0.22, 0.5)), stem_len=float(rng.uniform(0.12, 0.32)))


def _bez(p0: Sequence[float], p1: Sequence[float], p2: Sequence[float],
         n: int = 32) -> npt.NDArray[np.float64]:
    t = np.linspace(0.0, 1.0, n)[:, None]
    a, b, c = np.asarray(p0, float), np.asarray(p1, float), np.asarray(p2, float)
    out: npt.NDArray[np.float64] = (1 - t) ** 2 * a + 2 * (1 - t) * t * b + t**2 * c
    return out


class _Raster:
    """Polygons and circles in shape units, drawn on a large mask."""

    N = 320  # pixels per unit

    def __init__(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.x0, self.y0 = x0, y0
        self.img = np.zeros((int((y1 - y0) * self.N) + 8, int((x1 - x0) * self.N) + 8), np.uint8)

    def _pt(self, pts: npt.NDArray[np.float64]) -> npt.NDArray[np.int32]:
        q = (pts - [self.x0, self.y0]) * self.N + 4
        return np.round(q * 16).astype(np.int32)

    def poly(self, pts: npt.NDArray[np.float64]) -> None:
        cv2.fillPoly(self.img, [self._pt(pts)], 255, cv2.LINE_AA, 4)

    def circle(self, x: float, y: float, r: float) -> None:
        c = self._pt(np.array([[x, y]]))[0]
        cv2.circle(self.img, (int(c[0]), int(c[1])), round(r * self.N * 16), 255, -1,
                   cv2.LINE_AA, 4)

    def ink(self) -> F32:
        a = _ink(self.img)
        ys, xs = np.nonzero(a > 0.1)
        return np.ascontiguousarray(a[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def _heart_pts(st: SuitStyle) -> tuple[float, float, float, npt.NDArray[np.float64]]:
    """Lobe radius, lobe centre offset, tip y (lobe centres at y = r), and
    the body polygon from the left lobe's side down to the tip and up."""
    r = 1.0
    d = r * st.cleft
    tip = r + st.tip * r
    side = d + r
    ctrl_y = r + st.fullness * (tip - r) * 0.9
    left = _bez((-side, r), (-side, ctrl_y), (0.0, tip))
    right = _bez((0.0, tip), (side, ctrl_y), (side, r))
    pts = np.vstack([left, right, [[d, r], [-d, r]]])
    return r, d, tip, pts


def _stem(r: SuitStyle, y_top: float, y_bot: float, half: float) -> npt.NDArray[np.float64]:
    w = half * r.stem_w
    if r.stem == "straight":
        return np.array([[-w * 0.35, y_top], [w * 0.35, y_top], [w, y_bot], [-w, y_bot]], float)
    if r.stem == "foot":
        neck = w * 0.22
        foot = (y_bot - y_top) * 0.25
        return np.array([[-neck, y_top], [neck, y_top], [neck, y_bot - foot], [w, y_bot - foot],
                         [w, y_bot], [-w, y_bot], [-w, y_bot - foot], [-neck, y_bot - foot]],
                        float)
    left = _bez((-w, y_bot), (-w * 0.12, y_bot - (y_bot - y_top) * 0.25), (-w * 0.08, y_top), 16)
    right = _bez((w * 0.08, y_top), (w * 0.12, y_bot - (y_bot - y_top) * 0.25), (w, y_bot), 16)
    return np.vstack([left, right])


def _suit_shape(suit: str, st: SuitStyle) -> F32:
    """A suit's ink (0..1), upright, cut to its box."""
    if suit == "H":
        r, d, tip, pts = _heart_pts(st)
        ras = _Raster(-d - r, 0.0, d + r, tip)
        ras.poly(pts)
        ras.circle(-d, r, r)
        ras.circle(d, r, r)
        return ras.ink()
    if suit == "S":
        r, d, tip, pts = _heart_pts(replace(st, tip=st.tip + 0.35))
        pts = pts * [1.0, -1.0] + [0.0, tip]  # upside down: the tip on top
        body_h = tip
        y_bot = body_h * (1 + st.stem_len)
        ras = _Raster(-d - r, 0.0, d + r, y_bot)
        ras.poly(pts)
        ras.circle(-d, tip - r, r)
        ras.circle(d, tip - r, r)
        ras.poly(_stem(st, tip - r * 0.9, y_bot, d + r))
        return ras.ink()
    if suit == "D":
        w = st.diamond_w / 2
        k = st.diamond_bow
        corners = [(0.0, 0.0), (w, 0.5), (0.0, 1.0), (-w, 0.5), (0.0, 0.0)]
        segs = []
        for (ax, ay), (bx, by) in itertools.pairwise(corners):
            mx, my = (ax + bx) / 2, (ay + by) / 2
            segs.append(_bez((ax, ay), (mx - mx * k * 4, my + (0.5 - my) * k * 4), (bx, by), 16))
        ras = _Raster(-w, 0.0, w, 1.0)
        ras.poly(np.vstack(segs))
        return ras.ink()
    # club: three leaves and a stem
    r = 1.0
    dx, dy = st.club_spread * r, st.club_drop * r
    half = dx + r
    body_bot = r + dy + r
    y_bot = body_bot * (1 + st.stem_len) + r * 0.2
    ras = _Raster(-half, 0.0, half, y_bot)
    ras.circle(0.0, r, r)
    ras.circle(-dx, r + dy, r)
    ras.circle(dx, r + dy, r)
    ras.poly(np.array([[0.0, r], [-dx, r + dy], [dx, r + dy]]))
    ras.circle(0.0, r + dy * 0.8, r * 0.55)
    ras.poly(_stem(st, r + dy * 0.8, y_bot, half))
    return ras.ink()


def _outline(ink: F32, frac: float) -> F32:
    """A shape's outline, its stroke frac of the shape's height."""
    t = max(2, round(ink.shape[0] * frac))
    pad = np.pad(ink, t + 1)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * t + 1, 2 * t + 1))
    inner = cv2.erode(pad, k)
    out: F32 = np.clip(pad - inner, 0, 1)[t + 1 : -t - 1, t + 1 : -t - 1]
    return np.ascontiguousarray(out)


# --- drawing helpers --------------------------------------------------------


def _resize(ink: F32, w: int, h: int) -> F32:
    w, h = max(1, w), max(1, h)
    interp = cv2.INTER_AREA if w < ink.shape[1] or h < ink.shape[0] else cv2.INTER_LINEAR
    out: F32 = np.asarray(cv2.resize(ink, (w, h), interpolation=interp), np.float32)
    return out


def _paint(canvas: F32, mask: F32, x0: int, y0: int, color: RGB) -> None:
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


def _stamp(block: F32, ink: F32, x: float, y: float, w: float, h: float) -> None:
    """Max-combine ink, resized to w x h, at (x, y) of block (block pixels)."""
    m = _resize(ink, round(w), round(h))
    x0, y0 = round(x), round(y)
    hh, ww = block.shape
    xa, ya = max(x0, 0), max(y0, 0)
    xb, yb = min(x0 + m.shape[1], ww), min(y0 + m.shape[0], hh)
    if xa < xb and ya < yb:
        np.maximum(block[ya:yb, xa:xb], m[ya - y0 : yb - y0, xa - x0 : xb - x0],
                   out=block[ya:yb, xa:xb])


def _rounded_box(h: int, w: int, x0: float, y0: float, x1: float, y1: float, r: float,
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


# --- the design ---------------------------------------------------------------


@dataclass(frozen=True)
class DeckDesign:
    """Every choice of a deck (lengths in final pixels)."""

    seed: int
    width: int
    height: int
    radius: float
    paper: RGB
    border: str  # "none", "line", "double", "frame", "margin"
    border_inset: float
    border_width: float
    border_color: RGB
    font: Path
    ten: str  # "font", "tight", "spaced"
    ten_gap: float  # gap between the ten's digits over the rank height
    ten_squeeze: float  # the ten at most this many times the widest other rank
    french: bool
    french_ace: str  # "1" or "A"
    rank_h: float
    suit_ratio: float  # suit height over rank height in the index
    beside: bool  # suit to the right of the rank
    index_gap: float  # between rank and suit, over rank height
    left_align: bool
    margin_x: float
    margin_y: float
    four_corners: bool
    suit_source: str  # "drawn" or a font's path
    suit_style: SuitStyle
    outline: str  # "none", "red", "all" (outlined suits, index and pips)
    colors: tuple[RGB, RGB, RGB, RGB]  # ink of S H D C
    pip_frac: float  # pip height over card height (before the fit)
    pip_pad: float  # the pips' field from the top and bottom edges, over card height
    court_pad: float  # the court frame's from the top and bottom edges, over card height
    jumbo_small_pips: bool
    ace_frac: float  # the ace's pip height over card width
    ornate_ace: str  # "none", "halo", "dots", "rays"
    ornate_all_aces: bool
    court_frame: RGB
    court_frame_w: float
    court_palette: tuple[RGB, ...]
    court_suit: bool
    court_letter: bool
    court_divider: str  # "none", "line", "diagonal"
    noise: float
    texture: float
    art_seed: int


def _choice(rng: np.random.Generator, items: Sequence[str], p: Sequence[float]) -> str:
    return items[int(rng.choice(len(items), p=np.asarray(p) / np.sum(p)))]


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t)


def deck_design(seed: int) -> DeckDesign:
    """The design of deck `seed`: every random choice, drawn once."""
    rng = np.random.default_rng(seed)
    table = _font_table()
    if not table:
        raise RuntimeError("no usable font found under /usr/share/fonts (see the docstring)")
    families = sorted({fam for _, fam in table})
    family = families[int(rng.integers(len(families)))]
    faces = [p for p, fam in table if fam == family]
    font = faces[int(rng.integers(len(faces)))]

    aspect = float(rng.uniform(1.35, 1.75))
    height = CARD_H
    width = round(height / aspect)
    radius = float(rng.uniform(0.0, 0.08)) * width
    paper = _choice(rng, ["white", "cream", "ivory", "grey"], [0.5, 0.2, 0.15, 0.15])
    base = {"white": (252.0, 252.0, 250.0), "cream": (250.0, 243.0, 222.0),
            "ivory": (251.0, 248.0, 236.0), "grey": (232.0, 233.0, 234.0)}[paper]
    paper_rgb: RGB = tuple(float(np.clip(c + rng.uniform(-4, 3), 0, 255)) for c in base)  # type: ignore[assignment]

    border = _choice(rng, ["none", "line", "double", "frame", "margin"],
                     [0.55, 0.15, 0.05, 0.1, 0.15])
    border_inset = float(rng.uniform(0.02, 0.05)) * width
    border_width = float(rng.uniform(0.6, 1.6))
    if border == "frame":
        border_width = float(rng.uniform(1.5, 3.5))
    if border == "margin":
        border_inset = 0.0
        border_width = float(rng.uniform(0.025, 0.06)) * width
    border_color = _choice(rng, ["black", "red", "blue", "green", "gold"], [3, 2, 2, 1, 1])
    bcol: RGB = {"black": (30.0, 30.0, 35.0), "red": (185.0, 30.0, 40.0),
                 "blue": (25.0, 55.0, 140.0), "green": (20.0, 105.0, 60.0),
                 "gold": (190.0, 150.0, 50.0)}[border_color]
    if border == "margin" and rng.random() < 0.3:
        bcol = _mix(bcol, (255.0, 255.0, 255.0), 0.35)

    jumbo = rng.random() < 0.2
    rank_h = float(rng.uniform(0.125, 0.20) if jumbo else rng.uniform(0.08, 0.125)) * height
    beside = rng.random() < 0.2
    suit_ratio = float(rng.uniform(0.5, 0.85) if beside else rng.uniform(0.55, 0.95))
    inner = 0.0
    if border in ("line", "double", "frame"):
        inner = border_inset + border_width * (3 if border == "double" else 1)
    elif border == "margin":
        inner = border_width
    margin_x = max(float(rng.uniform(0.02, 0.10)) * width, inner + 0.02 * width)
    margin_y = max(float(rng.uniform(0.02, 0.10)) * width, inner + 0.02 * width)

    suit_source = "drawn"
    outline = "none"
    glyph_suits = _suit_fonts()
    if glyph_suits and rng.random() < 0.35:
        path, has_outline = glyph_suits[int(rng.integers(len(glyph_suits)))]
        suit_source = str(path)
        if has_outline and rng.random() < 0.15:
            outline = _choice(rng, ["red", "all"], [0.6, 0.4])
    elif rng.random() < 0.04:
        outline = "red"
    suit_style = SuitStyle.draw(rng)

    red: RGB = _mix((232.0, 62.0, 28.0), (172.0, 14.0, 44.0), float(rng.uniform(0, 1)))
    black: RGB = _choice_rgb(rng, [(22.0, 22.0, 24.0), (50.0, 50.0, 54.0), (24.0, 30.0, 66.0),
                                   (8.0, 8.0, 8.0)])
    colors = (black, red, red, black)
    if rng.random() < 0.1:
        diamond = _choice_rgb(rng, [(30.0, 80.0, 200.0), (235.0, 140.0, 20.0)])
        club = _choice_rgb(rng, [(20.0, 130.0, 60.0), (20.0, 110.0, 90.0)])
        if diamond[2] > 150 and rng.random() < 0.3:
            diamond, club = (235.0, 140.0, 20.0), (30.0, 80.0, 200.0)
        colors = (black, red, diamond, club)

    court_palette = (
        _mix((200.0, 30.0, 35.0), (230.0, 70.0, 40.0), float(rng.uniform(0, 1))),
        _mix((30.0, 60.0, 170.0), (40.0, 110.0, 200.0), float(rng.uniform(0, 1))),
        _mix((240.0, 195.0, 40.0), (225.0, 165.0, 30.0), float(rng.uniform(0, 1))),
        (25.0, 25.0, 30.0),
    )
    return DeckDesign(
        seed=seed, width=width, height=height, radius=radius, paper=paper_rgb, border=border,
        border_inset=border_inset, border_width=border_width, border_color=bcol, font=font,
        ten=_choice(rng, ["font", "tight", "spaced"], [0.35, 0.35, 0.3]),
        ten_gap=float(rng.uniform(-0.04, 0.02)), ten_squeeze=float(rng.uniform(0.95, 1.4)),
        french=bool(rng.random() < 0.25), french_ace=_choice(rng, ["1", "A"], [0.6, 0.4]),
        rank_h=rank_h, suit_ratio=suit_ratio, beside=beside,
        index_gap=float(rng.uniform(0.04, 0.16)), left_align=bool(rng.random() < 0.15),
        margin_x=margin_x, margin_y=margin_y, four_corners=bool(rng.random() < 0.07),
        suit_source=suit_source, suit_style=suit_style, outline=outline,
        colors=colors,
        pip_frac=float(rng.uniform(0.09, 0.16)),
        pip_pad=float(rng.uniform(0.05, 0.11)), court_pad=float(rng.uniform(0.025, 0.07)),
        jumbo_small_pips=bool(jumbo and rng.random() < 0.6),
        ace_frac=float(rng.uniform(0.3, 0.65)),
        ornate_ace=_choice(rng, ["none", "halo", "dots", "rays"], [0.5, 0.2, 0.15, 0.15]),
        ornate_all_aces=bool(rng.random() < 0.15),
        court_frame=_choice_rgb(rng, [(25.0, 25.0, 30.0), (30.0, 55.0, 140.0),
                                      (180.0, 140.0, 40.0), (170.0, 30.0, 35.0)]),
        court_frame_w=float(rng.uniform(0.6, 2.2)),
        court_palette=court_palette,
        court_suit=bool(rng.random() < 0.5), court_letter=bool(rng.random() < 0.3),
        court_divider=_choice(rng, ["none", "line", "diagonal"], [0.4, 0.3, 0.3]),
        noise=float(rng.uniform(0.0, 3.0)) if rng.random() < 0.6 else 0.0,
        texture=float(rng.uniform(0.0, 5.0)) if rng.random() < 0.4 else 0.0,
        art_seed=int(rng.integers(2**62)),
    )


def _choice_rgb(rng: np.random.Generator, items: Sequence[RGB]) -> RGB:
    return items[int(rng.integers(len(items)))]


# --- rendering ------------------------------------------------------------------


class _Deck:
    """A design's glyphs and geometry, in drawing pixels (SS times final)."""

    def __init__(self, d: DeckDesign) -> None:
        self.d = d
        self.w, self.h = d.width * SS, d.height * SS
        font = _pil_font(str(d.font), _RENDER)
        self.rank_text = {r: r for r in RANKS}
        self.rank_text["T"] = "10"
        if d.french:
            self.rank_text.update(FRENCH)
            self.rank_text["A"] = d.french_ace
        raw = {r: _ink(_text_mask(font, t))
               for r, t in self.rank_text.items() if r != "T"}
        raw["T"] = self._ten(font, raw)
        # one scale for every rank: the K (or R) is rank_h high
        ref = raw["K"].shape[0]
        scale = d.rank_h * SS / ref
        self.rank_ink = raw
        self.rank_size = {r: (m.shape[1] * scale, m.shape[0] * scale) for r, m in raw.items()}
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
            return _ink(_text_mask(font, "10"))
        one = _ink(_text_mask(font, "1"))
        zero = _ink(_text_mask(font, "0"))
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
            font = _pil_font(d.suit_source, _RENDER)
            out = {}
            for s in SUITS:
                outlined = d.outline == "all" or (d.outline == "red" and s in "HD")
                ch = SUIT_OUTLINE_CHARS[s] if outlined else SUIT_CHARS[s]
                out[s] = _ink(_text_mask(font, ch))
            return out
        return {s: _suit_shape(s, d.suit_style) for s in SUITS}

    def _outlined(self, s: str, ink: F32, frac: float) -> F32:
        d = self.d
        if d.suit_source == "drawn" and (d.outline == "all" or (d.outline == "red" and s in "HD")):
            return _outline(ink, frac)
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
            _stamp(block, self.rank_ink[rank], rx, 0, rw, rh)
            top_rank = self.rank_size["K"][1]
            sy = max(0.0, (top_rank - sh) / 2) if not d.left_align else 0.0
            _stamp(block, self.idx_suit_ink[suit], self.rank_w + self.gap, sy, sw, sh)
        else:
            col = bw
            rx = 0.0 if d.left_align else (col - rw) / 2
            sx = 0.0 if d.left_align else (col - sw) / 2
            _stamp(block, self.rank_ink[rank], rx, 0, rw, rh)
            # the suit at one height for every rank (lower under a Q whose tail hangs)
            top = max(self.rank_top, rh)
            _stamp(block, self.idx_suit_ink[suit], sx, top + self.gap, sw, sh)
        return block

    def pip(self, suit: str, h: float) -> F32:
        m = self.pip_ink[suit]
        return _resize(m, round(m.shape[1] / m.shape[0] * h), round(h))


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


def _draw_pips(canvas: F32, deck: _Deck, rank: str, suit: str, color: RGB) -> None:
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
        _paint(canvas, m, round(cx - m.shape[1] / 2), round(cy - m.shape[0] / 2), color)


def _draw_ace(canvas: F32, deck: _Deck, suit: str, color: RGB) -> None:
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
    m = _resize(ink, round(pw), round(ph))
    if ornate == "halo":
        t = max(2, round(ph * 0.05))
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * t + 1, 2 * t + 1))
        pad = np.pad(m, 4 * t)
        ring = np.clip(cv2.dilate(pad, k, iterations=3) - cv2.dilate(pad, k, iterations=2), 0, 1)
        _paint(canvas, np.asarray(ring, np.float32), round(cx - pad.shape[1] / 2),
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
        _paint(canvas, _ink(orn), round(cx - c), round(cy - c),
               color)
    _paint(canvas, m, round(cx - pw / 2), round(cy - ph / 2), color)


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


def _draw_court(canvas: F32, deck: _Deck, rank: str, suit: str, color: RGB,
                rng: np.random.Generator) -> None:
    d = deck.d
    x0, y0, x1, y1 = (round(v) for v in deck.court_field)
    fw, fh = x1 - x0, y1 - y0
    if fw < 8 or fh < 8:
        return
    bg = _mix(d.paper, (255.0, 255.0, 255.0), 0.3) if rng.random() < 0.7 else _mix(
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
        font = _pil_font(str(d.font), _RENDER)
        letter = _ink(_text_mask(font, deck.rank_text[rank]))
        lw_ = letter.shape[1] / letter.shape[0] * s
        blk = np.zeros((int(s) + 2, int(lw_) + 2), np.float32)
        _stamp(blk, letter, 0, 0, lw_, s)
        _paint(sub, blk, int(x), int(pad), color)
        _paint(sub, blk[::-1, ::-1].copy(), int(fw - x - blk.shape[1]),
               int(fh - pad - blk.shape[0]), color)
        x += lw_ + s * 0.2
    if d.court_suit:
        m = deck.pip(suit, s)
        _paint(sub, m, int(x), int(pad), color)
        _paint(sub, m[::-1, ::-1].copy(), int(fw - x - m.shape[1]), int(fh - pad - m.shape[0]),
               color)


def _render_card(deck: _Deck, code: str, index: int) -> U8:
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
        inner = _rounded_box(h, w, bw, bw, w - bw, h - bw, max(r - bw, r * 0.4))
        _paint(canvas, inner, 0, 0, d.paper)
    elif d.border in ("line", "frame", "double"):
        bi, bwid = d.border_inset * SS, d.border_width * SS
        ring = _rounded_box(h, w, bi, bi, w - bi, h - bi, max(r - bi, 0.0), bwid)
        _paint(canvas, ring, 0, 0, d.border_color)
        if d.border == "double":
            b2 = bi + 2 * bwid
            ring = _rounded_box(h, w, b2, b2, w - b2, h - b2, max(r - b2, 0.0), bwid)
            _paint(canvas, ring, 0, 0, d.border_color)
    rng = np.random.default_rng([d.art_seed, index])
    if rank == "A":
        _draw_ace(canvas, deck, suit, color)
    elif rank in "JQK":
        _draw_court(canvas, deck, rank, suit, color, rng)
    else:
        _draw_pips(canvas, deck, rank, suit, color)
    block = deck.index_block(rank, suit)
    mx, my = round(d.margin_x * SS), round(d.margin_y * SS)
    turned = np.ascontiguousarray(block[::-1, ::-1])
    bh, bw_ = block.shape
    _paint(canvas, block, mx, my, color)
    _paint(canvas, turned, w - mx - bw_, h - my - bh, color)
    if d.four_corners:
        _paint(canvas, block, w - mx - bw_, my, color)
        _paint(canvas, turned, mx, h - my - bh, color)
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
    alpha = _rounded_box(d.height, d.width, 0, 0, d.width, d.height, d.radius)
    out = np.empty((d.height, d.width, 4), np.uint8)
    out[:, :, :3] = rgb[:, :, ::-1]
    out[:, :, 3] = np.round(alpha * 255).astype(np.uint8)
    return out


@functools.lru_cache(maxsize=4)
def _deck(seed: int) -> _Deck:
    return _Deck(deck_design(seed))


def procedural_deck(seed: int) -> dict[str, npt.NDArray[np.uint8]]:
    """Deck `seed`'s 52 faces: code ("AS", "TH", ...) to a BGRA image
    (alpha 0 outside the rounded corners), portrait, CARD_H pixels high."""
    deck = _deck(seed)
    return {code: _render_card(deck, code, i) for i, code in enumerate(CODES)}


def index_box(seed: int) -> tuple[int, int, int, int]:
    """Where deck `seed` prints its top-left index, x0, y0, x1, y1 in the
    face's pixels (the same box turned 180 degrees holds the other one)."""
    deck = _deck(seed)
    bw, bh = deck.block
    x0, y0 = deck.d.margin_x, deck.d.margin_y
    return (int(x0), int(y0), int(np.ceil(x0 + bw / SS)) + 1, int(np.ceil(y0 + bh / SS)) + 1)


# --- command line -------------------------------------------------------------------


def parse_seeds(text: str) -> list[int]:
    """"0-19", "3", "0-4,9,12-13" -> the seeds (non-negative)."""
    out: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def contact_sheet(decks: Sequence[dict[str, npt.NDArray[np.uint8]]], codes: Sequence[str],
                  card_h: int = 175) -> npt.NDArray[np.uint8]:
    """A BGR sheet: a row per deck, the given cards on a green felt."""
    cell_w = int(card_h / 1.3) + 8
    sheet = np.empty((len(decks) * (card_h + 8) + 8, len(codes) * cell_w + 8, 3), np.uint8)
    sheet[:] = (40, 90, 40)
    for i, deck in enumerate(decks):
        for j, code in enumerate(codes):
            face = deck[code]
            fw = round(face.shape[1] * card_h / face.shape[0])
            img = np.asarray(cv2.resize(face, (fw, card_h), interpolation=cv2.INTER_AREA),
                             np.uint8)
            a = _ink(img[:, :, 3:4])
            y, x = 8 + i * (card_h + 8), 8 + j * cell_w
            sub = sheet[y : y + card_h, x : x + fw].astype(np.float32)
            sheet[y : y + card_h, x : x + fw] = (img[:, :, :3] * a + sub * (1 - a)).astype(
                np.uint8)
    return sheet


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m calibration.procedural_decks",
                                 description="Write procedural decks as DIR/proc-<seed>/<code>.png")
    ap.add_argument("--out", type=Path, required=True, help="output directory")
    ap.add_argument("--seeds", default="0-19", help='seeds, e.g. "0-19" or "0-4,9"')
    ap.add_argument("--sheet", type=Path, default=None,
                    help="also write a contact sheet of a few cards of every deck here")
    args = ap.parse_args(argv)
    seeds = parse_seeds(args.seeds)
    print(f"{len(font_paths())} usable fonts, {len(_suit_fonts())} with suit symbols",
          file=sys.stderr)
    sheet_decks = []
    for seed in seeds:
        deck = procedural_deck(seed)
        out = args.out / f"proc-{seed}"
        out.mkdir(parents=True, exist_ok=True)
        for code, face in deck.items():
            cv2.imwrite(str(out / f"{code}.png"), face)
        if args.sheet is not None:
            sheet_decks.append(deck)
        print(f"proc-{seed}: {deck_design(seed).font.name}", file=sys.stderr)
    if args.sheet is not None:
        codes = ("AS", "5H", "TD", "QC", "KH", "7S", "9D", "JC")
        cv2.imwrite(str(args.sheet), contact_sheet(sheet_decks, codes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
