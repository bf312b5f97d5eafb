"""The MQTT contract against a real broker (mosquitto; see conftest), with
`croupier sim` as its own process. Every message received is checked
against its JSON Schema by the subscriber."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.service.conftest import (
    BrokerProcess,
    Subscriber,
    free_port,
    outcomes_by_id,
    start_sim,
    wait_port,
)

ROUNDS = 200


@pytest.fixture(scope="module")
def run_200(
    broker: BrokerProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Subscriber, Path]]:
    """A 200-round sim watched from its start by one subscriber."""
    tmp = tmp_path_factory.mktemp("run200")
    sub = Subscriber(broker.port, "t200")
    proc = start_sim(
        "--rounds",
        str(ROUNDS),
        "--speed",
        "max",
        "--seed",
        "11",
        "--broker",
        broker.url,
        "--table",
        "t200",
        "--state-dir",
        str(tmp / "state"),
        log=tmp / "sim.log",
    )
    assert proc.wait(timeout=240) == 0, (tmp / "sim.log").read_text()[-3000:]
    sub.wait_for(lambda: len(outcomes_by_id(sub)) >= ROUNDS, 30, f"{ROUNDS} outcomes")
    yield sub, tmp
    sub.close()


def test_every_outcome_exactly_once_in_round_order(run_200: tuple[Subscriber, Path]) -> None:
    sub, _ = run_200
    outcomes = [m.payload for m in sub.on("outcome")]
    ids = [o["outcome_id"] for o in outcomes]
    assert ids == [f"t200:{n}" for n in range(1, ROUNDS + 1)]  # once each, in order
    assert [o["round"] for o in outcomes] == list(range(1, ROUNDS + 1))


def test_events_are_numbered_without_gaps(run_200: tuple[Subscriber, Path]) -> None:
    sub, _ = run_200
    seqs = [m.payload["seq"] for m in sub.on("events")]
    assert seqs == list(range(1, len(seqs) + 1))
    assert all(m.payload["event_id"] == f"t200:{m.payload['seq']}" for m in sub.on("events"))
    settled = {
        m.payload["round"]: m.payload["seq"]
        for m in sub.on("events")
        if m.payload["type"] == "round_settled"
    }
    assert {o.payload["round"]: o.payload["seq"] for o in sub.on("outcome")} == settled


def test_a_late_subscriber_finds_the_retained_topics(
    run_200: tuple[Subscriber, Path], broker: BrokerProcess, subscribe: Callable[..., Subscriber]
) -> None:
    late = subscribe(broker.port, "t200")
    late.wait_for(
        lambda: {m.topic for m in late.messages} >= {"status", "info", "state", "outcome/last"},
        10,
        "the retained topics",
    )
    retained = {m.topic: m for m in late.messages}
    assert all(m.retain for m in retained.values())
    assert retained["status"].payload["state"] == "offline"  # the run ended cleanly
    assert retained["info"].payload["rules"]["name"] == "be-casino"
    assert retained["state"].payload["round"] == ROUNDS
    assert retained["outcome/last"].payload["outcome_id"] == f"t200:{ROUNDS}"
    last_seq = max(m.payload["seq"] for m in run_200[0].on("events"))
    assert retained["state"].payload["seq"] == last_seq


@pytest.fixture
def slow_sim(
    broker: BrokerProcess, tmp_path: Path, subscribe: Callable[..., Subscriber]
) -> Iterator[tuple[subprocess.Popen[bytes], Subscriber]]:
    sub = subscribe(broker.port, "tkill")
    proc = start_sim(
        "--speed",
        "20",
        "--seed",
        "5",
        "--broker",
        broker.url,
        "--table",
        "tkill",
        "--state-dir",
        str(tmp_path / "state"),
        log=tmp_path / "sim.log",
    )
    sub.wait_for(
        lambda: any(m.payload["state"] == "online" for m in sub.on("status")), 15, "online"
    )
    yield proc, sub
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_status_turns_lost_after_kill_9(
    slow_sim: tuple[subprocess.Popen[bytes], Subscriber],
    broker: BrokerProcess,
    subscribe: Callable[..., Subscriber],
) -> None:
    proc, sub = slow_sim
    session = sub.on("status")[-1].payload["session"]
    late = subscribe(broker.port, "tkill", topics="status")
    late.wait_for(lambda: bool(late.on("status")), 5, "retained status")
    assert late.on("status")[0].payload["state"] == "online"
    proc.kill()  # SIGKILL: no goodbye, the broker publishes the will
    proc.wait()
    sub.wait_for(lambda: sub.on("status")[-1].payload["state"] == "lost", 10, "status lost")
    assert sub.on("status")[-1].payload["session"] == session
    after = subscribe(broker.port, "tkill", topics="status")
    after.wait_for(lambda: bool(after.on("status")), 5, "retained status")
    assert after.on("status")[0].payload == {**sub.on("status")[-1].payload}
    assert after.on("status")[0].retain


def _response(sub: Subscriber, transaction: str) -> dict[str, Any]:
    def found() -> bool:
        return any(
            m.payload["transaction"] == transaction
            for m in sub.on("cmd/republish/response") + sub.on("cmd/void/response")
        )

    sub.wait_for(found, 10, f"the response to {transaction}")
    return next(
        m.payload
        for m in sub.on("cmd/republish/response") + sub.on("cmd/void/response")
        if m.payload["transaction"] == transaction
    )


def test_republish_resends_events_from_a_seq(
    slow_sim: tuple[subprocess.Popen[bytes], Subscriber],
) -> None:
    _, sub = slow_sim
    sub.wait_for(lambda: len(sub.on("events")) >= 30, 20, "30 events")
    before = len(sub.on("events"))
    sub.publish("cmd/republish", {"transaction": "r-1", "from_seq": 5})
    answer = _response(sub, "r-1")
    assert answer["ok"] and answer["from_seq"] == 5 and answer["to_seq"] >= before
    sub.wait_for(
        lambda: [m.payload["seq"] for m in sub.on("events")].count(5) == 2, 10, "seq 5 again"
    )
    copies = [m.payload for m in sub.on("events") if m.payload["seq"] == 5]
    assert copies[0] == copies[1]
    sub.publish("cmd/republish", {"transaction": "r-2", "from_seq": "five"})
    refused = _response(sub, "r-2")
    assert not refused["ok"] and "from_seq" in refused["error"]


def test_void_from_the_pit_is_journaled_and_settles_the_round(
    slow_sim: tuple[subprocess.Popen[bytes], Subscriber],
) -> None:
    _, sub = slow_sim

    def in_round() -> bool:
        states = sub.on("state")
        return bool(states) and states[-1].payload["phase"] in ("deal", "player_turns")

    sub.wait_for(in_round, 20, "a round in play")
    sub.publish("cmd/void", {"transaction": "v-1", "reason": "pit: marked cards", "by": "sup 7"})
    answer = _response(sub, "v-1")
    if answer["ok"]:
        number = answer["round"]
        sub.wait_for(
            lambda: any(
                m.payload["round"] == number and m.payload.get("voided") for m in sub.on("outcome")
            ),
            10,
            "the voided outcome",
        )
    else:  # the round settled by itself before the command arrived
        assert "already" in answer["error"]
    sub.publish("cmd/void", {"transaction": "v-2", "by": "sup 7"})
    assert "reason: missing" in _response(sub, "v-2")["error"]


def test_embedded_broker_serves_tcp_and_websockets(
    tmp_path: Path, subscribe: Callable[..., Subscriber]
) -> None:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    port, ws_port = free_port(), free_port()
    proc = start_sim(
        "--rounds",
        "4",
        "--speed",
        "30",
        "--seed",
        "3",
        "--port",
        str(port),
        "--ws-port",
        str(ws_port),
        "--table",
        "temb",
        "--state-dir",
        str(tmp_path / "state"),
        log=tmp_path / "sim.log",
    )
    try:
        wait_port(port)
        sub = subscribe(port, "temb")
        got: list[str] = []
        ws = mqtt.Client(CallbackAPIVersion.VERSION2, transport="websockets")
        ws.on_message = lambda c, u, m: got.append(m.topic)
        ws.connect("127.0.0.1", ws_port)
        ws.subscribe("croupier/v1/temb/#", qos=1)
        ws.loop_start()
        assert proc.wait(timeout=60) == 0, (tmp_path / "sim.log").read_text()[-3000:]
        ws.loop_stop()
        assert "croupier/v1/temb/info" in got and "croupier/v1/temb/outcome" in got
        assert set(outcomes_by_id(sub)) >= {"temb:4"}
    finally:
        if proc.poll() is None:
            proc.kill()


def test_surveillance_gets_the_full_state_only_when_enabled(
    broker: BrokerProcess, tmp_path: Path, subscribe: Callable[..., Subscriber]
) -> None:
    config = tmp_path / "table.toml"
    config.write_text("[mqtt]\nsurveillance = true\n")
    sub = subscribe(broker.port, "tsurv")
    proc = start_sim(
        "--config",
        str(config),
        "--rounds",
        "3",
        "--speed",
        "max",
        "--table",
        "tsurv",
        "--broker",
        broker.url,
        "--state-dir",
        str(tmp_path / "state"),
        log=tmp_path / "sim.log",
    )
    assert proc.wait(timeout=60) == 0, (tmp_path / "sim.log").read_text()[-3000:]
    sub.wait_for(lambda: bool(sub.on("surveillance/state")), 10, "surveillance/state")
    full = sub.on("surveillance/state")[-1].payload
    assert (
        sum(full["shoe"]["remaining"].values()) == full["shoe"]["size"] - full["shoe"]["cards_out"]
    )
    assert all("remaining" not in m.payload["shoe"] for m in sub.on("state"))
    # Without the setting (the default): no surveillance topic at all.
    assert not [m for m in run_plain(broker, tmp_path, subscribe) if m.topic.startswith("surv")]


def run_plain(
    broker: BrokerProcess, tmp_path: Path, subscribe: Callable[..., Subscriber]
) -> list[Any]:
    sub = subscribe(broker.port, "tplain")
    proc = start_sim(
        "--rounds",
        "2",
        "--speed",
        "max",
        "--table",
        "tplain",
        "--broker",
        broker.url,
        "--state-dir",
        str(tmp_path / "plain"),
    )
    assert proc.wait(timeout=60) == 0
    sub.wait_for(lambda: len(outcomes_by_id(sub)) >= 2, 10, "two outcomes")
    return list(sub.messages)
