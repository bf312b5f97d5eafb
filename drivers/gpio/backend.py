"""Where the RPi.GPIO module comes from.

On a Raspberry Pi 1 to 4 it is RPi.GPIO (`pip install 'croupier[pi]'`). On
a Raspberry Pi 5 RPi.GPIO cannot work ("Cannot determine SOC peripheral
base address"): install rpi-lgpio instead, which provides the same
`RPi.GPIO` import on top of lgpio (the two cannot be installed together).
In tests, `drivers.fake_rpi_gpio.install()` puts a fake under that name.
Only this module imports it, and only when a GPIO driver starts.
"""

from __future__ import annotations

import importlib
from types import ModuleType


class GpioUnavailable(RuntimeError):
    pass


def load() -> ModuleType:
    try:
        return importlib.import_module("RPi.GPIO")
    except ImportError as exc:
        raise GpioUnavailable(
            f"no RPi.GPIO module ({exc}): on a Raspberry Pi 1-4 install croupier[pi]; "
            "on a Raspberry Pi 5 install rpi-lgpio (same import; not beside RPi.GPIO)"
        ) from None
    except RuntimeError as exc:  # RPi.GPIO imported on a board it does not support
        raise GpioUnavailable(
            f"RPi.GPIO cannot run here ({exc}): on a Raspberry Pi 5 use rpi-lgpio"
        ) from None
