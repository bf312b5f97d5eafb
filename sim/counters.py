"""Players of the simulated table who bet by a rule: card counters and flat bettors.

A counter keeps the Hi-Lo count of every card it has seen (all but the burned
ones: at the end of a round every card is face up), estimates the decks left
in the shoe to the half deck, as a player looking at the discard tray does,
and sizes its stake from the true count by a ramp, in table minimums:

    true count      < -1   -1..+1   +1..+2   +2..+3   >= +3
    counter-8         1       2        4        6        8
    counter-12        1       2        4        8       12

(the minimum when the count is bad, a base bet around zero, the ramp as it
rises), and `classic-8`, the textbook ramp that stays at the minimum until +1:
1 below +1, then 2, 4, 6 and 8 from +1, +2, +3, +4. A flat bettor stakes two
minimums every round. Like every bot, the stake is a pure function of the
table's state (the cards out of this shoe), so a restarted simulator bets
exactly as before.
"""

from __future__ import annotations

import math
from decimal import Decimal

from controller.engine import Table
from controller.surveillance.count import count

RAMPS: dict[str, tuple[tuple[float, int], ...]] = {
    # (lowest true count, stake in table minimums), from the lowest count up
    "counter-8": ((-math.inf, 1), (-1.0, 2), (1.0, 4), (2.0, 6), (3.0, 8)),
    "counter-12": ((-math.inf, 1), (-1.0, 2), (1.0, 4), (2.0, 8), (3.0, 12)),
    "classic-8": ((-math.inf, 1), (1.0, 2), (2.0, 4), (3.0, 6), (4.0, 8)),
}
KINDS = (*RAMPS, "flat")


def estimated_true_count(table: Table) -> float:
    """The count a player keeps: seen cards' Hi-Lo over the decks left, to the half deck."""
    c = count(table.shoe, table.burned)
    decks = max(0.5, round(c.decks_left * 2) / 2)
    return c.seen / decks


def units(kind: str, true_count: float) -> int:
    if kind == "flat":
        return 2
    stake = 1
    for lowest, u in RAMPS[kind]:
        if true_count >= lowest:
            stake = u
    return stake


def stake(kind: str, table: Table, known_shoe: bool) -> Decimal:
    """The stake of a `kind` player for the next round. `known_shoe`: the shoe was
    started at this table (a counter cannot count a shoe it came into late: minimum)."""
    tc = estimated_true_count(table) if known_shoe else 0.0
    amount = table.table_min * units(kind, tc)
    amount = min(amount, table.table_max)
    return amount - amount % table.p.bet_multiple
