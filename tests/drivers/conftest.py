"""Fixtures for the driver tests: a thread-safe sink to wait on, pty devices,
a calibration, and the fake RPi.GPIO swapped into `sys.modules`."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

import pytest

from drivers.fake_serial import FakeSerialDevice
from drivers.interfaces import DriverEvent
from drivers.loadcell.scale import ChannelCal, Denomination, ScaleCalibration

T = TypeVar("T")
WAIT = 15.0  # generous: a loaded 2-core CI machine must not make a test flaky


class Events:
    """A sink that records every event and lets a test wait for one."""

    def __init__(self) -> None:
        self.items: list[DriverEvent] = []
        self.cond = threading.Condition()

    def __call__(self, event: DriverEvent) -> None:
        with self.cond:
            self.items.append(event)
            self.cond.notify_all()

    def wait_for(
        self, kind: type[T], pred: Callable[[T], bool] = lambda e: True, timeout: float = WAIT
    ) -> T:
        def find() -> T | None:
            for e in self.items:
                if isinstance(e, kind) and pred(e):
                    return e
            return None

        with self.cond:
            found = self.cond.wait_for(find, timeout)
            if found is None:
                raise AssertionError(f"no matching {kind.__name__} in {self.items!r}")
            return found

    def of(self, kind: type[T]) -> list[T]:
        with self.cond:
            return [e for e in self.items if isinstance(e, kind)]

    def clear(self) -> None:
        with self.cond:
            self.items.clear()


def wait_until(pred: Callable[[], Any], timeout: float = WAIT, what: str = "condition") -> None:
    """Poll a condition that has no event to wait on (a driver's counter)."""
    done = threading.Event()
    deadline = threading.Event()
    timer = threading.Timer(timeout, deadline.set)
    timer.start()
    try:
        while not deadline.is_set():
            if pred():
                done.set()
                return
            deadline.wait(0.01)
    finally:
        timer.cancel()
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def events() -> Events:
    return Events()


@pytest.fixture
def device(tmp_path: Path) -> Iterator[FakeSerialDevice]:
    dev = FakeSerialDevice(tmp_path / "ttyFAKE")
    yield dev
    dev.close()


def make_calibration(channels: int = 7) -> ScaleCalibration:
    return ScaleCalibration(
        channels=tuple(ChannelCal(n, 80_000 + 1000 * n, 420.0 + n) for n in range(1, channels + 1)),
        # Chips weighted by denomination, far enough apart for stacks of up to 8.
        denominations=(Denomination(Decimal("5"), 10.0), Denomination(Decimal("25"), 27.5)),
        noise_g=0.5,
        chip_tolerance_g=0.1,
        max_chips=40,
        unique_up_to=8,
    )


@pytest.fixture
def calibration() -> ScaleCalibration:
    return make_calibration()


from tests.drivers.gpio_fixture import gpio  # noqa: E402, F401 - a fixture for every test here
