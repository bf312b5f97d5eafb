"""The shoe camera behind the driver contract: simulated camera frames in,
the service's card records out, and cards the engine deals."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

from controller.config import Config, override
from controller.service import Service
from drivers.camera.capture import Capture
from drivers.camera.driver import CameraDriver
from drivers.camera.source import CardSource
from drivers.fakes import FakeBetSensor
from drivers.interfaces import CardRead, DriverEvent, DriverSet
from drivers.vision.glyphs import Image
from sim.camera.decks import cut_card
from sim.camera.shoe import ShoeCamera
from sim.keypad import SimKeypad
from tests.vision.conftest import get_calibration, get_deck


class Frames:
    """A frame source (drivers.camera.capture.FrameSource) over simulated frames."""

    def __init__(self, frames: Iterator[Image]) -> None:
        self.frames = frames
        self.done = threading.Event()

    def read(self) -> Image | None:
        time.sleep(1 / 30)  # a 30 fps camera's pace: the reader keeps up, none dropped
        image = next(self.frames, None)
        if image is None:
            self.done.set()
        return image

    def close(self) -> None:
        pass


def settle(driver: CameraDriver, frames: Frames) -> None:
    """Every frame out of the camera and read (a loaded machine reads slower)."""
    assert frames.done.wait(60)
    deadline = time.monotonic() + 30
    while driver.capture.backlog() and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)  # the frame in the reader's hands


def camera(cards: list[object]) -> tuple[CameraDriver, Frames]:
    cam = ShoeCamera(get_deck("npm-cardsjs"), seed=11)
    frames = Frames(f.image for f in cam.deal(cards))  # type: ignore[arg-type]
    capture = Capture(frames, maxsize=64)
    return CameraDriver(CardSource(get_calibration("npm-cardsjs").model()), capture), frames


def test_the_camera_driver_hands_one_record_per_card() -> None:
    driver, frames = camera(["7H", cut_card(), "KS"])
    got: list[DriverEvent] = []
    driver.start(got.append)
    settle(driver, frames)
    driver.stop()
    reads = [r for r in got if isinstance(r, CardRead)]
    assert driver.capture.stats.dropped == 0
    assert [r.card for r in reads] == ["7H", None, "KS"]
    assert reads[1].reason == "no_index" and reads[0].source == "camera"


def test_the_service_deals_what_the_camera_reads(tmp_path: Path) -> None:
    driver, frames = camera(["9H", "8D", "7C", "TS", "5H"])
    bets, panel = FakeBetSensor(), SimKeypad()
    config = override(
        Config(),
        "test",
        table={"id": "cam", "rules": "fr-2007"},
        state={"dir": tmp_path, "fsync": False},
    )
    service = Service(config, DriverSet(driver, bets, panel), None)
    bets.start(service.put)
    panel.start(service.put)
    bets.place(1, "10")
    bets.place(2, "10")
    panel.press("close_bets")
    service.drain()
    driver.start(service.put)
    settle(driver, frames)
    driver.stop()
    service.drain()
    r = service.table.round
    assert r is not None
    # The deal: box 1, box 2, the dealer's up card, box 1, box 2.
    assert [b.hands[0].cards for b in r.boxes] == [["9H", "TS"], ["8D", "5H"]]
    assert r.dealer == ["7C"]
    service.store.close()
