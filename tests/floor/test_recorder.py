"""The recorder on a real mosquitto and a real PostgreSQL, with simulated tables
(`croupier sim` processes): every message once, equal to the table's journal,
across a gap it must repair and a database that restarts under it."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg

from controller.audit import replay
from controller.floor.recorder import ANNOUNCE_EVERY
from tests.floor.conftest import Postgres, croupier, made, query, start_recorder, stop, wait_until
from tests.service.conftest import BrokerProcess, Subscriber, sim_command


def sim(broker: BrokerProcess, state: Path, table: str, rounds: int, *extra: str) -> list[str]:
    return sim_command(
        "--table", table, "--rounds", str(rounds), "--seed", "7", "--no-fsync",
        "--broker", broker.url, "--state-dir", str(state), *extra,
    )  # fmt: skip


def recorded(db: str, table: str) -> tuple[int, int, int]:
    """(outcomes, contiguous seq, highest seq) the floor holds for `table`."""
    rows = query(
        db,
        "SELECT (SELECT count(*) FROM floor_outcomes WHERE table_id = %s), "
        "coalesce((SELECT contiguous_seq FROM floor_tables WHERE table_id = %s), 0), "
        "coalesce((SELECT max(seq) FROM floor_events WHERE table_id = %s), 0)",
        table, table, table,
    )  # fmt: skip
    return rows[0]


def last_seq(state: Path) -> int:
    return made(state)[0]


def complete(db: str, table: str, rounds: int, seq: int) -> bool:
    """Every round and every seq up to `seq` (the recorder's own requests add events)."""
    outcomes, contiguous, highest = recorded(db, table)
    return outcomes == rounds and contiguous == highest >= seq


def test_a_table_is_recorded_once_equal_to_its_journal_and_reported(
    mosquitto: BrokerProcess, floor_db: str, tmp_path: Path
) -> None:
    recorder = start_recorder(mosquitto.url, floor_db, tmp_path / "recorder.log")
    state = tmp_path / "T1"
    try:
        done = subprocess.run(sim(mosquitto, state, "T1", 25, "--speed", "max"), timeout=120)
        assert done.returncode == 0
        seq = last_seq(state)
        wait_until(lambda: complete(floor_db, "T1", 25, seq), 60, "25 outcomes and every seq")
    finally:
        assert stop(recorder) == 0, (tmp_path / "recorder.log").read_text()[-3000:]
    check = croupier("floor", "check", "--db", floor_db, str(state))
    assert check.returncode == 0, check.stdout + check.stderr
    assert "T1: equal (" in check.stdout and "25 outcome" in check.stdout

    report = croupier("floor", "report", "--db", floor_db)
    assert report.returncode == 0, report.stderr
    (row,) = list(csv.DictReader(io.StringIO(report.stdout)))
    journal = replay(state)
    outcomes = [p for topic, p in journal if topic == "outcome"]
    staked = sum(
        Decimal(pl["stake"]) + Decimal(pl["insurance"])
        for o in outcomes
        for b in o["boxes"]
        for pl in b["players"]
    )
    won = sum(Decimal(o["house_net"]) for o in outcomes)
    assert row["table_id"] == "T1" and int(row["rounds"]) == 25
    assert Decimal(row["dropped"]) == staked and Decimal(row["won"]) == won
    assert Decimal(row["hold"]) == (won / staked).quantize(Decimal("0.0001"))
    alerts = [p for topic, p in journal if topic == "alerts"]
    unreadable = sum(1 for a in alerts if a["kind"] == "unreadable")
    assert int(row["unreadable_cards"]) == unreadable > 0  # the sim's 1 % unreadable cards
    events = [p for topic, p in journal if topic == "events"]
    assert int(row["mistaken_cards"]) == sum(1 for e in events if e["type"] == "mistaken_card")


def test_a_gap_is_repaired_from_the_table_with_republish(
    mosquitto: BrokerProcess, floor_db: str, tmp_path: Path
) -> None:
    """The recorder misses rounds 11-30 entirely (it was away, and its replacement has
    another client id, so the broker kept nothing for it): it sees the hole in the
    table's `state` and has the table send it again."""
    state = tmp_path / "T2"
    log = tmp_path / "recorder.log"
    first = start_recorder(mosquitto.url, floor_db, log, "--client-id", "rec-a")
    try:
        assert subprocess.run(sim(mosquitto, state, "T2", 10, "--speed", "max")).returncode == 0
        seq = last_seq(state)
        wait_until(lambda: complete(floor_db, "T2", 10, seq), 60, "the first 10 rounds")
    finally:
        first.kill()  # kill -9
        first.wait()
    table = subprocess.Popen(sim(mosquitto, state, "T2", 30, "--speed", "max", "--stay"))
    try:
        wait_until(lambda: last_seq(state) > seq and _settled(state) == 30, 60, "30 rounds dealt")
        second = start_recorder(mosquitto.url, floor_db, log, "--client-id", "rec-b")
        try:
            seq = last_seq(state)
            wait_until(lambda: complete(floor_db, "T2", 30, seq), 60, "rounds 11-30 repaired")
        finally:
            assert stop(second) == 0, log.read_text()[-3000:]
    finally:
        stop(table)
    repairs = query(floor_db, "SELECT from_seq, ok FROM floor_repairs WHERE table_id = 'T2'")
    assert repairs and all(ok for _, ok in repairs), repairs
    check = croupier("floor", "check", "--db", floor_db, str(state))
    assert check.returncode == 0, check.stdout + check.stderr


def _settled(state: Path) -> int:
    return made(state)[1]


def test_the_recorder_rides_through_a_database_restart(
    mosquitto: BrokerProcess, postgres: Postgres, floor_db: str, tmp_path: Path
) -> None:
    state = tmp_path / "T3"
    log = tmp_path / "recorder.log"
    recorder = start_recorder(mosquitto.url, floor_db, log)
    table = subprocess.Popen(sim(mosquitto, state, "T3", 30, "--speed", "100"))
    try:
        wait_until(lambda: recorded(floor_db, "T3")[0] >= 5, 60, "5 rounds recorded")
        postgres.stop("immediate")  # the server dies mid-commit
        try:
            wait_until(lambda: "failed a commit" in log.read_text(), 30, "a failed commit")
        finally:
            postgres.start()
        assert table.wait(120) == 0
        seq = last_seq(state)
        wait_until(lambda: complete(floor_db, "T3", 30, seq), 60, "all 30 rounds")
    finally:
        stop(table)
        assert stop(recorder) == 0, log.read_text()[-3000:]
    check = croupier("floor", "check", "--db", floor_db, str(state))
    assert check.returncode == 0, check.stdout + check.stderr
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    assert any(line["msg"] == "floor database open" for line in lines[1:])  # reopened


def test_the_recorder_account_reads_every_table_and_may_ask_for_a_gap(
    floor_db: str, tmp_path: Path
) -> None:
    """On the Pi's broker set-up (systemd/mosquitto: accounts, ACL): the `recorder`
    role (account `archive`) reads a table's stream and its cmd/republish passes,
    so a second recorder that missed everything gets it all from the table."""
    from tests.deploy.mosquitto import password, running_broker

    secret = tmp_path / "archive.password"
    secret.write_text(password("archive") + "\n")
    login = ("--username", "archive", "--password-file", str(secret))
    with running_broker() as broker:
        url = f"mqtt://127.0.0.1:{broker.tcp}"
        state = tmp_path / "T1"
        log = tmp_path / "recorder.log"
        table = subprocess.Popen(
            sim_command(
                "--table", "T1", "--rounds", "12", "--seed", "3", "--no-fsync", "--speed",
                "max", "--stay", "--broker", url, "--username", "table-T1", "--password",
                password("table-T1"), "--state-dir", str(state),
            )
        )  # fmt: skip
        try:
            wait_until(lambda: _settled(state) == 12, 60, "12 rounds dealt")
            seq = last_seq(state)
            for client in ("archive-a", "archive-b"):  # b: no session, every seq missing
                rec = start_recorder(url, floor_db, log, "--client-id", client, *login)
                try:
                    wait_until(lambda: complete(floor_db, "T1", 12, seq), 60, "12 rounds")
                finally:
                    assert stop(rec) == 0, log.read_text()[-3000:]
                if client == "archive-a":
                    with psycopg.connect(floor_db) as conn:
                        conn.execute("TRUNCATE floor_events, floor_outcomes, floor_alerts, "
                                     "floor_tables")  # fmt: skip
        finally:
            stop(table)
    asked = query(floor_db, "SELECT ok FROM floor_repairs")
    assert asked and all(ok for (ok,) in asked), asked


def test_the_recorder_tells_each_table_how_far_it_holds_it(
    mosquitto: BrokerProcess, floor_db: str, tmp_path: Path, subscribe: Any
) -> None:
    """The retained `recorded` watermark the table's retention waits for: forward only,
    at most about once a second, and in the end exactly what the floor holds without a
    gap (floor_tables.contiguous_seq: every event up to it committed)."""
    watch: Subscriber = subscribe(mosquitto.port, "T4", topics="recorded")
    log = tmp_path / "recorder.log"
    recorder = start_recorder(mosquitto.url, floor_db, log)
    state = tmp_path / "T4"
    started = time.monotonic()
    try:
        done = subprocess.run(sim(mosquitto, state, "T4", 25, "--speed", "max"), timeout=120)
        assert done.returncode == 0
        seq = last_seq(state)
        wait_until(lambda: complete(floor_db, "T4", 25, seq), 60, "25 outcomes and every seq")
        wait_until(lambda: _marks(watch)[-1:] == [recorded(floor_db, "T4")[1]], 10,
                   "the watermark of everything committed")  # fmt: skip
        took = time.monotonic() - started
        time.sleep(2 * ANNOUNCE_EVERY)  # nothing moved: nothing more is said
        assert _marks(watch)[-1] == recorded(floor_db, "T4")[1]
    finally:
        assert stop(recorder) == 0, log.read_text()[-3000:]
    marks = _marks(watch)
    assert not watch.errors, watch.errors  # each one valid against docs/schemas/recorded.json
    assert marks == sorted(set(marks)) and marks[0] > 0, marks  # forward only, never 0
    assert len(marks) <= took / ANNOUNCE_EVERY + 2, (len(marks), took)
    assert marks[-1] >= seq
    # Retained: a table that (re)connects hears it at once, the recorder gone or not.
    late: Subscriber = subscribe(mosquitto.port, "T4", topics="recorded")
    late.wait_for(lambda: bool(late.on("recorded")), 5, "the retained watermark")
    (mark,) = late.on("recorded")
    assert mark.retain and mark.payload["seq"] == marks[-1]


def _marks(watch: Subscriber) -> list[int]:
    return [int(m.payload["seq"]) for m in watch.on("recorded")]
