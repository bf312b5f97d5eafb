"""What a driver knows about its hardware right now, and the faults it reported.

Every driver keeps one `Health`. A fault is reported to the sink once, when
it appears (or its wording changes), not on every retry: a cable pulled at
3 a.m. is one alert, not one a second. When the condition clears the driver
logs it and `health()` shows the device well again; the service reads
`health()` for the `status` topic.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import asdict, dataclass
from typing import Any

from drivers.interfaces import DriverEvent, SensorFault, Sink


@dataclass(frozen=True, slots=True)
class DeviceHealth:
    device: str
    ok: bool
    detail: str = ""
    box: int | None = None
    figures: dict[str, float | int] | None = None  # e.g. the camera's frame age, drops

    def as_status(self) -> dict[str, Any]:
        """The device's entry in the `status` topic's `devices` (figures only if any)."""
        body = asdict(self)
        if self.figures is None:
            del body["figures"]
        return body


class DeviceLog(logging.LoggerAdapter):  # type: ignore[type-arg]
    """Log lines that start with the device's name, like Klipper's `mcu 'x':`."""

    def process(self, msg: object, kwargs: object) -> tuple[str, object]:  # type: ignore[override]
        return f"{self.extra['device']}: {msg}", kwargs  # type: ignore[index]


def device_log(device: str) -> DeviceLog:
    return DeviceLog(logging.getLogger("croupier.drivers"), {"device": device})


def safe_send(sink: Sink | None, event: DriverEvent, log: DeviceLog) -> None:
    """Hand `event` to the sink; a sink that misbehaves is logged, never propagated."""
    if sink is None:
        return
    try:
        sink(event)
    except Exception:
        log.exception("the sink refused %r", event)


class Health:
    def __init__(self, device: str, log: DeviceLog) -> None:
        self.device = device
        self.log = log
        self._lock = threading.Lock()
        self._faults: dict[str, tuple[str, int | None]] = {}
        self.reported = 0  # faults sent to the sink, for tests and the status topic

    def fault(self, sink: Sink | None, key: str, detail: str, box: int | None = None) -> None:
        """Record a fault under `key`; tell the sink only if it is new or changed."""
        with self._lock:
            if self._faults.get(key) == (detail, box):
                return
            self._faults[key] = (detail, box)
            self.reported += 1
        self.log.warning("%s", detail)
        safe_send(sink, SensorFault(self.device, detail, box), self.log)

    def clear(self, key: str) -> None:
        with self._lock:
            gone = self._faults.pop(key, None)
        if gone is not None:
            self.log.info("recovered: %s", gone[0])

    def has(self, key: str) -> bool:
        with self._lock:
            return key in self._faults

    def snapshot(self) -> list[DeviceHealth]:
        with self._lock:
            faults = sorted(self._faults.items())
        if not faults:
            return [DeviceHealth(self.device, True)]
        return [DeviceHealth(self.device, False, detail, box) for _, (detail, box) in faults]
