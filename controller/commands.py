"""Pit commands: what a supervisor's console may ask of the table (docs/mqtt.md).

A command arrives on `cmd/<name>` as a JSON object. `parse` checks it before
anything else happens to it: its size, that it is a JSON object, that the
command exists, and every field, typed and strict (pydantic; unknown fields
are refused, a wrong type is named). It returns the typed request or a
`Refusal` that says what is wrong; only a request that passes is journaled
and applied.

Who sent it: MQTT 3.1.1 does not tell a subscriber who published a message,
and mosquitto adds nothing to it. `by` (the person) and `console` (the
sending program) are what the console *claims*. What is certain is that the
broker's ACL let the message through: on the floor only supervisor accounts
may publish commands, recorders only `republish` (docs/deploy.md), and the
broker's log shows which accounts were connected at the time.
"""

from __future__ import annotations

import json
import logging
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from controller.engine.errors import BadAmount
from controller.engine.money import POSITIVE_AMOUNT_PATTERN, parse_amount
from controller.inputs import InputError, load_json

log = logging.getLogger("croupier.pit")

MAX_BYTES = 4096  # a command is a few hundred bytes; anything near this is not one
MAX_DEPTH = 4  # a command is one flat object: no field holds a list or an object
# Sequence and round numbers: what a display's JavaScript holds exactly (2**53 - 1);
# the table's journal reaches a few million a year.
MAX_SEQ = 2**53 - 1
HISTORY = 10_000  # transactions remembered to answer a repeated request again

# Commands that change the table, and the one that does not (republish). All are
# journaled, so each has its audit record; `void` is the older name of void_round.
NAMES = ("void_round", "new_shoe", "set_limits", "correct_card", "republish")
ALIASES = {"void": "void_round"}

Text = Annotated[str, Field(min_length=1, max_length=300)]
Name = Annotated[str, Field(min_length=1, max_length=64)]
Card = Annotated[str, Field(pattern=r"^[A2-9TJQK][SHDC]$")]
# A name with something in it: the schema says so with a pattern, the model with
# `_someone` (whose message the consoles show).
Someone = Annotated[str, Field(min_length=1, max_length=64, json_schema_extra={"pattern": r"\S"})]


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    transaction: Name
    by: Someone  # the supervisor, as the console says (claimed, not verified)
    console: Name | None = None  # the sending program's own id (claimed)

    @field_validator("by")
    @classmethod
    def _someone(cls, value: str | None) -> str | None:
        # None reaches here from Republish, where `by` is optional.
        if value is not None and not value.strip():
            raise ValueError("must name the supervisor, not be blank")
        return value


class VoidRound(Request):
    reason: Text


class NewShoe(Request):
    reason: Text | None = None


# Money as docs/schemas publishes it. The pattern is the schema's only: parse_amount
# checks it with messages that name the problem ("has more than 2 decimal places").
Money = Annotated[
    str, Field(json_schema_extra={"pattern": POSITIVE_AMOUNT_PATTERN, "maxLength": 13})
]


class SetLimits(Request):
    min: Money
    max: Money
    reason: Text | None = None

    @field_validator("min", "max")
    @classmethod
    def _money(cls, value: str) -> str:
        try:
            parse_amount(value, "the limit")
        except BadAmount as exc:
            raise ValueError(str(exc)) from None
        return value

    @property
    def low(self) -> Decimal:
        return Decimal(self.min)

    @property
    def high(self) -> Decimal:
        return Decimal(self.max)


class CorrectCard(Request):
    """The card at `position` (from 0) of a hand as `state` shows it: box 0 hand 0 is
    the dealer; `was` is the card shown there now, `card` the card it really is."""

    round: Annotated[int, Field(ge=1, le=MAX_SEQ)]
    box: Annotated[int, Field(ge=0, le=9)]
    hand: Annotated[int, Field(ge=0, le=9)]
    position: Annotated[int, Field(ge=0, le=21)]
    was: Card
    card: Card
    reason: Text


class Republish(Request):
    by: Someone | None = None  # type: ignore[assignment]  # a recorder may not say who it is
    from_seq: Annotated[int, Field(ge=1, le=MAX_SEQ)] | None = None


MODELS: dict[str, type[Request]] = {
    "void_round": VoidRound,
    "new_shoe": NewShoe,
    "set_limits": SetLimits,
    "correct_card": CorrectCard,
    "republish": Republish,
}


def request_schema() -> dict[str, Any]:
    """docs/schemas/command.json: each command's request, as the models check it (a test
    keeps the file and the models equal; regenerate with `python -m controller.commands`)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://croupier.example/schemas/v1/command.json",
        "title": "croupier/v1/<table>/cmd/<name>: a request to the table, by command name",
        "description": f"At most {MAX_BYTES} bytes of UTF-8, one flat JSON object. Generated "
        "from controller/commands.py (python -m controller.commands).",
        "$defs": {name: model.model_json_schema() for name, model in MODELS.items()},
    }


class Refusal(BaseModel):
    model_config = ConfigDict(frozen=True)
    name: str
    transaction: Any
    error: str


def canonical(name: str) -> str:
    return ALIASES.get(name, name)


def known(name: str) -> bool:
    return canonical(name) in MODELS


def parse(name: str, payload: bytes) -> Request | Refusal:
    """A request from the broker: typed, or refused with the reason (nothing changed)."""
    if len(payload) > MAX_BYTES:
        return Refusal(
            name=name,
            transaction=None,
            error=f"the request is {len(payload)} bytes; a command is at most {MAX_BYTES}",
        )
    try:
        # Strict UTF-8, depth bounded before parsing, no NaN, no 5,000-digit integer,
        # no key given twice (controller.inputs): nothing here can raise but InputError.
        data = load_json(payload or b"{}", "the request", max_bytes=MAX_BYTES, max_depth=MAX_DEPTH)
    except InputError as exc:
        return Refusal(name=name, transaction=None, error=str(exc))
    if not isinstance(data, dict):
        return Refusal(
            name=name,
            transaction=None,
            error=f"a command is a JSON object, not {_json_type(data)}",
        )
    transaction = data.get("transaction")
    if not isinstance(transaction, str) or len(transaction) > 64:
        transaction = None  # echo only what could be the console's own id
    if not known(name):
        return Refusal(
            name=name,
            transaction=transaction,
            error=f"unknown command {name!r}: the table takes {', '.join(NAMES)}",
        )
    return validate(name, data, transaction)


def validate(name: str, data: dict[str, Any], transaction: Any = None) -> Request | Refusal:
    try:
        return MODELS[canonical(name)].model_validate(data)
    except ValidationError as exc:
        return Refusal(name=name, transaction=transaction, error=_problems(exc))
    except Exception as exc:  # a check's own bug must refuse the request, not stop the table
        log.exception("a %s request could not be checked", name)
        return Refusal(
            name=name, transaction=transaction, error=f"the request could not be checked ({exc})"
        )


def fields(request: Request) -> dict[str, Any]:
    """The request as journaled: every field given, nothing defaulted in."""
    return request.model_dump(mode="json", exclude_none=True)


def what(request: Request) -> dict[str, Any]:
    """The command's own fields (not the envelope: transaction, by, console)."""
    return {k: v for k, v in fields(request).items() if k not in ("transaction", "by", "console")}


# ----------------------------------------------------------- error messages
_EXPECTED = {
    "string_type": "text",
    "int_type": "a whole number",
    "bool_type": "true or false",
    "dict_type": "an object",
}
_PATTERNS = {"was": 'a card code such as "TH"', "card": 'a card code such as "TH"'}
_MONEY = 'a decimal string such as "10" or "12.50" (money is never a JSON number)'
_FIELD_EXPECTED = {"min": _MONEY, "max": _MONEY}


def _json_type(value: object) -> str:
    kind: Literal["null", "true/false", "a number", "text", "a list", "an object"]
    if value is None:
        kind = "null"
    elif isinstance(value, bool):
        kind = "true/false"
    elif isinstance(value, int | float):
        kind = "a number"
    elif isinstance(value, str):
        kind = "text"
    elif isinstance(value, list):
        kind = "a list"
    else:
        kind = "an object"
    return kind


def _problems(exc: ValidationError) -> str:
    out = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "(the request)"
        kind = err["type"]
        given = err.get("input")
        if kind == "missing":
            out.append(f"{field}: missing (required)")
        elif kind == "extra_forbidden":
            out.append(f"{field}: unknown field (a typo?)")
        elif kind in _EXPECTED:
            shown = json.dumps(given)[:40] if _json_type(given) != "an object" else "{...}"
            want = _FIELD_EXPECTED.get(field, _EXPECTED[kind])
            out.append(f"{field}: expected {want}, got {_json_type(given)} {shown}")
        elif kind == "string_pattern_mismatch":
            want = _PATTERNS.get(field, "another form")
            out.append(f"{field}: expected {want}, got {json.dumps(given)[:40]}")
        else:
            out.append(f"{field}: {err['msg'].removeprefix('Value error, ')}")
    return "; ".join(out)


if __name__ == "__main__":
    print(json.dumps(request_schema(), indent=2, ensure_ascii=False))
