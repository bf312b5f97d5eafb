"""The recorder's ingest rate: messages per second, sustained, into PostgreSQL.

    python -m bench floor [--tables 60] [--rounds 40] [--inflight 20 1000]

A real mosquitto and a throwaway PostgreSQL cluster (fsync on: every commit
durable, as on a floor server). The stream is real: `croupier sim --tables 4`
deals `--rounds` rounds each, and their journals are replayed (`croupier audit`)
into every events, outcome and alerts message, plus a `state` message (about
1.9 KB, as the tables' snapshots) after two events in three: the mix a recorder
gets from a table dealing at a real pace. Copies under other table ids make
`--tables` tables.

The recorder is started once (so the broker holds a session for it), stopped,
and every message is published while it is away; then it is started again and
drains the broker's queue as fast as it can: messages over the time from its
start to the last row committed is its sustained rate. Its resident memory is
read every second meanwhile. Run once per broker in-flight limit
(`max_inflight_messages`: 20 is mosquitto's default; the recorder acknowledges
only after a commit, so the limit bounds its batches).
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from tests.floor.cluster import free_port, throwaway

SOURCES = 4  # simulated tables whose streams are copied


def mosquitto(workdir: Path, inflight: int) -> tuple[subprocess.Popen[bytes], int]:
    exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    port = free_port()
    conf = workdir / f"mosquitto-{inflight}.conf"
    conf.write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n"
        f"max_inflight_messages {inflight}\nmax_queued_messages 0\nmax_queued_bytes 0\n"
    )
    proc = subprocess.Popen([exe, "-c", str(conf)], stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    return proc, port


def stream(workdir: Path, port: int, rounds: int) -> list[list[tuple[str, dict[str, Any]]]]:
    """The simulated tables' stream messages, per table, from their journals."""
    from controller.audit import replay

    state = workdir / "floor"
    subprocess.run(
        [sys.executable, "-m", "controller", "sim", "--tables", str(SOURCES), "--rounds",
         str(rounds), "--speed", "max", "--no-fsync", "--table", "S", "--broker",
         f"mqtt://127.0.0.1:{port}", "--state-dir", str(state), "--log-level", "error"],
        check=True,
    )  # fmt: skip
    kept = ("events", "outcome", "alerts")
    return [[m for m in replay(d) if m[0] in kept] for d in sorted(state.iterdir())]


def copies(tables: int, sources: list[list[tuple[str, dict[str, Any]]]]) -> list[tuple[str, str]]:
    """(topic, payload) for `tables` tables, interleaved as a floor publishes them."""
    pad = "x" * 1800
    per_table = []
    for i in range(tables):
        name = f"B-{i:03d}"
        out = []
        for topic, payload in sources[i % len(sources)]:
            body = dict(payload, table=name)
            for key in ("event_id", "outcome_id", "alert_id"):
                if key in body:
                    body[key] = name + ":" + body[key].split(":", 1)[1]
            out.append((f"croupier/v1/{name}/{topic}", json.dumps(body)))
            if topic == "events" and body["seq"] % 3:
                state = {"table": name, "seq": body["seq"], "phase": "x", "pad": pad}
                out.append((f"croupier/v1/{name}/state", json.dumps(state)))
        per_table.append(out)
    mixed = []
    longest = max(len(t) for t in per_table)
    for n in range(longest):
        mixed += [t[n] for t in per_table if n < len(t)]
    return mixed


def publish(port: int, messages: list[tuple[str, str]]) -> float:
    acked = 0
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-floor-publisher")

    def on_publish(*_: Any) -> None:
        nonlocal acked
        acked += 1

    client.on_publish = on_publish
    client.max_inflight_messages_set(1000)
    client.max_queued_messages_set(0)
    client.connect("127.0.0.1", port)
    client.loop_start()
    t0 = time.monotonic()
    for sent, (topic, payload) in enumerate(messages):
        # paho numbers messages with 16 bits: more than 65,535 waiting would reuse ids.
        while sent - acked > 20000:
            time.sleep(0.01)
        client.publish(topic, payload, qos=1)
    deadline = time.monotonic() + 600
    while acked < len(messages):
        if time.monotonic() > deadline:
            raise RuntimeError(f"the broker acknowledged {acked} of {len(messages)} messages")
        time.sleep(0.05)
    took = time.monotonic() - t0
    client.disconnect()
    client.loop_stop()
    return took


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def recorder(port: int, db: str, log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller", "recorder", "--broker", f"mqtt://127.0.0.1:{port}",
         "--db", db, "--client-id", "bench-recorder", "--log-level", "warning"],
        stderr=open(log, "ab"),
    )  # fmt: skip


def rows(db: str) -> int:
    import psycopg

    with psycopg.connect(db) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM floor_events) + (SELECT count(*) FROM floor_outcomes)"
            " + (SELECT count(*) FROM floor_alerts)"
        ).fetchone()
    return int(row[0]) if row else 0


def database_bytes(db: str) -> int:
    import psycopg

    with psycopg.connect(db) as conn:
        row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
    return int(row[0]) if row else 0


def run_once(
    pg: Any, workdir: Path, inflight: int, messages: list[tuple[str, str]], written: int
) -> dict[str, Any]:
    broker, port = mosquitto(workdir, inflight)
    db = pg.create(f"bench_{inflight}")
    log = workdir / f"recorder-{inflight}.log"
    try:
        first = recorder(port, db, log)
        time.sleep(3)  # connected and subscribed: the broker now keeps its session
        first.terminate()
        first.wait()
        published = publish(port, messages)
        t0 = time.monotonic()
        rec = recorder(port, db, log)
        samples: list[tuple[float, int, float]] = []
        while True:
            time.sleep(1.0)
            n = rows(db)
            samples.append((time.monotonic() - t0, n, rss_mb(rec.pid)))
            if n >= written or rec.poll() is not None or time.monotonic() - t0 > 1800:
                break
        rec.terminate()
        rec.wait()
        size = database_bytes(db)
    finally:
        broker.terminate()
        broker.wait()
    took, done = samples[-1][0], samples[-1][1]
    rates = [
        (b[1] - a[1]) / (b[0] - a[0]) for a, b in itertools.pairwise(samples)
    ]
    memory = [s[2] for s in samples]
    quarters = [memory[min(len(memory) - 1, len(memory) * q // 4)] for q in (1, 2, 3, 4)]
    start_t, start_n = samples[0][0], samples[0][1]  # after the recorder's start-up
    return {
        "inflight": inflight,
        "messages": len(messages),
        "rows": done,
        "complete": done == written,
        "seconds": round(took, 1),
        "messages_per_s": round(len(messages) / took),
        "rows_per_s": round(done / took),
        "rows_per_s_after_first_s": round((done - start_n) / max(took - start_t, 1e-9)),
        "rows_per_s_min_1s_window": round(min(rates[1:-1] or rates)),
        "rss_mb_at_quarters": [round(m, 1) for m in quarters],
        "rss_mb_max": round(max(memory), 1),
        "publish_s": round(published, 1),
        "database_bytes": size,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench floor")
    parser.add_argument("--tables", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--inflight", type=int, nargs="+", default=[20, 1000])
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="bench-floor-"))
    try:
        with throwaway(fsync=True) as pg:
            broker, port = mosquitto(workdir, 20)
            try:
                sources = stream(workdir, port, args.rounds)
            finally:
                broker.terminate()
                broker.wait()
            messages = copies(args.tables, sources)
            written = sum(1 for t, _ in messages if not t.endswith("/state"))
            rounds = args.tables * args.rounds
            per_round = len(messages) / rounds
            floor = 500 * 60 * per_round / 3600  # 500 tables at 60 rounds an hour
            print(json.dumps({"tables": args.tables, "rounds": rounds, "messages": len(messages),
                              "messages_per_round": round(per_round, 1),
                              "floor_500_tables_messages_per_s": round(floor)}),
                  flush=True)  # fmt: skip
            for inflight in args.inflight:
                print(json.dumps(run_once(pg, workdir, inflight, messages, written)), flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
