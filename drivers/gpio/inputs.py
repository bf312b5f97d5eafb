"""Debounced digital inputs on the RPi.GPIO API, in a thread of their own.

RPi.GPIO's edge callbacks only wake the worker (`bouncetime` alone is not a
debouncer: it swallows edges after a callback, and can swallow the release
of a short press). The worker confirms a change by reading the level once
the pin has been quiet for `debounce_s`; a contact that bounces is one
change, a glitch shorter than that is none. A slow poll also compares every
pin with what it last accepted, so an edge lost anywhere is caught up.

A pin that changes `flap_edges` times within `flap_window_s` is flapping
(a loose wire, a failing sensor): reported once as a fault, and ignored
until it has been quiet for a whole window.

Setting the pins up is retried with a backoff like a serial port: a GPIO
library that fails (a line busy, the wrong library on a Pi 5) is a fault,
not a crash, and the rest of the table runs.
"""

from __future__ import annotations

import heapq
import itertools
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from drivers.gpio.backend import load
from drivers.worker import DriverWorker

BOUNCETIME_MS = 5  # only thins a storm of callbacks; the debouncing is ours
POLL_S = 0.25


@dataclass(frozen=True)
class InputSettings:
    active_low: bool = True  # pulled up; the switch or sensor pulls to ground when active
    debounce_s: float = 0.03
    flap_edges: int = 30
    flap_window_s: float = 2.0
    backoff_max: float = 5.0


class GpioInputs(DriverWorker):
    """Base of the GPIO drivers: pins -> debounced `changed(pin, active, t)` calls."""

    def __init__(
        self, name: str, pins: dict[int, str], s: InputSettings, outputs: tuple[int, ...] = ()
    ) -> None:
        super().__init__(name, f"{name}@gpio")
        self.pins = pins  # BCM pin -> what it is (for messages)
        self.out_pins = outputs
        self.s = s
        self.gpio: ModuleType | None = None
        self.active: dict[int, bool] = {}  # the accepted state of each pin
        self.ready = threading.Event()
        self._edges: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._due: dict[int, float] = {}
        self._seen: dict[int, deque[float]] = {p: deque() for p in pins}
        self._flapping: set[int] = set()
        self._timers: list[tuple[float, int, Callable[[float], None]]] = []
        self._order = itertools.count()
        self._lock = threading.Lock()

    def _wake(self) -> None:
        self._edges.put(-1)  # the loop waits on the edge queue

    # ------------------------------------------------------ for subclasses
    def changed(self, pin: int, active: bool, t: float) -> None:
        raise NotImplementedError

    def on_ready(self) -> None:
        """The pins are set up (again): outputs start low."""

    def at(self, t: float, fn: Callable[[float], None]) -> None:
        """Run `fn(t)` in the worker thread at monotonic time `t` (only from that thread)."""
        heapq.heappush(self._timers, (t, next(self._order), fn))

    def write(self, pin: int, on: bool) -> None:
        """Set an output (an LED) from any thread; a failure is a fault, not an exception."""
        gpio = self.gpio
        if gpio is None:
            return
        try:
            with self._lock:
                gpio.output(pin, gpio.HIGH if on else gpio.LOW)
        except Exception as exc:
            self.health.fault(self.sink, f"out:{pin}", f"cannot drive GPIO {pin}: {exc}")

    # ------------------------------------------------------------ the thread
    def _run(self) -> None:
        delay = 0.2
        while not self._stop.is_set():
            try:
                self._setup()
            except Exception as exc:
                self.health.fault(self.sink, "setup", f"cannot set up the GPIO pins: {exc}")
                self._release()
                self._stop.wait(delay)
                delay = min(delay * 2, self.s.backoff_max)
                continue
            self.health.clear("setup")
            self.ready.set()
            self.on_ready()
            try:
                self._serve()
            except Exception as exc:
                self.log.exception("input worker failed")
                self.health.fault(self.sink, "setup", f"input worker failed: {exc}")
                self.ready.clear()
                self._release()
                self._stop.wait(delay)

    def _setup(self) -> None:
        gpio = load()
        with self._lock:
            gpio.setwarnings(False)
            gpio.setmode(gpio.BCM)
            pull = gpio.PUD_UP if self.s.active_low else gpio.PUD_DOWN
            for pin in self.out_pins:
                gpio.setup(pin, gpio.OUT, initial=gpio.LOW)
            for pin in self.pins:
                gpio.setup(pin, gpio.IN, pull_up_down=pull)
            for pin in self.pins:
                self.active[pin] = self._read(gpio, pin)
                gpio.add_event_detect(pin, gpio.BOTH, callback=self._edge, bouncetime=BOUNCETIME_MS)
        self.gpio = gpio

    def _release(self) -> None:
        gpio, self.gpio = self.gpio, None
        if gpio is None:
            return
        try:
            with self._lock:
                for pin in self.pins:
                    gpio.remove_event_detect(pin)
                gpio.cleanup([*self.pins, *self.out_pins])
        except Exception:
            self.log.debug("GPIO cleanup failed", exc_info=True)

    def _edge(self, pin: int) -> None:
        """RPi.GPIO's callback thread: only queue it (never block, never raise)."""
        self._edges.put(pin)

    def _read(self, gpio: ModuleType, pin: int) -> bool:
        level = gpio.input(pin)
        return bool(level == gpio.LOW) if self.s.active_low else bool(level == gpio.HIGH)

    def _serve(self) -> None:
        next_poll = time.monotonic() + POLL_S
        while not self._stop.is_set():
            now = time.monotonic()
            wake = min([next_poll, *self._due.values(), *(t for t, _, _ in self._timers[:1])])
            try:
                pin = self._edges.get(timeout=max(0.0, wake - now))
                if pin >= 0:
                    self._on_edge(pin, time.monotonic())
            except queue.Empty:
                pass
            now = time.monotonic()
            self._confirm(now)
            self._run_timers(now)
            if now >= next_poll:
                self._poll(now)
                next_poll = now + POLL_S

    def _on_edge(self, pin: int, now: float) -> None:
        if pin not in self.pins:
            return
        self._due[pin] = now + self.s.debounce_s  # wait for quiet
        seen = self._seen[pin]
        seen.append(now)
        while seen and seen[0] < now - self.s.flap_window_s:
            seen.popleft()
        if len(seen) >= self.s.flap_edges and pin not in self._flapping:
            self._flapping.add(pin)
            self.flapped(pin)

    def flapped(self, pin: int) -> None:
        self.health.fault(
            self.sink,
            f"flap:{pin}",
            f"{self.pins[pin]} (GPIO {pin}) is flapping ({self.s.flap_edges}+ changes in "
            f"{self.s.flap_window_s:g} s): ignored until it is quiet; check its wiring",
        )

    def _confirm(self, now: float) -> None:
        gpio = self.gpio
        assert gpio is not None
        for pin, due in list(self._due.items()):
            if due > now:
                continue
            del self._due[pin]
            if pin in self._flapping:
                seen = self._seen[pin]
                if seen and seen[-1] > now - self.s.flap_window_s:
                    self._due[pin] = seen[-1] + self.s.flap_window_s  # look again when quiet
                    continue
                self._flapping.discard(pin)
                self.health.clear(f"flap:{pin}")
            with self._lock:
                active = self._read(gpio, pin)
            if active != self.active.get(pin):
                self.active[pin] = active
                try:
                    self.changed(pin, active, now)
                except Exception:
                    self.log.exception("handling GPIO %d failed", pin)

    def _poll(self, now: float) -> None:
        gpio = self.gpio
        assert gpio is not None
        for pin in self.pins:
            if pin in self._due:
                continue
            with self._lock:
                active = self._read(gpio, pin)
            if active != self.active.get(pin):
                self._due[pin] = now + self.s.debounce_s

    def _run_timers(self, now: float) -> None:
        while self._timers and self._timers[0][0] <= now:
            _, _, fn = heapq.heappop(self._timers)
            try:
                fn(now)
            except Exception:
                self.log.exception("timer failed")
