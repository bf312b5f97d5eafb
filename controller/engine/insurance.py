"""Insurance: taken while it is open, raised after a double or split where the profile allows."""

from __future__ import annotations

from decimal import Decimal

from . import ops
from .decisions import Decisions
from .errors import IllegalAction, OutOfTurn
from .hand import Box
from .money import ZERO
from .ops import Ops
from .phase import INSURANCE, PLAYERS
from .round_state import make_record


# One base each, layer on layer (not mixins side by side): the compiled engine
# (sim/native.py) allows a class one base only.
class InsuranceBets(Decisions):
    __slots__ = ()

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
        out: Ops = [make_record(ops.InsuranceClosed, (self.number,))]
        self._after_insurance(out)
        return self._done(out)
