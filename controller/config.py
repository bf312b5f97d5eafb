"""The table's configuration: a TOML file checked in full before anything starts.

Every section is a typed model that forbids unknown keys, so a typo is an
error and not a silently ignored default; every error names the file, the
key and what is wrong (`croupier check-config FILE` prints them).
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from controller.engine.money import MAX_AMOUNT
from controller.inputs import InputError, load_toml, read_text
from drivers.settings import DriversSection

TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class ConfigError(Exception):
    """A configuration that cannot run; the message lists every problem, one a line."""


class Section(BaseModel):
    # strict: TOML has real booleans and numbers; "yes" for true is a mistake to report.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# A file path: given as a TOML string.
FilePath = Annotated[Path, Field(strict=False)]


class TableSection(Section):
    id: str = "table1"
    rules: str = "be-casino"
    boxes: Annotated[int, Field(ge=1, le=9)] | None = None

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not TABLE_ID.match(value):
            raise ValueError(
                "a table id is 1 to 32 letters, digits, '-' or '_' (it is a topic level)"
            )
        return value

    @field_validator("rules")
    @classmethod
    def _rules(cls, value: str) -> str:
        from controller import rules
        from controller.engine.errors import ProfileError

        try:
            rules.load(value)
        except ProfileError as exc:
            raise ValueError(str(exc)) from None
        return value


class StateSection(Section):
    dir: FilePath = Path("state")
    # fsync every journal commit. Off survives a process crash but not a power cut.
    fsync: bool = True
    keep_sent: Annotated[int, Field(ge=1000, le=10**9)] = 200_000  # le: an SQLite integer
    # Below this much free space on the state dir's disk (or a tenth of the disk, if less),
    # `status` carries a disk_low alarm (the table still runs; a full disk would stop it).
    min_free_mb: Annotated[int, Field(ge=0, le=10**7)] = 256
    # Held in <state dir>/reserve, given back when the disk is full: the room a
    # checkpoint needs to empty the WAL so the table can resume.
    reserve_mb: Annotated[int, Field(ge=0, le=1024)] = 16


class JournalSection(Section):
    """Retention (controller.retention): whole shoes older than `keep_days` leave the
    journal once the broker acknowledged every message made from them and, with
    `wait_for_recorder`, once the floor's recorder says it holds every event of them
    (its retained `recorded`); past `hard_cap_days` they leave it even if not."""

    keep_days: Annotated[int, Field(ge=1, le=36500)] = 90
    hard_cap_days: Annotated[int, Field(ge=1, le=36500)] = 365
    # On by default: a shoe the floor never recorded is kept until the hard cap rather
    # than lost from both places. A table without a floor recorder turns it off (or
    # stays bounded by hard_cap_days: docs/deploy.md).
    wait_for_recorder: bool = True

    @model_validator(mode="after")
    def _cap(self) -> JournalSection:
        if self.hard_cap_days < self.keep_days:
            raise ValueError(
                f"hard_cap_days ({self.hard_cap_days}) is below keep_days ({self.keep_days}): "
                "the cap prunes what keep_days still keeps; make it at least keep_days"
            )
        return self


class TlsSection(Section):
    ca_file: FilePath | None = None
    cert_file: FilePath | None = None
    key_file: FilePath | None = None
    insecure: bool = False  # skip the host name check (test brokers only)


class EmbeddedSection(Section):
    host: str = "127.0.0.1"
    port: Annotated[int, Field(ge=0, le=65535)] = 1883
    ws_port: Annotated[int, Field(ge=0, le=65535)] | None = 9001


class MqttSection(Section):
    # None: start the embedded broker (amqtt) in-process and use it.
    broker: str | None = None
    username: str | None = None
    password: str | None = None
    tls: TlsSection | None = None
    keepalive: Annotated[int, Field(ge=5, le=600)] = 10
    client_id: str | None = None
    window: Annotated[int, Field(ge=1, le=1000)] = 100
    surveillance: bool = False  # full views on surveillance/...: needs a broker ACL
    embedded: EmbeddedSection = EmbeddedSection()

    @field_validator("broker")
    @classmethod
    def _broker(cls, value: str | None) -> str | None:
        if value is not None:
            broker_address(value)
        return value


class SurveillanceSection(Section):
    """The analytics on surveillance/... (docs/surveillance.md); published only with
    [mqtt] surveillance = true."""

    # advantage_play: a spot's bets follow the true count with this z (rank correlation
    # times sqrt(rounds - 1)) after at least count_min_rounds rounds.
    count_z: Annotated[float, Field(ge=2.0, le=20.0)] = 3.5
    count_min_rounds: Annotated[int, Field(ge=3, le=1000)] = 10
    # A spot empty this many rounds in a row: the next stake starts a new session.
    session_gap_rounds: Annotated[int, Field(ge=1, le=1000)] = 10
    metrics_every_s: Annotated[float, Field(ge=1.0, le=3600.0)] = 60.0
    metrics_window_s: Annotated[float, Field(ge=60.0, le=86400.0)] = 3600.0
    # A payout within this of stake + result is right (sensors that read to the chip: 0).
    payout_tolerance: Annotated[
        Decimal, Field(strict=False, ge=0, le=MAX_AMOUNT, allow_inf_nan=False)
    ] = Decimal(0)


class CardsSection(Section):
    # A card read below this is unreadable: the dealer keys it in. The shoe camera's
    # reader reports a card from 0.5 (drivers.vision.shoe.ACCEPT), at thresholds set out
    # of fold so that no left-out deck design was misread, and it was judged as it
    # reports (docs/vision.md); a gate above that refused cards it had read right (16 of
    # 18 unreadable in 3,414 cards of the house deck at 0.9, docs/benchmarks.md). A
    # house may ask for more. The serial shoe reports 1.0 or no card.
    min_confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5
    # No frame from the shoe camera for this long: an alert, cards are keyed in, and the
    # watchdog stops being fed (below WatchdogSec, 30 s, so systemd restarts a hung camera).
    camera_stale_after: Annotated[float, Field(gt=0.0, lt=30.0)] = 5.0


class SimSection(Section):
    seed: int = 1
    rounds: Annotated[int, Field(ge=0, le=10**9)] = 0  # 0: deal until stopped
    speed: float | Literal["max"] = 1.0
    unreadable_rate: Annotated[float, Field(ge=0.0, le=0.5)] = 0.01
    mistake_rate: Annotated[float, Field(ge=0.0, le=0.5)] = 0.03
    # A cheating player now and then: past-posting or pinching while another box plays.
    cheat_rate: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0
    # Who sits where, by box ("3" = "counter-8"): Hi-Lo counters ("counter-8", "counter-12":
    # stakes spread 1-8 / 1-12 table minimums by true count; "classic-8": the minimum until
    # +1), or "flat" bettors; the other boxes bet at random (sim/counters.py).
    players: dict[str, Literal["counter-8", "counter-12", "classic-8", "flat"]] = {}
    # After each round the dealer pays and collects on the bet sensors...
    payouts: bool = False
    # ... and gets this share of the spots wrong (overpays, underpays, leaves a loser's chips).
    payout_error_rate: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0
    # The shoe camera in the loop: each card drawn is rendered as camera frames and the
    # real reader reads them (sim/camera/card_source.py); unreadable_rate then does not
    # apply, the reader decides. deck: a folder of 52 faces (default: the house deck);
    # calibration: a deck or camera calibration file (default: the learned reader).
    camera: bool = False
    deck: FilePath | None = None
    calibration: FilePath | None = None

    @field_validator("players")
    @classmethod
    def _players(cls, value: dict[str, str]) -> dict[str, str]:
        for box in value:
            if not (box.isdigit() and 1 <= int(box) <= 9):
                raise ValueError(f"{box!r} is not a box number (1 to 9)")
        return value

    @field_validator("speed")
    @classmethod
    def _speed(cls, value: float | str) -> float | str:
        if value != "max" and not 0 < float(value) <= 1000:
            raise ValueError("speed is a factor above 0 (1 = a real dealer's pace) or 'max'")
        return value


class ViewSection(Section):
    refresh_hz: Annotated[float, Field(gt=0, le=10)] = 4.0


class LogSection(Section):
    level: Literal["debug", "info", "warning", "error"] = "info"
    file: FilePath | None = None  # default: stderr, or <state dir>/croupier.log with the view


class Config(Section):
    table: TableSection = TableSection()
    state: StateSection = StateSection()
    journal: JournalSection = JournalSection()
    mqtt: MqttSection = MqttSection()
    cards: CardsSection = CardsSection()
    surveillance: SurveillanceSection = SurveillanceSection()
    sim: SimSection = SimSection()
    view: ViewSection = ViewSection()
    log: LogSection = LogSection()
    drivers: DriversSection = DriversSection()  # the hardware (docs/hardware.md)


class BrokerAddress(BaseModel):
    model_config = ConfigDict(frozen=True)
    host: str
    port: int
    tls: bool
    websockets: bool
    path: str = "/"


def broker_address(url: str) -> BrokerAddress:
    """mqtt://host:port, mqtts://, ws://host:port/path or wss://."""
    parts = urlsplit(url)
    defaults = {"mqtt": 1883, "mqtts": 8883, "ws": 80, "wss": 443}
    if parts.scheme not in defaults:
        raise ValueError(f"{url!r}: the scheme must be one of mqtt, mqtts, ws, wss")
    if not parts.hostname:
        raise ValueError(f"{url!r}: no host name")
    try:
        port = parts.port or defaults[parts.scheme]
    except ValueError:
        raise ValueError(f"{url!r}: the port is not a number from 1 to 65535") from None
    return BrokerAddress(
        host=parts.hostname,
        port=port,
        tls=parts.scheme in ("mqtts", "wss"),
        websockets=parts.scheme in ("ws", "wss"),
        path=parts.path or "/",
    )


def _problems(where: str, exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key (a typo?)"
        lines.append(f"{where}: {key}: {msg}")
    return "\n".join(lines)


def from_mapping(data: dict[str, Any], where: str) -> Config:
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_problems(where, exc)) from None


def load(path: Path) -> Config:
    # Strict UTF-8, at most 1 MiB, nesting that tomllib's recursion survives
    # (controller.inputs): a bad file is a ConfigError naming it, never a traceback.
    try:
        text = read_text(path, "configuration")
        data = load_toml(text, str(path))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except InputError as exc:
        raise ConfigError(str(exc)) from None
    return from_mapping(data, str(path))


def override(config: Config, where: str, **sections: dict[str, Any]) -> Config:
    """The config with some keys replaced (command-line flags), checked again."""
    data = config.model_dump(exclude_unset=True)
    for name, values in sections.items():
        data[name] = {**data.get(name, {}), **{k: v for k, v in values.items() if v is not None}}
    return from_mapping(data, where)
