"""The surveillance desk on a real engine table, scripted round by round."""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path

import pytest

from controller.engine.phase import Phase
from sim.counters import units
from sim.shoe import VirtualShoe
from sim.strategy import Strategy
from tests.service.contract import validate
from tests.surveillance.helpers import Desk, profile_file


# ------------------------------------------------------------ shoe integrity
def test_the_seventh_ace_of_spades_is_a_foreign_card(tmp_path: Path) -> None:
    d = Desk(profile_file(tmp_path, decks=1), boxes=1)
    d.do(type="shoe")
    d.bets(box1="10")
    d.do(type="close_bets")
    d.cards("AS", "7C", "5H")  # box 1: A-5; the dealer shows a 7
    d.cards("AS")  # a second ace of spades out of a one-deck shoe
    [alert] = d.alerts("foreign_card")
    assert (alert["card"], alert["shoe_holds"], alert["out"], alert["shoe"]) == ("AS", 1, 1, 1)
    assert "cannot hold it" in alert["message"] and alert["round"] == 1
    d.cards("2D")  # the table plays on without it: A-5-2
    d.do(type="action", box=1, action="stand")
    d.cards("TC")  # the dealer: 7-T
    r = d.table.round
    assert r is not None and r.over and r.boxes[0].hands[0].cards == ["AS", "5H", "2D"]


def test_the_report_at_a_new_shoe_lists_what_never_came_out(tmp_path: Path) -> None:
    d = Desk(profile_file(tmp_path, decks=1, penetration="0.25"), boxes=1)
    d.do(type="shoe")
    [first] = d.take("surveillance/shoe")
    assert first["shoe"] == 0 and first["known"] is False and first["not_out"] is None
    d.bets(box1="10")
    d.do(type="close_bets")
    d.cards("TS", "7C", "9H")  # 19 against a 7
    d.do(type="action", box=1, action="stand")
    d.cards("TD")  # the dealer stands on 17
    d.do(type="shoe")  # replaced after 4 of 52 cards: the cut card (13) never came out
    [report] = d.take("surveillance/shoe")
    assert report["known"] and report["cards_out"] == 4 and report["not_out_count"] == 48
    assert "TS" not in report["not_out"] and report["not_out"]["TH"] == 1
    assert sum(report["not_out"].values()) == 48
    [early] = d.alerts("shoe_ended_early")
    assert early["cards_out"] == 4 and early["cut_at"] == 13


def test_a_round_after_the_cut_card_is_dealt_past_the_cut(tmp_path: Path) -> None:
    d = Desk(profile_file(tmp_path, decks=1, penetration="0.25"), boxes=1)
    d.do(type="shoe")
    hands = [("TS", "7C", "9H", "TD"), ("TH", "8C", "9S", "QD"), ("KS", "7D", "9C", "JD")]
    for n, (a, up, b, hole) in enumerate(hands, start=1):
        d.bets(box1="10")
        d.do(type="close_bets")
        d.cards(a, up, b)
        d.do(type="action", box=1, action="stand")
        d.cards(hole)
        if n < 3:
            assert d.alerts("past_cut_card") == []
        assert d.table.round is not None and d.table.round.over
    # 12 cards out: the cut (13) is not reached yet; the next card reaches it.
    d.bets(box1="10")
    d.do(type="close_bets")
    assert d.alerts("past_cut_card") == []
    d.cards("2S", "8D", "TC")
    d.do(type="action", box=1, action="stand")
    d.cards("JC")
    assert d.table.shoe.cut_reached
    d.bets(box1="10")
    d.do(type="close_bets")  # another round on the same shoe after the cut card
    [past] = d.alerts("past_cut_card")
    assert past["round"] == 5 and past["rounds_past_cut"] == 1 and past["cut_at"] == 13


# -------------------------------------------------------------- advantage play
def play(d: Desk, rounds: int, stake_of: dict[int, str], seed: int) -> None:
    """Play basic strategy on every box from seeded shoes; stake_of: box -> 'counter-8'
    or 'flat' (stakes by sim.counters)."""
    t = d.table
    rng = random.Random(seed)
    shoe = VirtualShoe(t.p.decks, t.p.penetration, rng)
    strategy = Strategy(t.p)
    draw = iter(()).__next__
    for _ in range(rounds):
        if t.rounds == 0 or t.shoe.cut_reached:
            shoe.shuffle()
            draw = iter(shoe.cards).__next__
            d.do(type="shoe")
        from sim.counters import estimated_true_count

        tc = estimated_true_count(t)
        for box, kind in stake_of.items():
            amount = t.table_min * units(kind, tc)
            d.do(type="bet", box=box, amount=str(amount))
        d.do(type="close_bets")
        r = t.round
        assert r is not None
        while not r.over:
            if r.phase is Phase.INSURANCE:
                d.do(type="close_insurance")
            elif r.phase is Phase.PLAYERS:
                action = strategy.decide(r)
                if action == "card":
                    d.do(type="card", card=draw())
                else:
                    d.do(type="action", box=r.boxes[r.turn].number, action=action)
            else:
                d.do(type="card", card=draw())


def test_a_counter_is_flagged_and_a_flat_bettor_is_not() -> None:
    d = Desk("ref-enhc", boxes=2, count_z=3.5, count_min_rounds=10)
    # A shoe whose true count reaches +2 before the flag, so that the alert shows
    # the counter's mean stake there beside the one below +1.
    play(d, 60, {1: "counter-8", 2: "flat"}, seed=4)
    flagged = d.alerts("advantage_play")
    assert [(a["box"], a["player"]) for a in flagged] == [(1, "box1")]
    assert flagged[0]["z"] >= 3.5 and flagged[0]["rounds"] >= 10
    assert flagged[0]["high"] > flagged[0]["low"]
    [players] = [o.payload for o in d.desk.snapshots() if o.topic == "surveillance/players"]
    validate("surveillance/players", players)
    spots = {s["box"]: s for s in players["spots"]}
    assert spots[1]["advantage_play_round"] == flagged[0]["round"]
    assert spots[2]["bets"]["z"] is None and spots[2]["advantage_play_round"] is None


def test_no_judgement_before_enough_rounds() -> None:
    d = Desk("ref-enhc", boxes=1, count_z=2.0, count_min_rounds=50)
    play(d, 40, {1: "counter-12"}, seed=3)
    assert d.alerts("advantage_play") == []


def test_the_count_snapshot_follows_the_shoe() -> None:
    d = Desk("ref-enhc", boxes=1)
    [count] = [o.payload for o in d.desk.snapshots() if o.topic == "surveillance/count"]
    assert count["known"] is False and count["true_count"] is None
    play(d, 3, {1: "flat"}, seed=1)
    [count] = [o.payload for o in d.desk.snapshots() if o.topic == "surveillance/count"]
    validate("surveillance/count", count)
    assert count["known"] and count["cards_out"] == d.table.shoe.out
    assert d.desk.snapshots() == []  # nothing changed since


# ------------------------------------------------------------------ decisions
def test_decisions_off_basic_strategy_and_their_cost() -> None:
    d = Desk("ref-peek", boxes=2)
    d.bets(box1="10", box2="20")
    d.do(type="close_bets")
    d.cards("6H", "TC", "6D", "5S", "8C", "8S")  # box 1: 6-5 = 11, box 2: T-8; up 6, hole 8
    d.do(type="action", box=1, action="stand")  # 11 against a 6: basic doubles
    d.cards("9S")  # box 2 hits 18: basic stands
    d.cards("5H")  # the dealer: 6-8-5 = 19
    [msg] = d.take("surveillance/decisions")
    assert msg["round"] == 1 and msg["decisions"] == 2
    dev = {x["box"]: x for x in msg["deviations"]}
    assert (dev[1]["chosen"], dev[1]["basic"]) == ("stand", "double")
    assert (dev[2]["chosen"], dev[2]["basic"]) == ("card", "stand")
    assert dev[1]["cost_units"] == pytest.approx(
        dev[1]["values"]["double"] - dev[1]["values"]["stand"], abs=1e-3
    )
    assert Decimal(dev[1]["cost"]) == (Decimal(str(dev[1]["cost_units"])) * 10).quantize(
        Decimal("0.01")
    )
    assert Decimal(msg["cost"]) == Decimal(dev[1]["cost"]) + Decimal(dev[2]["cost"])


def test_basic_strategy_play_has_no_deviation_and_insurance_is_one() -> None:
    d = Desk("ref-enhc", boxes=1)
    d.bets(box1="10")
    d.do(type="close_bets")
    d.cards("TH", "AC", "9D")  # 19 against an ace: insurance is offered
    d.do(type="insurance", box=1, player="box1", amount="5")
    d.do(type="close_insurance")
    d.do(type="action", box=1, action="stand")
    d.cards("7S")  # the dealer: A-7 soft 18
    [msg] = d.take("surveillance/decisions")
    [ins] = msg["deviations"]
    assert (ins["chosen"], ins["basic"], ins["cost"]) == ("insurance", "no_insurance", "0.38")
    assert msg["decisions"] == 2  # the stand was basic strategy


def test_a_hit_called_a_mistake_is_not_the_players_decision() -> None:
    d = Desk("be-casino", boxes=2)
    d.bets(box1="10", box2="10")
    d.do(type="close_bets")
    d.cards("TH", "9C", "5D", "9S", "7H")  # box 1: T-9 = 19, box 2: 9-7; up 5
    d.cards("4S")  # drawn for box 1 by mistake ...
    d.do(type="misdeal_card")  # ... and called: it is offered to box 2
    d.do(type="action", box=1, action="stand")
    d.do(type="action", box=2, action="take_card")  # box 2: 9-7-4 = 20
    d.do(type="action", box=2, action="stand")
    d.cards("TD")  # the dealer: 5-T-...
    d.cards("8C")
    assert d.take("surveillance/decisions") == []  # two stands, both basic


# -------------------------------------------------------------------- metrics
def test_metrics_count_rounds_decision_time_and_theoretical_win() -> None:
    d = Desk("be-casino", boxes=7)
    t0 = 1000.0
    d.do(t0, type="bet", box=1, amount="10")
    d.do(t0, type="bet", box=2, amount="30")
    d.do(t0, type="close_bets")
    d.cards("TH", "9C", "5D", "9S", "8H", now=t0 + 1)  # box 1: 19, box 2: 17; up 5
    d.do(t0 + 4, type="action", box=1, action="stand")  # waited 3 s
    d.do(t0 + 6, type="action", box=2, action="stand")  # waited 2 s
    d.cards("TD", "8C", now=t0 + 7)  # the dealer: 5-T-8 bust
    m = d.desk.metrics(t0 + 60, "2026-01-01T00:00:00Z").payload
    validate("surveillance/metrics", m)
    assert m["rounds"] == 1 and m["hands"] == 2 and m["covered_s"] == 60.0
    assert m["rounds_per_hour"] == 60.0 and m["hands_per_hour"] == 120.0
    assert m["decision_time_s"] == {"decisions": 2, "mean": 2.5, "p50": 2.0, "p90": 3.0}
    assert m["occupancy"] == {
        "boxes": 7,
        "occupied_per_round": 2.0,
        "share": 0.286,
        "players_per_round": 2.0,
    }
    assert (m["average_bet"], m["staked"], m["actual_win"]) == ("20", "40", "-40")
    assert m["house_edge_pct"] is not None and m["drop"] is None
    edge = Decimal(repr(m["house_edge_pct"])) / 100
    assert m["theoretical_win"] == str((40 * edge).quantize(Decimal("0.01")))
    later = d.desk.metrics(t0 + 3700, "2026-01-01T01:01:00Z").payload
    assert later["rounds"] == 0 and later["covered_s"] == 3600.0  # out of the window
