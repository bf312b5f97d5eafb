"""The table's faults, one test each: the disk fills up, the wall clock jumps back,
the shoe camera stops, the serial shoe is unplugged. (A broker outage is
tests/service/test_crash.py::test_broker_outage_of_ten_seconds_loses_no_outcome.)

Each shows the same three things: the table keeps going where it can, says so
(alerts, status, log, systemd), and loses nothing."""

from __future__ import annotations

import contextlib
import errno
import itertools
import json
import os
import re
import socket
import subprocess
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from controller.cli import main
from drivers.camera.capture import Capture
from drivers.camera.driver import CameraDriver
from drivers.camera.source import CardSource
from drivers.fake_serial import FakeSerialDevice
from drivers.serial import shoe as serial_shoe
from drivers.serial.link import LinkSettings
from tests.pit.harness import PitTable, answer, events
from tests.service.conftest import BrokerProcess, Subscriber


def wait(check: Callable[[], Any], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out after {seconds}s waiting for {what}")


class Systemd:
    """The receiving end of NOTIFY_SOCKET: every datagram the table sends, in order,
    with the (monotonic) time it arrived."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.1)
        self.said: list[tuple[float, str]] = []
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._listen, daemon=True)
        self.thread.start()

    def _listen(self) -> None:
        while not self.done.is_set():
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                continue
            with self.lock:
                self.said.append((time.monotonic(), data.decode()))

    def read(self) -> list[tuple[float, str]]:
        with self.lock:
            return list(self.said)

    def close(self) -> None:
        self.done.set()
        self.thread.join(timeout=2)
        self.sock.close()


@pytest.fixture
def systemd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Systemd]:
    fake = Systemd(tmp_path / "notify")
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    monkeypatch.setenv("WATCHDOG_USEC", "2000000")  # pings every 0.5 s while healthy
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    yield fake
    fake.close()


# ------------------------------------------------------------------ disk full
@contextlib.contextmanager
def small_disk(where: Path) -> Iterator[tuple[Path, str]]:
    """A 4 MB file system to fill: tmpfs, which root can mount. Where mounting is not
    allowed, the disk is emulated with SQLite's max_page_count (the same SQLITE_FULL
    error reaches the table), and the test says so."""
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(where)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        warnings.warn(
            f"cannot mount a tmpfs here ({done.stderr.decode().strip()}): the full "
            "disk is emulated with SQLite's max_page_count",
            stacklevel=1,
        )
        yield where, "max_page_count"
        return
    try:
        yield where, "tmpfs"
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(path: Path, leave: int = 0) -> None:
    """Take the disk's free space with the file at `path`: all of it (until
    a write is refused, root's reserve too), or all but `leave` bytes of
    what is available."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 1):  # then smaller, until not a byte is left
            while not leave or (os.statvfs(path.parent).f_bavail
                                * os.statvfs(path.parent).f_frsize > leave):
                try:
                    os.write(fd, b"\0" * size)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC
                    break
    finally:
        os.close(fd)


class Filler:
    """Takes the disk's free space (tmpfs), or caps the database (emulated)."""

    def __init__(self, disk: Path, how: str, table: PitTable) -> None:
        self.path = disk / "filler"
        self.how = how
        self.table = table

    def fill(self) -> None:
        if self.how == "max_page_count":
            db = self.table.service.store.db
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            db.execute(f"PRAGMA max_page_count = {pages}")
            return
        fill(self.path)

    def free(self) -> None:
        if self.how == "max_page_count":
            self.table.service.store.db.execute("PRAGMA max_page_count = 1073741823")
        else:
            self.path.unlink()


def test_a_full_disk_stops_the_table_loudly_and_it_resumes_losing_nothing(
    tmp_path: Path,
    broker: BrokerProcess,
    subscribe: Callable[..., Subscriber],
    systemd: Systemd,
    caplog: pytest.LogCaptureFixture,
) -> None:
    table_id = f"d{uuid.uuid4().hex[:8]}"
    with small_disk(tmp_path / "disk") as (disk, how):
        table = PitTable(disk / "state", table_id=table_id, port=broker.port).run()
        pit = subscribe(broker.port, table_id)
        try:
            filler = Filler(disk, how, table)
            wait(
                lambda: any(m.payload["state"] == "online" for m in pit.on("status")), 10, "online"
            )
            filler.fill()
            # The WAL may still have room for a while: take bets on and off until a
            # commit fails. Every one of these records was applied, so journaled.
            table.fill_journal()
            # Loud: the retained status, the state, systemd's status line, the log.
            wait(lambda: "alarms" in pit.on("status")[-1].payload, 10, "the status alarm")
            alarm = pit.on("status")[-1].payload["alarms"][0]
            assert alarm["kind"] == "journal" and "cannot commit" in alarm["message"]
            assert "full" in alarm["message"]
            wait(lambda: "halted" in pit.on("state")[-1].payload, 10, "state: halted")
            wait(lambda: any("STATUS=HALTED" in m for _, m in systemd.read()), 5, "STATUS=")
            assert "the table stops taking input" in caplog.text
            before = table.snapshot()
            waiting = len(table.service.pipeline.held)  # the bets fed after the failing commit
            # Input keeps coming: a whole round, and a supervisor's command. Nothing is
            # applied while nothing can be journaled.
            table.bets.place(1, "10")
            table.bets.place(2, "20")
            round_records = ["close_bets", "9H", "8D", "7C", "TS", "5H", "stand1", "stand2", "TD"]
            for r in round_records:
                if r.startswith("stand"):
                    table.panel.press("stand")  # the box in play
                elif r == "close_bets":
                    table.panel.press("close_bets")
                else:
                    table.shoe.draw(r)
            pit.publish(
                "cmd/set_limits", {"transaction": "H1", "by": "anna", "min": "10", "max": "200"}
            )
            time.sleep(1.5)  # a retry or so, still full
            table.settle()
            halted = table.snapshot()
            assert halted["table"] == before["table"] and halted["events"] == before["events"]
            assert halted["journal"] == before["journal"]
            assert len(table.service.pipeline.held) == waiting + 2 + len(round_records)
            # Room again: the table takes everything that waited, in order, by itself.
            filler.free()
            wait(lambda: table.service.halted is None, 10, "the table to resume")
            table.settle()
            wait(lambda: pit.on("outcome"), 10, "the outcome")
            outcome = pit.on("outcome")[0].payload
            dealt = {b["box"]: b["hands"][0]["cards"] for b in outcome["boxes"]}
            assert dealt == {1: ["9H", "TS"], 2: ["8D", "5H"]}
            assert outcome["dealer"]["cards"] == ["7C", "TD"]
            note = next(
                m.payload for m in pit.on("alerts") if "took no input" in m.payload["message"]
            )
            assert note["kind"] == "sensor_fault" and "nothing lost" in note["message"]
            journal = [d for _, d in table.service.store.records()]
            at = next(
                i
                for i, d in enumerate(journal)
                if d["kind"] == "fault" and d["device"] == "journal"
            )
            reads = [d["card"] for d in journal[at:] if d["kind"] == "card_read"]
            assert reads == ["9H", "8D", "7C", "TS", "5H", "TD"]  # after the note, in order
            assert len(journal) - at - 1 == waiting + 2 + len(round_records)
            refused = answer(pit, "set_limits", "H1")
            assert not refused["ok"] and "the table is stopped" in refused["error"]
            wait(lambda: "alarms" not in pit.on("status")[-1].payload, 10, "the alarm cleared")
            assert any("taking input again" in m for _, m in systemd.read())
        finally:
            table.stop()
        assert main(["audit", "verify", str(disk / "state")]) == 0


# ---------------------------------------------------------------- clock jump
class Clock:
    def __init__(self) -> None:
        self.now = 1_767_225_600.0  # 2026-01-01T00:00:00Z

    def __call__(self) -> float:
        self.now += 0.25
        return self.now


def test_a_clock_jumping_back_is_said_and_the_table_goes_on_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = Clock()
    table = PitTable(tmp_path / "state", clock=clock)
    try:
        table.deal_round_start()
        table.new()
        clock.now -= 3600  # someone sets the clock back an hour
        table.panel.press("stand")  # box 1
        table.panel.press("stand")  # box 2
        table.shoe.draw("TD")
        new = table.new()
        alert = next(m for m in new if m["topic"] == "alerts")
        assert alert["kind"] == "sensor_fault" and "clock" in alert["message"]
        assert re.search(r"went back 3599\.\d s", alert["message"])
        assert "orders by seq" in alert["message"]
        outcome = next(m for m in new if m["topic"] == "outcome")
        assert outcome["round"] == 1  # the round settled as if nothing happened
        got = table.command(
            "set_limits", {"transaction": "K1", "by": "anna", "min": "10", "max": "300"}
        )
        assert got["ok"]
        audit = next(m for m in table.new() if m.get("type") == "audit")
        assert audit["at"].startswith("2025-12-31T23:")  # the clock's time, for the audit
        rows = table.service.store.db.execute("SELECT seq, at FROM journal ORDER BY seq").fetchall()
        seqs = [r[0] for r in rows]
        assert seqs == list(range(1, len(seqs) + 1))
        assert any(b[1] < a[1] for a, b in itertools.pairwise(rows))  # time went back
    finally:
        table.stop()
    assert main(["audit", "verify", str(tmp_path / "state")]) == 0
    out = capsys.readouterr().out
    assert "intact" in out and "the clock went back 1 time(s)" in out
    # A restart on the set-back clock is no new jump: said once.
    again = PitTable(tmp_path / "state", clock=clock)
    try:
        again.bets.place(1, "10")
        assert not [m for m in again.new() if m["topic"] == "alerts"]
    finally:
        again.stop()


# -------------------------------------------------------------- camera stops
class Camera:
    """A frame source: grey frames while `on`; when it has stopped, a read hangs
    (a camera driver stuck in the kernel): the case a restart can cure. A camera
    that answers with nothing (unplugged) keeps the capture thread turning, and
    the watchdog fed: restarting would not bring it back (docs/hardware.md)."""

    def __init__(self) -> None:
        self.on = threading.Event()
        self.on.set()
        self.frame = np.full((480, 640, 3), 90, np.uint8)

    def read(self) -> np.ndarray | None:
        time.sleep(1 / 30)
        self.on.wait()
        return self.frame

    def close(self) -> None:
        pass


def test_a_stopped_camera_is_an_alert_starves_the_watchdog_and_cards_are_keyed_in(
    tmp_path: Path, systemd: Systemd
) -> None:
    camera = Camera()
    driver = CameraDriver(CardSource(), Capture(camera, max_age=0.3))
    table = PitTable(tmp_path / "state", card_source=driver, cards={"camera_stale_after": 0.6})
    table.run()
    try:
        wait(lambda: any(m == "WATCHDOG=1" for _, m in systemd.read()), 5, "a first ping")
        table.bets.place(1, "10")
        table.bets.place(2, "20")
        table.panel.press("close_bets")
        camera.on.clear()  # the camera's driver hangs: no frames
        stopped = time.monotonic()
        wait(
            lambda: any(a["message"].startswith("camera: no frame") for a in alerts(table)),
            5,
            "the camera alert",
        )
        state = json.loads(table.service.pump.slots["state"])
        assert state["camera_stale"] is True
        time.sleep(1.6)  # three ping intervals: none comes while the camera is stale
        said = systemd.read()
        assert not [m for t, m in said if m == "WATCHDOG=1" and t > stopped + 0.8], said
        assert any("unhealthy" in m and "camera" in m for _, m in said)
        # Meanwhile the dealer keys the cards in: the table goes on.
        for card in ("9H", "8D", "7C", "TS", "5H"):
            table.panel.press("key_card", card=card)
        table.settle()
        assert table.service.table.expecting().what == "action"
        # Frames again: healthy, fed again.
        camera.on.set()
        back = time.monotonic()
        wait(
            lambda: any(m == "WATCHDOG=1" and t > back for t, m in systemd.read()), 5, "pings again"
        )
        wait(
            lambda: "camera_stale" not in json.loads(table.service.pump.slots["state"]),
            5,
            "state: camera well",
        )
    finally:
        table.stop()


def alerts(table: PitTable) -> list[dict[str, Any]]:
    return [
        json.loads(r.payload)
        for r in table.service.store.rows_from(1, 10**6)
        if r.topic == "alerts"
    ]


# ---------------------------------------------------------- serial unplugged
def test_an_unplugged_serial_shoe_is_an_alert_and_the_table_goes_on(
    tmp_path: Path, broker: BrokerProcess, subscribe: Callable[..., Subscriber]
) -> None:
    device = FakeSerialDevice(tmp_path / "ttyShoe")
    shoe = serial_shoe.SerialShoe(
        LinkSettings(str(device.path), backoff_min=0.05, backoff_max=0.2, silence=None)
    )
    table_id = f"s{uuid.uuid4().hex[:8]}"
    table = PitTable(
        tmp_path / "state", table_id=table_id, port=broker.port, card_source=shoe
    ).run()
    pit = subscribe(broker.port, table_id)
    try:
        assert shoe.connected.wait(10)
        table.bets.place(1, "10")
        table.bets.place(2, "20")
        table.panel.press("close_bets")
        for n, card in enumerate(("9H", "8D", "7C")):
            device.write(serial_shoe.encode_card(n, card))
        wait(lambda: len(events(pit, "card_dealt")) == 3, 10, "three cards")
        device.unplug()  # the cable is pulled mid-deal
        wait(
            lambda: any(m.payload["kind"] == "sensor_fault" for m in pit.on("alerts")),
            10,
            "the alert",
        )
        fault = next(m.payload for m in pit.on("alerts") if m.payload["kind"] == "sensor_fault")
        assert fault["message"].startswith("shoe: ")
        # The dealer keys the next card in; the table does not wait for the cable.
        table.panel.press("key_card", card="TS")
        wait(lambda: len(events(pit, "card_dealt")) == 4, 10, "the keyed card")
        device.replug()
        wait(lambda: shoe.opens == 2 and shoe.connected.is_set(), 10, "the reopen")
        device.write(serial_shoe.encode_card(0, "5H"))  # the shoe's count starts over
        wait(lambda: len(events(pit, "card_dealt")) == 5, 10, "the fifth card, by the shoe")
        table.panel.press("stand")  # box 1
        table.panel.press("stand")  # box 2
        device.write(serial_shoe.encode_card(1, "TD"))
        wait(lambda: bool(pit.on("outcome")), 10, "the outcome")
        outcome = pit.on("outcome")[0].payload
        assert {b["box"]: b["hands"][0]["cards"] for b in outcome["boxes"]} == {
            1: ["9H", "TS"],
            2: ["8D", "5H"],
        }
    finally:
        table.stop()
        device.close()
