"""The simulator's card shoe: cards go through the real serial shoe driver on a
cable with no port, and arrive before `draw` returns. And what every simulated
board (sim.board) shares: nothing goes out while it is not plugged in."""

from __future__ import annotations

import pytest

from drivers.interfaces import CardRead
from sim.card_shoe import SimShoe
from sim.keypad import SimKeypad
from tests.drivers.conftest import Events


def test_cards_arrive_at_once_as_the_driver_decodes_them(events: Events) -> None:
    shoe = SimShoe()
    shoe.start(events)
    shoe.draw("AS")
    shoe.draw(None)  # a card the shoe could not read
    shoe.draw("TD")
    assert events.items == [
        CardRead("AS", 1.0, "shoe"),
        CardRead(None, 0.0, "shoe"),
        CardRead("TD", 1.0, "shoe"),
    ]
    assert shoe.driver.cards == 3 and shoe.driver.rejected == 0


def test_a_code_the_shoe_cannot_send_never_reaches_the_table(events: Events) -> None:
    shoe = SimShoe()
    shoe.start(events)
    shoe.draw("1H")  # no such card: the driver refuses the line
    assert events.items == [] and shoe.driver.rejected == 1
    shoe.draw("2H")  # the numbering went on: no line lost
    assert events.items == [CardRead("2H", 1.0, "shoe")]


@pytest.mark.parametrize("board", ["keypad", "shoe"])
def test_no_board_sends_before_start_or_after_stop(events: Events, board: str) -> None:
    sim: SimKeypad | SimShoe = SimKeypad() if board == "keypad" else SimShoe()

    def send() -> None:
        if isinstance(sim, SimKeypad):
            sim.press("stand")
        else:
            sim.draw("AS")

    with pytest.raises(RuntimeError, match="not plugged in"):
        send()
    sim.start(events)
    sim.stop()
    with pytest.raises(RuntimeError, match="not plugged in"):
        send()
    assert events.items == []
