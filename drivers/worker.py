"""The reading thread a hardware driver runs, and what every such driver shares.

`start(sink)` and `stop()` are the `Driver` contract (drivers.interfaces); a
subclass gives the loop (`_run`, until `_stop` is set) and, if it needs them,
a way to wake a blocked loop (`_wake`) and to give the hardware back once the
thread has ended (`_release`).
"""

from __future__ import annotations

import threading

from drivers.health import DeviceHealth, Health, device_log, safe_send
from drivers.interfaces import DriverEvent, Sink


class DriverWorker:
    def __init__(self, name: str, device: str) -> None:
        self.name = name
        self.log = device_log(device)
        self.health = Health(name, self.log)
        self.sink: Sink | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, sink: Sink) -> None:
        if self._thread is not None:
            return
        self.sink = sink
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"drv-{self.name}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=5)
        self._release()
        self.sink = None

    def health_report(self) -> list[DeviceHealth]:
        return self.health.snapshot()

    def send(self, event: DriverEvent) -> None:
        safe_send(self.sink, event, self.log)

    # ------------------------------------------------------ for subclasses
    def _run(self) -> None:
        raise NotImplementedError

    def _wake(self) -> None:
        """Unblock a loop waiting on something other than `_stop`."""

    def _release(self) -> None:
        """Give the hardware back (the thread has ended)."""
