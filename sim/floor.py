"""A floor of simulated tables: `croupier sim --tables N` on one machine.

N tables (each the whole `croupier sim` table: service, journal, bots) run as
threads in a few worker processes (`--processes`, default one per core), all
against one broker. Table i is `<table id>-<i>` with its own state dir under
the state dir and seed `seed + i`, so a floor is as reproducible as one table
and each table's journal can be checked on its own (`croupier audit`,
`croupier floor check`).

With `stay`, a table that has dealt its rounds stays online (as a real table
does) instead of exiting: a recorder can still ask it for a gap with
cmd/republish. The floor then runs until it is stopped (SIGTERM, Ctrl-C).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from controller.config import Config, override

if TYPE_CHECKING:
    from sim.runner import SimRun

log = logging.getLogger("croupier.floor")


def table_ids(base: str, tables: int) -> list[str]:
    width = max(2, len(str(tables)))
    return [f"{base}-{i:0{width}d}" for i in range(1, tables + 1)]


def table_config(config: Config, index: int, table: str) -> Config:
    """Table `index` (from 1) of the floor: its own id, state dir and seed."""
    return override(
        config,
        f"floor table {table}",
        table={"id": table},
        state={"dir": Path(config.state.dir) / table},
        sim={"seed": config.sim.seed + index},
        mqtt={"client_id": None},
    )


def run_floor(config: Config, tables: int, processes: int | None, stay: bool) -> int:
    """Run the floor until every table is done (or, with `stay`, until stopped)."""
    if config.mqtt.broker is None:
        raise ValueError(
            "a floor needs --broker (a mosquitto): the embedded broker is for one table"
        )
    workers = max(1, min(tables, processes or os.cpu_count() or 1))
    ids = table_ids(config.table.id, tables)
    chunks = [list(range(w, tables, workers)) for w in range(workers)]
    context = multiprocessing.get_context("spawn")  # no paho or SQLite state forked
    procs = [
        context.Process(target=_worker, args=(config, [(i + 1, ids[i]) for i in chunk], stay))
        for chunk in chunks
    ]
    for p in procs:
        p.start()

    def forward(signum: int, frame: object) -> None:
        for p in procs:
            if p.pid is not None and p.is_alive():
                os.kill(p.pid, signal.SIGTERM)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        for p in procs:
            p.join()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    codes = [p.exitcode or 0 for p in procs]
    return max(codes, key=abs)


def _worker(config: Config, tables: list[tuple[int, str]], stay: bool) -> None:
    from controller import logs
    from sim.runner import build

    logs.setup(config.log.level, config.log.file)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent forwards a Ctrl-C as SIGTERM
    runs = []
    for index, table in tables:
        run = build(table_config(config, index, table))
        if stay:
            run.bots.on_done = None  # dealt its rounds: stays online until stopped
        runs.append(run)
    failed: list[str] = []

    def serve(table: str, run: SimRun) -> None:
        try:
            run.service.run()
        except Exception as exc:  # the other tables go on; the floor exits non-zero
            log.exception("table %s stopped", table)
            failed.append(f"{table}: {exc}")

    threads = [
        threading.Thread(target=serve, args=(table, run), name=table)
        for (_, table), run in zip(tables, runs, strict=True)
    ]
    def stop(signum: int, frame: object) -> None:
        for r in runs:
            r.service.stop()

    signal.signal(signal.SIGTERM, stop)
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.5)  # not a bare join: the signal handler runs between waits
    if failed:
        raise SystemExit(1)
