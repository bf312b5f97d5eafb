"""Simulated drivers: the virtual shoe's camera, the bet sensors, the dealer panel.

They implement the `drivers.interfaces` contracts exactly like the
hardware drivers and report to the same sink; the bots in `sim.bots` work
them as a dealer and players work the real table.

The virtual shoe is seeded per shoe (`"{seed}:shoe:{k}"` for the k-th
shoe) and read by position, so the card at any place of any shoe is a pure
function of the seed: a restarted simulator deals on from where the
journal says the shoe stands, with the same cards.
"""

from __future__ import annotations

import random
from decimal import Decimal

from controller.engine.profile import RuleProfile
from drivers.interfaces import BetSeen, Button, CardRead, DriverEvent, PanelPress, Sink, SpotKind
from sim.shoe import VirtualShoe


class _Twin:
    def __init__(self) -> None:
        self.sink: Sink | None = None

    def start(self, sink: Sink) -> None:
        self.sink = sink

    def stop(self) -> None:
        self.sink = None

    def _send(self, event: DriverEvent) -> None:
        if self.sink is not None:
            self.sink(event)


class VirtualCardSource(_Twin):
    """The shoe's camera on a virtual shoe; now and then a card it cannot read."""

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
            self._send(CardRead(card, 0.99, "sim-shoe"))
            return True
        self._send(CardRead(None, 0.2, "sim-shoe"))
        return False


class VirtualBetSensors(_Twin):
    def place(self, box: int, spot: int, amount: Decimal, kind: SpotKind = "stake") -> None:
        self._send(BetSeen(box, spot, amount, kind))


class VirtualPanel(_Twin):
    def press(self, button: Button, box: int | None = None, card: str | None = None) -> None:
        self._send(PanelPress(button, box, card))
