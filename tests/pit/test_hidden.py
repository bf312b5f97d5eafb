"""Hidden information in what the table says about cards it could not take: an
unreadable or refused card that was going face down (or to the burn) is never
named on a topic a display reads. And the intake's idea of "going face down"
agrees with the engine's on every card of simulated shoes."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller import rules
from controller.config import Config, override
from controller.correction import step
from controller.engine import Table, ops
from controller.intake import Intake, next_card_hidden
from controller.journal import Store
from controller.records import decode
from drivers.fakes import FakeShoe
from drivers.interfaces import CardRead, PanelPress
from sim.runner import build
from tests.pit.harness import PitTable


@pytest.mark.parametrize("profile", ["pt", "us-holecard", "fr-classic"])
def test_the_intake_knows_which_card_goes_face_down_as_the_engine_does(
    tmp_path: Path, profile: str
) -> None:
    config = override(
        Config(),
        "test",
        table={"id": "h", "rules": profile},
        state={"dir": tmp_path, "fsync": False},
        sim={"rounds": 120, "speed": "max", "seed": 5},
    )
    build(config, offline=True).service.run()
    table = Table(rules.load(profile))
    intake = Intake(table, 0.9)
    store = Store(tmp_path, fsync=False)
    hidden = shown = 0
    try:
        for seq, data in store.records():
            record = decode(data)
            carded = isinstance(record, CardRead) or (
                isinstance(record, PanelPress) and record.button == "key_card"
            )
            predicted = next_card_hidden(table) if carded else None
            result = step(table, intake, seq, record)
            if predicted is None or result.event is None:
                continue
            placed = [op for op in result.ops if isinstance(op, ops.CardDealt | ops.CardBurned)]
            assert len(placed) == 1, (seq, result)
            down = isinstance(placed[0], ops.CardBurned) or placed[0].face_down
            assert predicted == down, (seq, placed[0])
            # The dealer's screen (seen by the players too) lists it as a back, or by its face.
            assert intake.reads[-1].card == (None if down else placed[0].card), seq
            hidden += down
            shown += not down
    finally:
        store.close()
    assert hidden > 20 and shown > 1000


def test_a_hole_card_the_camera_half_read_is_not_named_in_the_alert(tmp_path: Path) -> None:
    # A half-read card is a camera's: the serial shoe reads a card or not at all, and
    # the camera driver reads images, not a confidence a test picks. So a fake shoe.
    shoe = FakeShoe()
    t = PitTable(tmp_path, rules="us-holecard", shoe=shoe)
    try:
        t.deal_round_start(("9H", "8D", "7C", "TS", "5H"))
        shoe.draw("QC", confidence=0.45)  # the hole card, under the table's 0.5
        alert = next(m for m in t.new() if m["topic"] == "alerts")
        assert alert["kind"] == "unreadable" and "QC" not in str(alert)
        assert "a card going face down at 0.45" in alert["message"]
        t.panel.press("key_card", card="QC")
        assert all("QC" not in str(m) for m in t.new())
        # Visible cards are still named when half read: the dealer sees them anyway.
        t.panel.press("stand")  # box 1
        shoe.draw("4S", confidence=0.4)
        assert "read 4S at 0.40" in next(m for m in t.new() if m["topic"] == "alerts")["message"]
    finally:
        t.stop()


def test_a_foreign_card_dealt_as_the_hole_card_is_not_named(tmp_path: Path) -> None:
    t = PitTable(tmp_path, rules="us-holecard")
    try:
        for box in range(1, 7):
            t.bets.place(box, "10")
        t.panel.press("close_bets")
        for card in ["QC"] * 6 + ["5H"] + ["2D"] * 6:
            t.shoe.draw(card)
        t.new()
        t.shoe.draw("QC")  # the hole card would be a seventh queen of clubs: 6 decks hold 6
        alert = next(m for m in t.new() if m["topic"] == "alerts")
        assert alert["kind"] == "foreign_card" and alert["event"] == {"type": "card", "card": None}
        assert "QC" not in str(alert) and "queen" not in alert["message"]
        # The journal keeps what the shoe read, for the supervisor and surveillance.
        last = list(t.service.store.records())[-1][1]
        assert last["card"] == "QC"
    finally:
        t.stop()
