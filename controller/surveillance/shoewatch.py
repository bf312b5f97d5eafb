"""Shoe integrity: foreign cards, the cards that never came out, the cut card.

- A card the shoe cannot hold (a 7th ace of spades in 6 decks): the engine
  refuses it and the table raises `foreign_card` for the dealer; surveillance
  gets the card, how many of it the shoe holds and how many are out.
- At each new shoe, a report on the shoe that ends: the codes that did not
  come out, as many of each as the count says are left (a full shoe minus
  every card read, burned cards included). That is the stack behind the cut
  card and the discards' complement: surveillance checks it against the
  cards physically left, which is how a missing card shows. A shoe replaced
  before its cut card came out is flagged (`shoe_ended_early`).
- A round begun after the cut card came out is flagged (`past_cut_card`):
  the shoe is dealt past the cut.

A shoe that was already in play when the table's state began (the count of
its earlier cards is unknown) is reported as `known: false` and not judged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.engine.cards import CARD_CODES, card_name
from controller.engine.shoe import ShoeCount


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    message: str
    fields: dict[str, Any]


class ShoeWatch:
    def __init__(self, shoe: ShoeCount, burned: list[str]) -> None:
        self.shoe = shoe
        self.burned = burned
        self.number = 0  # shoes started since the state began (0: the one in play at start)
        self.rounds = 0  # rounds begun on this shoe
        self.past_cut = 0  # of which after the cut card came out
        self.foreign = 0  # foreign cards refused on this shoe

    @property
    def known(self) -> bool:
        return self.number > 0

    def foreign_card(self, card: str) -> Finding:
        self.foreign += 1
        shoe = self.shoe
        out = shoe.seen.get(card, 0)
        return Finding(
            "foreign_card",
            f"the {card_name(card)} came out of shoe {self.number} but the shoe cannot hold it: "
            f"{shoe.decks} decks hold {shoe.decks} and {out} are out already "
            f"({shoe.out} cards out); the card was not dealt",
            {
                "card": card,
                "shoe_holds": shoe.decks,
                "out": out,
                "cards_out": shoe.out,
                "shoe": self.number,
            },
        )

    def bets_closed(self, round_number: int) -> Finding | None:
        self.rounds += 1
        if not self.shoe.cut_reached:
            return None
        self.past_cut += 1
        return Finding(
            "past_cut_card",
            f"round {round_number} began after the cut card came out of shoe {self.number} "
            f"({self.shoe.out} of {self.shoe.size} cards out, the cut at {self.shoe.cut_at}): "
            "the shoe is dealt past the cut card",
            {
                "shoe": self.number,
                "cards_out": self.shoe.out,
                "cut_at": self.shoe.cut_at,
                "rounds_past_cut": self.past_cut,
            },
        )

    def new_shoe(self, shoe: ShoeCount, burned: list[str]) -> tuple[dict[str, Any], list[Finding]]:
        """A new shoe replaced the watched one: the report on the old one, and its findings."""
        old = self.shoe
        left = old.remaining()
        report: dict[str, Any] = {
            "shoe": self.number,
            "known": self.known,
            "size": old.size,
            "cards_out": old.out,
            "burned": len(self.burned),
            "rounds": self.rounds,
            "rounds_past_cut": self.past_cut,
            "cut_at": old.cut_at,
            "cut_card_reached": old.cut_reached,
            "foreign_cards": self.foreign,
            "not_out_count": old.size - old.out if self.known else None,
            "not_out": {c: left[c] for c in CARD_CODES if left[c]} if self.known else None,
        }
        findings = []
        if self.known and old.cut_at is not None and not old.cut_reached and self.rounds:
            findings.append(
                Finding(
                    "shoe_ended_early",
                    f"shoe {self.number} was replaced before its cut card came out "
                    f"({old.out} of {old.size} cards out, the cut at {old.cut_at})",
                    {"shoe": self.number, "cards_out": old.out, "cut_at": old.cut_at},
                )
            )
        self.shoe, self.burned = shoe, burned
        self.number += 1
        self.rounds = self.past_cut = self.foreign = 0
        return report, findings
