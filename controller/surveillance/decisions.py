"""Player decisions against basic strategy, and what the others cost.

Before each event the table is asked whether it waits for a decision (a box's
hand in its turn, with the actions the rules allow); after the event the
operations say which decision came: `stood`, `doubled`, `split`,
`surrendered`, or a card to that hand (a hit). A hit the dealer then calls a
mistake (`mistaken_card`, be-casino) is taken back: it was not the
player's. Insurance taken (or raised) is a decision too: basic strategy
never takes it.

Each decision is valued with `ev.Model` (infinite deck, the profile's rules):
the best action among those the rules allowed is basic strategy, and a
decision's cost is the best action's value minus the chosen one's, in units
of the hand's stake; times the stake, the expected money given up. A
decision with a single legal action (a forced draw, one card to a double) is
not a decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from controller.engine import Table, ops
from controller.engine.money import fmt
from controller.engine.phase import Phase

from .ev import Model

CENT = Decimal("0.01")
VALUED = ("card", "stand", "double", "split", "surrender")


@dataclass(frozen=True, slots=True)
class Point:
    """A hand waiting for its holder's decision, seen before the event."""

    round: int
    box: int
    hand: int
    cards: tuple[str, ...]
    up: str
    actions: tuple[str, ...]
    from_split: bool
    stake: Decimal


@dataclass(frozen=True, slots=True)
class Decision:
    round: int
    box: int
    player: str
    hand: int
    cards: tuple[str, ...]
    up: str
    chosen: str
    basic: str
    values: dict[str, float]
    cost_units: float  # best value minus chosen value, per unit of stake (>= 0)
    cost: Decimal  # cost_units times the stake, to the cent (an expected value)

    @property
    def deviation(self) -> bool:
        return self.chosen != self.basic

    def json(self) -> dict[str, Any]:
        return {
            "box": self.box,
            "player": self.player,
            "hand": self.hand,
            "cards": list(self.cards),
            "up": self.up,
            "chosen": self.chosen,
            "basic": self.basic,
            "values": {k: round(v, 4) for k, v in sorted(self.values.items())},
            "cost_units": round(self.cost_units, 4),
            "cost": fmt(self.cost),
        }


def _money(units: float, stake: Decimal) -> Decimal:
    return (Decimal(repr(round(units, 6))) * stake).quantize(CENT)


class DecisionWatch:
    def __init__(self, table: Table) -> None:
        self.table = table
        self.model = Model(table.p)
        self.point: Point | None = None
        self.round: list[Decision] = []  # this round's decisions so far
        self._insured: dict[tuple[int, str], Decimal] = {}

    def before(self) -> None:
        """The table is about to take an event: note the decision it waits for, if any."""
        r = self.table.round
        self.point = None
        if r is None or r.over or r.phase is not Phase.PLAYERS or r.offer_box >= 0:
            return
        box, hand = r.current()
        if len(hand.cards) < 2 or hand.doubled:
            return
        actions = tuple(a for a in r.legal_actions() if a in VALUED)
        if len(actions) < 2:
            return
        self.point = Point(
            r.number,
            box.number,
            hand.number,
            tuple(hand.cards),
            r.dealer[0],
            actions,
            hand.from_split,
            hand.stake,
        )

    def after(self, operations: list[ops.Operation]) -> list[Decision]:
        """The operations of the event: the decisions they complete (this round's list
        keeps them until the round ends; a mistaken hit is taken off it)."""
        made: list[Decision] = []
        point, self.point = self.point, None
        for op in operations:
            if isinstance(op, ops.BetsClosed):
                self.round = []
                self._insured = {}
            elif isinstance(op, ops.MistakenCard):
                self._take_back(op)
            elif isinstance(op, ops.InsurancePlaced):
                made += self._insurance(op)
            elif point is not None:
                chosen = _chosen(op, point)
                if chosen is not None:
                    made.append(self._value(point, chosen))
                    point = None
        self.round += made
        return made

    def _take_back(self, op: ops.MistakenCard) -> None:
        for i in range(len(self.round) - 1, -1, -1):
            d = self.round[i]
            if (d.round, d.box, d.hand, d.chosen) == (op.round, op.box, op.hand, "card"):
                del self.round[i]
                return

    def _value(self, point: Point, chosen: str) -> Decision:
        values = self.model.values(
            list(point.cards), point.up, point.actions, point.from_split, point.hand == 1
        )
        basic = max(values, key=values.__getitem__)
        cost = max(0.0, values[basic] - values.get(chosen, values[basic]))
        if cost <= 1e-12:
            basic = chosen  # a tie: either action is basic strategy
        return Decision(
            point.round,
            point.box,
            f"box{point.box}",
            point.hand,
            point.cards,
            point.up,
            chosen,
            basic,
            values,
            cost,
            _money(cost, point.stake),
        )

    def _insurance(self, op: ops.InsurancePlaced) -> list[Decision]:
        key = (op.box, op.player)
        added = op.amount - self._insured.get(key, Decimal(0))
        self._insured[key] = op.amount
        r = self.table.round
        if added <= 0 or r is None:
            return []
        unit = self.model.insurance_cost()
        box = r.box(op.box)
        stake = box.player_total_stake(op.player) or added
        units = unit * float(added / stake)
        return [
            Decision(
                op.round,
                op.box,
                op.player,
                1,
                tuple(box.hands[0].cards),
                r.dealer[0],
                "insurance",
                "no_insurance",
                {"insurance": -units, "no_insurance": 0.0},
                units,
                _money(unit, added),
            )
        ]


def _chosen(op: ops.Operation, point: Point) -> str | None:
    """The decision `op` records for the hand at `point`, if it is one."""
    if isinstance(op, ops.Stood | ops.Doubled | ops.Split | ops.Surrendered | ops.CardDealt):
        if (op.round, op.box, op.hand) != (point.round, point.box, point.hand):
            return None
        if isinstance(op, ops.CardDealt):
            return "card"
        return {
            ops.Stood: "stand",
            ops.Doubled: "double",
            ops.Split: "split",
            ops.Surrendered: "surrender",
        }[type(op)]
    return None
