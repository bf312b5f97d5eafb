"""Frame-mode scenes: several cards lying anywhere on the felt, any rotation,
sizes over a 2x range, under the same camera conditions as the shoe."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from drivers.vision.glyphs import Image
from sim.camera.decks import Deck
from sim.camera.optics import OpticsRange, background, card_corners, expose, place

FELT = (60, 105, 35)  # BGR, casino green
LIGHT_TABLE = (150, 160, 150)  # a light grey table: cards still lighter


@dataclass(frozen=True)
class PlacedCard:
    card: str
    centre: tuple[float, float]
    width: float
    angle: float


@dataclass(frozen=True)
class Scene:
    image: Image
    cards: list[PlacedCard]


def scene(
    deck: Deck,
    cards: Sequence[str],
    seed: int,
    size: tuple[int, int] = (640, 480),
    widths: tuple[float, float] = (80.0, 160.0),
    felt: tuple[int, int, int] = FELT,
    optics: OpticsRange | None = None,
) -> Scene:
    """Cards placed without overlap (rejection sampling on their circles)."""
    rng = np.random.default_rng(seed)
    frame = background(size, felt, seed, grain=6.0)
    placed: list[PlacedCard] = []
    w, h = size
    for code in cards:
        for _ in range(200):
            width = float(rng.uniform(*widths))
            radius = 0.5 * np.hypot(width, 1.4 * width)
            cx = float(rng.uniform(radius, w - radius))
            cy = float(rng.uniform(radius, h - radius))
            if all(
                np.hypot(cx - p.centre[0], cy - p.centre[1])
                > radius + 0.5 * np.hypot(p.width, 1.4 * p.width) + 4
                for p in placed
            ):
                break
        else:
            raise ValueError(f"no room for {len(cards)} cards of these sizes")
        angle = float(rng.uniform(0.0, 360.0))
        place(frame, deck[code], card_corners(cx, cy, width, 1.4 * width, angle))
        placed.append(PlacedCard(code, (cx, cy), width, angle))
    conditions = (optics or OpticsRange(motion=(0.0, 1.5))).draw(rng, size)
    return Scene(expose(frame, conditions, rng), placed)


def cascade(
    deck: Deck,
    hands: Sequence[Sequence[str]],
    seed: int,
    size: tuple[int, int] = (1280, 800),
    width: float = 110.0,
    felt: tuple[int, int, int] = FELT,
    optics: OpticsRange | None = None,
) -> Scene:
    """Hands as a dealer lays them: each hand's cards cascaded, every card
    lying over the one before it moved right and down (a random step of
    0.25-0.35 of the card's width and 0.15-0.3 of its height), so that only
    the index corner of each lower card shows; hands in a row along the
    table, each turned a little. `cards` in the Scene are in dealing order,
    centre and angle of each."""
    rng = np.random.default_rng(seed)
    frame = background(size, felt, seed, grain=6.0)
    placed: list[PlacedCard] = []
    w, h = size
    height = 1.4 * width
    slot = w / max(len(hands), 1)
    for k, hand in enumerate(hands):
        angle = float(rng.uniform(-20.0, 20.0))
        a = np.deg2rad(angle)
        right = np.array([np.cos(a), np.sin(a)])
        down = np.array([-np.sin(a), np.cos(a)])
        step = (right * rng.uniform(0.25, 0.35) * width + down * rng.uniform(0.15, 0.3) * height)
        n = len(hand)
        start = np.array([slot * (k + 0.5), h * 0.5]) - step * (n - 1) / 2
        for i, code in enumerate(hand):
            cx, cy = start + step * i
            place(frame, deck[code], card_corners(float(cx), float(cy), width, height, angle))
            placed.append(PlacedCard(code, (float(cx), float(cy)), width, angle))
    conditions = (optics or OpticsRange(motion=(0.0, 1.5))).draw(rng, size)
    return Scene(expose(frame, conditions, rng), placed)
