"""The journal's syncs run off the loop (controller.syncer): a record is journaled
at once, and applied only once a sync that began after its commit has returned.

The disk here is real (SQLite in a temporary directory); only the moment a sync
returns is held back, by a gate around the real `Store.sync`, so a test can look
at the table while a sync is in flight, or make the disk fail it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller import journal
from controller.config import Config, override
from controller.journal import Message, Store
from controller.mqtt_link import Command
from controller.service import JournalSyncError, Service
from controller.syncer import Synced, Syncer, SyncFailed
from drivers.fakes import FakeBetSensor
from drivers.interfaces import DriverSet
from sim.card_shoe import SimShoe
from sim.keypad import SimKeypad


class Gate:
    """Wraps a sync: each call waits until the test opens the gate (or fails it)."""

    def __init__(self, sync: Callable[[], None]) -> None:
        self.sync = sync
        self.open = threading.Event()
        self.entered = threading.Semaphore(0)
        self.calls = 0
        self.error: OSError | None = None

    def __call__(self) -> None:
        self.calls += 1
        self.entered.release()
        assert self.open.wait(10), "the test never opened the gate"
        if self.error is not None:
            raise self.error
        self.sync()

    def wait_entered(self) -> None:
        assert self.entered.acquire(timeout=10), "no sync began"


def wait_for(what: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def outbox_from(state: Path, seq: int) -> int:
    """Messages stored for the pit from journal seq `seq`, read as another process would."""
    db = sqlite3.connect(state / "table.db")
    try:
        count: int = db.execute("SELECT count(*) FROM outbox WHERE source = ?", (seq,)).fetchone()[
            0
        ]
        return count
    finally:
        db.close()


def journaled(state: Path, kind: str | None = None) -> int:
    db = sqlite3.connect(state / "table.db")
    try:
        records = [json.loads(r) for (r,) in db.execute("SELECT record FROM journal")]
        return sum(1 for r in records if kind is None or r["kind"] == kind)
    finally:
        db.close()


class Running:
    """A service with fake drivers and a durable journal, its loop in a thread."""

    def __init__(self, state: Path) -> None:
        config = override(
            Config(), "test", table={"id": "t", "rules": "fr-2007"}, state={"dir": state}
        )
        assert config.state.fsync
        self.shoe, self.bets, self.panel = SimShoe(), FakeBetSensor(), SimKeypad()
        self.service = Service(config, DriverSet(self.shoe, self.bets, self.panel), None)
        self.gate = Gate(self.service.store.sync)
        self.service.store.sync = self.gate  # type: ignore[method-assign]
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            self.service.run()
        except BaseException as exc:  # the test looks at it
            self.error = exc

    def start(self) -> None:
        self.thread.start()
        wait_for(lambda: self.bets.sink is not None)

    def stop(self) -> None:
        self.gate.open.set()
        if self.thread.is_alive():
            self.service.stop()
        self.thread.join(10)
        assert not self.thread.is_alive()


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Running]:
    r = Running(tmp_path)
    r.start()
    yield r
    r.stop()


def test_a_record_is_journaled_at_once_and_applied_only_after_its_sync(
    running: Running, tmp_path: Path
) -> None:
    running.bets.place(1, "10")
    running.gate.wait_entered()
    # Written to the journal, and the sync asked for is in flight: nothing applied yet.
    wait_for(lambda: journaled(tmp_path) == 1)
    time.sleep(0.05)  # time enough for a loop that applied early to have stored its messages
    assert running.service.pipeline.applied == 0
    assert outbox_from(tmp_path, 1) == 0
    running.gate.open.set()
    wait_for(lambda: outbox_from(tmp_path, 1) > 0)
    assert running.service.pipeline.applied == 1


def test_records_that_come_during_a_sync_share_the_next_one(
    running: Running, tmp_path: Path
) -> None:
    running.bets.place(1, "10")
    running.gate.wait_entered()
    for box in (2, 3, 4):
        running.bets.place(box, "10")
    wait_for(lambda: journaled(tmp_path) == 4)  # journaled while the first sync is held
    syncer = running.service.pipeline.syncer
    assert syncer is not None
    wait_for(lambda: syncer._wanted == 4)  # and its sync asked for
    running.gate.open.set()
    wait_for(lambda: running.service.pipeline.applied == 4)
    assert running.gate.calls == 2  # one sync for the first record, one for the three after
    assert all(outbox_from(tmp_path, seq) > 0 for seq in (1, 2, 3, 4))


def test_a_failed_sync_stops_the_table_and_the_next_start_replays_the_journal(
    running: Running, tmp_path: Path
) -> None:
    running.bets.place(1, "10")
    running.gate.wait_entered()
    running.gate.error = OSError(5, "Input/output error")
    running.gate.open.set()
    running.thread.join(10)
    assert isinstance(running.error, JournalSyncError)
    assert "failed a sync of the journal" in str(running.error)
    assert outbox_from(tmp_path, 1) == 0  # never applied
    # The record was written before the sync failed: the next start replays what the
    # journal kept, and the pit gets its messages once.
    again = Service(
        override(Config(), "test", table={"id": "t", "rules": "fr-2007"}, state={"dir": tmp_path}),
        DriverSet(SimShoe(), FakeBetSensor(), SimKeypad()),
        None,
    )
    again.store.close()
    assert outbox_from(tmp_path, 1) > 0


def test_the_outbox_mark_counts_applied_records_not_journaled_ones(tmp_path: Path) -> None:
    """`meta.outboxed` is how far a restart may skip regenerating messages: a record
    journaled but still waiting for its sync has none in the outbox yet."""
    config = override(
        Config(), "test", table={"id": "t", "rules": "fr-2007"}, state={"dir": tmp_path}
    )
    bets = FakeBetSensor()
    service = Service(config, DriverSet(SimShoe(), bets, SimKeypad()), None)
    gate = Gate(service.store.sync)
    service.pipeline.syncer = Syncer(gate, service.put)
    bets.start(service.put)
    bets.place(1, "10")
    service.loop.take([service.queue.get_nowait()])  # journaled, its sync held
    gate.wait_entered()
    assert (service.store.last_seq, service.pipeline.applied) == (1, 0)
    # Something else is stored meanwhile (a command's answer, acknowledgements) ...
    service.publisher.pending.append((0, Message("cmd/void_round/response", "{}")))
    service._flush()
    assert service.store.outboxed == 0
    # ... and the process dies before the loop applies the record: the next start
    # makes the record's messages, since the outbox never had them.
    gate.open.set()
    service.pipeline.syncer.close()
    service.store.close()
    again = Service(config, DriverSet(SimShoe(), FakeBetSensor(), SimKeypad()), None)
    again.store.close()
    assert outbox_from(tmp_path, 1) > 0


def test_a_bot_waits_for_the_sync_and_the_other_timers_do_not(tmp_path: Path) -> None:
    """The sim's bots act on the table as journaled (their runs are a function of the
    input alone); housekeeping timers (health, LEDs, pruning) run while a sync is slow."""
    r = Running(tmp_path)
    runs = {"bot": 0, "housekeeping": 0}

    def timer(name: str) -> Callable[[], float]:
        def run() -> float:
            runs[name] += 1
            return 0.005

        return run

    r.service.every(0.0, timer("bot"), settled=True)
    r.service.every(0.0, timer("housekeeping"))
    r.start()
    try:
        wait_for(lambda: runs["bot"] > 3)
        r.bets.place(1, "10")
        r.gate.wait_entered()  # journaled, its sync held
        bot, housekeeping = runs["bot"], runs["housekeeping"]
        time.sleep(0.2)
        assert runs["bot"] == bot
        assert runs["housekeeping"] > housekeeping + 5
        r.gate.open.set()
        wait_for(lambda: runs["bot"] > bot)
    finally:
        r.stop()


def test_a_command_is_checked_against_everything_journaled_before_it(
    running: Running, tmp_path: Path
) -> None:
    """A command sent twice (the console retried) is journaled once: the second finds
    the first answered, even when the first still waited for its sync."""
    request = json.dumps({"transaction": "T1", "by": "anna", "reason": "dispute"}).encode()
    running.service.put(Command("void_round", request))
    running.gate.wait_entered()  # the first is journaled, its sync held
    running.service.put(Command("void_round", request))
    time.sleep(0.05)
    running.gate.open.set()
    wait_for(lambda: running.service.pipeline.applied == 1 and running.service.queue.empty())
    time.sleep(0.05)
    assert journaled(tmp_path, "command") == 1


def test_a_sync_that_never_returns_starves_the_watchdog(
    running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Input journaled and never applied while the loop turns: systemd must stop being
    fed (it restarts the table, which replays the journal)."""
    running.bets.place(1, "10")
    running.gate.wait_entered()
    assert running.service.watchdog.stale() == []
    # The limit is 20 s; the source judges the oldest batch's age against it.
    source = running.service.watchdog._sources["journal"]
    monkeypatch.setattr(source, "max_age", 0.1)
    time.sleep(0.2)
    assert [name for name, _ in running.service.watchdog.stale()] == ["journal"]
    running.gate.open.set()
    wait_for(lambda: running.service.pipeline.applied == 1)
    assert running.service.watchdog.stale() == []


def test_a_store_opened_with_fsync_syncs_what_the_last_process_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process killed between a commit and its sync leaves the commit in the page
    cache: the next start replays and publishes it, so it must be on disk first."""
    first = Store(tmp_path, fsync=True)
    first.append([{"kind": "x"}], durable=False)  # and the process dies here
    first.close()
    synced: list[bool] = []  # each sync: was it the WAL's?
    real = journal._datasync

    def spy(fd: int) -> None:
        synced.append(os.fstat(fd).st_ino == (tmp_path / "table.db-wal").stat().st_ino)
        real(fd)

    monkeypatch.setattr(journal, "_datasync", spy)
    again = Store(tmp_path, fsync=True)
    opened = list(synced)
    again.close()
    assert opened == [True]


# ------------------------------------------------------------------ the syncer
def test_the_syncer_covers_every_request_made_before_a_sync_began() -> None:
    answers: list[Synced | SyncFailed] = []
    gate = Gate(lambda: None)
    syncer = Syncer(gate, answers.append)
    try:
        syncer.request(1)
        gate.wait_entered()
        syncer.request(2)
        syncer.request(3)  # both come while the first sync runs: one sync after it
        gate.open.set()
        wait_for(lambda: len(answers) == 2)
    finally:
        syncer.close()
    assert answers == [Synced(1), Synced(3)]
    assert gate.calls == 2


@pytest.mark.parametrize(
    "error",
    [
        OSError(28, "No space left on device"),  # the disk's answer
        # A fault of ours: a worker that died silently would leave the loop waiting.
        ValueError("file descriptor cannot be a negative integer (-1)"),
    ],
    ids=["disk", "fault"],
)
def test_a_failed_sync_is_reported_with_the_records_it_covered(error: Exception) -> None:
    answers: list[Synced | SyncFailed] = []

    def sync() -> None:
        raise error

    syncer = Syncer(sync, answers.append)
    try:
        syncer.request(7)
        wait_for(lambda: len(answers) == 1)
    finally:
        syncer.close()
    assert answers == [SyncFailed(7, error)]


def test_closing_the_syncer_finishes_the_syncs_asked_for() -> None:
    answers: list[Synced | SyncFailed] = []
    gate = Gate(lambda: None)
    syncer = Syncer(gate, answers.append)
    syncer.request(4)
    gate.wait_entered()
    closing = threading.Thread(target=syncer.close)
    closing.start()
    time.sleep(0.05)
    assert closing.is_alive()  # waits for the sync in flight
    gate.open.set()
    closing.join(10)
    assert answers == [Synced(4)]


def test_a_sync_flushes_the_wal_the_commits_went_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Store.sync flushes the real WAL file: the commit written without a sync of its
    own is in that file, and a fresh connection reads it back."""
    store = Store(tmp_path, fsync=True)
    synced: list[tuple[int, int]] = []
    real = journal._datasync

    def spy(fd: int) -> None:
        synced.append((os.fstat(fd).st_ino, os.fstat(fd).st_size))
        real(fd)

    monkeypatch.setattr(journal, "_datasync", spy)
    try:
        store.append([{"kind": "x"}], durable=False)
        store.sync()
        wal = (tmp_path / "table.db-wal").stat()
    finally:
        store.close()
    assert synced == [(wal.st_ino, wal.st_size)]
    assert wal.st_size > 0
    assert journaled(tmp_path) == 1
