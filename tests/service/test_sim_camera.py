"""`croupier sim --camera`: the simulated shoe's cards rendered as camera
frames and read by the real reader; the service gets only what was read.
Run as the command a user types, on a real broker, read by a display."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from controller.config import Config, override
from controller.journal import Store
from drivers.interfaces import CardRead
from sim.runner import build
from tests.service.conftest import BrokerProcess, Subscriber, broker, sim_command, subscribe

__all__ = ["broker", "subscribe"]

LINE = re.compile(
    r"^camera: dealt (\d+) read (\d+) unreadable (\d+) misread (\d+) missed (\d+) "
    r"latency p50 (\d+) ms p99 (\d+) ms",
    re.M,
)


def test_sim_camera_deals_what_the_reader_read_and_says_how_it_read(
    broker: BrokerProcess, subscribe: Callable[..., Subscriber], tmp_path: Path
) -> None:
    sub = subscribe(broker.port, "simcam")
    done = subprocess.run(
        sim_command(
            "--camera", "--deck", "tests/data/decks/npm-cardsjs", "--rounds", "3",
            "--speed", "max", "--broker", broker.url, "--table", "simcam",
            "--state-dir", str(tmp_path / "state"), "--seed", "4",
        ),
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = LINE.search(done.stdout)
    assert found, done.stdout
    dealt, read, unreadable, misread, missed, p50, p99 = map(int, found.groups())
    assert dealt == read + unreadable + missed and misread == 0 and missed == 0
    assert dealt >= 3 * 5 and 0 < p50 <= p99
    sub.wait_for(lambda: len(sub.on("outcome")) >= 3, 30, "three outcomes")
    cards = [m.payload for m in sub.on("events") if m.payload["type"] == "card_dealt"]
    assert len(cards) == dealt  # each card read, or keyed in, once


def test_the_service_gets_only_what_the_reader_read(tmp_path: Path) -> None:
    config = override(
        Config(),
        "test",
        table={"id": "simcam", "rules": "fr-2007"},
        state={"dir": tmp_path, "fsync": False},
        sim={"rounds": 2, "speed": "max", "seed": 9, "camera": True},
    )
    sim = build(config, offline=True)
    sim.service.run()
    store = Store(tmp_path, fsync=False)
    try:
        from controller.records import decode

        records = [decode(data) for _, data in store.records()]
    finally:
        store.close()
    reads = [r for r in records if isinstance(r, CardRead)]
    assert reads and all(r.source == "camera" and r.frame is not None for r in reads)
    assert sim.camera is not None
    tally = sim.camera.tally
    assert len(reads) == tally.read + tally.unreadable + tally.misread
    assert tally.dealt == tally.read + tally.unreadable + tally.missed + tally.misread
    played = [json.loads(r.payload) for r in Store(tmp_path, False).rows_from(1, 10**6)
              if r.topic == "outcome"]
    assert len(played) == 2


def test_sim_refuses_a_deck_folder_it_cannot_use(tmp_path: Path) -> None:
    (tmp_path / "AS.png").write_bytes(b"")
    done = subprocess.run(
        sim_command("--camera", "--deck", str(tmp_path), "--rounds", "1", "--speed", "max",
                    "--state-dir", str(tmp_path / "state"), "--port", "0", "--ws-port", "0"),
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2
    assert "sim deck:" in done.stderr and "missing" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_tally_counts_as_the_table_takes_a_read() -> None:
    from sim.camera.tally import CameraTally

    t = CameraTally(min_confidence=0.9)
    t.count("7H", [("7H", 0.95)])
    t.count("7H", [("7H", 0.6)])  # named, but too unsure for the table: a key-in prompt
    t.count("7H", [(None, 0.0)])
    t.count("7H", [("8H", 0.95)])
    t.count("7H", [])
    t.count("7H", [("7H", 0.99), ("5C", 0.99)])  # a card the shoe never gave
    assert (t.read, t.unreadable, t.misread, t.missed) == (2, 2, 2, 1)
