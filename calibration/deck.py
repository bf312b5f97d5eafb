"""Calibration of the house deck: the learned reader adapted to the deck's
own 52 faces (calibration.adapt), checked so that a deck it would misread
is refused, naming the card and why.

Both `croupier calibrate deck` (52 face images) and `croupier calibrate
camera` (52 cards under the shoe camera) end here with 52 card images, BGR
or BGRA, each at its own size (a card face in portrait).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2

from calibration.adapt import AdaptError, adapt
from drivers.vision.glyphs import Image
from drivers.vision.learned import RANKS, SUITS, learned_model
from drivers.vision.vision_file import CalibrationError, VisionCalibration

ALL_CARDS = tuple(r + s for s in SUITS for r in RANKS)
MIN_FACE_HEIGHT = 150  # pixels: smaller images do not hold a readable index
# Height over width of a card face: poker 1.40, bridge 1.56, some national
# decks 1.7 and more, with room for a scan's crop.
FACE_RATIO = (1.3, 1.8)


def load_face(path: Path) -> Image:
    """A face image as it is (BGR, or BGRA where it has transparent
    corners), checked to be a card face in portrait."""
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise CalibrationError(f"{path}: not a readable image")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    h, w = img.shape[:2]
    if h < MIN_FACE_HEIGHT:
        raise CalibrationError(f"{path}: {w}x{h} is too small (at least {MIN_FACE_HEIGHT} px high)")
    lo, hi = FACE_RATIO
    if not lo <= h / w <= hi:
        raise CalibrationError(
            f"{path}: {w}x{h} is not a card face in portrait (height/width is {h / w:.2f}; "
            f"cards are {lo} to {hi}: poker 1.40, bridge 1.56, some national decks longer)"
        )
    return img


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


def calibrate_cards(
    cards: dict[str, Image],
    deck: str,
    kind: str = "deck",
    progress: Callable[[str], None] | None = None,
) -> VisionCalibration:
    """The learned reader adapted to 52 card images, checked;
    CalibrationError names a card the deck's reader would not read
    reliably."""
    try:
        adapted = adapt(cards, learned_model(), progress=progress)
    except AdaptError as exc:
        raise CalibrationError(str(exc)) from None
    checks = {"views_read": adapted.read, "weak": adapted.weak()}
    return VisionCalibration(kind=kind, deck=deck, head=adapted.reader.head, checks=checks)


def calibrate_deck(
    folder: Path, progress: Callable[[str], None] | None = None
) -> VisionCalibration:
    """`croupier calibrate deck`: the reader adapted to a folder of 52 faces."""
    return calibrate_cards(load_faces(folder), deck=folder.name, kind="deck", progress=progress)
