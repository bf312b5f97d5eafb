"""One round of blackjack as an explicit state machine.

Phases and their legal moves, in one place:

    DEAL        card                      -> INSURANCE | PLAYERS | SETTLED (peeked blackjack)
    INSURANCE   insurance, close_insurance -> PLAYERS | SETTLED
    PLAYERS     card (a hit), stand, double, split, surrender, take_card,
                refuse_card, misdeal_card, insurance (raise, be-casino)
                                          -> DEALER | SETTLED
    DEALER      card                      -> SETTLED
    any but SETTLED/VOIDED: void          -> VOIDED

Every public action comes as verify_x (raises a typed `IllegalAction` that a
dealer can read), can_x (a bool) and x (applies, returns the operation
records). A refusal is raised before anything changes, so a refused event
leaves the round exactly as it was.

The class is built in layers, a module each: the state and its views
(round_state.py), the dealer's turn (dealer.py), the order of turns
(turns.py), the decisions (decisions.py, with the rules that refuse them in
refusals.py), insurance (insurance.py) and the mistaken card (mistaken.py),
each on the one before. Here: the cards as they come out of the shoe, and void.
"""

from __future__ import annotations

from . import ops, refusals
from .cards import VALUE, card_name
from .errors import IllegalAction, OutOfTurn
from .mistaken import MistakenCard
from .ops import CardDealt, Ops
from .outcome import void_outcome
from .phase import DEAL, DEALER, INSURANCE, PLAYERS, VOIDED
from .round_state import HOLE, Undo, make_record


class Round(MistakenCard):
    """The round: its state (engine/round_state.py) and every move, layered by job."""

    __slots__ = ()

    def verify_card(self, card: str) -> None:
        phase = self.phase
        if phase is DEAL or phase is DEALER:
            return
        if phase is PLAYERS:
            box, hand = self.current()
            if self.offer_box >= 0:
                raise OutOfTurn(
                    f"box {box.number} must first take or refuse the mistaken card "
                    f"({card_name(self.offer or '')})"
                )
            reason = refusals.hit(hand)
            if reason:
                raise IllegalAction(
                    f"box {box.number} hand {hand.number} cannot take a card: {reason}"
                )
            return
        if phase is INSURANCE:
            raise OutOfTurn("insurance is open: close insurance before the next card")
        raise OutOfTurn(f"round {self.number} is {phase.value}: no card is expected")

    def card(self, card: str) -> Ops:
        phase = self.phase
        if phase is DEAL:
            # The initial deal, inlined: it is most of the cards of a round.
            step = self.step
            target = self.plan[step]
            self.step = step = step + 1
            value = VALUE[card]
            if target >= 0:
                box = self.boxes[target]
                hand = box.hands[0]
                cards = hand.cards
                closed = self.p.player_closed_card and len(cards) == 1
                # hand.add(card, closed), inlined
                cards.append(card)
                hand.face_down.append(closed)
                hand.hard += value
                if value == 1:
                    hand.aces = True
                record = make_record(CardDealt, (self.number, box.number, 1, card, closed))
            else:
                # self._dealer_add(card), inlined
                self.dealer.append(card)
                hard = self.dealer_hard = self.dealer_hard + value
                if value == 1:
                    self.dealer_aces = True
                self.dealer_total = hard + 10 if self.dealer_aces and hard <= 11 else hard
                record = make_record(CardDealt, (self.number, ops.DEALER, 0, card, target == HOLE))
            if step < self.plan_end:
                self.log.append(record)
                return [record]
            out: Ops = [record]
            self._after_deal(out)
        elif phase is PLAYERS:
            box = self.boxes[self.turn]
            hand = box.hands[self.hand_i]
            if self.offer_box >= 0 or hand.split_aces:
                self.verify_card(card)  # raises when the hand may not take it
            p = self.p
            undo = None
            if p.misdeal_offer and self.offer is None:
                # Only a card that changed nothing but its hand's turn can be taken back.
                undo = make_record(Undo, (self.turn, self.hand_i, self.entered, phase))
            # 001: the American double's card is dealt face down until the dealer finishes.
            down = hand.doubled and p.double_face_down
            # hand.add(card, down), inlined
            hand.cards.append(card)
            hand.face_down.append(down)
            hard = hand.hard = hand.hard + VALUE[card]
            if card[0] == "A":
                hand.aces = True
            out = [make_record(CardDealt, (self.number, box.number, hand.number, card, down))]
            # Most hits leave the hand in play: then there is nothing more to see.
            if (
                hard > 21
                or hand.doubled
                or hand.split_aces
                or hard == 21
                or (hard == 11 and hand.aces)
            ):
                self._after_card(box, hand, out)
            self.undo = None if self.over else undo
        elif phase is DEALER:
            # self._dealer_add(card), inlined
            self.dealer.append(card)
            hard = self.dealer_hard = self.dealer_hard + VALUE[card]
            if card[0] == "A":
                self.dealer_aces = True
            total = self.dealer_total = hard + 10 if self.dealer_aces and hard <= 11 else hard
            out = [make_record(CardDealt, (self.number, ops.DEALER, 0, card, False))]
            # Under 17 against a live hand the dealer draws on: the common case, decided here.
            if not (total < 17 and self.live) and not self._dealer_needs_card():
                self._finish(out)
        else:
            self.verify_card(card)  # raises: no card is expected now
            raise AssertionError(f"round {self.number} took a card in {phase.value}")
        self.log.extend(out)
        return out

    def verify_void(self) -> None:
        if self.over:
            raise OutOfTurn(f"round {self.number} is already {self.phase.value}")

    def void(self, reason: str) -> Ops:
        self.verify_void()
        out: Ops = []
        self._show_all(out)  # the cards are collected face up; the outcome shows them all
        self.phase = VOIDED
        self.over = True
        self.undo = None
        self.outcome = void_outcome(self.number, self.boxes, self.dealer, reason)
        out.append(ops.RoundVoided(self.number, reason, self.outcome))
        return self._done(out)
