"""A table for the pit tests: the real service on fake drivers (tests drive the
fakes as a dealer would), offline or running its loop against a real broker."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.config import BrokerAddress, Config, override
from controller.engine.view import table_state
from controller.mqtt_link import Command
from controller.service import Service
from drivers.fakes import FakeBetSensor, FakeShoe
from drivers.interfaces import DriverSet
from sim.card_shoe import SimShoe
from sim.keypad import SimKeypad
from tests.service.conftest import Subscriber
from tests.service.contract import validate


class PitTable:
    def __init__(
        self,
        state: Path,
        rules: str = "be-casino",
        table_id: str = "pit",
        port: int | None = None,
        clock: Callable[[], float] = time.time,
        card_source: Any = None,
        shoe: SimShoe | FakeShoe | None = None,  # the fake: only for half-read cards
        state_options: dict[str, Any] | None = None,
        **config: Any,
    ) -> None:
        cfg = override(
            Config(),
            "test",
            table={"id": table_id, "rules": rules},
            state={"dir": state, "fsync": False, **(state_options or {})},
            **config,
        )
        address = (
            None
            if port is None
            else BrokerAddress(host="127.0.0.1", port=port, tls=False, websockets=False)
        )
        self.shoe = shoe or SimShoe()
        self.bets, self.panel = FakeBetSensor(), SimKeypad()
        self.service = Service(
            cfg, DriverSet(card_source or self.shoe, self.bets, self.panel), address, clock=clock
        )
        self.thread: threading.Thread | None = None
        self.seen = len(self.service.store.rows_from(1, 10**7))  # a restart: only what is new
        if port is None and card_source is None:
            self.service.start()

    # ------------------------------------------------------------ the loop
    def run(self, timeout: float = 10.0) -> PitTable:
        """Run the service's loop on a thread (connects to the broker); returns once
        the loop has started the drivers, so the test can act as the dealer at once.
        (A card source of the test's own, a serial shoe, may connect before the
        bet sensor is started: a bet placed then was refused by the fake.)"""
        self.thread = threading.Thread(target=self.service.run, name="table", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + timeout
        while self.bets.sink is None or self.panel.sink is None:
            assert self.thread.is_alive(), "the table's loop stopped while starting"
            assert time.monotonic() < deadline, "the table did not start its drivers"
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        if self.thread is not None:
            self.service.stop()
            self.thread.join(timeout=20)
            assert not self.thread.is_alive(), "the table's loop did not stop"
            self.thread = None
        else:
            self.service.store.close()

    def fill_journal(self) -> None:
        """Take bets on and off box 1 until a commit fails and the table
        halts (a full disk: the WAL may have room for a while)."""
        fed = 0
        while self.service.halted is None:
            assert fed < 20_000, "the journal never filled up"
            self.bets.place(1, "10" if fed % 2 == 0 else "0")
            fed += 1
            if fed % 10 == 0:
                self.settle()
        self.settle()

    def settle(self, timeout: float = 10.0) -> None:
        """Wait until the loop has taken everything queued and stored its messages."""
        deadline = time.monotonic() + timeout
        if self.thread is None:
            self.service.drain()
            return
        s = self.service

        def idle() -> bool:  # (a halted table keeps its messages in memory)
            return s.queue.empty() and (not s.publisher.pending or s.halted is not None)

        while time.monotonic() < deadline:
            if idle():
                time.sleep(0.05)
                if idle():
                    return
            time.sleep(0.01)
        raise AssertionError("the table did not settle")

    # ---------------------------------------------------------- the dealer
    def deal_round_start(self, cards: tuple[str, ...] = ("9H", "8D", "7C", "TS", "5H")) -> None:
        """Two boxes bet, bets close, the initial deal (be-casino: no hole card)."""
        self.bets.place(1, "10")
        self.bets.place(2, "20")
        self.panel.press("close_bets")
        for card in cards:
            self.shoe.draw(card)

    # -------------------------------------------------------- the pit (offline)
    def command(self, name: str, payload: dict[str, Any] | bytes) -> dict[str, Any]:
        """Send a command the way the MQTT client hands it over; its answer."""
        raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.service.put(Command(name, raw))
        answers = [m for m in self.new(keep=True) if m["topic"] == f"cmd/{name}/response"]
        assert answers, f"no answer to {name}"
        return answers[-1]

    def new(self, keep: bool = False) -> list[dict[str, Any]]:
        """What the service stored for the pit since the last call (schema-checked);
        `keep`: the next call returns them again."""
        self.settle()
        rows = self.service.store.rows_from(1, 1_000_000)[self.seen :]
        if not keep:
            self.seen += len(rows)
        out = []
        for row in rows:
            payload = json.loads(row.payload)
            validate(row.topic, payload)
            out.append({"topic": row.topic, **payload})
        return out

    # ---------------------------------------------------------- inspection
    def snapshot(self) -> dict[str, Any]:
        """Everything a refusal must leave alone: the full table, the journal's end."""
        s = self.service
        return {
            "table": table_state(s.table, public=False),
            "journal": s.store.last_seq,
            "events": s.stream.seq,
            "limits": (s.table.table_min, s.table.table_max),
        }


def answer(sub: Subscriber, name: str, transaction: str, timeout: float = 10) -> dict[str, Any]:
    topic = f"cmd/{name}/response"
    sub.wait_for(
        lambda: any(m.payload.get("transaction") == transaction for m in sub.on(topic)),
        timeout,
        f"the answer to {transaction}",
    )
    return next(m.payload for m in sub.on(topic) if m.payload.get("transaction") == transaction)


def events(sub: Subscriber, kind: str) -> list[dict[str, Any]]:
    return [m.payload for m in sub.on("events") if m.payload["type"] == kind]
