"""Calibration of the house deck: rank and suit templates learned from the
deck's own faces, and the checks that refuse a deck the reader would misread.

Both `croupier calibrate deck` (52 face images) and `croupier calibrate
camera` (52 cards under the shoe camera) end here with 52 canonical card
images (drivers.camera.frame.CARD_W x CARD_H, BGR).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from calibration.train import TrainingError, train_reader
from calibration.vision_file import CalibrationError, VisionCalibration
from drivers.camera.features import rank_features, suit_features
from drivers.camera.frame import CARD_H, CARD_W, RANK_HEIGHT, corners_of
from drivers.camera.glyphs import Image, IndexGlyphs, find_indices
from drivers.camera.model import RANKS, RED_SUITS, SUITS, TemplateSet, Thresholds

ALL_CARDS = tuple(r + s for s in SUITS for r in RANKS)
MIN_FACE_HEIGHT = 150  # pixels: smaller images do not hold a readable index
# Height over width of a card face: poker 1.40, bridge 1.56, some national
# decks 1.7 and more, with room for a scan's crop.
FACE_RATIO = (1.3, 1.8)
RED_MIN = 0.10  # redness of a red suit's ink; black suits stay below BLACK_MAX
BLACK_MAX = 0.06


def load_face(path: Path) -> Image:
    """A face image as a canonical BGR card (transparent corners turn dark,
    as they would against the shoe's ramp)."""
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise CalibrationError(f"{path}: not a readable image")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 4:
        alpha = img[:, :, 3:4].astype(np.float32) / 255.0
        img = (img[:, :, :3] * alpha + 40.0 * (1.0 - alpha)).astype(np.uint8)
    h, w = img.shape[:2]
    if h < MIN_FACE_HEIGHT:
        raise CalibrationError(f"{path}: {w}x{h} is too small (at least {MIN_FACE_HEIGHT} px high)")
    lo, hi = FACE_RATIO
    if not lo <= h / w <= hi:
        raise CalibrationError(
            f"{path}: {w}x{h} is not a card face in portrait (height/width is {h / w:.2f}; "
            f"cards are {lo} to {hi}: poker 1.40, bridge 1.56, some national decks longer)"
        )
    return cv2.resize(img, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA)


def load_faces(folder: Path) -> dict[str, Image]:
    if not folder.is_dir():
        raise CalibrationError(f"{folder}: not a directory")
    missing = [c for c in ALL_CARDS if not (folder / f"{c}.png").is_file()]
    if missing:
        raise CalibrationError(
            f"{folder}: {len(missing)} of the 52 faces are missing ({' '.join(missing[:13])}"
            f"{' ...' if len(missing) > 13 else ''}); expected files named <rank><suit>.png, "
            "rank A 2-9 T J Q K, suit S H D C"
        )
    return {c: load_face(folder / f"{c}.png") for c in ALL_CARDS}


def _variants(card: Image) -> list[Image]:
    """The card as the camera may see it: sharp, soft, low resolution, turned
    slightly, washed out by glare."""
    out = [card, cv2.GaussianBlur(card, (0, 0), 1.0)]
    small = cv2.resize(card, (CARD_W * 3 // 5, CARD_H * 3 // 5), interpolation=cv2.INTER_AREA)
    out.append(cv2.resize(small, (CARD_W, CARD_H), interpolation=cv2.INTER_LINEAR))
    for angle in (-2.0, 2.0):
        m = cv2.getRotationMatrix2D((CARD_W / 2, CARD_H / 2), angle, 1.0)
        out.append(cv2.warpAffine(card, m, (CARD_W, CARD_H), borderMode=cv2.BORDER_REPLICATE))
    out.append(cv2.addWeighted(card, 0.55, np.full_like(card, 235), 0.45, 0.0))
    # Motion along the ramp and a soft focus, at the low end of the envelope.
    streak = np.full((5, 1), 1.0 / 5, np.float32)
    out.append(cv2.filter2D(cv2.GaussianBlur(card, (0, 0), 0.8), -1, streak))
    out.append(
        cv2.GaussianBlur(cv2.addWeighted(card, 0.7, np.full_like(card, 60), 0.3, 0.0), (0, 0), 1.6)
    )
    return out


def index_of(corner: Image) -> IndexGlyphs | None:
    found = find_indices(corner, RANK_HEIGHT, limit=1)
    return found[0] if found else None


def calibrate_cards(
    cards: dict[str, Image],
    deck: str,
    kind: str = "deck",
    progress: Callable[[str], None] | None = None,
) -> VisionCalibration:
    """Templates from 52 canonical cards, checked; CalibrationError if the
    deck cannot be read reliably."""
    missing = [c for c in ALL_CARDS if c not in cards]
    if missing:
        raise CalibrationError(f"missing cards: {' '.join(missing)}")
    base: dict[str, list[IndexGlyphs]] = {}
    rv, rl, sv, sl, owners = [], [], [], [], []
    for code in ALL_CARDS:
        found = [g for g in (index_of(c) for c in corners_of(cards[code])) if g is not None]
        if not found:
            raise CalibrationError(f"{code}: no index (rank above suit) found in its corners")
        _check_colour(code, found[0])
        base[code] = found
        for variant in _variants(cards[code]):
            for corner in corners_of(variant):
                g = index_of(corner)
                if g is None:
                    continue
                rv.append(rank_features(g.rank_ink))
                rl.append(code[0])
                sv.append(suit_features(g.suit_ink))
                sl.append(code[1])
                owners.append(code)
        if progress:
            progress(code)
    cal = VisionCalibration(
        kind=kind,
        deck=deck,
        rank_vectors=np.stack(rv),
        rank_labels=rl,
        suit_vectors=np.stack(sv),
        suit_labels=sl,
        thresholds=Thresholds(),
    )
    _check_separable(cal, base, np.array(owners))
    try:
        cal.reader = train_reader(cards, deck)
    except TrainingError as exc:
        raise CalibrationError(str(exc)) from None
    return cal


def _check_colour(code: str, index: IndexGlyphs) -> None:
    if index.redness < 0:
        return
    if code[1] in RED_SUITS and index.redness < RED_MIN:
        raise CalibrationError(f"{code}: the suit is not red; is the image named right?")
    if code[1] not in RED_SUITS and index.redness > BLACK_MAX:
        raise CalibrationError(f"{code}: the suit is red; is the image named right?")


def _check_separable(
    cal: VisionCalibration, base: dict[str, list[IndexGlyphs]], owners: np.ndarray
) -> None:
    """Leave one card out: each card's index, read with the templates of the
    other 51 cards only, must not be read as another rank or suit. A deck
    whose '6' reads as '9' (or images named wrongly) is refused here."""
    rank_labels = np.array(cal.rank_labels)
    suit_labels = np.array(cal.suit_labels)
    for code, found in base.items():
        keep = owners != code
        ranks = TemplateSet(cal.rank_vectors[keep], [str(x) for x in rank_labels[keep]])
        suits = TemplateSet(cal.suit_vectors[keep], [str(x) for x in suit_labels[keep]])
        g = found[0]
        r = ranks.score(rank_features(g.rank_ink), cal.thresholds.max_rank_distance)
        s = suits.score(suit_features(g.suit_ink), cal.thresholds.max_suit_distance)
        if r.label is not None and r.label != code[0] and r.confidence > 0.05:
            raise CalibrationError(
                f"{code}: its rank reads as {r.label!r} from the other cards of the deck; "
                "check the image names, or the deck's indices are too alike"
            )
        if s.label is not None and s.label != code[1] and s.confidence > 0.05:
            raise CalibrationError(
                f"{code}: its suit reads as {s.label!r} from the other cards of the deck; "
                "check the image names"
            )


def calibrate_deck(
    folder: Path, progress: Callable[[str], None] | None = None
) -> VisionCalibration:
    """`croupier calibrate deck`: templates from a folder of 52 faces."""
    return calibrate_cards(load_faces(folder), deck=folder.name, kind="deck", progress=progress)
