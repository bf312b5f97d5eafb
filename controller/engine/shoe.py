"""The shoe as the engine sees it: what may still come out of it.

The engine never knows the order of the cards (the camera reads them as they
come); it knows how many of each the shoe started with, so a card it cannot
hold is refused ("the 7th ace of spades in a 6-deck shoe"), and how far the
shoe is dealt. The simulator's virtual shoe, which does know the order, is in
`sim/`.
"""

from __future__ import annotations

from decimal import Decimal

from .cards import CARD_CODES, card_name
from .errors import ShoeError
from .ops import CutCardReached


class ShoeCount:
    __slots__ = ("cut_at", "cut_reached", "decks", "out", "seen", "size")

    def __init__(self, decks: int, penetration: Decimal | None) -> None:
        self.decks = decks
        self.size = decks * 52
        self.seen: dict[str, int] = {}
        self.out = 0
        # Where the cut card sits; unknown for a shoe already in play at start.
        self.cut_at = None if penetration is None else int(self.size * penetration)
        self.cut_reached = False

    def verify(self, card: str) -> None:
        if self.seen.get(card, 0) >= self.decks:
            raise ShoeError(
                f"the {card_name(card)} cannot come out again: a {self.decks}-deck shoe holds "
                f"{self.decks} and all of them are out"
            )

    def take(self, card: str) -> CutCardReached | None:
        seen = self.seen
        seen[card] = seen.get(card, 0) + 1
        self.out += 1
        if self.cut_at is not None and not self.cut_reached and self.out >= self.cut_at:
            self.cut_reached = True
            return CutCardReached(self.out)
        return None

    def remaining(self) -> dict[str, int]:
        """Cards of each code still in the shoe (surveillance only: it is the count)."""
        return {c: self.decks - self.seen.get(c, 0) for c in CARD_CODES}

    @property
    def progress(self) -> float:
        """Share of the shoe dealt (a display figure, not money)."""
        return self.out / self.size
