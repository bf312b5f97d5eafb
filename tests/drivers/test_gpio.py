"""The GPIO drivers on the fake RPi.GPIO: drive the fake, assert the event."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest

from drivers import fake_rpi_gpio as fake
from drivers.gpio.inputs import InputSettings
from drivers.gpio.panel import GpioPanel, lit_for
from drivers.gpio.presence import GpioPresence
from drivers.interfaces import PanelPress, SensorFault
from tests.drivers.conftest import Events, wait_until

FAST = InputSettings(debounce_s=0.02, flap_edges=12, flap_window_s=1.0)
BUTTONS = {"close_bets": 5, "stand": 6, "double": 13, "void": 19, "confirm": 26}
LEDS = {"close_bets": 12, "stand": 16, "double": 20, "confirm": 21}


@pytest.fixture
def panel(gpio: ModuleType, events: Events) -> Iterator[GpioPanel]:
    # Generous times: a stalled worker on a loaded machine must not turn a short press
    # into a hold, nor let the confirm window close before the test presses confirm.
    p = GpioPanel(BUTTONS, LEDS, FAST, hold_s=1.0, confirm_window_s=2.0)
    p.start(events)
    assert p.ready.wait(15)
    yield p
    p.stop()


def press(pin: int) -> None:
    fake.drive_low(pin)


def release(pin: int) -> None:
    fake.drive_high(pin)


def test_a_press_is_one_event(panel: GpioPanel, events: Events) -> None:
    press(6)
    assert events.wait_for(PanelPress) == PanelPress("stand")
    release(6)
    press(13)
    events.wait_for(PanelPress, lambda e: e.button == "double")
    assert [e.button for e in events.of(PanelPress)] == ["stand", "double"]


def test_a_bouncing_button_is_one_press(panel: GpioPanel, events: Events) -> None:
    fake.bounce(6, [0, 1, 0, 1, 0, 1, 0])  # the contact chatters, then stays down
    events.wait_for(PanelPress)
    fake.bounce(6, [1, 0, 1, 0, 1])  # and chatters on release
    fake.settle()
    press(5)  # a later press on another button shows everything before it was taken
    events.wait_for(PanelPress, lambda e: e.button == "close_bets")
    assert [e.button for e in events.of(PanelPress)] == ["stand", "close_bets"]


def test_a_glitch_shorter_than_the_debounce_is_no_press(panel: GpioPanel, events: Events) -> None:
    fake.bounce(6, [0, 1])  # down and up within a millisecond: interference, not a finger
    fake.settle()
    press(5)
    events.wait_for(PanelPress, lambda e: e.button == "close_bets")
    assert [e.button for e in events.of(PanelPress)] == ["close_bets"]


def test_a_costly_button_must_be_held(panel: GpioPanel, events: Events) -> None:
    press(19)
    release_before = 0.05
    wait_until(lambda: panel.active.get(19), what="the press to be seen")
    fake.settle()
    threading_wait(release_before)
    release(19)
    # A short press arms `confirm` (its LED lights) and does nothing by itself ...
    wait_until(lambda: "confirm" in panel.lit(), what="the confirm LED")
    wait_until(lambda: "confirm" not in panel.lit(), what="the confirm window to close")
    assert not events.of(PanelPress)
    # ... a press held for hold_s is a void.
    press(19)
    assert events.wait_for(PanelPress) == PanelPress("void")
    release(19)


def test_a_short_costly_press_then_confirm(panel: GpioPanel, events: Events) -> None:
    press(19)
    wait_until(lambda: panel.active.get(19), what="the press")
    release(19)
    wait_until(lambda: "confirm" in panel.lit(), what="the confirm LED")
    press(26)
    assert events.wait_for(PanelPress) == PanelPress("void")
    wait_until(lambda: "confirm" not in panel.lit(), what="the confirm LED off")


def test_leds_show_what_the_engine_expects(panel: GpioPanel) -> None:
    panel.show("bet")
    assert fake.is_output_high(12) and not fake.is_output_high(16)
    panel.show("action", ("card", "stand", "double", "surrender"))
    assert fake.is_output_high(16) and fake.is_output_high(20) and not fake.is_output_high(12)
    panel.show("card")
    assert not any(fake.is_output_high(p) for p in LEDS.values())
    # Every change went to the pins, nothing else did.
    led_writes = [(p, v) for p, v in fake.outputs if p in LEDS.values()]
    assert (12, 1) in led_writes and (16, 1) in led_writes and (20, 0) in led_writes


def test_lit_for() -> None:
    assert lit_for("offer") == {"take_card", "refuse_card"}
    assert lit_for("action", ("card", "split", "stand")) == {"split", "stand"}
    assert lit_for("bet", awaiting_key=True) == {"call_supervisor"}


def test_flapping_input_is_a_fault_and_ignored(panel: GpioPanel, events: Events) -> None:
    # A loose wire: the line toggles every 10 ms (slower than contact bounce), 30 times.
    fake.bounce(6, [0, 1] * 15, gap=0.01)
    fault = events.wait_for(SensorFault)
    assert "flapping" in fault.detail and fault.device == "panel"
    # It calms down: the fault clears and the button works again.
    wait_until(lambda: panel.health_report()[0].ok, what="the flap fault to clear")
    press(6)
    events.wait_for(PanelPress, lambda e: e.button == "stand")
    assert [e.button for e in events.of(PanelPress)] == ["stand"]  # none while it flapped


def test_presence_debounced(gpio: ModuleType, events: Events) -> None:
    p = GpioPresence({1: 17, 2: 27}, FAST)
    p.start(events)
    try:
        assert p.ready.wait(15)
        assert p.seen(1) is False and p.seen(3) is None
        fake.bounce(17, [0, 1, 0, 1, 0])
        wait_until(lambda: p.seen(1) is True, what="chips on box 1")
        fake.settle()
        wait_until(lambda: p.changes == [(1, True)], what="one change")
    finally:
        p.stop()


def test_no_gpio_library_is_a_fault_not_a_crash(events: Events) -> None:
    import sys

    saved = sys.modules.pop("RPi.GPIO", None), sys.modules.pop("RPi", None)
    sys.modules["RPi"] = None  # type: ignore[assignment]  # import fails, as on a laptop
    p = GpioPresence({1: 17}, FAST)
    try:
        p.start(events)
        fault = events.wait_for(SensorFault)
        assert "rpi-lgpio" in fault.detail and p.seen(1) is None
    finally:
        p.stop()
        del sys.modules["RPi"]
        for name, mod in zip(("RPi.GPIO", "RPi"), saved, strict=True):
            if mod is not None:
                sys.modules[name] = mod


def threading_wait(seconds: float) -> None:
    import threading

    threading.Event().wait(seconds)
