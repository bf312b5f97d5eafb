"""Journal retention (controller.retention): whole shoes older than keep_days leave
the journal, `croupier audit verify` still proves the rest intact (and still finds
an edit), and the table rebuilt from the checkpoint is the table that never pruned.

Real SQLite throughout: a simulated table plays a few shoes, then a service opened
on its state dir "91 days later" prunes. The broker's acknowledgements, which the
offline sim never gets, are written the way the table writes them (outbox `sent`);
the floor recorder's watermark, which the table waits for too, is handed to it as the
loop does with a `recorded` message (on a real broker: tests/service/test_recorded.py)."""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import pytest

from controller.cli import main
from controller.commands import MAX_SEQ
from controller.config import Config, override
from controller.retention import DAY
from controller.service import Service
from drivers.interfaces import DriverSet
from sim.runner import build
from tests.pit.harness import PitTable

ROUNDS = 150  # about four be-casino shoes
EVERYTHING = MAX_SEQ  # a recorder's watermark that holds every event there is


def config(state: Path, rounds: int = 0, table: str = "ret", **journal: int) -> Config:
    return override(
        Config(),
        "test",
        table={"id": table, "rules": "be-casino"},
        state={"dir": state, "fsync": False},
        journal=journal,
        sim={"rounds": rounds, "speed": "max", "seed": 3},
    )


def play(state: Path, rounds: int, table: str = "ret") -> None:
    build(config(state, rounds, table), offline=True).service.run()


@cache
def _played(root: str, table: str) -> Path:
    state = Path(root) / f"retention-played-{table}"
    play(state, ROUNDS, table)
    return state


def played(tmp_path: Path, factory: pytest.TempPathFactory, table: str = "ret") -> Path:
    """A copy of a table's state dir after ROUNDS rounds (played once per session)."""
    copy = tmp_path / "state"
    shutil.copytree(_played(str(factory.getbasetemp()), table), copy)
    return copy


@pytest.fixture
def state(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return played(tmp_path, tmp_path_factory)


class _Idle:
    def start(self, sink: object) -> None:
        pass

    def stop(self) -> None:
        pass


def service(
    state: Path,
    days_later: float,
    recorded: int | None = EVERYTHING,
    table: str = "ret",
    **journal: int,
) -> Service:
    """The table's service on `state`, its clock `days_later` than now (no drivers), told
    that the floor's recorder holds every event up to `recorded` (None: no recorder)."""
    idle = _Idle()
    later = time.time() + days_later * DAY
    cfg = config(state, table=table, **journal)
    s = Service(cfg, DriverSet(idle, idle, idle), None, clock=lambda: later)
    if recorded is not None:
        s.recorded.take(json.dumps({"seq": recorded}).encode())
    return s


def prune(state: Path, days_later: float, recorded: int | None = EVERYTHING, **journal: int) -> int:
    """Open the table, let it prune once (its timer's call), close it: the checkpoint's seq."""
    s = service(state, days_later, recorded, **journal)
    try:
        before = s.store.last_seq
        s._retain()
        return s.store.last_seq if s.store.last_seq != before else 0
    finally:
        s.store.close()


def sql(state: Path, query: str, *args: object) -> list[tuple[object, ...]]:
    db = sqlite3.connect(state / "table.db")
    try:
        rows = db.execute(query, args).fetchall()
        db.commit()
        return rows
    finally:
        db.close()


def acknowledge(state: Path) -> None:
    """Every message published and acknowledged by the broker (what the pump marks)."""
    sql(state, "UPDATE outbox SET sent = 1")


def verify(state: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["audit", "verify", str(state)])
    out = capsys.readouterr()
    return status, out.out + out.err


def tampered(state: Path, capsys: pytest.CaptureFixture[str], query: str, *args: object) -> str:
    """Change the journal behind the table's back: verify must say TAMPERED (exit 1)."""
    sql(state, query, *args)
    status, out = verify(state, capsys)
    assert status == 1 and out.startswith("TAMPERED"), out
    return out


def events(state: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    # The command quiets the croupier logger for its process; here the process goes on
    # (other tests read its warnings).
    logger = logging.getLogger("croupier")
    level = logger.level
    try:
        assert main(["audit", "events", str(state)]) == 0
    finally:
        logger.setLevel(level)
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def checkpoint(state: Path) -> dict[str, object]:
    ((seq,),) = sql(state, "SELECT value FROM meta WHERE key = 'checkpoint'")
    ((record,),) = sql(state, "SELECT record FROM journal WHERE seq = ?", int(str(seq)))
    data: dict[str, object] = json.loads(str(record))
    return data


def test_old_shoes_are_pruned_and_the_chain_stays_verifiable(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ((records_before, last_before),) = sql(state, "SELECT count(*), max(seq) FROM journal")
    acknowledge(state)
    seq = prune(state, days_later=91)
    assert seq == int(str(last_before)) + 1  # journaled itself, after the last record
    cp = checkpoint(state)
    through = int(str(cp["through"]))
    ((first, count),) = sql(state, "SELECT min(seq), count(*) FROM journal")
    assert first == through + 1  # whole shoes: the cut is just after a shoe began
    assert cp["records"] == through and count == int(str(records_before)) - through + 1
    (shoe_record,) = [r for (r,) in sql(state, "SELECT record FROM journal")][:1]
    assert "new_shoe" not in str(shoe_record)  # the shoe's own start went with the cut
    assert sql(state, "SELECT count(*) FROM outbox WHERE source BETWEEN 1 AND ?", through) == [(0,)]
    status, out = verify(state, capsys)
    assert status == 0, out
    assert out.startswith("intact:") and f"holds the hash of seq {through}" in out


def test_shoes_not_yet_older_than_keep_days_stay(state: Path) -> None:
    acknowledge(state)
    assert prune(state, days_later=89) == 0
    assert sql(state, "SELECT min(seq) FROM journal") == [(1,)]


def test_unacknowledged_shoes_wait_for_the_hard_cap(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Nothing was acknowledged: the floor may not have it, so keep_days alone prunes nothing.
    assert prune(state, days_later=91, keep_days=90, hard_cap_days=100) == 0
    assert sql(state, "SELECT min(seq) FROM journal") == [(1,)]
    assert prune(state, days_later=101, keep_days=90, hard_cap_days=100) > 0
    assert checkpoint(state)["forced"] is True
    assert verify(state, capsys)[0] == 0


def test_a_second_prune_of_the_same_moment_changes_nothing(state: Path) -> None:
    acknowledge(state)
    assert prune(state, days_later=91) > 0
    rows = sql(state, "SELECT seq, hash FROM journal")
    assert prune(state, days_later=91) == 0
    assert sql(state, "SELECT seq, hash FROM journal") == rows


def test_an_edit_after_the_prune_is_still_found(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    acknowledge(state)
    prune(state, days_later=91)
    # A card read some rounds after the cut: the king of spades it never was.
    ((target,),) = sql(
        state,
        "SELECT min(seq) FROM journal WHERE record LIKE '%card_read%' AND seq > "
        "(SELECT min(seq) + 50 FROM journal)",
    )
    query = "UPDATE journal SET record = json_set(record, '$.card', 'KS') WHERE seq = ?"
    assert f"seq {target}: record edited" in tampered(state, capsys, query, target)


def test_the_oldest_records_kept_cannot_be_removed_unseen(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    acknowledge(state)
    prune(state, days_later=91)
    ((first,),) = sql(state, "SELECT min(seq) FROM journal")
    out = tampered(state, capsys, "DELETE FROM journal WHERE seq < ?", int(str(first)) + 3)
    assert f"record(s) {first} to {int(str(first)) + 2} removed" in out


def test_an_edited_checkpoint_is_found(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    acknowledge(state)
    seq = prune(state, days_later=91)
    query = "UPDATE journal SET record = json_set(record, '$.forced', json('true')) WHERE seq = ?"
    assert f"seq {seq}: record edited" in tampered(state, capsys, query, seq)


def test_the_table_rebuilt_from_the_checkpoint_is_the_same_table(
    state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "whole"
    shutil.copytree(state, whole)
    acknowledge(state)
    prune(state, days_later=91)
    cp = checkpoint(state)
    # The events the journal still makes are the unpruned table's, seq for seq.
    kept = events(state, capsys)
    every = events(whole, capsys)
    assert kept and kept == every[len(every) - len(kept) :]
    assert kept[0]["seq"] == cp["state"]["events"] + 1  # type: ignore[index]
    # And both tables, restarted, deal on identically: the same input, the same events
    # (`source`, the journal seq, is one on: the checkpoint is a record too; and the
    # clock this test moved 91 days ahead steps back, which is journaled).
    play(state, ROUNDS + 20)
    play(whole, ROUNDS + 20)
    new, old = (_stream(s) for s in (state, whole))
    assert len(new) > 300 and new == old[len(old) - len(new) :]


def _stream(state: Path) -> list[dict[str, object]]:
    rows = sql(state, "SELECT payload FROM outbox WHERE topic IN ('events', 'outcome') ORDER BY id")
    return [{k: v for k, v in json.loads(str(p)).items() if k != "source"} for (p,) in rows]


def test_a_crash_in_the_middle_of_a_prune_leaves_a_verifiable_journal(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    acknowledge(state)
    before = sql(state, "SELECT seq, hash FROM journal")
    # The process dies between the deletes and the commit: SQLite rolls them back.
    child = f"""
import os, sys
sys.path.insert(0, {str(Path(__file__).parents[2])!r})
from pathlib import Path
from controller.journal import Store
from tests.service.test_retention import service
real = Store._insert
def dying(self, records, at):
    if records and records[0].get("kind") == "checkpoint":
        os._exit(9)
    return real(self, records, at)
Store._insert = dying
service(Path({str(state)!r}), 91)._retain()
"""
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, timeout=120)
    assert done.returncode == 9, done.stderr.decode()
    assert sql(state, "SELECT seq, hash FROM journal") == before
    assert verify(state, capsys)[0] == 0
    assert prune(state, days_later=91) > 0  # and the next run prunes as it would have
    assert verify(state, capsys)[0] == 0


def test_no_prune_while_a_round_is_in_play(state: Path) -> None:
    later = time.time() + 91 * DAY
    table = PitTable(state, table_id="ret", clock=lambda: later)
    try:
        table.service.recorded.take(json.dumps({"seq": EVERYTHING}).encode())
        table.deal_round_start()
        table.settle()
        acknowledge(state)
        head = table.service.store.last_seq
        assert table.service._retain() == 5.0  # soon again, not now
        assert table.service.store.last_seq == head
        assert sql(state, "SELECT min(seq) FROM journal") == [(1,)]
        answer = table.command("void_round", {"transaction": "v1", "by": "anna", "reason": "x"})
        assert answer["ok"] is True
        acknowledge(state)
        table.service._retain()
        assert table.service.store.last_seq > head + 1  # the void, then the checkpoint
        assert sql(state, "SELECT min(seq) FROM journal") != [(1,)]
    finally:
        table.stop()


def _shoe_ends(state: Path, table: str = "ret") -> list[tuple[int, int]]:
    """(journal seq, events seq) just after each shoe began, as the table sees them."""
    s = service(state, 0, None, table)
    try:
        return [(start.seq, int(start.state["events"])) for start in s.applier.shoe_starts]
    finally:
        s.store.close()


def test_a_shoe_waits_until_the_floors_recorder_holds_every_event_of_it(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    acknowledge(state)  # the broker took everything: not enough on its own
    ends = _shoe_ends(state)
    assert len(ends) >= 3, ends
    (first_start, first_events), (second_start, second_events) = ends[0], ends[1]
    # One event short of the first shoe start's: nothing may go.
    assert prune(state, 91, recorded=first_events - 1) == 0
    assert prune(state, 91, recorded=None) == 0  # no recorder heard at all
    assert sql(state, "SELECT min(seq) FROM journal") == [(1,)]
    # One short of the second: only up to the first shoe's start.
    assert prune(state, 91, recorded=second_events - 1) > 0
    assert checkpoint(state)["through"] == first_start
    # Exactly the second's: up to it, and not further (the third needs more).
    assert prune(state, 91, recorded=second_events) > 0
    cp = checkpoint(state)
    assert cp["through"] == second_start and cp["forced"] is False
    assert cp["recorded"] == second_events
    assert verify(state, capsys)[0] == 0


def test_the_hard_cap_prunes_what_the_recorder_never_confirmed(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    acknowledge(state)
    assert prune(state, 101, recorded=None, keep_days=90, hard_cap_days=102) == 0
    assert prune(state, 103, recorded=None, keep_days=90, hard_cap_days=102) > 0
    cp = checkpoint(state)
    assert cp["forced"] is True and cp["recorded"] is None
    assert verify(state, capsys)[0] == 0


def test_a_table_without_a_recorder_prunes_on_the_brokers_word(state: Path) -> None:
    assert prune(state, 91, recorded=None, wait_for_recorder=False) == 0  # nothing acked
    acknowledge(state)
    assert prune(state, 91, recorded=None, wait_for_recorder=False) > 0
    assert checkpoint(state)["forced"] is False
