"""The simulated table's dealer panel: a keypad board on the real serial keypad driver.

The bots press keys here as a dealer presses them on the table's keypad.
Each press is the line the keypad's firmware sends (`$KP1`, docs/hardware.md):
a key with how long it was held, or a card keyed in. The real driver
(drivers/serial/keypad.py) frames, checks and decodes it and hands the
service its `PanelPress`, through a cable with no port (drivers.fake_serial),
so a press reaches the service before `press` returns, at full speed.

A keypad press names no box: a decision is for the box in play, as at the
table. A costly key (new shoe, mistaken card) is held as long as the
driver asks; the others are tapped.
"""

from __future__ import annotations

from drivers.interfaces import Button
from drivers.serial.keypad import SerialKeypad, encode_card, encode_key
from drivers.serial.link import LinkSettings
from sim.board import SimBoard

TAP_MS = 120  # a quick press of a key


class SimKeypad(SimBoard[SerialKeypad]):
    """A `DealerPanel` for the simulator and the tests: `press("stand")`."""

    def __init__(self, name: str = "keypad") -> None:
        super().__init__(SerialKeypad(LinkSettings(f"sim-{name}"), name=name))

    def press(self, button: Button, card: str | None = None) -> None:
        """Press `button` (`key_card` keys in `card`)."""
        if button == "key_card":
            if card is None:
                raise ValueError("key_card needs the card keyed in")
            line = encode_card(self.next_seq(), card)
        else:
            held = self.driver.hold_ms if button in self.driver.costly else TAP_MS
            line = encode_key(self.next_seq(), button, held)
        self.send(line)
