"""The record: a journal of input events and an outbox of outgoing messages,
in one SQLite database (WAL) in the table's state directory.

- `journal`: every input record (what a driver saw, a pit command),
  written and committed (fsync) BEFORE it is applied; a batch of records
  shares one commit. Replaying the journal through a fresh intake and
  engine rebuilds the table exactly (both are deterministic).
- `outbox`: every message of the `events`, `outcome` and `alerts` streams,
  stored before it is published, marked sent when the broker acknowledges
  it. `meta.outboxed` is the last journal seq whose messages are all in the
  outbox (written in the same transaction), so a crash between the two
  commits is repaired at start by regenerating the missing messages.
- `meta`: what the state belongs to (table id, rules, boxes, sim seed), and
  the journal's format and head.

Tamper evidence: every journal row carries `hash`, SHA-256 over the
previous row's hash and the row's own bytes (seq, time, record text;
`link` below). An edit, a removal or a reordering breaks the chain where
it happened; `croupier audit verify` (controller.audit) finds it. A state
dir written before the chain existed (format 1) is migrated when it is
opened: its rows are chained then, which protects them from that moment on
(`meta.chained_at` says when), not from when they were written.

With `fsync` on, a journal commit survives a power cut once it is synced:
`append(..., durable=True)` commits with synchronous=FULL (the commit
returns synced); `append(..., durable=False)` only writes the commit to the
WAL, and `sync()` (an fdatasync of the WAL, callable from any thread) makes
every commit written before it durable. The table's loop does the latter
(controller.syncer): it journals the next batch while the last one's sync is
still in flight. Outbox commits are always NORMAL (they survive a process
crash; after a power cut the missing rows are regenerated from the journal,
and a message sent twice keeps its id), so a batch costs one fsync, not two.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

log = logging.getLogger("croupier.journal")

# 1: no hash chain; 2: `hash` on every journal row, hex; 3: new rows' `hash` is the
# 32 bytes themselves (a BLOB: half the room; the rows written as hex read as before).
FORMAT = 3
# The chain's start: what the first row's hash is computed over as "the previous hash".
GENESIS = hashlib.sha256(b"croupier/journal/v2").digest()

SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY,
    record TEXT NOT NULL,         -- controller.records.encode(...), JSON
    at REAL NOT NULL,             -- unix time it was journaled (audit only; replay ignores it)
    hash TEXT NOT NULL            -- link(previous row's hash, seq, at, record): 32 bytes
                                  -- (a BLOB; hex text in rows written by format 2)
);
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY,
    topic TEXT NOT NULL,          -- below the table's root, e.g. "events"
    payload TEXT NOT NULL,
    source INTEGER NOT NULL,      -- the journal seq it came from (0: none)
    eseq INTEGER,                 -- the `seq` of an events message
    sent INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS outbox_unsent ON outbox (id) WHERE sent = 0;
CREATE INDEX IF NOT EXISTS outbox_eseq ON outbox (eseq) WHERE eseq IS NOT NULL;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
# An upsert changes a row in place: one page of WAL. INSERT OR REPLACE deletes the row
# and inserts it again, rewriting its key's index page too (two per commit, on every
# commit: a quarter of the WAL the table writes).
SET_META = (
    "INSERT INTO meta (key, value) VALUES (?, ?) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)


class JournalError(Exception):
    """A state directory the table cannot use as its record (say why, change nothing)."""


def link(previous: bytes, seq: int, at: float, record: str) -> bytes:
    """The chain: a row's hash covers the previous hash and the row's exact bytes.

    `at` enters as Python's shortest repr of the stored double, which reads back
    from SQLite bit for bit, so the same row always gives the same hash."""
    h = hashlib.sha256(previous)
    h.update(f"{seq}\n{at!r}\n".encode())
    h.update(record.encode("utf-8"))
    return h.digest()


def digest(stored: bytes | str) -> bytes:
    """A row's `hash` as stored: raw bytes (format 3) or hex text (format 2)."""
    return stored if isinstance(stored, bytes) else bytes.fromhex(stored)


class Row(NamedTuple):
    id: int
    topic: str
    payload: str


class Message(NamedTuple):
    """An outgoing stream message before it has an outbox id."""

    topic: str
    payload: str
    eseq: int | None = None


class Store:
    def __init__(self, directory: Path, fsync: bool = True, reserve: int = 0) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / "table.db"
        self._wal = directory / "table.db-wal"
        self.directory = directory
        # Bytes held in a file of their own that only a full disk gives back (`release`):
        # the room a checkpoint needs to empty the WAL, so that a disk the WAL filled does
        # not keep the table stopped after space is freed (the checkpoint that would free
        # it needs space itself). 0: none.
        self.reserve_bytes = reserve
        self._reserve = directory / "reserve"
        # Autocommit mode: transactions are explicit (BEGIN ... COMMIT).
        self.db = sqlite3.connect(
            self.path,
            isolation_level=None,
            check_same_thread=False,
            timeout=BUSY_TIMEOUT_MS / 1000,
        )
        self.db.execute("PRAGMA journal_mode=WAL")
        self.fsync = fsync
        self.db.execute("PRAGMA synchronous=NORMAL")
        # Checkpoints (copying the WAL into the database, with fsyncs of their own) run
        # in a thread of their own, not in the middle of a commit on the table's loop.
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        self.db.execute(f"PRAGMA journal_size_limit={self.WAL_LIMIT}")
        self._open_format()
        self._checkpointer = _Checkpointer(self.path)
        row = self.db.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
        self.last_seq: int = row[0] if row else 0
        self.last_hash: bytes = digest(row[1]) if row else GENESIS
        # The WAL exists as long as a connection is open (the checkpointer's keeps it):
        # this descriptor only ever syncs it.
        self._wal_fd = os.open(self._wal, os.O_RDONLY | os.O_CREAT, 0o644)
        if fsync:
            # The last process may have died between a commit and its sync: what it left
            # in the page cache is read (replayed, published) only once it is on disk.
            self.sync()
        # The reserve is taken by the running service a minute in (Service._check_disk),
        # not here: a start must not write 16 MB (posix_fallocate writes zeros where the
        # file system cannot allocate) before it replays and publishes.

    # ---------------------------------------------------------------- disk room
    def free_bytes(self) -> int:
        """What the state dir's file system still has for this process."""
        st = os.statvfs(self.directory)
        return st.f_bavail * st.f_frsize

    def disk_bytes(self) -> int:
        st = os.statvfs(self.directory)
        return st.f_blocks * st.f_frsize

    def keep_reserve(self) -> bool:
        """Hold the reserve again once the disk has room for it and more (True: held)."""
        if self.reserve_bytes <= 0:
            return False
        try:
            if self._reserve.exists() and self._reserve.stat().st_size >= self.reserve_bytes:
                return True
            if self.free_bytes() < 2 * self.reserve_bytes:
                return False  # taking it now would bring the full disk closer
            fd = os.open(self._reserve, os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                os.posix_fallocate(fd, 0, self.reserve_bytes)  # real blocks, not a hole
            finally:
                os.close(fd)
        except OSError as exc:
            log.warning("cannot hold the disk reserve: %s", exc)
            with contextlib.suppress(OSError):
                self._reserve.unlink()
            return False
        return True

    def release(self) -> bool:
        """The disk is full: give the reserve back and empty the WAL into the database
        while there is room for it (True: the reserve was there to give)."""
        try:
            self._reserve.unlink()
        except OSError:
            return False
        with contextlib.suppress(sqlite3.Error):
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return True

    def close(self) -> None:
        self._checkpointer.stop()
        self.db.close()
        if self._wal_fd >= 0:  # closing twice (a tool, then its finally) is harmless
            os.close(self._wal_fd)
            self._wal_fd = -1

    def sync(self) -> None:
        """Make every commit written so far durable (any thread; several at once too).

        In WAL mode a commit is frames appended to the WAL, the last one marked as the
        commit; after a crash SQLite keeps every transaction whose frames are whole up to
        its commit frame. An fdatasync of the WAL therefore makes durable exactly the
        commits written before it began. Raises OSError when the disk fails it; the
        commits since the last sync that worked must then be taken as lost."""
        _datasync(self._wal_fd)

    def _open_format(self) -> None:
        """Create the schema, migrate a format 1 journal, refuse a newer format."""
        columns = [r[1] for r in self.db.execute("PRAGMA table_info(journal)")]
        if columns and "hash" not in columns:
            self._migrate_to_chain()
        self.db.executescript(SCHEMA)
        found = self.meta().get("journal_format")
        if found is not None and int(found) > FORMAT:
            raise JournalError(
                f"{self.path}: journal format {found} was written by a newer croupier "
                f"(this one reads format {FORMAT} and older): use that version"
            )
        if found is None or int(found) < FORMAT:
            # Format 2 rows stay as written (hex): this croupier reads both, an older one
            # must not read the raw hashes that follow.
            self.set_meta({"journal_format": str(FORMAT)})

    def _migrate_to_chain(self) -> None:
        """Format 1 -> 2: add the hash column and chain the rows that are there, in one
        transaction (a crash in the middle leaves format 1, migrated again next time)."""
        count = self.db.execute("SELECT count(*) FROM journal").fetchone()[0]
        log.warning(
            "journal format 1 (no hash chain): chaining its records now; they are "
            "tamper-evident from this moment on, not from when they were written",
            extra={"records": count, "path": str(self.path)},
        )
        with self._tx():
            self.db.execute("ALTER TABLE journal ADD COLUMN hash TEXT NOT NULL DEFAULT ''")
            previous, after = GENESIS, 0
            while True:  # in slices: a journal of months does not fit in memory at once
                rows = self.db.execute(
                    "SELECT seq, at, record FROM journal WHERE seq > ? ORDER BY seq LIMIT 10000",
                    (after,),
                ).fetchall()
                if not rows:
                    break
                hashes = []
                for seq, at, record in rows:
                    previous = link(previous, seq, at, record)
                    hashes.append((previous, seq))
                self.db.executemany("UPDATE journal SET hash = ? WHERE seq = ?", hashes)
                after = rows[-1][0]
            self.db.executemany(
                SET_META,
                [
                    ("journal_format", str(FORMAT)),
                    ("chained_at", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())),
                    ("chained_records", str(count)),
                    *([("journal_head", f"{after}:{previous.hex()}")] if after else []),
                ],
            )

    # ---------------------------------------------------------------- meta
    def meta(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT key, value FROM meta").fetchall())

    def set_meta(self, values: dict[str, str]) -> None:
        with self._tx():
            self.db.executemany(SET_META, values.items())

    @property
    def outboxed(self) -> int:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'outboxed'").fetchone()
        return int(row[0]) if row else 0

    # ------------------------------------------------------------- journal
    def append(
        self, records: list[dict[str, Any]], at: float | None = None, durable: bool = True
    ) -> int:
        """Write input records (one commit); returns the seq of the first.

        Call before applying any of them. With fsync on, `durable` commits synced
        (FULL); `durable=False` leaves the sync to a later `sync()`, which must return
        before the records are applied. `at` is the wall-clock time to record (audit
        only). Raises sqlite3.Error when the commit fails (a full disk): then nothing
        was written and the chain's head is unchanged."""
        first = self.last_seq + 1
        now = time.time() if at is None else at
        with self._synchronous(durable), self._tx():
            last, previous = self._insert(records, now)
        self.last_seq = last
        self.last_hash = previous
        self._bound_wal()
        return first

    def _insert(self, records: list[dict[str, Any]], at: float) -> tuple[int, bytes]:
        """Chain and insert records after the head, and move the head (inside a
        transaction); returns the new head (seq, hash)."""
        first = self.last_seq + 1
        rows = []
        previous = self.last_hash
        for i, r in enumerate(records):
            text = json.dumps(r, separators=(",", ":"))
            previous = link(previous, first + i, at, text)
            rows.append((first + i, text, at, previous))
        last = first + len(rows) - 1
        self.db.executemany("INSERT INTO journal (seq, record, at, hash) VALUES (?, ?, ?, ?)", rows)
        # The head as written: a record removed from the end of the journal later
        # leaves the head pointing past it (croupier audit verify says so).
        self.db.execute(SET_META, ("journal_head", f"{last}:{previous.hex()}"))
        return last, previous

    @contextlib.contextmanager
    def _synchronous(self, durable: bool) -> Iterator[None]:
        """Commits inside return synced (FULL) when fsync is on and `durable` asks."""
        full = self.fsync and durable
        if full:
            self.db.execute("PRAGMA synchronous=FULL")
        try:
            yield
        finally:
            if full:
                self.db.execute("PRAGMA synchronous=NORMAL")

    # ------------------------------------------------------------ retention
    def first_seq(self) -> int | None:
        row = self.db.execute("SELECT min(seq) FROM journal").fetchone()
        return row[0] if row else None

    def at_of(self, seq: int) -> float | None:
        """When record `seq` was journaled (None: not in the journal)."""
        row = self.db.execute("SELECT at FROM journal WHERE seq = ?", (seq,)).fetchone()
        return row[0] if row else None

    def unsent_through(self, seq: int) -> bool:
        """Whether a message made from records up to `seq` still waits for the broker."""
        row = self.db.execute(
            "SELECT 1 FROM outbox WHERE sent = 0 AND source BETWEEN 1 AND ? LIMIT 1", (seq,)
        ).fetchone()
        return row is not None

    def checkpoint(self) -> tuple[int, dict[str, Any]] | None:
        """The newest checkpoint record (controller.retention): (its seq, the record)."""
        value = self.meta().get("checkpoint")
        if value is None:
            return None
        row = self.db.execute("SELECT record FROM journal WHERE seq = ?", (int(value),)).fetchone()
        if row is None:
            raise JournalError(
                f"{self.path}: meta names checkpoint record {value}, which the journal does "
                "not hold: the table cannot rebuild its state (croupier audit verify)"
            )
        return int(value), json.loads(row[0])

    def prune_journal(self, through: int, body: dict[str, Any], at: float) -> int:
        """Forget journal records up to `through` and the outbox rows made from them, and
        journal a checkpoint record that says so (`body` plus what was pruned): one
        synced commit, so a crash leaves the journal before or after, never between.

        The checkpoint carries the hash of record `through`: the chain is verified from
        it. Returns the checkpoint's seq (0: nothing left to prune up to `through`)."""
        with self._synchronous(durable=True), self._tx():
            ends = self.db.execute(
                "SELECT count(*), min(at), max(at), "
                "(SELECT hash FROM journal WHERE seq = ?) FROM journal WHERE seq <= ?",
                (through, through),
            ).fetchone()
            count, first_at, last_at, stored = ends
            if stored is None:
                return 0  # pruned already (a prune that ran before a crash)
            # Answers to refused requests (source 0) older than what stays go too.
            self.db.execute(
                "DELETE FROM outbox WHERE (source BETWEEN 1 AND ?) OR (source = 0 AND id < "
                "(SELECT coalesce(min(id), 0) FROM outbox WHERE source > ?))",
                (through, through),
            )
            self.db.execute("DELETE FROM journal WHERE seq <= ?", (through,))
            record = {
                "kind": "checkpoint",
                "through": through,
                "hash": digest(stored).hex(),
                "records": count,
                "first_at": first_at,
                "last_at": last_at,
                **body,
            }
            last, previous = self._insert([record], at)
            self.db.execute(SET_META, ("checkpoint", str(last)))
        self.last_seq = last
        self.last_hash = previous
        self._bound_wal()
        return last

    # The checkpointer's PASSIVE checkpoints let the next commit start the WAL again
    # only if no commit came while one ran: under a steady stream of commits
    # (`sim --speed max`) the WAL would grow for ever (gigabytes in a soak, and its
    # index in memory). Past this size the table's own connection checkpoints between
    # two commits and has the next one write the WAL from its start again (RESTART),
    # over blocks the file already has: those commits' syncs carry no metadata, and
    # no truncation frees and reallocates the blocks. That next commit also cuts the
    # file back to this size (journal_size_limit), so what ran past it is all there
    # is to free. Each restart costs the loop two syncs (the WAL's, the database's):
    # at 64 MB one every 2.6 s at 1,000 records/s (6 pages of WAL each); 8 MB made
    # it four a second.
    WAL_LIMIT = 64 * 1024 * 1024

    def _bound_wal(self) -> None:
        try:
            size = self._wal.stat().st_size
            # Never the last free space: on a disk with little room the WAL starts again
            # well before it could take it (a quarter of what is free, at least 1 MB).
            limit = min(self.WAL_LIMIT, max(1 << 20, self.free_bytes() // 4))
        except OSError:
            return
        if size > limit:
            # RESTART waits for readers (an audit, a backup) up to the busy timeout; the
            # loop must not: busy, it tries again after the next commit.
            self.db.execute("PRAGMA busy_timeout=0")
            try:
                with contextlib.suppress(sqlite3.OperationalError):
                    self.db.execute("PRAGMA wal_checkpoint(RESTART)")
            finally:
                self.db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")

    def records(
        self, first: int = 1, last: int | None = None
    ) -> Iterator[tuple[int, dict[str, Any]]]:
        """Journal records from seq `first` to `last` (inclusive; None: the end), in order."""
        end = self.last_seq if last is None else last
        for seq, text in self.db.execute(
            "SELECT seq, record FROM journal WHERE seq BETWEEN ? AND ? ORDER BY seq",
            (first, end),
        ):
            yield seq, json.loads(text)

    def last_at(self) -> float | None:
        """When the newest record was journaled (wall clock, audit only)."""
        row = self.db.execute("SELECT at FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
        return row[0] if row else None

    # -------------------------------------------------------------- outbox
    def add(self, messages: Iterable[tuple[int, Message]], outboxed: int, acked: list[int]) -> None:
        """Store messages (each with its journal seq), advance `outboxed`, mark acks: one commit."""
        with self._tx():
            self.db.executemany(
                "INSERT INTO outbox (topic, payload, source, eseq) VALUES (?, ?, ?, ?)",
                [(m.topic, m.payload, src, m.eseq) for src, m in messages],
            )
            self.db.execute(SET_META, ("outboxed", str(outboxed)))
            self._mark(acked)
        self._bound_wal()

    def mark_sent(self, ids: list[int]) -> None:
        with self._tx():
            self._mark(ids)

    def _mark(self, ids: list[int]) -> None:
        if ids:
            self.db.executemany("UPDATE outbox SET sent = 1 WHERE id = ?", [(i,) for i in ids])

    def unsent_from(self, first_id: int, limit: int) -> list[Row]:
        return [
            Row(*r)
            for r in self.db.execute(
                "SELECT id, topic, payload FROM outbox WHERE id >= ? AND sent = 0 "
                "ORDER BY id LIMIT ?",
                (first_id, limit),
            )
        ]

    def rows_from(self, first_id: int, limit: int) -> list[Row]:
        """Rows sent or not (a republish sends them again)."""
        return [
            Row(*r)
            for r in self.db.execute(
                "SELECT id, topic, payload FROM outbox WHERE id >= ? ORDER BY id LIMIT ?",
                (first_id, limit),
            )
        ]

    def first_unsent(self) -> int | None:
        row = self.db.execute("SELECT min(id) FROM outbox WHERE sent = 0").fetchone()
        return row[0] if row else None

    def row_of_event(self, eseq: int) -> int | None:
        """The outbox id of the events message with `seq` eseq (None: not kept)."""
        row = self.db.execute("SELECT min(id) FROM outbox WHERE eseq >= ?", (eseq,)).fetchone()
        return row[0] if row else None

    def oldest_event(self) -> int | None:
        row = self.db.execute("SELECT min(eseq) FROM outbox").fetchone()
        return row[0] if row else None

    def last_id(self) -> int:
        row = self.db.execute("SELECT max(id) FROM outbox").fetchone()
        return row[0] or 0

    def prune(self, keep: int) -> int:
        """Forget sent rows beyond the newest `keep` rows (republish reaches back that far)."""
        with self._tx():
            cur = self.db.execute(
                "DELETE FROM outbox WHERE sent = 1 AND id <= (SELECT max(id) FROM outbox) - ?",
                (keep,),
            )
        return cur.rowcount

    # ---------------------------------------------------------------- misc
    def _tx(self) -> _Transaction:
        return _Transaction(self.db)


class _Checkpointer:
    """Checkpoints the WAL every second from its own connection (PASSIVE: never blocks
    the writer). Without it the WAL would grow for ever: autocheckpoint is off."""

    PERIOD = 1.0

    def __init__(self, path: Path) -> None:
        self.path = path
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, name="wal-checkpoint", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            while not self.done.wait(self.PERIOD):
                with contextlib.suppress(sqlite3.OperationalError):  # busy: next period
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            log.exception("WAL checkpoint failed")
        finally:
            db.close()

    def stop(self) -> None:
        self.done.set()
        self.thread.join(timeout=10)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN")

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        if kind is None:
            try:
                self.db.execute("COMMIT")
            except sqlite3.Error:
                self._rollback()
                raise
        else:
            self._rollback()

    def _rollback(self) -> None:
        # SQLite may already have rolled the transaction back by itself (a full disk
        # does): a second ROLLBACK would raise and hide the error that matters.
        if self.db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")


# How long a statement waits for another connection's lock (Python's default).
BUSY_TIMEOUT_MS = 5000

# fdatasync where the platform has it (Linux); a plain fsync elsewhere (macOS laptops).
_datasync = getattr(os, "fdatasync", os.fsync)
