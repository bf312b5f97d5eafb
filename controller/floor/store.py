"""The recorder's writes: one transaction per batch of messages, a few set-based
statements each (unnest of arrays, not a statement per row), every insert
`ON CONFLICT DO NOTHING`: the first copy of an id is kept, a repeat changes
nothing. The per-table seq bookkeeping is written in the same transaction,
so what a restarted recorder reads back is exactly what was committed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from controller.floor.gaps import TableSeqs
from controller.floor.parse import Alert, Event, Info, Outcome

SETTLED = ("round_settled", "round_voided")
DUE_WINDOW = 5000  # seqs below a table's head searched for outcomes still due at start


@dataclass
class Written:
    events: list[Event] = field(default_factory=list)  # newly inserted
    outcomes: int = 0
    alerts: int = 0
    duplicates: int = 0
    unmatched: list[tuple[str, int]] = field(default_factory=list)  # settled, no outcome yet


@dataclass
class Batch:
    events: list[Event] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    alerts: list[Alert] = field(default_factory=list)
    infos: dict[str, Info] = field(default_factory=dict)
    answers: list[tuple[str, bool, int | None, str | None]] = field(default_factory=list)
    lost: list[tuple[str, int, int, str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.events) + len(self.outcomes) + len(self.alerts) + len(self.infos)


def _first(items: Iterable[Any], key: Any) -> list[Any]:
    """De-duplicated by `key`, the first copy kept (a batch can hold a repeat)."""
    seen: set[Any] = set()
    out = []
    for item in items:
        k = key(item)
        if k not in seen:
            seen.add(k)
            out.append(item)
    return out


# Each kept message's columns and their types; jsonb and numeric travel as text (the
# payload as received, money as its decimal string) and are cast by PostgreSQL.
EVENT_COLUMNS = (
    ("event_id", "text"), ("table_id", "text"), ("seq", "bigint"), ("round", "int"),
    ("type", "text"), ("payload", "jsonb"),
)  # fmt: skip
OUTCOME_COLUMNS = (
    ("outcome_id", "text"), ("table_id", "text"), ("round", "int"), ("seq", "bigint"),
    ("voided", "bool"), ("staked", "numeric"), ("insured", "numeric"),
    ("house_net", "numeric"), ("payload", "jsonb"),
)  # fmt: skip
ALERT_COLUMNS = (
    ("alert_id", "text"), ("table_id", "text"), ("kind", "text"), ("round", "int"),
    ("payload", "jsonb"),
)  # fmt: skip
AS_TEXT = ("jsonb", "numeric")


def _insert(
    cur: Any, table: str, columns: tuple[tuple[str, str], ...], rows: list[tuple[Any, ...]]
) -> list[str]:
    """One statement for all `rows` (arrays unnested), repeats skipped; the first
    column of each row inserted."""
    arrays = ", ".join(
        f"%s::text[]::{kind}[]" if kind in AS_TEXT else f"%s::{kind}[]" for _, kind in columns
    )
    names = ", ".join(name for name, _ in columns)
    cur.execute(
        f"INSERT INTO {table} ({names}) SELECT * FROM unnest({arrays}) "
        f"ON CONFLICT DO NOTHING RETURNING {columns[0][0]}",
        [list(values) for values in zip(*rows, strict=True)],
    )
    return [row[0] for row in cur.fetchall()]


def write(cur: Any, batch: Batch, seqs: dict[str, TableSeqs]) -> Written:
    """Everything in `batch`, in the caller's transaction. `seqs` (already updated with
    the batch) gives each touched table's bookkeeping to store."""
    done = Written()
    events = _first(batch.events, lambda e: e.event_id)
    if events:
        rows: list[tuple[Any, ...]] = [
            (e.event_id, e.table, e.seq, e.round, e.type, e.raw) for e in events
        ]
        fresh = set(_insert(cur, "floor_events", EVENT_COLUMNS, rows))
        done.events = [e for e in events if e.event_id in fresh]
    outcomes = _first(batch.outcomes, lambda o: o.outcome_id)
    if outcomes:
        rows = [
            (o.outcome_id, o.table, o.round, o.seq, o.voided, str(o.staked), str(o.insured),
             str(o.house_net), o.raw)
            for o in outcomes
        ]  # fmt: skip
        done.outcomes = len(_insert(cur, "floor_outcomes", OUTCOME_COLUMNS, rows))
    alerts = _first(batch.alerts, lambda a: a.alert_id)
    if alerts:
        rows = [(a.alert_id, a.table, a.kind, a.round, a.raw) for a in alerts]
        done.alerts = len(_insert(cur, "floor_alerts", ALERT_COLUMNS, rows))
    done.duplicates = (
        len(batch.events) - len(done.events)
        + len(batch.outcomes) - done.outcomes
        + len(batch.alerts) - done.alerts
    )
    settled = [e for e in done.events if e.type in SETTLED]
    if settled:
        # Settled rounds whose outcome is not held (it may come later, or have been lost).
        cur.execute(
            "SELECT t, s FROM unnest(%s::text[], %s::bigint[], %s::int[]) AS u(t, s, r) "
            "WHERE NOT EXISTS (SELECT 1 FROM floor_outcomes o WHERE o.table_id = u.t "
            "AND o.round = u.r)",
            ([e.table for e in settled], [e.seq for e in settled], [e.round for e in settled]),
        )
        done.unmatched = [(row[0], row[1]) for row in cur.fetchall()]
    for info in batch.infos.values():
        cur.execute(
            "INSERT INTO floor_tables (table_id, info) VALUES (%s, %s::jsonb) "
            "ON CONFLICT (table_id) DO UPDATE SET info = EXCLUDED.info, last_seen = now()",
            (info.table, info.raw),
        )
    touched = {e.table for e in events} | {t for t, *_ in batch.lost}
    if touched:
        names = sorted(touched)
        cur.execute(
            "INSERT INTO floor_tables AS f (table_id, contiguous_seq, highest_seq) "
            "SELECT * FROM unnest(%s::text[], %s::bigint[], %s::bigint[]) "
            "ON CONFLICT (table_id) DO UPDATE SET "
            "contiguous_seq = greatest(f.contiguous_seq, EXCLUDED.contiguous_seq), "
            "highest_seq = greatest(f.highest_seq, EXCLUDED.highest_seq), last_seen = now()",
            (names, [seqs[n].contiguous for n in names], [seqs[n].highest for n in names]),
        )
    for transaction, ok, to_seq, error in batch.answers:
        cur.execute(
            "UPDATE floor_repairs SET answered_at = now(), ok = %s, to_seq = %s, error = %s "
            "WHERE transaction = %s AND answered_at IS NULL",
            (ok, to_seq, error, transaction),
        )
    for table, first, last, reason in batch.lost:
        cur.execute(
            "INSERT INTO floor_lost (table_id, from_seq, to_seq, reason) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            (table, first, last, reason),
        )
    return done


def load(cur: Any) -> dict[str, TableSeqs]:
    """Each table's bookkeeping as committed: where a restarted recorder resumes."""
    seqs: dict[str, TableSeqs] = {}
    cur.execute("SELECT table_id, contiguous_seq, highest_seq FROM floor_tables")
    for table, contiguous, highest in cur.fetchall():
        seqs[table] = refresh(cur, TableSeqs(table, contiguous, top=highest), contiguous)
    # Settled rounds near each table's head without their outcome: still due. (Far
    # behind the head such a round was asked for before; the index on (table, seq)
    # keeps this a short range scan per table however large the record.)
    cur.execute(
        "SELECT e.table_id, e.seq FROM floor_tables t JOIN floor_events e ON "
        "e.table_id = t.table_id AND e.seq > t.contiguous_seq - %s "
        "WHERE e.type IN ('round_settled', 'round_voided') AND NOT EXISTS "
        "(SELECT 1 FROM floor_outcomes o WHERE o.table_id = e.table_id AND o.round = e.round)",
        (DUE_WINDOW,),
    )
    for table, seq in cur.fetchall():
        if table in seqs:
            seqs[table].settled(seq, 0.0)
    return seqs


def refresh(cur: Any, seqs: TableSeqs, contiguous: int) -> TableSeqs:
    """`seqs`' holdings read again from the database (another recorder may have
    filled a hole): the stretches held above `contiguous`, as [first, last] pairs."""
    cur.execute(
        "SELECT min(seq), max(seq) FROM (SELECT seq, seq - row_number() OVER (ORDER BY seq) "
        "AS run FROM floor_events WHERE table_id = %s AND seq > %s) AS s "
        "GROUP BY run ORDER BY 1",
        (seqs.table, contiguous),
    )
    seqs.contiguous = max(seqs.contiguous, contiguous)
    seqs.held = [[a, b] for a, b in cur.fetchall()]
    seqs.advance()  # a first stretch that starts right after `contiguous` joins it
    return seqs
