"""The order of play: after the deal, turn by turn over the boxes and their hands.

A box's turn begins (closed cards turn over, a mistaken card is offered),
a hand ends by itself (21, a bust, a double's card, a split ace's card) or
by a decision, and the turn moves on to the next hand that needs the box
holder, then to the dealer.
"""

from __future__ import annotations

from . import ops
from .cards import VALUE
from .dealer import DealerPlay
from .errors import IllegalAction, OutOfTurn
from .hand import Box, Hand
from .ops import Ops, TurnStarted
from .phase import INSURANCE, PLAYERS
from .round_state import make_record


class Turns(DealerPlay):
    __slots__ = ()

    def _after_deal(self, out: Ops) -> None:
        for box in self.boxes:
            hand = box.hands[0]
            if hand.hard == 11 and hand.aces and not hand.hidden:  # a blackjack, face up
                self._blackjack(box, hand, out)
        if self.dealer[0][0] == "A" and self.p.insurance:
            self.phase = INSURANCE
            out.append(make_record(ops.InsuranceOffered, (self.number,)))
            return
        self._after_insurance(out)

    def _blackjack(self, box: Box, hand: Hand, out: Ops) -> None:
        hand.done = True
        when = self.p.blackjack_paid_at_once
        hand.paid = when == "always" or (when == "unless_dealer_ace" and self.dealer[0][0] != "A")
        out.append(
            make_record(ops.HandBlackjack, (self.number, box.number, hand.number, hand.paid))
        )

    def _after_insurance(self, out: Ops) -> None:
        up = self.dealer[0]
        if self.p.peek and (up[0] == "A" or VALUE[up] == 10):
            blackjack = self.dealer_total == 21
            out.append(make_record(ops.DealerPeeked, (self.number, blackjack)))
            self.insurance_done = True
            if blackjack:
                self._finish(out)
                return
        self.phase = PLAYERS
        self._advance(out)

    def _advance(self, out: Ops) -> None:
        """Move the turn to the next hand that needs the box holder, or to the dealer."""
        boxes = self.boxes
        turn, hand_i = self.turn, self.hand_i
        # Only closed cards or a mistaken card on offer make the start of a turn special.
        special = self.offer is not None or self.p.player_closed_card
        while turn < len(boxes):
            box = boxes[turn]
            hands = box.hands
            if self.entered < turn:
                self.entered = turn
                if special:
                    self.turn, self.hand_i = turn, hand_i
                    if self._enter(box, out):
                        return
            while hand_i < len(hands):
                hand = hands[hand_i]
                if not hand.done:
                    self.turn, self.hand_i = turn, hand_i
                    out.append(make_record(TurnStarted, (self.number, box.number, hand.number)))
                    return
                hand_i += 1
            turn += 1
            hand_i = 0
        self.turn, self.hand_i = turn, hand_i
        self._dealer_turn(out)

    def _enter(self, box: Box, out: Ops) -> bool:
        """A box's turn begins: closed cards turn over, a mistaken card is offered.

        True when the box must first answer the offer of a mistaken card."""
        hand = box.hands[0]
        if hand.hidden:
            for i, down in enumerate(hand.face_down):
                if down:
                    hand.face_down[i] = False
                    out.append(ops.CardRevealed(self.number, box.number, 1, i, hand.cards[i]))
            if hand.blackjack:
                self._blackjack(box, hand, out)
        if self.offer is not None and self.turn > self.offer_after and not hand.done:
            self.offer_box = self.turn
            out.append(ops.TurnStarted(self.number, box.number, hand.number))
            out.append(ops.CardOffered(self.number, box.number, self.offer))
            return True
        return False

    def _after_card(self, box: Box, hand: Hand, out: Ops) -> None:
        """A hand took a card in its turn: see whether it ended by itself."""
        reason = ""
        if hand.split_aces and len(hand.cards) == 2:
            if not (
                self.p.resplit_aces
                and hand.cards[1][0] == "A"
                and len(box.hands) < self.p.max_ace_hands
            ):
                reason = "split_ace"
        elif hand.doubled:
            reason = "double"
        if hand.hard > 21 and not (hand.doubled and self.p.double_face_down):
            hand.done = True
            out.append(make_record(ops.HandBust, (self.number, box.number, hand.number, hand.hard)))
        elif reason:
            hand.done = True
            total = 0 if hand.hidden else hand.total  # a face-down double shows no total
            out.append(
                make_record(ops.HandComplete, (self.number, box.number, hand.number, total, reason))
            )
        elif hand.total == 21:
            hand.done = True
            out.append(
                make_record(ops.HandComplete, (self.number, box.number, hand.number, 21, "21"))
            )
        if hand.done:
            self._advance(out)

    def _in_turn(self, box_number: int, what: str) -> tuple[Box, Hand]:
        """The box and hand in play, if `box_number` is the box whose turn it is."""
        if self.phase is not PLAYERS:
            raise OutOfTurn(
                f"box {box_number} cannot {what} now: the round is in {self.phase.value}"
            )
        box = self.boxes[self.turn]
        hand = box.hands[self.hand_i]
        if box.number != box_number:
            raise OutOfTurn(f"box {box_number} cannot {what}: it is box {box.number}'s turn")
        if self.offer_box >= 0:
            raise OutOfTurn(f"box {box.number} must first take or refuse the mistaken card")
        if len(hand.cards) < 2:
            raise IllegalAction(
                f"box {box.number} hand {hand.number} cannot {what}: it needs its second card first"
            )
        if hand.doubled:
            raise IllegalAction(
                f"box {box.number} hand {hand.number} cannot {what}: it doubled and takes one card"
            )
        return box, hand
