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


MAX_BOX = 9  # no layout has more (Table refuses more boxes)
MAX_NAME = 64  # a player's name or a profile's
MAX_REASON = 300


def _shown(value: object) -> str:
    """A refused value as the message shows it: never a whole 5,000-character string."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _box(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_BOX:
        raise BadEvent(f"box must be a box number (1 to {MAX_BOX}), not {_shown(value)}")
    return value


def _player(data: Mapping[str, Any], box: int) -> str:
    player = data.get("player", f"box{box}")
    if not isinstance(player, str) or not player.strip() or len(player) > MAX_NAME:
        raise BadEvent(
            f"player must be a non-empty name of at most {MAX_NAME} characters, "
            f"not {_shown(player)}"
        )
    return player


def parse_event(data: object) -> Event:
    if not isinstance(data, Mapping):
        raise BadEvent(f"an event is a JSON object, not {type(data).__name__}")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in FIELDS:  # an object is not hashable
        known = ", ".join(FIELDS)
        raise BadEvent(f"unknown event type {_shown(kind)}: expected one of {known}")
    required, optional = FIELDS[kind]
    for name in required:
        if name not in data:
            raise BadEvent(f"{kind} needs a {name!r} field")
    for name in data:
        if name not in required and name not in optional and name not in ("type", "comment"):
            raise BadEvent(f"{kind} has an unexpected field {_shown(name)}")
    if kind == "shoe":
        rules = data.get("rules")
        if rules is not None and (
            not isinstance(rules, str) or not rules or len(rules) > 255 or "\0" in rules
        ):
            raise BadEvent(f"rules must be a profile name, not {_shown(rules)}")
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
        if not isinstance(action, str) or action not in ACTIONS:
            raise BadEvent(
                f"unknown action {_shown(action)}: expected one of {', '.join(ACTIONS)}"
            )
        return Action(_box(data["box"]), action)
    if kind == "void":
        reason = data.get("reason", "")
        if not isinstance(reason, str) or len(reason) > MAX_REASON:
            raise BadEvent(
                f"reason must be text of at most {MAX_REASON} characters, not {_shown(reason)}"
            )
        return Void(reason)
    if kind == "close_bets":
        return CloseBets()
    if kind == "close_insurance":
        return CloseInsurance()
    return MisdealCard()
