"""What each audience may see: the wire form of operations and of the table.

Hidden information (the hole card, a face-down double, a player's closed
card, the shoe's composition and the count) must never reach a display
before it is revealed. These functions are the one place that decides it:
`public=True` is what displays get; `public=False` is the full record for
the journal and surveillance.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from . import ops
from .cards import VALUE
from .money import fmt
from .outcome import outcome_json
from .phase import Phase
from .table import Table

HIDDEN = None  # a face-down card shows as null


def op_json(op: ops.Operation, public: bool) -> dict[str, Any]:
    """One operation record as a JSON object; `type` is `ops.kind(op)`."""
    out: dict[str, Any] = {"type": ops.kind(op)}
    for name, value in zip(op._fields, op, strict=True):
        if isinstance(value, Decimal):
            value = fmt(value)
        elif name in ("outcome",):
            value = outcome_json(value)
        out[name] = value
    if public and (getattr(op, "face_down", False) or isinstance(op, ops.CardBurned)):
        out["card"] = HIDDEN  # face-down cards until revealed; burned cards are never shown
    return out


def _hand(hand: Any, public: bool) -> dict[str, Any]:
    hidden = public and hand.hidden
    cards = [
        HIDDEN if public and down else card
        for card, down in zip(hand.cards, hand.face_down, strict=True)
    ]
    view: dict[str, Any] = {
        "hand": hand.number,
        "cards": cards,
        "stake": fmt(hand.stake),
        "doubled": hand.doubled,
        "done": hand.done,
        "surrendered": hand.surrendered,
    }
    if not hidden:
        view["total"] = hand.total
        view["soft"] = hand.soft
        view["bust"] = hand.hard > 21
        view["blackjack"] = hand.blackjack
    return view


def table_state(table: Table, public: bool) -> dict[str, Any]:
    """A snapshot of the table: the `state` topic's content (public) or the full one."""
    r = table.round
    state: dict[str, Any] = {
        "phase": table.phase.value,
        "round": table.rounds,
        "rules": table.p.name,
        "boxes": table.boxes,
        "limits": {"min": fmt(table.table_min), "max": fmt(table.table_max)},
        "shoe": {
            "cards_out": table.shoe.out,
            "size": table.shoe.size,
            "cut_card_reached": table.shoe.cut_reached,
            "burns_due": table.burns_due,
        },
        "bets": [
            {"box": box, "player": player, "amount": fmt(amount)}
            for box, stakes in sorted(table.bets.items())
            for player, amount in stakes.items()
        ],
    }
    e = table.expecting()
    state["expecting"] = {"what": e.what, "box": e.box, "hand": e.hand, "actions": list(e.actions)}
    if not public:
        state["shoe"]["remaining"] = table.shoe.remaining()
        state["shoe"]["burned"] = list(table.burned)
    if r is None:
        return state
    dealer_cards: list[str | None] = list(r.dealer)
    if public and r.p.hole_card and not r.hole_shown and len(dealer_cards) > 1:
        dealer_cards[1] = HIDDEN
    visible = [c for c in dealer_cards if c is not None]
    state["dealer"] = {"cards": dealer_cards, "total": _total(visible)}
    state["in_play"] = [
        {
            "box": box.number,
            "stakes": [{"player": p, "amount": fmt(a)} for p, a in box.stakes.items()],
            "insurance": [{"player": p, "amount": fmt(a)} for p, a in box.insurance.items()],
            "hands": [_hand(h, public) for h in box.hands],
        }
        for box in r.boxes
    ]
    if r.offer is not None and r.phase is Phase.PLAYERS:
        state["mistaken_card"] = r.offer  # face up on the layout: everyone has seen it
    if r.outcome is not None:
        state["outcome"] = outcome_json(r.outcome)
    return state


def _total(cards: list[str]) -> int:
    hard = sum(VALUE[c] for c in cards)
    return hard + 10 if any(c[0] == "A" for c in cards) and hard <= 11 else hard
