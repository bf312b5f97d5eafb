"""What the recorder keeps of each message: checked and flattened into rows.

A message that does not fit the contract (not JSON, an id missing, a table id
that is not its topic's) is refused here with a reason; nothing half-read
reaches the database.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

ROOT = "croupier/v1/"
NOT_KEPT = re.compile(r"the oldest is (\d+|None)")


class Refused(ValueError):
    """A message the recorder cannot keep; the text says why."""


@dataclass(frozen=True, slots=True)
class Event:
    table: str
    seq: int
    event_id: str
    round: int
    type: str
    raw: str


@dataclass(frozen=True, slots=True)
class Outcome:
    table: str
    outcome_id: str
    round: int
    seq: int
    voided: bool
    staked: Decimal
    insured: Decimal
    house_net: Decimal
    raw: str


@dataclass(frozen=True, slots=True)
class Alert:
    table: str
    alert_id: str
    kind: str
    round: int | None
    raw: str


@dataclass(frozen=True, slots=True)
class StateSeq:
    table: str
    seq: int


@dataclass(frozen=True, slots=True)
class Info:
    table: str
    raw: str


@dataclass(frozen=True, slots=True)
class Answer:
    """A table's answer to a cmd/republish (anyone's: the transaction says whose)."""

    table: str
    transaction: str
    ok: bool
    to_seq: int | None
    error: str | None
    oldest_kept: int | None  # from a refusal "no longer kept (the oldest is N)"; 0: none kept


Parsed = Event | Outcome | Alert | StateSeq | Info | Answer

# What the recorder subscribes to, below croupier/v1/+/.
TOPICS = ("events", "outcome", "alerts", "state", "info", "cmd/republish/response")


def parse(topic: str, payload: bytes) -> Parsed | None:
    """The row(s) a message makes; None for a topic the recorder does not keep."""
    if not topic.startswith(ROOT):
        return None
    table, _, rest = topic[len(ROOT) :].partition("/")
    if rest not in TOPICS:
        return None
    try:
        raw = payload.decode("utf-8")
        data = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise Refused(f"{topic}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise Refused(f"{topic}: not a JSON object")
    if rest == "cmd/republish/response":
        return _answer(table, data, topic)
    if rest != "info" and data.get("table", table) != table:
        raise Refused(f"{topic}: the message says table {data.get('table')!r}")
    if rest == "events":
        seq = _int(data, "seq", topic)
        event_id = _text(data, "event_id", topic)
        if event_id != f"{table}:{seq}":
            raise Refused(f"{topic}: event_id {event_id!r} is not {table}:{seq}")
        number, kind = _int(data, "round", topic), _text(data, "type", topic)
        return Event(table, seq, event_id, number, kind, raw)
    if rest == "outcome":
        return _outcome(table, data, raw, topic)
    if rest == "alerts":
        during = data.get("round")
        return Alert(
            table,
            _text(data, "alert_id", topic),
            _text(data, "kind", topic),
            during if isinstance(during, int) and 0 <= during < 2**31 else None,
            raw,
        )
    if rest == "state":
        return StateSeq(table, _int(data, "seq", topic))
    return Info(table, raw)


def _outcome(table: str, data: dict[str, Any], raw: str, topic: str) -> Outcome:
    staked = insured = Decimal(0)
    boxes = data.get("boxes")
    if not isinstance(boxes, list):
        raise Refused(f"{topic}: no boxes")
    for box in boxes:
        for player in box.get("players", []) if isinstance(box, dict) else []:
            staked += _money(player, "stake", topic)
            insured += _money(player, "insurance", topic)
    return Outcome(
        table,
        _text(data, "outcome_id", topic),
        _int(data, "round", topic),
        _int(data, "seq", topic),
        bool(data.get("voided", False)),
        staked,
        insured,
        _money(data, "house_net", topic),
        raw,
    )


def _answer(table: str, data: dict[str, Any], topic: str) -> Answer | None:
    transaction = data.get("transaction")
    if not isinstance(transaction, str):
        return None  # a refused request's answer: not one of ours
    error = data.get("error")
    oldest = None
    if isinstance(error, str):
        found = NOT_KEPT.search(error)
        if found:
            oldest = 0 if found[1] == "None" else int(found[1])
    to_seq = data.get("to_seq")
    return Answer(
        table,
        transaction,
        data.get("ok") is True,
        to_seq if isinstance(to_seq, int) else None,
        error if isinstance(error, str) else None,
        oldest,
    )


def _int(data: dict[str, Any], key: str, topic: str) -> int:
    value = data.get(key)
    limit = 2**62 if key == "seq" else 2**31  # the columns' ranges (bigint, integer)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < limit:
        raise Refused(f"{topic}: {key} is not a whole number: {value!r}")
    return value


def _text(data: dict[str, Any], key: str, topic: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise Refused(f"{topic}: {key} is missing or not text")
    return value


def _money(data: dict[str, Any], key: str, topic: str) -> Decimal:
    value = data.get(key)
    try:
        if not isinstance(value, str):
            raise InvalidOperation
        amount = Decimal(value)
        if not amount.is_finite():
            raise InvalidOperation
    except InvalidOperation:
        raise Refused(f"{topic}: {key} is not a decimal string: {value!r}") from None
    return amount
