"""Capture: the bounded queue drops the oldest frame and counts it, the
watchdog turns a silent camera into one alert per outage, and the backends
fail with a reason."""

from __future__ import annotations

import importlib.util
import threading
import time

import numpy as np
import pytest

from drivers.camera.capture import CameraError, Capture, OpenCVSource, PicameraSource, open_source


class ScriptedSource:
    """Delivers `n` frames, then nothing (a camera that died)."""

    def __init__(self, n: int) -> None:
        self.left = n
        self.closed = False

    def read(self) -> np.ndarray | None:
        if self.left <= 0:
            time.sleep(0.005)
            return None
        self.left -= 1
        return np.full((4, 4, 3), self.left, np.uint8)

    def close(self) -> None:
        self.closed = True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_full_queue_drops_the_oldest_frame_and_counts_it() -> None:
    cap = Capture(ScriptedSource(0), maxsize=3)
    for i in range(5):
        cap.put(np.full((2, 2, 3), i, np.uint8))
    assert cap.stats.dropped == 2
    frames = [cap.get(timeout=0.1) for _ in range(3)]
    assert [int(f.image[0, 0, 0]) for f in frames if f is not None] == [2, 3, 4]
    assert [f.index for f in frames if f is not None] == [2, 3, 4]
    assert cap.get(timeout=0.01) is None


def test_watchdog_alerts_once_per_outage() -> None:
    clock = Clock()
    alerts: list[float] = []
    cap = Capture(ScriptedSource(0), max_age=1.0, on_stale=alerts.append, clock=clock)
    cap.put(np.zeros((2, 2, 3), np.uint8))
    clock.now += 0.5
    assert not cap.check_age()
    clock.now += 1.0
    assert cap.check_age() and cap.check_age()
    assert alerts == [1.5]
    cap.put(np.zeros((2, 2, 3), np.uint8))  # the camera is back
    clock.now += 2.0
    assert cap.check_age()
    assert alerts == [1.5, 2.0]


def test_reader_thread_delivers_then_reports_a_dead_camera() -> None:
    stale = threading.Event()
    source = ScriptedSource(5)
    cap = Capture(source, maxsize=10, max_age=0.05, on_stale=lambda _age: stale.set()).start()
    got = [cap.get(timeout=1.0) for _ in range(5)]
    assert all(g is not None for g in got)
    assert stale.wait(2.0)
    cap.stop()
    assert source.closed


def test_opencv_source_refuses_a_missing_camera() -> None:
    with pytest.raises(CameraError, match="cannot open"):
        OpenCVSource("/dev/no-such-camera")
    with pytest.raises(CameraError):
        open_source("/dev/no-such-camera")


@pytest.mark.skipif(
    importlib.util.find_spec("picamera2") is not None, reason="Picamera2 is installed: this is a Pi"
)
def test_picamera_source_says_how_to_install_it() -> None:
    with pytest.raises(CameraError, match="python3-picamera2"):
        PicameraSource()
    with pytest.raises(CameraError, match="Picamera2 is not installed"):
        open_source("picamera")
