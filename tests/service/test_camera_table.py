"""The shoe camera in the running table, end to end on a real broker: frames
of cards sliding out of the shoe go through the real capture, reader and
camera driver into the service; the pit sees the round on MQTT. A card the
reader cannot read prompts the dealer's panel and the round goes on when it
is keyed in; a camera that dies raises an alert and the table holds, the
dealer keys the rest in, and nothing is lost."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.config import Config, override
from controller.service import Service
from drivers.camera.capture import Capture
from drivers.camera.driver import CameraDriver
from drivers.camera.source import CardSource
from drivers.fakes import FakeBetSensor
from drivers.interfaces import DriverSet
from sim.camera.decks import cut_card
from sim.camera.device import FakeShoeCamera
from sim.keypad import SimKeypad
from tests.service.conftest import BrokerProcess, Subscriber, broker, subscribe
from tests.vision.conftest import get_calibration, get_deck

__all__ = ["broker", "subscribe"]

DECK = "npm-cardsjs"
_tables = itertools.count(1)


@dataclass
class Table:
    service: Service
    shoe: FakeShoeCamera
    camera: CameraDriver
    bets: FakeBetSensor
    panel: SimKeypad
    sub: Subscriber

    def card_events(self) -> list[dict[str, object]]:
        return [m.payload for m in self.sub.on("events") if m.payload["type"] == "card_dealt"]

    def draw(self, *cards: object) -> None:
        """The dealer pulls cards out, one after the other, each seen on the pit's feed."""
        for card in cards:
            before = self.camera.cards
            self.shoe.draw(card)  # type: ignore[arg-type]
            self.sub.wait_for(lambda b=before: self.camera.cards > b, 30, f"the read of {card}")

    def alerts(self, kind: str) -> list[dict[str, object]]:
        return [m.payload for m in self.sub.on("alerts") if m.payload["kind"] == kind]


@pytest.fixture
def table(
    broker: BrokerProcess, subscribe: Callable[..., Subscriber], tmp_path: Path
) -> Iterator[Table]:
    yield from _table(broker, subscribe, tmp_path, "fr-2007")


def _table(
    broker: BrokerProcess, subscribe: Callable[..., Subscriber], tmp_path: Path, rules: str
) -> Iterator[Table]:
    shoe = FakeShoeCamera(get_deck(DECK), seed=5)
    camera = CameraDriver(
        CardSource(get_calibration(DECK).model()), Capture(shoe, maxsize=64), stale_after=1.0
    )
    bets, panel = FakeBetSensor(), SimKeypad()
    table_id = f"camtable{next(_tables)}"  # no retained message of another test
    config = override(
        Config(),
        "test",
        table={"id": table_id, "rules": rules},
        state={"dir": tmp_path / "state", "fsync": True},
        mqtt={"broker": broker.url},
        cards={"camera_stale_after": 1.0},
    )
    from controller.config import broker_address

    service = Service(config, DriverSet(camera, bets, panel), broker_address(broker.url))
    sub = subscribe(broker.port, table_id)
    loop = threading.Thread(target=service.run, daemon=True)
    loop.start()
    sub.wait_for(lambda: bool(sub.on("status")), 30, "the table online")
    deadline = time.monotonic() + 10
    while panel.sink is None and time.monotonic() < deadline:  # the drivers started
        time.sleep(0.01)
    try:
        yield Table(service, shoe, camera, bets, panel, sub)
    finally:
        service.stop()
        loop.join(timeout=30)
    assert not loop.is_alive()


def open_round(t: Table) -> None:
    t.bets.place(1, "10")
    t.panel.press("close_bets")
    t.sub.wait_for(
        lambda: any(m.payload["type"] == "bets_closed" for m in t.sub.on("events")), 30, "close"
    )


def outcome(t: Table) -> dict[str, object]:
    t.sub.wait_for(lambda: bool(t.sub.on("outcome")), 30, "the outcome")
    return t.sub.on("outcome")[-1].payload


def test_frames_in_outcome_out(table: Table) -> None:
    t = table
    open_round(t)
    t.draw("9H", "7C", "TS")  # box 1, the dealer's up card, box 1: 19
    t.panel.press("stand")
    t.draw("8D", "5H")  # the dealer: 7, 15, 20
    out = outcome(t)
    assert out["dealer"]["cards"] == ["7C", "8D", "5H"]  # type: ignore[index]
    hand = out["boxes"][0]["hands"][0]  # type: ignore[index]
    assert (hand["cards"], hand["result"]) == (["9H", "TS"], "lose")
    assert [e["card"] for e in t.card_events()] == ["9H", "7C", "TS", "8D", "5H"]
    assert t.camera.capture.stats.dropped == 0
    assert not t.alerts("unreadable") and not t.alerts("sensor_fault")


def test_an_unreadable_card_prompts_the_panel_and_the_round_goes_on(table: Table) -> None:
    t = table
    open_round(t)
    t.draw("9H", "7C")
    t.draw(cut_card())  # nothing like an index on it: the reader says so, never guesses
    t.sub.wait_for(lambda: bool(t.alerts("unreadable")), 30, "the unreadable alert")
    alert = t.alerts("unreadable")[0]
    assert "key it in on the panel" in str(alert["message"])
    # The dealer's screen and panel say what to do: key the card in.
    t.sub.wait_for(
        lambda: bool(t.sub.on("state")) and t.sub.on("state")[-1].payload.get("awaiting_key"),
        30,
        "the panel's prompt",
    )
    t.panel.press("key_card", card="TS")
    t.sub.wait_for(lambda: len(t.card_events()) == 3, 30, "the keyed card")
    # (a snapshot follows its events within STATE_EVERY: waited for, not assumed)
    t.sub.wait_for(
        lambda: t.sub.on("state")[-1].payload.get("awaiting_key") is False, 30, "the prompt gone"
    )
    t.panel.press("stand")
    t.draw("8D", "5H")
    out = outcome(t)
    assert out["boxes"][0]["hands"][0]["cards"] == ["9H", "TS"]  # type: ignore[index]
    assert out["dealer"]["cards"] == ["7C", "8D", "5H"]  # type: ignore[index]


def test_a_dead_camera_raises_the_alert_and_the_table_holds(table: Table) -> None:
    t = table
    open_round(t)
    t.draw("9H", "7C")
    t.shoe.unplug()  # the cable is pulled
    t.sub.wait_for(lambda: bool(t.alerts("sensor_fault")), 30, "the camera alert")
    fault = t.alerts("sensor_fault")[0]
    assert "camera" in str(fault["message"]) and "key the cards in" in str(fault["message"])
    t.sub.wait_for(
        lambda: t.sub.on("state")[-1].payload.get("camera_stale") is True, 30, "state says so"
    )
    # The table holds: the round is where the camera left it.
    r = t.service.table.round
    assert r is not None and not r.over
    assert [e["card"] for e in t.card_events()] == ["9H", "7C"]
    health = t.camera.health_report()[0]
    assert not health.ok and "no frame" in health.detail
    # The dealer keys the rest in; the round ends as it would have.
    t.panel.press("key_card", card="TS")
    t.panel.press("stand")
    t.panel.press("key_card", card="8D")
    t.panel.press("key_card", card="5H")
    out = outcome(t)
    assert out["dealer"]["cards"] == ["7C", "8D", "5H"]  # type: ignore[index]
    # Nothing lost: every events message, numbered without a gap, and every record
    # in the journal.
    seqs = [m.payload["seq"] for m in t.sub.on("events")]
    assert seqs == list(range(1, len(seqs) + 1))
    assert [e["card"] for e in t.card_events()] == ["9H", "7C", "TS", "8D", "5H"]


@pytest.fixture
def hole_card_table(
    broker: BrokerProcess, subscribe: Callable[..., Subscriber], tmp_path: Path
) -> Iterator[Table]:
    yield from _table(broker, subscribe, tmp_path, "us-holecard")


def test_a_hole_card_read_by_the_camera_stays_hidden(hole_card_table: Table) -> None:
    t = hole_card_table
    open_round(t)
    t.draw("9H", "7C", "TS", "QD")  # box 1, up card, box 1, the hole card: 17
    t.sub.wait_for(lambda: len(t.card_events()) == 4, 30, "the deal")
    shown = [m for m in t.sub.messages if m.topic in ("state", "events", "alerts")]
    assert not any("QD" in str(m.payload) for m in shown), "the hole card reached a display"
    t.panel.press("stand")
    out = outcome(t)
    assert out["dealer"]["cards"] == ["7C", "QD"]  # type: ignore[index]
