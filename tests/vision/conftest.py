"""Shared fixtures: the decks (copied test data and the project's own),
their deck calibrations (the learned reader adapted to each, made once per
session), and card images."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.deck import calibrate_cards, calibrate_deck
from drivers.vision.frame import CARD_H, CARD_W
from drivers.vision.vision_file import VisionCalibration
from sim.camera.decks import Deck, house_deck, load_deck

DECKS = Path(__file__).resolve().parent.parent / "data" / "decks"
DECK_NAMES = ("npm-svg-cards", "npm-cardsjs", "house")


def canonical(deck: Deck) -> dict[str, Any]:
    """Faces flattened on a dark ramp and sized like a warped card."""
    out = {}
    for code, face in deck.items():
        alpha = face[:, :, 3:4].astype(np.float32) / 255.0
        bgr = (face[:, :, :3] * alpha + 40.0 * (1.0 - alpha)).astype(np.uint8)
        out[code] = cv2.resize(bgr, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA)
    return out


_decks: dict[str, Deck] = {}
_cals: dict[str, VisionCalibration] = {}


def get_deck(name: str) -> Deck:
    if name not in _decks:
        if name == "house":
            _decks[name] = house_deck()
        elif name == "house-french":
            _decks[name] = house_deck(french=True)
        else:
            _decks[name] = load_deck(DECKS / name)
    return _decks[name]


def get_calibration(name: str) -> VisionCalibration:
    if name not in _cals:
        if name.startswith("house"):
            _cals[name] = calibrate_cards(get_deck(name), deck=name)
        else:
            _cals[name] = calibrate_deck(DECKS / name)
    return _cals[name]


@pytest.fixture(params=DECK_NAMES)
def deck_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)
