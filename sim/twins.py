"""The virtual shoe: the cards a seed puts in it, drawn past what reads them.

The bots in `sim.bots` deal from it as a dealer deals from the real shoe,
and work the fake bet sensors (drivers.fakes) and the keypad (sim.keypad)
as players and the dealer work the real table. `VirtualCardSource` is a
card shoe that reads the cards itself, on the real serial shoe driver
(sim.card_shoe); `sim.camera.card_source` puts the shoe camera and the real
card reader in its place.

The virtual shoe is seeded per shoe (`"{seed}:shoe:{k}"` for the k-th
shoe) and read by position, so the card at any place of any shoe is a pure
function of the seed: a restarted simulator deals on from where the
journal says the shoe stands, with the same cards.
"""

from __future__ import annotations

import random

from controller.engine.profile import RuleProfile
from drivers.interfaces import Sink
from sim.card_shoe import SimShoe
from sim.shoe import VirtualShoe


class ShoeTwin:
    """The simulator's shoe as the bots see it: its cards, and a way to deal them
    past a reader that reports to the service (a `CardSource`)."""

    immediate = True  # a card's read reaches the sink inside `deal`

    def __init__(self, profile: RuleProfile, seed: int) -> None:
        self.profile = profile
        self.seed = seed
        self._shoe: tuple[int, VirtualShoe] | None = None

    def card_at(self, shoe: int, position: int) -> str:
        """The card at `position` (from 0) of the `shoe`-th shoe (from 1)."""
        if self._shoe is None or self._shoe[0] != shoe:
            rng = random.Random(f"{self.seed}:shoe:{shoe}")
            self._shoe = (shoe, VirtualShoe(self.profile.decks, self.profile.penetration, rng))
        virtual = self._shoe[1]
        virtual.next = position
        return virtual.draw()

    def busy(self) -> bool:
        """A card drawn whose read has not reached the sink yet."""
        return False

    def to_key(self) -> bool:
        """A card drawn that the table never heard of: the dealer keys it in."""
        return False

    # The driver contract and the dealer's draw: the reader's to say.
    def start(self, sink: Sink) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def deal(self, shoe: int, position: int) -> bool:
        """The dealer draws the card at `position` past the reader; False: it was unreadable."""
        raise NotImplementedError


class VirtualCardSource(ShoeTwin):
    """The virtual shoe in a card shoe that reads its cards; now and then one it cannot."""

    def __init__(self, profile: RuleProfile, seed: int, unreadable_rate: float) -> None:
        super().__init__(profile, seed)
        self.unreadable_rate = unreadable_rate
        self.board = SimShoe()

    def start(self, sink: Sink) -> None:
        self.board.start(sink)

    def stop(self) -> None:
        self.board.stop()

    def readable(self, shoe: int, position: int) -> bool:
        rate = self.unreadable_rate
        return not rate or random.Random(f"{self.seed}:read:{shoe}:{position}").random() >= rate

    def deal(self, shoe: int, position: int) -> bool:
        card = self.card_at(shoe, position)
        readable = self.readable(shoe, position)
        self.board.draw(card if readable else None)
        return readable
