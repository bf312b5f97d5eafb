"""Issue 37's malformed pit requests against a running table on a real mosquitto:
every one is answered `"ok": false` with an error, the table stays online and
unchanged, and its audit trail (`croupier audit events`) holds none of them."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

from tests.pit.harness import PitTable
from tests.service.conftest import BrokerProcess, Subscriber

ENVELOPE = {"by": "anna", "console": "pit-7"}


def malformed() -> list[tuple[str, bytes]]:
    cases: list[tuple[str, bytes]] = []
    for value in ("1e30", "1E+26", "1" * 30, "1" * 60, "1e999999999", "NaN", "-5", "10.001"):
        for field in ("min", "max"):
            request = {**ENVELOPE, "min": "10", "max": "300", field: value}
            cases.append(("set_limits", json.dumps(request).encode()))
    cases += [
        ("set_limits", b"[" * 300 + b"]" * 300),
        ("void_round", b"{" * 300),
        ("republish", f'{{"from_seq": {2**63}}}'.encode()),
        ("republish", ('{"from_seq": ' + "9" * 4000 + "}").encode()),
        ("void_round", b'{"by": "anna", "reason": "\xff\xfe"}'),
        ("void_round", b'{"by": "anna", "reason": "\\ud800"}'),
        ("void_round", b'{"by": "anna", "reason": "x", "reason": "y"}'),
        ("new_shoe", b'{"by": "anna", "reason": NaN}'),
        ("correct_card", json.dumps({**ENVELOPE, "round": 2**63, "box": 1, "hand": 0,
                                      "position": 0, "was": "9H", "card": "9S",
                                      "reason": "x"}).encode()),
    ]
    return cases


def test_the_table_survives_every_malformed_request_and_journals_none(
    broker: BrokerProcess, tmp_path: Path, subscribe: Callable[..., Subscriber]
) -> None:
    table_id = f"f{uuid.uuid4().hex[:8]}"
    state = tmp_path / "state"
    table = PitTable(state, table_id=table_id, port=broker.port).run()
    try:
        console = subscribe(broker.port, table_id)
        console.wait_for(
            lambda: any(m.payload["state"] == "online" for m in console.on("status")), 10, "on"
        )
        table.deal_round_start()
        table.settle()
        before = table.snapshot()
        cases = malformed()
        for name, payload in cases:
            console.client.publish(console.prefix + f"cmd/{name}", payload, qos=1)

        def answered() -> bool:
            got = sum(len(console.on(f"cmd/{n}/response")) for n in {n for n, _ in cases})
            return got >= len(cases)

        console.wait_for(answered, 20, "an answer to every request")
        for name in {n for n, _ in cases}:
            for m in console.on(f"cmd/{name}/response"):
                assert m.payload["ok"] is False and m.payload["error"], m.payload
                assert "audit_seq" not in m.payload
        assert table.thread is not None and table.thread.is_alive(), "the table stopped"
        table.settle()
        assert table.snapshot() == before
        # Still at work: the round plays on.
        table.panel.press("stand")
        table.settle()
        assert table.snapshot() != before
    finally:
        table.stop()
    done = subprocess.run(
        [sys.executable, "-m", "controller", "audit", "events", str(state)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    audits = [e for e in map(json.loads, done.stdout.splitlines()) if e["type"] == "audit"]
    assert audits == []
