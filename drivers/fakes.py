"""Fakes behind the driver contracts, for what no real driver can be made to say.

    shoe = FakeShoe(); shoe.start(sink); shoe.draw("AS", confidence=0.55)
    bets = FakeBetSensor(); bets.place(1, "10")

A test drives them by hand; the simulator's bots drive the same bet sensor
(sim.bots). The dealer's panel and the card shoe have real drivers under
the simulator and the tests: keys go through the serial keypad driver
(sim.keypad), cards through the serial shoe driver (sim.card_shoe). That
shoe reads a card or it does not, so the fake shoe stays for the few tests
of a half-read card (a camera's confidence between 0 and 1).
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
