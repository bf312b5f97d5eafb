"""`croupier run` on fake hardware, end to end over MQTT: it starts with whatever
works and says what does not, picks a device up when it is plugged in, and
a bet changed after no more bets is a `late_bet` alert."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from controller.scale_file import save
from drivers.fake_serial import FakeSerialDevice
from drivers.loadcell.fake_board import FakeBoard
from drivers.serial import keypad as kp
from drivers.serial import shoe as cs
from tests.drivers.conftest import make_calibration
from tests.service.conftest import BrokerProcess, Subscriber, broker, subscribe

__all__ = ["broker", "subscribe"]


def config(tmp: Path, url: str, board: Path, shoe: Path, keypad: Path) -> Path:
    scale = tmp / "scale.json"
    save(make_calibration(3), scale)
    path = tmp / "table.toml"
    path.write_text(f"""
[table]
id = "hw"
[state]
dir = "{tmp / "state"}"
fsync = false
[mqtt]
broker = "{url}"
[drivers.loadcell]
port = "{board}"
calibration = "{scale}"
settle_s = 0.2
spots = [{{ channel = 1, box = 1 }}, {{ channel = 2, box = 2 }}, {{ channel = 3, box = 3 }}]
[drivers.shoe]
port = "{shoe}"
backoff_max_s = 0.5
[drivers.keypad]
port = "{keypad}"
[drivers.panel]
buttons = {{ close_bets = 5, stand = 6 }}
""")
    return path


def devices(sub: Subscriber) -> dict[str, bool]:
    status = sub.on("status")
    if not status or "devices" not in status[-1].payload:
        return {}
    out: dict[str, bool] = {}
    for d in status[-1].payload["devices"]:
        out[d["device"]] = out.get(d["device"], True) and d["ok"]
    return out


def test_run_on_fake_hardware(
    broker: BrokerProcess, subscribe: Callable[..., Subscriber], tmp_path: Path
) -> None:
    board_dev = FakeSerialDevice(tmp_path / "ttyLC")
    shoe_dev = FakeSerialDevice(tmp_path / "ttyCS", plugged=False)  # not plugged in yet
    keypad_dev = FakeSerialDevice(tmp_path / "ttyKP")
    board = FakeBoard(board_dev, make_calibration(3), channels=3)
    board.start()
    keypad_dev.stream(lambda i: kp.encode_heartbeat(i), period=0.5)
    sub = subscribe(broker.port, "hw")
    cfg = config(tmp_path, broker.url, board_dev.path, shoe_dev.path, keypad_dev.path)
    err = tmp_path / "run.err"
    with open(err, "wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "controller",
                "run",
                "--config",
                str(cfg),
                "--log-level",
                "warning",
            ],
            stderr=out,
        )
    try:
        # Up with what works: the scale and the keypad; not the shoe (unplugged) nor the
        # GPIO panel (no RPi.GPIO here). Said on stderr, on `status` and as alerts.
        sub.wait_for(
            lambda: (
                devices(sub).get("loadcell") is True
                and devices(sub).get("shoe") is False
                and devices(sub).get("panel") is False
            ),
            30,
            "the devices in status",
        )
        sub.wait_for(lambda: "NOT working" in err.read_text(), 30, "the start-up summary")
        text = err.read_text()
        assert "shoe: cannot open" in text and "rpi-lgpio" in text
        faults = [m.payload for m in sub.on("alerts") if m.payload["kind"] == "sensor_fault"]
        assert any("shoe" in a["message"] for a in faults)
        # The shoe is plugged in: picked up without a restart.
        shoe_dev.replug()
        shoe_dev.stream(lambda i: cs.encode_heartbeat(i), period=0.5)
        sub.wait_for(lambda: devices(sub).get("shoe") is True, 30, "the shoe to be picked up")
        # A bet from the scale, no more bets from the keypad, then chips added.
        board.put(1, 20.0)  # two 5s
        board.put(2, 27.5)  # a 25 (be-casino deals to two boxes at least)
        sub.wait_for(
            lambda: (
                len([m for m in sub.on("events") if m.payload.get("type") == "bet_placed"]) == 2
            ),
            30,
            "the bets",
        )
        keypad_dev.write(kp.encode_key(60_000, "close_bets", 100))
        sub.wait_for(
            lambda: any(m.payload.get("type") == "bets_closed" for m in sub.on("events")),
            30,
            f"no more bets: {[m.payload for m in sub.on('alerts')][-3:]}",
        )
        board.put(1, 20.0 + 27.5)  # a 25 slipped on after the close
        sub.wait_for(
            lambda: any(m.payload["kind"] == "late_bet" for m in sub.on("alerts")),
            30,
            "the late bet",
        )
        late = next(m.payload for m in sub.on("alerts") if m.payload["kind"] == "late_bet")
        assert (late["box"], late["amount"], late["stake"]) == (1, "25", "10")
        bet = next(m.payload for m in sub.on("events") if m.payload.get("type") == "bet_placed")
        assert (bet["box"], bet["amount"]) == (1, "10")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        board.stop()
        for dev in (board_dev, shoe_dev, keypad_dev):
            dev.close()
    assert proc.returncode == 0, err.read_text()[-3000:]
