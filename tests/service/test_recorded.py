"""The floor recorder's watermark gates the journal's retention: a table prunes a shoe
only once the retained `recorded` message says every event of it is in the floor's
database (or past the hard cap), and hears it again after a restart.

On a real mosquitto with the shipped accounts and ACL (tests/deploy/mosquitto.py):
the test publishes the watermark as the `recorder` account would, the table runs its
own loop (paho, the queue, the retention timer), and its journal is read from disk.
The recorder's own publishing is tested with the recorder in tests/floor."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from controller import service as service_module
from controller.config import BrokerAddress, override
from controller.retention import DAY, Recorded
from controller.service import Service
from drivers.interfaces import DriverSet
from tests.service.test_retention import (
    _Idle,
    _shoe_ends,
    acknowledge,
    checkpoint,
    config,
    played,
    sql,
    verify,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "docs" / "schemas" / "recorded.json").read_text()
)
TOPIC = "croupier/v1/T1/recorded"


# ------------------------------------------------------------ the message itself
def test_a_good_watermark_is_taken_and_a_bad_one_is_none(caplog: pytest.LogCaptureFixture) -> None:
    r = Recorded()
    r.take(b'{"seq": 42, "console": "recorder-1", "at": "2026-12-06T14:00:00Z"}')
    assert r.seq == 42
    bad = [
        b'{"seq": -1}',
        b'{"seq": 4.0}',
        b'{"seq": "42"}',
        b'{"seq": true}',
        b"{}",
        b'{"seq": 9007199254740992}',
        b"[42]",
        b"42",
        b"\xff{",
        b'{"seq": 1e400}',
        b"[" * 5000,
        b'{"seq": 1, "seq": 2}',
        b'{"seq": ' + b"9" * 5000 + b"}",
    ]
    for payload in bad:
        r.take(b'{"seq": 42}')
        with caplog.at_level(logging.WARNING, "croupier.retention"):
            r.take(payload)
        assert r.seq is None, payload  # the table waits for a good one (or the hard cap)
        assert "cannot use" in caplog.text
        caplog.clear()
    r.take(b'{"seq": 42}')
    r.take(b"")  # the retained message cleared: no recorder any more
    assert r.seq is None


@given(
    st.one_of(
        st.integers(-(2**60), 2**60), st.floats(), st.text(max_size=4), st.none(), st.booleans()
    )
)
def test_the_table_takes_a_seq_exactly_when_the_published_schema_allows_it(seq: Any) -> None:
    payload = {"seq": seq}
    r = Recorded()
    r.take(json.dumps(payload).encode())
    schema_ok = Draft202012Validator(SCHEMA).is_valid(payload)
    if isinstance(seq, float) and seq.is_integer():
        schema_ok = False  # JSON Schema counts 4.0 as an integer; the table (strict) does not
    assert (r.seq is not None) == schema_ok, payload


# ------------------------------------------------------------ on a real broker
@pytest.fixture
def broker() -> Iterator[Any]:
    from tests.deploy.mosquitto import running_broker

    with running_broker() as b:
        yield b


def peer(broker: Any, name: str) -> Any:
    from tests.deploy.mosquitto import Peer

    return Peer(broker.tcp, name).connect()


@contextmanager
def table_on(broker: Any, state: Path, days_later: float, **journal: Any) -> Iterator[Service]:
    """The table T1's service on `state`, its own loop running on a thread, logged in to
    the broker as its account; its clock `days_later` than now."""
    from tests.deploy.mosquitto import password

    later = time.time() + days_later * DAY
    cfg = override(
        config(state, table="T1", **journal),
        "test",
        mqtt={"username": "table-T1", "password": password("table-T1")},
    )
    address = BrokerAddress(host="127.0.0.1", port=broker.tcp, tls=False, websockets=False)
    idle = _Idle()
    s = Service(cfg, DriverSet(idle, idle, idle), address, clock=lambda: later)
    thread = threading.Thread(target=s.run, name="table", daemon=True)
    thread.start()
    try:
        yield s
    finally:
        s.stop()
        thread.join(timeout=20)
        assert not thread.is_alive(), "the table's loop did not stop"


def wait_for(check: Any, what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def first_seq(state: Path) -> int:
    ((first,),) = sql(state, "SELECT min(seq) FROM journal")
    return int(str(first))


@pytest.fixture
def acked(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Table T1's state after a few shoes, every message acknowledged by the broker: the
    recorder's word is what retention still waits for."""
    state = played(tmp_path, tmp_path_factory, "T1")
    acknowledge(state)
    return state


@pytest.fixture
def fast_retention(monkeypatch: pytest.MonkeyPatch) -> float:
    """The service's retention timer every 0.2 s instead of every ten minutes."""
    monkeypatch.setattr(service_module, "RETAIN_EVERY", 0.2)
    return 0.2


def test_the_retained_watermark_gates_the_prune_and_outlives_a_restart(
    broker: Any, fast_retention: float, acked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = acked
    ends = _shoe_ends(state, "T1")
    (_, first_events), (second_start, second_events) = ends[0], ends[1]
    archive = peer(broker, "archive")
    try:
        # Published before the table starts: it hears it as the retained message.
        archive.publish(TOPIC, json.dumps({"seq": first_events - 1}), retain=True)
        with table_on(broker, state, 91) as table:
            wait_for(lambda: table.recorded.seq == first_events - 1, "the retained watermark")
            time.sleep(fast_retention * 5)  # retention looked, several times
            assert first_seq(state) == 1, "pruned what the recorder does not hold"
            archive.publish(TOPIC, json.dumps({"seq": second_events}), retain=True)
            wait_for(lambda: first_seq(state) > 1, "the prune the watermark allows")
            time.sleep(fast_retention * 5)
        cp = checkpoint(state)
        assert cp["through"] == second_start and cp["forced"] is False
        assert cp["recorded"] == second_events
        assert first_seq(state) == second_start + 1
        # A restarted table knows the watermark again from the broker.
        with table_on(broker, state, 91) as table:
            wait_for(lambda: table.recorded.seq == second_events, "the watermark after a restart")
    finally:
        archive.close()
    status, out = verify(state, capsys)
    assert status == 0, out


def test_past_the_hard_cap_the_table_prunes_whatever_the_watermark_says(
    broker: Any, fast_retention: float, acked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = acked
    archive = peer(broker, "archive")
    try:
        archive.publish(TOPIC, json.dumps({"seq": 0}), retain=True)  # the floor holds nothing
        with table_on(broker, state, 101, keep_days=90, hard_cap_days=100) as table:
            wait_for(lambda: table.recorded.seq == 0, "the retained watermark")
            wait_for(lambda: first_seq(state) > 1, "the hard cap's prune")
    finally:
        archive.close()
    cp = checkpoint(state)
    assert cp["forced"] is True and cp["recorded"] == 0
    assert verify(state, capsys)[0] == 0
