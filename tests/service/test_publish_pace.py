"""What the loop publishes and commits per change, with a real broker: a burst of
changes shares `state` snapshots (the last one always shown), and the broker's
acknowledgements are marked in the outbox by the second, not one commit per PUBACK.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller import publisher
from controller.config import Config, broker_address, override
from controller.service import Service
from drivers.fakes import FakeBetSensor
from drivers.interfaces import DriverSet
from sim.card_shoe import SimShoe
from sim.keypad import SimKeypad
from tests.service.conftest import BrokerProcess, Subscriber


class Table:
    """A service on fake drivers and a real broker, its loop in a thread, a display on it."""

    def __init__(self, state: Path, broker: BrokerProcess, table: str) -> None:
        config = override(
            Config(),
            "test",
            table={"id": table, "rules": "fr-2007"},
            state={"dir": state},
            mqtt={"broker": broker.url},
        )
        self.bets = FakeBetSensor()
        self.drivers = DriverSet(SimShoe(), self.bets, SimKeypad())
        assert config.mqtt.broker is not None
        self.service = Service(config, self.drivers, broker_address(config.mqtt.broker))
        self.commits: list[tuple[int, int]] = []  # (messages, acks) of each outbox commit
        store = self.service.store
        add, mark = store.add, store.mark_sent

        def counted_add(messages: Any, outboxed: int, acked: list[int]) -> None:
            messages = list(messages)
            self.commits.append((len(messages), len(acked)))
            add(messages, outboxed, acked)

        def counted_mark(ids: list[int]) -> None:
            self.commits.append((0, len(ids)))
            mark(ids)

        store.add = counted_add  # type: ignore[method-assign]
        store.mark_sent = counted_mark  # type: ignore[method-assign]
        self.display = Subscriber(broker.port, table)
        self.thread = threading.Thread(target=self.service.run, daemon=True)
        self.thread.start()
        self.display.wait_for(lambda: bool(self.display.on("state")), 10, "the first state")

    def stop(self) -> None:
        self.service.stop()
        self.thread.join(10)
        assert not self.thread.is_alive()
        self.display.client.loop_stop()
        self.display.client.disconnect()

    def events_seq(self) -> int:
        return max((m.payload["seq"] for m in self.display.on("events")), default=0)


@pytest.fixture
def table(tmp_path: Path, broker: BrokerProcess, request: pytest.FixtureRequest) -> Iterator[Table]:
    t = Table(tmp_path, broker, f"pace-{request.node.name[-20:].replace('_', '-')}")
    yield t
    t.stop()


def test_a_burst_of_changes_shares_state_snapshots_and_the_last_is_shown(table: Table) -> None:
    before = len(table.display.on("state"))
    started = time.monotonic()
    for n in range(40):  # a change every 2 ms: bets moving on the seven boxes
        table.bets.place(n % 7 + 1, str(10 + n))
        time.sleep(0.002)
    took = time.monotonic() - started
    table.display.wait_for(lambda: table.events_seq() > 0, 10, "the burst's events")

    def shown() -> bool:
        states = table.display.on("state")
        return bool(states) and states[-1].payload["seq"] == table.events_seq()

    # Held back, never dropped: the last snapshot shows the last change.
    table.display.wait_for(shown, 10, "a state with the burst's last seq")
    time.sleep(3 * publisher.STATE_EVERY)
    assert shown()
    snapshots = len(table.display.on("state")) - before
    # One per STATE_EVERY at most, and one after: a snapshot per change was 40.
    assert 1 <= snapshots <= took / publisher.STATE_EVERY + 3, (snapshots, took)
    # ... with the last bet of each box (box 7's last was 10 + 34).
    last = table.display.on("state")[-1].payload
    assert [b["amount"] for b in last["bets"] if b["box"] == 7] == ["44"]


def test_acknowledgements_are_marked_by_the_second_not_one_commit_each(table: Table) -> None:
    for n in range(30):
        table.bets.place(n % 7 + 1, str(10 + n))
        time.sleep(0.01)
    table.display.wait_for(lambda: table.events_seq() > 0, 10, "the events")
    db = sqlite3.connect(table.service.store.path)
    try:

        def unsent() -> int:
            count: int = db.execute("SELECT count(*) FROM outbox WHERE sent = 0").fetchone()[0]
            return count

        # Every message the broker acknowledged is marked within ACKS_EVERY (and a bit).
        deadline = time.monotonic() + 3 * publisher.ACKS_EVERY + 5
        while unsent() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert unsent() == 0
    finally:
        db.close()
    acks_alone = [c for c in table.commits if c[0] == 0]
    with_messages = [c for c in table.commits if c[0] > 0]
    marked = sum(a for _, a in table.commits)
    assert marked >= 30  # every events row acknowledged was marked
    # Without messages to store, acks wait for the timer: a few commits, not one per ack.
    assert len(acks_alone) <= 3, acks_alone
    assert len(with_messages) <= 31
