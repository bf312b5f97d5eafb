"""Faults that are the table's own, not a driver's: a wall clock that jumps back,
a shoe camera that stops sending frames. (A journal that cannot commit is the
pipeline's: it holds the input, Pipeline.take.)

Each becomes a `SensorFault` record put through the journal like a driver's, so
the alert it raises is in the record, numbered and replayed like the rest.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from drivers.interfaces import SensorFault

log = logging.getLogger("croupier.faults")

BACKWARDS = 1.0  # seconds the wall clock may step back (NTP slews) before it is news


class ClockWatch:
    """The wall clock only dates records for the audit; the journal's seq orders them.
    A jump back is said once, then the new time is the reference."""

    def __init__(self, last: float | None) -> None:
        self.last = last

    def check(self, now: float) -> SensorFault | None:
        last, self.last = self.last, now
        if last is None or now >= last - BACKWARDS:
            return None
        back = last - now
        log.warning("the wall clock went back %.1f s: records are ordered by seq, not time", back)
        return SensorFault(
            "clock",
            f"the wall clock went back {back:.1f} s (from {_utc(last)} to {_utc(now)}): "
            "times in the journal are for the audit only, the table orders by seq and goes on",
        )


def _utc(when: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when))


@runtime_checkable
class FrameClock(Protocol):
    """A card source with a camera behind it (drivers.camera.driver.CameraDriver)."""

    def frame_age(self) -> float:
        """Seconds since the camera last delivered a frame."""


class CameraWatch:
    """Camera frames that stop: one alert per outage (a journaled `SensorFault`), the
    state says so (the dealer keys the cards in meanwhile), and the watchdog stops
    being fed for the camera (Service.run), so systemd restarts a hung camera."""

    def __init__(
        self, camera: FrameClock, stale_after: float, put: Callable[[SensorFault], None]
    ) -> None:
        self.camera = camera
        self.stale_after = stale_after
        self.put = put
        self.stale = False

    def last_frame(self) -> float:
        """When the last frame came, on the monotonic clock (the watchdog's)."""
        return time.monotonic() - self.camera.frame_age()

    def last_alive(self) -> float:
        """When the camera's thread last turned, if it says (the watchdog's clock): a
        restart cures a hung camera driver, not an unplugged camera, so one that answers
        with no frame keeps the watchdog fed (its alert stands). Else the last frame."""
        alive_age = getattr(self.camera, "alive_age", None)
        if alive_age is None:
            return self.last_frame()
        return time.monotonic() - float(alive_age())

    def tick(self) -> float:
        """A timer of the service loop: returns the delay to the next look."""
        age = self.camera.frame_age()
        if age > self.stale_after and not self.stale:
            self.stale = True
            self.put(
                SensorFault(
                    "camera",
                    f"no frame for {age:.1f} s (limit {self.stale_after:g} s): the shoe camera "
                    "has stopped; key the cards in on the panel",
                )
            )
        elif age <= self.stale_after and self.stale:
            self.stale = False
            log.info("camera: frames again")
        return min(1.0, self.stale_after / 4)
