"""The service feeds the surveillance desk: fake drivers in, the outbox read back.

Drive the fakes like a dealer and players would (no broker: the outbox only
fills) and read what the service stored for each topic.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.config import Config, override
from controller.service import Service
from drivers.fakes import FakeBetSensor
from drivers.interfaces import DriverSet
from sim.card_shoe import SimShoe
from sim.keypad import SimKeypad
from tests.service.contract import validate
from tests.surveillance.helpers import profile_file


class Table:
    def __init__(self, tmp: Path, rules: str = "ref-enhc", surveillance: bool = True) -> None:
        config = override(
            Config(),
            "test",
            table={"id": "t", "rules": rules, "boxes": 3},
            state={"dir": tmp / "state", "fsync": False},
            mqtt={"surveillance": surveillance},
        )
        self.shoe, self.bets, self.panel = SimShoe(), FakeBetSensor(), SimKeypad()
        self.service = Service(config, DriverSet(self.shoe, self.bets, self.panel), None)
        self.service.start()

    def stored(self, topic: str) -> list[dict[str, Any]]:
        self.service.drain()
        rows = self.service.store.rows_from(1, 100_000)
        out = [json.loads(r.payload) for r in rows if r.topic == topic]
        for payload in out:
            validate(topic, payload)
        return out

    def topics(self) -> set[str]:
        self.service.drain()
        return {r.topic for r in self.service.store.rows_from(1, 100_000)}

    def round(self) -> None:
        """Box 1 (10) wins with 19, box 2 (20) loses with 16, box 3 (5) gets a blackjack,
        against a dealer's 7-T."""
        self.panel.press("new_shoe")
        for box, amount in ((1, "10"), (2, "20"), (3, "5")):
            self.bets.place(box, amount)
        self.panel.press("close_bets")
        for card in ("TS", "9S", "AH", "7C", "9H", "7S", "KD"):
            self.shoe.draw(card)
        self.panel.press("stand")  # box 1: 19
        self.panel.press("stand")  # box 2: 16
        self.shoe.draw("TD")  # the dealer: 17


def test_payouts_are_checked_and_a_blackjack_on_an_odd_stake_is_no_refused_bet(
    tmp_path: Path,
) -> None:
    t = Table(tmp_path)
    t.round()
    assert t.stored("outcome")[-1]["house_net"] == "2.50"
    t.bets.place(1, "25")  # the dealer overpays box 1 by 5
    t.bets.place(3, "12.50")  # pays the blackjack 3:2: not a bet the rules take (whole units)
    t.bets.place(1, "10")  # box 1 takes its winnings: the dealer is done; box 2 not collected
    errors = [a for a in t.stored("surveillance/alerts") if a["kind"] == "payout_error"]
    assert [(a["box"], a["what"], a["difference"]) for a in errors] == [
        (1, "overpaid", "5"),
        (2, "not_collected", "20"),
    ]
    public = t.stored("alerts")
    assert public == []  # the 12.50 on box 3 is the payout on the spot, not a refused bet
    t.service.store.close()


def test_a_foreign_card_goes_to_the_dealer_and_to_surveillance(tmp_path: Path) -> None:
    t = Table(tmp_path, profile_file(tmp_path, decks=1))
    t.panel.press("new_shoe")
    t.bets.place(1, "10")
    t.panel.press("close_bets")
    for card in ("AS", "7C", "5H", "AS"):
        t.shoe.draw(card)
    [public] = t.stored("alerts")
    assert public["kind"] == "foreign_card" and "remaining" not in public
    [watched] = t.stored("surveillance/alerts")
    assert (watched["kind"], watched["card"], watched["shoe_holds"], watched["out"]) == (
        "foreign_card",
        "AS",
        1,
        1,
    )
    t.service.store.close()


def test_nothing_of_it_without_the_setting(tmp_path: Path) -> None:
    t = Table(tmp_path, surveillance=False)
    t.round()
    t.bets.place(1, "25")
    assert not [topic for topic in t.topics() if topic.startswith("surveillance/")]
    assert t.service.surveillance is None and "surveillance/count" not in t.service.pump.slots
    t.service.store.close()


def test_a_restart_rebuilds_the_desk_from_the_journal(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.round()
    t.bets.place(1, "25")
    t.bets.place(1, "10")
    alerts = t.stored("surveillance/alerts")  # (drains the queue)
    before = dict(t.service.pump.slots)
    assert alerts and json.loads(before["surveillance/count"])["cards_out"] == 8
    t.service.store.close()
    again = Table(tmp_path)  # replays the journal
    for topic in ("surveillance/count", "surveillance/players"):
        assert again.service.pump.slots[topic] == before[topic]
        validate(topic, json.loads(before[topic]))
    assert again.stored("surveillance/alerts") == alerts  # not regenerated twice
    again.service.store.close()
