"""The table service: one loop owns the table.

Drivers and the MQTT client only put records on `self.queue` (thread-safe,
never blocking). The loop takes them in order; for each driver record it
journals the record (a batch of them shares one commit), and once the
journal is synced asks the `Intake` what it means and applies the resulting
input event to the engine; the operations become
stream messages that are committed to the outbox before anything is
published (`_flush`). Timers (the simulator's bots, the terminal view,
pruning) run in the same loop, Klipper-reactor style: each returns the
delay to its next run, or None to stop.

The journal's syncs run on a thread of their own (controller.syncer): the loop
journals the next batch while the last one's sync is in flight, and applies
each batch only once a sync that began after its commit has returned. Timers
that act on the table (the sim's bots: `every(..., settled=True)`) wait until
every journaled batch is applied; the others run meanwhile.

At start the journal is replayed through a fresh engine: the table is
rebuilt exactly, the round in progress resumes, and any message the last
run stored in the journal but not yet in the outbox is regenerated.
"""

from __future__ import annotations

import contextlib
import gc
import heapq
import itertools
import json
import logging
import queue
import sqlite3
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
from controller.faults import CameraWatch, ClockWatch, FrameClock
from controller.intake import Intake, Raise, next_card_hidden
from controller.journal import Message, Store
from controller.mqtt_link import Acked, Command, Connected, Disconnected, LinkEvent, MqttLink
from controller.outbox import Pump
from controller.pit import PitDesk
from controller.records import PitCommand, Record, decode, encode
from controller.surveillance import Out, Settings, Surveillance
from controller.surveillance.edges import edge_for
from controller.syncer import Synced, Syncer, SyncFailed
from controller.watchdog import Notifier, Watchdog
from drivers.interfaces import BetSeen, CardRead, DriverEvent, DriverSet, PanelPress, SensorFault

log = logging.getLogger("croupier.service")

Timer = Callable[[], float | None]
SYNC_MAX_AGE = 20.0  # seconds a journaled batch may wait for its sync before the watchdog acts
BATCH = 64  # records taken from the queue before the outbox is committed and published
RETRY = 1.0  # seconds between attempts to commit while the journal cannot (a full disk)
SWITCH_INTERVAL = 0.0005  # seconds
# A change is shown at once after a quiet spell; changes that follow within this time
# share one snapshot, published when it has passed (at most this late).
STATE_EVERY = 0.05  # seconds
ACKS_EVERY = 1.0  # seconds between commits of acknowledgements that came with no new message


class _Stop:
    pass


class JournalSyncError(RuntimeError):
    """The disk failed a sync of the journal: what was written since the last good
    sync may be lost, so the table stops; the next start replays what the journal
    kept (systemd restarts the service)."""


Item = DriverEvent | LinkEvent | Synced | SyncFailed | _Stop


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
    halted: str | None = None  # why the table takes no input now (a full disk)

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
        clock: Callable[[], float] = time.time,
        audit_view: bool = False,
    ) -> None:
        """`broker` None: no MQTT at all (the outbox only fills; tests and tools).
        `clock`: the wall clock (journal and audit times only; never the order).
        `audit_view`: events in the full view, hidden cards shown: only for the audit's
        replay of a copy (controller.audit.replay), never for a table that publishes."""
        if audit_view and broker is not None:
            raise ValueError("the full view is for an offline replay, never for a broker")
        self.config = config
        self.clock = clock
        self.table_id = config.table.id
        self.root = f"{wire.ROOT}/{self.table_id}"
        self.drivers = drivers
        self.queue: queue.SimpleQueue[Item] = queue.SimpleQueue()
        self.session = wire.new_session()
        self.since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.store = Store(config.state.dir, config.state.fsync, config.state.reserve_mb << 20)
        self.disk_free_mb = self.store.free_bytes() >> 20  # in `status`; checked every minute
        self.disk_mb = self.store.disk_bytes() >> 20
        self._check_meta(meta or {})
        profile = rules.load(config.table.rules)
        self.table = Table(profile, config.table.boxes)
        self.intake = Intake(self.table, config.cards.min_confidence)
        self.stream = wire.Stream(self.table_id, public=not audit_view)
        self.view = TableView(self.table, self.table_id, self.intake)
        self.desk = PitDesk(self)
        # A journal that cannot commit stops the table: input waits here, in order, and
        # is journaled then applied once it can (`_take`, `_resume`). Nothing unjournaled
        # is ever applied.
        self.halted: str | None = None
        self.held: list[Record] = []
        # Journaled, waiting for their sync before they are applied: (first seq, records,
        # when committed: monotonic).
        self.unsynced: deque[tuple[int, list[Record], float]] = deque()
        self.syncer: Syncer | None = None  # `run` starts it; without it a commit syncs itself
        self.applied = 0  # the last journal seq applied (its messages are in `pending`)
        self.sync_failed: Exception | None = None  # the disk failed a sync: take nothing more
        self._halted_at = 0.0
        self._retry_at = 0.0
        self.clock_watch = ClockWatch(self.store.last_at())
        self.camera: CameraWatch | None = None
        # Analytics for surveillance/... topics: only where they may be published.
        self.surveillance = self._surveillance_desk() if config.mqtt.surveillance else None
        self._live = False  # records replayed at start carry no time
        self.pending: list[tuple[int, Message]] = []
        # Told of each live input record as it is applied, with its journal seq (the
        # simulator times camera reads by it); never of the records replayed at start.
        self.on_record: Callable[[int, Record], None] | None = None
        self.devices: list[dict[str, Any]] | None = None  # the drivers' health, for `status`
        self.changed = True
        self._state_at = 0.0
        self.running = False
        self.exit_when_idle = False
        self._timers: list[tuple[float, int, Timer, bool]] = []  # due, order, timer, settled
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

    def _status(self, state: str = "online") -> str:
        alarms = []
        if self.halted is not None and state == "online":
            alarms = [{"kind": "journal", "message": f"the table takes no input: {self.halted}"}]
        # A tenth of the disk at most: a small disk (a test's tmpfs) is not low from the start.
        low = min(self.config.state.min_free_mb, self.disk_mb // 10)
        if state == "online" and self.disk_free_mb < low:
            alarms.append({"kind": "disk_low", "message": (
                f"{self.disk_free_mb} MB free on the state dir's disk (alarm below {low} MB): "
                "when it is full the table stops taking input"
            )})
        body = wire.status(state, self.session, self.table_id, self.since, self.devices, alarms)
        body["disk"] = {"free_mb": self.disk_free_mb, "alarm_below_mb": low}
        return wire.dumps(body)

    def _check_disk(self) -> None:
        """Free space into `status` (rounded, so that it changes the topic now and then,
        not every minute), and the reserve held again when there is room."""
        try:
            free = self.store.free_bytes() >> 20
        except OSError:
            return
        shown = free if free < 1024 else free // 100 * 100
        if shown != self.disk_free_mb:
            self.disk_free_mb = shown
            self.pump.set_slot(wire.STATUS, self._status())
        if self.halted is None:
            self.store.keep_reserve()

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
        self.desk.replay_end = self.store.last_seq
        for seq, data in self.store.records():
            messages = self._process(seq, decode(data))
            if seq > outboxed:
                self.pending.extend((seq, m) for m in messages)
            count += 1
        self.applied = self.store.last_seq
        self.desk.live = True
        self.view.seq = self.stream.seq
        self._live = True
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
        messages = self._translate(seq, record)
        self.desk.note(seq, messages)
        if self.on_record is not None:
            self.on_record(seq, record)
        return messages

    def _translate(self, seq: int, record: Record) -> list[Message]:
        if isinstance(record, PitCommand):
            return self.desk.process(seq, record)
        watched: list[Message] = []
        if self.surveillance is not None and isinstance(record, BetSeen):
            watched = self._watched(self.surveillance.bet_seen(record, seq))
        intent = self.intake.translate(record)
        if isinstance(intent, Raise):
            alert = self._alert(seq, intent.kind, intent.message, intent.box, **intent.extra)
            return [alert, *watched]
        if intent is None:
            return watched
        return [*self._apply(seq, intent.event), *watched]

    def apply_event(self, seq: int, event: dict[str, Any]) -> list[Message]:
        """A pit command's engine event, applied like a driver's (controller.pit)."""
        return self._apply(seq, event)

    def replace_table(self, table: Table, intake: Intake) -> None:
        """A corrected round (controller.correction): the table derived again takes over."""
        self.table = table
        self.intake = intake
        self.view.table = table
        self.view.intake = intake
        self.changed = True

    def _apply(self, seq: int, event: dict[str, Any]) -> list[Message]:
        surveillance = self.surveillance
        if surveillance is not None:
            surveillance.before()
        try:
            operations = self.table.apply(parse_event(event))
        except TableError as exc:
            foreign = isinstance(exc, ShoeError) and event["type"] in ("card", "burn")
            card = str(event.get("card", ""))  # before a hidden one is blanked below
            message = str(exc)
            if event["type"] in ("card", "burn") and next_card_hidden(self.table):
                # A display reads alerts: the face of a card meant to go face down (or to
                # be burned) stays in the journal. The refusal left the table as it was, so
                # the table still says where the card was going.
                message = (
                    "the shoe gave a card the table cannot take face down here: "
                    + ("a card the shoe cannot hold (a foreign card?)" if foreign else "refused")
                    + "; the supervisor checks it against the journal"
                )
                event = {**event, "card": None}
            refused = [
                self._alert(
                    seq,
                    "foreign_card" if foreign else "refused",
                    message,
                    event.get("box"),
                    event=event,
                )
            ]
            if foreign and surveillance is not None:
                refused += self._watched(surveillance.foreign_card(card, seq))
            return refused
        for op in operations:
            if isinstance(op, ops.ShoeStarted):
                self.view.shoes += 1
        messages = self.stream.messages(operations, self.table, seq)
        for n, found in enumerate(self.intake.observe(operations)):
            key = f"{seq}:{found.kind}:{n}"  # several at one event (e.g. at the close)
            messages.append(
                self._alert(seq, found.kind, found.message, found.box, key=key, **found.extra)
            )
        if surveillance is not None:
            now = time.monotonic() if self._live else None
            messages += self._watched(surveillance.applied(operations, seq, now))
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
    def put(self, item: DriverEvent | LinkEvent | Synced | SyncFailed) -> None:
        """The sink drivers and the MQTT client call, from any thread."""
        self.queue.put(item)

    def stop(self) -> None:
        self.queue.put(_Stop())

    def every(self, delay: float, timer: Timer, settled: bool = False) -> None:
        """Run `timer` in the loop after `delay` s, then again after the delay it returns.

        `settled`: it acts on the table (a bot), so it waits until every journaled
        batch is applied, and its runs are a function of the input alone."""
        heapq.heappush(self._timers, (time.monotonic() + delay, next(self._order), timer, settled))

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
        if self.config.state.fsync:
            self.syncer = Syncer(self.store.sync, self.put)
        self.start()
        self.every(60.0, self._prune)
        self.every(ACKS_EVERY, self._commit_acks)
        if self.surveillance is not None:
            self.every(self.config.surveillance.metrics_every_s, self._metrics)
        self.watchdog.watch("outbox", max_age=20.0)
        # A sync that never returns (a dying SD card) would leave input journaled and never
        # applied while the loop turns: past this age systemd is no longer fed.
        self.watchdog.watch("journal", SYNC_MAX_AGE, since=self._synced_since)
        cards = self.drivers.cards
        if isinstance(cards, FrameClock):
            self.camera = CameraWatch(cards, self.config.cards.camera_stale_after, self.put)
            self.watchdog.watch("camera", self.camera.stale_after, since=self.camera.last_alive)
            self.every(self.camera.stale_after, self._camera_tick)
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
        if self.sync_failed is not None:
            raise self._sync_error()  # it failed during the shutdown

    def _camera_tick(self) -> float:
        assert self.camera is not None
        was = self.camera.stale
        delay = self.camera.tick()
        if self.camera.stale != was:
            self.changed = True  # `state` says whether cards are keyed in
        return delay

    def drain(self) -> None:
        """Take everything queued now, without timers, and apply it (for tests, tools and
        the shutdown)."""
        while not self.queue.empty() and self.sync_failed is None:
            self._iteration_items([self.queue.get_nowait()])
        if self.unsynced:
            self._settle()
        self._flush(snapshot=True)

    def _keep_unjournaled(self, items: list[Item]) -> None:
        """After a failed sync nothing more is journaled: the driver records among
        `items` are kept for the log (`_shutdown` lists them)."""
        self.held += [i for i in items if isinstance(i, DRIVER_RECORDS)]

    def _sync_error(self) -> JournalSyncError:
        error = JournalSyncError(
            f"{self.store.path}: the disk failed a sync of the journal ({self.sync_failed}); "
            "the table stops, and its next start replays what the journal kept"
        )
        error.__cause__ = self.sync_failed
        return error

    def _settle(self) -> None:
        """Sync here and apply every batch still waiting for its sync (a failed sync:
        `sync_failed` is set, and the caller stops)."""
        if self.unsynced:
            try:
                self.store.sync()
            except OSError as exc:
                self._handle(SyncFailed(self.store.last_seq, exc), [])
                return
            self._synced(self.store.last_seq)

    def _iteration(self) -> None:
        if self.halted is not None and time.monotonic() >= self._retry_at:
            self._resume()
        idle = not (self.changed or self.held or self.unsynced)
        if self.exit_when_idle and idle and self.pump.idle():
            self.running = False
            return
        # Timers run only on an empty queue, and settled ones (a bot) only with every
        # journaled batch applied: a bot acts on a table that has taken everything it did
        # before. The sync's answer comes on the queue.
        waiting = bool(self.unsynced)
        timeout = self._run_timers(waiting) if self.queue.empty() else 0.0
        if self.changed:  # a snapshot held back (STATE_EVERY) is due
            timeout = min(timeout, max(0.0, self._state_at + STATE_EVERY - time.monotonic()))
        try:
            item = self.queue.get(timeout=timeout)
        except queue.Empty:
            if self.changed:
                self._flush()  # a timer changed what `state` shows (the camera)
            return
        items = [item]
        while len(items) < BATCH:
            try:
                items.append(self.queue.get_nowait())
            except queue.Empty:
                break
        self._iteration_items(items)

    def _iteration_items(self, items: list[Item]) -> None:
        inputs: list[Record] = []
        for n, item in enumerate(items):
            if isinstance(item, DRIVER_RECORDS):
                inputs.append(item)
            else:
                self._handle(item, inputs)
            if self.sync_failed is not None:
                self.held += inputs
                self._keep_unjournaled(items[n + 1 :])
                raise self._sync_error()
        if inputs:
            self._take(inputs)
        self._flush()

    def _take(self, records: list[Record]) -> None:
        """Journal a batch of input records (one commit), then apply them in order once
        they are synced (`_synced`).

        A journal that cannot commit (a full disk) applies nothing: the records wait,
        in order, with everything after them, until a commit works again."""
        now = self.clock()
        jump = self.clock_watch.check(now)  # times are for the audit; the order is seq
        if jump is not None:
            records = [jump, *records]
        if self.halted is not None or not self._commit(records, now):
            self._hold(records)

    def _commit(self, records: list[Record], now: float) -> bool:
        syncer = self.syncer
        try:
            first = self.store.append([encode(r) for r in records], at=now, durable=syncer is None)
        except sqlite3.Error as exc:
            self._halt(f"the journal cannot commit ({exc})")
            return False
        self.unsynced.append((first, records, time.monotonic()))
        last = first + len(records) - 1
        if syncer is not None:
            syncer.request(last)
        else:
            self._synced(last)  # the commit synced itself (or fsync is off)
        return True

    def _synced(self, upto: int) -> None:
        """Apply, in journal order, every batch whose records are durable up to `upto`."""
        while self.unsynced:
            first, records, _ = self.unsynced[0]
            if first + len(records) - 1 > upto:
                break
            self.unsynced.popleft()
            for seq, record in enumerate(records, start=first):
                self.pending.extend((seq, m) for m in self._process(seq, record))
            self.applied = first + len(records) - 1
            self.changed = True

    def _hold(self, records: list[Record]) -> None:
        before = len(self.held)
        self.held.extend(records)
        if len(self.held) // 1000 > before // 1000:
            log.error("input waiting for the journal", extra={"records": len(self.held)})

    def _halt(self, why: str) -> None:
        """Say it loudly, everywhere that works without the disk: the log, systemd's
        status line, the retained `status` and `state` topics."""
        if self.halted is not None:
            return
        self.halted = self.view.halted = why
        self._halted_at = time.monotonic()
        if self.store.release():  # room for the checkpoint that empties the WAL
            log.warning("disk full: the reserve is given back to empty the WAL")
        self._retry_at = self._halted_at + RETRY
        log.error(
            "the table stops taking input: %s; it resumes by itself when the disk has room again",
            why,
        )
        self.watchdog.status(f"HALTED, taking no input: {why}")
        self.pump.set_slot(wire.STATUS, self._status())
        self.changed = True

    def _resume(self) -> None:
        """Try again: the outbox first (older), then the held records, oldest first."""
        self._retry_at = time.monotonic() + RETRY
        if not self._store_pending():
            return
        why, waited = self.halted, time.monotonic() - self._halted_at
        held, self.held = self.held, []
        note = SensorFault(
            "journal",
            f"the table took no input for {waited:.0f} s: {why}. The {len(held)} record(s) "
            "that came meanwhile are journaled now, in the order they came: nothing lost",
        )
        self.halted = None
        if not self._commit([note, *held], self.clock()):
            self.held = held + self.held
            self._halted_at = time.monotonic() - waited  # the same outage goes on
            return
        self.view.halted = None
        log.warning(
            "the journal commits again: the table takes input",
            extra={"held": len(held), "seconds": round(waited, 1)},
        )
        self.watchdog.status(f"table {self.table_id}: taking input again")
        self.pump.set_slot(wire.STATUS, self._status())

    def _run_timers(self, waiting: bool = False) -> float:
        """Run the timers that are due; the seconds until the next one. `waiting`: a
        journaled batch waits for its sync, so settled timers wait too."""
        now = time.monotonic()
        later = []
        while self._timers and self._timers[0][0] <= now:
            entry = heapq.heappop(self._timers)
            _, _, timer, settled = entry
            if settled and waiting:
                later.append(entry)
                continue
            delay = timer()
            if delay is not None:
                heapq.heappush(self._timers, (now + delay, next(self._order), timer, settled))
            if not self.queue.empty():
                break  # a timer's records are taken before the next timer runs
        for entry in later:
            heapq.heappush(self._timers, entry)
        if not self.queue.empty():
            return 0.0
        due = [t[0] for t in self._timers if not (t[3] and waiting)]
        if not due:
            return 0.5
        return max(0.0, min(0.5, min(due) - time.monotonic()))

    def _synced_since(self) -> float:
        """For the watchdog: now, or when the oldest batch still waiting was committed."""
        return self.unsynced[0][2] if self.unsynced else time.monotonic()

    def _handle(self, item: LinkEvent | Synced | SyncFailed | _Stop, inputs: list[Record]) -> None:
        if isinstance(item, Synced):
            self._synced(item.upto)
        elif isinstance(item, SyncFailed):
            self.unsynced.clear()  # never applied; the next start replays what was kept
            self.sync_failed = item.error
        elif isinstance(item, Acked):
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

    def _store_pending(self) -> bool:
        """Commit the new stream messages, with the acks that came since the last commit,
        to the outbox; False when it cannot (they stay in memory, and the table halts
        until it can). Acks alone wait for `_commit_acks`: an ack not yet marked costs a
        message sent again after a crash (the same id, as the contract allows), while
        a commit per PUBACK cost the loop a third of its time at 1,000 records/s."""
        if not self.pending:
            return True
        try:
            self.store.add(self.pending, self.applied, self.pump.acked)
        except sqlite3.Error as exc:
            self._halt(f"the outbox cannot commit ({exc})")
            return False
        for _, m in self.pending:
            if m.topic == wire.ALERTS:
                alert = json.loads(m.payload)
                self.view.alerts.append(alert)
                log.warning("alert", extra={"kind": alert["kind"], "alert": alert["message"]})
        self.pending = []
        self.pump.acked = []
        return True

    def _flush(self, snapshot: bool = False) -> None:
        """Commit the new stream messages and acks, refresh the snapshots, publish.
        `snapshot`: now, not held back (tests and tools look at it right after)."""
        self._store_pending()
        # The snapshot follows every change, but at most once per STATE_EVERY: building
        # and publishing it costs more than applying a card, and at a burst's pace one
        # per batch was half of what the loop and the broker did. The loop wakes up for
        # one held back (`_iteration`).
        now = time.monotonic()
        if self.changed and (snapshot or now - self._state_at >= STATE_EVERY):
            self.changed = False
            self._state_at = now
            self._set_slots()
        self.pump.pump()
        self.view.seq = self.stream.seq  # the bots see their progress at once
        self.view.connected = self.pump.connected
        self.view.backlog = self.pump.backlog()

    def set_devices(self, devices: list[dict[str, Any]]) -> None:
        """The drivers' health changed (from a timer in the loop): republish `status`."""
        if devices == self.devices:
            return
        self.devices = devices
        self.pump.set_slot(wire.STATUS, self._status())
        self.pump.pump()

    def refresh_info(self) -> None:
        self.pump.set_slot(
            wire.INFO, wire.dumps(wire.info(self.table, self.table_id, self.session))
        )

    def _set_first_slots(self) -> None:
        self.pump.set_slot(wire.STATUS, self._status())
        self.pump.set_slot(
            wire.INFO, wire.dumps(wire.info(self.table, self.table_id, self.session))
        )

    def _set_slots(self) -> None:
        seq = self.stream.seq
        extra: dict[str, Any] = {"awaiting_key": self.intake.awaiting_key}
        if self.halted is not None:
            extra["halted"] = self.halted  # displays show the table stopped, and why
        if self.camera is not None and self.camera.stale:
            extra["camera_stale"] = True  # cards are keyed in on the panel meanwhile
        self.pump.set_slot(
            wire.STATE, wire.dumps(wire.state(self.table, self.table_id, seq, extra))
        )
        if self.stream.last_outcome is not None:
            self.pump.set_slot(wire.OUTCOME_LAST, wire.dumps(self.stream.last_outcome))
        if self.config.mqtt.surveillance:
            full = wire.surveillance_state(self.table, self.table_id, seq)
            self.pump.set_slot(wire.SURVEILLANCE_STATE, wire.dumps(full))
        if self.surveillance is not None:
            for topic, payload in self.surveillance.snapshots():
                self.pump.set_slot(topic, wire.dumps(payload))

    # ---------------------------------------------------------- surveillance
    def _surveillance_desk(self) -> Surveillance:
        s = self.config.surveillance
        settings = Settings(
            s.count_z,
            s.count_min_rounds,
            s.session_gap_rounds,
            s.metrics_window_s,
            s.payout_tolerance,
        )
        return Surveillance(self.table, self.table_id, settings, edge_for(self.table.p))

    def _watched(self, found: list[Out]) -> list[Message]:
        """The desk's stream messages (its retained topics are slots, `_set_slots`)."""
        return [Message(topic, wire.dumps(payload)) for topic, payload in found]

    def _metrics(self) -> float:
        assert self.surveillance is not None
        at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        topic, payload = self.surveillance.metrics(time.monotonic(), at)
        self.pending.append((0, Message(topic, wire.dumps(payload))))
        self._flush()
        return self.config.surveillance.metrics_every_s

    def _commit_acks(self) -> float:
        try:
            self.pump.flush_acks()
        except sqlite3.Error as exc:  # a full disk: they go with the next commit that works
            log.warning("could not mark acknowledgements: %s", exc)
        return ACKS_EVERY

    def _prune(self) -> float:
        self._check_disk()
        try:
            self.pump.flush_acks()
            self.store.prune(self.config.state.keep_sent)
        except sqlite3.Error as exc:  # a full disk: the next turn halts and retries
            log.warning("outbox upkeep failed: %s", exc)
        return 60.0

    # -------------------------------------------------------------- commands
    def _command(self, cmd: Command, inputs: list[Record]) -> None:
        """A request from the pit: answered at once, or journaled with this batch's records
        and applied in their order (controller.pit)."""
        if "/" in cmd.name:
            return  # not a request (an answer on cmd/<name>/response, with some brokers)
        self._settle()  # the request is checked against the table with all it journaled
        record = self.desk.receive(cmd.name, cmd.payload, utc(self.clock()))
        if record is not None:
            inputs.append(record)

    # -------------------------------------------------------------- shutdown
    def _shutdown(self) -> None:
        for driver in self.drivers.all():
            try:
                driver.stop()
            except Exception:
                log.exception("a driver failed to stop")
        # Records the drivers sent before they stopped are journaled too. A failed sync:
        # `run` raises it again once the shutdown is done.
        with contextlib.suppress(JournalSyncError):
            self.drain()
        if self.sync_failed is not None:
            left = []
            while not self.queue.empty():
                left.append(self.queue.get_nowait())
            self._keep_unjournaled(left)
        if self.syncer is not None:
            self.syncer.close()
            self.syncer = None  # what is still journaled below syncs as it commits
        if self.halted is not None and self.sync_failed is None:
            self._resume()
        self._flush(snapshot=True)
        if self.held:
            # Stopped while the journal could not commit (or sync): these were never
            # applied. The log is the last place that may still take them.
            log.error(
                "stopping with input never journaled (the journal could not commit or sync): "
                "%d record(s), listed here",
                len(self.held),
            )
            for record in self.held:
                log.error("not journaled: %s", json.dumps(encode(record)))
        try:
            self.pump.flush_acks()
        except sqlite3.Error as exc:
            log.warning("could not mark the last acknowledgements: %s", exc)
        if self.link is not None:
            self._say_offline()
            self.link.stop()
        self.store.close()

    def _say_offline(self) -> None:
        """Publish the retained `offline` status and wait (briefly) for its ack. A request
        from the pit that came after the last drain is refused, not dropped: its sender
        is waiting for an answer."""
        assert self.link is not None
        if self.pump.connected:
            while not self.queue.empty():
                self._late(self.queue.get_nowait())
            self.pump.set_slot(wire.STATUS, self._status("offline"))
            self.pump.pump()
            deadline = time.monotonic() + 3
            while self.pump.slot_inflight and time.monotonic() < deadline:
                try:
                    self._late(self.queue.get(timeout=0.1))
                except queue.Empty:
                    continue
        with contextlib.suppress(sqlite3.Error):
            self.pump.flush_acks()
        self.link.disconnect()

    def _late(self, item: Item) -> None:
        """What reaches the loop while it says `offline`: acks are taken, requests refused
        (answered before the status, on the same connection); the rest came after the
        drivers stopped, and is no input."""
        if isinstance(item, Acked):
            self.pump.on_ack(item.mid)
        elif isinstance(item, Command) and "/" not in item.name:
            self.desk.receive(item.name, item.payload, utc(self.clock()), stopping=True)
            self._flush()


def utc(when: float) -> str:
    """A wall-clock time for the audit: UTC, ISO 8601, milliseconds."""
    millis = int(when * 1000) % 1000
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(when)) + f".{millis:03d}Z"


DRIVER_RECORDS = (CardRead, BetSeen, PanelPress, SensorFault)
