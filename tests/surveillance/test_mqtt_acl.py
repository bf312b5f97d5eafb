"""Surveillance over MQTT on the Pi's broker set-up (shipped accounts, roles and ACL, a
real mosquitto): the surveillance account gets the analytics, a display gets none of
them, and no topic a display may read carries a count, the shoe's composition or a
surveillance finding."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.mosquitto import Broker, password, running_broker
from tests.service.conftest import Subscriber, start_sim, subscribe

__all__ = ["subscribe"]
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROUNDS = 50
# Words of the surveillance payloads that no display topic may carry.
SECRET_KEYS = {
    "running",
    "running_seen",
    "true_count",
    "remaining",
    "not_out",
    "burned",
    "deviations",
    "rho",
    "z",
    "shoe_holds",
}
SECRET_KINDS = {"advantage_play", "payout_error", "past_cut_card", "shoe_ended_early"}


@pytest.fixture(scope="module")
def floor_broker() -> Iterator[Broker]:
    with running_broker() as broker:
        yield broker


def keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()


def test_analytics_reach_surveillance_and_never_a_display(
    floor_broker: Broker, tmp_path: Path, subscribe: Callable[..., Subscriber]
) -> None:
    port = floor_broker.tcp
    # Surveillance reads everything; here it listens to its own topics only (every message
    # a subscriber gets is schema-checked, and a slow client's queue overflows).
    eye = subscribe(port, "T1", account=("eye", password("eye")), topics="surveillance/#")
    display = subscribe(port, "T1", account=("pit-display", password("pit-display")))
    config = tmp_path / "table.toml"
    config.write_text(
        "[mqtt]\nsurveillance = true\n[surveillance]\nmetrics_every_s = 1.0\n"
        '[sim]\npayout_error_rate = 0.1\n[sim.players]\n1 = "counter-12"\n2 = "flat"\n'
    )
    proc = start_sim(
        "--config",
        str(config),
        "--rounds",
        str(ROUNDS),
        "--speed",
        "150",
        "--seed",
        "4",
        "--table",
        "T1",
        "--broker",
        f"mqtt://127.0.0.1:{port}",
        "--username",
        "table-T1",
        "--password",
        password("table-T1"),
        "--state-dir",
        str(tmp_path / "state"),
        log=tmp_path / "sim.log",
    )
    try:
        # At a pace the subscribers keep up with (each message is schema-checked): the
        # broker drops what overflows a slow client's queue.
        assert proc.wait(timeout=120) == 0, (tmp_path / "sim.log").read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
    display.wait_for(
        lambda: any(m.payload["round"] == ROUNDS for m in display.on("outcome")),
        20,
        "the last outcome",
    )
    eye.wait_for(lambda: bool(eye.on("surveillance/shoe")), 20, "a shoe report")
    watched = {m.topic for m in eye.messages if m.topic.startswith("surveillance/")}
    assert {
        "surveillance/alerts",
        "surveillance/count",
        "surveillance/players",
        "surveillance/decisions",
        "surveillance/shoe",
        "surveillance/state",
        "surveillance/metrics",
    } <= watched
    kinds = {m.payload["kind"] for m in eye.on("surveillance/alerts")}
    assert {"advantage_play", "payout_error"} <= kinds
    flagged = [
        m.payload for m in eye.on("surveillance/alerts") if m.payload["kind"] == "advantage_play"
    ]
    assert [(a["box"], a["player"]) for a in flagged] == [(1, "box1")]

    # The display: the public topics, and nothing of all that (nor in any public payload).
    seen = {m.topic for m in display.messages}
    assert {"state", "events", "outcome", "alerts"} <= seen
    assert not [t for t in seen if t.startswith("surveillance/")]
    for m in display.messages:
        assert not keys(m.payload) & SECRET_KEYS, (m.topic, keys(m.payload) & SECRET_KEYS)
        if m.topic == "alerts":
            assert m.payload["kind"] not in SECRET_KINDS
