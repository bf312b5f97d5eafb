"""The simulated shoe with its camera in the loop (`croupier sim --camera`).

The dealer bot draws a card from the virtual shoe exactly as with
`sim.twins.VirtualCardSource`; here the card is not handed to a shoe's driver.
It is rendered as the frames of a card sliding out of the shoe
(`sim.camera.shoe.ShoeCamera`, faces from a deck folder or the house deck)
and the real reader (`drivers.camera.source.CardSource`) reads them on a
thread of its own: the service gets only what the reader read, through the
same conversion `croupier run`'s camera driver uses. Since the sim knows the
card it drew, it counts what the reader made of it (`CameraTally`).

A card's frames are drawn from a generator seeded by the seed, the shoe and
the card's place in it, so a simulator restarted on its journal renders the
same frames for the same card.

At a paced speed the camera runs at its frame rate in the simulation's time,
also between cards (empty ramp), so frame age means what it means at a real
table. At `--speed max` frames come as fast as they are rendered and read,
and none come between cards: frame age is then 0 while the camera is idle.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from controller.engine.profile import RuleProfile
from drivers.camera.driver import to_record
from drivers.camera.source import CardSource
from drivers.interfaces import DriverEvent, SensorFault, Sink
from drivers.vision import shoe as reader_shoe
from sim.camera.decks import Deck
from sim.camera.shoe import ShoeCamera, ShoeFrame
from sim.camera.tally import CameraTally
from sim.twins import ShoeTwin

log = logging.getLogger("croupier.sim.camera")

FPS = 30.0
# Empty frames before a card: the dealer's hand pulls the card into view at once.
LEAD = (1, 3)
EMPTY_POOL = 8  # empty-ramp frames rendered once and shown in turn while the camera idles
AFTER = 30  # empty frames (1 s) at most after a card's pass for the reader to report it


@dataclass(frozen=True)
class _Job:
    card: str
    shoe: int
    position: int
    attempt: int = 0


class CameraCardSource(ShoeTwin):
    """A `CardSource` driver: the virtual shoe's cards, as the shoe camera reads them."""

    immediate = False  # a card's read comes later, from the reader thread

    def __init__(
        self,
        profile: RuleProfile,
        seed: int,
        deck: Deck,
        reader: CardSource,
        speed: float | None,
        fps: float = FPS,
        clock: Callable[[], float] = time.monotonic,
        min_confidence: float = 0.0,
    ) -> None:
        super().__init__(profile, seed)
        self.sink: Sink | None = None
        self.camera = ShoeCamera(deck, seed=seed, fps=fps)
        self.reader = reader
        self.speed = speed  # None: as fast as frames render and read
        self.fps = fps
        self.clock = clock
        self.tally = CameraTally(min_confidence)
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._in_flight = 0
        self._missed: list[_Job] = []
        self._attempts: dict[tuple[int, int], int] = {}
        self._frame = 0  # frames fed to the reader since the start
        self._last_frame = clock()
        self._thread: threading.Thread | None = None
        self._empties = [self.camera.empty() for _ in range(EMPTY_POOL)]

    # ------------------------------------------------------- driver contract
    def start(self, sink: Sink) -> None:
        from drivers.vision import kernels

        # Compiled before the first card, as the camera driver does: a card drawn while
        # they compile would wait seconds for its first frame (a stale camera).
        kernels.warm()
        self.sink = sink
        self._thread = threading.Thread(target=self._run, name="sim-camera", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._jobs.put(None)
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        self.sink = None

    def _send(self, event: DriverEvent) -> None:
        # As the camera driver does: a read that comes after `stop` goes to nobody.
        sink = self.sink
        if sink is not None:
            sink(event)

    def frame_age(self) -> float:
        """Seconds since the camera delivered a frame (the service's camera watch)."""
        if self.speed is None and not self.busy():
            return 0.0
        return self.clock() - self._last_frame

    # ---------------------------------------------------------- the dealer
    def deal(self, shoe: int, position: int) -> bool:
        """The dealer pulls the card at `position` past the camera; its read follows."""
        with self._lock:
            self._in_flight += 1
        self.tally.dealt += 1
        # The same place drawn again (the table refused what was read of it): the card
        # passes the camera again, seen anew.
        attempt = self._attempts.get((shoe, position), -1) + 1
        self._attempts = {(shoe, position): attempt}
        self._jobs.put(_Job(self.card_at(shoe, position), shoe, position, attempt))
        return True

    def busy(self) -> bool:
        """A card pulled and not yet read (the dealer looks at the screen before going on)."""
        with self._lock:
            return self._in_flight > 0

    def to_key(self) -> bool:
        """A card went past and the screen shows nothing for it: True once per such
        card (the dealer keys it in, as for an unreadable card)."""
        with self._lock:
            if not self._missed:
                return False
            self._missed.pop(0)
            return True

    # ---------------------------------------------------------- the camera
    def _interval(self) -> float:
        assert self.speed is not None
        return 1.0 / (self.fps * self.speed)

    def _run(self) -> None:
        try:
            while True:
                try:  # paced: an empty ramp's frame whenever no card comes in time
                    job = self._jobs.get(timeout=self._interval() if self.speed else None)
                except queue.Empty:
                    self._feed_empty()
                    continue
                if job is None:
                    return
                self._pass(job)
        except Exception as exc:  # a driver thread must not die silently
            log.exception("sim camera: the reader failed")
            self._send(SensorFault("camera", f"the card reader failed: {exc}"))

    def _feed_empty(self) -> None:
        image = self._empties[self._frame % len(self._empties)]
        self._last_frame = self.clock()
        for read in self.reader.feed(image, self._frame):
            log.warning("sim camera: a read on the empty ramp: %s", read)
            self._send(to_record(read))
        self._frame += 1

    def _pass(self, job: _Job) -> None:
        """Feed the card's pass to the reader at the camera's pace, with empty-ramp
        frames after it until the reader has seen the pass end (glare on the ramp can
        hold a pass open for a few frames). Paced, each frame is rendered in its own
        frame interval; at full speed all are rendered first, so the latency measured
        is the table's, not the renderer's."""
        self.camera.rng = np.random.default_rng([self.seed, job.shoe, job.position, job.attempt])
        frames: Iterator[ShoeFrame] = self.camera.deal([job.card], gap=LEAD)
        if self.speed is None:
            frames = iter(list(frames))
        first_seen: float | None = None
        start = self.clock()
        reads: list[reader_shoe.ShoeRead] = []
        n = after = 0
        for shown in itertools.chain(frames, itertools.repeat(None)):
            if shown is None:
                if reads or after >= AFTER:
                    break
                after += 1
            image = shown.image if shown is not None else self._empties[n % len(self._empties)]
            if self.speed:
                wait = start + n * self._interval() - self.clock()
                if wait > 0:
                    time.sleep(wait)
            now = self.clock()
            self._last_frame = now
            if first_seen is None and shown is not None and shown.card is not None:
                first_seen = now
            for read in self.reader.feed(image, self._frame):
                reads.append(read)
                # Latency runs from the first frame that shows this card.
                self.tally.seen(read.frame_index, first_seen if first_seen is not None else now)
                self._send(to_record(read))
            self._frame += 1
            n += 1
        self._settle(job, reads, n)

    def _settle(self, job: _Job, reads: list[reader_shoe.ShoeRead], frames: int) -> None:
        self.tally.count(job.card, [(r.card, r.confidence) for r in reads])
        with self._lock:
            if not reads:
                log.warning("sim camera: no read for %s (%d frames)", job.card, frames)
                self._missed.append(job)
            self._in_flight -= 1
