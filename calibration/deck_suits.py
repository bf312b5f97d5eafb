"""The suits of the procedural decks: drawn from curves with their own proportions,
or a font's U+2660-2667 symbols where a font's four symbols are the four suits."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from calibration.deck_fonts import BAD_STYLE, F32, font_files, ink_of, pil_font, text_mask

SUITS = "SHDC"
SUIT_CHARS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
SUIT_OUTLINE_CHARS = {"S": "\u2664", "H": "\u2661", "D": "\u2662", "C": "\u2667"}


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
        a = ink_of(self.img)
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


def suit_shape(suit: str, st: SuitStyle) -> F32:
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


def outline_of(ink: F32, frac: float) -> F32:
    """A shape's outline, its stroke frac of the shape's height."""
    t = max(2, round(ink.shape[0] * frac))
    pad = np.pad(ink, t + 1)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * t + 1, 2 * t + 1))
    inner = cv2.erode(pad, k)
    out: F32 = np.clip(pad - inner, 0, 1)[t + 1 : -t - 1, t + 1 : -t - 1]
    return np.ascontiguousarray(out)


@functools.cache
def suit_fonts() -> tuple[tuple[Path, bool], ...]:
    """(path, has outline suits) of the upright fonts whose U+2660-2667
    symbols are the four suits: four different shapes, matched one to one
    to the drawn suits (a font that draws its club as a spade is left
    out)."""
    refs = [_unit(suit_shape(s, SuitStyle.plain())) for s in SUITS]
    out: list[tuple[Path, bool]] = []
    seen: list[F32] = []
    for path in font_files():
        if BAD_STYLE.search(path.stem):
            continue
        try:
            font = pil_font(str(path), 96)
            family, style = font.getname()
        except (OSError, ValueError):
            continue
        if BAD_STYLE.search(f"{family} {style}"):
            continue
        notdef = text_mask(font, "\ue000").tobytes()
        masks = [text_mask(font, SUIT_CHARS[s]) for s in SUITS]
        if any(m.size == 0 or m.tobytes() == notdef for m in masks):
            continue
        if not _are_suits([ink_of(m) for m in masks], refs):
            continue
        # one font of a design (the URW fonts, Liberation's weights share theirs)
        key: F32 = np.concatenate([_unit(ink_of(m)) for m in masks]) * np.float32(0.5)
        if any(float(key @ k) > 0.97 for k in seen):
            continue
        seen.append(key)
        outl = [text_mask(font, SUIT_OUTLINE_CHARS[s]) for s in SUITS]
        has_outline = (
            all(m.size > 0 and m.tobytes() != notdef for m in outl)
            and all(float(m.mean()) < 0.8 * float(f.mean()) for m, f in zip(outl, masks,
                                                                          strict=True))
            and _are_suits([_fill_holes(ink_of(m)) for m in outl], refs))
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
