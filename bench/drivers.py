"""python -m bench drivers [--rounds N] [--seed S] [--cheat-rate R]

Bet integrity in the simulated table (offline, no broker): false alerts over
honest rounds, and cheats caught over rounds with a cheating player; then
the frame parsers' throughput (the Pi reads 10 load-cell frames a second
per board, so this is headroom, not a limit).
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
import time
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

from controller.config import Config, override
from controller.journal import Store
from drivers.loadcell import frame as lc
from drivers.serial.lines import Framer, Line, decode
from sim.runner import build

INTEGRITY = ("late_bet", "pinched_bet")


Caught = tuple[Any, ...]  # (round, kind, box, amount)


def play(rounds: int, seed: int, cheat_rate: float) -> tuple[list[Caught], list[Caught], float]:
    with tempfile.TemporaryDirectory() as tmp:
        config = override(
            Config(),
            "bench",
            table={"id": "bench"},
            state={"dir": Path(tmp), "fsync": False},
            sim={"rounds": rounds, "speed": "max", "seed": seed, "cheat_rate": cheat_rate},
        )
        run = build(config, offline=True)
        started = time.perf_counter()
        run.service.run()
        took = time.perf_counter() - started
        store = Store(Path(tmp), fsync=False)
        try:
            rows = store.rows_from(1, 10_000_000)
        finally:
            store.close()
    alerts = [json.loads(r.payload) for r in rows if r.topic == "alerts"]
    caught = [
        (a["round"], a["kind"], a["box"], Decimal(a["amount"]))
        for a in alerts
        if a["kind"] in INTEGRITY
    ]
    return list(run.bots.cheats), caught, took


def parsers(n: int = 50_000) -> float:
    data = b"".join(lc.encode_frame(i % 0x10000, [81_000 + i % 7] * 7) for i in range(n))
    started = time.perf_counter()
    framer = Framer()
    count = 0
    for chunk in range(0, len(data), 4096):
        for item in framer.feed(data[chunk : chunk + 4096]):
            if isinstance(item, bytes):
                line = decode(item)
                if isinstance(line, Line) and isinstance(lc.parse(line), lc.Frame):
                    count += 1
    assert count == n
    return n / (time.perf_counter() - started)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bench drivers")
    p.add_argument("--rounds", type=int, default=1000)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--cheat-rate", type=float, default=0.3)
    args = p.parse_args(argv)
    logging.getLogger("croupier").setLevel(logging.ERROR)  # the alerts are counted, not logged
    cheats, caught, took = play(args.rounds, args.seed, 0.0)
    print(
        f"honest: {args.rounds} rounds in {took:.1f} s, integrity alerts: {len(caught)} "
        f"(false alert rate {len(caught) / args.rounds:.4f} per round)"
    )
    cheats, caught, took = play(args.rounds, args.seed, args.cheat_rate)
    kinds = Counter(str(c[1]) for c in cheats)
    hit = len(set(cheats) & set(caught))
    false = len(set(caught) - set(cheats))
    print(
        f"cheating (rate {args.cheat_rate}): {len(cheats)} cheats "
        f"({kinds['late_bet']} past-posts, {kinds['pinched_bet']} pinches) in "
        f"{args.rounds} rounds: caught {hit} ({hit / max(1, len(cheats)):.1%}), "
        f"missed {len(cheats) - hit}, false alerts {false}"
    )
    print(f"load-cell frames parsed (7 channels): {parsers():,.0f} per second")
    return 0
