"""The shoe camera as a table driver (`drivers.interfaces.CardSource`).

`CardSource` (source.py) turns frames into the camera's own `CardRead`s; this
runs it on a thread over a `Capture` and hands each read to the service's
sink as the service's `CardRead` (card or None, confidence, frame number,
why it was unreadable). Nothing escapes the thread: an error becomes a
`SensorFault`, reported once, and the reader stops.
"""

from __future__ import annotations

import logging
import threading

from drivers.camera import shoe
from drivers.camera.capture import Capture
from drivers.camera.source import CardSource
from drivers.interfaces import CardRead, SensorFault, Sink

log = logging.getLogger("croupier.camera")


def to_record(read: shoe.CardRead) -> CardRead:
    return CardRead(read.card, read.confidence, "camera", read.frame_index, read.reason)


class CameraDriver:
    def __init__(self, source: CardSource, capture: Capture) -> None:
        self.source = source
        self.capture = capture
        self._thread: threading.Thread | None = None

    def start(self, sink: Sink) -> None:
        self.capture.start()
        self._thread = threading.Thread(target=self._run, args=(sink,), name="shoe", daemon=True)
        self._thread.start()

    def _run(self, sink: Sink) -> None:
        try:
            for read in self.source.run(self.capture):
                sink(to_record(read))
        except Exception as exc:  # a driver thread must not die silently
            log.exception("camera: the card reader failed")
            sink(SensorFault("camera", f"the card reader failed: {exc}"))

    def frame_age(self) -> float:
        """Seconds since the camera delivered a frame (the service watches it)."""
        return self.capture.age()

    def stop(self) -> None:
        self.capture.stop()  # ends source.run(); the thread then flushes and returns
        if self._thread is not None:
            self._thread.join(timeout=5)
