"""A fake `RPi.GPIO`: the part of its API the drivers use, and test helpers.

    from drivers import fake_rpi_gpio as fake
    fake.install()                  # sys.modules["RPi.GPIO"] is now this module
    panel = GpioPanel(...)          # the real driver imports RPi.GPIO: gets the fake
    fake.drive_low(17)              # a button to ground
    fake.bounce(17, [1, 0, 1, 0])   # contact bounce
    fake.settle()                   # wait until every edge callback has run
    fake.outputs                    # [(pin, level), ...]: every output change, in order
    fake.uninstall()

Like gpiozero's MockPin it records state changes; like RPi.GPIO it runs
edge callbacks in one background thread, in order, with `bouncetime`
swallowing edges that come sooner than that after the last callback, and
it raises the same RuntimeErrors for the same misuse (input on a pin never
set up, output on an input, edge detection added twice).

On a Raspberry Pi 1-4 the real module is RPi.GPIO; on a Pi 5 it is the
rpi-lgpio package, which provides the same `RPi.GPIO` import (the two
cannot be installed together). The drivers work unchanged on both.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field

# The constants, with RPi.GPIO's own values.
BOARD, BCM = 10, 11
OUT, IN = 0, 1
LOW, HIGH = 0, 1
PUD_OFF, PUD_DOWN, PUD_UP = 20, 21, 22
RISING, FALLING, BOTH = 31, 32, 33
VERSION = "fake"

Callback = Callable[[int], None]


@dataclass
class _Pin:
    direction: int
    level: int
    pull: int = PUD_OFF
    edge: int | None = None
    callback: Callback | None = None
    bouncetime: float = 0.0
    last_call: float = -1e9
    history: list[int] = field(default_factory=list)


_lock = threading.RLock()
_mode: int | None = None
_pins: dict[int, _Pin] = {}
_calls: queue.Queue[tuple[Callback, int] | None] = queue.Queue()
_thread: threading.Thread | None = None
outputs: list[tuple[int, int]] = []  # every output change: (pin, level)
edges_dropped = 0  # edges swallowed by bouncetime


# ------------------------------------------------------------------ the API
def setwarnings(flag: bool) -> None:
    pass


def setmode(mode: int) -> None:
    global _mode
    if mode not in (BOARD, BCM):
        raise ValueError("An invalid mode was passed to setmode()")
    if _mode is not None and _mode != mode:
        raise ValueError("A different mode has already been set!")
    _mode = mode


def getmode() -> int | None:
    return _mode


def setup(channel: int, direction: int, pull_up_down: int = PUD_OFF, initial: int = -1) -> None:
    if _mode is None:
        raise RuntimeError(
            "Please set pin numbering mode using GPIO.setmode(GPIO.BOARD) or GPIO.setmode(GPIO.BCM)"
        )
    if direction not in (IN, OUT):
        raise ValueError("An invalid direction was passed to setup()")
    with _lock:
        if direction == OUT:
            level = LOW if initial == -1 else int(bool(initial))
            _pins[channel] = _Pin(OUT, level)
            outputs.append((channel, level))
        else:
            level = HIGH if pull_up_down == PUD_UP else LOW
            _pins[channel] = _Pin(IN, level, pull_up_down)


def input(channel: int) -> int:
    with _lock:
        return _pin(channel).level


def output(channel: int, value: int | bool) -> None:
    with _lock:
        pin = _pin(channel)
        if pin.direction != OUT:
            raise RuntimeError("The GPIO channel has not been set up as an OUTPUT")
        level = int(bool(value))
        if level != pin.level:
            pin.level = level
            outputs.append((channel, level))


def add_event_detect(
    channel: int, edge: int, callback: Callback | None = None, bouncetime: int | None = None
) -> None:
    with _lock:
        pin = _pin(channel)
        if pin.direction != IN:
            raise RuntimeError("You must setup() the GPIO channel as an input first")
        if edge not in (RISING, FALLING, BOTH):
            raise ValueError("The edge must be set to RISING, FALLING or BOTH")
        if pin.edge is not None:
            raise RuntimeError("Conflicting edge detection already enabled for this GPIO channel")
        pin.edge, pin.callback = edge, callback
        pin.bouncetime = (bouncetime or 0) / 1000.0
    _ensure_thread()


def remove_event_detect(channel: int) -> None:
    with _lock:
        pin = _pins.get(channel)
        if pin is not None:
            pin.edge = pin.callback = None


def cleanup(channel: int | list[int] | None = None) -> None:
    global _mode
    with _lock:
        if channel is None:
            _pins.clear()
            _mode = None
        else:
            for c in [channel] if isinstance(channel, int) else channel:
                _pins.pop(c, None)


def _pin(channel: int) -> _Pin:
    pin = _pins.get(channel)
    if pin is None:
        raise RuntimeError("You must setup() the GPIO channel first")
    return pin


# ------------------------------------------------------------ test helpers
def drive(channel: int, level: int) -> None:
    """The outside world sets an input's level; edge callbacks follow as on a Pi."""
    global edges_dropped
    with _lock:
        pin = _pin(channel)
        if pin.direction != IN:
            raise RuntimeError(f"pin {channel} is an output: it cannot be driven")
        level = int(bool(level))
        if level == pin.level:
            return
        pin.level = level
        pin.history.append(level)
        wanted = pin.edge == BOTH or pin.edge == (RISING if level else FALLING)
        if not wanted or pin.callback is None:
            return
        now = time.monotonic()
        if now - pin.last_call < pin.bouncetime:
            edges_dropped += 1
            return
        pin.last_call = now
        _calls.put((pin.callback, channel))


def drive_high(channel: int) -> None:
    drive(channel, HIGH)


def drive_low(channel: int) -> None:
    drive(channel, LOW)


def bounce(channel: int, levels: list[int], gap: float = 0.0005) -> None:
    """Contact bounce: the levels one after another, `gap` seconds apart."""
    for level in levels:
        drive(channel, level)
        time.sleep(gap)


def level(channel: int) -> int:
    with _lock:
        return _pin(channel).level


def is_output_high(channel: int) -> bool:
    with _lock:
        pin = _pin(channel)
        return pin.direction == OUT and pin.level == HIGH


def settle(timeout: float = 10.0) -> None:
    """Wait until every queued edge callback has run."""
    done = threading.Event()
    _calls.put((lambda _c: done.set(), -1))
    if not done.wait(timeout):
        raise TimeoutError("edge callbacks did not run")


def _ensure_thread() -> None:
    global _thread
    with _lock:
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_dispatch, name="fake-gpio-events", daemon=True)
            _thread.start()


def _dispatch() -> None:
    while True:
        item = _calls.get()
        if item is None:
            return
        callback, channel = item
        try:
            callback(channel)
        except Exception as exc:  # RPi.GPIO prints and goes on; so do we
            print(f"fake RPi.GPIO: callback for {channel} raised {exc!r}", file=sys.stderr)


# ------------------------------------------------------- install / remove
def reset() -> None:
    global _mode, edges_dropped
    with _lock:
        _pins.clear()
        outputs.clear()
        _mode = None
        edges_dropped = 0


def install() -> types.ModuleType:
    """Make `import RPi.GPIO` give this module; returns it."""
    reset()
    this = sys.modules[__name__]
    package = types.ModuleType("RPi")
    package.GPIO = this  # type: ignore[attr-defined]
    sys.modules["RPi"] = package
    sys.modules["RPi.GPIO"] = this
    return this


def uninstall() -> None:
    global _thread
    if sys.modules.get("RPi.GPIO") is sys.modules[__name__]:
        sys.modules.pop("RPi.GPIO", None)
        sys.modules.pop("RPi", None)
    if _thread is not None:
        _calls.put(None)
        _thread.join(timeout=5)
        _thread = None
    reset()
