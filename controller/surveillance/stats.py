"""Small statistics for the analytics: ranks, Spearman's rank correlation, a least-squares
slope. Floats: these are statistics, never money."""

from __future__ import annotations

import math
from collections.abc import Sequence


def ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 0, ties sharing their mean rank."""
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i, n = 0, len(order)
    while i < n:
        j = i
        while j + 1 < n and values[order[j + 1]] == values[order[i]]:
            j += 1
        mean = (i + j) / 2
        for k in range(i, j + 1):
            out[order[k]] = mean
        i = j + 1
    return out


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's correlation; None when either side does not vary."""
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sxx = syy = 0.0
    for x, y in zip(xs, ys, strict=True):
        dx, dy = x - mx, y - my
        sxy += dx * dy
        sxx += dx * dx
        syy += dy * dy
    if sxx <= 1e-12 or syy <= 1e-12:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def spearman(xs: Sequence[float], ys: Sequence[float]) -> tuple[float | None, float | None]:
    """(Spearman's rho with ties, its z-score rho * sqrt(n - 1)).

    Under independence the rank correlation has mean 0 and variance exactly
    1 / (n - 1) over the permutations of the data, whatever the bets'
    distribution (ties included): z is a test statistic that a few very large
    bets cannot inflate, unlike Pearson's on the bets themselves."""
    rho = pearson(ranks(xs), ranks(ys))
    if rho is None:
        return None, None
    return rho, rho * math.sqrt(len(xs) - 1)


def slope(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Least-squares slope of ys on xs; None when xs do not vary."""
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx <= 1e-12:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """The q-quantile of already sorted values (nearest rank)."""
    if not sorted_values:
        raise ValueError("no values")
    index = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[index]
