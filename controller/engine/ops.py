"""Operation records: the facts an applied event produced.

Each is an immutable tuple (NamedTuple: cheap to make, which matters in the
simulator's hot loop). The list of them is the round's log; the service
journals and publishes it as the `events` stream. `kind` names the record on
the wire (`kind(op)`). Card fields of records flagged `face_down` are hidden information:
publishers must not show them before the matching `CardRevealed`.

`box` 0 means the dealer wherever a record can concern either.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Final, NamedTuple

DEALER: Final = 0


class ShoeStarted(NamedTuple):
    decks: int
    cards: int
    burn: int


class CardBurned(NamedTuple):
    card: str
    burned: int
    due: int


class BetPlaced(NamedTuple):
    box: int
    player: str
    amount: Decimal


class BetRemoved(NamedTuple):
    box: int
    player: str


class BetsClosed(NamedTuple):
    round: int
    boxes: tuple[int, ...]


class CardDealt(NamedTuple):
    """A card to a player's hand (box >= 1) or to the dealer (box 0, hand 0)."""

    round: int
    box: int
    hand: int
    card: str
    face_down: bool


class CardRevealed(NamedTuple):
    round: int
    box: int
    hand: int
    position: int  # the card's place in its hand, from 0
    card: str


class CutCardReached(NamedTuple):
    cards_out: int


class InsuranceOffered(NamedTuple):
    round: int


class InsurancePlaced(NamedTuple):
    round: int
    box: int
    player: str
    amount: Decimal


class InsuranceClosed(NamedTuple):
    round: int


class DealerPeeked(NamedTuple):
    round: int
    blackjack: bool


class TurnStarted(NamedTuple):
    round: int
    box: int
    hand: int


class Stood(NamedTuple):
    round: int
    box: int
    hand: int
    total: int


class Doubled(NamedTuple):
    round: int
    box: int
    hand: int
    stake: Decimal


class Split(NamedTuple):
    round: int
    box: int
    hand: int
    new_hand: int
    card: str


class Surrendered(NamedTuple):
    round: int
    box: int
    hand: int


class HandBlackjack(NamedTuple):
    round: int
    box: int
    hand: int
    paid_at_once: bool


class HandBust(NamedTuple):
    round: int
    box: int
    hand: int
    total: int


class HandComplete(NamedTuple):
    """A hand ended by itself: 21, a double's card, a split ace's card."""

    round: int
    box: int
    hand: int
    total: int
    reason: str


class MistakenCard(NamedTuple):
    round: int
    box: int
    hand: int
    card: str


class CardOffered(NamedTuple):
    round: int
    box: int
    card: str


class CardTaken(NamedTuple):
    round: int
    box: int
    hand: int
    card: str


class CardRefused(NamedTuple):
    round: int
    box: int
    card: str


class CardDiscarded(NamedTuple):
    round: int
    card: str


class DealerTurn(NamedTuple):
    round: int


class DealerDone(NamedTuple):
    round: int
    total: int
    blackjack: bool
    bust: bool


class RoundSettled(NamedTuple):
    round: int
    outcome: Any  # controller.engine.outcome.Outcome (Any: avoids an import cycle)


class RoundVoided(NamedTuple):
    round: int
    reason: str
    outcome: Any


Operation = (
    ShoeStarted
    | CardBurned
    | BetPlaced
    | BetRemoved
    | BetsClosed
    | CardDealt
    | CardRevealed
    | CutCardReached
    | InsuranceOffered
    | InsurancePlaced
    | InsuranceClosed
    | DealerPeeked
    | TurnStarted
    | Stood
    | Doubled
    | Split
    | Surrendered
    | HandBlackjack
    | HandBust
    | HandComplete
    | MistakenCard
    | CardOffered
    | CardTaken
    | CardRefused
    | CardDiscarded
    | DealerTurn
    | DealerDone
    | RoundSettled
    | RoundVoided
)
Ops = list[Operation]  # what an applied event returns, in order


# Each record's name on the wire (the `type` of an `events` message).
KINDS: dict[type, str] = {
    ShoeStarted: "shoe_started",
    CardBurned: "card_burned",
    BetPlaced: "bet_placed",
    BetRemoved: "bet_removed",
    BetsClosed: "bets_closed",
    CardDealt: "card_dealt",
    CardRevealed: "card_revealed",
    CutCardReached: "cut_card_reached",
    InsuranceOffered: "insurance_offered",
    InsurancePlaced: "insurance_placed",
    InsuranceClosed: "insurance_closed",
    DealerPeeked: "dealer_peeked",
    TurnStarted: "turn_started",
    Stood: "stood",
    Doubled: "doubled",
    Split: "split",
    Surrendered: "surrendered",
    HandBlackjack: "blackjack",
    HandBust: "bust",
    HandComplete: "hand_complete",
    MistakenCard: "mistaken_card",
    CardOffered: "card_offered",
    CardTaken: "card_taken",
    CardRefused: "card_refused",
    CardDiscarded: "card_discarded",
    DealerTurn: "dealer_turn",
    DealerDone: "dealer_done",
    RoundSettled: "round_settled",
    RoundVoided: "round_voided",
}


def kind(op: Operation) -> str:
    return KINDS[type(op)]
