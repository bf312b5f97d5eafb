"""Whole cards: outlines found by a local threshold, warped upright to the
canonical size, and both index corners read.

Cards are found as regions lighter than their surroundings with a local
(adaptive) threshold, so a light table or light falling off across the frame
does not hide them. Each card is warped upright with a border of its
surroundings, so that each index corner (top left, and bottom right turned
half a turn) is placed from the card's own edges (drivers.vision.corner),
exactly as in the shoe; the card is read only when the corners agree or one
corner is unreadable (half covered) and the other is sure. Calibration
checks a deck's faces this way, and frame mode (drivers.vision.frame)
warps the outlines it finds with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from drivers.vision.corner import CARD_H, CARD_W, CORNER_W, CornerPose, corner_patch, shoe_corners
from drivers.vision.glyphs import Image
from drivers.vision.reader import CornerRead, Model

GLYPH_CORNER_W, GLYPH_CORNER_H = 46, 92  # index corner crop used by calibration checks
BORDER = 14  # canonical pixels of surroundings kept around a warped card
# Long side over short side of a card outline. Cards are 1.35 (some poker
# decks) to 1.75 (some national decks) long; a photo's export may stretch
# them (a 4:3 phone frame squeezed to a square makes a 1.4 card 1.05 or
# 1.87), and a camera's angle foreshortens them.
ASPECT_RANGE = (0.95, 2.0)
MIN_SOLIDITY = 0.90  # contour area / rectangle area


@dataclass(frozen=True)
class FoundCard:
    corners: npt.NDArray[np.float32]  # 4x2, clockwise from the card's top left
    centre: tuple[float, float]
    size: tuple[float, float]  # short side, long side in pixels
    single: bool  # outline is one clean rectangle (not two cards stuck together)


def card_mask(gray: Image, min_short_side: float) -> Image:
    """Pixels clearly lighter than their neighbourhood (a window about twice a
    card wide), computed at half size because only outlines matter."""
    small = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2), interpolation=cv2.INTER_AREA)
    block = int(max(31, min_short_side * 1.6)) | 1
    # Blurred first so the grain of the felt does not pass the local test.
    # The middle of a large card may fail it (its window is all card): that
    # leaves a hole, and only the outer outline is used.
    small = cv2.GaussianBlur(small, (5, 5), 0)
    mask = cv2.adaptiveThreshold(small, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY,
                                 block, -20)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # Close gaps that a dark index or picture cuts in the card's rim.
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    return cv2.resize(mask, (gray.shape[1], gray.shape[0]), interpolation=cv2.INTER_NEAREST)


def find_cards(gray: Image, short_side: tuple[float, float] = (60.0, 260.0)) -> list[FoundCard]:
    """Card outlines in a grey frame; short_side bounds the card width in pixels."""
    mask = card_mask(gray, short_side[0] / 2)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    found: list[FoundCard] = []
    lo, hi = short_side
    for c in contours:
        area = cv2.contourArea(c)
        if area < 0.8 * lo * lo * ASPECT_RANGE[0]:
            continue
        (cx, cy), (w, h), angle = cv2.minAreaRect(c)
        short, long_ = min(w, h), max(w, h)
        # Out of the size range, but still reported when it could be two cards
        # stuck together (a big blob of card-like area).
        outside = short < 0.85 * lo or short > 1.15 * hi
        if outside and not (short <= 2.3 * hi and area > lo * lo):
            continue
        # The hull ignores notches a glyph or the picture cuts into the rim;
        # two cards stuck together still make a hull unlike one rectangle.
        solidity = cv2.contourArea(cv2.convexHull(c)) / max(w * h, 1.0)
        single = (ASPECT_RANGE[0] <= long_ / max(short, 1.0) <= ASPECT_RANGE[1]
                  and solidity >= MIN_SOLIDITY and lo * 0.85 <= short <= hi * 1.15)
        box = cv2.boxPoints(((cx, cy), (w, h), angle)).astype(np.float32)
        found.append(FoundCard(portrait_order(box), (float(cx), float(cy)),
                               (float(short), float(long_)), single))
    return found


def portrait_order(box: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Order the 4 corners clockwise starting so that the first side is a
    short side (the card's top). Which short side is the top does not
    matter: the index is in two opposite corners."""
    centre = box.mean(axis=0)
    ang = np.arctan2(box[:, 1] - centre[1], box[:, 0] - centre[0])
    pts = box[np.argsort(ang)]  # clockwise in image coordinates (y down)
    if np.linalg.norm(pts[1] - pts[0]) > np.linalg.norm(pts[2] - pts[1]):
        pts = np.roll(pts, -1, axis=0)
    return pts.astype(np.float32)


def warp_card(frame: Image, corners: npt.NDArray[np.float32], border: int = 0) -> Image:
    """The card warped upright to the canonical size, with `border` canonical
    pixels of its surroundings on each side."""
    dst = np.array([[0, 0], [CARD_W - 1, 0], [CARD_W - 1, CARD_H - 1], [0, CARD_H - 1]],
                   np.float32) + border
    m = cv2.getPerspectiveTransform(corners, dst)
    size = (CARD_W + 2 * border, CARD_H + 2 * border)
    return cv2.warpPerspective(frame, m, size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def corners_of(card: Image) -> tuple[Image, Image]:
    """The two index corners of a canonical card, both upright (the crops
    the calibration checks look for glyphs in)."""
    tl = np.ascontiguousarray(card[:GLYPH_CORNER_H, :GLYPH_CORNER_W])
    br = np.ascontiguousarray(
        card[CARD_H - GLYPH_CORNER_H :, CARD_W - GLYPH_CORNER_W :][::-1, ::-1])
    return tl, br


def corner_patches(bordered: Image, width: int = CORNER_W) -> list[Image]:
    """Corner patches (`width` canonical pixels wide) of both index corners
    of a card warped with BORDER: each placed from the card's edges when
    they show, else where the warp put them."""
    out = []
    for view in (bordered, np.ascontiguousarray(bordered[::-1, ::-1])):
        region = np.ascontiguousarray(view[: BORDER + 130, : BORDER + 80])
        surround = float(np.median(view[: BORDER // 2, :, 1])) if view.ndim == 3 else float(
            np.median(view[: BORDER // 2]))
        poses = [p for p in shoe_corners(region, 1.0, surround)
                 if abs(p.origin[0] - BORDER) < 8 and abs(p.origin[1] - BORDER) < 8]
        pose = poses[0] if poses else CornerPose((float(BORDER), float(BORDER)), (1.0, 0.0),
                                                 (0.0, 1.0), "card")
        out.append(corner_patch(view, pose, width))
    return out


def read_canonical(card: Image, model: Model
                   ) -> tuple[str | None, float, tuple[CornerRead | None, ...]]:
    """Read a card already warped to the canonical size (no border): it is
    laid on a dark surround first, as a card on the felt."""
    bordered = cv2.copyMakeBorder(card, BORDER, BORDER, BORDER, BORDER, cv2.BORDER_CONSTANT,
                                  value=(48, 46, 44) if card.ndim == 3 else 46)
    return read_bordered(bordered, model)


def read_bordered(bordered: Image, model: Model
                  ) -> tuple[str | None, float, tuple[CornerRead | None, ...]]:
    return decide(tuple(model.read_corner(p)
                        for p in corner_patches(bordered, model.corner_width)))


def decide(reads: tuple[CornerRead, ...]
           ) -> tuple[str | None, float, tuple[CornerRead | None, ...]]:
    """The card of a card's corner reads: the one card they read, else none."""
    cards = {r.card for r in reads if r.card is not None}
    if len(cards) != 1:
        # No corner read, or the two corners disagree: never guess.
        best = max((r.confidence for r in reads), default=0.0)
        return None, best if not cards else 0.0, reads
    card_code = cards.pop()
    confs = [r.confidence for r in reads if r.card == card_code]
    # Two agreeing corners are surer than either alone.
    conf = 1.0 - float(np.prod([1.0 - c for c in confs]))
    return card_code, conf, reads
