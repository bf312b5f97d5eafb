"""A fake camera device fed by the shoe renderer: what `croupier calibrate
camera` talks to in tests. `show(code)` is the dealer laying a card on the
ramp; `read()` returns frames of it at rest, like a capture source."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import replace

import cv2
import numpy as np

from drivers.vision.glyphs import Image
from sim.camera.decks import Deck
from sim.camera.optics import OpticsRange, card_corners, expose, place
from sim.camera.shoe import ShoeMount

# A well set up shoe: small variations only.
CALM = OpticsRange(
    gain=(0.95, 1.05),
    offset=(-3.0, 3.0),
    light_slope=(-0.05, 0.05),
    glare_chance=0.0,
    defocus=(0.0, 0.4),
    motion=(0.0, 0.0),
    noise=(1.0, 2.0),
    jpeg_chance=0.0,
)


class FakeShoeDevice:
    """Frames of whichever card the dealer shows, at rest on the ramp.

    defect: None, "blur" (out of focus), "bright" (burnt-out exposure) or
    "offside" (the card half out of the view), to test the refusals.
    """

    def __init__(
        self, deck: Deck, seed: int = 0, mount: ShoeMount | None = None, defect: str | None = None
    ) -> None:
        self.deck = deck
        self.mount = mount or ShoeMount()
        self.defect = defect
        self.rng = np.random.default_rng(seed)
        self.card: str | None = None
        self.closed = False
        self._top = 90.0
        self._dx = 0.0

    def show(self, code: str | None) -> None:
        self.card = code
        self._top = float(self.rng.uniform(60.0, 120.0))
        self._dx = float(self.rng.uniform(-3.0, 3.0))

    def read(self) -> Image | None:
        m = self.mount
        w, h = m.frame_size
        frame = np.empty((h, w, 3), np.uint8)
        frame[:] = m.ramp_colour
        if self.card is not None:
            left = m.card_left + self._dx - (m.card_width * 0.7 if self.defect == "offside" else 0)
            corners = card_corners(
                left + m.card_width / 2,
                self._top + m.card_height / 2,
                m.card_width,
                m.card_height,
                0.5,
            )
            place(frame, self.deck[self.card], corners)
        optics = CALM.draw(self.rng, (w, h), 0.0)
        if self.defect == "blur":
            optics = replace(optics, defocus=3.0)
        elif self.defect == "bright":
            optics = replace(optics, gain=1.9)
        out = expose(frame, optics, self.rng)
        if self.defect == "blur":
            out = cv2.GaussianBlur(out, (0, 0), 2.0)
        return out

    def close(self) -> None:
        self.closed = True


class FakeShoeCamera:
    """A shoe camera (a `FrameSource`) a test deals through: `draw("9H")` slides
    that card past it, `read()` gives its frames at the camera's pace and the
    empty ramp in between, and `unplug()` makes it stop giving frames, as a
    camera whose cable is pulled does. `draw` also takes a face image (a card
    back, the cut card) for a card the reader cannot read."""

    def __init__(self, deck: Deck, seed: int = 0, fps: float = 30.0) -> None:
        from sim.camera.shoe import ShoeCamera

        self.camera = ShoeCamera(deck, seed=seed, fps=fps)
        self.interval = 1.0 / fps
        self._empty = [self.camera.empty() for _ in range(4)]
        self._queue: deque[Image] = deque()
        self._lock = threading.Lock()
        self._due = time.monotonic()
        self._n = 0
        self.unplugged = False
        self.closed = False

    def draw(self, card: str | Image) -> None:
        frames = [f.image for f in self.camera.deal([card], gap=(1, 2))]
        with self._lock:
            self._queue.extend(frames)

    def idle(self) -> bool:
        """Every frame drawn has been read out."""
        with self._lock:
            return not self._queue

    def unplug(self) -> None:
        self.unplugged = True

    def read(self) -> Image | None:
        wait = self._due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._due = max(self._due + self.interval, time.monotonic())
        if self.unplugged:
            return None
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        self._n += 1
        return self._empty[self._n % len(self._empty)]

    def close(self) -> None:
        self.closed = True
