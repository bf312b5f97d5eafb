"""The player hands the house edge calculator values: every composition that can arise.

A composition is how many cards of each point value a hand holds (aces as
1); the arrays are over all compositions of two or more cards with a hard
total up to 21, in an order where a hand comes after every hand it grows from.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

ACE, TEN = 0, 9  # column of a point value v is v - 1


@dataclass(frozen=True)
class Hands:
    """Every player composition of two or more cards with a hard total up to 21."""

    counts: np.ndarray  # (B, 10) cards of each point value
    size: np.ndarray  # (B,)
    hard: np.ndarray  # (B,) aces as 1
    best: np.ndarray  # (B,) the total the hand plays as
    soft: np.ndarray  # (B,) bool: an ace counts 11
    child: np.ndarray  # (B, 10) index of the hand after one more card, -1 if it busts
    index: dict[tuple[int, ...], int]
    pair_index: dict[tuple[int, int], int]  # two-card hands by their two values (1..10)


@cache
def hands() -> Hands:
    found: list[tuple[int, ...]] = []

    def walk(rank: int, hard: int, counts: list[int]) -> None:
        if rank == 10:
            if sum(counts) >= 2:
                found.append(tuple(counts))
            return
        k = 0
        while hard + k * (rank + 1) <= 21:
            counts.append(k)
            walk(rank + 1, hard + k * (rank + 1), counts)
            counts.pop()
            k += 1

    walk(0, 0, [])
    found.sort(key=lambda c: (sum((i + 1) * n for i, n in enumerate(c)), sum(c)))
    index = {c: i for i, c in enumerate(found)}
    counts = np.array(found, dtype=np.int64)
    values = np.arange(1, 11)
    hard = counts @ values
    soft = (counts[:, ACE] > 0) & (hard <= 11)
    child = np.full((len(found), 10), -1, dtype=np.int64)
    for i, c in enumerate(found):
        for r in range(10):
            nxt = list(c)
            nxt[r] += 1
            child[i, r] = index.get(tuple(nxt), -1)
    pair_index = {}
    for a in range(1, 11):
        for b in range(1, 11):
            c2 = [0] * 10
            c2[a - 1] += 1
            c2[b - 1] += 1
            pair_index[(a, b)] = index[tuple(c2)]
    return Hands(
        counts=counts,
        size=counts.sum(axis=1),
        hard=hard,
        best=np.where(soft, hard + 10, hard),
        soft=soft,
        child=child,
        index=index,
        pair_index=pair_index,
    )
