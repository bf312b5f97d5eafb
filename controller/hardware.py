"""The table's drivers, built from the `[drivers.*]` configuration.

`build` starts from whatever is configured and says what is not there: a
part that is not configured, or whose setup is refused (a calibration file
that does not check), is replaced by an `Absent` driver that reports itself
faulty, so the table runs on the rest and the pit sees what is missing. A
configured driver whose hardware is unplugged starts anyway and keeps
retrying on its own (that is every driver's job, not this module's).

The shoe camera is the exception to `Absent`: a calibration or shoe geometry
it cannot use is a `HardwareError` (`croupier run` stops with the reason),
since no retry will fix a file, and a table whose reader reads with the
wrong model must not start as if it read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from controller.scale_file import load as load_scale
from drivers.gpio.panel import GpioPanel
from drivers.gpio.presence import GpioPresence
from drivers.health import DeviceHealth
from drivers.interfaces import Driver, DriverSet, SensorFault, Sink
from drivers.loadcell.driver import LoadCellBets
from drivers.loadcell.scale import CalibrationError
from drivers.serial.keypad import SerialKeypad
from drivers.serial.shoe import SerialShoe
from drivers.settings import DriversSection


class HardwareError(ValueError):
    """A driver's configuration that cannot work (the message names the section)."""


class Reporting(Driver, Protocol):
    def health_report(self) -> list[DeviceHealth]: ...


class Absent:
    """A part the table runs without: it sends one fault when started, nothing else."""

    def __init__(self, device: str, why: str) -> None:
        self.device = device
        self.why = why

    def start(self, sink: Sink) -> None:
        sink(SensorFault(self.device, self.why))

    def stop(self) -> None:
        pass

    def health_report(self) -> list[DeviceHealth]:
        return [DeviceHealth(self.device, False, self.why)]


@dataclass
class Hardware:
    drivers: DriverSet
    devices: list[Reporting] = field(default_factory=list)
    panel: GpioPanel | None = None

    def health(self) -> list[DeviceHealth]:
        out: list[DeviceHealth] = []
        for device in self.devices:
            try:
                out += device.health_report()
            except Exception as exc:  # a report must never stop the loop
                out.append(DeviceHealth(type(device).__name__, False, f"no report: {exc}"))
        return out


def build(cfg: DriversSection, camera_stale_after: float = 5.0) -> Hardware:
    presence = GpioPresence.from_config(cfg.presence) if cfg.presence else None
    bets: Reporting
    if cfg.loadcell is None:
        bets = Absent("loadcell", "no bet scale configured ([drivers.loadcell])")
    else:
        try:
            scale = load_scale(cfg.loadcell.calibration)
            bets = LoadCellBets.from_config(
                cfg.loadcell, scale, presence.seen if presence else None
            )
        except CalibrationError as exc:
            bets = Absent("loadcell", f"not started: {exc} (run croupier calibrate scale)")
    cards: Reporting
    if cfg.camera is not None:
        cards = _camera(cfg, camera_stale_after)
    elif cfg.shoe is not None:
        cards = SerialShoe.from_config(cfg.shoe)
    else:
        cards = Absent("shoe", "no card source configured ([drivers.camera] or [drivers.shoe])")
    panel: Reporting
    gpio_panel = GpioPanel.from_config(cfg.panel) if cfg.panel else None
    keypad = SerialKeypad.from_config(cfg.keypad) if cfg.keypad else None
    if gpio_panel is not None:
        panel = gpio_panel
    elif keypad is not None:
        panel = keypad
    else:
        panel = Absent("panel", "no dealer panel configured ([drivers.panel] or [drivers.keypad])")
    extra: list[Reporting] = [d for d in (presence,) if d is not None]
    if gpio_panel is not None and keypad is not None:
        extra.append(keypad)  # both: the keypad keys cards in beside the GPIO buttons
    return Hardware(
        DriverSet(cards, bets, panel, list(extra)),
        [cards, bets, panel, *extra],
        gpio_panel,
    )


def _camera(cfg: DriversSection, stale_after: float) -> Reporting:
    from drivers.camera.driver import CameraDriver  # OpenCV loads only for a camera table

    assert cfg.camera is not None
    try:
        return CameraDriver.from_config(cfg.camera, stale_after)
    except ValueError as exc:
        raise HardwareError(f"[drivers.camera] {exc}") from None
