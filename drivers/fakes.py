"""Fakes behind the driver contracts: one set, for the tests and the simulator.

    shoe = FakeShoe(); shoe.start(sink); shoe.draw("AS")
    bets = FakeBetSensor(); bets.place(1, "10")

A test drives them by hand; the simulator's bots drive the same ones
(sim.bots), and its virtual shoe is a `FakeShoe` that knows its cards
(sim.twins). The dealer's panel has no fake here: the tests and the
simulator press keys on the real serial keypad driver (sim.keypad).
Each keeps the last events it sent (`sent`), as gpiozero's MockPin
records its state changes, and refuses to send before `start` or
after `stop`: the service would never see that event.
"""

from __future__ import annotations

from collections import deque
from decimal import Decimal

from drivers.interfaces import (
    BetSeen,
    CardRead,
    DriverEvent,
    SensorFault,
    Sink,
    SpotKind,
)

KEPT = 1000  # events `sent` keeps (a simulator's run sends millions)


class FakeDriver:
    def __init__(self) -> None:
        self.sink: Sink | None = None
        self.sent: deque[DriverEvent] = deque(maxlen=KEPT)

    def start(self, sink: Sink) -> None:
        self.sink = sink

    def stop(self) -> None:
        self.sink = None

    def _send(self, event: DriverEvent) -> None:
        if self.sink is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        self.sent.append(event)
        self.sink(event)

    def fault(self, detail: str, box: int | None = None) -> None:
        self._send(SensorFault(type(self).__name__, detail, box))


class FakeShoe(FakeDriver):
    source = "fake-shoe"  # the `source` of its card reads

    def draw(self, card: str | None, confidence: float = 1.0) -> None:
        self._send(CardRead(card, confidence, self.source))


class FakeBetSensor(FakeDriver):
    def place(
        self, box: int, amount: str | Decimal, spot: int = 0, kind: SpotKind = "stake"
    ) -> None:
        self._send(BetSeen(box, spot, Decimal(amount), kind))
