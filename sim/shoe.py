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
    __slots__ = (
        "cards",
        "cut_at",
        "decks",
        "next",
        "order",
        "penetration",
        "rng",
        "shuffles",
        "unshuffled",
    )

    def __init__(self, decks: int, penetration: Decimal, rng: random.Random) -> None:
        self.decks = decks
        self.penetration = penetration
        self.rng = rng
        # numpy permutes a shoe several times faster than random.shuffle. Its generator
        # is made once, seeded from the shoe's own Random (so the order still follows
        # from the seed alone): making one costs more than the permutation itself.
        self.order = np.random.default_rng(rng.getrandbits(64))
        self.unshuffled = np.array([CARD_CODES[i % 52] for i in range(decks * 52)], dtype=object)
        self.cards: list[str] = []
        self.next = 0
        self.cut_at = 0
        self.shuffles = 0
        self.shuffle()

    def shuffle(self) -> None:
        self.cards = self.unshuffled[self.order.permutation(len(self.unshuffled))].tolist()
        self.next = 0
        self.cut_at = int(len(self.cards) * self.penetration)
        self.shuffles += 1

    def gather(self) -> None:
        """Every card back in the shoe, for `draw_any` (a continuous shuffler)."""
        self.next = 0

    def draw_any(self) -> str:
        """A card at random from those not yet drawn since `gather`: a step of a
        Fisher-Yates shuffle, so a round's cards are a uniform draw from the shoe
        whatever order the cards were left in. (random() * n is off uniform by
        under n / 2**53: far below anything a simulation can measure.)"""
        i = self.next
        cards = self.cards
        if i >= len(cards):
            raise ShoeEmpty(f"the {self.decks}-deck shoe is empty")
        j = i + int(self.rng.random() * (len(cards) - i))
        cards[i], cards[j] = cards[j], cards[i]
        self.next = i + 1
        return cards[i]

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
