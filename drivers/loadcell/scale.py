"""Bet-scale calibration: from raw load-cell counts to grams to a stake.

The driver's side of the calibration (its file format is
controller/scale_file.py, the steps that measure it calibration/scale.py).
A calibration holds, per channel of the load-cell board, the tare
`offset` (counts with the spot empty) and the span `counts_per_gram` (from
a known weight), and for the table's chips the grams of one chip of each
denomination. A weight becomes a stake by finding the stacks of chips that
weigh that much within the tolerance: when every such stack is worth the
same, that is the stake; when stacks of different worth fit, the reading is
ambiguous and no stake is claimed (the driver reports a fault instead).

`check()` refuses, with the reason, a calibration that cannot work: a dead
or reversed-and-tiny span, a tare off the ADC's range, two denominations so
close in weight that small stacks cannot be told apart.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache

RAW_MIN, RAW_MAX = -(1 << 23), (1 << 23) - 1
MAX_STACKS = 200_000  # stacks `ambiguity` compares (about a second on a Pi)
MIN_COUNTS_PER_GRAM = 2.0  # below this a gram is lost in the HX711's noise


class CalibrationError(ValueError):
    """A calibration that is refused; the message says why."""


@dataclass(frozen=True)
class Denomination:
    value: Decimal
    grams: float


@dataclass(frozen=True)
class ChannelCal:
    channel: int  # 1-based position in the board's frame
    offset: int
    counts_per_gram: float

    def grams(self, raw: int) -> float:
        return (raw - self.offset) / self.counts_per_gram


@dataclass(frozen=True)
class ScaleCalibration:
    channels: tuple[ChannelCal, ...]
    denominations: tuple[Denomination, ...]
    noise_g: float = 1.0  # tolerance on any reading
    chip_tolerance_g: float = 0.2  # and on each chip (chips vary)
    max_chips: int = 40  # the tallest stack a spot may hold
    unique_up_to: int = 5  # stacks of up to this many chips must never be ambiguous
    created: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))

    def channel(self, number: int) -> ChannelCal:
        for c in self.channels:
            if c.channel == number:
                return c
        raise CalibrationError(f"channel {number} is not calibrated")

    def stakes(self, grams: float) -> frozenset[Decimal]:
        """Every stake a stack weighing `grams` could be (empty: no stack fits)."""
        return _stakes(
            round(grams, 2),
            tuple(sorted(((d.grams, d.value) for d in self.denominations), reverse=True)),
            self.noise_g,
            self.chip_tolerance_g,
            self.max_chips,
        )


@lru_cache(maxsize=4096)
def _stakes(
    grams: float,
    denoms: tuple[tuple[float, Decimal], ...],
    noise: float,
    ctol: float,
    max_chips: int,
) -> frozenset[Decimal]:
    found: set[Decimal] = set()

    def fits(weight: float, chips: int) -> bool:
        return abs(grams - weight) <= noise + ctol * chips

    def walk(i: int, weight: float, chips: int, value: Decimal) -> None:
        g, v = denoms[i]
        room = max_chips - chips
        if i == len(denoms) - 1:
            centre = (grams - weight) / g
            for n in range(max(0, math.floor(centre) - 1), min(room, math.ceil(centre) + 1) + 1):
                if fits(weight + n * g, chips + n):
                    found.add(value + n * v)
            return
        n = 0
        while n <= room and weight + n * g <= grams + noise + ctol * (chips + n):
            walk(i + 1, weight + n * g, chips + n, value + n * v)
            n += 1

    walk(0, 0.0, 0, Decimal(0))
    return frozenset(found)


# ------------------------------------------------------------------ checks
def ambiguity(cal: ScaleCalibration) -> str | None:
    """Two stacks of up to `unique_up_to` chips, of different worth, that weigh the same
    within the tolerance: the reason a calibration is refused, or None."""
    stacks: list[tuple[float, Decimal, tuple[int, ...]]] = []

    def walk(i: int, counts: tuple[int, ...], left: int) -> None:
        if i == len(cal.denominations):
            weight = sum(n * d.grams for n, d in zip(counts, cal.denominations, strict=True))
            value = sum(
                (n * d.value for n, d in zip(counts, cal.denominations, strict=True)), Decimal(0)
            )
            stacks.append((weight, value, counts))
            return
        for n in range(left + 1):
            walk(i + 1, (*counts, n), left - n)

    walk(0, (), cal.unique_up_to)
    stacks.sort()
    for a, (wa, va, ca) in enumerate(stacks):
        for wb, vb, cb in stacks[a + 1 :]:
            span = 2 * cal.noise_g + cal.chip_tolerance_g * (sum(ca) + sum(cb))
            if wb - wa > span:
                break
            if va != vb:
                return (
                    f"{_stack(cal, ca)} ({wa:.1f} g, worth {va}) and {_stack(cal, cb)} "
                    f"({wb:.1f} g, worth {vb}) weigh the same within the tolerance: "
                    "the chips' weights are too close to tell these stacks apart"
                )
    return None


def _stack(cal: ScaleCalibration, counts: tuple[int, ...]) -> str:
    parts = [f"{n} x {d.value}" for n, d in zip(counts, cal.denominations, strict=True) if n]
    return " + ".join(parts) or "an empty spot"


def check(cal: ScaleCalibration) -> None:
    """Raise CalibrationError with the first reason this calibration cannot work."""
    if not cal.channels:
        raise CalibrationError("no channel is calibrated")
    numbers = [c.channel for c in cal.channels]
    if len(set(numbers)) != len(numbers):
        raise CalibrationError("a channel is calibrated twice")
    for c in cal.channels:
        if not 1 <= c.channel <= 16:
            raise CalibrationError(f"channel {c.channel}: channels are numbered 1 to 16")
        if not RAW_MIN <= c.offset <= RAW_MAX:
            raise CalibrationError(f"channel {c.channel}: tare {c.offset} is off the 24-bit range")
        if not math.isfinite(c.counts_per_gram) or abs(c.counts_per_gram) < MIN_COUNTS_PER_GRAM:
            raise CalibrationError(
                f"channel {c.channel}: {c.counts_per_gram:g} counts per gram is too weak a "
                f"signal (at least {MIN_COUNTS_PER_GRAM:g}): is the load cell wired?"
            )
    if not 1 <= len(cal.denominations) <= 8:
        raise CalibrationError("give 1 to 8 chip denominations")
    values = [d.value for d in cal.denominations]
    if len(set(values)) != len(values):
        raise CalibrationError("a denomination is given twice")
    for d in cal.denominations:
        if not d.value.is_finite() or d.value <= 0 or d.value != d.value.quantize(Decimal("0.01")):
            raise CalibrationError(f"chip value {d.value}: a positive amount in cents")
        if not math.isfinite(d.grams) or not 0.5 <= d.grams <= 100:
            raise CalibrationError(f"a {d.value} chip weighing {d.grams:g} g: 0.5 to 100 g")
    if not 0 < cal.noise_g <= 50 or not 0 <= cal.chip_tolerance_g <= 5:
        raise CalibrationError("noise_g must be in (0, 50] and chip_tolerance_g in [0, 5]")
    if not 1 <= cal.unique_up_to <= cal.max_chips <= 200:
        raise CalibrationError("need 1 <= unique_up_to <= max_chips <= 200")
    lightest = min(d.grams for d in cal.denominations)
    if cal.noise_g >= lightest / 2:
        raise CalibrationError(
            f"noise_g {cal.noise_g:g} g is half a chip or more ({lightest:g} g): "
            "one chip could be lost in the noise"
        )
    stacks = math.comb(cal.unique_up_to + len(cal.denominations), len(cal.denominations))
    if stacks > MAX_STACKS:
        # The check below walks every stack: a file asking for 10**11 of them would
        # keep the table from starting, not refuse the file.
        raise CalibrationError(
            f"unique_up_to {cal.unique_up_to} with {len(cal.denominations)} denominations is "
            f"{stacks:,} stacks to tell apart; at most {MAX_STACKS:,}"
        )
    reason = ambiguity(cal)
    if reason is not None:
        raise CalibrationError(reason)
