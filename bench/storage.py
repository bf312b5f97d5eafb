"""What a round costs on the table's disk: `croupier sim` plays N rounds at full speed
into a fresh state dir, then the database is taken apart by table and topic.

    python -m bench storage [--rounds N] [--seed S] [--prune]

Bytes are SQLite's own accounting (the `dbstat` virtual table: pages of each table
and index, overhead included) where the build has it, and the stored values' lengths
otherwise; both per settled round.

--prune: then retention on that state, 91 days later with every message acknowledged
(controller.retention), fsync on: how long the table's start (the replay) takes before
and after, and each prune step (the loop's pause between two rounds).
"""

from __future__ import annotations

import argparse
import socket
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def play(state: Path, rounds: int, seed: int) -> None:
    subprocess.run(
        [sys.executable, "-m", "controller", "sim", "--rounds", str(rounds), "--seed", str(seed),
         "--speed", "max", "--no-view", "--no-fsync", "--state-dir", str(state),
         "--port", str(free_port()), "--ws-port", "0", "--log-level", "error"],
        check=True, timeout=3600,
    )


def measure(state: Path, rounds: int) -> list[tuple[str, float]]:
    db = sqlite3.connect(state / "table.db")
    rows: list[tuple[str, float]] = [("table.db (whole file)", (state / "table.db").stat().st_size)]
    try:
        for name, size in db.execute(
            "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"
        ):
            rows.append((f"pages of {name}", size))
    except sqlite3.OperationalError:
        pass  # no dbstat in this SQLite build
    record, digest = db.execute(
        "SELECT sum(length(record)), sum(length(hash)) FROM journal"
    ).fetchone()
    rows.append(("journal: record text", record))
    rows.append(("journal: hash", digest))
    for topic, size in db.execute(
        "SELECT topic, sum(length(payload)) FROM outbox GROUP BY topic ORDER BY 2 DESC"
    ):
        rows.append((f"outbox: {topic} payloads", size))
    db.close()
    return [(what, size / rounds) for what, size in rows]


def prune(state: Path) -> None:
    import time

    from controller.config import Config, override
    from controller.retention import DAY
    from controller.service import Service
    from drivers.interfaces import DriverSet

    class Idle:
        def start(self, sink: object) -> None:
            pass

        def stop(self) -> None:
            pass

    db = sqlite3.connect(state / "table.db")
    db.execute("UPDATE outbox SET sent = 1")  # as the broker's acknowledgements mark them
    db.commit()
    table = db.execute("SELECT value FROM meta WHERE key = 'table'").fetchone()[0]
    db.close()
    config = override(Config(), "bench", table={"id": table}, state={"dir": state})
    later = time.time() + 91 * DAY
    idle = Idle()

    def start() -> tuple[Service, float]:
        began = time.perf_counter()
        service = Service(config, DriverSet(idle, idle, idle), None, clock=lambda: later)
        return service, time.perf_counter() - began

    service, took = start()
    print(f"start, {service.store.last_seq:,} records: {took:.2f} s")
    try:
        while True:
            first, began = service.store.first_seq() or 0, time.perf_counter()
            service._retain()
            pruned = (service.store.first_seq() or 0) - first
            if pruned <= 0:
                break
            print(f"  prune {pruned:,} records: {(time.perf_counter() - began) * 1000:.1f} ms")
    finally:
        service.store.close()
    service, took = start()
    print(f"start after pruning, {service.table.rounds} rounds: {took:.2f} s")
    service.store.close()


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bench storage", description=__doc__)
    p.add_argument("--rounds", type=int, default=500)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--prune", action="store_true", help="then time retention on it")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="croupier-storage-") as tmp:
        state = Path(tmp) / "state"
        play(state, args.rounds, args.seed)
        figures = measure(state, args.rounds)
        if args.prune:
            prune(state)
    print(f"{args.rounds} rounds, seed {args.seed}: bytes per round")
    for what, per_round in figures:
        print(f"  {what:36} {per_round:10,.0f}")
    return 0
