"""The dealer's turn: the hole card shown, cards drawn to a stand, the round settled."""

from __future__ import annotations

from . import ops
from .ops import CardRevealed, DealerDone, DealerTurn, Ops
from .outcome import settle
from .phase import DEALER, SETTLED
from .round_state import RoundState, make_record


class DealerPlay(RoundState):
    __slots__ = ()

    def _dealer_turn(self, out: Ops) -> None:
        self.phase = DEALER
        number = self.number
        out.append(make_record(DealerTurn, (number,)))
        if self.p.hole_card and not self.hole_shown:  # self._show_hole(out), inlined
            self.hole_shown = True
            out.append(make_record(CardRevealed, (number, ops.DEALER, 0, 1, self.dealer[1])))
        # The hands are final now: see once what the dealer has to play against.
        live = waiting = False
        insurance_done = self.insurance_done
        for box in self.boxes:
            if box.insurance and not insurance_done:
                waiting = True
            for hand in box.hands:
                if hand.paid or hand.surrendered:
                    continue
                hard = hand.hard
                if hard > 21:
                    if not hand.hidden:
                        continue  # a bust shown: lost whatever the dealer does
                    live = True
                elif hard == 11 and hand.aces and hand.blackjack:
                    waiting = True
                else:
                    live = True
        self.live, self.waiting = live, waiting
        if self.offer is not None:
            card, self.offer = self.offer, None
            if self._dealer_needs_card():
                # 003: a mistaken card nobody takes is the dealer's (second) card.
                self._dealer_add(card)
                out.append(ops.CardTaken(number, ops.DEALER, 0, card))
            else:
                self.discards = [*self.discards, card]
                out.append(ops.CardDiscarded(number, card))
        # Two cards under 17 against a live hand: the dealer draws (no call needed to see it).
        drawing = live and self.dealer_total < 17 and len(self.dealer) > 1
        if not drawing and not self._dealer_needs_card():
            self._finish(out)

    def _dealer_needs_card(self) -> bool:
        n = len(self.dealer)
        if n < 2:
            # Without a hole card the dealer's second card settles blackjacks and insurance too.
            return self.live or self.waiting
        if not self.live:
            return False
        total = self.dealer_total
        if n == 2 and total == 21:
            return False
        if total < 17:
            return True
        # H17: a soft 17 draws.
        return (
            total == 17
            and self.p.dealer_hits_soft_17
            and self.dealer_aces
            and self.dealer_hard == 7
        )

    def _show_hole(self, out: Ops) -> None:
        if self.p.hole_card and not self.hole_shown:
            self.hole_shown = True
            out.append(
                make_record(ops.CardRevealed, (self.number, ops.DEALER, 0, 1, self.dealer[1]))
            )

    def _finish(self, out: Ops) -> None:
        """Turn every hidden card over, then settle."""
        p = self.p
        if p.player_closed_card or p.double_face_down or (p.hole_card and not self.hole_shown):
            self._show_all(out)
        number = self.number
        dealer = self.dealer
        total = self.dealer_total
        out.append(
            make_record(DealerDone, (number, total, len(dealer) == 2 and total == 21, total > 21))
        )
        self.phase = SETTLED
        self.over = True
        self.undo = None
        self.outcome = outcome = settle(p, number, self.boxes, dealer, total)
        out.append(make_record(ops.RoundSettled, (number, outcome)))

    def _show_all(self, out: Ops) -> None:
        """The round is over: the hole card and every face-down card turn over."""
        if self.p.hole_card and len(self.dealer) > 1:
            self._show_hole(out)
        if not (self.p.player_closed_card or self.p.double_face_down):
            return  # no player card is ever dealt face down in this game
        for box in self.boxes:
            for hand in box.hands:
                if hand.hidden:
                    for i, down in enumerate(hand.face_down):
                        if down:
                            hand.face_down[i] = False
                            out.append(
                                ops.CardRevealed(
                                    self.number, box.number, hand.number, i, hand.cards[i]
                                )
                            )
                    if hand.hard > 21 and not self.over:
                        out.append(ops.HandBust(self.number, box.number, hand.number, hand.hard))
