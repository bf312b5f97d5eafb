"""The journal's hash chain: `croupier audit verify` finds an edited, removed or
reordered record and says which; a journal written before the chain is migrated.

Each tampering is done the way someone with a shell on the Pi would: sqlite3 on
the state dir's database, the table stopped."""

from __future__ import annotations

import json
import shutil
import sqlite3
from functools import cache
from pathlib import Path

import pytest

from controller.cli import main
from controller.config import Config, override
from controller.journal import FORMAT, Store
from sim.runner import build


def play(state: Path, rounds: int, rules: str = "be-casino") -> None:
    config = override(
        Config(),
        "test",
        table={"id": "aud", "rules": rules},
        state={"dir": state, "fsync": False},
        sim={"rounds": rounds, "speed": "max", "seed": 3},
    )
    build(config, offline=True).service.run()


@cache
def _played(tmp_root: str) -> Path:
    state = Path(tmp_root) / "played"
    play(state, 6)
    return state


@pytest.fixture
def state(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of a 6-round table's state dir (the table stopped)."""
    source = _played(str(tmp_path_factory.getbasetemp()))
    copy = tmp_path / "state"
    shutil.copytree(source, copy)
    return copy


def tamper(state: Path, *sql: str) -> None:
    db = sqlite3.connect(state / "table.db")
    for statement in sql:
        db.execute(statement)
    db.commit()
    db.close()


def audit(state: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["audit", "verify", str(state)])
    out = capsys.readouterr()
    return status, out.out + out.err


def count(state: Path) -> int:
    db = sqlite3.connect(state / "table.db")
    try:
        return int(db.execute("SELECT count(*) FROM journal").fetchone()[0])
    finally:
        db.close()


def test_an_intact_journal_passes(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = audit(state, capsys)
    n = count(state)
    assert status == 0, out
    assert out.startswith(f"intact: {n:,} records (seq 1 to {n})")


def test_an_edited_record_is_found_by_its_seq(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Someone turns a card read into another card (a dispute to win).
    row = (
        sqlite3.connect(state / "table.db")
        .execute(
            "SELECT seq, record FROM journal WHERE record LIKE '%card_read%' LIMIT 1 OFFSET 20"
        )
        .fetchone()
    )
    record = json.loads(row[1])
    record["card"] = "AS" if record["card"] != "AS" else "KS"
    edited = json.dumps(record, separators=(",", ":")).replace("'", "''")
    tamper(state, f"UPDATE journal SET record = '{edited}' WHERE seq = {row[0]}")
    status, out = audit(state, capsys)
    assert status == 1
    assert f"seq {row[0]}: record edited: its content no longer matches its hash" in out
    assert "TAMPERED: 1 problem" in out  # the rows after it still link: one problem only


def test_an_edited_time_is_an_edited_record(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tamper(state, "UPDATE journal SET at = at - 3600 WHERE seq = 40")
    status, out = audit(state, capsys)
    assert status == 1 and "seq 40: record edited" in out


def test_a_removed_record_is_found(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tamper(state, "DELETE FROM journal WHERE seq = 33")
    status, out = audit(state, capsys)
    assert status == 1
    assert "seq 33: missing: record(s) 33 removed from the journal (seq 34 follows seq 32)" in out
    assert "TAMPERED: 1 problem" in out


def test_removed_records_renumbered_to_hide_the_gap_are_found(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    last = count(state)
    tamper(
        state,
        "DELETE FROM journal WHERE seq = 33",
        *(f"UPDATE journal SET seq = {s - 1} WHERE seq = {s}" for s in range(34, last + 1)),
    )
    status, out = audit(state, capsys)
    assert status == 1
    assert "seq 33: record and hash edited, or a record before it removed" in out
    assert f"seq 34 to {last - 1} hold the records written as seq 35 to {last}: renumbered" in out
    assert f"the table wrote up to seq {last}, the journal ends at seq {last - 1}" in out


def _swap(state: Path, a: int, b: int, whole_rows: bool) -> None:
    db = sqlite3.connect(state / "table.db")
    ra = db.execute("SELECT record, at, hash FROM journal WHERE seq = ?", (a,)).fetchone()
    rb = db.execute("SELECT record, at, hash FROM journal WHERE seq = ?", (b,)).fetchone()
    cols = "record = ?, at = ?, hash = ?" if whole_rows else "record = ?, at = ?"
    db.execute(f"UPDATE journal SET {cols} WHERE seq = ?", (*(rb if whole_rows else rb[:2]), a))
    db.execute(f"UPDATE journal SET {cols} WHERE seq = ?", (*(ra if whole_rows else ra[:2]), b))
    db.commit()
    db.close()


@pytest.mark.parametrize("whole_rows", [False, True], ids=["records", "rows with their hash"])
def test_two_records_swapped_are_found_as_reordered(
    state: Path, capsys: pytest.CaptureFixture[str], whole_rows: bool
) -> None:
    _swap(state, 50, 51, whole_rows)
    status, out = audit(state, capsys)
    assert status == 1
    assert "seq 50: holds the record written as seq 51" in out
    assert "seq 51: holds the record written as seq 50" in out
    assert ("moved with its hash" in out) == whole_rows


def test_a_changed_hash_alone_is_found(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tamper(state, "UPDATE journal SET hash = '" + "ab" * 32 + "' WHERE seq = 12")
    status, out = audit(state, capsys)
    assert status == 1 and "seq 12: its stored hash was changed; the record itself is intact" in out


def test_records_cut_from_the_end_are_found(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    last = count(state)
    tamper(state, f"DELETE FROM journal WHERE seq > {last - 5}")
    status, out = audit(state, capsys)
    assert status == 1
    assert f"the table wrote up to seq {last}, the journal ends at seq {last - 5}" in out
    # Even with the head in meta rewritten too, the outbox still names the lost seqs.
    tamper(state, "DELETE FROM meta WHERE key = 'journal_head'")
    status, out = audit(state, capsys)
    assert status == 1 and f"the journal ends at seq {last - 5}: records removed" in out


def test_what_cannot_be_read_is_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = audit(tmp_path / "nowhere", capsys)
    assert status == 2 and "no such file" in out
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "table.db").write_bytes(b"not a database at all" * 100)
    status, out = audit(tmp_path / "junk", capsys)
    assert status == 2 and "not a table's database" in out


V1_SCHEMA = """
CREATE TABLE journal (seq INTEGER PRIMARY KEY, record TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE outbox (id INTEGER PRIMARY KEY, topic TEXT NOT NULL, payload TEXT NOT NULL,
    source INTEGER NOT NULL, eseq INTEGER, sent INTEGER NOT NULL DEFAULT 0);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def make_v1(source: Path, target: Path) -> None:
    """A state dir as the table wrote it before the hash chain (format 1)."""
    target.mkdir()
    old = sqlite3.connect(source / "table.db")
    new = sqlite3.connect(target / "table.db")
    new.executescript(V1_SCHEMA)
    new.executemany(
        "INSERT INTO journal VALUES (?, ?, ?)", old.execute("SELECT seq, record, at FROM journal")
    )
    new.executemany(
        "INSERT INTO outbox VALUES (?, ?, ?, ?, ?, ?)", old.execute("SELECT * FROM outbox")
    )
    new.executemany(
        "INSERT INTO meta VALUES (?, ?)",
        old.execute(
            "SELECT key, value FROM meta WHERE key NOT IN ('journal_format', 'journal_head')"
        ),
    )
    new.commit()
    new.close()
    old.close()


def test_an_old_journal_is_refused_by_verify_then_migrated_by_the_table(
    state: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    v1 = tmp_path / "v1"
    make_v1(state, v1)
    status, out = audit(v1, capsys)
    assert status == 2 and "journal format 1" in out and "next time it starts" in out
    records = count(v1)
    play(v1, 9)  # the table resumes on the old dir: it chains it, then plays on
    assert "chaining its records now" in caplog.text
    status, out = audit(v1, capsys)
    assert status == 0, out
    assert "protected from that date on" in out
    assert count(v1) > records
    store = Store(v1, fsync=False)
    try:
        assert store.meta()["journal_format"] == str(FORMAT)
        assert store.meta()["chained_records"] == str(records)
    finally:
        store.close()


def test_a_newer_format_is_refused_with_the_reason(state: Path) -> None:
    from controller.journal import JournalError

    newer = FORMAT + 1
    tamper(state, f"UPDATE meta SET value = '{newer}' WHERE key = 'journal_format'")
    with pytest.raises(JournalError, match=f"format {newer} was written by a newer croupier"):
        Store(state, fsync=False)


def test_a_format_2_journal_verifies_with_raw_hashes_after_it(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Format 2 stored each hash as hex text; format 3 stores the 32 bytes. A table
    that upgrades keeps its hex rows and chains raw ones after them."""
    tamper(
        state,
        "UPDATE journal SET hash = lower(hex(hash))",
        "UPDATE meta SET value = '2' WHERE key = 'journal_format'",
    )
    db = sqlite3.connect(state / "table.db")
    before = db.execute("SELECT max(seq) FROM journal").fetchone()[0]
    db.close()
    play(state, 9)
    db = sqlite3.connect(state / "table.db")
    kinds = db.execute(
        "SELECT seq > ?, typeof(hash), min(length(hash)), max(length(hash)) FROM journal "
        "GROUP BY 1, 2",
        (before,),
    ).fetchall()
    db.close()
    assert kinds == [(0, "text", 64, 64), (1, "blob", 32, 32)]
    assert audit(state, capsys)[0] == 0
    tamper(state, f"UPDATE journal SET hash = zeroblob(32) WHERE seq = {before + 3}")
    status, out = audit(state, capsys)
    assert status == 1 and f"seq {before + 3}: its stored hash was changed" in out
