"""Fakes behind the driver contracts: test tools that a test drives by hand.

    shoe = FakeShoe(); shoe.start(sink); shoe.draw("AS")
    bets = FakeBetSensor(); bets.place(1, "10")
    panel = FakePanel(); panel.press("stand")

Each records what it sent (`sent`), like gpiozero's MockPin records its
state changes.
"""

from __future__ import annotations

from decimal import Decimal

from drivers.interfaces import (
    BetSeen,
    Button,
    CardRead,
    DriverEvent,
    PanelPress,
    SensorFault,
    Sink,
    SpotKind,
)


class _Fake:
    def __init__(self) -> None:
        self.sink: Sink | None = None
        self.sent: list[DriverEvent] = []

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


class FakeShoe(_Fake):
    def draw(self, card: str | None, confidence: float = 1.0) -> None:
        self._send(CardRead(card, confidence, "fake-shoe"))


class FakeBetSensor(_Fake):
    def place(self, box: int, amount: str, spot: int = 0, kind: SpotKind = "stake") -> None:
        self._send(BetSeen(box, spot, Decimal(amount), kind))


class FakePanel(_Fake):
    def press(
        self, button: Button, box: int | None = None, card: str | None = None, reason: str = ""
    ) -> None:
        self._send(PanelPress(button, box, card, reason))
