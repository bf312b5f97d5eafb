"""The floor schema (migrations, the shift function) and what the recorder keeps of
messages that repeat or break the contract, on a real PostgreSQL and mosquitto."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import paho.mqtt.client as mqtt
import psycopg
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.floor.schema import FloorDbError, connect, migrate, migrations
from tests.floor.conftest import query, start_recorder, stop, wait_until
from tests.service.conftest import BrokerProcess


def test_migrations_apply_once_and_a_newer_schema_is_refused(floor_db: str) -> None:
    conn = connect(floor_db)
    try:
        assert migrate(conn) == [m.version for m in migrations()]
        assert migrate(conn) == []
        conn.execute("INSERT INTO floor_migrations (version, name) VALUES (99, 'future')")
        conn.commit()
        with pytest.raises(FloorDbError, match=r"version 99.*upgrade croupier"):
            migrate(conn)
    finally:
        conn.close()


def test_an_unreachable_database_is_named() -> None:
    with pytest.raises(FloorDbError, match="cannot connect to the floor database"):
        connect("postgresql://nobody@127.0.0.1:1/none")


@pytest.mark.parametrize(
    ("at", "zone", "day", "shift"),
    [
        ("2026-12-06 13:59:59+00", "UTC", "2026-12-06", "day"),
        ("2026-12-06 14:00:00+00", "UTC", "2026-12-06", "swing"),
        ("2026-12-06 23:00:00+00", "UTC", "2026-12-06", "night"),
        ("2026-12-07 03:00:00+00", "UTC", "2026-12-06", "night"),  # the night began the 6th
        ("2026-12-07 05:30:00+00", "Europe/Brussels", "2026-12-07", "day"),  # 06:30 there
    ],
)
def test_a_moment_falls_in_the_shift_of_the_floors_time_zone(
    floor_db: str, at: str, zone: str, day: str, shift: str
) -> None:
    with psycopg.connect(floor_db) as conn:
        migrate(conn)
        conn.execute("UPDATE floor_settings SET value = %s WHERE key = 'time_zone'", (zone,))
        row = conn.execute("SELECT * FROM floor_shift(%s::timestamptz)", (at,)).fetchone()
    assert row is not None and (str(row[0]), row[1]) == (day, shift)


def event(seq: int, **extra: object) -> str:
    return json.dumps({"seq": seq, "event_id": f"X:{seq}", "table": "X", "source": seq,
                       "round": 1, "type": "bet_placed", **extra})  # fmt: skip


def test_the_first_copy_is_kept_and_broken_messages_are_refused_alone(
    mosquitto: BrokerProcess, floor_db: str, tmp_path: Path
) -> None:
    log = tmp_path / "recorder.log"
    recorder = start_recorder(mosquitto.url, floor_db, log)
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="console")
    client.connect("127.0.0.1", mosquitto.port)
    client.loop_start()
    root = "croupier/v1/X/"
    outcome = {"round": 1, "outcome_id": "X:1", "table": "X", "seq": 3,
               "dealer": {"cards": [], "total": 0, "blackjack": False, "bust": False},
               "boxes": [{"box": 1, "hands": [], "players": [
                   {"player": "box1", "stake": "10", "insurance": "5", "net": "7.50"}]}],
               "house_net": "-7.50"}  # fmt: skip
    try:
        for topic, payload in [
            ("events", event(1, amount="10")),
            ("events", event(1, amount="99")),  # the same id again, other content
            ("events", "not json"),
            ("events", event(2, player="a\u0000b")),  # PostgreSQL takes no NUL in text
            ("events", event(3, type="round_settled")),
            ("outcome", json.dumps(outcome)),
            ("events", json.dumps({"seq": 4, "event_id": "Y:4", "table": "X"})),
            ("events", event(2)),
        ]:
            client.publish(root + topic, payload, qos=1).wait_for_publish(5)
        wait_until(lambda: query(floor_db, "SELECT count(*) FROM floor_events")[0][0] == 3,
                   20, "three events")  # fmt: skip
    finally:
        client.loop_stop()
        client.disconnect()
        assert stop(recorder) == 0, log.read_text()[-3000:]
    rows = query(floor_db, "SELECT seq, payload FROM floor_events ORDER BY seq")
    assert [(seq, p.get("amount"), p.get("player")) for seq, p in rows] == [
        (1, "10", None), (2, None, None), (3, None, None)
    ]  # fmt: skip
    (staked, insured, net), = query(
        floor_db, "SELECT staked, insured, house_net FROM floor_outcomes"
    )  # fmt: skip
    assert (staked, insured, net) == (Decimal("10"), Decimal("5"), Decimal("-7.50"))
    text = log.read_text()
    assert "X/events: not JSON" in text
    assert "event_id 'Y:4' is not X:4" in text
    assert "refused by the database" in text
    assert query(floor_db, "SELECT contiguous_seq FROM floor_tables")[0][0] == 3


def test_a_restarted_recorder_still_asks_for_an_outcome_it_never_got(
    mosquitto: BrokerProcess, floor_db: str, tmp_path: Path
) -> None:
    """What it committed before it stopped says round 1 was settled at seq 3 and its
    outcome never came: the next start asks the table from there."""
    with psycopg.connect(floor_db) as conn:
        migrate(conn)
        for seq in (1, 2, 3):
            kind = "round_settled" if seq == 3 else "bet_placed"
            conn.execute(
                "INSERT INTO floor_events (table_id, seq, event_id, round, type, payload) "
                "VALUES ('X', %s, %s, 1, %s, %s::jsonb)",
                (seq, f"X:{seq}", kind, event(seq, type=kind)),
            )
        conn.execute("INSERT INTO floor_tables (table_id, contiguous_seq, highest_seq) "
                     "VALUES ('X', 3, 3)")  # fmt: skip
    log = tmp_path / "recorder.log"
    recorder = start_recorder(mosquitto.url, floor_db, log)
    try:
        wait_until(lambda: bool(query(floor_db, "SELECT 1 FROM floor_repairs")), 20, "a request")
    finally:
        assert stop(recorder) == 0, log.read_text()[-3000:]
    assert query(floor_db, "SELECT table_id, from_seq FROM floor_repairs") == [("X", 3)]
