"""The serial card shoe and the serial keypad against fake devices on ptys."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from drivers.fake_serial import FakeSerialDevice
from drivers.interfaces import CardRead, PanelPress, SensorFault
from drivers.serial import keypad as kp
from drivers.serial import shoe as cs
from drivers.serial.link import LinkSettings
from tests.drivers.conftest import Events, wait_until


def link(device: FakeSerialDevice, silence: float | None = None) -> LinkSettings:
    return LinkSettings(str(device.path), backoff_min=0.05, backoff_max=0.2, silence=silence)


@pytest.fixture
def shoe(device: FakeSerialDevice, events: Events) -> Iterator[cs.SerialShoe]:
    s = cs.SerialShoe(link(device))
    s.start(events)
    assert s.connected.wait(15)
    yield s
    s.stop()


@pytest.fixture
def keypad(device: FakeSerialDevice, events: Events) -> Iterator[kp.SerialKeypad]:
    k = kp.SerialKeypad(link(device), hold_s=1.0)
    k.start(events)
    assert k.connected.wait(15)
    yield k
    k.stop()


def test_cards_in_order_resends_ignored(
    device: FakeSerialDevice, shoe: cs.SerialShoe, events: Events
) -> None:
    device.write(cs.encode_card(1, "AS") + cs.encode_card(1, "AS") + cs.encode_heartbeat(2))
    device.write(cs.encode_card(3, "TH") + cs.encode_card(4, None))
    events.wait_for(CardRead, lambda e: e.card is None)
    assert events.of(CardRead) == [
        CardRead("AS", 1.0, "shoe"),
        CardRead("TH", 1.0, "shoe"),
        CardRead(None, 0.0, "shoe"),
    ]
    assert not events.of(SensorFault)


def test_a_lost_line_is_a_fault_at_once(
    device: FakeSerialDevice, shoe: cs.SerialShoe, events: Events
) -> None:
    device.write(cs.encode_card(10, "AS") + cs.encode_card(12, "KD"))
    fault = events.wait_for(SensorFault)
    assert "1 line(s) lost" in fault.detail and "card may be missing" in fault.detail
    events.wait_for(CardRead, lambda e: e.card == "KD")


def test_garbage_and_a_wrong_checksum_are_no_cards(
    device: FakeSerialDevice, shoe: cs.SerialShoe, events: Events
) -> None:
    good = cs.encode_card(5, "QC")
    device.write(b"\xde\xad\xbe\xef\r\n" + good.replace(b"QC", b"QD") + good[:9] + b"\n")
    device.write(cs.encode_card(6, "2H"))
    events.wait_for(CardRead)
    assert events.of(CardRead) == [CardRead("2H", 1.0, "shoe")]
    assert shoe.rejected == 3


def test_shoe_unplug_and_replug(
    device: FakeSerialDevice, shoe: cs.SerialShoe, events: Events
) -> None:
    device.write(cs.encode_card(1, "AS"))
    events.wait_for(CardRead)
    device.unplug()
    assert "lost" in events.wait_for(SensorFault).detail
    device.replug()
    wait_until(lambda: shoe.opens == 2 and shoe.connected.is_set(), what="the reopen")
    device.write(cs.encode_card(0, "9C"))  # the shoe restarted: its count starts over
    events.wait_for(CardRead, lambda e: e.card == "9C")
    assert len(events.of(SensorFault)) == 1
    assert shoe.health_report()[0].ok


def test_a_silent_shoe_is_reopened(device: FakeSerialDevice, events: Events) -> None:
    s = cs.SerialShoe(link(device, silence=0.3))
    s.start(events)
    try:
        assert "no valid line" in events.wait_for(SensorFault).detail
        wait_until(lambda: s.opens >= 2, what="a reopen")
        device.stream(lambda i: cs.encode_heartbeat(i), period=0.05)
        wait_until(lambda: s.health_report()[0].ok, what="the shoe to be well")
    finally:
        device.stop_stream()
        s.stop()


def test_keypad_keys_and_cards(
    device: FakeSerialDevice, keypad: kp.SerialKeypad, events: Events
) -> None:
    device.write(kp.encode_key(1, "stand", 120) + kp.encode_card(2, "QH"))
    device.write(kp.encode_key(3, "void", 300))  # a brushed void key: ignored
    device.write(kp.encode_key(4, "void", 1500))  # held: a void
    events.wait_for(PanelPress, lambda e: e.button == "void")
    assert events.of(PanelPress) == [
        PanelPress("stand"),
        PanelPress("key_card", card="QH"),
        PanelPress("void"),
    ]
    assert keypad.ignored == ["void"]


def test_keypad_resend_is_one_press(
    device: FakeSerialDevice, keypad: kp.SerialKeypad, events: Events
) -> None:
    line = kp.encode_key(7, "double", 90)
    device.write(line + line + kp.encode_key(8, "stand", 80))
    events.wait_for(PanelPress, lambda e: e.button == "stand")
    assert [e.button for e in events.of(PanelPress)] == ["double", "stand"]
