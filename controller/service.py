"""The table service: one loop owns the table.

Drivers and the MQTT client only put records on `self.queue` (thread-safe,
never blocking). The loop takes them in order; for each driver record it
asks the `Intake` what it means, writes the resulting input event to the
journal (committed), then applies it to the engine; the operations become
stream messages that are committed to the outbox before anything is
published (`_flush`). Timers (the simulator's bots, the terminal view,
pruning) run in the same loop, Klipper-reactor style: each returns the
delay to its next run, or None to stop.

At start the journal is replayed through a fresh engine: the table is
rebuilt exactly, the round in progress resumes, and any message the last
run stored in the journal but not yet in the outbox is regenerated.
"""

from __future__ import annotations

import gc
import heapq
import itertools
import json
import logging
import queue
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller import rules, wire
from controller.config import BrokerAddress, Config, ConfigError
from controller.engine import Table, TableError, ops, parse_event
from controller.engine.errors import ShoeError
from controller.intake import Intake, Raise
from controller.journal import Message, Store
from controller.mqtt_link import Acked, Command, Connected, Disconnected, LinkEvent, MqttLink
from controller.outbox import Pump
from controller.records import PitCommand, Record, decode, encode
from controller.watchdog import Notifier, Watchdog
from drivers.interfaces import BetSeen, CardRead, DriverEvent, DriverSet, PanelPress, SensorFault

log = logging.getLogger("croupier.service")

Timer = Callable[[], float | None]
BATCH = 64  # records taken from the queue before the outbox is committed and published
SWITCH_INTERVAL = 0.0005  # seconds
STATE_EVERY = 0.05  # seconds between state snapshots while records keep coming


class _Stop:
    pass


@dataclass
class TableView:
    """What the loop shows its timers (the sim's bots, the terminal view): read-only."""

    table: Table
    table_id: str
    intake: Intake
    seq: int = 0
    shoes: int = 0  # shoes started since the state began
    alerts: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=6))
    connected: bool = False
    backlog: int = 0

    @property
    def awaiting_key(self) -> bool:
        return self.intake.awaiting_key


class Service:
    def __init__(
        self,
        config: Config,
        drivers: DriverSet,
        broker: BrokerAddress | None,
        meta: dict[str, str] | None = None,
    ) -> None:
        """`broker` None: no MQTT at all (the outbox only fills; tests and tools)."""
        self.config = config
        self.table_id = config.table.id
        self.root = f"{wire.ROOT}/{self.table_id}"
        self.drivers = drivers
        self.queue: queue.SimpleQueue[DriverEvent | LinkEvent | _Stop] = queue.SimpleQueue()
        self.session = wire.new_session()
        self.since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.store = Store(config.state.dir, config.state.fsync)
        self._check_meta(meta or {})
        profile = rules.load(config.table.rules)
        self.table = Table(profile, config.table.boxes)
        self.intake = Intake(self.table, config.cards.min_confidence)
        self.stream = wire.Stream(self.table_id)
        self.view = TableView(self.table, self.table_id, self.intake)
        self.pending: list[tuple[int, Message]] = []
        self.devices: list[dict[str, Any]] | None = None  # the drivers' health, for `status`
        self.changed = True
        self._state_at = 0.0
        self.running = False
        self.exit_when_idle = False
        self._timers: list[tuple[float, int, Timer]] = []
        self._order = itertools.count()
        self.link = (
            None
            if broker is None
            else MqttLink(config.mqtt, broker, self.root, self.will(), self.put)
        )
        self.pump = Pump(self.store, self.link, config.mqtt.window)
        # systemd (docs/deploy.md): inactive outside it. A long replay extends the start.
        self.notifier = Notifier()
        self.watchdog = Watchdog(self.notifier)
        self.notifier.extend_timeout(60)
        self._replay()

    def will(self) -> str:
        return wire.dumps(wire.status("lost", self.session, self.table_id, self.since))

    # ------------------------------------------------------------- the state
    def _check_meta(self, extra: dict[str, str]) -> None:
        wanted = {
            "table": self.table_id,
            "rules": self.config.table.rules,
            "boxes": str(self.config.table.boxes or ""),
        } | extra
        have = self.store.meta()
        if not have.get("table"):
            self.store.set_meta(wanted)
            return
        differ = [
            f"{k} is {have.get(k)!r}, not {v!r}" for k, v in wanted.items() if have.get(k) != v
        ]
        if differ:
            raise ConfigError(
                f"{self.store.path}: this state belongs to another table set-up: "
                + "; ".join(differ)
                + " (use another state dir, or the same settings to resume)"
            )

    def _replay(self) -> None:
        outboxed = self.store.outboxed
        count = 0
        for seq, data in self.store.records():
            messages = self._process(seq, decode(data))
            if seq > outboxed:
                self.pending.extend((seq, m) for m in messages)
            count += 1
        self.view.seq = self.stream.seq
        if count:
            r = self.table.round
            log.info(
                "journal replayed",
                extra={
                    "records": count,
                    "round": self.table.rounds,
                    "in_play": bool(r and not r.over),
                    "regenerated": len(self.pending),
                },
            )
        self._flush()

    def _process(self, seq: int, record: Record) -> list[Message]:
        """One journaled record through the intake and the engine: its stream messages."""
        if isinstance(record, PitCommand):
            return self._pit_command(seq, record)
        intent = self.intake.translate(record)
        if isinstance(intent, Raise):
            return [self._alert(seq, intent.kind, intent.message, intent.box, **intent.extra)]
        if intent is None:
            return []
        return self._apply(seq, intent.event)

    def _apply(self, seq: int, event: dict[str, Any]) -> list[Message]:
        try:
            operations = self.table.apply(parse_event(event))
        except TableError as exc:
            foreign = isinstance(exc, ShoeError) and event["type"] in ("card", "burn")
            return [
                self._alert(
                    seq,
                    "foreign_card" if foreign else "refused",
                    str(exc),
                    event.get("box"),
                    event=event,
                )
            ]
        for op in operations:
            if isinstance(op, ops.ShoeStarted):
                self.view.shoes += 1
        messages = self.stream.messages(operations, self.table, seq)
        for n, found in enumerate(self.intake.observe(operations)):
            key = f"{seq}:{found.kind}:{n}"  # several at one event (e.g. at the close)
            messages.append(
                self._alert(seq, found.kind, found.message, found.box, key=key, **found.extra)
            )
        return messages

    def _alert(
        self,
        seq: int,
        kind: str,
        message: str,
        box: int | None,
        key: str | None = None,
        **extra: Any,
    ) -> Message:
        r = self.table.round
        number = r.number if r and not r.over else self.table.rounds + 1
        key = key or f"{seq}:{kind}"
        return wire.alert(self.table_id, key, kind, message, number, box, **extra)

    # -------------------------------------------------------------- the loop
    def put(self, item: DriverEvent | LinkEvent) -> None:
        """The sink drivers and the MQTT client call, from any thread."""
        self.queue.put(item)

    def stop(self) -> None:
        self.queue.put(_Stop())

    def every(self, delay: float, timer: Timer) -> None:
        heapq.heappush(self._timers, (time.monotonic() + delay, next(self._order), timer))

    def start(self) -> None:
        """Start the drivers and the MQTT client (`run` does it)."""
        for driver in self.drivers.all():
            driver.start(self.put)
        if self.link is not None:
            self.link.start()

    def run(self) -> None:
        # Records go from driver threads to this loop and messages from it to paho's
        # thread: with the default 5 ms GIL switch interval each hand-over can wait
        # that long. 0.5 ms keeps a card's latency to a subscriber around a millisecond.
        sys.setswitchinterval(SWITCH_INTERVAL)
        # Everything made so far (modules, the replayed table) lives as long as the
        # process: out of the garbage collector's sight, a full collection no longer
        # stalls the loop for a tenth of a second scanning it.
        gc.freeze()
        self.running = True
        self.start()
        self.every(60.0, self._prune)
        self.watchdog.watch("outbox", max_age=20.0)
        self.notifier.ready(f"table {self.table_id}: round {self.table.rounds}")
        try:
            while self.running:
                acks = self.pump.acks
                self._iteration()
                if self.pump.acks != acks or not self.pump.connected or not self.pump.backlog():
                    self.watchdog.beat("outbox")  # draining, or the broker is away (an alert)
                self.watchdog.tick()  # pings systemd only while the loop turns and all is fresh
        finally:
            self.notifier.stopping()
            self._shutdown()

    def drain(self) -> None:
        """Take everything queued now, without timers (for tests and tools)."""
        while not self.queue.empty():
            self._iteration_items([self.queue.get_nowait()])

    def _iteration(self) -> None:
        if self.exit_when_idle and not self.changed and self.pump.idle():
            self.running = False
            return
        # Timers run only on an empty queue: a bot acts on a table that has taken
        # everything it did before.
        timeout = self._run_timers() if self.queue.empty() else 0.0
        try:
            item = self.queue.get(timeout=timeout)
        except queue.Empty:
            return
        items = [item]
        while len(items) < BATCH:
            try:
                items.append(self.queue.get_nowait())
            except queue.Empty:
                break
        self._iteration_items(items)

    def _iteration_items(self, items: list[DriverEvent | LinkEvent | _Stop]) -> None:
        inputs: list[Record] = []
        for item in items:
            if isinstance(item, DRIVER_RECORDS):
                inputs.append(item)
            else:
                self._handle(item, inputs)
        if inputs:
            self._take(inputs)
        self._flush()

    def _take(self, records: list[Record]) -> None:
        """Journal a batch of input records (one fsync), then apply them in order."""
        first = self.store.append([encode(r) for r in records])
        for seq, record in enumerate(records, start=first):
            self.pending.extend((seq, m) for m in self._process(seq, record))
        self.changed = True

    def _run_timers(self) -> float:
        now = time.monotonic()
        while self._timers and self._timers[0][0] <= now:
            _, _, timer = heapq.heappop(self._timers)
            delay = timer()
            if delay is not None:
                heapq.heappush(self._timers, (now + delay, next(self._order), timer))
            if not self.queue.empty():
                return 0.0  # a timer's records are taken before the next timer runs
        if not self._timers:
            return 0.5
        return max(0.0, min(0.5, self._timers[0][0] - time.monotonic()))

    def _handle(self, item: LinkEvent | _Stop, inputs: list[Record]) -> None:
        if isinstance(item, Acked):
            self.pump.on_ack(item.mid)
        elif isinstance(item, Connected):
            log.info("connected to the broker", extra={"session": self.session})
            self._set_first_slots()
            self.pump.on_connect()
        elif isinstance(item, Disconnected):
            if self.pump.connected:
                log.warning("lost the broker", extra={"reason": item.reason})
            self.pump.on_disconnect()
        elif isinstance(item, Command):
            self._command(item, inputs)
        elif isinstance(item, _Stop):
            self.running = False

    def _flush(self) -> None:
        """Commit the new stream messages and acks, refresh the snapshots, publish."""
        if self.pending or self.pump.acked:
            for _, m in self.pending:
                if m.topic == wire.ALERTS:
                    alert = json.loads(m.payload)
                    self.view.alerts.append(alert)
                    log.warning("alert", extra={"kind": alert["kind"], "alert": alert["message"]})
            self.store.add(self.pending, self.store.last_seq, self.pump.acked)
            self.pending = []
            self.pump.acked = []
        # The snapshot follows every change, but under a burst once per STATE_EVERY, not
        # once per batch: building it costs more than applying a card.
        now = time.monotonic()
        if self.changed and (self.queue.empty() or now - self._state_at >= STATE_EVERY):
            self.changed = False
            self._state_at = now
            self._set_slots()
        self.pump.pump()
        self.view.connected = self.pump.connected
        self.view.backlog = self.pump.backlog()

    def set_devices(self, devices: list[dict[str, Any]]) -> None:
        """The drivers' health changed (from a timer in the loop): republish `status`."""
        if devices == self.devices:
            return
        self.devices = devices
        status = wire.status("online", self.session, self.table_id, self.since, devices)
        self.pump.set_slot(wire.STATUS, wire.dumps(status))
        self.pump.pump()

    def _set_first_slots(self) -> None:
        status = wire.status("online", self.session, self.table_id, self.since, self.devices)
        self.pump.set_slot(wire.STATUS, wire.dumps(status))
        self.pump.set_slot(
            wire.INFO, wire.dumps(wire.info(self.table, self.table_id, self.session))
        )

    def _set_slots(self) -> None:
        seq = self.stream.seq
        self.view.seq = seq
        extra = {"awaiting_key": self.intake.awaiting_key}
        self.pump.set_slot(
            wire.STATE, wire.dumps(wire.state(self.table, self.table_id, seq, extra))
        )
        if self.stream.last_outcome is not None:
            self.pump.set_slot(wire.OUTCOME_LAST, wire.dumps(self.stream.last_outcome))
        if self.config.mqtt.surveillance:
            full = wire.surveillance_state(self.table, self.table_id, seq)
            self.pump.set_slot(wire.SURVEILLANCE_STATE, wire.dumps(full))

    def _prune(self) -> float:
        self.pump.flush_acks()
        self.store.prune(self.config.state.keep_sent)
        return 60.0

    # -------------------------------------------------------------- commands
    def _command(self, cmd: Command, inputs: list[Record]) -> None:
        """A command from the pit: answered at once, or journaled when it changes the table."""
        if cmd.name not in COMMANDS and cmd.name not in TABLE_COMMANDS:
            return  # not ours (our own responses come back on cmd/<name>/response)
        try:
            request = json.loads(cmd.payload or b"{}")
            if not isinstance(request, dict):
                raise ValueError("a command is a JSON object")
        except ValueError as exc:
            self._respond(0, cmd.name, None, False, error=f"not a JSON object: {exc}")
            return
        if cmd.name in TABLE_COMMANDS:
            inputs.append(PitCommand(cmd.name, request))
            return
        try:
            fields = COMMANDS[cmd.name](self, request)
        except ValueError as exc:
            self._respond(0, cmd.name, request.get("transaction"), False, error=str(exc))
            return
        self._respond(0, cmd.name, request.get("transaction"), True, **fields)

    def _respond(self, seq: int, name: str, transaction: Any, ok: bool, **fields: Any) -> None:
        self.pending.append((seq, self._response(name, transaction, ok, **fields)))

    def _response(self, name: str, transaction: Any, ok: bool, **fields: Any) -> Message:
        body = wire.response(transaction, ok, command=name, table=self.table_id, **fields)
        return Message(f"cmd/{name}/response", wire.dumps(body))

    def _pit_command(self, seq: int, cmd: PitCommand) -> list[Message]:
        """A journaled pit command (void): applied like a driver record."""
        request = cmd.request
        transaction = request.get("transaction")
        reason = request.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            return [
                self._response(
                    cmd.name,
                    transaction,
                    False,
                    error="void needs a 'reason' (it goes into the audit record)",
                )
            ]
        messages = self._apply(seq, {"type": "void", "reason": reason})
        refused = [m for m in messages if m.topic == wire.ALERTS]
        if refused:
            error = json.loads(refused[0].payload)["message"]
            return [*messages, self._response(cmd.name, transaction, False, error=error)]
        return [*messages, self._response(cmd.name, transaction, True, round=self.table.rounds)]

    def republish(self, request: dict[str, Any]) -> dict[str, Any]:
        first = request.get("from_seq", self.stream.seq + 1)
        if isinstance(first, bool) or not isinstance(first, int) or first < 1:
            raise ValueError(f"from_seq must be a seq number (1, 2, ...), not {first!r}")
        if first <= self.stream.seq:
            oldest = self.store.oldest_event()
            row = self.store.row_of_event(first)
            if row is None or oldest is None or first < oldest:
                raise ValueError(
                    f"seq {first} is no longer kept (the oldest is {oldest}): read `state`"
                )
            self.pump.resend_from(row)
        else:
            self.pump.resend_from(self.store.last_id() + 1)
        return {"from_seq": first, "to_seq": self.stream.seq}

    # -------------------------------------------------------------- shutdown
    def _shutdown(self) -> None:
        for driver in self.drivers.all():
            try:
                driver.stop()
            except Exception:
                log.exception("a driver failed to stop")
        self.drain()  # records the drivers sent before they stopped are journaled too
        self._flush()
        self.pump.flush_acks()
        if self.link is not None:
            self._say_offline()
            self.link.stop()
        self.store.close()

    def _say_offline(self) -> None:
        """Publish the retained `offline` status and wait (briefly) for its ack."""
        assert self.link is not None
        if self.pump.connected:
            offline = wire.status("offline", self.session, self.table_id, self.since)
            self.pump.set_slot(wire.STATUS, wire.dumps(offline))
            self.pump.pump()
            deadline = time.monotonic() + 3
            while self.pump.slot_inflight and time.monotonic() < deadline:
                try:
                    item = self.queue.get(timeout=0.1)
                except queue.Empty:
                    continue
                if isinstance(item, Acked):
                    self.pump.on_ack(item.mid)
        self.pump.flush_acks()
        self.link.disconnect()


# Commands answered at once, by name; they change nothing at the table.
COMMANDS: dict[str, Callable[[Service, dict[str, Any]], dict[str, Any]]] = {
    "republish": Service.republish,
}
# Commands that change the table: journaled, then applied in order (`_pit_command`).
TABLE_COMMANDS = ("void",)
DRIVER_RECORDS = (CardRead, BetSeen, PanelPress, SensorFault)
