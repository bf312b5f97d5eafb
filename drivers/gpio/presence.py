"""Presence sensors under the betting boxes (one digital input per box).

A presence sensor (an IR reflective or capacitive pad) cannot weigh a bet;
it says, fast and without calibration, whether chips are on the box. The
load-cell driver asks it (`seen(box)`) when a stake settles, to catch a
scale and a sensor that disagree. Its own faults (flapping, the GPIO
unavailable) are reported like every driver's.
"""

from __future__ import annotations

from drivers.gpio.inputs import GpioInputs, InputSettings
from drivers.settings import PresenceSection


class GpioPresence(GpioInputs):
    def __init__(self, boxes: dict[int, int], s: InputSettings, name: str = "presence") -> None:
        """`boxes`: box number -> BCM pin."""
        super().__init__(name, {pin: f"box {box} presence" for box, pin in boxes.items()}, s)
        self.box_of = {pin: box for box, pin in boxes.items()}
        self.pin_of = dict(boxes)
        self.changes: list[tuple[int, bool]] = []  # accepted changes (box, present), in order

    @classmethod
    def from_config(cls, cfg: PresenceSection) -> GpioPresence:
        s = InputSettings(cfg.active_low, cfg.debounce_s, cfg.flap_edges, cfg.flap_window_s)
        return cls({int(box): pin for box, pin in cfg.pins.items()}, s)

    def seen(self, box: int) -> bool | None:
        """Chips on `box`? None when unknown (not set up, or the input is flapping)."""
        pin = self.pin_of.get(box)
        if pin is None or not self.ready.is_set() or pin in self._flapping:
            return None
        return self.active.get(pin)

    def changed(self, pin: int, active: bool, t: float) -> None:
        box = self.box_of[pin]
        self.changes.append((box, active))
        self.log.debug("box %d: %s", box, "chips" if active else "empty")
