"""The service's event loop and its dispatch: one thread owns the table.

Drivers and the MQTT client only `put` items on the queue (thread-safe,
never blocking). The loop takes them in batches, in order: driver records
go to the pipeline (journaled, then applied: controller.pipeline), the
broker's events to the pump, the pit's requests to its desk. After each
batch the new messages are committed and published (`flush`). Timers run
between batches (controller.timers).
"""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Callable

from controller.mqtt_link import (
    Acked,
    Command,
    Connected,
    Disconnected,
    LinkEvent,
    RecordedMark,
)
from controller.outbox import Pump
from controller.pipeline import Pipeline
from controller.pit import PitDesk
from controller.publisher import STATE_EVERY, Publisher
from controller.records import DRIVER_RECORDS, Record
from controller.retention import Recorded
from controller.syncer import Synced, SyncFailed
from controller.timers import Timer, Timers
from drivers.interfaces import DriverEvent

log = logging.getLogger("croupier.service")

BATCH = 64  # records taken from the queue before the outbox is committed and published


class _Stop:
    pass


Item = DriverEvent | LinkEvent | Synced | SyncFailed | _Stop


class Loop:
    def __init__(
        self,
        pipeline: Pipeline,
        publisher: Publisher,
        desk: PitDesk,
        session: str,
        utc_now: Callable[[], str],
        recorded: Recorded,
    ) -> None:
        self.pipeline = pipeline
        self.publisher = publisher
        self.pump: Pump = publisher.pump
        self.desk = desk
        self.session = session
        self.utc_now = utc_now  # the wall clock for the audit (a request's `at`)
        # The floor recorder's watermark, which retention waits for (controller.retention).
        self.recorded = recorded
        self.queue: queue.SimpleQueue[Item] = queue.SimpleQueue()
        self.timers = Timers(lambda: not self.queue.empty())
        self.running = False
        self.exit_when_idle = False

    def put(self, item: DriverEvent | LinkEvent | Synced | SyncFailed) -> None:
        """The sink drivers and the MQTT client call, from any thread."""
        self.queue.put(item)

    def stop(self) -> None:
        self.queue.put(_Stop())

    def every(self, delay: float, timer: Timer, settled: bool = False) -> None:
        self.timers.every(delay, timer, settled)

    def iteration(self) -> None:
        pipeline, publisher = self.pipeline, self.publisher
        if pipeline.halted is not None and time.monotonic() >= pipeline.retry_at:
            pipeline.resume()
        idle = not (publisher.changed or pipeline.held or pipeline.unsynced)
        if self.exit_when_idle and idle and self.pump.idle():
            self.running = False
            return
        # Timers run only on an empty queue, and settled ones (a bot) only with every
        # journaled batch applied: a bot acts on a table that has taken everything it did
        # before. The sync's answer comes on the queue.
        waiting = bool(pipeline.unsynced)
        timeout = self.timers.run(waiting) if self.queue.empty() else 0.0
        if publisher.changed:  # a snapshot held back (STATE_EVERY) is due
            timeout = min(timeout, max(0.0, publisher.state_at + STATE_EVERY - time.monotonic()))
        try:
            item = self.queue.get(timeout=timeout)
        except queue.Empty:
            if publisher.changed:
                self.flush()  # a timer changed what `state` shows (the camera)
            return
        items = [item]
        while len(items) < BATCH:
            try:
                items.append(self.queue.get_nowait())
            except queue.Empty:
                break
        self.take(items)

    def take(self, items: list[Item]) -> None:
        """One batch off the queue: dispatched, journaled, applied, published."""
        inputs: list[Record] = []
        pipeline = self.pipeline
        for n, item in enumerate(items):
            if isinstance(item, DRIVER_RECORDS):
                inputs.append(item)
            else:
                self._handle(item, inputs)
            if pipeline.sync_failed is not None:
                pipeline.held += inputs
                pipeline.keep_unjournaled(items[n + 1 :])
                raise pipeline.sync_error()
        if inputs:
            pipeline.take(inputs)
        self.flush()

    def drain(self) -> None:
        """Take everything queued now, without timers, and apply it (for tests, tools and
        the shutdown)."""
        while not self.queue.empty() and self.pipeline.sync_failed is None:
            self.take([self.queue.get_nowait()])
        if self.pipeline.unsynced:
            self.pipeline.settle()
        self.flush(snapshot=True)

    def flush(self, snapshot: bool = False) -> None:
        """Commit the new stream messages and acks, refresh the snapshots, publish.
        `snapshot`: now, not held back (tests and tools look at it right after)."""
        self.pipeline.store_pending()
        self.publisher.publish(snapshot)

    def _handle(self, item: LinkEvent | Synced | SyncFailed | _Stop, inputs: list[Record]) -> None:
        if isinstance(item, Synced):
            self.pipeline.synced(item.upto)
        elif isinstance(item, SyncFailed):
            self.pipeline.failed(item.error)
        elif isinstance(item, Acked):
            self.pump.on_ack(item.mid)
        elif isinstance(item, Connected):
            log.info("connected to the broker", extra={"session": self.session})
            self.publisher.set_first_slots()
            self.pump.on_connect()
        elif isinstance(item, Disconnected):
            if self.pump.connected:
                log.warning("lost the broker", extra={"reason": item.reason})
            self.pump.on_disconnect()
        elif isinstance(item, Command):
            self._command(item, inputs)
        elif isinstance(item, RecordedMark):
            self.recorded.take(item.payload)
        elif isinstance(item, _Stop):
            self.running = False

    def _command(self, cmd: Command, inputs: list[Record]) -> None:
        """A request from the pit: answered at once, or journaled with this batch's records
        and applied in their order (controller.pit)."""
        if "/" in cmd.name:
            return  # not a request (an answer on cmd/<name>/response, with some brokers)
        self.pipeline.settle()  # the request is checked against the table with all it journaled
        record = self.desk.receive(cmd.name, cmd.payload, self.utc_now())
        if record is not None:
            inputs.append(record)

    def late(self, item: Item) -> None:
        """What reaches the loop while it says `offline`: acks are taken, requests refused
        (answered before the status, on the same connection); the rest came after the
        drivers stopped, and is no input."""
        if isinstance(item, Acked):
            self.pump.on_ack(item.mid)
        elif isinstance(item, Command) and "/" not in item.name:
            self.desk.receive(item.name, item.payload, self.utc_now(), stopping=True)
            self.flush()
