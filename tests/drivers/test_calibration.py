"""Scale calibration: weight to stake, refusals with reasons, the file format,
and `croupier calibrate scale` against a fake board on a pty."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from calibration import scale
from controller import scale_file
from controller.cli import calibrate_scale
from drivers.fake_serial import FakeSerialDevice
from drivers.loadcell.fake_board import FakeBoard
from drivers.loadcell.scale import (
    CalibrationError,
    ChannelCal,
    Denomination,
    ScaleCalibration,
    check,
)
from tests.drivers.conftest import make_calibration

D = Decimal


def test_a_weight_is_the_stake_of_the_stack_that_fits(calibration: ScaleCalibration) -> None:
    assert calibration.stakes(0.3) == {D(0)}
    assert calibration.stakes(10.2) == {D(5)}
    assert calibration.stakes(3 * 10 + 2 * 27.5 + 0.4) == {D(65)}
    assert calibration.stakes(5.0) == set()  # half a chip: nothing fits


def test_a_heavy_mixed_stack_can_be_ambiguous_and_says_so(calibration: ScaleCalibration) -> None:
    # 11 fives (110 g) and 4 twenty-fives (110 g) weigh the same: no stake is claimed.
    assert calibration.stakes(110.0) == {D(55), D(100)}


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            {"denominations": (Denomination(D(5), 10.0), Denomination(D(25), 15.0))},
            "too close to tell",
        ),
        ({"channels": (ChannelCal(1, 0, 0.5),)}, "too weak a signal"),
        ({"channels": (ChannelCal(1, 1 << 24, 400.0),)}, "off the 24-bit range"),
        ({"noise_g": 6.0}, "half a chip"),
        ({"denominations": (Denomination(D(5), 10.0), Denomination(D(5), 30.0))}, "twice"),
        ({"denominations": (Denomination(D("0.001"), 10.0),)}, "in cents"),
    ],
)
def test_a_bad_calibration_is_refused_with_the_reason(
    change: dict[str, object], reason: str
) -> None:
    import dataclasses

    bad = dataclasses.replace(make_calibration(), **change)  # type: ignore[arg-type]
    with pytest.raises(CalibrationError, match=reason):
        check(bad)


def test_the_file_round_trips_and_is_versioned(
    tmp_path: Path, calibration: ScaleCalibration
) -> None:
    path = tmp_path / "scale.json"
    scale_file.save(calibration, path)
    data = json.loads(path.read_text())
    assert data["format"] == "croupier-scale" and data["version"] == 1
    assert data["denominations"][0] == {"value": "5", "grams": 10.0}
    assert scale_file.load(path) == calibration
    data["version"] = 2
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="version 2 is not supported"):
        scale_file.load(path)
    data["version"] = 1
    data["extra"] = 1
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="unknown keys: extra"):
        scale_file.load(path)


def test_tare_and_span_refusals() -> None:
    with pytest.raises(CalibrationError, match="wanders"):
        scale.tare(1, [0, 10_000, -10_000, 5_000])
    with pytest.raises(CalibrationError, match="could not read"):
        scale.tare(1, [0, None])
    with pytest.raises(CalibrationError, match="moved the reading by only"):
        scale.span(2, [1000, 1001], 1000, 500.0)


class Person:
    """Does what the tool asks, on the fake board."""

    def __init__(self, board: FakeBoard, truth: ScaleCalibration) -> None:
        self.board = board
        self.truth = truth
        self.asked: list[str] = []

    def __call__(self) -> str:
        text = self.asked_text()
        for ch in range(1, self.board.channels + 1):
            self.board.put(ch, 0.0)
        if "weight on channel" in text:
            self.board.put(int(text.split("channel ")[1].split()[0]), 500.0)
        elif "chips of 25" in text:
            self.board.put(1, 20 * 27.5)
        return ""

    def asked_text(self) -> str:
        return self.asked[-1] if self.asked else ""


def test_calibrate_scale_on_a_fake_board(
    device: FakeSerialDevice,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    truth = make_calibration(3)
    board = FakeBoard(device, truth, channels=3, period=0.01)
    person = Person(board, truth)
    real_print = print

    def spy_print(*args: object, **kw: object) -> None:
        person.asked.append(" ".join(map(str, args)))
        real_print(*args, **kw)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.input", person)
    monkeypatch.setattr(calibrate_scale, "print", spy_print, raising=False)
    board.start()
    out = tmp_path / "scale.json"
    try:
        status = calibrate_scale.main(
            [
                "--port",
                str(device.path),
                "--channels",
                "1-3",
                "--known-grams",
                "500",
                "--chip",
                "5=10",
                "--chip",
                "25",
                "--samples",
                "10",
                "--noise-g",
                "0.5",
                "--chip-tolerance-g",
                "0.1",
                "--unique-up-to",
                "8",
                "--out",
                str(out),
            ]
        )
    finally:
        board.stop()
    assert status == 0, capsys.readouterr().err
    cal = scale_file.load(out)
    for c, t in zip(cal.channels, truth.channels, strict=True):
        assert abs(c.offset - t.offset) <= 3
        assert abs(c.counts_per_gram - t.counts_per_gram) < 0.05
    assert cal.denominations[1].value == D(25)
    assert abs(cal.denominations[1].grams - 27.5) < 0.01
    assert cal.stakes(2 * 27.5 + 10) == {D(55)}  # two 25s and a 5


def test_calibrate_scale_refuses_chips_it_cannot_tell_apart(
    device: FakeSerialDevice,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    board = FakeBoard(device, make_calibration(1), channels=1, period=0.01)
    steps = iter([0.0, 500.0, 500.0])
    monkeypatch.setattr("builtins.input", lambda: board.put(1, next(steps)) or "")
    board.start()
    try:
        status = calibrate_scale.main(
            [
                "--port",
                str(device.path),
                "--channels",
                "1",
                "--known-grams",
                "500",
                "--chip",
                "5=10",
                "--chip",
                "25=15",
                "--samples",
                "5",
                "--out",
                str(tmp_path / "scale.json"),
            ]
        )
    finally:
        board.stop()
    assert status == 2
    assert "too close to tell" in capsys.readouterr().err
    assert not (tmp_path / "scale.json").exists()


def test_calibrate_scale_without_a_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = calibrate_scale.main(
        [
            "--port",
            str(tmp_path / "nothing"),
            "--known-grams",
            "500",
            "--chip",
            "5=10",
            "--out",
            str(tmp_path / "s.json"),
        ]
    )
    assert status == 2 and "cannot open" in capsys.readouterr().err


def test_register_scale_adds_the_subcommand() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd")
    calibrate_scale.register(sub)
    args = parser.parse_args(["calibrate", "scale", "--check", "x.json"])
    assert args.handler is calibrate_scale.run and args.check == Path("x.json")
