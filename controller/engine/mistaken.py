"""A card drawn by mistake (rule 003): taken back off its hand, offered to the boxes after it.

`misdeal_card` must come right after the card; each following box holder
in turn takes it (`take_card`: that hand's hit) or refuses it
(`refuse_card`); if nobody takes it, the dealer's turn decides whether it is
the dealer's next card or a discard (engine/dealer.py).
"""

from __future__ import annotations

from . import ops
from .errors import IllegalAction, OutOfTurn
from .hand import Box, Hand
from .insurance import InsuranceBets
from .ops import Ops
from .round_state import Undo


class MistakenCard(InsuranceBets):
    __slots__ = ()

    def verify_misdeal_card(self) -> Undo:
        p = self.p
        if not p.misdeal_offer:
            raise IllegalAction(
                f"{p.name} has no rule for a card drawn by mistake: call the supervisor"
            )
        if self.offer is not None:
            raise IllegalAction("a mistaken card is already waiting for a taker")
        if self.undo is None or self.over:
            raise OutOfTurn(
                "misdeal_card must come right after the mistaken card, in the players' turns"
            )
        return self.undo

    def misdeal_card(self) -> Ops:
        undo = self.verify_misdeal_card()
        self.turn, self.hand_i, self.entered, self.phase = undo
        box, hand = self.current()
        card = hand.cards.pop()
        hand.face_down.pop()
        hand.recount()
        hand.done = False
        self.undo = None
        self.offer = card
        self.offer_after = self.turn
        out: Ops = [
            ops.MistakenCard(self.number, box.number, hand.number, card),
            ops.TurnStarted(self.number, box.number, hand.number),
        ]
        self.log.extend(out)
        return out

    def _verify_offer(self, box_number: int) -> tuple[Box, Hand]:
        if self.offer_box < 0:
            raise OutOfTurn("no mistaken card is on offer")
        box, hand = self.current()
        if box.number != box_number:
            raise OutOfTurn(
                f"the mistaken card is offered to box {box.number}, not box {box_number}"
            )
        return box, hand

    def verify_take_card(self, box_number: int) -> None:
        self._verify_offer(box_number)

    def take_card(self, box_number: int) -> Ops:
        box, hand = self._verify_offer(box_number)
        card = self.offer or ""
        self.offer = None
        self.offer_box = -1
        hand.add(card)
        out: Ops = [ops.CardTaken(self.number, box.number, hand.number, card)]
        self._after_card(box, hand, out)
        return self._done(out)

    def verify_refuse_card(self, box_number: int) -> None:
        self._verify_offer(box_number)

    def refuse_card(self, box_number: int) -> Ops:
        box, _ = self._verify_offer(box_number)
        self.offer_box = -1
        self.offer_after = self.turn
        return self._done([ops.CardRefused(self.number, box.number, self.offer or "")])
