"""Service speed: rounds per second of `croupier sim --speed max`, and the
latency from a card record entering the service to its `events` message
reaching a subscriber over loopback MQTT, journal durability (fsync) on.

    python -m bench service [--rate 1000] [--seconds 10] [--rounds 300] [--no-fsync]
                            [--slow-disk MS [--serial-disk]]

Uses Debian's mosquitto (started on a free port with a temporary config);
without it, the embedded amqtt broker, and says so.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import multiprocessing.queues
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from bench import slowdisk
from controller.config import Config, override
from controller.records import DRIVER_RECORDS, Record
from controller.service import Service
from drivers.interfaces import CardRead, DriverSet, Sink
from sim.runner import build

RULES = "be-casino"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Broker:
    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        exe = shutil.which("mosquitto") or (
            "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None
        )
        self.kind = "mosquitto 2.x" if exe else "embedded amqtt (mosquitto not installed)"
        if exe:
            conf = workdir / "mosquitto.conf"
            conf.write_text(
                f"listener {self.port} 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n"
            )
            command = [exe, "-c", str(conf)]
        else:
            command = [sys.executable, "-m", "controller.broker", str(self.port)]
        self.proc = subprocess.Popen(command, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise RuntimeError("the broker did not start")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait()


# ------------------------------------------------------------------ the disk
def fsync_probe(workdir: Path, commits: int = 500) -> tuple[float, float]:
    """p50 and p99 (ms) of a one-row SQLite commit with fsync on this disk, now: the floor
    under every latency figure with durability on."""
    import sqlite3

    db = sqlite3.connect(workdir / "probe.db", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    times = []
    for _ in range(commits):
        t0 = time.perf_counter()
        db.execute("INSERT INTO t (v) VALUES ('x')")
        times.append((time.perf_counter() - t0) * 1000)
    db.close()
    times.sort()
    return statistics.median(times), times[int(commits * 0.99) - 1]


# ----------------------------------------------------------- rounds per second
def sim_command(
    port: int, rounds: int, table: str, rules: str, state: Path, fsync: bool
) -> list[str]:
    """`croupier sim --speed max` on a broker at `port`, as a user would type it."""
    return [
        sys.executable, "-m", "controller", "sim", "--no-view", "--speed", "max",
        "--rounds", str(rounds), "--seed", "1", "--table", table, "--rules", rules,
        "--broker", f"mqtt://127.0.0.1:{port}", "--state-dir", str(state),
        "--log-level", "error", *([] if fsync else ["--no-fsync"]),
    ]  # fmt: skip


def sim_rate(broker: Broker, rounds: int, fsync: bool, workdir: Path) -> float:
    state = workdir / f"sim-{fsync}"
    command = sim_command(broker.port, rounds, "bench", RULES, state, fsync)
    started = time.perf_counter()
    subprocess.run(command, check=True)
    return rounds / (time.perf_counter() - started)


# ------------------------------------------------------------------- latency
def recorded_records(count: int, workdir: Path) -> list[Record]:
    """What the simulated drivers send over enough rounds, recorded offline (valid input)."""
    config = override(
        Config(),
        "bench",
        table={"id": "rec", "rules": RULES},
        state={"dir": workdir / "rec", "fsync": False},
        sim={"rounds": count // 12, "speed": "max", "seed": 9, "unreadable_rate": 0.0},
    )
    sim = build(config, offline=True)
    records: list[Record] = []
    put = sim.service.put

    def record(item: Any) -> None:
        if not isinstance(item, DRIVER_RECORDS):
            return
        records.append(item)
        put(item)

    sim.service.put = record  # type: ignore[method-assign]
    sim.service.run()
    return records[:count]


class Feeder:
    """A driver that hands recorded records to the service at a fixed rate (open loop)."""

    def __init__(self, records: list[Record], rate: float) -> None:
        self.records = records
        self.rate = rate
        self.entered: list[float] = [0.0] * len(records)
        self.sink: Sink | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.go = threading.Event()

    def start(self, sink: Sink) -> None:
        self.sink = sink
        self.thread.start()

    def stop(self) -> None:
        pass

    def _run(self) -> None:
        self.go.wait()
        assert self.sink is not None
        clock = time.perf_counter
        t0 = clock()
        for i, record in enumerate(self.records):
            due = t0 + i / self.rate
            ahead = due - clock()
            if ahead > 0.0002:
                time.sleep(ahead)
            self.entered[i] = clock()
            self.sink(record)  # type: ignore[arg-type]


class Idle:
    def start(self, sink: Sink) -> None:
        pass

    def stop(self) -> None:
        pass


def latency(
    broker: Broker, rate: float, seconds: float, fsync: bool, workdir: Path
) -> dict[str, Any]:
    records = recorded_records(int(rate * seconds), workdir)
    feeder = Feeder(records, rate)
    config = override(
        Config(),
        "bench",
        table={"id": "lat", "rules": RULES},
        state={"dir": workdir / f"lat-{rate}-{fsync}", "fsync": fsync},
        mqtt={"broker": f"mqtt://127.0.0.1:{broker.port}"},
    )
    service = Service(config, DriverSet(feeder, Idle(), Idle()), config_broker(config))
    # The subscriber is a process of its own, as a display is (perf_counter is the
    # system-wide monotonic clock, so its times compare with the feeder's).
    ctx = multiprocessing.get_context("fork")
    results: multiprocessing.queues.SimpleQueue[Any] = ctx.SimpleQueue()
    ready = ctx.Event()
    watcher = ctx.Process(target=subscriber, args=(broker.port, len(records), ready, results))
    watcher.start()
    ready.wait(10)
    runner = threading.Thread(target=service.run, daemon=True)
    runner.start()
    time.sleep(1.0)  # connected, retained topics out
    feeder.go.set()
    arrived, count = results.get()
    watcher.join(10)
    service.stop()
    runner.join(10)
    events = [count]
    cards = [i for i, r in enumerate(records) if isinstance(r, CardRead)]
    lat = sorted((arrived[i + 1] - feeder.entered[i]) * 1000 for i in cards if i + 1 in arrived)
    # Sustained rate: events delivered between the first record offered and the last arrival.
    span = max(arrived.values()) - feeder.entered[0]
    return {
        "rate": rate,
        "records": len(records),
        "events": events[0],
        "seconds": span,
        "cards": len(cards),
        "measured": len(lat),
        "p50": statistics.median(lat),
        "p99": lat[int(len(lat) * 0.99) - 1],
        "max": lat[-1],
    }


def subscriber(port: int, last: int, ready: Any, results: Any) -> None:
    """Runs in its own process: the first arrival time of each journal record's events."""
    arrived: dict[int, float] = {}
    done = threading.Event()
    count = [0]

    def on_message(client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        now = time.perf_counter()
        source = json.loads(msg.payload)["source"]
        count[0] += 1
        arrived.setdefault(source, now)
        if source >= last:
            done.set()

    sub = mqtt.Client(CallbackAPIVersion.VERSION2)
    sub.on_message = on_message
    sub.connect("127.0.0.1", port)
    sub.subscribe("croupier/v1/lat/events", qos=1)
    sub.loop_start()
    time.sleep(0.3)
    ready.set()
    done.wait(600)
    sub.loop_stop()
    results.put((arrived, count[0]))


def config_broker(config: Config) -> Any:
    from controller.config import broker_address

    assert config.mqtt.broker is not None
    return broker_address(config.mqtt.broker)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench service")
    parser.add_argument(
        "--rate",
        type=float,
        nargs="+",
        default=[200.0, 1000.0, 2000.0],
        help="input records per second offered to the service",
    )
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--no-fsync", action="store_true")
    parser.add_argument(
        "--slow-disk",
        type=float,
        metavar="MS",
        help="emulate a slow disk: every fsync returns MS ms later (bench/slowdisk.py)",
    )
    parser.add_argument(
        "--serial-disk",
        action="store_true",
        help="with --slow-disk: the device takes one flush at a time",
    )
    args = parser.parse_args(argv)
    if args.slow_disk is not None and not slowdisk.active():
        again = ["service", *(sys.argv[1:] if argv is None else argv)]
        return slowdisk.rerun(args.slow_disk, args.serial_disk, again)
    fsync = not args.no_fsync
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        broker = Broker(workdir)
        try:
            print(f"broker: {broker.kind}; journal fsync: {'on' if fsync else 'off'}")
            if slowdisk.active():
                print(
                    f"disk: EMULATED, every fsync {args.slow_disk:g} ms slower, flushes "
                    + ("one at a time" if args.serial_disk else "overlapping")
                )
            p50, p99 = fsync_probe(workdir)
            print(
                f"disk now: a one-row SQLite commit with fsync takes p50 {p50:.2f} ms, "
                f"p99 {p99:.2f} ms"
            )
            for durable in (True, False) if fsync else (False,):
                rate = sim_rate(broker, args.rounds, durable, workdir)
                print(
                    f"sim --speed max, {args.rounds} rounds, fsync {'on' if durable else 'off'}: "
                    f"{rate:.1f} rounds/s (start-up included)"
                )
            print(
                f"{'offered/s':>9} {'records':>8} {'events/s':>9} {'cards':>6} "
                f"{'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}"
            )
            for i, offered in enumerate(args.rate):
                r = latency(broker, offered, args.seconds, fsync, workdir / f"run{i}")
                print(
                    f"{r['rate']:>9.0f} {r['records']:>8} {r['events'] / r['seconds']:>9.0f} "
                    f"{r['measured']:>6} {r['p50']:>7.2f} {r['p99']:>7.2f} {r['max']:>7.2f}"
                )
        finally:
            broker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
