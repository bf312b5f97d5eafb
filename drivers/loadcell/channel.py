"""One load-cell channel: from raw counts over time to a settled stake, or a fault.

Pure (the time is passed in), so every rule is tested without a clock:

- a bet counts once the weight has stayed within `band_g` for `settle_s`
  (chips being stacked, a hand resting on the spot, vibration: none of it is
  a bet until it stops moving); the stake is then decoded by the calibration;
- an `E` channel (the board could not read its HX711) is a fault;
- a reading off the ADC's rails, or beyond the spot's range, is a fault and
  is not used;
- the very same raw count `stuck_frames` times in a row is a stuck sensor: a
  live 24-bit HX711 always shows a few counts of noise;
- a reading that keeps jumping (`flap_changes` moves within `flap_window_s`)
  is a flapping sensor: reported, and nothing it says is believed until it
  calms down;
- a settled weight that no stack of chips fits, or that stacks of different
  worth fit, is reported as a fault and claims no stake.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from decimal import Decimal

from drivers.loadcell.scale import RAW_MAX, RAW_MIN, ChannelCal, ScaleCalibration


@dataclass(frozen=True)
class SettleSettings:
    settle_s: float = 0.5
    band_g: float = 2.0
    stuck_frames: int = 100
    min_g: float = -20.0
    max_g: float = 3000.0
    flap_changes: int = 12
    flap_window_s: float = 5.0


@dataclass
class Update:
    stake: Decimal | None = None  # a new settled stake to report
    faults: list[tuple[str, str]] = field(default_factory=list)  # (key, detail)
    clears: list[str] = field(default_factory=list)


class ChannelState:
    def __init__(self, cal: ChannelCal, scale: ScaleCalibration, s: SettleSettings) -> None:
        self.cal = cal
        self.scale = scale
        self.s = s
        self.reported: Decimal | None = None  # the stake last reported
        self.grams: float | None = None  # the last settled weight
        self._last_raw: int | None = None
        self._same = 0
        self._moves: deque[float] = deque()
        self.restart()

    def restart(self) -> None:
        """Forget the current band (after a reconnect or a fault); keep what was reported."""
        self._ref: float | None = None
        self._since = 0.0
        self._sum = 0.0
        self._n = 0
        self._decided = False  # the current band has been judged once

    def update(self, t: float, raw: int | None) -> Update:
        u = Update()
        if raw is None:
            u.faults.append(("error", "the board cannot read this load cell (HX711 silent)"))
            self.restart()
            return u
        u.clears.append("error")
        if not self._alive(raw, u):
            return u
        grams = self.cal.grams(raw)
        if raw in (RAW_MIN, RAW_MAX) or not self.s.min_g <= grams <= self.s.max_g:
            # One wording for the whole episode: the alert is raised once, not per frame.
            u.faults.append(
                (
                    "range",
                    f"reading out of range ({self.s.min_g:g} to {self.s.max_g:g} g): "
                    "wiring, overload, or a tare taken with chips on the spot?",
                )
            )
            self.restart()
            return u
        u.clears.append("range")
        self._follow(t, grams)
        if self._flapping(t, u) or self._decided or t - self._since < self.s.settle_s:
            return u
        self._decided = True
        self._settled(self._sum / self._n, u)
        return u

    def _alive(self, raw: int, u: Update) -> bool:
        self._same = self._same + 1 if raw == self._last_raw else 1
        self._last_raw = raw
        if self._same >= self.s.stuck_frames:
            u.faults.append(
                (
                    "stuck",
                    f"the same raw reading {raw} {self.s.stuck_frames} or more times "
                    "in a row: the sensor is stuck",
                )
            )
            self.restart()
            return False
        u.clears.append("stuck")
        return True

    def _follow(self, t: float, grams: float) -> None:
        if self._ref is None or abs(grams - self._ref) > self.s.band_g:
            if self._ref is not None:
                self._moves.append(t)
            self._ref, self._since, self._sum, self._n = grams, t, 0.0, 0
            self._decided = False
        self._sum += grams
        self._n += 1

    def _flapping(self, t: float, u: Update) -> bool:
        while self._moves and self._moves[0] < t - self.s.flap_window_s:
            self._moves.popleft()
        if len(self._moves) >= self.s.flap_changes:
            u.faults.append(
                (
                    "flap",
                    f"the reading jumps {self.s.flap_changes} or more times in "
                    f"{self.s.flap_window_s:g} s and will not settle: a flapping sensor",
                )
            )
            return True
        return False

    def _settled(self, grams: float, u: Update) -> None:
        u.clears.append("flap")
        self.grams = grams
        stakes = self.scale.stakes(grams)
        if len(stakes) != 1:
            if stakes:
                seen = " or ".join(str(v) for v in sorted(stakes))
                why = f"{grams:.1f} g could be a stake of {seen}: count the chips"
            else:
                why = f"{grams:.1f} g is not a stack of the table's chips (a foreign object?)"
            u.faults.append(("ambiguous", why))
            return
        u.clears.append("ambiguous")
        (stake,) = stakes
        if stake != self.reported:
            self.reported = stake
            u.stake = stake
