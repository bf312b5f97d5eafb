"""Opening the shoe camera: one that is not there is retried and picked up,
one that stops giving frames is closed and opened again, and what is wrong
is one sentence, never an exception out of the capture thread."""

from __future__ import annotations

import numpy as np

from drivers.camera import opener
from drivers.camera.capture import CameraError
from drivers.camera.opener import ReopeningSource
from drivers.vision.glyphs import Image


class Camera:
    def __init__(self) -> None:
        self.frames = True
        self.closed = False

    def read(self) -> Image | None:
        return np.zeros((480, 640, 3), np.uint8) if self.frames else None

    def close(self) -> None:
        self.closed = True


def test_a_camera_missing_at_start_is_retried_and_picked_up() -> None:
    plugged: list[Camera] = []

    def open_camera() -> Camera:
        if not plugged:
            raise CameraError("camera 0: cannot open")
        return plugged[0]

    source = ReopeningSource(open_camera, "0", retry_s=0.0)
    assert source.error == "camera 0: cannot open"
    assert source.read() is None
    plugged.append(Camera())
    assert source.read() is not None
    assert source.error is None and source.opened == 1


def test_a_camera_that_stops_giving_frames_is_reopened() -> None:
    cameras: list[Camera] = []

    def open_camera() -> Camera:
        cameras.append(Camera())
        return cameras[-1]

    source = ReopeningSource(open_camera, "0", retry_s=0.0)
    cameras[0].frames = False
    for _ in range(opener.MISSES_TO_REOPEN):
        assert source.read() is None
    assert cameras[0].closed and "opening it again" in (source.error or "")
    assert source.read() is not None  # the second camera object gives frames
    assert len(cameras) == 2 and source.error is None


def test_a_library_error_is_a_sentence() -> None:
    def broken() -> Camera:
        raise RuntimeError("libcamera: device busy")

    source = ReopeningSource(broken, "picamera", retry_s=60.0)
    assert source.error == "camera picamera: cannot open: libcamera: device busy"
    assert source.read() is None
