"""A throwaway PostgreSQL cluster and a mosquitto for the floor's tests.

PostgreSQL is Debian's `postgresql` package (`.ci/run` installs it): the
cluster is made with its `initdb` in a temporary directory and run with
`pg_ctl` on a free port, as the `postgres` user when the tests run as root
(PostgreSQL refuses to run as root). Where it is missing the tests skip and
say why. The cluster runs with fsync off: the tests crash processes, not the
machine, and a crashed server still recovers from its WAL in the page cache.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.service.conftest import BrokerProcess, free_port, mosquitto_path

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (the floor extra)")


def pg_bindir() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(os.path.realpath(found)).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version)
    return Path(candidates[-1]).parent if candidates else None


def _version(path: str) -> float:
    try:
        return float(Path(path).parts[-3])
    except ValueError:
        return 0.0


class Postgres:
    """One cluster; `url(db)` for a database in it. `stop`/`start` restart it."""

    def __init__(self, bindir: Path, base: Path, user: str | None) -> None:
        self.bindir = bindir
        self.base = base
        self.data = base / "data"
        self.user = user  # run the server as this user (root cannot)
        self.port = free_port()
        self.log = base / "postgres.log"

    def _run(self, *args: str) -> None:
        done = subprocess.run(
            [str(self.bindir / args[0]), *args[1:]],
            capture_output=True,
            text=True,
            user=self.user,
            check=False,
            timeout=60,
        )
        if done.returncode != 0:
            log = self.log.read_text()[-2000:] if self.log.exists() else ""
            raise AssertionError(f"{args[0]} failed: {done.stderr}{done.stdout}\n{log}")

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust",
                  "-E", "UTF8", "--no-sync")  # fmt: skip

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c full_page_writes=off -c max_connections=50"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w",
                  "start")  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        """`immediate`: the server is killed, and recovers from its WAL at the next start."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def create(self, db: str) -> str:
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {db}".encode())
            conn.execute(f"CREATE DATABASE {db}".encode())
        return self.url(db)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    bindir = pg_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (Debian package postgresql; .ci/run installs "
                    "it): the floor's database tests are skipped")  # fmt: skip
    user = None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root with no `postgres` user to run PostgreSQL as "
                        "(the Debian package makes it): the floor's database tests are skipped")
        user = "postgres"
    base = Path(tempfile.mkdtemp(prefix="croupier-pg-"))
    if user is not None:
        shutil.chown(base, user=user)
    pg = Postgres(bindir, base, user)
    try:
        pg.init()
        pg.start()
        yield pg
    finally:
        with contextlib.suppress(Exception):
            pg.stop("immediate")
        shutil.rmtree(base, ignore_errors=True)


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
