"""controller.watchdog against a real AF_UNIX datagram socket standing in for systemd."""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.watchdog import Notifier, NotifyError, Watchdog


class FakeSystemd:
    """The receiving end of NOTIFY_SOCKET: collects every datagram."""

    def __init__(self, address: str, bind_to: str) -> None:
        self.address = address
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(bind_to)
        self.sock.settimeout(0.0)

    def messages(self) -> list[str]:
        out = []
        while True:
            try:
                out.append(self.sock.recv(4096).decode())
            except BlockingIOError:
                return out

    def env(self, **extra: str) -> dict[str, str]:
        return {"NOTIFY_SOCKET": self.address, **extra}


@pytest.fixture
def systemd(tmp_path: Path) -> Iterator[FakeSystemd]:
    path = str(tmp_path / "notify")
    fake = FakeSystemd(path, path)
    yield fake
    fake.sock.close()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def watchdog_env(systemd: FakeSystemd, seconds: float = 20.0) -> dict[str, str]:
    return systemd.env(WATCHDOG_USEC=str(int(seconds * 1e6)), WATCHDOG_PID=str(os.getpid()))


def test_ready_status_stopping_are_datagrams_systemd_can_read(systemd: FakeSystemd) -> None:
    n = Notifier(systemd.env())
    assert n.active and n.watchdog_interval is None
    assert n.ready("replayed 12 records\nround 3")
    assert n.status("dealing round 4")
    assert n.extend_timeout(30)
    assert n.stopping()
    assert systemd.messages() == [
        "READY=1\nSTATUS=replayed 12 records round 3",  # a newline would start a bogus field
        "STATUS=dealing round 4",
        "EXTEND_TIMEOUT_USEC=30000000",
        "STOPPING=1",
    ]


def test_abstract_socket(tmp_path: Path) -> None:
    name = f"croupier-test-{uuid.uuid4().hex}"
    fake = FakeSystemd("@" + name, "\0" + name)
    try:
        assert Notifier(fake.env()).ready()
        assert fake.messages() == ["READY=1"]
    finally:
        fake.sock.close()


def test_outside_systemd_nothing_is_sent_and_the_log_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="croupier.watchdog"):
        n = Notifier({"WATCHDOG_USEC": "20000000"})
    assert not n.active and n.watchdog_interval is None
    assert n.ready() is False and n.ping() is False
    assert "NOTIFY_SOCKET unset" in caplog.text


def test_a_missing_socket_raises_with_the_reason(tmp_path: Path) -> None:
    n = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    with pytest.raises(NotifyError, match=r"cannot notify systemd on .*gone: No such file"):
        n.ready()


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"NOTIFY_SOCKET": "relative/path"}, "neither an absolute path"),
        ({"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "soon"}, "WATCHDOG_USEC='soon'"),
        ({"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "0"}, "WATCHDOG_USEC='0'"),
        ({"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "1", "WATCHDOG_PID": "me"}, "WATCHDOG_PID"),
    ],
)
def test_unusable_settings_are_errors(env: dict[str, str], message: str) -> None:
    with pytest.raises(NotifyError, match=message):
        Notifier(env)


def test_a_watchdog_meant_for_another_process_is_not_ours(systemd: FakeSystemd) -> None:
    n = Notifier(systemd.env(WATCHDOG_USEC="20000000", WATCHDOG_PID=str(os.getpid() + 1)))
    assert n.watchdog_interval is None
    wd = Watchdog(n)
    assert wd.tick()
    assert systemd.messages() == []


def test_pings_every_quarter_interval_while_healthy(systemd: FakeSystemd) -> None:
    clock = Clock()
    wd = Watchdog(Notifier(watchdog_env(systemd, 20)), clock=clock)
    assert wd.interval == 20
    sent = []
    for _ in range(41):  # 20 s of loop turns, one every 0.5 s
        assert wd.tick()
        sent += systemd.messages()
        clock.now += 0.5
    assert sent == ["WATCHDOG=1"] * 5  # at 0, 5, 10, 15, 20 s
    assert wd.pings == 5


def test_a_stale_source_stops_the_pings_and_says_why(systemd: FakeSystemd) -> None:
    clock = Clock()
    wd = Watchdog(Notifier(watchdog_env(systemd, 20)), clock=clock)
    wd.watch("camera", max_age=5)
    wd.status("dealing")
    assert systemd.messages() == ["STATUS=dealing"]
    for _ in range(4):  # frames keep coming for 8 s
        wd.beat("camera")
        assert wd.tick()
        clock.now += 2
    assert systemd.messages() == ["WATCHDOG=1", "WATCHDOG=1"]  # at 0 and 6 s
    clock.now += 4  # the last frame is now 6 s old
    assert not wd.tick()
    assert systemd.messages() == [
        "STATUS=unhealthy, watchdog not fed: camera: nothing for 6.0 s (limit 5 s)"
    ]
    for _ in range(20):  # stays unhealthy: no ping at all, the status is not repeated
        clock.now += 1
        assert not wd.tick()
    assert systemd.messages() == []
    wd.beat("camera")  # frames again
    assert wd.tick()
    assert systemd.messages() == ["STATUS=dealing", "WATCHDOG=1"]


def test_since_reads_the_last_sign_of_life_from_the_caller(systemd: FakeSystemd) -> None:
    clock = Clock()
    last_frame: list[float | None] = [None]
    wd = Watchdog(Notifier(watchdog_env(systemd)), clock=clock)
    wd.watch("camera", max_age=5, since=lambda: last_frame[0])
    clock.now += 4
    assert wd.tick()  # no frame yet, but only 4 s since watching began
    clock.now += 2
    assert wd.stale() == [("camera", "camera: nothing for 6.0 s (limit 5 s)")]
    last_frame[0] = clock.now - 1
    assert wd.stale() == []
    wd.unwatch("camera")
    clock.now += 100
    assert wd.tick()


def test_a_loop_that_stops_turning_sends_nothing(systemd: FakeSystemd) -> None:
    """The loop liveness is tick() itself: no tick, no ping, systemd restarts the table."""
    clock = Clock()
    wd = Watchdog(Notifier(watchdog_env(systemd, 20)), clock=clock)
    assert wd.tick()
    assert systemd.messages() == ["WATCHDOG=1"]
    clock.now += 60  # the loop hung for a minute: nobody called tick()
    assert systemd.messages() == []


def test_a_failed_ping_is_logged_counted_and_retried_on_the_next_tick(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "notify"
    clock = Clock()
    env = {"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "20000000"}
    wd = Watchdog(Notifier(env), clock=clock)
    with caplog.at_level(logging.ERROR, logger="croupier.watchdog"):
        assert wd.tick()  # healthy, but systemd's socket is not there
    assert wd.pings == 0 and wd.failures == 1
    assert "cannot notify systemd" in caplog.text and wd.last_error is not None
    fake = FakeSystemd(str(path), str(path))  # the socket comes back
    try:
        clock.now += 0.5
        assert wd.tick()
        assert fake.messages() == ["WATCHDOG=1"]  # at once, not a quarter interval later
        assert wd.pings == 1
    finally:
        fake.sock.close()


def test_a_source_age_at_or_above_the_interval_is_warned_about(
    systemd: FakeSystemd, caplog: pytest.LogCaptureFixture
) -> None:
    wd = Watchdog(Notifier(watchdog_env(systemd, 20)))
    with caplog.at_level(logging.WARNING, logger="croupier.watchdog"):
        wd.watch("outbox", max_age=30)
    assert "not below WatchdogSec" in caplog.text
    with pytest.raises(ValueError, match="max_age must be above 0"):
        wd.watch("camera", max_age=0)
