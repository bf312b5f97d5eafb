"""The table: a shoe, the bets on the layout, and one round after another.

`Table` is the engine's front door: the service, `croupier replay` and the
simulator all drive it, with the typed methods (verify_x / can_x / x) or with
`apply(event)`. Between rounds it takes bets, new shoes and burns; during a
round it hands events to the `Round` state machine. Every method either
raises a `TableError` having changed nothing, or applies the event and
returns its operation records.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Final, NoReturn

from . import events as ev
from . import ops
from .cards import card_name
from .errors import BetRefused, IllegalAction, OutOfTurn, ShoeError, TableError
from .money import ZERO, fmt
from .ops import Ops
from .phase import Expect, Phase
from .profile import RuleProfile
from .round import Round
from .shoe import ShoeCount

_new: Final = tuple.__new__  # records made without the Python-level __new__ (see round.py)
_HOLDER: Final = [f"box{n}" for n in range(10)]  # the box holder's player id per box
_NO_BETS: Final[dict[str, Decimal]] = {}


class Table:
    def __init__(self, profile: RuleProfile, boxes: int | None = None) -> None:
        boxes = profile.boxes if boxes is None else boxes
        if not max(1, profile.min_boxes) <= boxes <= 9:
            raise IllegalAction(
                f"a {profile.name} table needs between {profile.min_boxes} and 9 boxes, not {boxes}"
            )
        self.p = profile
        self.boxes = boxes
        self.table_min = profile.table_min
        self.table_max = profile.table_max
        # A table starts on a shoe already in play: its cut card position is unknown.
        self.shoe = ShoeCount(profile.decks, None)
        self.burns_due = 0
        self.burned: list[str] = []
        self.bets: dict[int, dict[str, Decimal]] = {}
        self.round: Round | None = None
        self.rounds = 0

    # ------------------------------------------------------------------ views
    @property
    def phase(self) -> Phase:
        r = self.round
        return Phase.BETTING if r is None or r.over else r.phase

    def expecting(self) -> Expect:
        r = self.round
        if r is None or r.over:
            return Expect("burn" if self.burns_due else "bet")
        return r.expecting()

    def _betting(self, what: str) -> None:
        if self.phase is not Phase.BETTING:
            raise OutOfTurn(f"cannot {what} now: round {self.rounds} is in {self.phase.value}")

    def _in_round(self, what: str) -> Round:
        r = self.round
        if r is None or r.over:
            raise OutOfTurn(f"cannot {what} now: no round is in play (bets are open)")
        return r

    # --------------------------------------------------------------- the shoe
    def verify_new_shoe(self) -> None:
        self._betting("start a new shoe")

    def new_shoe(self) -> Ops:
        self.verify_new_shoe()
        self.shoe = ShoeCount(self.p.decks, self.p.penetration)
        self.burns_due = self.p.burn
        self.burned = []
        return [ops.ShoeStarted(self.p.decks, self.shoe.size, self.p.burn)]

    def verify_burn(self, card: str) -> None:
        self._betting("burn a card")
        if not self.burns_due:
            if self.p.burn:
                raise ShoeError(
                    f"{self.p.name} burns {self.p.burn} cards after the cut, and they are out"
                )
            raise ShoeError(f"{self.p.name} burns no card after the cut")
        self.shoe.verify(card)

    def burn(self, card: str) -> Ops:
        self.verify_burn(card)
        self.burns_due -= 1
        self.burned.append(card)
        out: Ops = [ops.CardBurned(card, len(self.burned), self.p.burn)]
        cut = self.shoe.take(card)
        if cut:
            out.append(cut)
        return out

    # ---------------------------------------------------------------- betting
    def verify_bet(self, box: int, player: str, amount: Decimal) -> None:
        r = self.round
        if r is not None and not r.over:
            self._betting("take bets")  # raises
        p = self.p
        if not 1 <= box <= self.boxes:
            raise BetRefused(f"there is no box {box}: this table has boxes 1 to {self.boxes}")
        holder = _HOLDER[box]
        stakes = self.bets.get(box, _NO_BETS)
        if amount == 0:
            if player not in stakes:
                raise BetRefused(f"{player} has no bet on box {box} to take back")
            if player == holder and len(stakes) > 1:
                raise BetRefused(
                    f"box {box} has bets behind: they come off before the box holder's"
                )
            return
        if player != holder:
            if player.startswith("box") and player[3:].isdigit():
                raise BetRefused(
                    f"{player} names a box holder; a player betting behind needs another name"
                )
            if not p.bets_behind:
                raise BetRefused(
                    f"{p.name} has no bets behind: only the box holder bets on box {box}"
                )
            if holder not in stakes:
                raise BetRefused(f"box {box} has no box holder's stake to bet behind")
            limit = p.max_players_per_box
            if limit and player not in stakes and len(stakes) >= limit:
                raise BetRefused(f"box {box} already has {limit} players, the most {p.name} allows")
        if amount % p.bet_multiple:
            raise BetRefused(f"a stake of {fmt(amount)} is not a multiple of {fmt(p.bet_multiple)}")
        if amount < self.table_min:
            raise BetRefused(
                f"a stake of {fmt(amount)} is below the table minimum of {fmt(self.table_min)}"
            )
        total = amount
        for who, staked in stakes.items():
            if who != player:
                total += staked
        if total > self.table_max:
            raise BetRefused(
                f"box {box} would hold {fmt(total)}, "
                f"over the table maximum of {fmt(self.table_max)}"
            )

    def bet(self, box: int, player: str, amount: Decimal) -> Ops:
        self.verify_bet(box, player, amount)
        if amount == 0:
            del self.bets[box][player]
            if not self.bets[box]:
                del self.bets[box]
            return [ops.BetRemoved(box, player)]
        self.bets.setdefault(box, {})[player] = amount
        return [_new(ops.BetPlaced, (box, player, amount))]

    def verify_close_bets(self) -> list[tuple[int, dict[str, Decimal]]]:
        """The boxes the deal would go to, in order, each with its stakes."""
        r = self.round
        if r is not None and not r.over:
            self._betting("close bets")  # raises
        p = self.p
        if self.burns_due:
            raise ShoeError(
                f"{self.burns_due} more card(s) must be burned first: "
                f"{p.name} burns {p.burn} after the cut"
            )
        bets = self.bets
        occupied = []
        over = None
        for b in sorted(bets) if len(bets) > 1 else bets:
            stakes = bets[b]
            stake = stakes.get(_HOLDER[b])
            if stake is None:
                continue  # only bets behind: no box holder, no hand
            occupied.append((b, stakes))
            total = sum(stakes.values(), ZERO) if len(stakes) > 1 else stake
            if over is None and total > self.table_max:  # a carried push can outgrow a limit
                over = (b, total)
        need = p.min_boxes or 1
        if len(occupied) < need:
            raise BetRefused(
                f"{p.name} needs at least {need} boxes with a stake before the deal "
                f"({len(occupied)} has one)"
                if need > 1
                else "no box has a stake"
            )
        if over is not None:
            raise BetRefused(
                f"box {over[0]} holds {fmt(over[1])}, "
                f"over the table maximum of {fmt(self.table_max)}"
            )
        return occupied

    def close_bets(self) -> Ops:
        occupied = self.verify_close_bets()
        self.rounds = number = self.rounds + 1
        # The stake dicts move into the round: the layout starts empty again.
        self.round = r = Round(self.p, number, occupied)
        self.bets = {}
        # One box: no comprehension (it is a function call of its own).
        numbers = (occupied[0][0],) if len(occupied) == 1 else tuple([b for b, _ in occupied])
        record = _new(ops.BetsClosed, (number, numbers))
        r.log.append(record)
        return [record]

    # ----------------------------------------------------------------- cards
    def verify_card(self, card: str) -> None:
        r = self.round
        if r is None or r.over:
            raise OutOfTurn(
                f"no card is expected: bets are open (the {card_name(card)} was not dealt)"
            )
        self.shoe.verify(card)
        r.verify_card(card)

    def card(self, card: str) -> Ops:
        r = self.round
        if r is None or r.over:
            self._no_card(card)
        shoe = self.shoe
        seen = shoe.seen
        n = seen.get(card, 0)
        if n >= shoe.decks:
            shoe.verify(card)  # raises: the shoe cannot hold it
        out = r.card(card)  # verifies its own part before it changes anything
        seen[card] = n + 1
        shoe.out = dealt = shoe.out + 1
        # One card at a time: the count passes the cut card's place exactly once.
        if dealt == shoe.cut_at:
            shoe.cut_reached = True
            out = [ops.CutCardReached(dealt), *out]
        if r.over:
            self._after_round(r)
        return out

    def _no_card(self, card: str) -> NoReturn:
        self.verify_card(card)
        raise AssertionError("verify_card accepted a card with no round in play")

    # -------------------------------------------------------------- decisions
    def verify_action(self, box: int, action: str) -> None:
        r = self._in_round(action.replace("_", " "))
        _VERIFY[action](r, box)

    def can_action(self, box: int, action: str) -> bool:
        try:
            self.verify_action(box, action)
        except TableError:
            return False
        return True

    def action(self, box: int, action: str) -> Ops:
        r = self.round
        if r is None or r.over:
            r = self._in_round(action.replace("_", " "))  # raises
        out = _APPLY[action](r, box)
        if r.over:
            self._after_round(r)
        return out

    def stand(self, box: int) -> Ops:
        return self.action(box, "stand")

    def double(self, box: int) -> Ops:
        return self.action(box, "double")

    def split(self, box: int) -> Ops:
        return self.action(box, "split")

    def surrender(self, box: int) -> Ops:
        return self.action(box, "surrender")

    def insurance(self, box: int, player: str, amount: Decimal) -> Ops:
        return self._in_round("take insurance").insurance(box, player, amount)

    def verify_insurance(self, box: int, player: str, amount: Decimal) -> None:
        self._in_round("take insurance").verify_insurance(box, player, amount)

    def close_insurance(self) -> Ops:
        r = self._in_round("close insurance")
        out = r.close_insurance()
        if r.over:
            self._after_round(r)
        return out

    def misdeal_card(self) -> Ops:
        return self._in_round("call a mistaken card").misdeal_card()

    def verify_void(self) -> None:
        self._in_round("void a round").verify_void()

    def void(self, reason: str) -> Ops:
        r = self._in_round("void a round")
        out = r.void(reason)
        self._after_round(r)
        return out

    def _after_round(self, r: Round) -> None:
        # A pushed stake that stays on the layout is the box's next bet (000).
        outcome = r.outcome
        if outcome is not None and outcome.carried:
            for (box, player), amount in outcome.carried.items():
                self.bets.setdefault(box, {})[player] = amount

    # ------------------------------------------------------------- by event
    def apply(self, event: ev.Event) -> Ops:
        """Apply one parsed event (see `events.parse_event`)."""
        match event:
            case ev.Card(card):
                return self.card(card)
            case ev.Action(box, action):
                return self.action(box, action)
            case ev.Bet(box, player, amount):
                return self.bet(box, player, amount)
            case ev.CloseBets():
                return self.close_bets()
            case ev.Insurance(box, player, amount):
                return self.insurance(box, player, amount)
            case ev.CloseInsurance():
                return self.close_insurance()
            case ev.Burn(card):
                return self.burn(card)
            case ev.NewShoe(rules, boxes):
                self._check_shoe_line(rules, boxes)
                return self.new_shoe()
            case ev.MisdealCard():
                return self.misdeal_card()
            case ev.Void(reason):
                return self.void(reason)
        raise TypeError(f"not an event: {event!r}")

    def verify(self, event: ev.Event) -> None:
        """Raise the refusal `apply(event)` would raise, without applying anything."""
        match event:
            case ev.Card(card):
                self.verify_card(card)
            case ev.Action(box, action):
                self.verify_action(box, action)
            case ev.Bet(box, player, amount):
                self.verify_bet(box, player, amount)
            case ev.CloseBets():
                self.verify_close_bets()
            case ev.Insurance(box, player, amount):
                self.verify_insurance(box, player, amount)
            case ev.CloseInsurance():
                self._in_round("close insurance").verify_close_insurance()
            case ev.Burn(card):
                self.verify_burn(card)
            case ev.NewShoe(rules, boxes):
                self._check_shoe_line(rules, boxes)
                self.verify_new_shoe()
            case ev.MisdealCard():
                self._in_round("call a mistaken card").verify_misdeal_card()
            case ev.Void():
                self.verify_void()

    def can(self, event: ev.Event) -> bool:
        """Whether `apply(event)` would be accepted now."""
        try:
            self.verify(event)
        except TableError:
            return False
        return True

    def _check_shoe_line(self, rules: str | None, boxes: int | None) -> None:
        if rules is not None and rules != self.p.name:
            raise IllegalAction(
                f"this table runs {self.p.name}; a new shoe cannot change the rules to {rules}"
            )
        if boxes is not None and boxes != self.boxes:
            raise IllegalAction(
                f"this table has {self.boxes} boxes; a new shoe cannot change that to {boxes}"
            )


# action name -> Round method; the names are the round script's `action` values.
_VERIFY: dict[str, Callable[[Round, int], object]] = {
    "stand": Round.verify_stand,
    "double": Round.verify_double,
    "split": Round.verify_split,
    "surrender": Round.verify_surrender,
    "take_card": Round.verify_take_card,
    "refuse_card": Round.verify_refuse_card,
}
_APPLY: dict[str, Callable[[Round, int], Ops]] = {
    "stand": Round.stand,
    "double": Round.double,
    "split": Round.split,
    "surrender": Round.surrender,
    "take_card": Round.take_card,
    "refuse_card": Round.refuse_card,
}
