"""The virtual shoe: what the camera would read from a real shoe, seeded.

Shuffles `decks` decks with a seeded `random.Random`, places the cut card at
the profile's penetration, and hands out cards in order. It knows the order;
the engine never sees it (that is hidden information), only the cards as
they come out.
"""

from __future__ import annotations

import random
from decimal import Decimal

import numpy as np

from controller.engine.cards import CARD_CODES


class ShoeEmpty(Exception):
    """More cards were drawn than the shoe holds."""


class VirtualShoe:
    __slots__ = ("cards", "cut_at", "decks", "next", "penetration", "rng", "shuffles")

    def __init__(self, decks: int, penetration: Decimal, rng: random.Random) -> None:
        self.decks = decks
        self.penetration = penetration
        self.rng = rng
        self.cards: list[str] = []
        self.next = 0
        self.cut_at = 0
        self.shuffles = 0
        self.shuffle()

    def shuffle(self) -> None:
        # numpy permutes a shoe ~4x faster than random.shuffle; its generator is seeded
        # from the shoe's own Random, so the order still follows from the seed alone.
        order = np.random.default_rng(self.rng.getrandbits(64)).permutation(self.decks * 52)
        deck = CARD_CODES
        self.cards = [deck[i % 52] for i in order.tolist()]
        self.next = 0
        self.cut_at = int(len(self.cards) * self.penetration)
        self.shuffles += 1

    def draw(self) -> str:
        i = self.next
        if i >= len(self.cards):
            raise ShoeEmpty(f"the {self.decks}-deck shoe is empty")
        self.next = i + 1
        return self.cards[i]

    @property
    def cut_card_out(self) -> bool:
        return self.next >= self.cut_at

    @property
    def remaining(self) -> int:
        return len(self.cards) - self.next
