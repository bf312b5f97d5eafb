"""Settlement: what each hand and each player won or lost in a round.

The outcome is plain immutable data with exact Decimal money. `outcome_json`
turns it into the contract's settlement object (DESIGN.md, round script
output) with money as decimal strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any, NamedTuple

from .cards import VALUE
from .hand import Box, Hand
from .money import ZERO, fmt
from .profile import RuleProfile

HALF = Decimal("0.5")


class HandOutcome(NamedTuple):
    number: int
    cards: tuple[str, ...]
    total: int
    blackjack: bool
    result: str  # win lose push blackjack bust surrender (void for a voided round)
    stake: Decimal
    payout: Decimal  # the hand's net for its players: +won, -lost, 0 returned
    nets: dict[str, Decimal]


class PlayerOutcome(NamedTuple):
    player: str
    stake: Decimal
    insurance: Decimal
    net: Decimal


class BoxOutcome(NamedTuple):
    box: int
    hands: tuple[HandOutcome, ...]
    players: tuple[PlayerOutcome, ...]


class Outcome(NamedTuple):
    round: int
    dealer_cards: tuple[str, ...]
    dealer_total: int
    dealer_blackjack: bool
    dealer_bust: bool
    boxes: tuple[BoxOutcome, ...]
    house_net: Decimal
    carried: dict[tuple[int, str], Decimal]  # pushed stakes left on the layout
    voided: bool = False
    reason: str = ""


def best_total(hard: int, aces: bool) -> int:
    return hard + 10 if aces and hard <= 11 else hard


LOSE = Decimal(-1)
WIN = Decimal(1)


def _hand_result(
    p: RuleProfile, hand: Hand, dealer_total: int, dealer_bj: bool
) -> tuple[str, Decimal | None]:
    """The hand's result and the multiplier of each share (None: see enhc_loses)."""
    if hand.paid:
        return "blackjack", p.blackjack_pays
    if hand.surrendered:
        return "surrender", -HALF
    if hand.hard > 21:
        return "bust", LOSE
    if hand.blackjack:
        if dealer_bj:
            return ("push", ZERO) if p.blackjack_vs_dealer_blackjack == "push" else ("lose", LOSE)
        return "blackjack", p.blackjack_pays
    if dealer_bj:
        if p.enhc_loses == "original" and (hand.doubled or hand.number != 1):
            return "lose", None
        return "lose", LOSE
    if dealer_total > 21:
        return "win", WIN
    total = hand.total
    if total > dealer_total:
        return "win", WIN
    if total == dealer_total:
        return "push", ZERO
    return "lose", LOSE


_tuple = tuple.__new__  # builds a NamedTuple without its Python-level __new__ (hot path)


def _hand_outcome(p: RuleProfile, hand: Hand, dealer_total: int, dealer_bj: bool) -> HandOutcome:
    result, mult = _hand_result(p, hand, dealer_total, dealer_bj)
    stakes = hand.stakes
    nets: dict[str, Decimal] = {}
    payout = ZERO
    if mult is None:
        # No hole card, dealer blackjack, "original bet only": the first hand
        # loses its original stake; doubles and later split hands come back.
        base = hand.base or stakes
        for player in stakes:
            net = -base[player] if hand.number == 1 else ZERO
            nets[player] = net
            payout += net
        if not payout:
            result = "push"
    else:
        for player, share in stakes.items():
            net = share * mult
            nets[player] = net
            payout += net
    hard = hand.hard
    total = hard + 10 if hand.aces and hard <= 11 else hard
    blackjack = total == 21 and len(hand.cards) == 2 and not hand.from_split
    return _tuple(
        HandOutcome,
        (hand.number, tuple(hand.cards), total, blackjack, result, hand.stake, payout, nets),
    )


def settle(
    p: RuleProfile, number: int, boxes: Sequence[Box], dealer: Sequence[str], dealer_total: int
) -> Outcome:
    dealer_bj = dealer_total == 21 and len(dealer) == 2
    house = ZERO
    carried: dict[tuple[int, str], Decimal] = {}
    box_outcomes = []
    for box in boxes:
        hands = tuple([_hand_outcome(p, h, dealer_total, dealer_bj) for h in box.hands])
        players = []
        lone = len(hands) == 1 and len(box.stakes) == 1  # the common case: one hand, one player
        for player in box.stakes:
            insured = box.insurance.get(player, ZERO)
            if lone:
                net, staked = hands[0].payout, hands[0].stake
            else:
                net = staked = ZERO
                for h, hand in zip(hands, box.hands, strict=True):
                    share = hand.stakes.get(player)
                    if share is not None:
                        net += h.nets[player]
                        staked += share
            if insured:
                net += insured * p.insurance_pays if dealer_bj else -insured
            players.append(_tuple(PlayerOutcome, (player, staked, insured, net)))
            house -= net
        if p.push_stays:
            for h, hand in zip(hands, box.hands, strict=True):
                if h.result == "push":
                    for player, share in hand.stakes.items():
                        key = (box.number, player)
                        carried[key] = carried.get(key, ZERO) + share
        box_outcomes.append(_tuple(BoxOutcome, (box.number, hands, tuple(players))))
    return _tuple(
        Outcome,
        (
            number,
            tuple(dealer),
            dealer_total,
            dealer_bj,
            dealer_total > 21,
            tuple(box_outcomes),
            house,
            carried,
            False,
            "",
        ),
    )


def void_outcome(number: int, boxes: Sequence[Box], dealer: Sequence[str], reason: str) -> Outcome:
    """A voided round: every stake, doubles and insurance included, goes back."""
    box_outcomes = []
    for box in boxes:
        hands = tuple(
            HandOutcome(
                h.number,
                tuple(h.cards),
                h.total,
                h.blackjack,
                "void",
                h.stake,
                ZERO,
                dict.fromkeys(h.stakes, ZERO),
            )
            for h in box.hands
        )
        players = tuple(
            PlayerOutcome(pl, box.player_total_stake(pl), box.insurance.get(pl, ZERO), ZERO)
            for pl in box.stakes
        )
        box_outcomes.append(BoxOutcome(box.number, hands, players))
    hard = sum(VALUE[c] for c in dealer)
    total = best_total(hard, any(c[0] == "A" for c in dealer))
    return Outcome(
        number,
        tuple(dealer),
        total,
        False,
        False,
        tuple(box_outcomes),
        ZERO,
        {},
        True,
        reason,
    )


def outcome_json(o: Outcome) -> dict[str, Any]:
    """The settlement object of the contract (DESIGN.md), money as strings."""
    out: dict[str, Any] = {
        "round": o.round,
        "dealer": {
            "cards": list(o.dealer_cards),
            "total": o.dealer_total,
            "blackjack": o.dealer_blackjack,
            "bust": o.dealer_bust,
        },
        "boxes": [
            {
                "box": b.box,
                "hands": [
                    {
                        "hand": h.number,
                        "cards": list(h.cards),
                        "total": h.total,
                        "blackjack": h.blackjack,
                        "stake": fmt(h.stake),
                        "result": h.result,
                        "payout": fmt(h.payout),
                    }
                    for h in b.hands
                ],
                "players": [
                    {
                        "player": pl.player,
                        "stake": fmt(pl.stake),
                        "insurance": fmt(pl.insurance),
                        "net": fmt(pl.net),
                    }
                    for pl in b.players
                ],
            }
            for b in o.boxes
        ],
        "house_net": fmt(o.house_net),
    }
    if o.voided:
        out["voided"] = True
        out["reason"] = o.reason
    if o.carried:
        out["carried"] = [
            {"box": box, "player": player, "amount": fmt(amount)}
            for (box, player), amount in sorted(o.carried.items())
        ]
    return out
