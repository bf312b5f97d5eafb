"""The virtual shoe's camera: a fake shoe (drivers.fakes) that knows its cards.

The bots in `sim.bots` deal from it as a dealer deals from the real shoe,
and work the fake bet sensors (drivers.fakes) and the keypad (sim.keypad)
as players and the dealer work the real table.

The virtual shoe is seeded per shoe (`"{seed}:shoe:{k}"` for the k-th
shoe) and read by position, so the card at any place of any shoe is a pure
function of the seed: a restarted simulator deals on from where the
journal says the shoe stands, with the same cards.
"""

from __future__ import annotations

import random

from controller.engine.profile import RuleProfile
from drivers.fakes import FakeShoe
from sim.shoe import VirtualShoe


class VirtualCardSource(FakeShoe):
    """The shoe's camera on a virtual shoe; now and then a card it cannot read."""

    source = "sim-shoe"
    immediate = True  # a card's read reaches the sink inside `deal`

    def __init__(self, profile: RuleProfile, seed: int, unreadable_rate: float) -> None:
        super().__init__()
        self.profile = profile
        self.seed = seed
        self.unreadable_rate = unreadable_rate
        self._shoe: tuple[int, VirtualShoe] | None = None

    def card_at(self, shoe: int, position: int) -> str:
        """The card at `position` (from 0) of the `shoe`-th shoe (from 1)."""
        if self._shoe is None or self._shoe[0] != shoe:
            rng = random.Random(f"{self.seed}:shoe:{shoe}")
            self._shoe = (shoe, VirtualShoe(self.profile.decks, self.profile.penetration, rng))
        virtual = self._shoe[1]
        virtual.next = position
        return virtual.draw()

    def readable(self, shoe: int, position: int) -> bool:
        rate = self.unreadable_rate
        return not rate or random.Random(f"{self.seed}:read:{shoe}:{position}").random() >= rate

    def busy(self) -> bool:
        """A card drawn whose read has not reached the sink yet."""
        return False

    def to_key(self) -> bool:
        """A card drawn that the table never heard of: the dealer keys it in."""
        return False

    def deal(self, shoe: int, position: int) -> bool:
        """The dealer draws the card at `position` past the camera; False: it was unreadable."""
        card = self.card_at(shoe, position)
        if self.readable(shoe, position):
            self.draw(card, 0.99)
            return True
        self.draw(None, 0.2)
        return False
