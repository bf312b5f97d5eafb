"""The table service on the Pi's own broker set-up (systemd/mosquitto: accounts,
roles, ACL; see docs/deploy.md), as `croupier run` will meet it: the table's
account may publish its topics and read its commands, a display reads the
public topics, a supervisor commands and reads the answers."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.deploy.mosquitto import Broker, password, running_broker
from tests.service.conftest import Subscriber, outcomes_by_id, start_sim

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def floor_broker() -> Iterator[Broker]:
    with running_broker() as broker:
        yield broker


def test_the_table_account_runs_a_table_that_displays_and_supervisors_can_use(
    floor_broker: Broker, tmp_path: Path, subscribe: Callable[..., Subscriber]
) -> None:
    port = floor_broker.tcp
    display = subscribe(port, "T1", account=("pit-display", password("pit-display")))
    anna = subscribe(port, "T1", account=("anna", password("anna")))
    # The table deals until it is stopped: a command sent to a table that has already
    # finished its rounds and gone offline gets no answer (its session is clean), so a
    # table that stops by itself would race the supervisor. It stops as systemd stops it.
    proc = start_sim(
        "--speed",
        "60",
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
        display.wait_for(lambda: bool(display.on("outcome")), 30, "a first outcome")
        anna.publish("cmd/republish", {"transaction": "floor-1", "from_seq": 1})
        anna.wait_for(lambda: bool(anna.on("cmd/republish/response")), 10, "the answer")
        assert anna.on("cmd/republish/response")[0].payload["ok"]
        display.wait_for(lambda: len(outcomes_by_id(display)) >= 6, 60, "six outcomes")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, (tmp_path / "sim.log").read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
    seen = {m.topic for m in display.messages}
    assert {"status", "info", "state", "events", "outcome", "outcome/last"} <= seen
    assert not any(t.startswith("cmd/") for t in seen)  # answers are for supervisors
    # The offline status is the table's last word: it may land after the outcomes.
    display.wait_for(lambda: display.on("status")[-1].payload["state"] == "offline", 10, "offline")
