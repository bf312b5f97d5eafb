"""The bet scale's calibration file (JSON, `"format": "croupier-scale"`,
`"version": 1`; docs/hardware.md): read by the table at start
(controller.hardware), written by `croupier calibrate scale`.

The calibration itself, and the checks every file passes, are the load-cell
driver's (drivers/loadcell/scale.py).
"""

from __future__ import annotations

import json
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

from controller.engine.errors import BadAmount
from controller.engine.money import parse_amount
from controller.inputs import InputError, load_json, read_text
from drivers.loadcell.scale import (
    CalibrationError,
    ChannelCal,
    Denomination,
    ScaleCalibration,
    check,
)

FORMAT, VERSION = "croupier-scale", 1
MAX_FILE = 64 * 1024  # a calibration file is under 2 KB


def to_json(cal: ScaleCalibration) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "created": cal.created,
        "noise_g": cal.noise_g,
        "chip_tolerance_g": cal.chip_tolerance_g,
        "max_chips": cal.max_chips,
        "unique_up_to": cal.unique_up_to,
        "denominations": [{"value": str(d.value), "grams": d.grams} for d in cal.denominations],
        "channels": [
            {"channel": c.channel, "offset": c.offset, "counts_per_gram": c.counts_per_gram}
            for c in cal.channels
        ],
    }


_TOP = {
    "format",
    "version",
    "created",
    "noise_g",
    "chip_tolerance_g",
    "max_chips",
    "unique_up_to",
    "denominations",
    "channels",
}


def from_json(data: object) -> ScaleCalibration:
    """Parse and check; every refusal says what is wrong."""
    if not isinstance(data, dict):
        raise CalibrationError("a calibration file is a JSON object")
    if data.get("format") != FORMAT:
        raise CalibrationError(f"not a scale calibration (format is not {FORMAT!r})")
    if data.get("version") != VERSION:
        raise CalibrationError(
            f"calibration version {data.get('version')!r} is not supported (this is {VERSION})"
        )
    unknown = set(data) - _TOP
    if unknown:
        raise CalibrationError(f"unknown keys: {', '.join(sorted(unknown))}")
    try:
        cal = ScaleCalibration(
            channels=tuple(
                ChannelCal(_int(c["channel"]), _int(c["offset"]), _num(c["counts_per_gram"]))
                for c in data["channels"]
            ),
            denominations=tuple(
                Denomination(_money(d["value"]), _num(d["grams"])) for d in data["denominations"]
            ),
            noise_g=_num(data["noise_g"]),
            chip_tolerance_g=_num(data["chip_tolerance_g"]),
            max_chips=_int(data["max_chips"]),
            unique_up_to=_int(data["unique_up_to"]),
            created=str(data.get("created", ""))[:64],
        )
    except (KeyError, TypeError) as exc:
        raise CalibrationError(f"missing or malformed entry: {exc}") from None
    check(cal)
    return cal


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CalibrationError(f"{value!r} is not a whole number")
    return value


def _num(value: object) -> float:
    # Bounded before float(): 10**400 would raise OverflowError, not a refusal.
    if isinstance(value, bool) or not isinstance(value, int | float) or not abs(value) < 1e12:
        raise CalibrationError(f"{str(value)[:40]!r} is not a number in range")
    return float(value)


def _money(value: object) -> Decimal:
    if not isinstance(value, str):
        raise CalibrationError(f'chip value {value!r}: write amounts as strings ("25")')
    try:
        # The table's one money check: no exponent, NaN (sNaN cannot even be hashed),
        # or 30-digit value reaches the arithmetic below.
        return parse_amount(value, "chip value")
    except BadAmount as exc:
        raise CalibrationError(str(exc)) from None


def load(path: Path) -> ScaleCalibration:
    try:
        text = read_text(path, "calibration file", max_bytes=MAX_FILE)
    except OSError as exc:
        raise CalibrationError(f"{path}: cannot read: {exc.strerror}") from None
    except InputError as exc:
        raise CalibrationError(str(exc)) from None
    try:
        data = load_json(text, "the file", max_bytes=MAX_FILE, max_depth=8)
    except InputError as exc:
        raise CalibrationError(f"{path}: not JSON: {exc}") from None
    try:
        return from_json(data)
    except CalibrationError as exc:
        raise CalibrationError(f"{path}: {exc}") from None


def save(cal: ScaleCalibration, path: Path) -> None:
    """Check, then write atomically: a half-written calibration never replaces a good one."""
    check(cal)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(to_json(cal), indent=2) + "\n", "utf-8")
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    tmp.replace(path)
