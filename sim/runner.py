"""A whole simulated table: the service on simulated drivers, with its bots.

Used by `croupier sim`, the benchmarks and the tests, so all three run the
same thing.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller import rules
from controller.broker import EmbeddedBroker
from controller.config import BrokerAddress, Config, broker_address
from controller.service import Service
from drivers.interfaces import DriverSet
from sim.bots import SimTable
from sim.twins import VirtualBetSensors, VirtualCardSource, VirtualPanel


@dataclass
class SimRun:
    service: Service
    bots: SimTable
    broker: EmbeddedBroker | None


def broker_for(
    config: Config, offline: bool = False
) -> tuple[BrokerAddress | None, EmbeddedBroker | None]:
    """The broker to use: the configured one, else an embedded one (not yet started)."""
    if offline:
        return None, None
    if config.mqtt.broker is not None:
        return broker_address(config.mqtt.broker), None
    embedded = config.mqtt.embedded
    address = BrokerAddress(host=embedded.host, port=embedded.port, tls=False, websockets=False)
    return address, EmbeddedBroker(embedded)


def build(config: Config, offline: bool = False) -> SimRun:
    sim = config.sim
    profile = rules.load(config.table.rules)
    cards = VirtualCardSource(profile, sim.seed, sim.unreadable_rate)
    sensors = VirtualBetSensors()
    panel = VirtualPanel()
    address, broker = broker_for(config, offline)
    service = Service(
        config,
        DriverSet(cards, sensors, panel),
        address,
        meta={"mode": "sim", "seed": str(sim.seed)},
    )

    def done() -> None:
        service.exit_when_idle = True

    speed = None if sim.speed == "max" else float(sim.speed)
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
    return SimRun(service, bots, broker)
