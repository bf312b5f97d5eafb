"""The floor's acceptance test: 20 simulated tables x 100 rounds on one mosquitto,
recorded into PostgreSQL while the recorder is killed (-9) and the broker crashes
and restarts mid-run. Afterwards the database holds every outcome exactly once,
and every table's events, outcomes and alerts equal its own journal."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.floor.conftest import croupier, made, query, start_recorder, stop, wait_until
from tests.service.conftest import BrokerProcess, sim_command

TABLES, ROUNDS = 20, 100

pytestmark = pytest.mark.slow


def outcomes(db: str) -> int:
    return int(query(db, "SELECT count(*) FROM floor_outcomes")[0][0])


def tables_complete(db: str) -> bool:
    """Every table: all its rounds, and no hole below the highest seq held."""
    rows = query(
        db,
        "SELECT t.table_id, t.contiguous_seq, (SELECT max(seq) FROM floor_events e "
        "WHERE e.table_id = t.table_id), (SELECT count(*) FROM floor_outcomes o "
        "WHERE o.table_id = t.table_id) FROM floor_tables t",
    )
    return len(rows) == TABLES and all(c == h and n == ROUNDS for _, c, h, n in rows)


def caught_up(db: str, journals: dict[str, int]) -> bool:
    rows = dict(query(db, "SELECT table_id, contiguous_seq FROM floor_tables"))
    return all(rows.get(t, 0) >= seq for t, seq in journals.items())


def test_a_floor_of_20_tables_is_recorded_exactly_once_through_crashes(
    mosquitto: BrokerProcess, floor_db: str, tmp_path: Path
) -> None:
    log = tmp_path / "recorder.log"
    recorder = start_recorder(mosquitto.url, floor_db, log, "--client-id", "rec-floor")
    floor = subprocess.Popen(
        sim_command(
            "--tables", str(TABLES), "--processes", "2", "--rounds", str(ROUNDS),
            "--speed", "max", "--no-fsync", "--stay", "--table", "F", "--seed", "11",
            "--broker", mosquitto.url, "--state-dir", str(tmp_path / "floor"),
        ),
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "floor.log", "ab"),  # noqa: SIM115
    )  # fmt: skip
    started = time.monotonic()
    try:
        wait_until(lambda: outcomes(floor_db) >= 300, 120, "300 outcomes recorded")
        recorder.kill()  # kill -9, mid-batch
        recorder.wait()
        time.sleep(1.0)  # the tables deal on; the broker keeps the recorder's messages
        recorder = start_recorder(mosquitto.url, floor_db, log, "--client-id", "rec-floor")
        wait_until(lambda: outcomes(floor_db) >= 900, 120, "900 outcomes recorded")
        # The broker crashes: what it held for the recorder (and its session) is gone.
        assert mosquitto.proc is not None
        mosquitto.proc.kill()
        mosquitto.proc.wait()
        time.sleep(0.5)
        mosquitto.start()
        wait_until(lambda: tables_complete(floor_db), 240, "every table's 100 rounds")
        assert stop(floor, 60) == 0, (tmp_path / "floor.log").read_text()[-3000:]
        # Stopped, each table's journal is final (the recorder's requests added audit
        # events to it): the recorder catches up with what the tables sent last.
        journals = {d.name: made(d)[0] for d in sorted((tmp_path / "floor").iterdir())}
        wait_until(lambda: caught_up(floor_db, journals), 60, "the tables' last messages")
    finally:
        if floor.poll() is None:
            floor.kill()
        assert stop(recorder) == 0, log.read_text()[-3000:]
    elapsed = time.monotonic() - started

    total, distinct = query(
        floor_db, "SELECT count(*), count(DISTINCT (table_id, round)) FROM floor_outcomes"
    )[0]
    assert total == distinct == TABLES * ROUNDS
    dirs = [str(tmp_path / "floor" / t) for t in journals]
    check = croupier("floor", "check", "--db", floor_db, *dirs)
    assert check.returncode == 0, check.stdout[-5000:] + check.stderr[-2000:]
    assert check.stdout.count(f"{ROUNDS} outcome, ") == TABLES, check.stdout
    repairs = query(floor_db, "SELECT count(*), count(*) FILTER (WHERE ok) FROM floor_repairs")
    lost = query(floor_db, "SELECT count(*) FROM floor_lost")[0][0]
    assert lost == 0
    print(f"floor of {TABLES}x{ROUNDS}: {elapsed:.0f} s, repairs asked/ok {repairs[0]}")
