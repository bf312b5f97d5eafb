"""The simulator plays every shipped profile and odd variants to the end, through the engine."""

import dataclasses
import random
from collections import Counter
from decimal import Decimal

import pytest

from controller import rules
from controller.engine.cards import CARD_CODES
from sim.shoe import ShoeEmpty, VirtualShoe
from sim.simulate import play, simulate
from sim.strategy import Strategy

VARIANTS = {
    "resplit aces": dict(resplit_aces=True, max_ace_hands=4),
    "h17": dict(dealer_hits_soft_17=True),
    "no das": dict(double_after_split=False),
    "forced draw on the best total": dict(forced_draw_total="best"),
    "surrender everywhere": dict(surrender=True),
    "original bets only": dict(enhc_loses="original"),
    "9-11 doubles": dict(double_totals=(9, 10, 11)),
}


@pytest.mark.parametrize("name", rules.SHIPPED)
def test_every_profile_plays_to_the_end(name):
    tally = play(rules.shipped(name), 3000, "t")
    assert tally.hands >= 3000
    assert -5 < tally.house_edge_pct < 5  # basic strategy is close to an even game


@pytest.mark.parametrize("variant", VARIANTS)
def test_variants_play_to_the_end(variant):
    profile = dataclasses.replace(rules.shipped("be-casino"), **VARIANTS[variant])
    tally = play(profile, 3000, "t")
    assert tally.hands >= 3000


def test_same_seed_same_result_and_chunks_do_not_depend_on_jobs():
    p = rules.shipped("ref-enhc")
    a = simulate(p, 30_000, 5, jobs=1)
    b = simulate(p, 30_000, 5, jobs=2)
    assert (a.hands, a.net, a.net_sq) == (b.hands, b.net, b.net_sq)
    c = simulate(p, 30_000, 6, jobs=1)
    assert c.net != a.net


def test_strategy_tables_follow_the_profile():
    peek = Strategy(rules.shipped("ref-peek"))
    enhc = Strategy(rules.shipped("ref-enhc"))
    ten, ace = 8, 9
    assert peek.hard[11][ten] == "D" and enhc.hard[11][ten] == "H"  # no double vs a ten (ENHC)
    assert peek.pairs[8][ace] == "P" and enhc.pairs[8][ace] == "H"
    be = Strategy(rules.shipped("be-casino"))
    # Surrender 16 against a ten where allowed (then stand: a 16 of three cards or more
    # is better stood without a hole card).
    assert be.hard[16][ten] == "r"
    assert be.hard[16][ace] == "H"  # but never against an ace in be-casino
    assert Strategy(rules.shipped("fr-2007")).hard[16][ten] == "H"  # no surrender at all


def test_a_continuous_shuffler_draws_the_whole_shoe_at_random_after_each_gather():
    shoe = VirtualShoe(6, Decimal("0.75"), random.Random(3))
    firsts = []
    for _ in range(2):
        shoe.gather()
        drawn = [shoe.draw_any() for _ in range(6 * 52)]
        assert Counter(drawn) == {code: 6 for code in CARD_CODES}
        with pytest.raises(ShoeEmpty):
            shoe.draw_any()
        firsts.append(drawn[:20])
    assert firsts[0] != firsts[1]


@pytest.mark.parametrize("name", rules.SHIPPED)
def test_every_profile_plays_each_round_off_a_full_shoe(name):
    # A round needs a new shoe each time: the engine's own count of the shoe
    # refuses a card it has seen too often, so a shoe not gathered would fail.
    tally = play(rules.shipped(name), 3000, "t", shuffle="round")
    assert tally.hands >= 3000


def test_an_unknown_shuffle_is_refused():
    with pytest.raises(ValueError, match="shuffle: expected one of cut, round, not 'never'"):
        play(rules.shipped("ref-peek"), 10, "t", shuffle="never")
