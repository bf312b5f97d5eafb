"""A whole simulated table: the service on simulated drivers, with its bots.

Used by `croupier sim`, the benchmarks and the tests, so all three run the
same thing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from controller import rules
from controller.broker import EmbeddedBroker, broker_for
from controller.config import BrokerAddress, Config, ConfigError
from controller.engine.profile import RuleProfile
from controller.service import Service
from drivers.fakes import FakeBetSensor
from drivers.interfaces import DriverSet
from sim.bots import SimTable
from sim.keypad import SimKeypad
from sim.twins import VirtualCardSource

if TYPE_CHECKING:  # OpenCV and the reader load only for a sim with the camera
    from sim.camera.card_source import CameraCardSource


@dataclass
class SimRun:
    service: Service
    bots: SimTable
    broker: EmbeddedBroker | None
    address: BrokerAddress | None = None
    camera: CameraCardSource | None = field(default=None)  # `[sim] camera`


def build(config: Config, offline: bool = False) -> SimRun:
    sim = config.sim
    profile = rules.load(config.table.rules)
    speed = None if sim.speed == "max" else float(sim.speed)
    camera = camera_source(config, profile, speed) if sim.camera else None
    cards = camera or VirtualCardSource(profile, sim.seed, sim.unreadable_rate)
    sensors = FakeBetSensor()
    panel = SimKeypad()
    address, broker = broker_for(config, offline)
    service = Service(
        config,
        DriverSet(cards, sensors, panel),
        address,
        meta={"mode": "sim", "seed": str(sim.seed)}
        | ({"camera": str(sim.deck or "house deck")} if sim.camera else {}),
    )

    def done() -> None:
        service.loop.exit_when_idle = True

    bots = SimTable(
        service.view,
        cards,
        sensors,
        panel,
        sim.seed,
        speed,
        sim.rounds,
        sim.mistake_rate,
        on_done=done,
        cheat_rate=sim.cheat_rate,
        players={int(box): kind for box, kind in sim.players.items()},
        payouts=sim.payouts,
        payout_error_rate=sim.payout_error_rate,
    )
    service.every(0.0, bots.step, settled=True)  # the bots act on the table as journaled
    if camera is not None:
        service.applier.on_record = camera.tally.journaled
    return SimRun(service, bots, broker, address, camera)


def camera_source(config: Config, profile: RuleProfile, speed: float | None) -> CameraCardSource:
    """The virtual shoe behind the real card reader (`[sim] camera`)."""
    from drivers.camera.source import CardSource
    from drivers.vision.vision_file import CalibrationError
    from sim.camera.card_source import CameraCardSource
    from sim.camera.decks import DeckError, house_deck, load_deck

    sim = config.sim
    try:
        deck = load_deck(sim.deck) if sim.deck is not None else house_deck()
    except DeckError as exc:
        raise ConfigError(f"sim deck: {exc}") from None
    try:
        reader = CardSource.from_calibration(sim.calibration)
    except (CalibrationError, OSError, ValueError) as exc:
        raise ConfigError(f"sim calibration: {sim.calibration}: {exc}") from None
    return CameraCardSource(
        profile, sim.seed, deck, reader, speed, min_confidence=config.cards.min_confidence
    )
