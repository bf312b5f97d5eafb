"""Input events: the round-script lines of DESIGN.md, parsed and checked.

`parse_event` takes one decoded JSON object and returns a typed event or
raises `BadEvent` naming the field and what is wrong. Unknown fields are
refused so that a typo ("amout") is caught, not ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, NamedTuple

from .cards import parse_card
from .errors import BadEvent
from .money import parse_amount

ACTIONS = ("stand", "double", "split", "surrender", "take_card", "refuse_card")


class NewShoe(NamedTuple):
    rules: str | None
    boxes: int | None


class Burn(NamedTuple):
    card: str


class Bet(NamedTuple):
    box: int
    player: str
    amount: Decimal


class CloseBets(NamedTuple):
    pass


class Card(NamedTuple):
    card: str


class Insurance(NamedTuple):
    box: int
    player: str
    amount: Decimal


class CloseInsurance(NamedTuple):
    pass


class Action(NamedTuple):
    box: int
    action: str


class MisdealCard(NamedTuple):
    pass


class Void(NamedTuple):
    reason: str


Event = (
    NewShoe
    | Burn
    | Bet
    | CloseBets
    | Card
    | Insurance
    | CloseInsurance
    | Action
    | MisdealCard
    | Void
)

# type -> (required fields, optional fields)
FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "shoe": ((), ("rules", "boxes")),
    "burn": (("card",), ()),
    "bet": (("box", "amount"), ("player",)),
    "close_bets": ((), ()),
    "card": (("card",), ()),
    "insurance": (("box", "amount"), ("player",)),
    "close_insurance": ((), ()),
    "action": (("box", "action"), ()),
    "misdeal_card": ((), ()),
    "void": ((), ("reason",)),
}


def _box(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise BadEvent(f"box must be a box number (1, 2, ...), not {value!r}")
    return value


def _player(data: Mapping[str, Any], box: int) -> str:
    player = data.get("player", f"box{box}")
    if not isinstance(player, str) or not player.strip():
        raise BadEvent(f"player must be a non-empty name, not {player!r}")
    return player


def parse_event(data: object) -> Event:
    if not isinstance(data, Mapping):
        raise BadEvent(f"an event is a JSON object, not {type(data).__name__}")
    kind = data.get("type")
    if kind not in FIELDS:
        known = ", ".join(FIELDS)
        raise BadEvent(f"unknown event type {kind!r}: expected one of {known}")
    required, optional = FIELDS[kind]
    for name in required:
        if name not in data:
            raise BadEvent(f"{kind} needs a {name!r} field")
    for name in data:
        if name not in required and name not in optional and name not in ("type", "comment"):
            raise BadEvent(f"{kind} has an unexpected field {name!r}")
    if kind == "shoe":
        rules = data.get("rules")
        if rules is not None and (not isinstance(rules, str) or not rules):
            raise BadEvent(f"rules must be a profile name, not {rules!r}")
        boxes = data.get("boxes")
        return NewShoe(rules, None if boxes is None else _box(boxes))
    if kind == "burn":
        return Burn(parse_card(data["card"]))
    if kind == "card":
        return Card(parse_card(data["card"]))
    if kind == "bet" or kind == "insurance":
        box = _box(data["box"])
        player = _player(data, box)
        amount = parse_amount(data["amount"], f"{kind} amount", allow_zero=True)
        return (Bet if kind == "bet" else Insurance)(box, player, amount)
    if kind == "action":
        action = data["action"]
        if action not in ACTIONS:
            raise BadEvent(f"unknown action {action!r}: expected one of {', '.join(ACTIONS)}")
        return Action(_box(data["box"]), action)
    if kind == "void":
        reason = data.get("reason", "")
        if not isinstance(reason, str):
            raise BadEvent(f"reason must be text, not {reason!r}")
        return Void(reason)
    if kind == "close_bets":
        return CloseBets()
    if kind == "close_insurance":
        return CloseInsurance()
    return MisdealCard()
