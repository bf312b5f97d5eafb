"""Hidden information stays hidden in what displays get (engine side of the contract)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from controller import rules
from controller.engine import Table
from controller.engine.ops import CardDealt, kind
from controller.engine.phase import Phase
from controller.engine.view import op_json, table_state
from sim.shoe import VirtualShoe
from sim.strategy import Strategy

from .helpers import cards, start, table


def test_hole_card_hidden_until_the_dealer_turns_it():
    t = table("us-holecard")
    start(t, {1: "10"})
    ops = cards(t, "TS", "6H", "9D", "KC")
    hole = next(op for op in ops if isinstance(op, CardDealt) and op.face_down)
    assert op_json(hole, public=True)["card"] is None
    assert op_json(hole, public=False)["card"] == "KC"
    public = table_state(t, public=True)
    assert public["dealer"] == {"cards": ["6H", None], "total": 6}
    assert "KC" not in json.dumps(public)
    assert table_state(t, public=False)["dealer"]["cards"] == ["6H", "KC"]
    t.stand(1)
    assert table_state(t, public=True)["dealer"]["cards"] == ["6H", "KC"]


def test_face_down_double_has_no_card_and_no_total_on_display():
    t = table("us-holecard")
    start(t, {1: "10"})
    cards(t, "5S", "6H", "6D", "TC")
    t.double(1)
    cards(t, "KS")
    hand = table_state(t, public=True)["in_play"][0]["hands"][0]
    assert hand["cards"] == ["5S", "6D", None] and "total" not in hand
    assert "KS" not in json.dumps(table_state(t, public=True))


def test_pt_closed_card_hidden_until_the_box_plays():
    t = table("pt", boxes=2)
    start(t, {1: "10", 2: "10"})
    cards(t, "TS", "9S", "6H", "7D", "QC", "2D")
    hands = {b["box"]: b["hands"][0] for b in table_state(t, public=True)["in_play"]}
    assert hands[1]["cards"] == ["TS", "7D"]  # box 1 is playing: its card is turned over
    assert hands[2]["cards"] == ["9S", None] and "total" not in hands[2]


def test_shoe_composition_and_burns_only_in_the_full_view():
    t = table("fr-classic")
    t.new_shoe()
    for c in ("2S", "3S", "4S", "5S", "6S"):
        t.burn(c)
    public, full = table_state(t, public=True), table_state(t, public=False)
    assert "remaining" not in public["shoe"] and "burned" not in public["shoe"]
    assert full["shoe"]["burned"] == ["2S", "3S", "4S", "5S", "6S"]
    assert full["shoe"]["remaining"]["2S"] == 5


def test_void_turns_every_card_over():
    t = table("us-holecard")
    start(t, {1: "10"})
    ops = cards(t, "TS", "6H", "9D", "KC")
    ops = t.void("wrong shoe")
    assert "card_revealed" in [kind(op) for op in ops]
    assert table_state(t, public=True)["dealer"]["cards"] == ["6H", "KC"]


@pytest.mark.parametrize("name", ["us-holecard", "pt"])
def test_no_display_ever_sees_a_card_before_it_is_shown(name):
    """300 rounds of basic strategy: after every event, each card in the public state
    has appeared in the public event stream, and no public event shows a face-down card."""
    profile = rules.shipped(name)
    t = Table(profile, 3)
    shoe = VirtualShoe(profile.decks, profile.penetration, random.Random(5))
    strategy = Strategy(profile)
    shown: Counter[str] = Counter()
    t.new_shoe()
    for _ in range(300):
        for b in (1, 2, 3):
            t.bet(b, f"box{b}", profile.table_min)
        events = t.close_bets()
        r = t.round
        assert r is not None
        round_shown: Counter[str] = Counter()
        while True:
            for op in events:
                public = op_json(op, public=True)
                if isinstance(op, CardDealt) and op.face_down:
                    assert public["card"] is None
                if kind(op) in ("card_dealt", "card_revealed", "card_taken") and public["card"]:
                    round_shown[public["card"]] += 1
            state = table_state(t, public=True)
            visible = Counter(c for c in state["dealer"]["cards"] if c)
            for box in state["in_play"]:
                for hand in box["hands"]:
                    visible.update(c for c in hand["cards"] if c)
            if not r.over:
                assert visible <= round_shown, f"{visible - round_shown} shown before its reveal"
            if r.over:
                break
            if r.phase is Phase.INSURANCE:
                events = t.close_insurance()
            elif r.phase is Phase.PLAYERS:
                action = strategy.decide(r)
                box = r.boxes[r.turn].number
                events = t.card(shoe.draw()) if action == "card" else t.action(box, action)
            else:
                events = t.card(shoe.draw())
        shown.update(round_shown)
        if t.shoe.cut_reached:
            shoe.shuffle()
            t.new_shoe()


def test_burned_cards_are_never_shown_to_displays():
    t = table("fr-classic")
    t.new_shoe()
    ops = t.burn("AS")
    public = op_json(ops[0], public=True)
    assert public["card"] is None and op_json(ops[0], public=False)["card"] == "AS"


def test_deal_cards_left_counts_down_the_initial_deal():
    t = table("us-holecard", boxes=2)
    start(t, {1: "10", 2: "10"})
    r = t.round
    assert r is not None and r.deal_cards_left == 6  # two each, the up card and the hole card
    cards(t, "2S", "3S", "4S")
    assert r.deal_cards_left == 3
    cards(t, "5S", "6S", "7S")
    assert r.deal_cards_left == 0
