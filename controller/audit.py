"""Checking the table's record: the journal's hash chain (`croupier audit verify`).

Every journal row stores `hash = link(previous hash, seq, at, record)`
(controller.journal). Reading the rows in seq order and recomputing each
link finds where the record was changed behind the table's back, and says
what most likely happened there:

- a seq missing between two rows: records removed;
- a row whose content would link at another seq: records reordered;
- a row whose content does not match its hash while the next row still
  links to that hash: the record was edited;
- a row whose stored hash alone was changed (the record would still link);
- the end: the head the table wrote last (meta `journal_head`) and the
  outbox's messages, which name the journal seq they came from, show
  records removed from the end;
- the start: a journal that retention pruned (controller.retention) is
  verified from its newest checkpoint record, which carries the hash of the
  last record pruned; records missing between it and the first record kept
  show as removed, and the checkpoint is itself a chained record.

What a chain cannot show: a journal rewritten from the edit onwards with
every later hash recomputed. Only a copy of the head kept elsewhere (a
backup, a recorder) catches that; see docs/deploy.md.

The journal is opened read-only; the table may run meanwhile (WAL).
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.journal import GENESIS, link

WINDOW = 32  # how far from a broken row a moved record is looked for
EXPLAINED = 20  # broken rows examined for a cause; the rest are listed as broken
BACKWARDS = 1.0  # seconds the clock may step back between records before it counts


class Unreadable(Exception):
    """The state dir cannot be verified (missing, not a table's database, too old)."""


@dataclass(frozen=True)
class Problem:
    seq: int
    what: str

    def __str__(self) -> str:
        return f"seq {self.seq}: {self.what}"


@dataclass
class Verdict:
    path: Path
    records: int = 0
    first: int | None = None
    last: int | None = None
    head: str | None = None
    problems: list[Problem] = field(default_factory=list)
    clock_backwards: int = 0  # records journaled at an earlier time than the one before
    chained_at: str | None = None  # when a format 1 journal was migrated
    checkpoint: Pruned | None = None  # where the chain is verified from, when pruned

    @property
    def intact(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class Pruned:
    """What the newest checkpoint record says retention pruned."""

    seq: int  # the checkpoint record's
    through: int  # records up to this seq are gone
    records: int  # pruned by this checkpoint (earlier ones pruned the rest)
    last_at: float | None  # when the newest pruned record was journaled


@dataclass(frozen=True)
class _Row:
    seq: int
    at: float
    record: str
    hash: str  # hex

    def links(self, previous: bytes, seq: int | None = None) -> bytes:
        return link(previous, self.seq if seq is None else seq, self.at, self.record)

    @property
    def digest(self) -> bytes | None:
        try:
            value = bytes.fromhex(self.hash)
        except ValueError:
            return None
        return value if len(value) == 32 else None


def database(state_dir: Path) -> Path:
    path = state_dir / "table.db" if state_dir.is_dir() else state_dir
    if not path.exists():
        raise Unreadable(f"{path}: no such file (is {state_dir} a table's state dir?)")
    return path


def open_readonly(state_dir: Path) -> sqlite3.Connection:
    path = database(state_dir)
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.Error as exc:
        raise Unreadable(f"{path}: not a table's database: {exc}") from None
    if "journal" not in tables:
        db.close()
        raise Unreadable(f"{path}: no journal in this database (not a table's state)")
    columns = {r[1] for r in db.execute("PRAGMA table_info(journal)")}
    if "hash" not in columns:
        db.close()
        raise Unreadable(
            f"{path}: journal format 1, written before records were hash-chained: there is "
            "no chain to verify yet. The table chains it the next time it starts on this "
            "dir (croupier run or sim)."
        )
    return db


def verify(state_dir: Path) -> Verdict:
    db = open_readonly(state_dir)
    try:
        return _verify(db, Verdict(database(state_dir)))
    except sqlite3.Error as exc:
        raise Unreadable(f"{state_dir}: reading the journal failed: {exc}") from None
    finally:
        db.close()


def _rows(db: sqlite3.Connection, first: int = 0, last: int | None = None) -> Iterator[_Row]:
    end = last if last is not None else 2**62
    for seq, at, record, digest in db.execute(
        "SELECT seq, at, record, hash FROM journal WHERE seq BETWEEN ? AND ? ORDER BY seq",
        (first, end),
    ):
        # Hex for the report: raw bytes in format 3 rows, hex text in format 2 ones.
        yield _Row(
            seq, float(at), str(record), digest.hex() if isinstance(digest, bytes) else str(digest)
        )


def _verify(db: sqlite3.Connection, verdict: Verdict) -> Verdict:
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    verdict.chained_at = meta.get("chained_at")
    last_seq, previous = _start(db, meta, verdict)
    last_at: float | None = None
    last_row: _Row | None = None
    broken = 0
    shift: _Shift | None = None  # a run of whole rows found at seq + offset
    rows = _rows(db)
    row = next(rows, None)
    while row is not None:
        following = next(rows, None)
        verdict.records += 1
        if verdict.first is None:
            verdict.first = row.seq
        if last_at is not None and row.at < last_at - BACKWARDS:
            verdict.clock_backwards += 1
        gap = row.seq != last_seq + 1
        if gap:
            missing = (
                f"{last_seq + 1}"
                if row.seq == last_seq + 2
                else (f"{last_seq + 1} to {row.seq - 1}")
            )
            verdict.problems.append(
                Problem(
                    last_seq + 1,
                    f"missing: record(s) {missing} removed from the journal "
                    f"(seq {row.seq} follows seq {last_seq})",
                )
            )
        expected = row.links(previous)
        stored = row.digest
        if stored == expected:
            previous = stored
        elif gap:
            previous = stored or expected  # the removal explains it; go on from here
        elif shift is not None and stored == row.links(previous, row.seq + shift.offset):
            shift.last = row.seq  # renumbered with the rows before it: one problem for all
            previous = stored
        else:
            if shift is not None:
                verdict.problems.append(shift.problem())
                shift = None
            broken += 1
            cause, previous, offset = _diagnose(db, row, expected, following, broken <= EXPLAINED)
            if offset is not None:
                shift = _Shift(row.seq, row.seq, offset)
            else:
                verdict.problems.append(Problem(row.seq, cause))
        if shift is not None and shift.last != row.seq:
            verdict.problems.append(shift.problem())
            shift = None
        last_seq, last_at, last_row = row.seq, row.at, row
        row = following
    if shift is not None:
        verdict.problems.append(shift.problem())
    verdict.last = last_row.seq if last_row else None
    verdict.head = last_row.hash if last_row else None
    _check_end(db, meta, verdict, last_row)
    return verdict


def _start(db: sqlite3.Connection, meta: dict[str, str], verdict: Verdict) -> tuple[int, bytes]:
    """Where the chain begins: the genesis, or in a pruned journal the checkpoint the
    table names (meta `checkpoint`): the last pruned seq and its hash."""
    first = db.execute("SELECT min(seq) FROM journal").fetchone()[0]
    named = meta.get("checkpoint")
    if first is None or first == 1 or named is None or not named.isdigit():
        return 0, GENESIS  # a journal that does not begin at 1 then shows the removal
    row = db.execute("SELECT record FROM journal WHERE seq = ?", (int(named),)).fetchone()
    if row is None:
        verdict.problems.append(
            Problem(int(named), "the checkpoint record the table names is missing: removed")
        )
        return 0, GENESIS
    try:
        data = json.loads(row[0])
        through, digest = int(data["through"]), bytes.fromhex(data["hash"])
        if data["kind"] != "checkpoint" or len(digest) != 32 or not 0 < through < int(named):
            raise ValueError(data["kind"])
        at = data.get("last_at")
        verdict.checkpoint = Pruned(
            int(named), through, int(data["records"]), float(at) if at is not None else None
        )
    except (ValueError, KeyError, TypeError):
        verdict.problems.append(
            Problem(int(named), "the record the table names as its checkpoint is not one")
        )
        return 0, GENESIS
    return through, digest


@dataclass
class _Shift:
    first: int
    last: int
    offset: int

    def problem(self) -> Problem:
        if self.first == self.last:
            return Problem(
                self.first,
                f"holds the record written as seq {self.first + self.offset} (moved with its "
                "hash): records reordered",
            )
        return Problem(
            self.first,
            f"seq {self.first} to {self.last} hold the records written as seq "
            f"{self.first + self.offset} to {self.last + self.offset}: renumbered "
            "(records removed or moved before them)",
        )


def _diagnose(
    db: sqlite3.Connection, row: _Row, expected: bytes, following: _Row | None, explain: bool
) -> tuple[str, bytes, int | None]:
    """Why `row` does not link to its predecessor: (cause, the hash the next row should
    follow, the offset of a whole row moved with its hash or None)."""
    stored = row.digest
    if explain:
        moved, offset = _moved(db, row)
        if moved is not None:
            return moved, stored or expected, offset
    nxt = following if following is not None and following.seq == row.seq + 1 else None
    if nxt is not None and nxt.digest == nxt.links(expected):
        return "its stored hash was changed; the record itself is intact", expected, None
    if stored is None:
        return f"its hash {row.hash[:16]!r} is not a SHA-256: edited", expected, None
    if nxt is None or nxt.digest == nxt.links(stored):
        return "record edited: its content no longer matches its hash", stored, None
    return (
        "record and hash edited, or a record before it removed: it no longer links",
        stored,
        None,
    )


def _moved(db: sqlite3.Connection, row: _Row) -> tuple[str | None, int | None]:
    """A record written at another seq: its content links where it was written.
    Returns (cause, offset when the row moved with its hash)."""
    near = list(_rows(db, row.seq - WINDOW - 1, row.seq + WINDOW))
    by_seq = {r.seq: r for r in near}
    for seq in sorted(by_seq, key=lambda s: abs(s - row.seq)):
        if seq == row.seq or (seq - 1 not in by_seq and seq != 1):
            continue
        before = by_seq[seq - 1].digest if seq > 1 else GENESIS
        if before is None:
            continue
        # Its content moved here, the hash column stayed: it links where the content was.
        if by_seq[seq].digest == row.links(before, seq):
            return f"holds the record written as seq {seq}: records reordered", None
    stored = row.digest
    if stored is None:
        return None, None
    # The whole row moved (hash and all): its hash fits its content at another seq,
    # after a predecessor that is somewhere near.
    candidates = [GENESIS] + [r.digest for r in near if r.digest is not None]
    for seq in sorted(by_seq, key=lambda s: abs(s - row.seq)):
        if seq == row.seq:
            continue
        for before in candidates:
            if row.links(before, seq) == stored:
                return "moved", seq - row.seq
    return None, None


def _check_end(
    db: sqlite3.Connection, meta: dict[str, str], verdict: Verdict, last: _Row | None
) -> None:
    """Records removed from the end leave no gap: the head and the outbox show them."""
    last_seq = last.seq if last else 0
    head = meta.get("journal_head")
    if head:
        seq_text, _, digest = head.partition(":")
        head_seq = int(seq_text) if seq_text.isdigit() else -1
        if head_seq > last_seq:
            verdict.problems.append(
                Problem(
                    last_seq + 1,
                    f"missing at the end: the table wrote up to seq {head_seq}, the journal "
                    f"ends at seq {last_seq}: records removed",
                )
            )
        elif head_seq < last_seq:
            verdict.problems.append(
                Problem(
                    head_seq + 1,
                    f"seq {head_seq + 1} to {last_seq} were added after the table's last write "
                    f"(it wrote up to seq {head_seq})",
                )
            )
        elif last is not None and digest != last.hash:
            verdict.problems.append(
                Problem(
                    last_seq, "the last record is not the one the table wrote last (head differs)"
                )
            )
    outboxed = int(meta.get("outboxed", "0") or 0)
    row = db.execute("SELECT max(source) FROM outbox").fetchone()
    source = max(outboxed, row[0] or 0) if row else outboxed
    if source > last_seq and not (head and int(head.partition(":")[0] or 0) > last_seq):
        verdict.problems.append(
            Problem(
                last_seq + 1,
                f"missing at the end: the outbox holds messages made from seq {source}, the "
                f"journal ends at seq {last_seq}: records removed",
            )
        )


def report(verdict: Verdict, limit: int = 50) -> str:
    span = (
        f"{verdict.records:,} records (seq {verdict.first} to {verdict.last})"
        if verdict.records
        else "no records"
    )
    lines = []
    if verdict.intact:
        head = f", chain head {verdict.head[:16]}" if verdict.head else ""
        lines.append(f"intact: {span}{head}")
    else:
        count = len(verdict.problems)
        lines.append(f"TAMPERED: {count} problem{'s' if count > 1 else ''} in {span}:")
        lines += [f"  {p}" for p in verdict.problems[:limit]]
        if count > limit:
            lines.append(f"  ... and {count - limit} more")
    if verdict.clock_backwards:
        lines.append(
            f"note: the clock went back {verdict.clock_backwards} time(s) between records; "
            "times are for the audit only, the order is the seq"
        )
    pruned = verdict.checkpoint
    if pruned is not None:
        until = "" if pruned.last_at is None else f", the newest journaled {_utc(pruned.last_at)}"
        lines.append(
            f"note: retention pruned seq {pruned.through} and everything before it (the "
            f"last prune: {pruned.records:,} records{until}); the chain is verified from "
            f"the checkpoint record at seq {pruned.seq}, which holds the hash of seq "
            f"{pruned.through}"
        )
    if verdict.chained_at:
        lines.append(
            f"note: this journal was chained on {verdict.chained_at}: the records it held "
            "then were written before the chain existed and are protected from that date on"
        )
    return "\n".join(lines)


def _utc(when: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when))


# ------------------------------------------------------------ replaying a copy
class _Idle:
    def start(self, sink: object) -> None:
        pass

    def stop(self) -> None:
        pass


def replay(state_dir: Path, full: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """Every stream message the table's journal makes, made again from the journal alone
    in a copy of the state (the state dir is only read): (topic, payload) in order.

    `full`: the surveillance view, hidden cards shown (burned cards, the hole card
    before it turns over). What the table published is the public view; the two differ
    only in those cards."""
    from controller.config import Config, override
    from controller.service import Service
    from drivers.interfaces import DriverSet

    source = open_readonly(state_dir)
    with tempfile.TemporaryDirectory(prefix="croupier-audit-") as tmp:
        copy = sqlite3.connect(Path(tmp) / "table.db")
        try:
            source.backup(copy)
            meta = dict(copy.execute("SELECT key, value FROM meta").fetchall())
            copy.execute("DELETE FROM outbox")  # made again below, from the journal alone
            copy.execute("DELETE FROM meta WHERE key = 'outboxed'")
            copy.commit()
        finally:
            copy.close()
            source.close()
        config = override(
            Config(),
            str(state_dir),
            table={
                "id": meta.get("table"),
                "rules": meta.get("rules"),
                "boxes": int(meta["boxes"]) if meta.get("boxes") else None,
            },
            state={"dir": Path(tmp), "fsync": False},
        )
        idle = _Idle()
        service = Service(config, DriverSet(idle, idle, idle), None, audit_view=full)
        try:
            rows = service.store.rows_from(1, 2**62)
        finally:
            service.store.close()
    return [(row.topic, json.loads(row.payload)) for row in rows]
