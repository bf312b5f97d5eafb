"""The shoe camera as a table driver (`drivers.interfaces.CardSource`).

`CardSource` (source.py) turns frames into the reader's `ShoeRead`s; this
runs it on a thread over a `Capture` and hands each read to the service's
sink as the one `CardRead` of every card source (card or None, confidence, frame number,
why it was unreadable). Nothing escapes the thread: an error becomes a
`SensorFault`, reported once, and the reader stops.

Its health (for `croupier run`'s status topic): whether frames come, how old
the last one is, how many the reader dropped because it fell behind, and
what the camera's opener says is wrong. Frames that stop are the service's
camera watch's to raise (controller.faults.CameraWatch): the driver only
says so in its health.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import TYPE_CHECKING

from drivers.camera.capture import Capture, Frame
from drivers.camera.source import CardSource
from drivers.health import DeviceHealth
from drivers.interfaces import CardRead, SensorFault, Sink
from drivers.vision import shoe

if TYPE_CHECKING:
    from drivers.camera.record import Recorder
    from drivers.settings import CameraSection

log = logging.getLogger("croupier.camera")

DEVICE = "camera"


def to_record(read: shoe.ShoeRead) -> CardRead:
    return CardRead(read.card, read.confidence, "camera", read.frame_index, read.reason)


class CameraDriver:
    def __init__(
        self,
        source: CardSource,
        capture: Capture,
        recorder: Recorder | None = None,
        stale_after: float = 5.0,
    ) -> None:
        self.source = source
        self.capture = capture
        self.recorder = recorder
        self.stale_after = stale_after  # frame age past which health says the camera stopped
        self.cards = 0  # reads handed to the service
        self.unreadable = 0
        self.failed: str | None = None  # the reader itself failed (the thread ended)
        # When each recent frame was captured, to time a read from its pass's first frame.
        self._captured: deque[tuple[int, float]] = deque(maxlen=256)
        self.read_delays: deque[float] = deque(maxlen=500)  # s, first frame to read
        self._thread: threading.Thread | None = None

    @classmethod
    def from_config(cls, cfg: CameraSection, stale_after: float = 5.0) -> CameraDriver:
        """The configured camera; raises `ValueError` (with the reason) for a
        calibration or geometry that cannot be used. A camera that does not open
        is not an error here: the driver starts, says so, and keeps trying."""
        from drivers.camera.opener import ReopeningSource, opener
        from drivers.camera.record import Recorder

        source = card_source(cfg)
        camera = ReopeningSource(
            opener(cfg.device, cfg.size, cfg.fps), str(cfg.device), cfg.reopen_s
        )
        capture = Capture(camera, maxsize=cfg.queue, max_age=stale_after)
        recorder = Recorder(cfg.record, cfg.record_frames, cfg.fps) if cfg.record else None
        return cls(source, capture, recorder, stale_after)

    def start(self, sink: Sink) -> None:
        if self.recorder is not None:
            self.recorder.start()
        from drivers.vision import kernels

        kernels.warm()  # the reader's compiled loops, before the first frame can wait for them
        error = getattr(self.capture.source, "error", None)
        if error is not None:  # not there at start: one alert now, then retried
            sink(SensorFault(DEVICE, f"{error}: key the cards in on the panel"))
        self.capture.start()
        self._thread = threading.Thread(target=self._run, args=(sink,), name="shoe", daemon=True)
        self._thread.start()

    def _run(self, sink: Sink) -> None:
        try:
            for frame in self.capture.frames():
                self._frame(frame, sink)
            for read in self.source.flush():
                self._report(read, sink)
        except Exception as exc:  # a driver thread must not die silently
            log.exception("camera: the card reader failed")
            self.failed = f"the card reader failed: {exc}"
            sink(SensorFault(DEVICE, self.failed))

    def _frame(self, frame: Frame, sink: Sink) -> None:
        self._captured.append((frame.index, frame.captured))
        if self.recorder is not None:
            self.recorder.keep(frame)
        for read in self.source.feed(frame.image, frame.index):
            self._report(read, sink)

    def _report(self, read: shoe.ShoeRead, sink: Sink) -> None:
        first = next((t for i, t in self._captured if i == read.first_frame), None)
        sink(to_record(read))
        self.cards += 1
        if first is not None:
            self.read_delays.append(self.capture.clock() - first)
        if read.card is None:
            self.unreadable += 1
            if self.recorder is not None:
                self.recorder.save(read)
        if self.recorder is not None:
            self.recorder.passed(read)

    def frame_age(self) -> float:
        """Seconds since the camera delivered a frame (the service watches it)."""
        return self.capture.age()

    def alive_age(self) -> float:
        """Seconds since the capture thread last turned (controller.faults.CameraWatch:
        the watchdog restarts a table whose camera hangs, not one whose camera is gone)."""
        return self.capture.turn_age()

    def health_report(self) -> list[DeviceHealth]:
        age = self.frame_age()
        stats = self.capture.stats
        figures: dict[str, float | int] = {
            # Rounded: `status` is published again whenever a device's health changes.
            "frame_age_s": round(age, 1) if age >= 0.5 else 0.0,
            "dropped_frames": stats.dropped,
            "failed_reads": stats.failed_reads,
        }
        if self.recorder is not None:
            figures["clips_saved"] = len(self.recorder.saved)
        camera = self.capture.source
        why = (
            self.failed
            or getattr(camera, "error", None)
            or (f"no frame for {age:.0f} s" if age > self.stale_after else None)
            or (self.recorder.error if self.recorder is not None else None)
        )
        return [DeviceHealth(DEVICE, why is None, why or "", figures=figures)]

    def stop(self) -> None:
        self.capture.stop()  # ends source.run(); the thread then flushes and returns
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.recorder is not None:
            self.recorder.stop()


def card_source(cfg: CameraSection) -> CardSource:
    """The reader for the configured calibration and shoe geometry."""
    from dataclasses import replace

    from drivers.vision.shoe import ShoeGeometry
    from drivers.vision.vision_file import CalibrationError, load

    geometry = ShoeGeometry(frame_size=cfg.size)
    model = None
    if cfg.calibration is not None:
        try:
            cal = load(cfg.calibration)
        except (CalibrationError, OSError) as exc:
            raise ValueError(f"calibration {cfg.calibration}: {exc}") from None
        model = cal.model()
        geometry = cal.geometry or geometry
    geometry = replace(
        geometry,
        band=cfg.band or geometry.band,
        rank_height=cfg.rank_height or geometry.rank_height,
        card_width=cfg.card_width or geometry.card_width,
    )
    try:
        return CardSource(model, geometry)
    except ValueError as exc:
        raise ValueError(f"shoe geometry: {exc}") from None
