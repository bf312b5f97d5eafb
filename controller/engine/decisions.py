"""The box holder's decisions on the hand in play: stand, double, split, surrender.

Each as verify_x (raises a typed refusal that says why, before anything
changes) and x (applies it, returns the operation records); the rules
themselves are in engine/refusals.py.
"""

from __future__ import annotations

from . import ops, refusals
from .errors import IllegalAction
from .hand import Box, Hand
from .ops import Ops, Stood
from .round_state import make_record
from .turns import Turns


class Decisions(Turns):
    __slots__ = ()

    # stand
    def verify_stand(self, box_number: int) -> tuple[Box, Hand]:
        box, hand = self._in_turn(box_number, "stand")
        if self.p.forced_draw_to:  # the only rule that refuses a stand
            reason = refusals.stand(self.p, hand)
            if reason:
                raise IllegalAction(f"box {box_number} cannot stand: {reason}")
        return box, hand

    def stand(self, box_number: int) -> Ops:
        box, hand = self.verify_stand(box_number)
        hand.done = True
        hard = hand.hard
        total = hard + 10 if hand.aces and hard <= 11 else hard
        out: Ops = [make_record(Stood, (self.number, box.number, hand.number, total))]
        self._advance(out)
        self.undo = None  # self._done(out), inlined
        self.log.extend(out)
        return out

    # double
    def verify_double(self, box_number: int) -> tuple[Box, Hand]:
        box, hand = self._in_turn(box_number, "double")
        reason = refusals.double(self.p, hand)
        if reason:
            raise IllegalAction(f"box {box_number} cannot double: {reason}")
        return box, hand

    def double(self, box_number: int) -> Ops:
        box, hand = self.verify_double(box_number)
        hand.base = dict(hand.stakes)
        for player in hand.stakes:
            hand.stakes[player] += hand.stakes[player]
        hand.doubled = True
        box.doubled_or_split = True
        return self._done(
            [make_record(ops.Doubled, (self.number, box.number, hand.number, hand.stake))]
        )

    # split
    def verify_split(self, box_number: int) -> tuple[Box, Hand]:
        box, hand = self._in_turn(box_number, "split")
        reason = refusals.split(self.p, box, hand)
        if reason:
            raise IllegalAction(f"box {box_number} cannot split: {reason}")
        return box, hand

    def split(self, box_number: int) -> Ops:
        box, hand = self.verify_split(box_number)
        moved = hand.cards.pop()
        hand.face_down.pop()
        hand.recount()
        hand.from_split = True
        new = Hand(len(box.hands) + 1, dict(hand.stakes), from_split=True)
        new.add(moved)
        if moved[0] == "A":
            hand.split_aces = new.split_aces = True
        box.hands.insert(self.hand_i + 1, new)
        box.doubled_or_split = True
        return self._done(
            [make_record(ops.Split, (self.number, box.number, hand.number, new.number, moved))]
        )

    # surrender
    def verify_surrender(self, box_number: int) -> tuple[Box, Hand]:
        box, hand = self._in_turn(box_number, "surrender")
        reason = refusals.surrender(self.p, box, hand, self.dealer[0])
        if reason:
            raise IllegalAction(f"box {box_number} cannot surrender: {reason}")
        return box, hand

    def surrender(self, box_number: int) -> Ops:
        box, hand = self.verify_surrender(box_number)
        hand.surrendered = True
        hand.done = True
        out: Ops = [ops.Surrendered(self.number, box.number, hand.number)]
        self._advance(out)
        return self._done(out)
