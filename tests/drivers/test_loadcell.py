"""The load-cell bet sensors against a fake board on a real pty: pyserial,
framing, settling, faults and reconnection are the real code."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import pytest

from drivers.fake_serial import FakeSerialDevice
from drivers.interfaces import BetSeen, SensorFault
from drivers.loadcell.channel import SettleSettings
from drivers.loadcell.driver import LoadCellBets
from drivers.loadcell.fake_board import FakeBoard
from drivers.loadcell.scale import ScaleCalibration
from drivers.serial.link import LinkSettings
from drivers.settings import SpotSection
from tests.drivers.conftest import Events, wait_until

SETTLE = SettleSettings(
    settle_s=0.15, band_g=2.0, stuck_frames=40, flap_changes=8, flap_window_s=2.0
)


def spots(n: int = 3) -> list[SpotSection]:
    return [SpotSection(channel=c, box=c) for c in range(1, n + 1)]


@pytest.fixture
def board(device: FakeSerialDevice, calibration: ScaleCalibration) -> Iterator[FakeBoard]:
    b = FakeBoard(device, calibration, channels=3)
    b.start()
    yield b
    b.stop()


@pytest.fixture
def driver(
    device: FakeSerialDevice, calibration: ScaleCalibration, events: Events
) -> Iterator[LoadCellBets]:
    d = LoadCellBets(
        LinkSettings(str(device.path), backoff_min=0.05, backoff_max=0.2, silence=1.0),
        calibration,
        spots(),
        SETTLE,
    )
    d.start(events)
    yield d
    d.stop()


def bet(box: int, amount: str) -> BetSeen:
    return BetSeen(box, 0, Decimal(amount), "stake")


def test_a_settled_weight_is_a_bet(board: FakeBoard, driver: LoadCellBets, events: Events) -> None:
    board.put(2, 2 * 10.0 + 27.5)  # two 5s and a 25
    assert events.wait_for(BetSeen, lambda e: e.box == 2) == bet(2, "35")
    board.put(2, 0.0)
    events.wait_for(BetSeen, lambda e: e == bet(2, "0"))
    assert not events.of(SensorFault)


def test_a_moving_weight_is_no_bet_until_it_settles(
    board: FakeBoard, driver: LoadCellBets, events: Events
) -> None:
    # Chips being stacked one by one, faster than the settle time: no bet for the
    # intermediate stacks, one bet for the final one.
    wait_until(lambda: driver.frames > 5, what="frames")
    for chips in range(1, 6):
        board.put(1, 10.0 * chips)
        wait_until(lambda: driver.frames > 0, what="frames")
    seen = events.wait_for(BetSeen, lambda e: e.box == 1)
    assert seen == bet(1, "25")
    assert [e for e in events.of(BetSeen) if e.box == 1] == [bet(1, "25")]


def test_unplug_and_replug(
    device: FakeSerialDevice, board: FakeBoard, driver: LoadCellBets, events: Events
) -> None:
    board.put(1, 10.0)
    events.wait_for(BetSeen, lambda e: e == bet(1, "5"))
    device.unplug()
    lost = events.wait_for(SensorFault, lambda e: e.device == "loadcell")
    assert lost.box is None and ("lost" in lost.detail or "no valid line" in lost.detail)
    assert not driver.connected.is_set() or not device.plugged
    board.put(1, 20.0)  # the player changes the bet while the cable is out
    device.replug()
    events.wait_for(BetSeen, lambda e: e == bet(1, "10"))
    assert driver.opens >= 2
    assert driver.health_report()[0].ok


def test_starts_without_the_board_and_picks_it_up_later(
    tmp_path: object, calibration: ScaleCalibration, events: Events, device: FakeSerialDevice
) -> None:
    device.unplug()
    d = LoadCellBets(
        LinkSettings(str(device.path), backoff_min=0.05, backoff_max=0.2, silence=1.0),
        calibration,
        spots(),
        SETTLE,
    )
    d.start(events)
    try:
        fault = events.wait_for(SensorFault)
        assert "cannot open" in fault.detail
        wait_until(lambda: d.health.reported == 1, what="one fault")
        b = FakeBoard(device, calibration, channels=3)
        device.replug()
        b.start()
        b.put(3, 27.5)
        events.wait_for(BetSeen, lambda e: e == bet(3, "25"))
        # Retrying did not repeat the alert: one fault for the whole outage.
        assert len(events.of(SensorFault)) == 1
        b.stop()
    finally:
        d.stop()


def test_stuck_sensor(board: FakeBoard, driver: LoadCellBets, events: Events) -> None:
    board.put(2, 10.0)
    events.wait_for(BetSeen, lambda e: e == bet(2, "5"))
    board.stick(2)
    fault = events.wait_for(SensorFault, lambda e: e.box == 2)
    assert "stuck" in fault.detail
    board.put(2, 10.0)  # alive again
    wait_until(lambda: all(h.ok for h in driver.health_report()), what="recovery")
    assert len([f for f in events.of(SensorFault) if f.box == 2]) == 1


def test_out_of_range_and_failed_channel(
    board: FakeBoard, driver: LoadCellBets, events: Events
) -> None:
    board.raw(1, (1 << 23) - 1)  # the ADC's rail: a broken wire
    assert "out of range" in events.wait_for(SensorFault, lambda e: e.box == 1).detail
    board.fail(3)
    assert "cannot read" in events.wait_for(SensorFault, lambda e: e.box == 3).detail
    assert not [e for e in events.of(BetSeen) if e.box in (1, 3)]


def test_flapping_sensor(board: FakeBoard, driver: LoadCellBets, events: Events) -> None:
    board.flap(1, 0.0, 100.0)
    assert "flapping" in events.wait_for(SensorFault, lambda e: e.box == 1).detail
    # Nothing it said while flapping was taken for a bet of 100 g's worth.
    assert not [e for e in events.of(BetSeen) if e.box == 1 and e.amount > 0]
    board.put(1, 10.0)
    events.wait_for(BetSeen, lambda e: e == bet(1, "5"))


def test_garbage_partial_oversized_and_wrong_checksum(
    device: FakeSerialDevice, calibration: ScaleCalibration, events: Events
) -> None:
    from drivers.loadcell.frame import encode_frame

    d = LoadCellBets(
        LinkSettings(str(device.path), backoff_min=0.05, silence=None, garbled=4),
        calibration,
        spots(),
        SETTLE,
    )
    d.start(events)
    try:
        good = encode_frame(7, [81_000 + 421 * 10, 82_000, 83_000])
        bad_crc = good[:-4] + (b"0" if good[-4:-3] != b"0" else b"1") + good[-3:]
        # pyserial empties the input buffer when it opens the port: write after that.
        assert d.connected.wait(15)
        device.write(b"\x00\xff garbage \xfe\n")
        device.write(good[:20])  # a partial frame, its rest never comes...
        device.write(b"\n")
        device.write(b"$LC1," + b"9" * 600 + b"\n")  # oversized
        device.write(bad_crc)
        wait_until(lambda: d.rejected >= 4, what="four rejected lines")
        garbled = events.wait_for(SensorFault, lambda e: "bad lines" in e.detail)
        assert garbled.box is None
        assert not events.of(BetSeen)
        # ... and good frames are read again afterwards.
        device.stream(
            lambda i: encode_frame(8 + i, [81_000 + 4210 + i % 3, 82_000 + i % 3, 83_000 + i % 3])
        )
        events.wait_for(BetSeen, lambda e: e == bet(1, "5"))
        wait_until(lambda: d.health_report()[0].ok, what="the garbled fault to clear")
    finally:
        d.stop()


def test_presence_sensor_and_scale_disagree(
    device: FakeSerialDevice, calibration: ScaleCalibration, board: FakeBoard, events: Events
) -> None:
    empty_says_presence = {1: False, 2: None, 3: True}
    d = LoadCellBets(
        LinkSettings(str(device.path), backoff_min=0.05, silence=1.0),
        calibration,
        spots(),
        SETTLE,
        presence=empty_says_presence.get,
    )
    d.start(events)
    try:
        board.put(1, 10.0)  # the scale reads a 5 ...
        fault = events.wait_for(SensorFault, lambda e: e.box == 1)
        assert "presence sensor sees no chips" in fault.detail  # ... the sensor sees none
        events.wait_for(BetSeen, lambda e: e == bet(1, "5"))  # the scale is still reported
        board.put(2, 10.0)  # presence unknown (flapping, not set up): no judgement
        events.wait_for(BetSeen, lambda e: e == bet(2, "5"))
        assert not [f for f in events.of(SensorFault) if f.box == 2]
        # Box 3's sensor sees chips on a spot the scale weighs empty: the other way round.
        third = events.wait_for(SensorFault, lambda e: e.box == 3)
        assert "sees chips but the scale reads a stake of 0" in third.detail
    finally:
        d.stop()


def test_insurance_and_behind_spots(
    device: FakeSerialDevice, calibration: ScaleCalibration, board: FakeBoard, events: Events
) -> None:
    d = LoadCellBets(
        LinkSettings(str(device.path), backoff_min=0.05, silence=1.0),
        calibration,
        [
            SpotSection(channel=1, box=4),
            SpotSection(channel=2, box=4, spot=1),
            SpotSection(channel=3, box=4, kind="insurance"),
        ],
        SETTLE,
    )
    d.start(events)
    try:
        board.put(2, 27.5)
        board.put(3, 10.0)
        assert events.wait_for(BetSeen, lambda e: e.spot == 1) == BetSeen(4, 1, Decimal(25))
        assert events.wait_for(BetSeen, lambda e: e.kind == "insurance") == BetSeen(
            4, 0, Decimal(5), "insurance"
        )
    finally:
        d.stop()
