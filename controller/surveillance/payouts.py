"""The payout check: after the settlement, the chips on each spot against stake + result.

When a round settles, every betting spot should end up holding its player's
whole stake plus the hands' result (insurance has its own spot and is not
checked here): a win doubles the chips, a blackjack adds 3:2, a loss leaves
nothing, a surrender half, a push the stake. The spot's sensor shows where
the dealer started from (`held`, its last reading):

- `held` already equals the expected amount: nothing for the dealer to do
  (a push; a hand the dealer settled during the round, a bust collected at
  once, a blackjack paid at once);
- `held` is the whole stake: the dealer must pay or collect, and the spot
  is *pending*;
- anything else (the chips of a split hand lie beside the spot, the spot
  was pinched): the spot is not checked (`unchecked`).

The dealer settles the table before the players touch their chips (the
house procedure), one spot after the other: the first reading on a pending
spot is the dealer's settlement of it, and is judged. A reading on any other
spot (a player taking winnings, betting again, a push picked up) means the
dealer has finished: pending spots the dealer never touched are judged then,
on what they hold (a loser's chips left, a winner not paid); so are spots
still pending when the next round's bets close. A judged amount differing
from the expected one by more than the tolerance raises `payout_error` with
the difference (+: the player got more than due, -: less): the dealer
overpaid, underpaid, or did not collect a losing stake.

Pure: readings and settlements in, errors out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from controller.engine.money import fmt

Spot = tuple[int, int]  # (box, spot): spot 0 the box holder, 1.. players betting behind
ZERO = Decimal(0)


def spot_of(player: str) -> int:
    """The betting spot of a player id (`box3` -> 0, `box3/2` -> 2)."""
    return int(player.rsplit("/", 1)[1]) if "/" in player else 0


@dataclass(frozen=True, slots=True)
class Due:
    """What a spot should hold after the settlement."""

    round: int
    player: str
    stake: Decimal  # the player's whole stake on the box (doubles and splits included)
    net: Decimal  # the hands' result for the player (insurance not included)

    @property
    def expected(self) -> Decimal:
        return self.stake + self.net


def dues(outcome: Any) -> dict[Spot, Due]:
    """Each spot's due from a settled or voided round's outcome (engine.outcome.Outcome)."""
    out: dict[Spot, Due] = {}
    for box in outcome.boxes:
        for player in box.players:
            net = sum((h.nets.get(player.player, ZERO) for h in box.hands), ZERO)
            out[box.box, spot_of(player.player)] = Due(
                outcome.round, player.player, player.stake, net
            )
    return out


@dataclass(frozen=True, slots=True)
class PayoutError:
    round: int
    box: int
    spot: int
    player: str
    stake: Decimal
    net: Decimal
    expected: Decimal
    sensed: Decimal

    @property
    def difference(self) -> Decimal:
        """+: the player holds more than due; -: less."""
        return self.sensed - self.expected

    @property
    def what(self) -> str:
        if self.net < 0 and self.sensed >= self.stake:
            return "not_collected"
        if self.net < 0:
            return "collected_wrong" if self.difference < 0 else "not_collected"
        if self.net == 0:
            return "overpaid" if self.difference > 0 else "underpaid"
        if self.sensed <= self.stake:
            return "not_paid"
        return "overpaid" if self.difference > 0 else "underpaid"

    def message(self) -> str:
        who = f"box {self.box}" if self.spot == 0 else f"box {self.box}, spot {self.spot}"
        diff = self.difference
        sign = "+" if diff > 0 else "-"
        text = {
            "overpaid": "the dealer overpaid",
            "underpaid": "the dealer underpaid",
            "not_paid": "the dealer did not pay",
            "not_collected": "the dealer did not collect the losing stake",
            "collected_wrong": "the dealer took more than the hand lost",
        }[self.what]
        return (
            f"{who}, round {self.round}: {text}: the spot holds {fmt(self.sensed)}, "
            f"stake {fmt(self.stake)} + result {fmt(self.net)} = {fmt(self.expected)} "
            f"({sign}{fmt(abs(diff))})"
        )

    def json(self) -> dict[str, Any]:
        return {
            "spot": self.spot,
            "player": self.player,
            "what": self.what,
            "stake": fmt(self.stake),
            "result": fmt(self.net),
            "expected": fmt(self.expected),
            "sensed": fmt(self.sensed),
            "difference": fmt(self.difference),
        }


@dataclass
class _Pending:
    due: Due
    last: Decimal  # what the spot holds


@dataclass
class PayoutCheck:
    tolerance: Decimal = ZERO
    sensed: dict[Spot, Decimal] = field(default_factory=dict)
    pending: dict[Spot, _Pending] = field(default_factory=dict)
    checked: int = 0  # spots judged
    unchecked: int = 0  # spots the sensors could not judge (chips beside the spot)

    def reading(self, box: int, spot: int, amount: Decimal) -> list[PayoutError]:
        """A stake spot's sensor settled on `amount`."""
        key = (box, spot)
        self.sensed[key] = amount
        p = self.pending.pop(key, None)
        if p is not None:
            p.last = amount  # the dealer's settlement of this spot
            return self._judge(key, p)
        # Chips moved on a spot the dealer had nothing (more) to do on: a player's move,
        # so the dealer has finished settling the table. Spots left are judged as they are.
        errors: list[PayoutError] = []
        for other, q in sorted(self.pending.items()):
            del self.pending[other]
            errors += self._judge(other, q)
        return errors

    def settled(self, outcome: Any) -> list[PayoutError]:
        """A round settled (or was voided): the spots the dealer must now settle.
        Anything still pending from an earlier round is judged first."""
        errors = self.close()
        for key, due in sorted(dues(outcome).items()):
            held = self.sensed.get(key)
            if held is None:
                self.unchecked += 1
            elif abs(held - due.expected) <= self.tolerance:
                self.checked += 1  # nothing to do: a push, or settled during the round
            elif held == due.stake:
                self.pending[key] = _Pending(due, held)
            else:
                self.unchecked += 1
        return errors

    def close(self) -> list[PayoutError]:
        """Bets closed for the next round: judge every spot still pending on its chips."""
        errors: list[PayoutError] = []
        for key, p in sorted(self.pending.items()):
            errors += self._judge(key, p)
        self.pending = {}
        return errors

    def _judge(self, key: Spot, p: _Pending) -> list[PayoutError]:
        self.checked += 1
        due = p.due
        if abs(p.last - due.expected) <= self.tolerance:
            return []
        return [
            PayoutError(
                due.round, key[0], key[1], due.player, due.stake, due.net, due.expected, p.last
            )
        ]

    def waiting(self) -> Iterable[Spot]:
        return sorted(self.pending)
