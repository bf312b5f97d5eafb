"""The steps of `croupier calibrate scale`, apart from the terminal and the port.

`read(n)` returns the board's next n frames and `ask(text)` tells the
person what to do and waits until they have, so the same steps run on a
real board and in a test against a fake one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from calibration.scale import chip_grams, span, tare
from drivers.loadcell.frame import Frame
from drivers.loadcell.scale import (
    CalibrationError,
    ChannelCal,
    Denomination,
    ScaleCalibration,
    check,
)

Read = Callable[[int], list[Frame]]
Ask = Callable[[str], None]


@dataclass(frozen=True)
class Plan:
    channels: tuple[int, ...]
    known_grams: float
    chips: tuple[tuple[Decimal, float | None], ...]  # value, grams (None: weigh them)
    chip_count: int = 20
    samples: int = 20
    noise_g: float = 1.0
    chip_tolerance_g: float = 0.2
    max_chips: int = 40
    unique_up_to: int = 5


def _column(frames: list[Frame], channel: int) -> list[int | None]:
    if any(len(f.raws) < channel for f in frames):
        raise CalibrationError(f"the board does not send channel {channel}")
    return [f.raws[channel - 1] for f in frames]


def run(plan: Plan, read: Read, ask: Ask) -> ScaleCalibration:
    if not plan.channels:
        raise CalibrationError("no channel to calibrate")
    read(1)  # is the board there? say so before asking anyone to move weights
    ask("Clear every betting spot (nothing on any of them).")
    empty = read(plan.samples)
    offsets = {ch: tare(ch, _column(empty, ch)) for ch in plan.channels}
    cals: list[ChannelCal] = []
    for ch in plan.channels:
        ask(f"Put the {plan.known_grams:g} g weight on channel {ch} (and nothing else).")
        loaded = read(plan.samples)
        cals.append(
            ChannelCal(
                ch, offsets[ch], span(ch, _column(loaded, ch), offsets[ch], plan.known_grams)
            )
        )
    first = cals[0]
    denominations: list[Denomination] = []
    for value, grams in plan.chips:
        if grams is None:
            ask(f"Put {plan.chip_count} chips of {value} on channel {first.channel}.")
            stack = read(plan.samples)
            grams = round(chip_grams(first, _column(stack, first.channel), plan.chip_count), 3)
        denominations.append(Denomination(value, grams))
    cal = ScaleCalibration(
        tuple(cals),
        tuple(denominations),
        plan.noise_g,
        plan.chip_tolerance_g,
        plan.max_chips,
        plan.unique_up_to,
    )
    check(cal)
    return cal
