"""The simulator's keypad: presses go through the real serial keypad driver on a
cable with no port, and arrive before `press` returns."""

from __future__ import annotations

import pytest

from drivers.fake_serial import Cable
from drivers.interfaces import CardRead, PanelPress, SensorFault
from drivers.serial import shoe as cs
from drivers.serial.link import LinkSettings
from sim.keypad import SimKeypad
from tests.drivers.conftest import Events


def test_presses_arrive_at_once_as_the_driver_decodes_them(events: Events) -> None:
    keypad = SimKeypad()
    keypad.start(events)
    keypad.press("close_bets")
    keypad.press("stand")
    keypad.press("key_card", card="QH")
    keypad.press("new_shoe")  # a costly key: held as long as the driver asks
    assert events.items == [
        PanelPress("close_bets"),
        PanelPress("stand"),
        PanelPress("key_card", card="QH"),
        PanelPress("new_shoe"),
    ]
    assert keypad.driver.rejected == 0 and keypad.driver.ignored == []


def test_the_driver_checks_what_the_keypad_sends(events: Events) -> None:
    keypad = SimKeypad()
    keypad.start(events)
    keypad.press("key_card", card="1H")  # no such card: the driver refuses the line
    assert events.items == [] and keypad.driver.rejected == 1
    with pytest.raises(ValueError, match="needs the card"):
        keypad.press("key_card")


def test_a_cable_numbers_lines_afresh_when_plugged_in(events: Events) -> None:
    shoe = cs.SerialShoe(LinkSettings("sim-shoe"))
    cable = Cable(shoe)
    cable.start(events)
    cable.write(cs.encode_card(7, "AS") + cs.encode_card(9, "KD"))  # line 8 lost
    assert [type(e) for e in events.items] == [CardRead, SensorFault, CardRead]
    cable.stop()
    cable.start(events)
    cable.write(cs.encode_card(1, "2C"))  # a restarted shoe: no gap
    assert events.items[-1] == CardRead("2C", 1.0, "shoe")
    assert sum(isinstance(e, SensorFault) for e in events.items) == 1
