"""A throwaway PostgreSQL cluster: Debian's `postgresql` package (`.ci/run`
installs it), made with its `initdb` in a directory of the caller's and run with
`pg_ctl` on a free port, as the `postgres` user when the caller is root
(PostgreSQL refuses to run as root). For the floor's tests and its benchmark;
no pytest here."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


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

    def start(self, fsync: bool = True) -> None:
        options = (
            f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 -c max_connections=50"
            + ("" if fsync else " -c fsync=off -c full_page_writes=off")
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w",
                  "start")  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        """`immediate`: the server is killed, and recovers from its WAL at the next start."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def create(self, db: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {db}".encode())
            conn.execute(f"CREATE DATABASE {db}".encode())
        return self.url(db)




class Unavailable(RuntimeError):
    """No PostgreSQL to run here; the text says why."""


@contextlib.contextmanager
def throwaway(fsync: bool = True) -> Iterator[Postgres]:
    """A new cluster in a temporary directory, started; removed afterwards."""
    bindir = pg_bindir()
    if bindir is None:
        raise Unavailable("PostgreSQL is not installed (Debian package postgresql; .ci/run "
                          "installs it)")  # fmt: skip
    user = None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            raise Unavailable("running as root with no `postgres` user to run PostgreSQL as "
                              "(the Debian package makes it)") from None  # fmt: skip
        user = "postgres"
    base = Path(tempfile.mkdtemp(prefix="croupier-pg-"))
    if user is not None:
        shutil.chown(base, user=user)
    pg = Postgres(bindir, base, user)
    try:
        pg.init()
        pg.start(fsync=fsync)
        yield pg
    finally:
        with contextlib.suppress(Exception):
            pg.stop("immediate")
        shutil.rmtree(base, ignore_errors=True)
