"""Driver records in, engine events or alerts out: the service with fake drivers.

"Drive the fake, assert the event": each test works the fake shoe, sensors
and panel like a dealer would and reads what the service stored for the
pit (the outbox), with no broker (the outbox only fills).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.config import Config, override
from controller.service import Service
from drivers.fakes import FakeBetSensor, FakeShoe
from drivers.interfaces import DriverSet
from sim.card_shoe import SimShoe
from sim.keypad import SimKeypad
from tests.service.contract import validate


class Table:
    def __init__(
        self, tmp: Path, rules: str = "fr-2007", shoe: SimShoe | FakeShoe | None = None
    ) -> None:
        config = override(
            Config(), "test", table={"id": "t", "rules": rules}, state={"dir": tmp, "fsync": False}
        )
        self.shoe = shoe or SimShoe()
        self.bets, self.panel = FakeBetSensor(), SimKeypad()
        self.service = Service(config, DriverSet(self.shoe, self.bets, self.panel), None)
        self.service.start()
        self.seen = 0

    def new(self) -> list[dict[str, Any]]:
        """What the service stored for the pit since the last call (schema-checked)."""
        self.service.drain()
        rows = self.service.store.rows_from(1, 10_000)[self.seen :]
        self.seen += len(rows)
        out = []
        for row in rows:
            payload = json.loads(row.payload)
            validate(row.topic, payload)
            out.append({"topic": row.topic, **payload})
        return out

    def kinds(self) -> list[str]:
        return [m.get("type") or m["kind"] for m in self.new() if m["topic"] != "outcome"]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    t = Table(tmp_path)
    yield t
    t.service.store.close()


def deal_start(t: Table) -> None:
    t.bets.place(1, "10")
    t.bets.place(2, "20")
    t.panel.press("close_bets")
    assert t.kinds() == ["bet_placed", "bet_placed", "bets_closed"]


def test_cards_go_to_the_hand_the_engine_expects(table: Table) -> None:
    deal_start(table)
    for card in ("9H", "8D", "7C", "TS", "5H"):
        table.shoe.draw(card)
    kinds = table.kinds()
    assert kinds.count("card_dealt") == 5 and kinds[-1] == "turn_started"
    table.panel.press("stand")  # the box in play: the panel needs no box number
    assert table.kinds()[0] == "stood"


def test_burn_cards_after_a_new_shoe_are_burns_and_never_shown(tmp_path: Path) -> None:
    t = Table(tmp_path, "fr-classic")  # burns 5
    t.panel.press("new_shoe")
    for card in ("2S", "3S", "4S", "5S", "6S"):
        t.shoe.draw(card)
    burns = [m for m in t.new() if m.get("type") == "card_burned"]
    assert len(burns) == 5 and all(m["card"] is None for m in burns)


def test_an_unreadable_card_waits_for_the_dealer_to_key_it_in(table: Table) -> None:
    deal_start(table)
    table.shoe.draw(None)
    alert = table.new()
    assert [a["kind"] for a in alert] == ["unreadable"]
    assert table.service.intake.awaiting_key
    table.shoe.draw("KD")  # the next card may not overtake the unread one
    assert [m["kind"] for m in table.new()] == ["card_while_waiting"]
    table.panel.press("key_card", card="QH")
    dealt = [m for m in table.new() if m.get("type") == "card_dealt"]
    assert [d["card"] for d in dealt] == ["QH"] and dealt[0]["box"] == 1
    assert not table.service.intake.awaiting_key


def test_a_low_confidence_read_counts_as_unreadable(tmp_path: Path) -> None:
    # A half-read card is a camera's: the serial shoe reads a card or not at all, and
    # the camera driver reads images, not a confidence a test picks. So a fake shoe.
    shoe = FakeShoe()
    t = Table(tmp_path, shoe=shoe)
    try:
        deal_start(t)
        shoe.draw("AS", confidence=0.49)  # under [cards] min_confidence, 0.5
        assert t.kinds() == ["unreadable"]
        t.panel.press("key_card", card="AS")
        shoe.draw("KD", confidence=0.5)
        assert t.kinds() == ["card_dealt", "card_dealt"]
    finally:
        t.service.store.close()


def test_chips_moved_during_a_round_raise_late_or_pinched_bet(table: Table) -> None:
    deal_start(table)
    table.bets.place(1, "15")
    table.bets.place(2, "5")
    table.bets.place(2, "20")  # the same as its stake: the sensor only repeats itself
    alerts = table.new()
    assert [(a["kind"], a["box"]) for a in alerts] == [("late_bet", 1), ("pinched_bet", 2)]
    stakes = table.service.table.round.boxes  # type: ignore[union-attr]
    assert [b.stakes for b in stakes] == [{"box1": 10}, {"box2": 20}]  # unchanged


def test_a_refused_event_changes_nothing_and_says_why(table: Table) -> None:
    table.bets.place(1, "1")  # under the table minimum
    alert = table.new()[0]
    assert alert["kind"] == "refused" and "table minimum" in alert["message"]
    assert alert["event"] == {"type": "bet", "box": 1, "player": "box1", "amount": "1"}
    assert table.service.table.bets == {}


def test_a_seventh_ace_of_spades_is_a_foreign_card(table: Table) -> None:
    deal_start(table)
    table.service.table.shoe.seen["AS"] = 6  # as if all six were out already
    table.shoe.draw("AS")
    assert table.kinds() == ["foreign_card"]


def test_a_sensor_fault_is_an_alert(table: Table) -> None:
    table.bets.fault("load cell 3 reads negative", box=3)
    alert = table.new()[0]
    assert (alert["kind"], alert["box"]) == ("sensor_fault", 3)


def test_bets_behind_and_insurance_through_the_spots(tmp_path: Path) -> None:
    t = Table(tmp_path, "be-casino")
    t.bets.place(1, "10")
    t.bets.place(1, "6", spot=1)
    t.bets.place(2, "10")
    t.panel.press("close_bets")
    for card in ("9H", "8D", "AS", "TS", "5H"):
        t.shoe.draw(card)
    assert "insurance_offered" in t.kinds()
    t.bets.place(1, "3", spot=1, kind="insurance")
    t.panel.press("close_insurance")
    placed = [m for m in t.new() if m.get("type") == "insurance_placed"]
    assert placed[0]["player"] == "box1/1" and placed[0]["amount"] == "3"


def test_replay_rebuilds_the_table_and_regenerates_lost_messages(tmp_path: Path) -> None:
    t = Table(tmp_path)
    deal_start(t)
    for card in ("9H", "8D", "7C", "TS", "5H"):
        t.shoe.draw(card)
    t.shoe.draw(None)
    t.new()
    rows = t.service.store.rows_from(1, 1000)
    # A crash between the journal commit and the outbox commit of the last records:
    t.service.store.db.execute("DELETE FROM outbox WHERE source > 6")
    t.service.store.db.execute("UPDATE meta SET value = '6' WHERE key = 'outboxed'")
    t.service.store.close()
    again = Table(tmp_path)
    assert again.service.store.rows_from(1, 1000) == rows  # same ids, topics, payloads
    assert again.service.intake.awaiting_key  # the unreadable card still waits
    before = t.service.table
    after = again.service.table
    assert after.round is not None and before.round is not None
    assert after.round.dealer == before.round.dealer and after.shoe.out == before.shoe.out
