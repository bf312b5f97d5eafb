"""The simulator's rule-bound players (sim/counters.py) and their configuration."""

from __future__ import annotations

from decimal import Decimal

import pytest

from controller import rules
from controller.config import ConfigError, from_mapping
from controller.engine import Table
from sim.counters import estimated_true_count, stake, units


def test_the_ramps() -> None:
    assert [units("counter-8", tc) for tc in (-3, -1, 0, 1, 2, 3, 9)] == [1, 2, 2, 4, 6, 8, 8]
    assert [units("counter-12", tc) for tc in (-1.5, 0.5, 1.5, 2.5, 3.5)] == [1, 2, 4, 8, 12]
    assert [units("classic-8", tc) for tc in (-2, 0.9, 1, 2, 3, 4)] == [1, 1, 2, 4, 6, 8]
    assert {units("flat", tc) for tc in (-5, 0, 5)} == {2}


def test_a_counter_reads_the_decks_left_to_the_half_deck() -> None:
    t = Table(rules.load("ref-enhc"), 1)
    t.new_shoe()
    for card in ("2S", "3S", "4S", "5S", "6S", "2H", "3H", "4H", "5H", "6H", "7S", "8S"):
        t.shoe.take(card)  # +10, 12 cards out: 300 left, 5.77 decks: seen as 6
    assert estimated_true_count(t) == pytest.approx(10 / 6)
    assert stake("counter-8", t, True) == Decimal(20)  # +1.67: 4 minimums of 5
    assert stake("counter-8", t, False) == Decimal(10)  # a shoe it did not see start: base


def test_players_are_checked_in_the_config() -> None:
    c = from_mapping({"sim": {"players": {"2": "counter-12"}, "payout_error_rate": 0.1}}, "t")
    assert c.sim.players == {"2": "counter-12"} and c.sim.payout_error_rate == 0.1
    with pytest.raises(ConfigError, match="not a box number"):
        from_mapping({"sim": {"players": {"0": "flat"}}}, "t.toml")
    with pytest.raises(ConfigError, match="counter-8"):
        from_mapping({"sim": {"players": {"1": "wonger"}}}, "t.toml")
    with pytest.raises(ConfigError, match="count_z"):
        from_mapping({"surveillance": {"count_z": 1.0}}, "t.toml")
