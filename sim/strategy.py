"""Basic strategy per rule profile, as `croupier simulate` and the bots play it.

The tables are not written here: they are the total-dependent strategy that
`croupier edge` computes for the profile by probability
(controller/engine/edge.py), so the edge it prints and the edge a simulation
measures are of one strategy. Insurance is never taken.

Codes: H hit, S stand, D double else hit, d double else stand, P split,
R surrender else hit, r surrender else stand, Q surrender else split.
Columns: dealer up card 2 3 4 5 6 7 8 9 T A. Every pair has its own row.
"""

from __future__ import annotations

from typing import Final

from controller.engine.cards import VALUE
from controller.engine.edge import edge
from controller.engine.profile import RuleProfile
from controller.engine.round import Round

UP_COLUMN: Final = {v: v - 2 for v in range(2, 11)} | {1: 9}


class Strategy:
    """The profile's strategy tables (computed once per set of rules, then cached)."""

    def __init__(self, profile: RuleProfile) -> None:
        self.profile = profile
        tables = edge(profile).strategy
        self.hard = tables.hard
        self.soft = tables.soft
        self.pairs = tables.pairs

    def code(self, cards: list[str], hard: int, soft: bool, up: str) -> str:
        column = UP_COLUMN[VALUE[up]]
        if len(cards) == 2 and VALUE[cards[0]] == VALUE[cards[1]]:
            row = self.pairs.get(VALUE[cards[0]])
            if row is not None:
                return row[column]
        if soft:
            return self.soft[hard + 10][column]
        return self.hard[min(hard, 21)][column]

    def decide(self, r: Round) -> str:
        """The action for the hand in play: "card" (a hit), "stand", "double", ..."""
        hand = r.boxes[r.turn].hands[r.hand_i]
        cards = hand.cards
        if len(cards) < 2 or hand.doubled:
            return "card"
        can = r.can
        # self.code(), inlined: this runs for every decision of every simulated hand.
        column = UP_COLUMN[VALUE[r.dealer[0]]]
        hard = hand.hard
        code = ""
        if len(cards) == 2 and VALUE[cards[0]] == VALUE[cards[1]]:
            row = self.pairs.get(VALUE[cards[0]])
            if row is not None:
                code = row[column]
        if not code:
            if hand.aces and hard <= 11:
                code = self.soft[hard + 10][column]
            else:
                code = self.hard[hard if hard < 21 else 21][column]
        if code == "Q":
            if can("surrender"):
                return "surrender"
            code = "P"
        if code == "P":
            if can("split"):
                return "split"
            # No more splits: play the pair as its total.
            column = UP_COLUMN[VALUE[r.dealer[0]]]
            code = self.soft[hand.hard + 10][column] if hand.soft else self.hard[hand.hard][column]
        if code == "H" and not hand.split_aces:
            return "card"  # a hit is open to any other hand in play
        if code == "S" and not self.profile.forced_draw_to:
            return "stand"  # and so is a stand, unless the profile forces a draw
        for action in _PREFERENCE[code]:
            if can(action):
                return action
        return r.legal_actions()[0]


_PREFERENCE: Final[dict[str, tuple[str, ...]]] = {
    "H": ("card",),
    "S": ("stand", "card"),
    "D": ("double", "card"),
    "d": ("double", "stand", "card"),
    "R": ("surrender", "card"),
    "r": ("surrender", "stand", "card"),
    "Q": ("surrender", "split", "card"),
}
