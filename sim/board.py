"""A simulated serial device: its firmware's lines into the real driver, on a cable.

The simulated keypad (sim.keypad) and card shoe (sim.card_shoe) each number
their lines as their firmware does (0..65535, wrapping) and write them
through a cable with no port (drivers.fake_serial.Cable), so the real
driver frames, checks and decodes each line before the write returns.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from drivers.fake_serial import Cable
from drivers.interfaces import Sink
from drivers.serial.link import SerialDevice

D = TypeVar("D", bound=SerialDevice)


class SimBoard(Generic[D]):
    """The board behind `driver`: a `Driver` (start, stop) that sends numbered lines."""

    def __init__(self, driver: D) -> None:
        self.driver = driver
        self._cable = Cable(driver)
        self._seq = 0

    @property
    def sink(self) -> Sink | None:
        """Where the driver reports (None until started)."""
        return self.driver.sink

    def start(self, sink: Sink) -> None:
        self._cable.start(sink)

    def stop(self) -> None:
        self._cable.stop()

    def next_seq(self) -> int:
        """The number of the line the board sends next."""
        seq = self._seq
        self._seq = (seq + 1) % 0x10000
        return seq

    def send(self, line: bytes) -> None:
        self._cable.write(line)
