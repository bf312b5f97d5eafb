"""The fake RPi.GPIO, swapped into `sys.modules` for one test (gpiozero style)."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest

from drivers import fake_rpi_gpio


@pytest.fixture
def gpio() -> Iterator[ModuleType]:
    module = fake_rpi_gpio.install()
    yield module
    fake_rpi_gpio.uninstall()
