"""Bet integrity end to end in `croupier sim`: a cheating player is caught with
`late_bet` / `pinched_bet` alerts on MQTT, and honest play raises none.

The cheating player (sim.bots, `--cheat-rate`) adds chips to a stake or takes
them off while another box plays; the honest players put their doubles on
the spot before the dealer's button and take their winnings back before
the next close, so the dealer's own chip movements are exercised too.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from controller.config import Config, override
from controller.journal import Store
from sim.runner import build
from tests.service.conftest import BrokerProcess, Subscriber, broker, start_sim, subscribe

__all__ = ["broker", "subscribe"]  # fixtures from the service tests
INTEGRITY = ("late_bet", "pinched_bet")
PLAYED: dict[Path, Counter[str]] = {}  # event types per state dir


def play(
    state: Path, rounds: int, seed: int, cheat_rate: float, rules: str = "be-casino"
) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]]]:
    """Play offline; (every alert stored, the cheats the bots made)."""
    config = override(
        Config(),
        "test",
        table={"id": "cheat", "rules": rules},
        state={"dir": state, "fsync": False},
        sim={"rounds": rounds, "speed": "max", "seed": seed, "cheat_rate": cheat_rate},
    )
    run = build(config, offline=True)
    run.service.run()
    store = Store(state, fsync=False)
    try:
        rows = store.rows_from(1, 10_000_000)
    finally:
        store.close()
    alerts = [json.loads(r.payload) for r in rows if r.topic == "alerts"]
    PLAYED[state] = Counter(json.loads(r.payload)["type"] for r in rows if r.topic == "events")
    return alerts, run.bots.cheats


def caught(alerts: list[dict[str, Any]]) -> list[tuple[int, str, int, Decimal]]:
    return [
        (a["round"], a["kind"], a["box"], Decimal(a["amount"]))
        for a in alerts
        if a["kind"] in INTEGRITY
    ]


def test_every_cheat_is_caught_and_nothing_else(tmp_path: Path) -> None:
    # 1,000 rounds reach the rare paths too (a bust undone by a mistaken-card call).
    alerts, cheats = play(tmp_path, rounds=1000, seed=5, cheat_rate=0.3)
    assert len(cheats) >= 200
    assert {c[1] for c in cheats} == set(INTEGRITY)
    assert caught(alerts) == cheats


def test_no_false_alert_over_1000_honest_rounds(tmp_path: Path) -> None:
    started = time.monotonic()
    alerts, cheats = play(tmp_path, rounds=1000, seed=5, cheat_rate=0.0)
    assert cheats == []
    assert caught(alerts) == []
    # The dealer's own chip movements were exercised: doubles put on the spot before the
    # button, splits, surrenders and busts settled at once, winnings taken back.
    played = PLAYED[tmp_path]
    assert played["round_settled"] == 1000
    for kind in ("doubled", "split", "surrendered", "bust"):
        assert played[kind] > 20, (kind, played)
    print(
        f"1000 honest rounds in {time.monotonic() - started:.1f} s, "
        f"{len(alerts)} alerts of other kinds"
    )


def test_cheats_are_caught_on_mqtt(
    broker: BrokerProcess, subscribe: Callable[..., Subscriber], tmp_path: Path
) -> None:
    _, cheats = play(tmp_path / "offline", rounds=60, seed=3, cheat_rate=0.3)
    sub = subscribe(broker.port, "cheat")
    proc = start_sim(
        "--broker",
        broker.url,
        "--table",
        "cheat",
        "--rounds",
        "60",
        "--speed",
        "max",
        "--seed",
        "3",
        "--cheat-rate",
        "0.3",
        "--state-dir",
        str(tmp_path / "live"),
        log=tmp_path / "sim.log",
    )
    try:
        assert proc.wait(timeout=240) == 0, (tmp_path / "sim.log").read_text()[-2000:]
    finally:
        if proc.poll() is None:
            proc.kill()
    sub.wait_for(
        lambda: len([m for m in sub.on("alerts") if m.payload["kind"] in INTEGRITY]) >= len(cheats),
        30,
        "the integrity alerts",
    )
    on_mqtt = [m.payload for m in sub.on("alerts")]
    assert cheats and caught(on_mqtt) == cheats
    late = next(a for a in on_mqtt if a["kind"] == "late_bet")
    assert "past-posting" in late["message"] and late["amount"] and late["stake"]
