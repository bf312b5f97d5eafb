"""The classic Raspberry Pi card detector, as a baseline for bench.vision.

The approach of the widely copied open Pi playing-card detector: one global
threshold set 60 grey levels above a single background pixel, the largest
four-cornered contours as cards, a warp to 200x300, the 32x84 corner zoomed
4x and thresholded against one white pixel, the largest contour of the top
part as the rank and of the bottom part as the suit, resized to 70x125 /
70x100, and the least absolute difference against one training image per
rank and per suit (rejected above 2000 / 700). Written here from that
description (findContours returning two values, as OpenCV 4+ does), trained
on the same deck images as our calibration, run on the same frames.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[Any]

BKG_THRESH = 60
CARD_THRESH = 30
CORNER_W, CORNER_H = 32, 84
RANK_W, RANK_H = 70, 125
SUIT_W, SUIT_H = 70, 100
RANK_DIFF_MAX = 2000
SUIT_DIFF_MAX = 700
CARD_MIN_AREA, CARD_MAX_AREA = 8000, 200000  # scaled from 25000..120000 at 1280x720


@dataclass
class Baseline:
    ranks: dict[str, Image]
    suits: dict[str, Image]

    def read(self, frame: Image) -> str | None:
        """The first card found in the frame, or None (nothing / Unknown)."""
        for corners in find_cards(frame):
            warp = flatten(frame, corners)
            glyphs = rank_suit(warp)
            if glyphs is None:
                return None
            return self.match(*glyphs)
        return None

    def match(self, rank: Image, suit: Image) -> str | None:
        best_r, dr = _best(rank, self.ranks)
        best_s, ds = _best(suit, self.suits)
        if dr > RANK_DIFF_MAX or ds > SUIT_DIFF_MAX:
            return None
        return best_r + best_s


def _best(img: Image, train: dict[str, Image]) -> tuple[str, float]:
    scores = {k: float(np.sum(cv2.absdiff(img, t)) / 255) for k, t in train.items()}
    k = min(scores, key=lambda x: scores[x])
    return k, scores[k]


def find_cards(frame: Image) -> list[Image]:
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    blur = cv2.GaussianBlur(gray, (5, 5), 0)
    h, w = gray.shape
    bkg_level = int(blur[h // 100, w // 2])
    _, thresh = cv2.threshold(blur, bkg_level + BKG_THRESH, 255, cv2.THRESH_BINARY)
    contours, hier = cv2.findContours(thresh, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return []
    order = sorted(range(len(contours)), key=lambda i: cv2.contourArea(contours[i]), reverse=True)
    out = []
    for i in order:
        c = contours[i]
        area = cv2.contourArea(c)
        peri = cv2.arcLength(c, True)
        approx = cv2.approxPolyDP(c, 0.01 * peri, True)
        if CARD_MIN_AREA < area < CARD_MAX_AREA and hier[0][i][3] == -1 and len(approx) == 4:
            out.append(approx.reshape(4, 2).astype(np.float32))
    return out


def flatten(frame: Image, pts: Image) -> Image:
    """Warp to 200x300 portrait, corners ordered by sum and difference (as
    the classic code does for a card standing roughly upright)."""
    s = pts.sum(axis=1)
    d = np.diff(pts, axis=1).ravel()
    tl, br = pts[np.argmin(s)], pts[np.argmax(s)]
    tr, bl = pts[np.argmin(d)], pts[np.argmax(d)]
    src = np.array([tl, tr, br, bl], np.float32)
    dst = np.array([[0, 0], [199, 0], [199, 299], [0, 299]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.cvtColor(cv2.warpPerspective(frame, m, (200, 300)), cv2.COLOR_BGR2GRAY)


def rank_suit(warp: Image) -> tuple[Image, Image] | None:
    corner = warp[0:CORNER_H, 0:CORNER_W]
    zoom = cv2.resize(corner, (0, 0), fx=4, fy=4)
    white = int(zoom[15, (CORNER_W * 4) // 2])
    thresh_level = max(1, white - CARD_THRESH)
    _, q = cv2.threshold(zoom, thresh_level, 255, cv2.THRESH_BINARY_INV)
    rank, suit = q[20:185, 0:128], q[186:336, 0:128]
    r = _largest(rank, (RANK_W, RANK_H))
    s = _largest(suit, (SUIT_W, SUIT_H))
    if r is None or s is None:
        return None
    return r, s


def _largest(part: Image, size: tuple[int, int]) -> Image | None:
    contours, _ = cv2.findContours(part, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    c = max(contours, key=cv2.contourArea)
    x, y, w, h = cv2.boundingRect(c)
    return cv2.resize(part[y : y + h, x : x + w], size)


def train(faces: dict[str, Image]) -> Baseline:
    """One training image per rank (from the spades) and per suit (from the
    aces' neighbours, the twos), as the classic detector ships them."""
    ranks: dict[str, Image] = {}
    suits: dict[str, Image] = {}
    for code, face in faces.items():
        warp = cv2.cvtColor(
            cv2.resize(face, (200, 300), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY
        )
        glyphs = rank_suit(warp)
        if glyphs is None:
            continue
        if code[1] == "S":
            ranks[code[0]] = glyphs[0]
        if code[0] == "2":
            suits[code[1]] = glyphs[1]
    return Baseline(ranks, suits)
