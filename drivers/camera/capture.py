"""Camera capture: a reader thread per camera, a bounded frame queue that
drops (and counts) the oldest frame when the consumer falls behind, and a
watchdog on frame age so a dead camera becomes an alert instead of silence.

Backends: OpenCV VideoCapture for USB/V4L2 cameras; Picamera2 for the Pi's
CSI camera (OpenCV cannot drive libcamera), imported only when asked for,
since it comes from the OS packages on the Pi. Any object with `read() ->
frame | None` and `close()` can stand in (the simulator's shoe camera does).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import cv2
import numpy as np

from drivers.vision.glyphs import Image

log = logging.getLogger("croupier.camera")


class FrameSource(Protocol):
    def read(self) -> Image | None:
        """The next frame (BGR), or None when the camera gave nothing."""

    def close(self) -> None: ...


class CameraError(RuntimeError):
    """A camera that cannot be opened or has stopped delivering frames."""


class OpenCVSource:
    """USB / V4L2 camera through cv2.VideoCapture."""

    def __init__(
        self, device: int | str, size: tuple[int, int] = (640, 480), fps: float = 30.0
    ) -> None:
        self._cap = cv2.VideoCapture(device)
        if not self._cap.isOpened():
            raise CameraError(
                f"camera {device!r}: cannot open (is it plugged in, and is this "
                "a USB/V4L2 camera? a Pi CSI camera needs --picamera)"
            )
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self._cap.set(cv2.CAP_PROP_FPS, fps)
        # A driver-side buffer only adds latency: we keep our own queue.
        self._cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)

    def read(self) -> Image | None:
        ok, frame = self._cap.read()
        return frame if ok else None

    def close(self) -> None:
        self._cap.release()


class PicameraSource:
    """The Pi camera through Picamera2 (libcamera); imported lazily."""

    def __init__(self, size: tuple[int, int] = (640, 480), fps: float = 30.0) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as exc:
            raise CameraError(
                "Picamera2 is not installed (on the Pi: apt install "
                "python3-picamera2, and a venv made with "
                "--system-site-packages)"
            ) from exc
        self._cam: Any = Picamera2()
        config = self._cam.create_video_configuration(
            main={"size": size, "format": "RGB888"},
            controls={"FrameDurationLimits": (int(1e6 / fps), int(1e6 / fps))},
        )
        self._cam.configure(config)
        self._cam.start()

    def read(self) -> Image | None:
        # "RGB888" in libcamera terms is BGR byte order, what OpenCV expects.
        frame = self._cam.capture_array("main")
        return np.asarray(frame, np.uint8) if frame is not None else None

    def close(self) -> None:
        self._cam.stop()
        self._cam.close()


@dataclass(frozen=True)
class Frame:
    image: Image
    index: int  # counts every frame the camera delivered, dropped ones too
    captured: float  # time.monotonic() at capture


@dataclass
class CaptureStats:
    delivered: int = 0
    dropped: int = 0
    failed_reads: int = 0


class Capture:
    """Reads frames from a source on a thread into a bounded queue.

    When the queue is full the oldest frame is dropped and counted: the
    reader always gets the freshest frames. `stale()` says whether the last
    frame is older than `max_age` seconds; `on_stale` is called once per
    outage (the service turns it into a camera alert).
    """

    def __init__(
        self,
        source: FrameSource,
        maxsize: int = 8,
        max_age: float = 1.0,
        on_stale: Callable[[float], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source = source
        self.stats = CaptureStats()
        self.max_age = max_age
        self._queue: queue.Queue[Frame] = queue.Queue(maxsize=maxsize)
        self._stop = threading.Event()
        self._clock = clock
        self.clock = clock  # the clock of Frame.captured, for whoever times frames
        self._last = clock()
        self._turned = self._last  # the reader thread's last turn, frame or none
        self._on_stale = on_stale
        self._alerted = False
        self._thread: threading.Thread | None = None

    def start(self) -> Capture:
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self._turned = self._clock()
            try:
                image = self.source.read()
            except Exception:  # a driver error must not kill the thread
                log.exception("camera: read failed")
                image = None
            if image is None:
                self.stats.failed_reads += 1
                self.check_age()
                time.sleep(0.01)
                continue
            self.put(image)

    def put(self, image: Image) -> None:
        """Queue one frame (the reader thread's job; public for tests)."""
        now = self._clock()
        frame = Frame(image, self.stats.delivered + self.stats.dropped, now)
        self._last = now
        self._alerted = False
        while True:
            try:
                self._queue.put_nowait(frame)
                self.stats.delivered += 1
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()
                    self.stats.dropped += 1
                    self.stats.delivered -= 1
                except queue.Empty:
                    pass

    def age(self) -> float:
        return self._clock() - self._last

    def turn_age(self) -> float:
        """Seconds since the capture thread last asked the camera for a frame: large
        only when a read hangs (a camera that is gone answers at once, with nothing)."""
        return self._clock() - self._turned

    def backlog(self) -> int:
        """Frames captured and not yet taken by the reader."""
        return self._queue.qsize()

    def check_age(self) -> bool:
        """True (and one call of on_stale per outage) when frames stopped."""
        age = self.age()
        if age <= self.max_age:
            return False
        if not self._alerted:
            self._alerted = True
            log.warning("camera: no frame for %.1f s", age)
            if self._on_stale is not None:
                self._on_stale(age)
        return True

    def get(self, timeout: float | None = None) -> Frame | None:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            self.check_age()
            return None

    def frames(self, timeout: float = 0.5) -> Iterator[Frame]:
        """Frames until stop(); gaps are reported through the watchdog."""
        while not self._stop.is_set():
            frame = self.get(timeout)
            if frame is not None:
                yield frame

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        self.source.close()


def open_source(
    device: str | int, size: tuple[int, int] = (640, 480), fps: float = 30.0
) -> FrameSource:
    """`picamera` (or `picamera:0`) for the Pi camera, else a V4L2 index or path."""
    if isinstance(device, str) and device.startswith("picamera"):
        return PicameraSource(size, fps)
    if isinstance(device, str) and device.isdigit():
        device = int(device)
    return OpenCVSource(device, size, fps)
