"""Pit commands over a real mosquitto: the table's service runs its loop and MQTT
client, a supervisor's console publishes on cmd/<name> and reads the answers and
the events stream (every message schema-checked by the subscriber)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.mqtt_link import Command
from tests.pit.harness import PitTable, answer, events
from tests.service.conftest import BrokerProcess, Subscriber

Console = tuple[PitTable, Subscriber]


@pytest.fixture
def live(
    broker: BrokerProcess, tmp_path: Path, subscribe: Callable[..., Subscriber]
) -> Iterator[Console]:
    table_id = f"p{uuid.uuid4().hex[:8]}"
    table = PitTable(tmp_path / "state", table_id=table_id, port=broker.port).run()
    console = subscribe(broker.port, table_id)
    console.wait_for(
        lambda: any(m.payload["state"] == "online" for m in console.on("status")), 10, "online"
    )
    yield table, console
    table.stop()


def send(console: Subscriber, name: str, request: dict[str, Any] | bytes) -> None:
    raw = request if isinstance(request, bytes) else json.dumps(request).encode()
    console.client.publish(console.prefix + f"cmd/{name}", raw, qos=1)


def ask(console: Subscriber, name: str, request: dict[str, Any]) -> dict[str, Any]:
    send(console, name, request)
    return answer(console, name, request["transaction"])


def audits(console: Subscriber) -> list[dict[str, Any]]:
    return events(console, "audit")


LIMITS = {"by": "anna", "console": "pit-7", "min": "10", "max": "300"}


def test_malformed_oversized_and_unknown_commands_are_refused_and_change_nothing(
    live: Console,
) -> None:
    table, console = live
    table.deal_round_start()
    table.settle()
    console.wait_for(lambda: bool(events(console, "turn_started")), 10, "the deal")
    before, seen = table.snapshot(), len(console.on("events"))
    long = {"transaction": "t3", **LIMITS, "reason": "x" * 300, "pad": "y" * 4000}
    cases: list[tuple[str, dict[str, Any] | bytes, str | None, str]] = [
        ("set_limits", b"{not json", None, "not JSON"),
        ("set_limits", b'["t2"]', None, "a command is a JSON object, not a list"),
        ("set_limits", json.dumps(long).encode(), None, "a command is at most 4096"),
        (
            "open_the_shoe",
            {"transaction": "t4", "by": "anna"},
            "t4",
            "unknown command 'open_the_shoe': the table takes void_round, new_shoe, set_limits, "
            "correct_card, republish",
        ),
        (
            "set_limits",
            {"transaction": "t5", **LIMITS, "colour": "red"},
            "t5",
            "colour: unknown field (a typo?)",
        ),
        (
            "set_limits",
            {"transaction": "t6", **LIMITS, "min": 10},
            "t6",
            'min: expected a decimal string such as "10" or "12.50" (money is never a JSON '
            "number), got a number 10",
        ),
        (
            "set_limits",
            {"transaction": "t7", **LIMITS, "max": "300.125"},
            "t7",
            "has more than 2 decimal places",
        ),
        ("void_round", {"transaction": "t8", "reason": "dispute"}, "t8", "by: missing (required)"),
        (
            "void_round",
            {"transaction": "t9", "reason": "dispute", "by": "   "},
            "t9",
            "by: must name the supervisor",
        ),
        (
            "correct_card",
            {
                "transaction": "t10",
                "by": "anna",
                "reason": "misread",
                "round": 1,
                "box": 2,
                "hand": 1,
                "position": 1,
                "was": "5H",
                "card": "1H",
            },
            "t10",
            'card: expected a card code such as "TH", got "1H"',
        ),
        (
            "new_shoe",
            {"transaction": 11, "by": "anna"},
            None,
            "transaction: expected text, got a number 11",
        ),
        (
            "correct_card",
            {
                "transaction": "t12",
                "by": "anna",
                "reason": "x",
                "round": True,
                "box": 2,
                "hand": 1,
                "position": 1,
                "was": "5H",
                "card": "6H",
            },
            "t12",
            "round: expected a whole number, got true/false true",
        ),
    ]
    for name, request, _, _ in cases:
        send(console, name, request)
    for name, _, transaction, error in cases:
        topic = f"cmd/{name}/response"

        def came(t: str = topic, e: str = error) -> bool:
            return any(e in m.payload.get("error", "") for m in console.on(t))

        console.wait_for(came, 10, error)
        got = next(m.payload for m in console.on(topic) if error in m.payload.get("error", ""))
        assert got["ok"] is False and got["transaction"] == transaction, got
        assert "audit_seq" not in got  # refused before it reached the table
    table.settle()
    assert table.snapshot() == before  # the journal too: nothing was recorded or applied
    assert len(console.on("events")) == seen


def test_set_limits_between_rounds_with_its_audit_record(live: Console) -> None:
    table, console = live
    got = ask(console, "set_limits", {"transaction": "L1", **LIMITS, "reason": "high rollers"})
    assert got["ok"] and got["limits"] == {"min": "10", "max": "300"}, got
    [limits] = events(console, "limits_set")
    assert limits["min"] == "10" and limits["was"] == {"min": "5", "max": "500"}
    [audit] = audits(console)
    assert audit["seq"] == got["audit_seq"] and audit["source"] == table.service.store.last_seq
    assert audit["command"] == "set_limits" and audit["ok"] is True
    assert (audit["by"], audit["console"], audit["transaction"]) == ("anna", "pit-7", "L1")
    assert audit["request"] == {"min": "10", "max": "300", "reason": "high rollers"}
    assert audit["before"] == {"min": "5", "max": "500"}
    assert audit["after"] == {"min": "10", "max": "300"}
    assert audit["at"].endswith("Z") and audit["at"][:4].isdigit()
    console.wait_for(
        lambda: any(m.payload["limits"]["min"] == "10" for m in console.on("info")),
        10,
        "info with the new limits",
    )
    console.wait_for(
        lambda: console.on("state")[-1].payload["limits"]["max"] == "300",
        10,
        "state with the new limits",
    )
    # The journal holds the command as it came: who, what, when.
    record = json.loads(
        table.service.store.db.execute(
            "SELECT record FROM journal ORDER BY seq DESC LIMIT 1"
        ).fetchone()[0]
    )
    assert record["kind"] == "command" and record["request"]["by"] == "anna"
    assert record["at"] == audit["at"]
    # The table now takes bets by the new limits.
    table.bets.place(1, "5")
    console.wait_for(lambda: bool(console.on("alerts")), 10, "the refusal")
    assert "below the table minimum of 10" in console.on("alerts")[-1].payload["message"]


def test_set_limits_refusals_say_why_and_change_nothing(live: Console) -> None:
    table, console = live
    table.bets.place(3, "400")  # a box already holds 400
    table.settle()
    before = table.snapshot()
    for n, (fields, error) in enumerate(
        [
            ({"min": "50", "max": "20"}, "min 50 is above max 20"),
            ({"min": "10.50", "max": "100"}, "the limits must be multiples of 1"),
            ({"min": "5", "max": "300"}, "box 3 holds 400, over 300): they change first"),
        ]
    ):
        got = ask(console, "set_limits", {"transaction": f"R{n}", "by": "anna", **fields})
        assert not got["ok"] and error in got["error"], got
    table.bets.place(1, "10")
    table.bets.place(3, "20")
    table.panel.press("close_bets")
    table.settle()
    during = table.snapshot()
    got = ask(console, "set_limits", {"transaction": "R9", **LIMITS})
    assert got["error"] == (
        "cannot change the limits now: round 1 is in deal; the limits change between rounds"
    )
    table.settle()
    assert table.snapshot()["table"] == during["table"]
    assert [a["ok"] for a in audits(console)] == [False, False, False, False]
    assert all(a["before"] is None and a["after"] is None for a in audits(console))
    assert before["limits"] == table.snapshot()["limits"]


def test_new_shoe_between_rounds_only(live: Console) -> None:
    table, console = live
    got = ask(console, "new_shoe", {"transaction": "S1", "by": "anna", "reason": "new cards"})
    assert got["ok"] and got["shoe"] == 1, got
    assert len(events(console, "shoe_started")) == 1
    [audit] = audits(console)
    assert audit["after"]["shoe"] == 1 and audit["after"]["cards_out"] == 0
    table.deal_round_start()
    table.settle()
    before = table.snapshot()
    got = ask(console, "new_shoe", {"transaction": "S2", "by": "anna"})
    assert not got["ok"] and "cannot start a new shoe now" in got["error"]
    table.settle()
    assert table.snapshot()["table"] == before["table"]


def test_void_round_and_its_old_name(live: Console) -> None:
    table, console = live
    table.deal_round_start()
    table.settle()
    got = ask(console, "void_round", {"transaction": "V1", "by": "anna", "reason": "dispute"})
    assert got["ok"] and got["round"] == 1, got
    console.wait_for(
        lambda: any(m.payload.get("voided") for m in console.on("outcome")),
        10,
        "the voided outcome",
    )
    audit = audits(console)[-1]
    assert audit["before"] == {"round": 1, "phase": "player_turns"}
    assert audit["after"] == {"round": 1, "phase": "voided"}
    # `void` (the older name) still works, and is answered on its own topic.
    table.deal_round_start(("9H", "8D", "7C", "TS", "2H"))
    table.settle()
    got = ask(console, "void", {"transaction": "V2", "by": "anna", "reason": "marked cards"})
    assert got["ok"] and got["round"] == 2 and got["command"] == "void"
    assert audits(console)[-1]["command"] == "void_round"
    got = ask(console, "void_round", {"transaction": "V3", "by": "anna", "reason": "again"})
    assert not got["ok"] and "no round is in play" in got["error"]


def test_a_repeated_transaction_is_answered_again_not_applied_twice(live: Console) -> None:
    table, console = live
    request = {"transaction": "D1", **LIMITS}
    first = ask(console, "set_limits", request)
    send(console, "set_limits", request)  # the console did not see the answer: sends again
    console.wait_for(lambda: len(console.on("cmd/set_limits/response")) == 2, 10, "two answers")
    again = console.on("cmd/set_limits/response")[1].payload
    assert again == first
    send(console, "set_limits", {**request, "max": "400"})
    console.wait_for(lambda: len(console.on("cmd/set_limits/response")) == 3, 10, "the refusal")
    refused = console.on("cmd/set_limits/response")[2].payload
    assert not refused["ok"] and "already used for another request" in refused["error"]
    table.settle()
    assert len(events(console, "limits_set")) == 1 and len(audits(console)) == 1
    assert table.service.table.table_max == 300


def test_republish_is_audited(live: Console) -> None:
    table, console = live
    table.deal_round_start()
    table.settle()
    got = ask(console, "republish", {"transaction": "P1", "from_seq": 2})
    assert got["ok"] and got["from_seq"] == 2
    audit = audits(console)[-1]
    assert audit["command"] == "republish" and audit["by"] is None
    assert audit["request"] == {"from_seq": 2}
    console.wait_for(
        lambda: [m.payload["seq"] for m in console.on("events")].count(2) == 2, 10, "seq 2 again"
    )


def test_the_audit_trail_survives_a_restart_and_the_chain_holds(
    live: Console, capsys: pytest.CaptureFixture[str]
) -> None:
    table, console = live
    ask(console, "set_limits", {"transaction": "A1", **LIMITS})
    table.deal_round_start()
    table.settle()
    ask(console, "void_round", {"transaction": "A2", "by": "bob", "reason": "dispute"})
    table.stop()
    state = table.service.config.state.dir
    again = PitTable(state, table_id=table.service.table_id)
    rows = again.service.store.rows_from(1, 100_000)
    assert again.service.table.table_min == 10  # the limits are part of the table's record
    # Made again from the journal alone, every message (audit records included) is the same.
    again.service.store.db.execute("DELETE FROM outbox")
    again.service.store.db.execute("UPDATE meta SET value = '0' WHERE key = 'outboxed'")
    again.stop()
    rebuilt = PitTable(state, table_id=table.service.table_id)
    remade = rebuilt.service.store.rows_from(1, 100_000)
    rebuilt.stop()
    stream = [(r.topic, r.payload) for r in rows if not r.topic.startswith("cmd/")]
    assert [(r.topic, r.payload) for r in remade if not r.topic.startswith("cmd/")] == stream
    assert [
        json.loads(r.payload)["command"]
        for r in rows
        if r.topic == "events" and '"type":"audit"' in r.payload
    ] == ["set_limits", "void_round"]
    assert main(["audit", "verify", str(state)]) == 0
    assert "intact" in capsys.readouterr().out


def test_a_card_correction_reaches_the_pit_with_a_fresh_state(live: Console) -> None:
    table, console = live
    table.deal_round_start()  # box 2: 8D 5H
    table.settle()
    got = ask(
        console,
        "correct_card",
        {
            "transaction": "C1",
            "by": "anna",
            "reason": "the camera read 5H, it is 6H",
            "round": 1,
            "box": 2,
            "hand": 1,
            "position": 1,
            "was": "5H",
            "card": "6H",
        },
    )
    assert got["ok"], got
    [corrected] = events(console, "card_corrected")
    assert (corrected["was"], corrected["card"]) == ("5H", "6H")

    def fresh() -> bool:
        states = [m.payload for m in console.on("state")]
        return bool(states) and states[-1]["seq"] >= got["audit_seq"]

    console.wait_for(fresh, 10, "a state after the correction")
    state = console.on("state")[-1].payload
    box2 = next(b for b in state["in_play"] if b["box"] == 2)
    assert box2["hands"][0]["cards"] == ["8D", "6H"] and box2["hands"][0]["total"] == 14


def test_the_simulator_plays_on_when_the_pit_changes_limits_and_shoe(tmp_path: Path) -> None:
    """`croupier sim`'s players follow the table's limits as the pit sets them."""
    from decimal import Decimal

    from controller.config import Config, override
    from controller.journal import Store
    from controller.mqtt_link import Command
    from sim.runner import build

    config = override(
        Config(),
        "test",
        table={"id": "simpit", "rules": "fr-classic"},
        state={"dir": tmp_path, "fsync": False},
        sim={"rounds": 30, "speed": "max", "seed": 8},
    )
    sim = build(config, offline=True)
    for name, request in (
        ("set_limits", {"transaction": "s1", "by": "anna", "min": "20", "max": "400"}),
        ("new_shoe", {"transaction": "s2", "by": "anna"}),
    ):
        sim.service.put(Command(name, json.dumps(request).encode()))
    sim.service.run()
    store = Store(tmp_path, fsync=False)
    rows = [json.loads(r.payload) for r in store.rows_from(1, 10**6) if r.topic == "events"]
    store.close()
    assert [r["ok"] for r in rows if r["type"] == "audit"] == [True, True]
    assert sim.service.table.rounds == 30
    assert min(Decimal(r["amount"]) for r in rows if r["type"] == "bet_placed") >= 20


def test_a_request_that_reaches_a_stopping_table_is_refused_not_dropped(
    live: Console, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request the broker delivers after the table's last drain, while it says
    `offline`, is answered: refused, changing nothing (a repeat is answered again as
    before), and answered before the `offline` status."""
    table, console = live
    first = ask(console, "set_limits", {"transaction": "S1", **LIMITS})
    service = table.service
    say_offline = service._say_offline

    def late_requests_then_offline() -> None:  # (as if they reached the broker just now)
        for request in ({"transaction": "S2", **LIMITS, "max": "400"},
                        {"transaction": "S1", **LIMITS}):
            service.put(Command("set_limits", json.dumps(request).encode()))
        say_offline()

    monkeypatch.setattr(service, "_say_offline", late_requests_then_offline)
    table.stop()
    console.wait_for(lambda: len(console.on("cmd/set_limits/response")) == 3, 10, "3 answers")
    refused, again = (m.payload for m in console.on("cmd/set_limits/response")[1:])
    assert refused["transaction"] == "S2" and not refused["ok"]
    assert refused["error"] == "the table is stopping: send it again once it is online"
    assert again == first
    assert service.table.table_max == 300 and len(events(console, "limits_set")) == 1
    console.wait_for(
        lambda: any(m.payload["state"] == "offline" for m in console.on("status")), 10, "offline"
    )
    topics = [m.topic for m in console.messages]
    offline = next(i for i, m in enumerate(console.messages)
                   if m.topic == "status" and m.payload["state"] == "offline")
    assert max(i for i, t in enumerate(topics) if t == "cmd/set_limits/response") < offline
