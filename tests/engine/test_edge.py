"""The house edge by probability: against a direct count, published figures, the
simulator, and the engine's own rules decision by decision."""

from __future__ import annotations

import copy
import dataclasses
import random
from decimal import Decimal
from functools import cache
from typing import Any

import numpy as np
import pytest

from controller import rules
from controller.cli.edge import PUBLISHED
from controller.engine.cards import VALUE
from controller.engine.edge import _Solver, _UpCard, edge, rule_costs
from controller.engine.edge_dealer import dealer
from controller.engine.edge_rules import (
    Played,
    may_double,
    may_stand,
    may_surrender,
    split_limit,
)
from controller.engine.phase import Phase
from controller.engine.profile import RuleProfile
from controller.engine.round import Round
from controller.engine.table import Table
from sim.shoe import VirtualShoe
from sim.simulate import play
from sim.strategy import UP_COLUMN, Strategy


def _direct_dealer(shoe: tuple[int, ...], up: int, h17: bool) -> list[float]:
    """The dealer's final 17-21/bust given no blackjack, counted card by card."""

    @cache
    def go(left: tuple[int, ...], hard: int, ace: bool, n: int) -> tuple[float, ...]:
        total = hard + 10 if ace and hard <= 11 else hard
        if hard > 21:
            return (0.0,) * 5 + (1.0,)
        if total > 17 or (total == 17 and not (h17 and ace and hard == 7)):
            return tuple(1.0 if k == total - 17 else 0.0 for k in range(6))
        size = sum(left)
        out = [0.0] * 6
        for card in range(10):
            if not left[card]:
                continue
            if n == 0 and {up, card + 1} == {1, 10}:
                continue  # conditioned on no blackjack below
            nxt = list(left)
            nxt[card] -= 1
            sub = go(tuple(nxt), hard + card + 1, ace or card == 0, n + 1)
            for k in range(6):
                out[k] += left[card] / size * sub[k]
        return tuple(out)

    raw = go(shoe, up, up == 1, 0)
    no_bj = sum(raw)
    return [x / no_bj for x in raw]


@pytest.mark.parametrize("h17", [False, True])
@pytest.mark.parametrize("up", [1, 6, 10])
def test_the_dealer_draws_as_a_direct_count_of_a_one_deck_shoe(up: int, h17: bool) -> None:
    deck = [4] * 9 + [16]
    deck[up - 1] -= 1
    shoes = [list(deck), list(deck)]
    shoes[1][9] -= 2  # a player's ten-ten out as well
    shoes[1][4] -= 1  # and a five
    got, p_bj = dealer(np.array(shoes, dtype=float), up, h17)
    for shoe, row, pbj in zip(shoes, got, p_bj, strict=True):
        assert row == pytest.approx(_direct_dealer(tuple(shoe), up, h17), abs=1e-12)
        bj_card = {1: 9, 10: 0}.get(up)
        assert pbj == pytest.approx(shoe[bj_card] / sum(shoe) if bj_card is not None else 0.0)


@pytest.mark.parametrize(("label", "base", "changes", "figure", "source", "cut_card"), PUBLISHED)
def test_published_house_edges_within_two_hundredths(
    label: str, base: str, changes: dict[str, Any], figure: float, source: str, cut_card: float
) -> None:
    # A figure for a shoe dealt to a cut card carries what the cut card adds to it.
    ours = edge(dataclasses.replace(rules.shipped(base), **changes)).edge_pct + cut_card
    assert abs(ours - figure) <= 0.02, f"{label}: {ours:.4f} against {figure} ({source})"


def test_six_to_five_costs_exactly_the_blackjacks_it_pays_less() -> None:
    # Blackjack pay changes no decision, so 6:5 costs 0.3 units on every player
    # blackjack the dealer does not tie: counted directly from a 6-deck shoe.
    p = rules.shipped("ref-peek")
    shoe = [24] * 9 + [96]
    won = 0.0
    for up in range(10):
        left = list(shoe)
        left[up] -= 1
        n = sum(left)
        p_up = shoe[up] / sum(shoe)
        p_bj = 2 * left[0] * left[9] / (n * (n - 1))
        left[0] -= 1
        left[9] -= 1
        tie = {0: left[9], 9: left[0]}.get(up, 0) / (n - 2)
        won += p_up * p_bj * (1 - tie)
    cost = edge(dataclasses.replace(p, blackjack_pays=Decimal("1.2"))).edge_pct - edge(p).edge_pct
    assert cost == pytest.approx(100 * 0.3 * won, abs=1e-9)


def test_rule_costs_have_the_published_sign_and_size() -> None:
    peek = rules.shipped("ref-peek")
    enhc = rules.shipped("ref-enhc")
    h17 = dict(rule_costs(dataclasses.replace(peek, dealer_hits_soft_17=True), peek))
    # Dealer hits soft 17: about 0.2 points for the house (thecolorofblackjack.com: 0.20).
    assert 0.18 <= h17["dealer hits soft 17"] <= 0.24
    no_das = dict(rule_costs(dataclasses.replace(peek, double_after_split=False), peek))
    # Wizard of Odds appendix 9, 5 decks S17: no DAS costs 0.142 points.
    assert no_das["double after split"] == pytest.approx(0.142, abs=0.02)
    # The Belgian forced draw on a hard 12 takes soft hands' stands away: over a point.
    # Read on the best total it costs nothing: no strategy stands below 12 anyway.
    be = rules.shipped("be-casino")
    assert dict(rule_costs(be, enhc))["forced draw"] > 1.0
    best = dict(rule_costs(dataclasses.replace(be, forced_draw_total="best"), enhc))
    assert best["forced draw"] == pytest.approx(0.0, abs=1e-12)


def test_simulate_plays_the_tables_edge_prints() -> None:
    for name in rules.SHIPPED:
        p = rules.shipped(name)
        tables, played = edge(p).strategy, Strategy(p)
        assert (played.hard, played.soft, played.pairs) == (tables.hard, tables.soft, tables.pairs)


@pytest.mark.parametrize("name", ["be-casino", "fr-classic"])
def test_a_short_simulation_agrees_within_three_standard_errors(name: str) -> None:
    # 300,000 hands: a standard error near 0.2 points; the long runs (docs/benchmarks.md)
    # hold it to within 0.02. Each round off the top of a full shoe, as the edge is priced.
    p = rules.shipped(name)
    tally = play(p, 300_000, "edge", shuffle="round")
    assert abs(tally.house_edge_pct - edge(p).edge_pct) < 3 * tally.stderr_pct


VARIANTS: dict[str, dict[str, Any]] = {
    "h17": {"dealer_hits_soft_17": True},
    "no das": {"double_after_split": False},
    "resplit aces": {"resplit_aces": True, "max_ace_hands": 4},
    "forced draw on the best total": {"forced_draw_total": "best"},
    "original only": {"enhc_loses": "original"},
    "9-11 doubles, surrender": {"double_totals": (9, 10, 11), "surrender": True},
}


def _cases() -> list[tuple[str, dict[str, Any]]]:
    return [(name, {}) for name in rules.SHIPPED] + [("be-casino", v) for v in VARIANTS.values()]


def _expected(r: Played, strategy: Strategy, rnd: Round) -> str:
    """The action the calculator valued for the hand in turn, from its own reading of the
    rules (may_stand, may_double, ...), independent of the engine's."""
    box = rnd.boxes[rnd.turn]
    hand = box.hands[rnd.hand_i]
    cards = hand.cards
    if len(cards) < 2 or hand.doubled:
        return "card"
    up = VALUE[rnd.dealer[0]]
    hard, best = hand.hard, hand.total
    two = len(cards) == 2
    pair = two and VALUE[cards[0]] == VALUE[cards[1]]
    column = UP_COLUMN[up]
    code = strategy.pairs[VALUE[cards[0]]][column] if pair else ""
    if not code:
        code = strategy.soft[best][column] if hand.soft else strategy.hard[min(hard, 21)][column]
    can_stand = may_stand(r, hard, best)
    can_double = two and (not hand.from_split or r.das) and may_double(r, hard, best)
    can_surrender = two and len(box.hands) == 1 and may_surrender(r, hard, hand.aces, up)
    v = VALUE[cards[0]]
    can_split = pair and (v != 10 or r.split_tens) and len(box.hands) < split_limit(r, v)
    if code == "Q":
        if can_surrender:
            return "surrender"
        code = "P"
    if code == "P":
        if can_split:
            return "split"
        code = strategy.soft[best][column] if hand.soft else strategy.hard[hard][column]
    if code in "Dd" and can_double:
        return "double"
    if code in "Rr" and can_surrender:
        return "surrender"
    return "stand" if code in "Sdr" and can_stand else "card"


@pytest.mark.parametrize(("name", "changes"), _cases())
def test_the_engine_takes_every_decision_the_calculator_valued(
    name: str, changes: dict[str, Any]
) -> None:
    """The strategy's action, read from the tables with the calculator's own rules, is what
    sim/strategy.py plays and what the engine accepts; and where the calculator thinks an
    option open or closed, so does the engine."""
    p = dataclasses.replace(rules.shipped(name), **changes)
    r = Played.of(p)
    strategy = Strategy(p)
    table = Table(p, max(2, p.min_boxes))
    shoe = VirtualShoe(p.decks, p.penetration, random.Random(38))
    decisions = 0
    for i in range(1500):
        if i == 0 or table.shoe.cut_reached:
            shoe.shuffle()
            draw = iter(shoe.cards).__next__
            table.new_shoe()
            for _ in range(p.burn):
                table.burn(draw())
        for b in range(1, max(2, p.min_boxes) + 1):
            table.bet(b, f"box{b}", max(p.table_min, p.bet_multiple))
        table.close_bets()
        rnd = table.round
        assert rnd is not None
        while not rnd.over:
            if rnd.phase in (Phase.DEAL, Phase.DEALER):
                table.card(draw())
            elif rnd.phase is Phase.INSURANCE:
                table.close_insurance()
            elif rnd.offer_box >= 0:
                table.action(rnd.boxes[rnd.offer_box].number, "refuse_card")
            else:
                box = rnd.boxes[rnd.turn]
                hand = box.hands[rnd.hand_i]
                up = VALUE[rnd.dealer[0]]
                if len(hand.cards) == 2 and not hand.split_aces and not hand.doubled:
                    assert rnd.can("double") == (
                        (not hand.from_split or r.das) and may_double(r, hand.hard, hand.total)
                    )
                    assert rnd.can("surrender") == (
                        len(box.hands) == 1 and may_surrender(r, hand.hard, hand.aces, up)
                    )
                if len(hand.cards) >= 2 and not hand.doubled:
                    assert rnd.can("stand") == may_stand(r, hand.hard, hand.total)
                want = _expected(r, strategy, rnd)
                assert strategy.decide(rnd) == want, (hand.cards, rnd.dealer[0])
                decisions += 1
                if want == "card":
                    table.card(draw())
                else:
                    table.action(box.number, want)
        if table.bets:
            table.bets.clear()
    assert decisions > 1500


# ------------------------------------------------- one dealt hand, every card enumerated
def _engine_value(p: RuleProfile, a: int, b: int, up: int) -> float:
    """The exact value of one dealt hand as the engine settles it: the round is played
    through a Table for every card the shoe could give next, weighted by its chance."""
    strategy = Strategy(p)
    counts = [4 * p.decks] * 9 + [16 * p.decks]

    def code(value: int, used: dict[str, int]) -> str:
        for face in "TJQK" if value == 10 else "A23456789"[value - 1]:
            for suit in "SHDC":
                if used.get(face + suit, 0) < p.decks:
                    used[face + suit] = used.get(face + suit, 0) + 1
                    return face + suit
        raise AssertionError("no such card left")

    def go(table: Table, counts: list[int], used: dict[str, int]) -> float:
        rnd = table.round
        assert rnd is not None
        while not rnd.over:
            if rnd.phase is Phase.INSURANCE:
                table.close_insurance()
                continue
            if rnd.phase is Phase.PLAYERS:
                act = strategy.decide(rnd)
                if act != "card":
                    table.action(rnd.boxes[rnd.turn].number, act)
                    continue
            break
        if rnd.over:
            assert rnd.outcome is not None
            return -float(rnd.outcome.house_net) / 10
        left = sum(counts)
        value = 0.0
        for v in range(1, 11):
            if counts[v - 1]:
                nxt, now = copy.deepcopy(table), dict(used)
                nxt.card(code(v, now))
                rest = list(counts)
                rest[v - 1] -= 1
                value += counts[v - 1] / left * go(nxt, rest, now)
        return value

    table = Table(p, 1)
    table.new_shoe()
    table.bet(1, "box1", Decimal(10))
    table.close_bets()
    used: dict[str, int] = {}
    for v in (a, up, b):  # the deal's order: the box, the up card, the box (a hole card next)
        counts[v - 1] -= 1
        table.card(code(v, used))
    return go(table, counts, used)


def _calculated(p: RuleProfile, a: int, b: int, up: int) -> float:
    solver = _Solver(Played.of(p))
    shoe = solver.full - solver.h.counts
    shoe[:, up - 1] -= 1
    against = _UpCard(solver, up, np.maximum(shoe, 0.0))
    against.run()
    return against.dealt[(min(a, b), max(a, b))]


@pytest.mark.parametrize(
    ("name", "a", "b", "up"),
    [
        ("ref-enhc", 10, 6, 10),  # 16 against a ten: the dealer's blackjack inside each value
        ("ref-enhc", 10, 7, 6),
        ("ref-enhc", 1, 10, 10),  # a blackjack waits for the dealer's second card
        ("fr-classic", 1, 10, 10),  # 000: paid at once against a ten
        ("be-casino", 1, 9, 10),  # the forced draw: a soft 20 may not stand
        ("be-casino", 10, 6, 10),  # surrender before the dealer's second card
        ("pt", 1, 10, 1),  # 002: the closed card turns over after the peek
        ("pt", 10, 6, 10),  # late surrender
        ("ref-peek", 10, 6, 10),  # 16 against a ten: the player draws past a hole card
        ("pt", 1, 1, 10),  # split aces under a peek: each hand misses the other ace too
        ("ref-enhc", 1, 1, 10),  # split aces, the dealer's blackjack inside each value
    ],
)
def test_a_dealt_hand_is_worth_what_the_engine_settles_card_by_card(
    name: str, a: int, b: int, up: int
) -> None:
    # The calculator's only approximation is in resplitting (a pair dealt again to a
    # split hand); a hand that is not split, or aces that may not be split again,
    # are valued exactly: equal to rounding.
    p = dataclasses.replace(rules.shipped(name), min_boxes=1, burn=0)
    assert _calculated(p, a, b, up) == pytest.approx(_engine_value(p, a, b, up), abs=1e-9)


def test_original_stake_only_a_double_against_a_ten_as_the_engine_settles() -> None:
    # No hole card, only the original stake lost to a dealer blackjack: 11 against a
    # ten doubles, and a doubled hand that does not bust loses one unit, not two.
    p = dataclasses.replace(rules.shipped("ref-enhc"), enhc_loses="original")
    assert Strategy(p).hard[11][8] == "D"
    assert _calculated(p, 5, 6, 10) == pytest.approx(_engine_value(p, 5, 6, 10), abs=1e-9)
