"""The table service: the parts of one table, wired, started and stopped.

Each part has one job:
- controller.loop: the event loop. Drivers and the MQTT client only put
  items on its queue; it takes them in order, in batches, and dispatches
  them. Timers (the simulator's bots, the terminal view, pruning) run in
  the same thread, Klipper-reactor style (controller.timers).
- controller.pipeline: journal, then apply. A batch of input records is
  journaled in one commit and applied only once the journal is synced (the
  syncs run on a thread of their own, controller.syncer); a journal that
  cannot commit halts the table until it can.
- controller.applier: one journaled record through the intake and the
  engine (or the pit desk): its stream messages.
- controller.publisher: the outbox and the retained topics; nothing is
  published before it is committed.

At start the journal is replayed through a fresh engine: the table is
rebuilt exactly, the round in progress resumes, and any message the last
run stored in the journal but not yet in the outbox is regenerated.

The pit desk (controller.pit) sees the service through `TableSide`: the
table, and the few acts a command needs."""

from __future__ import annotations

import contextlib
import gc
import json
import logging
import queue
import sqlite3
import sys
import time
from collections.abc import Callable
from typing import Any

from controller import retention, rules, wire
from controller.applier import Applier, surveillance_for
from controller.config import BrokerAddress, Config
from controller.engine import Table
from controller.faults import CameraWatch, FrameClock
from controller.intake import Intake
from controller.journal import Message, Store
from controller.loop import Loop
from controller.mqtt_link import LinkEvent, MqttLink
from controller.outbox import Pump
from controller.pipeline import JournalSyncError, Pipeline, check_meta
from controller.pit import PitDesk
from controller.publisher import ACKS_EVERY, Publisher
from controller.records import Record, decode, encode
from controller.surveillance import Surveillance
from controller.syncer import Synced, Syncer, SyncFailed
from controller.timers import Timer
from controller.view import TableView
from controller.watchdog import Notifier, Watchdog
from drivers.interfaces import DriverEvent, DriverSet

__all__ = ["JournalSyncError", "Service", "utc"]

log = logging.getLogger("croupier.service")

SYNC_MAX_AGE = 20.0  # seconds a journaled batch may wait for its sync before the watchdog acts
SWITCH_INTERVAL = 0.0005  # seconds
RETAIN_EVERY = 600.0  # seconds between two looks at what the journal may forget


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
        self.session = wire.new_session()
        self.since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.store = Store(config.state.dir, config.state.fsync, config.state.reserve_mb << 20)
        wanted = {
            "table": self.table_id,
            "rules": config.table.rules,
            "boxes": str(config.table.boxes or ""),
        }
        check_meta(self.store, wanted | (meta or {}))
        profile = rules.load(config.table.rules)
        table = Table(profile, config.table.boxes)
        self.view = TableView(table, self.table_id, Intake(table, config.cards.min_confidence))
        self.stream = wire.Stream(self.table_id, public=not audit_view)
        self.desk = PitDesk(self)
        self.applier = Applier(self.view, self.stream, self.desk, surveillance_for(config, table))
        self.link = (
            None
            if broker is None
            else MqttLink(config.mqtt, broker, self.root, self.will(), self.put)
        )
        self.pump = Pump(self.store, self.link, config.mqtt.window)
        self.publisher = Publisher(
            config, self.store, self.pump, self.applier, self.view, self.session, self.since
        )
        # systemd (docs/deploy.md): inactive outside it. A long replay extends the start.
        self.notifier = Notifier()
        self.watchdog = Watchdog(self.notifier)
        self.pipeline = Pipeline(
            self.store, clock, self.applier, self.publisher, self.view, self.watchdog
        )
        # What the floor's recorder holds of this table: retention waits for it.
        self.recorded = retention.Recorded()
        self.loop = Loop(
            self.pipeline,
            self.publisher,
            self.desk,
            self.session,
            lambda: utc(self.clock()),
            self.recorded,
        )
        self.queue = self.loop.queue
        self.camera: CameraWatch | None = None
        self.notifier.extend_timeout(60)
        self._replay()

    def will(self) -> str:
        return wire.dumps(wire.status("lost", self.session, self.table_id, self.since))

    def _replay(self) -> None:
        self.desk.replay_end = self.store.last_seq
        checkpoint = self.store.checkpoint()
        if checkpoint is not None:
            # The oldest shoes were pruned: the table starts where the journal does now.
            retention.restore(self.view, self.stream, checkpoint[1]["state"])
        count = self.pipeline.replay()
        self.desk.live = True
        self.view.seq = self.stream.seq
        self.applier.live = True
        if count:
            r = self.table.round
            log.info(
                "journal replayed",
                extra={
                    "records": count,
                    "round": self.table.rounds,
                    "in_play": bool(r and not r.over),
                    "regenerated": len(self.publisher.pending),
                },
            )
        self._flush()

    # ------------------------------------------- what the pit desk sees (PitSide)
    @property
    def table(self) -> Table:
        return self.view.table

    @property
    def intake(self) -> Intake:
        return self.view.intake

    @property
    def shoes(self) -> int:
        return self.view.shoes

    @property
    def halted(self) -> str | None:
        return self.pipeline.halted

    @property
    def surveillance(self) -> Surveillance | None:
        return self.applier.surveillance

    def apply_event(self, seq: int, event: dict[str, Any]) -> list[Message]:
        """A pit command's engine event, applied like a driver's (controller.pit)."""
        return self.applier.apply_event(seq, event)

    def replace_table(self, table: Table, intake: Intake) -> None:
        """A corrected round (controller.correction): the table derived again takes over."""
        self.applier.replace(table, intake)
        self.publisher.changed = True

    def answer_now(self, message: Message) -> None:
        """A message that is no journal record's (an answer to a refused request)."""
        self.publisher.pending.append((0, message))

    def refresh_info(self) -> None:
        self.publisher.refresh_info()

    def journal(self, first: int, last: int) -> list[tuple[int, Record]]:
        """The journaled records from `first` to `last`, decoded."""
        return [(n, decode(data)) for n, data in self.store.records(first, last)]

    def oldest_kept(self) -> int | None:
        """The oldest event the outbox still holds (None: none)."""
        return self.store.oldest_event()

    def resend(self, first: int) -> bool:
        """Publish the stream again from event `first` (past the last: from the next one);
        False when the outbox no longer holds it."""
        if first > self.stream.seq:
            row: int | None = self.store.last_id() + 1
        else:
            row = self.store.row_of_event(first)
        if row is None:
            return False
        self.pump.resend_from(row)
        return True

    def set_devices(self, devices: list[dict[str, Any]]) -> None:
        """The drivers' health changed (from a timer in the loop): republish `status`."""
        self.publisher.set_devices(devices)

    # -------------------------------------------------------------- the loop
    def put(self, item: DriverEvent | LinkEvent | Synced | SyncFailed) -> None:
        """The sink drivers and the MQTT client call, from any thread."""
        self.loop.put(item)

    def stop(self) -> None:
        self.loop.stop()

    def every(self, delay: float, timer: Timer, settled: bool = False) -> None:
        """Run `timer` in the loop after `delay` s, then again after the delay it returns.

        `settled`: it acts on the table (a bot), so it waits until every journaled
        batch is applied, and its runs are a function of the input alone."""
        self.loop.every(delay, timer, settled)

    def drain(self) -> None:
        """Take everything queued now, without timers, and apply it (for tests, tools and
        the shutdown)."""
        self.loop.drain()

    def _flush(self, snapshot: bool = False) -> None:
        self.loop.flush(snapshot)

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
        loop = self.loop
        loop.running = True
        pipeline = self.pipeline
        if self.config.state.fsync:
            pipeline.syncer = Syncer(self.store.sync, self.put)
        self.start()
        self.every(60.0, self.publisher.prune)
        self.every(RETAIN_EVERY, self._retain)
        self.every(ACKS_EVERY, self.publisher.commit_acks)
        if self.surveillance is not None:
            self.every(self.config.surveillance.metrics_every_s, self._metrics)
        self.watchdog.watch("outbox", max_age=20.0)
        # A sync that never returns (a dying SD card) would leave input journaled and never
        # applied while the loop turns: past this age systemd is no longer fed.
        self.watchdog.watch("journal", SYNC_MAX_AGE, since=pipeline.synced_since)
        cards = self.drivers.cards
        if isinstance(cards, FrameClock):
            self.camera = CameraWatch(cards, self.config.cards.camera_stale_after, self.put)
            self.publisher.camera = self.camera
            self.watchdog.watch("camera", self.camera.stale_after, since=self.camera.last_alive)
            self.every(self.camera.stale_after, self._camera_tick)
        self.notifier.ready(f"table {self.table_id}: round {self.table.rounds}")
        try:
            while loop.running:
                acks = self.pump.acks
                loop.iteration()
                if self.pump.acks != acks or not self.pump.connected or not self.pump.backlog():
                    self.watchdog.beat("outbox")  # draining, or the broker is away (an alert)
                self.watchdog.tick()  # pings systemd only while the loop turns and all is fresh
        finally:
            self.notifier.stopping()
            self._shutdown()
        if pipeline.sync_failed is not None:
            raise pipeline.sync_error()  # it failed during the shutdown

    def _camera_tick(self) -> float:
        assert self.camera is not None
        was = self.camera.stale
        delay = self.camera.tick()
        if self.camera.stale != was:
            self.publisher.changed = True  # `state` says whether cards are keyed in
        return delay

    def _retain(self) -> float:
        """Prune the journal's oldest shoes, at a quiet moment only: no round in play,
        nothing journaled and not yet applied or stored (the checkpoint's state is the
        table's between two shoes, and the records after it are what replays)."""
        r = self.table.round
        pipeline = self.pipeline
        quiet = (
            (r is None or r.over)
            and pipeline.halted is None
            and not pipeline.unsynced
            and not pipeline.held
            and not self.publisher.pending
        )
        if not quiet:
            return 5.0  # soon again: rounds end, batches settle
        try:
            if retention.prune(
                self.store,
                self.applier.shoe_starts,
                self.clock(),
                self.config.journal,
                self.recorded.seq,
            ):
                pipeline.applied = self.store.last_seq  # the checkpoint makes no message
                return 5.0  # a prune takes retention.MOST records at most: more may be due
        except sqlite3.Error as exc:
            log.warning("could not prune the journal (tried again later): %s", exc)
        return RETAIN_EVERY

    def _metrics(self) -> float:
        self.publisher.metrics()
        self._flush()
        return self.config.surveillance.metrics_every_s

    # -------------------------------------------------------------- shutdown
    def _shutdown(self) -> None:
        pipeline = self.pipeline
        for driver in self.drivers.all():
            try:
                driver.stop()
            except Exception:
                log.exception("a driver failed to stop")
        # Records the drivers sent before they stopped are journaled too. A failed sync:
        # `run` raises it again once the shutdown is done.
        with contextlib.suppress(JournalSyncError):
            self.drain()
        if pipeline.sync_failed is not None:
            left = []
            while not self.queue.empty():
                left.append(self.queue.get_nowait())
            self.pipeline.keep_unjournaled(left)
        if pipeline.syncer is not None:
            pipeline.syncer.close()
            pipeline.syncer = None  # what is still journaled below syncs as it commits
        if pipeline.halted is not None and pipeline.sync_failed is None:
            pipeline.resume()
        self._flush(snapshot=True)
        if pipeline.held:
            # Stopped while the journal could not commit (or sync): these were never
            # applied. The log is the last place that may still take them.
            log.error(
                "stopping with input never journaled (the journal could not commit or sync): "
                "%d record(s), listed here",
                len(pipeline.held),
            )
            for record in pipeline.held:
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
                self.loop.late(self.queue.get_nowait())
            self.pump.set_slot(wire.STATUS, self.publisher.status("offline"))
            self.pump.pump()
            deadline = time.monotonic() + 3
            while self.pump.slot_inflight and time.monotonic() < deadline:
                try:
                    self.loop.late(self.queue.get(timeout=0.1))
                except queue.Empty:
                    continue
        with contextlib.suppress(sqlite3.Error):
            self.pump.flush_acks()
        self.link.disconnect()


def utc(when: float) -> str:
    """A wall-clock time for the audit: UTC, ISO 8601, milliseconds."""
    millis = int(when * 1000) % 1000
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(when)) + f".{millis:03d}Z"
