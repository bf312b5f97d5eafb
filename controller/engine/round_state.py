"""A round's state and what can be read off it; the moves live in the classes above it.

The round is one state machine (engine/round.py) built in layers, one job
each: this state and its views; the dealer's turn (engine/dealer.py); the
order of turns (engine/turns.py); the box holders' decisions, insurance and
the mistaken card (engine/decisions.py, insurance.py, mistaken.py). Every
layer shares the slots below: only this class declares any.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final, NamedTuple

from . import refusals
from .cards import VALUE
from .errors import OutOfTurn
from .hand import Box, Hand
from .ops import Ops
from .outcome import Outcome
from .phase import DEAL, DEALER, INSURANCE, PLAYERS, Expect, Phase
from .profile import RuleProfile

# Records are made with tuple.__new__ on the hot paths: it skips the NamedTuple's
# Python-level __new__, a good share of an event's cost in the simulator.
make_record: Final = tuple.__new__

UP: Final = -1  # deal plan entries: a box index, or the dealer's up / hole card
HOLE: Final = -2


class Undo(NamedTuple):
    """Where the round stood before the last card, for `misdeal_card`."""

    turn: int
    hand_i: int
    entered: int
    phase: Phase


_PLANS: dict[tuple[int, bool], tuple[int, ...]] = {}


def _plan(boxes: int, hole_card: bool) -> tuple[int, ...]:
    """Who gets each card of the initial deal: box indexes, the up card, the hole card."""
    plan = _PLANS.get((boxes, hole_card))
    if plan is None:
        order = tuple(range(boxes))
        plan = _PLANS[boxes, hole_card] = order + (UP,) + order + ((HOLE,) if hole_card else ())
    return plan


class RoundState:
    __slots__ = (
        "boxes",
        "dealer",
        "dealer_aces",
        "dealer_hard",
        "dealer_total",
        "discards",
        "entered",
        "hand_i",
        "hole_shown",
        "insurance_done",
        "live",
        "log",
        "number",
        "offer",
        "offer_after",
        "offer_box",
        "outcome",
        "over",
        "p",
        "phase",
        "plan",
        "plan_end",
        "step",
        "turn",
        "undo",
        "waiting",
    )

    def __init__(
        self, profile: RuleProfile, number: int, stakes: list[tuple[int, dict[str, Decimal]]]
    ):
        self.p = profile
        self.number = number
        if len(stakes) == 1:  # one box: no comprehension (a function call of its own)
            number0, stakes0 = stakes[0]
            self.boxes = [Box(number0, stakes0)]
        else:
            self.boxes = [Box(n, s) for n, s in stakes]
        self.phase = DEAL
        self.over = False  # settled or voided (kept as a field: it is read on every event)
        self.dealer: list[str] = []
        self.dealer_hard = 0
        self.dealer_aces = False
        self.dealer_total = 0  # best total, kept up to date by _dealer_add
        self.plan = _plan(len(stakes), profile.hole_card)
        self.plan_end = len(self.plan)
        self.step = 0
        self.turn = 0  # index of the box in play
        self.hand_i = 0  # index, in play order, of its hand in play
        self.entered = -1  # last box whose turn has begun
        self.offer: str | None = None  # a mistaken card waiting for a taker
        self.offer_after = -1  # offered only to boxes after this index
        self.offer_box = -1  # index of the box it is offered to now, or -1
        self.undo: Undo | None = None
        self.insurance_done = False
        self.hole_shown = False
        self.live = False  # at the dealer's turn: a hand the dealer must play against
        self.waiting = False  # ... or only blackjacks and insurance waiting for a second card
        self.discards: list[str] = []  # a mistaken card the dealer did not need
        self.outcome: Outcome | None = None
        self.log: Ops = []

    # ------------------------------------------------------------------ views
    @property
    def up_card(self) -> str | None:
        return self.dealer[0] if self.dealer else None

    def box(self, number: int) -> Box:
        for box in self.boxes:
            if box.number == number:
                return box
        raise OutOfTurn(f"box {number} has no stake in round {self.number}")

    def current(self) -> tuple[Box, Hand]:
        box = self.boxes[self.turn]
        return box, box.hands[self.hand_i]

    def cards_out(self) -> list[str]:
        """Every card this round took from the shoe, once each."""
        cards = list(self.dealer)
        for box in self.boxes:
            for hand in box.hands:
                cards.extend(hand.cards)
        if self.offer is not None:
            cards.append(self.offer)
        return cards + self.discards

    @property
    def deal_cards_left(self) -> int:
        """Cards the initial deal still needs (0 once it is complete)."""
        return self.plan_end - self.step if self.phase is DEAL else 0

    def expecting(self) -> Expect:
        phase = self.phase
        if phase is DEAL or phase is DEALER:
            return Expect("card")
        if phase is INSURANCE:
            return Expect("insurance")
        if phase is PLAYERS:
            box, hand = self.current()
            if self.offer_box >= 0:
                return Expect("offer", box.number, hand.number, ("take_card", "refuse_card"))
            return Expect("action", box.number, hand.number, self.legal_actions())
        return Expect("nothing")

    def legal_actions(self) -> tuple[str, ...]:
        """Decisions open to the hand in play (a hit is a card, listed as "card")."""
        if self.phase is not PLAYERS or self.offer_box >= 0:
            return ()
        box, hand = self.current()
        if len(hand.cards) < 2 or hand.doubled:
            return ("card",)
        acts = []
        p = self.p
        if refusals.hit(hand) is None:
            acts.append("card")
        if refusals.stand(p, hand) is None:
            acts.append("stand")
        if refusals.double(p, hand) is None:
            acts.append("double")
        if refusals.split(p, box, hand) is None:
            acts.append("split")
        if refusals.surrender(p, box, hand, self.dealer[0]) is None:
            acts.append("surrender")
        return tuple(acts)

    def can(self, action: str) -> bool:
        """Whether the hand in play may `action` now ("card" for a hit): cheap, no raise."""
        if self.phase is not PLAYERS or self.offer_box >= 0:
            return False
        box = self.boxes[self.turn]
        hand = box.hands[self.hand_i]
        if action == "card":
            return refusals.hit(hand) is None
        if len(hand.cards) < 2 or hand.doubled:
            return False
        if action == "stand":
            return refusals.stand(self.p, hand) is None
        if action == "double":
            return refusals.double(self.p, hand) is None
        if action == "split":
            return refusals.split(self.p, box, hand) is None
        if action == "surrender":
            return refusals.surrender(self.p, box, hand, self.dealer[0]) is None
        return False

    def _dealer_add(self, card: str) -> None:
        self.dealer.append(card)
        hard = self.dealer_hard = self.dealer_hard + VALUE[card]
        if card[0] == "A":
            self.dealer_aces = True
        self.dealer_total = hard + 10 if self.dealer_aces and hard <= 11 else hard

    def _done(self, out: Ops) -> Ops:
        """Log the records. Any event after a card ends the chance to call it mistaken."""
        self.undo = None
        self.log.extend(out)
        return out
