"""Random legal rounds under every profile, and the invariants that must hold.

A random table is played with hypothesis choosing every decision a player,
the dealer or the pit could take (bets behind, insurance, doubles, splits,
surrender, the mistaken card, a void now and then), cards coming from a
seeded shoe. After every round: money is conserved, every card out of the
shoe is accounted for once, and random attempts at illegal events were
refused without changing anything. The recorded script replays to the same
output, twice.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from decimal import Decimal
from typing import Any, get_type_hints

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller import rules
from controller.engine import CARD_CODES, Table, TableError, outcome_json, parse_event
from controller.engine.ops import RoundSettled, RoundVoided
from controller.replay import replay

from .helpers import snapshot

PROFILES = list(rules.SHIPPED)


_SIMPLE = (int, str, bool, Decimal)


def check_record(op: Any) -> None:
    """The engine builds its records with tuple.__new__ on its hot paths (no
    NamedTuple arity check): every record must still have all its fields, typed."""
    fields = type(op)._fields
    assert len(op) == len(fields), f"{type(op).__name__} has {len(op)} values: {tuple(op)}"
    for name, kind in get_type_hints(type(op)).items():
        if kind in _SIMPLE:
            value = getattr(op, name)
            assert isinstance(value, kind), f"{type(op).__name__}.{name} = {value!r}"


class Player:
    """Plays a table from its `expecting()`, choosing with hypothesis."""

    def __init__(self, data: st.DataObject, t: Table, seed: int) -> None:
        self.data = data
        self.t = t
        self.shoe = list(CARD_CODES) * t.p.decks
        random.Random(seed).shuffle(self.shoe)
        self.script: list[dict[str, Any]] = [
            {"type": "shoe", "rules": t.p.name, "boxes": t.boxes},
        ]
        self.outputs: list[dict[str, Any]] = []
        self.round_cards: list[str] = []
        self.rounds = 0

    def send(self, event: dict[str, Any]) -> None:
        for op in self.t.apply(parse_event(event)):
            check_record(op)
            if isinstance(op, RoundSettled | RoundVoided):
                self.outputs.append(outcome_json(op.outcome))
        self.script.append(event)
        if event["type"] in ("card", "burn"):
            self.round_cards.append(event["card"])

    def draw(self) -> str:
        return self.shoe.pop()

    def choose(self, options: list[Any]) -> Any:
        return self.data.draw(st.sampled_from(options))

    def attempt_illegal(self) -> None:
        """Try an event that may well be refused; if refused, nothing may change."""
        t = self.t
        box = self.data.draw(st.integers(1, t.boxes + 1))
        candidates = [
            {"type": "action", "box": box, "action": a}
            for a in ("stand", "double", "split", "surrender", "take_card", "refuse_card")
        ] + [
            {"type": "card", "card": self.shoe[-1]},
            {"type": "bet", "box": box, "amount": self.choose(["0", "3", "10", "700"])},
            {"type": "insurance", "box": box, "amount": self.choose(["1", "5", "50"])},
            {"type": "close_bets"},
            {"type": "close_insurance"},
            {"type": "misdeal_card"},
            {"type": "burn", "card": self.shoe[-1]},
        ]
        event = self.choose(candidates)
        before = snapshot(t)
        try:
            parsed = parse_event(event)
            ops = t.apply(parsed)
        except TableError:
            assert snapshot(t) == before, f"refused {event} changed the table"
            return
        # It was legal after all: keep it in the script (and the cards it used).
        for op in ops:
            if isinstance(op, RoundSettled | RoundVoided):
                self.outputs.append(outcome_json(op.outcome))
        self.script.append(event)
        if event["type"] in ("card", "burn"):
            self.round_cards.append(self.shoe.pop())

    def place_bets(self) -> None:
        t = self.t
        p = t.p
        boxes = self.data.draw(
            st.lists(
                st.integers(1, t.boxes), min_size=max(1, p.min_boxes), max_size=t.boxes, unique=True
            )
        )
        for box in boxes:
            if f"box{box}" not in t.bets.get(box, {}):
                self.send(
                    {"type": "bet", "box": box, "amount": self.choose(["5", "10", "25", "17"])}
                )
            if p.bets_behind and self.data.draw(st.booleans()):
                limit = p.max_players_per_box or 4
                for i in range(self.data.draw(st.integers(1, max(1, limit - 1)))):
                    self.send(
                        {
                            "type": "bet",
                            "box": box,
                            "player": f"p{box}{i}",
                            "amount": self.choose(["5", "10", "15"]),
                        }
                    )

    def play_round(self) -> None:
        t = self.t
        self.place_bets()
        self.send({"type": "close_bets"})
        r = t.round
        assert r is not None
        void_at = self.data.draw(st.integers(0, 40))
        steps = 0
        while not r.over:
            steps += 1
            if steps == void_at:
                self.send({"type": "void", "reason": "pit decision"})
                break
            if self.data.draw(st.integers(0, 9)) == 0:
                self.attempt_illegal()
                continue
            e = t.expecting()
            if e.what == "card":
                self.send({"type": "card", "card": self.draw()})
            elif e.what == "insurance":
                self.insure()
                self.send({"type": "close_insurance"})
            elif e.what == "offer":
                self.send(
                    {
                        "type": "action",
                        "box": e.box,
                        "action": self.choose(["take_card", "refuse_card"]),
                    }
                )
            elif e.what == "action":
                self.act(e.box, e.actions)
        self.rounds += 1
        self.check_round()

    def insure(self) -> None:
        r = self.t.round
        assert r is not None
        for box in r.boxes:
            for player, stake in box.stakes.items():
                if self.data.draw(st.booleans()):
                    amount = self.choose([stake / 2, stake / 4, Decimal("1")])
                    amount = min(amount, stake / 2).quantize(Decimal("0.01"), rounding="ROUND_DOWN")
                    if amount > 0:
                        self.send(
                            {
                                "type": "insurance",
                                "box": box.number,
                                "player": player,
                                "amount": str(amount),
                            }
                        )

    def act(self, box: int, actions: tuple[str, ...]) -> None:
        choice = self.choose(list(actions))
        if choice == "card":
            self.send({"type": "card", "card": self.draw()})
            r = self.t.round
            if r is not None and r.undo is not None and self.data.draw(st.integers(0, 5)) == 0:
                self.send({"type": "misdeal_card"})
            return
        self.send({"type": "action", "box": box, "action": choice})
        r = self.t.round
        if (
            r is not None
            and not r.over
            and r.p.insurance_raise
            and r.dealer[0][0] == "A"
            and choice in ("double", "split")
        ):
            b = r.box(box)
            for player, held in b.insurance.items():
                room = b.player_total_stake(player) / 2
                if held < room and self.data.draw(st.booleans()):
                    self.send(
                        {"type": "insurance", "box": box, "player": player, "amount": str(room)}
                    )

    def check_round(self) -> None:
        r = self.t.round
        assert r is not None and r.outcome is not None
        out = outcome_json(r.outcome)
        # Money is conserved: the players' nets and the house's sum to zero.
        total = sum((Decimal(p["net"]) for b in out["boxes"] for p in b["players"]), Decimal(0))
        assert total + Decimal(out["house_net"]) == 0
        # Each hand's payout is the sum of its players' shares; no player wins more than
        # 1.5 x the stake plus twice the insurance or loses more than both.
        for b in out["boxes"]:
            for p in b["players"]:
                stake, ins, net = Decimal(p["stake"]), Decimal(p["insurance"]), Decimal(p["net"])
                assert (
                    -(stake + ins) <= net <= stake * r.p.blackjack_pays + ins * r.p.insurance_pays
                )
        if r.outcome.voided:
            assert total == 0
        else:
            check_results(out, r.p)
        # Every card out of the shoe this round is accounted for exactly once.
        burned = self.t.burned if self.rounds == 1 else []
        assert Counter(self.round_cards) == Counter(r.cards_out() + burned), "cards lost or doubled"
        self.round_cards = []


def total_of(cards: list[str]) -> tuple[int, bool]:
    """Best total and softness, computed here independently of the engine."""
    hard = sum(min("A23456789TJQK".index(c[0]) + 1, 10) for c in cards)
    if any(c[0] == "A" for c in cards) and hard <= 11:
        return hard + 10, True
    return hard, False


def check_results(out: dict[str, Any], p: Any) -> None:
    """Each result agrees with the cards, each payout with the result and stake."""
    dealer = out["dealer"]["cards"]
    d_total, _ = total_of(dealer)
    d_bj = len(dealer) == 2 and d_total == 21
    assert out["dealer"]["total"] == d_total and out["dealer"]["blackjack"] == d_bj
    assert out["dealer"]["bust"] == (d_total > 21)
    for n in range(3, len(dealer) + 1):  # the dealer drew only below 17 (or on soft 17 with H17)
        before, soft = total_of(dealer[: n - 1])
        assert before < 17 or (before == 17 and soft and p.dealer_hits_soft_17), dealer
    for b in out["boxes"]:
        paid = Decimal(0)
        for h in b["hands"]:
            total, _ = total_of(h["cards"])
            stake, payout, result = Decimal(h["stake"]), Decimal(h["payout"]), h["result"]
            assert h["total"] == total
            paid += payout
            if result == "bust":
                assert total > 21 and payout == -stake
            elif result == "blackjack":
                assert len(h["cards"]) == 2 and total == 21 and payout == stake * p.blackjack_pays
            elif result == "surrender":
                assert len(h["cards"]) == 2 and payout == -stake / 2
            elif result == "win":
                assert total <= 21 and not d_bj and (d_total > 21 or total > d_total)
                assert payout == stake
            elif result == "push":
                assert payout == 0
                assert total == d_total or d_bj
            else:
                assert result == "lose", result
                assert d_bj or (total <= 21 and d_total <= 21 and total < d_total)
                assert -stake <= payout < 0
        insured = sum((Decimal(pl["insurance"]) for pl in b["players"]), Decimal(0))
        paid += insured * p.insurance_pays if d_bj else -insured
        # The players' nets are the hands' payouts plus insurance, nothing else.
        assert sum((Decimal(pl["net"]) for pl in b["players"]), Decimal(0)) == paid


@pytest.mark.parametrize("profile", PROFILES)
@settings(
    suppress_health_check=[
        HealthCheck.large_base_example,
        HealthCheck.data_too_large,
        HealthCheck.too_slow,
    ]
)
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_random_legal_rounds_keep_money_and_cards_and_replay_the_same(profile, data, seed):
    p = rules.shipped(profile)
    t = Table(p, data.draw(st.integers(max(1, p.min_boxes), p.boxes)))
    player = Player(data, t, seed)
    player.send({"type": "shoe"})
    player.script.pop()  # the header line already starts the shoe
    for _ in range(p.burn):
        player.send({"type": "burn", "card": player.draw()})
    for _ in range(data.draw(st.integers(1, 4))):
        player.play_round()
        if t.bets and not data.draw(st.booleans()):
            for box, stakes in list(t.bets.items()):  # take carried pushes back, sometimes
                for who in sorted(stakes, key=lambda w: w == f"box{box}"):
                    player.send({"type": "bet", "box": box, "player": who, "amount": "0"})
    lines = [json.dumps(e) for e in player.script]
    first = list(replay(lines))
    second = list(replay(lines))
    assert first == second == player.outputs
