"""Opening the shoe camera, and opening it again.

A camera that is not there at start (unplugged, still booting, busy in
another process) must not stop the table: the dealer keys cards in and the
camera is picked up when it comes. `ReopeningSource` is a `FrameSource` that
tries to open its camera every `retry_s` seconds until it can, and closes and
reopens one that stops giving frames. What is wrong is kept in `error`, one
sentence for the dealer's pit and the status topic, never a traceback.

A video file is played at its own frame rate, as a camera would deliver it
(a test rig, or footage played as if live); when it ends, the camera has
stopped: it is not played again, which would deal its cards twice.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

import cv2

from drivers.camera.capture import CameraError, FrameSource, open_source
from drivers.vision.glyphs import Image

log = logging.getLogger("croupier.camera")

MISSES_TO_REOPEN = 60  # failed reads in a row (about 2 s at 30 fps) before a reopen


class VideoFileSource:
    """Frames of a video file at the file's own pace (or `fps` if it has none)."""

    def __init__(self, path: Path, fps: float = 30.0) -> None:
        self.path = path
        self._cap = cv2.VideoCapture(str(path))
        if not self._cap.isOpened():
            raise CameraError(f"{path}: not a video OpenCV can open")
        own = float(self._cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.interval = 1.0 / (own if 1.0 <= own <= 240.0 else fps)
        self._due = time.monotonic()
        self.ended = False

    def read(self) -> Image | None:
        wait = self._due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._due = max(self._due + self.interval, time.monotonic() - self.interval)
        ok, frame = self._cap.read()
        if not ok:
            self.ended = True
            return None
        return frame

    def close(self) -> None:
        self._cap.release()


def opener(device: int | str, size: tuple[int, int], fps: float) -> Callable[[], FrameSource]:
    """How to open the configured camera: a video file, the Pi camera or V4L2."""
    if isinstance(device, str) and not (
        device.isdigit() or device.startswith(("picamera", "/dev/"))
    ):
        path = Path(device)

        def video() -> FrameSource:
            if not path.is_file():
                raise CameraError(f"camera {device!r}: no such video file")
            return VideoFileSource(path, fps)

        return video
    return lambda: open_source(device, size, fps)


class ReopeningSource:
    def __init__(
        self, open_camera: Callable[[], FrameSource], name: str, retry_s: float = 2.0
    ) -> None:
        self.name = name
        self.retry_s = retry_s
        self._open = open_camera
        self._source: FrameSource | None = None
        self._next_try = 0.0
        self._misses = 0
        self._lock = threading.Lock()
        self.error: str | None = None  # what is wrong now, in a sentence
        self.opened = 0  # times the camera was opened
        self.try_open()

    def try_open(self) -> bool:
        self._next_try = time.monotonic() + self.retry_s
        try:
            source = self._open()
        except CameraError as exc:
            self._fail(str(exc))
            return False
        except Exception as exc:  # a driver library's own error: said, not raised
            self._fail(f"camera {self.name}: cannot open: {exc}")
            return False
        with self._lock:
            self._source, self._misses = source, 0
        self.opened += 1
        if self.error is not None:
            log.info("camera %s: open again", self.name)
        self.error = None
        return True

    def _fail(self, why: str) -> None:
        if why != self.error:
            log.warning("%s", why)
        self.error = why

    def read(self) -> Image | None:
        source = self._source
        if source is None:
            if time.monotonic() < self._next_try or not self.try_open():
                time.sleep(0.05)
                return None
            source = self._source
            assert source is not None
        try:
            image = source.read()
        except Exception as exc:  # e.g. a Picamera2 error after the cable was pulled
            self._fail(f"camera {self.name}: read failed: {exc}")
            image = None
        if image is not None:
            self._misses = 0
            if self.error is not None:
                log.info("camera %s: frames again", self.name)
                self.error = None
            return image
        self._misses += 1
        if isinstance(source, VideoFileSource) and source.ended:
            self._fail(f"camera {self.name}: the video file ended")
            time.sleep(0.05)
        elif self._misses >= MISSES_TO_REOPEN:
            self._fail(f"camera {self.name}: no frames: closed, opening it again")
            self._close_source()
        return None

    def _close_source(self) -> None:
        with self._lock:
            source, self._source = self._source, None
        self._next_try = time.monotonic() + self.retry_s
        if source is not None:
            try:
                source.close()
            except Exception as exc:
                log.warning("camera %s: close failed: %s", self.name, exc)

    def close(self) -> None:
        self._close_source()
