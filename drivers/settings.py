"""The drivers' configuration: typed sections that forbid unknown keys.

Every option is read and bounds-checked here, before any hardware is
touched (Klipper's filament sensor style): a typo or an impossible value is
an error naming the key, never a silently ignored default. The table's
config file holds them under `[drivers.*]` (docs/hardware.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from drivers.interfaces import BUTTONS

Seconds = Annotated[float, Field(gt=0, le=60)]
Bcm = Annotated[int, Field(ge=2, le=27)]  # BCM numbers of the 40-pin header's GPIOs
BoxNo = Annotated[int, Field(ge=1, le=9)]
# What a panel button can do: the engine's buttons, plus the panel's own.
PANEL_ACTIONS = (*BUTTONS, "confirm")
COSTLY = ("void", "new_shoe", "misdeal_card")


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LinkSection(Section):
    port: str  # /dev/serial/by-id/... is stable across replugs; /dev/ttyACM0 is not
    baudrate: Literal[9600, 19200, 38400, 57600, 115200, 230400] = 115200
    backoff_max_s: Seconds = 5.0
    silence_s: Seconds = 3.0


class SpotSection(Section):
    channel: Annotated[int, Field(ge=1, le=16)]
    box: BoxNo
    spot: Annotated[int, Field(ge=0, le=7)] = 0
    kind: Literal["stake", "insurance"] = "stake"


class LoadCellSection(LinkSection):
    calibration: Path
    spots: Annotated[list[SpotSection], Field(min_length=1, max_length=16)]
    silence_s: Seconds = 2.0  # the board sends 10 frames a second
    settle_s: Annotated[float, Field(ge=0.05, le=10)] = 0.5
    band_g: Annotated[float, Field(gt=0, le=50)] = 2.0
    stuck_frames: Annotated[int, Field(ge=10, le=10_000)] = 100
    max_g: Annotated[float, Field(gt=0, le=50_000)] = 3000.0
    flap_changes: Annotated[int, Field(ge=3, le=1000)] = 12
    flap_window_s: Seconds = 5.0

    @model_validator(mode="after")
    def _unique(self) -> LoadCellSection:
        channels = [s.channel for s in self.spots]
        places = [(s.box, s.spot, s.kind) for s in self.spots]
        if len(set(channels)) != len(channels):
            raise ValueError("a load-cell channel is mapped to two spots")
        if len(set(places)) != len(places):
            raise ValueError("two load-cell channels are mapped to the same spot")
        return self


class ShoeSection(LinkSection):
    silence_s: Seconds = 5.0  # the shoe sends a heartbeat every second


class KeypadSection(LinkSection):
    silence_s: Seconds = 5.0
    hold_s: Annotated[float, Field(ge=0.2, le=5)] = 1.0  # costly keys must be held this long


class PresenceSection(Section):
    pins: dict[str, Bcm]  # box number -> BCM pin of its presence sensor
    active_low: bool = True  # sensor pulls the line to ground when chips are present
    debounce_s: Annotated[float, Field(ge=0.005, le=1)] = 0.05
    flap_edges: Annotated[int, Field(ge=4, le=1000)] = 20
    flap_window_s: Seconds = 2.0

    @model_validator(mode="after")
    def _boxes(self) -> PresenceSection:
        for key in self.pins:
            if not key.isdigit() or not 1 <= int(key) <= 9:
                raise ValueError(f"presence pin key {key!r}: use a box number 1 to 9")
        return self


class PanelSection(Section):
    buttons: dict[str, Bcm]  # action -> BCM pin (buttons wired to ground, internal pull-ups)
    leds: dict[str, Bcm] = {}  # action -> BCM pin of the LED that says it is expected
    debounce_s: Annotated[float, Field(ge=0.005, le=1)] = 0.03
    hold_s: Annotated[float, Field(ge=0.2, le=5)] = 1.5  # how long a costly button is held
    costly: tuple[str, ...] = COSTLY
    confirm_window_s: Seconds = 3.0  # a short press of a costly button waits this for `confirm`
    flap_edges: Annotated[int, Field(ge=4, le=1000)] = 30
    flap_window_s: Seconds = 2.0

    @model_validator(mode="after")
    def _known(self) -> PanelSection:
        for name in [*self.buttons, *self.leds, *self.costly]:
            if name not in PANEL_ACTIONS:
                raise ValueError(f"{name!r} is not a panel action ({', '.join(PANEL_ACTIONS)})")
        pins = list(self.buttons.values()) + list(self.leds.values())
        if len(set(pins)) != len(pins):
            raise ValueError("a GPIO pin is used twice on the panel")
        return self


class CameraSection(Section):
    """`[drivers.camera]`: the camera in the dealing shoe and its card reader."""

    # A V4L2 index (0) or device path (/dev/video0), "picamera" for the Pi's CSI camera,
    # or a video file (a test rig, or a recorded shoe played as if live).
    device: int | str = 0
    calibration: Path | None = None  # deck or camera calibration (croupier calibrate)
    size: tuple[Annotated[int, Field(ge=160, le=4096)], Annotated[int, Field(ge=120, le=4096)]] = (
        640,
        480,
    )
    fps: Annotated[float, Field(ge=5, le=120)] = 30.0
    # Shoe geometry (drivers.vision.shoe.ShoeGeometry): where the index corner passes.
    # Unset: the camera calibration's, else the nominal shoe mount's.
    band: tuple[int, int] | None = None  # x range of the card's left edge and index, pixels
    rank_height: Annotated[int, Field(ge=8, le=200)] | None = None
    card_width: Annotated[float, Field(ge=40, le=4096)] | None = None
    queue: Annotated[int, Field(ge=2, le=256)] = 8  # frames held for a reader that falls behind
    reopen_s: Seconds = 2.0  # wait between attempts to open a missing camera
    # Frames kept to save around an unreadable card (`croupier run --record DIR`).
    record: Path | None = None
    record_frames: Annotated[int, Field(ge=10, le=600)] = 90

    @model_validator(mode="after")
    def _geometry(self) -> CameraSection:
        if self.band is not None and not 0 <= self.band[0] < self.band[1] <= self.size[0]:
            raise ValueError(f"band {self.band} is not inside a frame {self.size[0]} pixels wide")
        return self


class DriversSection(Section):
    """`[drivers]`: which hardware this table has. Absent parts are not started."""

    loadcell: LoadCellSection | None = None
    shoe: ShoeSection | None = None
    camera: CameraSection | None = None
    keypad: KeypadSection | None = None
    presence: PresenceSection | None = None
    panel: PanelSection | None = None
    gpio_mode: Literal["BCM"] = "BCM"

    @model_validator(mode="after")
    def _pins(self) -> DriversSection:
        if self.shoe is not None and self.camera is not None:
            raise ValueError(
                "[drivers.shoe] and [drivers.camera] are both card sources: configure one"
            )
        used: list[int] = []
        if self.presence is not None:
            used += self.presence.pins.values()
        if self.panel is not None:
            used += [*self.panel.buttons.values(), *self.panel.leds.values()]
        if len(set(used)) != len(used):
            raise ValueError("a GPIO pin is used by both the presence sensors and the panel")
        return self
