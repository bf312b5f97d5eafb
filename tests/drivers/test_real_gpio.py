"""The presence driver on the real RPi.GPIO (or rpi-lgpio on a Pi 5).

Runs only on a Raspberry Pi with two GPIOs wired together and named in
CROUPIER_GPIO_LOOPBACK="<output>,<input>" (BCM), like gpiozero's real-pin
tests: the output plays the sensor, the real edge detection and the real
driver do the rest. Skipped everywhere else, saying why.
"""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

import pytest

from drivers.gpio.inputs import InputSettings
from drivers.gpio.presence import GpioPresence
from tests.drivers.conftest import Events, wait_until


def real_gpio() -> tuple[ModuleType, int, int]:
    pins = os.environ.get("CROUPIER_GPIO_LOOPBACK")
    if not pins:
        pytest.skip("set CROUPIER_GPIO_LOOPBACK=out,in (two wired GPIOs) to test on a Pi")
    if "RPi.GPIO" in sys.modules and getattr(sys.modules["RPi.GPIO"], "VERSION", "") == "fake":
        pytest.skip("the fake RPi.GPIO is installed")
    try:
        gpio = importlib.import_module("RPi.GPIO")
    except (ImportError, RuntimeError) as exc:
        pytest.skip(f"no real RPi.GPIO here: {exc}")
    out, inp = (int(p) for p in pins.split(","))
    return gpio, out, inp


def test_presence_on_real_pins(events: Events) -> None:
    gpio, out, inp = real_gpio()
    gpio.setmode(gpio.BCM)
    gpio.setup(out, gpio.OUT, initial=gpio.HIGH)  # HIGH: no chips (active low)
    driver = GpioPresence({1: inp}, InputSettings(debounce_s=0.02))
    driver.start(events)
    try:
        assert driver.ready.wait(10)
        assert driver.seen(1) is False
        gpio.output(out, gpio.LOW)
        wait_until(lambda: driver.seen(1) is True, what="chips seen on the real pin")
        gpio.output(out, gpio.HIGH)
        wait_until(lambda: driver.seen(1) is False, what="the spot empty again")
    finally:
        driver.stop()
        gpio.cleanup(out)
