"""Small statistics for the analytics: ranks, Spearman's rank correlation, a least-squares
slope. Floats (numpy): these are statistics, never money. They run for every spot at
every round over a whole session, hence vectorised."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]


def ranks(values: Sequence[float] | Floats) -> Floats:
    """Ranks from 0, ties sharing their mean rank."""
    a = np.asarray(values, dtype=np.float64)
    n = len(a)
    order = np.argsort(a, kind="mergesort")
    ordered = a[order]
    starts = np.empty(n, dtype=bool)
    starts[:1] = True
    starts[1:] = ordered[1:] != ordered[:-1]
    first = np.flatnonzero(starts)
    last = np.append(first[1:], n) - 1
    group = np.cumsum(starts) - 1
    out = np.empty(n, dtype=np.float64)
    out[order] = ((first + last) / 2)[group]
    return out


def pearson(xs: Sequence[float] | Floats, ys: Sequence[float] | Floats) -> float | None:
    """Pearson's correlation; None when either side does not vary."""
    x = np.asarray(xs, dtype=np.float64)
    y = np.asarray(ys, dtype=np.float64)
    if len(x) < 2:
        return None
    dx, dy = x - x.mean(), y - y.mean()
    sxx, syy = float(dx @ dx), float(dy @ dy)
    if sxx <= 1e-12 or syy <= 1e-12:
        return None
    return max(-1.0, min(1.0, float(dx @ dy) / math.sqrt(sxx * syy)))


def spearman(
    xs: Sequence[float] | Floats, ys: Sequence[float] | Floats
) -> tuple[float | None, float | None]:
    """(Spearman's rho with ties, its z-score rho * sqrt(n - 1)).

    Under independence the rank correlation has mean 0 and variance exactly
    1 / (n - 1) over the permutations of the data, whatever the bets'
    distribution (ties included): z is a test statistic that a few very large
    bets cannot inflate, unlike Pearson's on the bets themselves."""
    if len(xs) < 2 or min(ys) == max(ys):
        return None, None  # bets that never change (a flat bettor): nothing to rank
    rho = pearson(ranks(xs), ranks(ys))
    if rho is None:
        return None, None
    return rho, rho * math.sqrt(len(xs) - 1)


def slope(xs: Sequence[float] | Floats, ys: Sequence[float] | Floats) -> float | None:
    """Least-squares slope of ys on xs; None when xs do not vary."""
    x = np.asarray(xs, dtype=np.float64)
    y = np.asarray(ys, dtype=np.float64)
    if len(x) < 2:
        return None
    dx = x - x.mean()
    sxx = float(dx @ dx)
    if sxx <= 1e-12:
        return None
    return float(dx @ (y - y.mean())) / sxx


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """The q-quantile of already sorted values (nearest rank)."""
    if not sorted_values:
        raise ValueError("no values")
    index = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[index]
