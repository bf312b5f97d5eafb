"""The bet watch fed from the table: engine operations in, integrity alerts out.

`controller.bet_watch` is pure and knows nothing of the engine; this module
tells it what happened in the round, from the operations the engine
returned and the table it changed (read-only):

- `BetsClosed`: the stakes the engine closed on, per spot;
- after every event in a round: which box is in play and whether a double
  or split may still come there (`table.expecting()`);
- `Doubled` / `Split`: the dealer confirmed more chips: the box's totals;
- a hand bust, surrendered or a blackjack paid at once: the dealer settles
  that box now, so its chips move (after a split a busted hand's chips are
  collected too, so the whole box is released: weaker watching of that box
  for the rest of the round, never a false alert). Read from the round's
  state after every event, so a bust undone by `misdeal_card` (the card
  was a mistake) puts the box back under watch;
- `RoundSettled` / `RoundVoided`: bets are open again.

It is fed only from journaled records and the engine's deterministic
answers, so replaying the journal rebuilds it exactly.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from controller.bet_watch import BetAlert, BetWatch
from controller.engine import Table, ops
from controller.engine.money import fmt
from drivers.interfaces import BetSeen


def spot_of(player: str) -> int:
    """The betting spot of a player id (`box3` -> 0, `box3/2` -> 2)."""
    return int(player.rsplit("/", 1)[1]) if "/" in player else 0


class BetDesk:
    def __init__(self, table: Table, tolerance: Decimal = Decimal(0)) -> None:
        self.table = table
        self.watch = BetWatch(tolerance=tolerance)

    def sensed(self, seen: BetSeen) -> tuple[bool, list[BetAlert]]:
        """(hand the reading to the engine as a bet?, alerts)."""
        verdict = self.watch.sensed_bet(seen.box, seen.spot, seen.amount)
        return verdict.forward, list(verdict.alerts)

    def observe(self, operations: Iterable[ops.Operation]) -> list[BetAlert]:
        alerts: list[BetAlert] = []
        w = self.watch
        r = self.table.round
        for op in operations:
            if isinstance(op, ops.BetsClosed) and r is not None:
                stakes = {
                    (box.number, spot_of(p)): amount
                    for box in r.boxes
                    for p, amount in box.stakes.items()
                }
                alerts += w.close(stakes)
            elif isinstance(op, ops.Doubled | ops.Split) and r is not None:
                box = next(b for b in r.boxes if b.number == op.box)
                totals = {spot_of(p): box.player_total_stake(p) for p in box.stakes}
                alerts += w.committed(op.box, totals)
            elif isinstance(op, ops.RoundSettled | ops.RoundVoided):
                w.settle()
        if not w.open and r is not None:
            for box in r.boxes:
                if any(h.hard > 21 or h.surrendered or h.paid for h in box.hands):
                    w.release(box.number)
                else:
                    w.restore(box.number)
            e = self.table.expecting()
            may_add = e.what == "action" and ("double" in e.actions or "split" in e.actions)
            alerts += w.turn(e.box if e.what == "action" else None, may_add)
        return alerts


def describe(alert: BetAlert) -> tuple[str, dict[str, Any]]:
    """The alert's message, and its extra fields for the `alerts` topic."""
    who = f"box {alert.box}" if alert.spot == 0 else f"box {alert.box}, spot {alert.spot}"
    if alert.kind == "late_bet":
        text = (
            f"{fmt(alert.amount)} added to {who} after no more bets (stake "
            f"{fmt(alert.stake)}, on the spot {fmt(alert.sensed)}): past-posting? "
            f"The table keeps the stake of {fmt(alert.stake)}"
        )
    else:
        text = (
            f"{fmt(alert.amount)} taken from {who} before the settlement (stake "
            f"{fmt(alert.stake)}, on the spot {fmt(alert.sensed)}): pinching? "
            f"The table keeps the stake of {fmt(alert.stake)}"
        )
    extra = {
        "spot": alert.spot,
        "amount": fmt(alert.amount),
        "stake": fmt(alert.stake),
        "sensed": fmt(alert.sensed),
    }
    return text, extra
