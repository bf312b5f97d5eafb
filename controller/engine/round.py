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
"""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum
from typing import NamedTuple

from . import ops
from .cards import VALUE, card_name
from .errors import IllegalAction, OutOfTurn
from .hand import Box, Hand
from .money import ZERO
from .ops import CardDealt, CardRevealed, DealerDone, DealerTurn, Stood, TurnStarted
from .outcome import Outcome, settle, void_outcome
from .profile import RuleProfile

# Records are made with tuple.__new__ on the hot paths: it skips the NamedTuple's
# Python-level __new__, a good share of an event's cost in the simulator.
_new = tuple.__new__

UP = -1  # deal plan entries: a box index, or the dealer's up / hole card
HOLE = -2


class Phase(StrEnum):
    BETTING = "betting"
    DEAL = "deal"
    INSURANCE = "insurance"
    PLAYERS = "player_turns"
    DEALER = "dealer"
    SETTLED = "settled"
    VOIDED = "voided"


# Module-level names for the phases: the hot paths compare against these
# (a global lookup is several times cheaper than an enum attribute).
DEAL, INSURANCE, PLAYERS, DEALER = Phase.DEAL, Phase.INSURANCE, Phase.PLAYERS, Phase.DEALER
SETTLED, VOIDED = Phase.SETTLED, Phase.VOIDED


class Expect(NamedTuple):
    """What the round waits for next (the dealer screen shows this)."""

    what: str  # bet | card | action | insurance | offer | nothing
    box: int = 0
    hand: int = 0
    actions: tuple[str, ...] = ()


class _Undo(NamedTuple):
    """Where the round stood before the last card, for `misdeal_card`."""

    turn: int
    hand_i: int
    entered: int
    phase: Phase


Ops = list[ops.Operation]
_PLANS: dict[tuple[int, bool], tuple[int, ...]] = {}


def _plan(boxes: int, hole_card: bool) -> tuple[int, ...]:
    """Who gets each card of the initial deal: box indexes, the up card, the hole card."""
    plan = _PLANS.get((boxes, hole_card))
    if plan is None:
        order = tuple(range(boxes))
        plan = _PLANS[boxes, hole_card] = order + (UP,) + order + ((HOLE,) if hole_card else ())
    return plan


class Round:
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
        self.undo: _Undo | None = None
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
        if self._hit_refusal(hand) is None:
            acts.append("card")
        for name, check in (
            ("stand", self._stand_refusal),
            ("double", self._double_refusal),
            ("split", self._split_refusal),
            ("surrender", self._surrender_refusal),
        ):
            if check(box, hand) is None:
                acts.append(name)
        return tuple(acts)

    def can(self, action: str) -> bool:
        """Whether the hand in play may `action` now ("card" for a hit): cheap, no raise."""
        if self.phase is not PLAYERS or self.offer_box >= 0:
            return False
        box = self.boxes[self.turn]
        hand = box.hands[self.hand_i]
        if action == "card":
            return self._hit_refusal(hand) is None
        if len(hand.cards) < 2 or hand.doubled:
            return False
        if action == "stand":
            return self._stand_refusal(box, hand) is None
        if action == "double":
            return self._double_refusal(box, hand) is None
        if action == "split":
            return self._split_refusal(box, hand) is None
        if action == "surrender":
            return self._surrender_refusal(box, hand) is None
        return False

    # ------------------------------------------------------------- the cards
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
            reason = self._hit_refusal(hand)
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
                record = _new(CardDealt, (self.number, box.number, 1, card, closed))
            else:
                # self._dealer_add(card), inlined
                self.dealer.append(card)
                hard = self.dealer_hard = self.dealer_hard + value
                if value == 1:
                    self.dealer_aces = True
                self.dealer_total = hard + 10 if self.dealer_aces and hard <= 11 else hard
                record = _new(CardDealt, (self.number, ops.DEALER, 0, card, target == HOLE))
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
                undo = _new(_Undo, (self.turn, self.hand_i, self.entered, phase))
            # 001: the American double's card is dealt face down until the dealer finishes.
            down = hand.doubled and p.double_face_down
            # hand.add(card, down), inlined
            hand.cards.append(card)
            hand.face_down.append(down)
            hard = hand.hard = hand.hard + VALUE[card]
            if card[0] == "A":
                hand.aces = True
            out = [_new(CardDealt, (self.number, box.number, hand.number, card, down))]
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
            out = [_new(CardDealt, (self.number, ops.DEALER, 0, card, False))]
            # Under 17 against a live hand the dealer draws on: the common case, decided here.
            if not (total < 17 and self.live) and not self._dealer_needs_card():
                self._finish(out)
        else:
            self.verify_card(card)  # raises: no card is expected now
            raise AssertionError(f"round {self.number} took a card in {phase.value}")
        self.log.extend(out)
        return out

    def _hit_refusal(self, hand: Hand) -> str | None:
        if hand.split_aces and len(hand.cards) >= 2:
            return "split aces take one card each"
        return None

    def _dealer_add(self, card: str) -> None:
        self.dealer.append(card)
        hard = self.dealer_hard = self.dealer_hard + VALUE[card]
        if card[0] == "A":
            self.dealer_aces = True
        self.dealer_total = hard + 10 if self.dealer_aces and hard <= 11 else hard

    def _after_deal(self, out: Ops) -> None:
        for box in self.boxes:
            hand = box.hands[0]
            if hand.hard == 11 and hand.aces and not hand.hidden:  # a blackjack, face up
                self._blackjack(box, hand, out)
        if self.dealer[0][0] == "A" and self.p.insurance:
            self.phase = INSURANCE
            out.append(_new(ops.InsuranceOffered, (self.number,)))
            return
        self._after_insurance(out)

    def _blackjack(self, box: Box, hand: Hand, out: Ops) -> None:
        hand.done = True
        when = self.p.blackjack_paid_at_once
        hand.paid = when == "always" or (when == "unless_dealer_ace" and self.dealer[0][0] != "A")
        out.append(_new(ops.HandBlackjack, (self.number, box.number, hand.number, hand.paid)))

    def _after_insurance(self, out: Ops) -> None:
        up = self.dealer[0]
        if self.p.peek and (up[0] == "A" or VALUE[up] == 10):
            blackjack = self.dealer_total == 21
            out.append(_new(ops.DealerPeeked, (self.number, blackjack)))
            self.insurance_done = True
            if blackjack:
                self._finish(out)
                return
        self.phase = PLAYERS
        self._advance(out)

    # ------------------------------------------------------------- the turns
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
                    out.append(_new(TurnStarted, (self.number, box.number, hand.number)))
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
            out.append(_new(ops.HandBust, (self.number, box.number, hand.number, hand.hard)))
        elif reason:
            hand.done = True
            total = 0 if hand.hidden else hand.total  # a face-down double shows no total
            out.append(
                _new(ops.HandComplete, (self.number, box.number, hand.number, total, reason))
            )
        elif hand.total == 21:
            hand.done = True
            out.append(_new(ops.HandComplete, (self.number, box.number, hand.number, 21, "21")))
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

    # stand
    def _stand_refusal(self, box: Box, hand: Hand) -> str | None:
        p = self.p
        if p.forced_draw_to:
            total = hand.hard if p.forced_draw_total == "hard" else hand.total
            if total < p.forced_draw_to:
                kind = "a hard total" if p.forced_draw_total == "hard" else "a total"
                return (
                    f"{p.name} makes the box holder draw to {kind} of at least "
                    f"{p.forced_draw_to} (this hand has {total})"
                )
        return None

    def verify_stand(self, box_number: int) -> tuple[Box, Hand]:
        box, hand = self._in_turn(box_number, "stand")
        if self.p.forced_draw_to:  # the only rule that refuses a stand
            reason = self._stand_refusal(box, hand)
            if reason:
                raise IllegalAction(f"box {box_number} cannot stand: {reason}")
        return box, hand

    def stand(self, box_number: int) -> Ops:
        box, hand = self.verify_stand(box_number)
        hand.done = True
        hard = hand.hard
        total = hard + 10 if hand.aces and hard <= 11 else hard
        out: Ops = [_new(Stood, (self.number, box.number, hand.number, total))]
        self._advance(out)
        self.undo = None  # self._done(out), inlined
        self.log.extend(out)
        return out

    # double
    def _double_refusal(self, box: Box, hand: Hand) -> str | None:
        p = self.p
        if len(hand.cards) != 2:
            return "only the first two cards of a hand may double"
        if hand.split_aces:
            return "split aces take one card each"
        if hand.from_split and not p.double_after_split:
            return f"{p.name} does not allow a double after a split"
        if p.double_totals:
            totals = {hand.hard, hand.total}
            if not totals & set(p.double_totals):
                return f"{p.name} allows it only on {p.describe_double()}"
        return None

    def verify_double(self, box_number: int) -> tuple[Box, Hand]:
        box, hand = self._in_turn(box_number, "double")
        reason = self._double_refusal(box, hand)
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
        return self._done([_new(ops.Doubled, (self.number, box.number, hand.number, hand.stake))])

    # split
    def _split_refusal(self, box: Box, hand: Hand) -> str | None:
        p = self.p
        if len(hand.cards) != 2:
            return "only a pair of two cards may split"
        a, b = hand.cards
        if p.split_match == "rank" and a[0] != b[0]:
            return f"{p.name} splits only two cards of the same rank"
        if VALUE[a] != VALUE[b]:
            return "the two cards are not a pair"
        aces = a[0] == "A"
        if aces and hand.split_aces and not p.resplit_aces:
            return f"{p.name} does not allow split aces to split again"
        limit = p.max_ace_hands if aces else p.max_hands
        if len(box.hands) >= limit:
            what = "after splitting aces" if aces else "from splits"
            return f"{p.name} allows at most {limit} hands {what}"
        return None

    def verify_split(self, box_number: int) -> tuple[Box, Hand]:
        box, hand = self._in_turn(box_number, "split")
        reason = self._split_refusal(box, hand)
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
            [_new(ops.Split, (self.number, box.number, hand.number, new.number, moved))]
        )

    # surrender
    def _surrender_refusal(self, box: Box, hand: Hand) -> str | None:
        p = self.p
        if not p.surrender:
            return f"{p.name} has no surrender"
        if len(hand.cards) != 2 or len(box.hands) != 1:
            return "only the first two cards of the box may surrender"
        if not p.surrender_with_ace and hand.aces:
            return f"{p.name} allows it only on two cards without an ace"
        if hand.hard < p.surrender_min_total:
            return f"{p.name} allows it only on a hard total of {p.surrender_min_total} or more"
        if not p.surrender_vs_ace and self.dealer[0][0] == "A":
            return f"{p.name} does not allow it when the dealer shows an ace"
        return None

    def verify_surrender(self, box_number: int) -> tuple[Box, Hand]:
        box, hand = self._in_turn(box_number, "surrender")
        reason = self._surrender_refusal(box, hand)
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

    # --------------------------------------------------------------- insurance
    def _insurance_limit(self, box: Box, player: str) -> tuple[Decimal, Decimal]:
        """(least, most) insurance `player` may hold on `box` now; raises when closed."""
        p = self.p
        if not p.insurance:
            raise IllegalAction(f"{p.name} offers no insurance")
        if not self.dealer or self.dealer[0][0] != "A":
            raise OutOfTurn("insurance is offered only when the dealer's up card is an ace")
        if player not in box.stakes:
            raise IllegalAction(f"{player} has no stake on box {box.number}")
        if self.phase is INSURANCE:
            return ZERO, box.stakes[player] / 2
        if self.phase is PLAYERS and p.insurance_raise and box.doubled_or_split:
            held = box.insurance.get(player, ZERO)
            if not held:
                raise IllegalAction(
                    f"{player} on box {box.number} took no insurance: after a double or split "
                    f"{p.name} allows only raising it"
                )
            return held, box.player_total_stake(player) / 2
        if p.insurance_raise and self.phase is PLAYERS:
            raise OutOfTurn(
                f"insurance is closed; {p.name} reopens it for box {box.number} only after it "
                "doubles or splits"
            )
        raise OutOfTurn("insurance is closed")

    def verify_insurance(self, box_number: int, player: str, amount: Decimal) -> Box:
        box = self.box(box_number)
        least, most = self._insurance_limit(box, player)
        if amount > most:
            raise IllegalAction(
                f"insurance of {amount} for {player} on box {box_number} is more than half "
                f"the stake ({most})"
            )
        if amount < least:
            raise IllegalAction(
                f"insurance for {player} on box {box_number} may only be raised (it is {least})"
            )
        return box

    def insurance(self, box_number: int, player: str, amount: Decimal) -> Ops:
        box = self.verify_insurance(box_number, player, amount)
        if amount:
            box.insurance[player] = amount
        else:
            box.insurance.pop(player, None)
        return self._done([ops.InsurancePlaced(self.number, box.number, player, amount)])

    def verify_close_insurance(self) -> None:
        if self.phase is not INSURANCE:
            raise OutOfTurn("insurance is not open")

    def close_insurance(self) -> Ops:
        self.verify_close_insurance()
        out: Ops = [_new(ops.InsuranceClosed, (self.number,))]
        self._after_insurance(out)
        return self._done(out)

    # ------------------------------------------------------ the mistaken card
    def verify_misdeal_card(self) -> _Undo:
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

    # ------------------------------------------------------------- the dealer
    def _dealer_turn(self, out: Ops) -> None:
        self.phase = DEALER
        number = self.number
        out.append(_new(DealerTurn, (number,)))
        if self.p.hole_card and not self.hole_shown:  # self._show_hole(out), inlined
            self.hole_shown = True
            out.append(_new(CardRevealed, (number, ops.DEALER, 0, 1, self.dealer[1])))
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
            out.append(_new(ops.CardRevealed, (self.number, ops.DEALER, 0, 1, self.dealer[1])))

    def _finish(self, out: Ops) -> None:
        """Turn every hidden card over, then settle."""
        p = self.p
        if p.player_closed_card or p.double_face_down or (p.hole_card and not self.hole_shown):
            self._show_all(out)
        number = self.number
        dealer = self.dealer
        total = self.dealer_total
        out.append(_new(DealerDone, (number, total, len(dealer) == 2 and total == 21, total > 21)))
        self.phase = SETTLED
        self.over = True
        self.undo = None
        self.outcome = outcome = settle(p, number, self.boxes, dealer, total)
        out.append(_new(ops.RoundSettled, (number, outcome)))

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

    # ------------------------------------------------------------------- void
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

    def _done(self, out: Ops) -> Ops:
        """Log the records. Any event after a card ends the chance to call it mistaken."""
        self.undo = None
        self.log.extend(out)
        return out
