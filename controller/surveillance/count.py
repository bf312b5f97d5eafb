"""The Hi-Lo count of the shoe, from the engine's own count of the cards out.

Two running counts: `running` over every card out of the shoe (surveillance
knows the burned cards), and `seen` over the cards a player at the table can
have seen (every card but the burned ones: at the end of a round every other
card is face up). Bets are placed between rounds, so the count that a
counter's bets could follow is `seen`, divided by the decks left in the
shoe: the true count. Decks left count the burned cards as out (a player
sees the discard tray grow).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from controller.engine.shoe import ShoeCount

# Hi-Lo tags by rank: 2-6 +1, 7-9 0, ten-value cards and aces -1.
HI_LO = {
    "2": 1,
    "3": 1,
    "4": 1,
    "5": 1,
    "6": 1,
    "7": 0,
    "8": 0,
    "9": 0,
    "T": -1,
    "J": -1,
    "Q": -1,
    "K": -1,
    "A": -1,
}


def tag(card: str) -> int:
    return HI_LO[card[0]]


@dataclass(frozen=True, slots=True)
class Count:
    cards_out: int
    size: int
    running: int  # every card out, burned ones included
    seen: int  # cards a player can have seen (burned cards excluded)

    @property
    def decks_left(self) -> float:
        return (self.size - self.cards_out) / 52

    @property
    def true_count(self) -> float | None:
        """The players' running count per deck left (None: the shoe is empty)."""
        left = self.decks_left
        return self.seen / left if left > 0 else None

    def json(self) -> dict[str, object]:
        tc = self.true_count
        return {
            "cards_out": self.cards_out,
            "size": self.size,
            "decks_left": round(self.decks_left, 3),
            "running": self.running,
            "running_seen": self.seen,
            "true_count": None if tc is None else round(tc, 3),
        }


def count(shoe: ShoeCount, burned: Iterable[str]) -> Count:
    running = sum(tag(code) * n for code, n in shoe.seen.items())
    hidden = sum(tag(code) for code in burned)
    return Count(shoe.out, shoe.size, running, running - hidden)
