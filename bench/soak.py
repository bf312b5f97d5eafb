"""Soak: `croupier sim --speed max` for thousands of rounds, with the table's memory
(RSS) and open file descriptors sampled as it goes. Both must stay flat: a table
runs for months.

    python -m bench soak [--rounds 5000] [--rules be-casino] [--no-fsync] [--every 2]

The table publishes to Debian's mosquitto (started on a free port), not to the
embedded amqtt broker: amqtt's own memory grows over long runs (FIELD-NOTES.md),
and it would run inside the measured process. A display subscribes to every
topic meanwhile, as on the floor. Samples before round 200 are the warm-up
(imports, caches, SQLite's page cache filling) and are left out of the slope.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from bench.service import Broker, sim_command

WARM_UP = 200  # rounds


@dataclass(frozen=True)
class Sample:
    seconds: float
    round: int
    rss_kb: int
    fds: int


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


class Display:
    """Subscribes to the table's every topic; knows the round the table is at."""

    def __init__(self, port: int, table: str) -> None:
        self.round = 0
        self.messages = 0
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2)
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.subscribe(f"croupier/v1/{table}/#", qos=1)
        self.client.loop_start()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        self.messages += 1
        if msg.topic.endswith("/outcome"):
            self.round = max(self.round, json.loads(msg.payload)["round"])

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of y over x."""
    n = len(points)
    if n < 2:
        return 0.0
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0


def soak(rounds: int, rules: str, fsync: bool, every: float, workdir: Path) -> list[Sample]:
    broker = Broker(workdir)
    display = Display(broker.port, "soak")
    command = sim_command(broker.port, rounds, "soak", rules, workdir / "state", fsync)
    samples: list[Sample] = []
    started = time.monotonic()
    proc = subprocess.Popen(command)
    try:
        while proc.poll() is None:
            try:
                samples.append(
                    Sample(
                        time.monotonic() - started,
                        display.round,
                        rss_kb(proc.pid),
                        open_fds(proc.pid),
                    )
                )
            except (FileNotFoundError, ProcessLookupError):
                break  # it just exited
            time.sleep(every)
        if proc.wait() != 0:
            raise SystemExit(f"croupier sim failed ({proc.returncode})")
    finally:
        if proc.poll() is None:
            proc.kill()
        display.close()
        broker.stop()
    return samples


def report(samples: list[Sample], rounds: int, fsync: bool, rules: str) -> str:
    steady = [s for s in samples if s.round >= WARM_UP]
    if len(steady) < 3:
        return "too few samples after the warm-up: run more rounds"
    first, last = steady[0], steady[-1]
    rss = slope([(s.round, s.rss_kb) for s in steady]) * 1000 / 1024  # MB per 1000 rounds
    fds = slope([(s.round, s.fds) for s in steady]) * 1000
    seconds = samples[-1].seconds
    lines = [
        f"{rounds} rounds of {rules}, --speed max, fsync {'on' if fsync else 'off'}, "
        f"mosquitto: {seconds:.0f} s ({rounds / seconds:.1f} rounds/s), "
        f"{len(samples)} samples",
        "",
        f"| | at round {first.round} (after warm-up) | at round {last.round} | max "
        "| slope per 1000 rounds |",
        "|---|---|---|---|---|",
        f"| RSS (MB) | {first.rss_kb / 1024:.1f} | {last.rss_kb / 1024:.1f} | "
        f"{max(s.rss_kb for s in steady) / 1024:.1f} | {rss:+.2f} MB |",
        f"| open fds | {first.fds} | {last.fds} | {max(s.fds for s in steady)} | {fds:+.2f} |",
        "",
        f"warm-up (rounds 0-{WARM_UP}): RSS {samples[0].rss_kb / 1024:.1f} -> "
        f"{first.rss_kb / 1024:.1f} MB, fds {samples[0].fds} -> {first.fds}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench soak")
    parser.add_argument("--rounds", type=int, default=5000)
    parser.add_argument("--rules", default="be-casino")
    parser.add_argument("--no-fsync", action="store_true")
    parser.add_argument("--every", type=float, default=2.0, help="seconds between samples")
    parser.add_argument("--keep", type=Path, help="keep the state dir here (for audit verify)")
    parser.add_argument("--samples", type=Path, help="write every sample here (JSON lines)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        samples = soak(args.rounds, args.rules, not args.no_fsync, args.every, workdir)
        print(report(samples, args.rounds, not args.no_fsync, args.rules))
        if args.samples:
            with args.samples.open("w") as f:
                for s in samples:
                    f.write(json.dumps(s.__dict__) + "\n")
        if args.keep:
            import shutil

            shutil.copytree(workdir / "state", args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
