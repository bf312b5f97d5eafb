"""Nothing is lost: kill -9 at random moments, and a broker outage.

The simulator's results are a pure function of the seed and the round
number; these tests hold the service to it across crashes and restarts on
one state dir, against a real broker."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.service.conftest import BrokerProcess, Subscriber, outcomes_by_id, start_sim

ROUNDS = 300
SEED = "29"
KILLS = 20


def comparable(outcome: dict[str, Any]) -> dict[str, Any]:
    """An outcome without what names the table (the reference run has another id)."""
    return {k: v for k, v in outcome.items() if k not in ("outcome_id", "table")}


def check_deduplicated(sub: Subscriber, table: str, rounds: int) -> dict[int, dict[str, Any]]:
    """Every round's outcome, none missing; copies identical; first copies in round order."""
    by_id = outcomes_by_id(sub)
    assert set(by_id) == {f"{table}:{n}" for n in range(1, rounds + 1)}
    for outcome_id, copies in by_id.items():
        assert all(c == copies[0] for c in copies), f"{outcome_id} arrived with different content"
    first_seen: list[int] = []
    for m in sub.on("outcome"):
        if m.payload["round"] not in first_seen:
            first_seen.append(m.payload["round"])
    assert first_seen == list(range(1, rounds + 1))
    return {int(i.split(":")[1]): copies[0] for i, copies in by_id.items()}


def reference(broker: BrokerProcess, tmp: Path, table: str, rounds: int) -> dict[int, Any]:
    """The outcomes of an uninterrupted run (and how long it took, in `reference.seconds`)."""
    sub = Subscriber(broker.port, table)
    started = time.monotonic()
    try:
        proc = start_sim(
            "--rounds",
            str(rounds),
            "--speed",
            "max",
            "--seed",
            SEED,
            "--broker",
            broker.url,
            "--table",
            table,
            "--state-dir",
            str(tmp / f"{table}-state"),
            log=tmp / f"{table}.log",
        )
        assert proc.wait(timeout=300) == 0, (tmp / f"{table}.log").read_text()[-3000:]
        reference.seconds = time.monotonic() - started  # type: ignore[attr-defined]
        sub.wait_for(lambda: len(outcomes_by_id(sub)) >= rounds, 30, "the reference outcomes")
        return {n: comparable(o) for n, o in check_deduplicated(sub, table, rounds).items()}
    finally:
        sub.close()


@pytest.mark.slow
def test_kill_9_at_twenty_random_moments(
    broker: BrokerProcess, tmp_path: Path, subscribe: Callable[..., Subscriber]
) -> None:
    expected = reference(broker, tmp_path, "ref", ROUNDS)
    sub = subscribe(broker.port, "crash")
    state = tmp_path / "crash-state"
    log = tmp_path / "crash.log"
    args = (
        "--rounds",
        str(ROUNDS),
        "--speed",
        "max",
        "--seed",
        SEED,
        "--broker",
        broker.url,
        "--table",
        "crash",
        "--state-dir",
        str(state),
    )
    # Kill moments spread over the run, whatever this machine's speed: some during
    # start-up and replay, most while dealing; the last run still has rounds to play.
    dealing = max(0.5, reference.seconds - 0.5)  # type: ignore[attr-defined]
    moments = random.Random(2024)
    kills = 0

    def sessions() -> set[str]:
        return {m.payload["session"] for m in sub.on("status")}

    while kills < KILLS:
        seen = sessions()
        proc = start_sim(*args, log=log)
        if kills % 5 == 4:
            # Every fifth run is killed only once its session is on the broker (its will
            # registered), so that some kills leave a "lost" however slow the start-up.
            sub.wait_for(lambda seen=seen: bool(sessions() - seen), 60, "the session on the broker")
        time.sleep(moments.uniform(0.2, 0.4 + 1.6 * dealing / (KILLS + 5)))
        if proc.poll() is not None:
            break  # the run finished before this kill: too fast a machine
        proc.kill()
        proc.wait()
        kills += 1
    assert kills == KILLS, f"the run finished after {kills} kills: make it longer"
    got_before_last = len(outcomes_by_id(sub))
    assert got_before_last < ROUNDS, "every round was played before the last restart"
    final = start_sim(*args, log=log)
    assert final.wait(timeout=300) == 0, log.read_text()[-3000:]
    sub.wait_for(lambda: len(outcomes_by_id(sub)) >= ROUNDS, 30, "every outcome")
    got = check_deduplicated(sub, "crash", ROUNDS)
    for number in range(1, ROUNDS + 1):
        assert comparable(got[number]) == expected[number], f"round {number} differs"
    # A kill after the connection left its will (possibly before the session said
    # online); a kill during start-up had not connected yet. The last run said goodbye.
    lost = {m.payload["session"] for m in sub.on("status") if m.payload["state"] == "lost"}
    assert 0 < len(lost) <= KILLS
    last = sub.on("status")[-1].payload
    assert last["state"] == "offline" and last["session"] not in lost


@pytest.mark.slow
def test_broker_outage_of_ten_seconds_loses_no_outcome(
    fresh_broker: BrokerProcess, tmp_path: Path, subscribe: Callable[..., Subscriber]
) -> None:
    if fresh_broker.kind != "mosquitto":
        pytest.skip("needs mosquitto: the display's session must outlive the broker restart")
    rounds = 150
    # A display with a persistent session: the broker keeps its subscription and queue.
    sub = subscribe(fresh_broker.port, "outage", client_id="display-outage", clean=False)
    # Paced (the outcomes do not depend on the pace): at full speed a loaded machine can
    # finish all the rounds before the subscriber has seen enough of them to stop the broker.
    proc = start_sim(
        "--rounds",
        str(rounds),
        "--speed",
        "150",
        "--seed",
        SEED,
        "--broker",
        fresh_broker.url,
        "--table",
        "outage",
        "--state-dir",
        str(tmp_path / "state"),
        log=tmp_path / "sim.log",
    )
    sub.wait_for(lambda: len(outcomes_by_id(sub)) >= 15, 60, "the first outcomes")
    fresh_broker.stop()
    before = len(outcomes_by_id(sub))
    time.sleep(10)
    assert proc.poll() is None, "the sim exited with outcomes the broker never acknowledged"
    fresh_broker.start()
    assert proc.wait(timeout=300) == 0, (tmp_path / "sim.log").read_text()[-3000:]

    def missing() -> list[int]:
        got = {int(i.split(":")[1]) for i in outcomes_by_id(sub)}
        return sorted(set(range(1, rounds + 1)) - got)

    try:
        sub.wait_for(lambda: not missing(), 60, "every outcome")
    except AssertionError:
        raise AssertionError(f"missing {missing()[:20]}; errors {sub.errors[:3]}") from None
    assert before < rounds
    check_deduplicated(sub, "outage", rounds)
    expected = reference(fresh_broker, tmp_path, "outage-ref", rounds)
    got = {n: comparable(o) for n, o in check_deduplicated(sub, "outage", rounds).items()}
    assert got == expected
