"""What a driver hands the table service, and the three driver contracts.

A driver turns hardware happenings into small immutable records and hands
each one to a `Sink`. The sink is the service loop's queue: it is
thread-safe, never blocks and never raises, so a camera thread, a serial
reader thread or a GPIO callback may call it directly. A driver never reads
or changes the table: the service loop owns that state alone.

    class MyShoe:                       # a CardSource
        def start(self, sink): ...      # spawn the reader thread, keep `sink`
        def stop(self): ...             # stop it and join; idempotent

The service calls `start` once before it serves and `stop` once at exit.
Errors a driver detects (a cable pulled, a sensor out of range) are reported
as a `SensorFault`, not raised: nothing may escape a driver thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal, Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class CardRead:
    """A card the shoe's camera read as it came out.

    `card` is the contract's two-character code ("TH") or None when the
    card could not be read; `confidence` is the recogniser's score in [0, 1].
    An unreadable card (None, or a score under the table's `min_confidence`)
    becomes an `unreadable` alert and the table waits for the dealer to key
    the card in on the panel (`PanelPress("key_card", card=...)`). The shoe
    camera's reader (`drivers.camera`) has a richer read of its own;
    `drivers.camera.driver` turns it into this one.
    """

    card: str | None
    confidence: float = 1.0
    source: str = "shoe"
    frame: int | None = None  # the camera's frame number, for the audit trail
    reason: str | None = None  # why it is unreadable (the camera's no_index, conflict, ...)


SpotKind = Literal["stake", "insurance"]


@dataclass(frozen=True, slots=True)
class BetSeen:
    """The chips on one betting spot changed to `amount` (0: the spot is empty).

    `spot` 0 is the box holder's stake or insurance; spots 1, 2, ... are the
    positions of players betting behind that box. The driver reports amounts
    already converted from weight or chip count (calibration), as Decimal.
    The sensors see the original stake and the insurance line; chips added
    for a double or a split go beside the hand and are confirmed by the
    dealer's button, not sensed.
    """

    box: int
    spot: int
    amount: Decimal
    kind: SpotKind = "stake"


Button = Literal[
    "stand",
    "double",
    "split",
    "surrender",
    "take_card",
    "refuse_card",
    "close_bets",
    "close_insurance",
    "new_shoe",
    "misdeal_card",
    "key_card",
    "void",
    "call_supervisor",
]
BUTTONS: tuple[str, ...] = Button.__args__  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class PanelPress:
    """A button on the dealer's panel.

    Decisions (stand, double, ...) act on the box in play unless `box` says
    otherwise. `key_card` carries the card the dealer keyed in for an
    unreadable read; `void` carries the supervisor's `reason`.
    """

    button: Button
    box: int | None = None
    card: str | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class SensorFault:
    """A driver lost or doubts its hardware: raised as a `sensor_fault` alert."""

    device: str
    detail: str
    box: int | None = None


DriverEvent = CardRead | BetSeen | PanelPress | SensorFault
Sink = Callable[[DriverEvent], None]


@runtime_checkable
class Driver(Protocol):
    def start(self, sink: Sink) -> None:
        """Begin reporting to `sink` (from any thread). Must return promptly."""

    def stop(self) -> None:
        """Stop reporting and release the hardware. Idempotent."""


@runtime_checkable
class CardSource(Driver, Protocol):
    """The dealing shoe: one `CardRead` per card that comes out, in order."""


@runtime_checkable
class BetSensors(Driver, Protocol):
    """The betting spots: a `BetSeen` whenever the chips on a spot change."""


@runtime_checkable
class DealerPanel(Driver, Protocol):
    """The dealer's buttons and card keypad: one `PanelPress` per press."""


@dataclass
class DriverSet:
    """The three drivers a table runs on."""

    cards: CardSource
    bets: BetSensors
    panel: DealerPanel
    extra: list[Driver] = field(default_factory=list)

    def all(self) -> list[Driver]:
        return [self.cards, self.bets, self.panel, *self.extra]
