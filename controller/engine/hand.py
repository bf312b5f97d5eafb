"""Hands and boxes as the table sees them."""

from __future__ import annotations

from decimal import Decimal

from .cards import VALUE


class Hand:
    """One hand of a box. `stakes` holds each player's share of its stake.

    Totals are kept incrementally (hard total with aces as 1, plus whether an
    ace is present) because the simulator asks for them millions of times.
    """

    __slots__ = (
        "aces",
        "base",
        "cards",
        "done",
        "doubled",
        "face_down",
        "from_split",
        "hard",
        "number",
        "paid",
        "split_aces",
        "stakes",
        "surrendered",
    )

    def __init__(self, number: int, stakes: dict[str, Decimal], from_split: bool = False) -> None:
        self.number = number  # 1-based, as the dealer says it
        self.cards: list[str] = []
        self.face_down: list[bool] = []
        self.hard = 0
        self.aces = False
        self.stakes = stakes
        self.base: dict[str, Decimal] | None = None  # each player's share before a double
        self.doubled = False
        self.from_split = from_split
        self.split_aces = False
        self.surrendered = False
        self.paid = False  # a blackjack paid before the dealer played
        self.done = False

    def add(self, card: str, face_down: bool = False) -> None:
        self.cards.append(card)
        self.face_down.append(face_down)
        self.hard += VALUE[card]
        if card[0] == "A":
            self.aces = True

    def recount(self) -> None:
        self.hard = sum(VALUE[c] for c in self.cards)
        self.aces = any(c[0] == "A" for c in self.cards)

    @property
    def total(self) -> int:
        hard = self.hard
        return hard + 10 if self.aces and hard <= 11 else hard

    @property
    def soft(self) -> bool:
        return self.aces and self.hard <= 11

    @property
    def bust(self) -> bool:
        return self.hard > 21

    @property
    def blackjack(self) -> bool:
        # A+10 after a split is 21, not blackjack (000, 002, 003).
        return len(self.cards) == 2 and self.aces and self.hard == 11 and not self.from_split

    @property
    def stake(self) -> Decimal:
        stakes = self.stakes
        if len(stakes) == 1:
            for amount in stakes.values():
                return amount
        return sum(stakes.values(), Decimal(0))

    @property
    def hidden(self) -> bool:
        return True in self.face_down


class Box:
    """A betting box in play this round: its players' stakes and its hands."""

    __slots__ = ("doubled_or_split", "hands", "insurance", "number", "stakes")

    def __init__(self, number: int, stakes: dict[str, Decimal]) -> None:
        self.number = number
        self.stakes = stakes  # player -> original stake; the holder first
        self.hands = [Hand(1, dict(stakes))]
        self.insurance: dict[str, Decimal] = {}
        self.doubled_or_split = False

    @property
    def holder(self) -> str:
        return f"box{self.number}"

    def player_total_stake(self, player: str) -> Decimal:
        return sum((h.stakes.get(player, Decimal(0)) for h in self.hands), Decimal(0))
