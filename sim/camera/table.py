"""Frame-mode scenes: several cards lying anywhere on the felt, any rotation,
sizes over a 2x range, under the same camera conditions as the shoe."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from drivers.camera.glyphs import Image
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
