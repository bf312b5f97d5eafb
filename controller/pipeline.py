"""Journal, then apply: no input reaches the table before it is durable.

Each batch of input records is journaled in one commit (`take`); once a
sync that began after that commit has returned (`synced`), its records go
through the `Applier` in journal order, and their messages wait in the
publisher's outbox list. The syncs run on a thread of their own
(controller.syncer): the loop journals the next batch while the last one's
sync is in flight. Without a syncer a commit syncs itself.

A journal (or outbox) that cannot commit, as on a full disk, halts the
table (`halt`): input waits in memory, in order, and is journaled then
applied once a commit works again (`resume`). Nothing unjournaled is ever
applied. A failed sync (`sync_failed`) is worse: what was written since
the last good sync may be lost, so the table stops and the next start
replays what the journal kept.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections import deque
from collections.abc import Callable, Sequence

from controller import wire
from controller.applier import Applier
from controller.config import ConfigError
from controller.faults import ClockWatch
from controller.journal import Store
from controller.publisher import Publisher
from controller.records import DRIVER_RECORDS, Record, decode, encode
from controller.syncer import Syncer
from controller.view import TableView
from controller.watchdog import Watchdog
from drivers.interfaces import SensorFault

log = logging.getLogger("croupier.service")

RETRY = 1.0  # seconds between attempts to commit while the journal cannot (a full disk)


class JournalSyncError(RuntimeError):
    """The disk failed a sync of the journal: what was written since the last good
    sync may be lost, so the table stops; the next start replays what the journal
    kept (systemd restarts the service)."""


def check_meta(store: Store, wanted: dict[str, str]) -> None:
    """A state dir is one table's: its journal replays only through the same set-up."""
    have = store.meta()
    if not have.get("table"):
        store.set_meta(wanted)
        return
    differ = [f"{k} is {have.get(k)!r}, not {v!r}" for k, v in wanted.items() if have.get(k) != v]
    if differ:
        raise ConfigError(
            f"{store.path}: this state belongs to another table set-up: "
            + "; ".join(differ)
            + " (use another state dir, or the same settings to resume)"
        )


class Pipeline:
    def __init__(
        self,
        store: Store,
        clock: Callable[[], float],
        applier: Applier,
        publisher: Publisher,
        view: TableView,
        watchdog: Watchdog,
    ) -> None:
        self.store = store
        self.clock = clock  # the wall clock: journal times only, never the order
        self.applier = applier
        self.publisher = publisher
        self.view = view
        self.watchdog = watchdog
        # A journal that cannot commit stops the table: input waits here, in order, and
        # is journaled then applied once it can (`take`, `resume`).
        self.halted: str | None = None
        self.held: list[Record] = []
        # Journaled, waiting for their sync before they are applied: (first seq, records,
        # when committed: monotonic).
        self.unsynced: deque[tuple[int, list[Record], float]] = deque()
        self.syncer: Syncer | None = None  # `Service.run` starts it
        self.applied = 0  # the last journal seq applied (its messages are pending)
        self.sync_failed: Exception | None = None  # the disk failed a sync: take nothing more
        self.clock_watch = ClockWatch(store.last_at())
        self._halted_at = 0.0
        self.retry_at = 0.0

    def replay(self) -> int:
        """At start: the journal through a fresh table, and any message the last run
        journaled but never put in the outbox made again; the records replayed."""
        outboxed = self.store.outboxed
        count = 0
        for seq, data in self.store.records():
            messages = self.applier.process(seq, decode(data))
            if seq > outboxed:
                self.publisher.pending.extend((seq, m) for m in messages)
            count += 1
        self.applied = self.store.last_seq
        return count

    def take(self, records: list[Record]) -> None:
        """Journal a batch of input records (one commit), then apply them in order once
        they are synced (`synced`).

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
            self.halt(f"the journal cannot commit ({exc})")
            return False
        self.unsynced.append((first, records, time.monotonic()))
        last = first + len(records) - 1
        if syncer is not None:
            syncer.request(last)
        else:
            self.synced(last)  # the commit synced itself (or fsync is off)
        return True

    def synced(self, upto: int) -> None:
        """Apply, in journal order, every batch whose records are durable up to `upto`."""
        while self.unsynced:
            first, records, _ = self.unsynced[0]
            if first + len(records) - 1 > upto:
                break
            self.unsynced.popleft()
            for seq, record in enumerate(records, start=first):
                messages = self.applier.process(seq, record)
                self.publisher.pending.extend((seq, m) for m in messages)
            self.applied = first + len(records) - 1
            self.publisher.changed = True

    def failed(self, error: Exception) -> None:
        """A sync failed: what waits for it is never applied, and nothing more is taken."""
        self.unsynced.clear()  # the next start replays what was kept
        self.sync_failed = error

    def settle(self) -> None:
        """Sync here and apply every batch still waiting for its sync (a failed sync:
        `sync_failed` is set, and the caller stops)."""
        if self.unsynced:
            try:
                self.store.sync()
            except OSError as exc:
                self.failed(exc)
                return
            self.synced(self.store.last_seq)

    def synced_since(self) -> float:
        """For the watchdog: now, or when the oldest batch still waiting was committed."""
        return self.unsynced[0][2] if self.unsynced else time.monotonic()

    def sync_error(self) -> JournalSyncError:
        error = JournalSyncError(
            f"{self.store.path}: the disk failed a sync of the journal ({self.sync_failed}); "
            "the table stops, and its next start replays what the journal kept"
        )
        error.__cause__ = self.sync_failed
        return error

    def keep_unjournaled(self, items: Sequence[object]) -> None:
        """After a failed sync nothing more is journaled: the driver records among
        `items` are kept for the log (`Service._shutdown` lists them)."""
        self.held += [i for i in items if isinstance(i, DRIVER_RECORDS)]

    def store_pending(self) -> bool:
        """Commit the pending stream messages to the outbox; False (and the table halts
        until it can) when it cannot."""
        why = self.publisher.store_pending(self.applied)
        if why is not None:
            self.halt(why)
            return False
        return True

    def _hold(self, records: list[Record]) -> None:
        before = len(self.held)
        self.held.extend(records)
        if len(self.held) // 1000 > before // 1000:
            log.error("input waiting for the journal", extra={"records": len(self.held)})

    def halt(self, why: str) -> None:
        """Say it loudly, everywhere that works without the disk: the log, systemd's
        status line, the retained `status` and `state` topics."""
        if self.halted is not None:
            return
        self.halted = self.view.halted = why
        self._halted_at = time.monotonic()
        if self.store.release():  # room for the checkpoint that empties the WAL
            log.warning("disk full: the reserve is given back to empty the WAL")
        self.retry_at = self._halted_at + RETRY
        log.error(
            "the table stops taking input: %s; it resumes by itself when the disk has room again",
            why,
        )
        self.watchdog.status(f"HALTED, taking no input: {why}")
        self.publisher.pump.set_slot(wire.STATUS, self.publisher.status())
        self.publisher.changed = True

    def resume(self) -> None:
        """Try again: the outbox first (older), then the held records, oldest first."""
        self.retry_at = time.monotonic() + RETRY
        if not self.store_pending():
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
        self.watchdog.status(f"table {self.view.table_id}: taking input again")
        self.publisher.pump.set_slot(wire.STATUS, self.publisher.status())
