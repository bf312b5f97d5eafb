"""The Hi-Lo count from the engine's shoe, and the statistics of bets against it."""

from __future__ import annotations

import math
import random

import pytest

from controller.engine.shoe import ShoeCount
from controller.surveillance.betcount import Observations, summarise
from controller.surveillance.count import count
from controller.surveillance.stats import ranks, spearman


def test_running_and_true_count_from_the_cards_out() -> None:
    shoe = ShoeCount(6, None)
    for card in ("2S", "5H", "6D", "KC", "7S", "AS", "3C", "4D"):  # +1 +1 +1 -1 0 -1 +1 +1
        shoe.take(card)
    burned = ["5H"]  # face down: no player saw it
    c = count(shoe, burned)
    assert (c.running, c.seen, c.cards_out) == (3, 2, 8)
    assert c.decks_left == pytest.approx((312 - 8) / 52)
    assert c.true_count == pytest.approx(2 / ((312 - 8) / 52))
    assert c.json()["true_count"] == round(2 / ((312 - 8) / 52), 3)


def test_an_empty_shoe_has_no_true_count() -> None:
    shoe = ShoeCount(1, None)
    for card in [r + s for r in "A23456789TJQK" for s in "SHDC"]:
        shoe.take(card)
    c = count(shoe, [])
    assert c.running == 0 and c.true_count is None  # a whole deck counts to zero


def test_ranks_share_ties() -> None:
    assert list(ranks([3.0, 1.0, 3.0, 2.0])) == [2.5, 0.0, 2.5, 1.0]


def test_a_bet_ramp_is_a_perfect_rank_correlation_and_flat_bets_have_none() -> None:
    counts = [-2.0, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 4.0]
    ramp = [1.0, 1.0, 2.0, 2.0, 4.0, 6.0, 8.0, 8.0]
    rho, z = spearman(counts, ramp)
    assert rho is not None and z is not None
    assert rho > 0.97 and z == pytest.approx(rho * math.sqrt(7))
    assert spearman(counts, [2.0] * 8) == (None, None)  # flat: nothing to correlate
    s = summarise(counts, ramp)
    assert (s.low, s.high, s.spread) == (pytest.approx(1.5), pytest.approx(22 / 3), 8.0)
    assert s.slope is not None and s.slope > 1


def test_bets_independent_of_the_count_stay_near_zero() -> None:
    rng = random.Random(4)
    zs = []
    for _ in range(400):
        counts = [rng.gauss(0, 1.5) for _ in range(60)]
        bets = [float(rng.choice((1, 1, 2, 2, 3, 4, 5, 10))) for _ in range(60)]
        _, z = spearman(counts, bets)
        assert z is not None
        zs.append(z)
    mean = sum(zs) / len(zs)
    var = sum((z - mean) ** 2 for z in zs) / len(zs)
    assert abs(mean) < 0.15 and 0.8 < var < 1.2  # z is a standard score under independence
    assert sum(z > 2 for z in zs) / len(zs) < 0.05  # about 2.3% for a standard normal


def test_a_session_keeps_its_newest_observations() -> None:
    obs = Observations()
    for i in range(10):
        obs.add(float(i), 1.0 + i)
    assert len(obs) == 10 and obs.summary().n == 10
