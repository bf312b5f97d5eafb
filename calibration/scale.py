"""Calibrating the bet scale: the steps that measure a spot (tare, span, chip).

`croupier calibrate scale` runs them (calibration/scale_session.py) and
writes the file (controller/scale_file.py); the calibration itself is the
load-cell driver's (drivers/loadcell/scale.py).
"""

from __future__ import annotations

import math
import statistics

from drivers.loadcell.scale import MIN_COUNTS_PER_GRAM, CalibrationError, ChannelCal

MAX_TARE_NOISE = 2000.0  # counts of standard deviation with the spot empty


def _mean(channel: int, samples: list[int | None]) -> tuple[float, float]:
    if not samples:
        raise CalibrationError(f"channel {channel}: no reading")
    if any(s is None for s in samples):
        raise CalibrationError(f"channel {channel}: the board could not read its HX711")
    values = [float(s) for s in samples if s is not None]
    return statistics.fmean(values), statistics.pstdev(values)


def tare(channel: int, samples: list[int | None]) -> int:
    """The empty spot's reading; refused when it wanders too much to be a tare."""
    mean, spread = _mean(channel, samples)
    if spread > MAX_TARE_NOISE:
        raise CalibrationError(
            f"channel {channel}: the empty reading wanders ({spread:.0f} counts): is something "
            "touching the spot, or the load cell loose?"
        )
    return round(mean)


def span(channel: int, samples: list[int | None], offset: int, known_grams: float) -> float:
    """Counts per gram from a known weight on the spot."""
    if not math.isfinite(known_grams) or known_grams <= 0:
        raise CalibrationError("the known weight must be more than 0 g")
    mean, _ = _mean(channel, samples)
    per_gram = (mean - offset) / known_grams
    if abs(per_gram) < MIN_COUNTS_PER_GRAM:
        raise CalibrationError(
            f"channel {channel}: the {known_grams:g} g weight moved the reading by only "
            f"{mean - offset:.0f} counts: is the weight on the right spot, the cell wired?"
        )
    return per_gram


def chip_grams(cal: ChannelCal, samples: list[int | None], count: int) -> float:
    """One chip's weight from `count` chips of a denomination on a calibrated spot."""
    if count < 1:
        raise CalibrationError("weigh at least one chip")
    mean, _ = _mean(cal.channel, samples)
    return cal.grams(round(mean)) / count
