"""A simulated card shoe on the real serial shoe driver.

The dealer draws a card here as at a table whose shoe reads the cards itself.
Each card is the line the shoe's firmware sends (`$CS1`, docs/hardware.md):
its code, or `??` for a card it could not read. The real driver
(drivers/serial/shoe.py) frames, checks and decodes it and hands the service
its `CardRead`, through a cable with no port (drivers.fake_serial), so a card
reaches the service before `draw` returns, at full speed.

The shoe reads a card or it does not: a read is at confidence 1.0, an
unreadable card at 0.0, as the driver reports them. A half-read card (a
confidence between) is a camera's, not this shoe's.
"""

from __future__ import annotations

from drivers.serial.link import LinkSettings
from drivers.serial.shoe import SerialShoe, encode_card
from sim.board import SimBoard


class SimShoe(SimBoard[SerialShoe]):
    """A `CardSource` for the simulator and the tests: `draw("AS")`, `draw(None)`."""

    def __init__(self, name: str = "shoe") -> None:
        super().__init__(SerialShoe(LinkSettings(f"sim-{name}"), name=name))

    def draw(self, card: str | None) -> None:
        """A card comes out of the shoe: `card` read, or None (it could not read it)."""
        self.send(encode_card(self.next_seq(), card))
