"""How a player's bets follow the true count: the advantage-play detector.

Each round, when bets close, every spot's stake is one observation
(true count at the time the bets were made, stake in table-minimum units).
Over a shoe and over a session the observations give:

- `rho`, `z`: Spearman's rank correlation of stake against true count and
  its z-score (rho * sqrt(n - 1)). A player whose bets ignore the count
  (flat, or any bets independent of the cards) has z around 0 with
  variance 1 whatever the bets look like; a counter raising bets with the
  count drives it up by about sqrt(n) times the correlation.
- `slope`: units of stake per point of true count (least squares).
- `low` / `high`: mean stake (units) at true counts below +1 and at +2 or
  more: the bet ramp as a pit boss would describe it.

The alert (`advantage_play`) is raised once per session when the session's
z reaches the threshold after at least `min_rounds` observations. The z
is checked after every round, so the threshold must stay well above what
chance reaches when it is looked at hundreds of times (see
docs/benchmarks.md, "Surveillance", for the measured rates).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .stats import slope, spearman

LOW, HIGH = 1.0, 2.0  # true counts of the ramp figures: below +1, at +2 or more
MAX_OBSERVATIONS = 2000  # a session keeps at most this many (the oldest go first)


@dataclass(frozen=True, slots=True)
class Summary:
    n: int
    rho: float | None
    z: float | None
    slope: float | None
    low: float | None
    high: float | None
    spread: float | None  # largest stake / smallest stake

    def json(self) -> dict[str, object]:
        def r(v: float | None, d: int = 3) -> float | None:
            return None if v is None else round(v, d)

        return {
            "rounds": self.n,
            "rho": r(self.rho),
            "z": r(self.z, 2),
            "slope": r(self.slope),
            "low": r(self.low, 2),
            "high": r(self.high, 2),
            "spread": r(self.spread, 2),
        }


def summarise(counts: Sequence[float], units: Sequence[float]) -> Summary:
    n = len(counts)
    rho, z = spearman(counts, units) if n >= 3 else (None, None)
    c = np.asarray(counts, dtype=np.float64)
    u = np.asarray(units, dtype=np.float64)
    low, high = u[c < LOW], u[c >= HIGH]
    return Summary(
        n,
        rho,
        z,
        slope(c, u),
        float(low.mean()) if len(low) else None,
        float(high.mean()) if len(high) else None,
        float(u.max() / u.min()) if n and u.min() > 0 else None,
    )


@dataclass
class Observations:
    counts: list[float] = field(default_factory=list)
    units: list[float] = field(default_factory=list)

    def add(self, true_count: float, units: float) -> None:
        self.counts.append(true_count)
        self.units.append(units)
        if len(self.counts) > MAX_OBSERVATIONS:
            del self.counts[0], self.units[0]

    def summary(self) -> Summary:
        return summarise(self.counts, self.units)

    def __len__(self) -> int:
        return len(self.counts)
