"""The dealer's final totals for the house edge calculator, drawn without replacement.

For an up card and a batch of shoes (what remains once the up card and a
player's cards are out), the chance of each final total (17-21, bust) given
no dealer blackjack, and the chance of a blackjack: one pass over the
dealer's draws for the whole batch.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from .edge_hands import ACE, TEN

OUT = 6  # dealer outcomes: final 17, 18, 19, 20, 21, bust


@cache
def _dealer_graph(up: int, h17: bool) -> tuple[tuple[tuple[int, int, int, int, int], ...], int]:
    """The dealer's draws from up card `up` (point value) as a flat program.

    Each step is (state, its cards drawn so far, card, how many of that card the
    state holds, target): the target is a later state (>= 0) or a final outcome
    (-1 - outcome). States are the multisets of cards drawn, numbered in the order
    they are reached, so one pass over the program evaluates them all.
    """
    states: dict[tuple[int, ...], int] = {}
    order: list[tuple[int, ...]] = []
    steps: list[tuple[int, int, int, int, int]] = []

    def outcome(drawn: tuple[int, ...]) -> int | None:
        hard = up + sum((i + 1) * n for i, n in enumerate(drawn))
        ace = up == 1 or drawn[ACE] > 0
        if hard > 21:
            return 5
        total = hard + 10 if ace and hard <= 11 else hard
        if total > 17 or (total == 17 and not (h17 and ace and hard == 7)):
            return total - 17
        return None

    start = (0,) * 10
    states[start] = 0
    order.append(start)
    i = 0
    while i < len(order):
        drawn = order[i]
        n = sum(drawn)
        for card in range(10):
            nxt = list(drawn)
            nxt[card] += 1
            key = tuple(nxt)
            out = outcome(key)
            if out is None:
                if key not in states:
                    states[key] = len(order)
                    order.append(key)
                target = states[key]
            else:
                target = -1 - out
            steps.append((i, n, card, drawn[card], target))
        i += 1
    return tuple(steps), len(order)


def dealer(shoe: np.ndarray, up: int, h17: bool) -> tuple[np.ndarray, np.ndarray]:
    """(final totals given no dealer blackjack (B, 6), P(blackjack) (B,)) for each shoe.

    `shoe` (B, 10) is what the shoe holds once the up card and the player's cards
    are out; the dealer draws from it without replacement.
    """
    program, count = _dealer_graph(up, h17)
    b = shoe.shape[0]
    total = shoe.sum(axis=1)
    bj_card = TEN if up == 1 else ACE if up == 10 else -1
    first_total = total - shoe[:, bj_card] if bj_card >= 0 else total
    p_bj = shoe[:, bj_card] / total if bj_card >= 0 else np.zeros(b)
    inv = {0: 1.0 / np.maximum(first_total, 1)}
    prob = np.zeros((count, b))
    prob[0] = 1.0
    out = np.zeros((OUT, b))
    weights: dict[tuple[int, int, int], np.ndarray] = {}
    tmp = np.empty(b)
    for s, n, card, k, target in program:
        if n == 0 and card == bj_card:
            continue  # the hole card that would make a blackjack: conditioned away
        key = (n, card, k)
        w = weights.get(key)
        if w is None:
            if n not in inv:
                inv[n] = 1.0 / np.maximum(total - n, 1)
            w = np.maximum(shoe[:, card] - k, 0) * inv[n]
            weights[key] = w
        np.multiply(prob[s], w, out=tmp)
        if target >= 0:
            prob[target] += tmp
        else:
            out[-1 - target] += tmp
    return out.T, p_bj
