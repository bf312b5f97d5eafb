"""Glyph features: a size-normalised ink image and its gradient directions.

Both parts are unit vectors, so a template match is a dot product. Glyphs are
stretched to a fixed box: that cancels the width differences between
condensed and wide card fonts, and the aspect ratio is kept as one extra
feature so a narrow glyph is not confused with a wide one.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.glyphs import FloatMap

Vector = npt.NDArray[Any]  # float32

RANK_SIZE = (24, 32)  # width, height of the normalised rank glyph
SUIT_SIZE = (24, 24)
CELLS = 4  # gradient histogram cells per side
BINS = 8  # signed gradient directions

# Relative weights of the parts of a feature vector (sum of squares = 1).
_W_PIXELS = 0.55
_W_GRAD = 0.80
_W_ASPECT = 0.23


def normalise(ink: FloatMap, size: tuple[int, int]) -> FloatMap:
    """Ink map stretched into `size` with a one-pixel margin, lightly blurred."""
    w, h = size
    inner = cv2.resize(ink, (w - 2, h - 2), interpolation=cv2.INTER_AREA)
    out = np.zeros((h, w), np.float32)
    out[1:-1, 1:-1] = inner
    return cv2.GaussianBlur(out, (3, 3), 0.8)


def _unit(v: npt.NDArray[np.float32]) -> Vector:
    n = float(np.linalg.norm(v))
    if n < 1e-6:
        return np.zeros_like(v, dtype=np.float32)
    return (v / n).astype(np.float32)


def _gradient_histogram(img: FloatMap) -> Vector:
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.sqrt(gx * gx + gy * gy)
    ang = np.arctan2(gy, gx)
    bins = ((ang + np.pi) * (BINS / (2 * np.pi))).astype(np.int32) % BINS
    h, w = img.shape
    cy = (np.arange(h) * CELLS // h)[:, None]
    cx = (np.arange(w) * CELLS // w)[None, :]
    index = (cy * CELLS + cx) * BINS + bins
    hist = np.bincount(index.ravel(), weights=mag.ravel(), minlength=CELLS * CELLS * BINS)
    # Square root compresses strong edges so thick and thin strokes look alike.
    return _unit(np.sqrt(hist.astype(np.float32)))


def features(ink: FloatMap, size: tuple[int, int]) -> Vector:
    """Feature vector of one glyph (ink map cut at its bounding box)."""
    h, w = ink.shape
    img = normalise(ink, size)
    small = cv2.resize(img, (size[0] // 2, size[1] // 2), interpolation=cv2.INTER_AREA)
    pixels = _unit(small.ravel() - float(small.mean()))
    grad = _gradient_histogram(img)
    aspect = np.array([np.log(max(w, 1) / max(h, 1))], np.float32)
    v = np.concatenate([_W_PIXELS * pixels, _W_GRAD * grad, _W_ASPECT * aspect])
    return v.astype(np.float32)


def rank_features(ink: FloatMap) -> Vector:
    return features(ink, RANK_SIZE)


def suit_features(ink: FloatMap) -> Vector:
    return features(ink, SUIT_SIZE)
