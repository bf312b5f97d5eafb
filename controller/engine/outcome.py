"""Settlement: what each hand and each player won or lost in a round.

The outcome is plain immutable data with exact Decimal money. `outcome_json`
turns it into the contract's settlement object (DESIGN.md, round script
output) with money as decimal strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any, Final, NamedTuple

from .cards import VALUE
from .hand import Box, Hand
from .money import ZERO, fmt
from .profile import RuleProfile

HALF: Final = Decimal("0.5")


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


LOSE: Final = Decimal(-1)
WIN: Final = Decimal(1)


_tuple: Final = tuple.__new__  # builds a NamedTuple without its Python-level __new__ (hot path)


def _hand_outcome(p: RuleProfile, hand: Hand, dealer_total: int, dealer_bj: bool) -> HandOutcome:
    # The result and the multiplier of each share (None: see enhc_loses).
    mult: Decimal | None
    hard = hand.hard
    aces = hand.aces
    total = hard + 10 if aces and hard <= 11 else hard
    blackjack = total == 21 and len(hand.cards) == 2 and not hand.from_split
    if hand.paid:
        result, mult = "blackjack", p.blackjack_pays
    elif hand.surrendered:
        result, mult = "surrender", -HALF
    elif hard > 21:
        result, mult = "bust", LOSE
    elif blackjack:
        if not dealer_bj:
            result, mult = "blackjack", p.blackjack_pays
        elif p.blackjack_vs_dealer_blackjack == "push":
            result, mult = "push", ZERO
        else:
            result, mult = "lose", LOSE
    elif dealer_bj:
        if p.enhc_loses == "original" and (hand.doubled or hand.number != 1):
            result, mult = "lose", None
        else:
            result, mult = "lose", LOSE
    elif dealer_total > 21 or total > dealer_total:
        result, mult = "win", WIN
    elif total == dealer_total:
        result, mult = "push", ZERO
    else:
        result, mult = "lose", LOSE
    stakes = hand.stakes
    if mult is None:
        # No hole card, dealer blackjack, "original bet only": the first hand
        # loses its original stake; doubles and later split hands come back.
        nets: dict[str, Decimal] = {}
        payout = ZERO
        base = hand.base or stakes
        for player in stakes:
            net = -base[player] if hand.number == 1 else ZERO
            nets[player] = net
            payout += net
        if not payout:
            result = "push"
        stake = hand.stake
    elif len(stakes) == 1:  # one player on the hand: the common case, kept short
        for player, stake in stakes.items():
            payout = stake * mult
            nets = {player: payout}
    else:
        nets = {}
        payout = ZERO
        for player, share in stakes.items():
            net = share * mult
            nets[player] = net
            payout += net
        stake = hand.stake
    return _tuple(
        HandOutcome,
        (hand.number, tuple(hand.cards), total, blackjack, result, stake, payout, nets),
    )


def settle(
    p: RuleProfile, number: int, boxes: Sequence[Box], dealer: Sequence[str], dealer_total: int
) -> Outcome:
    dealer_bj = dealer_total == 21 and len(dealer) == 2
    house = ZERO
    carried: dict[tuple[int, str], Decimal] = {}
    box_outcomes = []
    push_stays = p.push_stays
    for box in boxes:
        box_hands = box.hands
        stakes = box.stakes
        insurance = box.insurance
        if len(box_hands) == 1:
            h = _hand_outcome(p, box_hands[0], dealer_total, dealer_bj)
            hands: tuple[HandOutcome, ...] = (h,)
        else:
            hands = tuple([_hand_outcome(p, hand, dealer_total, dealer_bj) for hand in box_hands])
        if len(hands) == 1 and len(stakes) == 1 and not insurance:
            # One hand, one player, no insurance: the common case, without the loops.
            for player in stakes:
                net = h.payout
                players: tuple[PlayerOutcome, ...] = (
                    _tuple(PlayerOutcome, (player, h.stake, ZERO, net)),
                )
                house -= net
        else:
            found = []
            for player in stakes:
                insured = insurance.get(player, ZERO)
                net = staked = ZERO
                for h, hand in zip(hands, box_hands, strict=True):
                    share = hand.stakes.get(player)
                    if share is not None:
                        net += h.nets[player]
                        staked += share
                if insured:
                    net += insured * p.insurance_pays if dealer_bj else -insured
                found.append(_tuple(PlayerOutcome, (player, staked, insured, net)))
                house -= net
            players = tuple(found)
        if push_stays:
            for h, hand in zip(hands, box_hands, strict=True):
                if h.result == "push":
                    for player, share in hand.stakes.items():
                        key = (box.number, player)
                        carried[key] = carried.get(key, ZERO) + share
        box_outcomes.append(_tuple(BoxOutcome, (box.number, hands, players)))
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
