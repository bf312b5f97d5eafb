"""The generic model: rank and suit templates drawn here, for decks with
standard indices (A K Q J 10..2 and the four French suits) that have not been
calibrated.

Ranks come from OpenCV's built-in Hershey fonts (always present, unlike
system TrueType fonts) in several weights and widths; suits are drawn as
polygons in several proportions. Everything is rendered large, then shrunk
to index size, so the templates carry the same blur as a camera image.
Built once per process (about a second) and kept in memory.
"""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from drivers.camera.features import rank_features, suit_features
from drivers.camera.glyphs import FloatMap
from drivers.camera.model import RANKS, GlyphModel, TemplateSet, Thresholds

FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)
RANK_TEXT = {r: ("10" if r == "T" else r) for r in RANKS}
_CANVAS = 160


def ink_bbox(ink: FloatMap, level: float = 0.35) -> FloatMap:
    """Crop an ink map to the box of its pixels above `level`."""
    ys, xs = np.nonzero(ink > level)
    if len(xs) == 0:
        return ink
    return ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def shrink(ink: FloatMap, height: int) -> FloatMap:
    """Shrink a large glyph to camera size, as the lens and sensor would."""
    h, w = ink.shape
    scale = height / h
    small = cv2.resize(ink, (max(2, round(w * scale)), height), interpolation=cv2.INTER_AREA)
    return np.asarray(small, np.float32)


def render_text(text: str, font: int, thickness: int, stretch: float, slant: float) -> FloatMap:
    """Rank text as an ink map (1 = ink), cropped to its box."""
    canvas = np.zeros((_CANVAS, _CANVAS * 2), np.uint8)
    scale = 3.0 if font not in (cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_COMPLEX_SMALL) else 5.0
    (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
    org = ((canvas.shape[1] - tw) // 2, (canvas.shape[0] + th) // 2)
    cv2.putText(canvas, text, org, font, scale, 255, thickness, cv2.LINE_AA)
    ink = ink_bbox(canvas.astype(np.float32) / 255.0)
    h, w = ink.shape
    m = np.array([[stretch, -slant, slant * h + 4], [0, 1, 4]], np.float32)
    out = cv2.warpAffine(ink, m, (round(w * stretch + abs(slant) * h) + 8, h + 8))
    return ink_bbox(np.asarray(out, np.float32))


def _poly(points: list[tuple[float, float]], size: int) -> list[np.ndarray]:
    return [np.array([[round(x * size), round(y * size)] for x, y in points], np.int32)]


def _heart(img: np.ndarray, s: int, lobe: float, point: float) -> None:
    r = lobe * s
    cv2.circle(img, (round(0.5 * s - r * 0.95), round(0.3 * s)), round(r), 255, -1, cv2.LINE_AA)
    cv2.circle(img, (round(0.5 * s + r * 0.95), round(0.3 * s)), round(r), 255, -1, cv2.LINE_AA)
    left, right = 0.5 - 1.9 * lobe, 0.5 + 1.9 * lobe
    pts = [(left + 0.01, 0.34), (right - 0.01, 0.34), (0.5, 0.3 + point)]
    cv2.fillPoly(img, _poly(pts, s), 255, cv2.LINE_AA)


def _stem(img: np.ndarray, s: int, top: float, width: float) -> None:
    pts = [(0.5 - 0.03, top), (0.5 + 0.03, top), (0.5 + width, 0.9), (0.5 - width, 0.9)]
    cv2.fillPoly(img, _poly(pts, s), 255, cv2.LINE_AA)


def draw_suit(suit: str, variant: int) -> FloatMap:
    """One suit symbol; `variant` picks proportions (0..5)."""
    s = _CANVAS
    img = np.zeros((s, s), np.uint8)
    lobe = (0.2, 0.22, 0.24, 0.21, 0.23, 0.19)[variant % 6]
    if suit == "H":
        _heart(img, s, lobe, 0.45 + 0.03 * (variant % 3))
    elif suit == "S":
        _heart(img, s, lobe, 0.38 + 0.03 * (variant % 3))
        img[:] = np.flipud(img)
        img[:] = np.roll(img, -round(0.14 * s), axis=0)
        _stem(img, s, 0.6, 0.09 + 0.02 * (variant % 2))
    elif suit == "D":
        half_w = (0.3, 0.34, 0.37, 0.32, 0.35, 0.28)[variant % 6]
        bow = 0.03 * (variant % 3)  # slightly concave sides on some decks
        pts = [
            (0.5, 0.08),
            (0.5 + 0.5 * half_w - bow, 0.29),
            (0.5 + half_w, 0.5),
            (0.5 + 0.5 * half_w - bow, 0.71),
            (0.5, 0.92),
            (0.5 - 0.5 * half_w + bow, 0.71),
            (0.5 - half_w, 0.5),
            (0.5 - 0.5 * half_w + bow, 0.29),
        ]
        cv2.fillPoly(img, _poly(pts, s), 255, cv2.LINE_AA)
    elif suit == "C":
        r = round((lobe * 0.85) * s)
        cv2.circle(img, (s // 2, round(0.28 * s)), r, 255, -1, cv2.LINE_AA)
        cv2.circle(img, (round(0.5 * s - 1.05 * r), round(0.55 * s)), r, 255, -1, cv2.LINE_AA)
        cv2.circle(img, (round(0.5 * s + 1.05 * r), round(0.55 * s)), r, 255, -1, cv2.LINE_AA)
        cv2.fillPoly(img, _poly([(0.5, 0.3), (0.42, 0.55), (0.58, 0.55)], s), 255, cv2.LINE_AA)
        _stem(img, s, 0.5, 0.09 + 0.02 * (variant % 2))
    else:
        raise ValueError(f"unknown suit {suit!r}")
    return ink_bbox(img.astype(np.float32) / 255.0)


def _rank_templates() -> tuple[list[np.ndarray], list[str]]:
    vecs: list[np.ndarray] = []
    labels: list[str] = []
    for rank, text in RANK_TEXT.items():
        for font in FONTS:
            for thickness in (2, 4, 7):
                for stretch in (0.75, 1.0, 1.3):
                    for slant in (0.0, 0.08):
                        ink = render_text(text, font, thickness, stretch, slant)
                        for height in (24, 40):
                            vecs.append(rank_features(shrink(ink, height)))
                            labels.append(rank)
    return vecs, labels


def _suit_templates() -> tuple[list[np.ndarray], list[str]]:
    vecs: list[np.ndarray] = []
    labels: list[str] = []
    for suit in "SHDC":
        for variant in range(6):
            base = draw_suit(suit, variant)
            for stretch in (0.85, 1.0, 1.15):
                for angle in (-4.0, 0.0, 4.0):
                    ink = _affine(base, stretch, angle)
                    for height in (14, 24):
                        vecs.append(suit_features(shrink(ink, height)))
                        labels.append(suit)
    return vecs, labels


def _affine(ink: FloatMap, stretch: float, angle: float) -> FloatMap:
    pad = np.pad(ink, 8)
    c = (pad.shape[1] / 2, pad.shape[0] / 2)
    m = cv2.getRotationMatrix2D(c, angle, 1.0)
    m[0] *= stretch  # stretched about the left edge; the box is cut again below
    size = (math.ceil(pad.shape[1] * stretch) + 2, pad.shape[0])
    return ink_bbox(np.asarray(cv2.warpAffine(pad, m, size), np.float32))


@functools.lru_cache(maxsize=1)
def generic_model() -> GlyphModel:
    rv, rl = _rank_templates()
    sv, sl = _suit_templates()
    return GlyphModel(
        ranks=TemplateSet(np.stack(rv), rl),
        suits=TemplateSet(np.stack(sv), sl),
        thresholds=Thresholds(),
        name="generic",
    )
