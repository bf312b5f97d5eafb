"""A throwaway PostgreSQL cluster (tests/floor/cluster.py) and a mosquitto for the
floor's tests. Where PostgreSQL is missing the tests skip and say why. The cluster
runs with fsync off: the tests crash processes, not the machine, and a crashed
server still recovers from its WAL in the page cache."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.floor.cluster import Postgres, Unavailable, throwaway
from tests.service.conftest import BrokerProcess, mosquitto_path, subscribe

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (the floor extra)")

__all__ = ["subscribe"]  # the service tests' schema-checking subscriber, as a fixture here


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    try:
        with throwaway(fsync=False) as pg:
            yield pg
    except Unavailable as exc:
        pytest.skip(f"{exc}: the floor's database tests are skipped")


_count = iter(range(1, 10**6))


@pytest.fixture
def floor_db(postgres: Postgres) -> str:
    """A fresh, empty database: its URL."""
    return postgres.create(f"floor_{os.getpid()}_{next(_count)}")


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[BrokerProcess]:
    """A mosquitto of the test's own (the floor tests stop and kill it)."""
    if mosquitto_path() is None:
        pytest.skip("mosquitto is not installed (Debian package mosquitto; .ci/run installs it)")
    b = BrokerProcess(tmp_path)
    b.start()
    yield b
    if b.proc is not None and b.proc.poll() is None:
        b.proc.kill()
        b.proc.wait()
    b.log.close()


def recorder_command(broker: str, db: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "controller", "recorder", "--broker", broker, "--db", db,
            "--log-level", "info", *extra]  # fmt: skip


def start_recorder(broker: str, db: str, log: Path, *extra: str) -> subprocess.Popen[bytes]:
    """The recorder in a process of its own, once its schema is in place."""
    before = log.read_text().count("floor database open") if log.exists() else 0
    out = open(log, "ab")  # noqa: SIM115
    proc = subprocess.Popen(recorder_command(broker, db, *extra), stdout=out, stderr=out)
    wait_until(
        lambda: proc.poll() is not None or log.read_text().count("floor database open") > before,
        30,
        "the recorder to open the database",
    )
    assert proc.poll() is None, log.read_text()[-3000:]
    return proc


def stop(proc: subprocess.Popen[bytes], timeout: float = 30) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError("did not stop on SIGTERM in time") from None


def made(state: Path) -> tuple[int, int]:
    """(the last events seq, outcomes) a table has made so far: read from its outbox
    (read-only; far cheaper than replaying the journal while it deals)."""
    if not (state / "table.db").exists():
        return 0, 0  # the table is starting
    db = sqlite3.connect(f"file:{state / 'table.db'}?mode=ro", uri=True)
    try:
        row = db.execute(
            "SELECT coalesce(max(eseq), 0), count(*) FILTER (WHERE topic = 'outcome') "
            "FROM outbox"
        ).fetchone()
    finally:
        db.close()
    return int(row[0]), int(row[1])


def croupier(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args], capture_output=True, text=True, timeout=300
    )


def query(url: str, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        rows: list[tuple[Any, ...]] = conn.execute(sql.encode(), params or None).fetchall()
        return rows


def wait_until(check: Any, timeout: float, what: str, every: float = 0.25) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
