"""The MQTT contract's payloads (docs/mqtt.md, docs/schemas/): what each topic
carries, built from the engine's operation records and views.

Hidden information is decided by `controller.engine.view` (public=True for
every topic a display can read); this module adds ids and sequence numbers.
It blanks burned cards once more itself: the one hidden card that no
`card_revealed` ever turns over must not depend on a single check.
"""

from __future__ import annotations

import json
import platform
import uuid
from decimal import Decimal
from typing import Any

import paho.mqtt

from controller import __version__, commands
from controller.commands import Request
from controller.engine import Table, ops, outcome_json
from controller.engine.money import fmt
from controller.engine.view import op_json, table_state
from controller.journal import Message

ROOT = "croupier/v1"
CONTRACT = "croupier/v1"

# Topics below croupier/v1/<table>/
STATUS, INFO, STATE, EVENTS, OUTCOME, OUTCOME_LAST, ALERTS = (
    "status",
    "info",
    "state",
    "events",
    "outcome",
    "outcome/last",
    "alerts",
)
SURVEILLANCE_STATE = "surveillance/state"
COMMANDS = "cmd/+"


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def new_session() -> str:
    return uuid.uuid4().hex[:16]


def status(
    state: str,
    session: str,
    table: str,
    since: str,
    devices: list[dict[str, Any]] | None = None,
    alarms: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"state": state, "session": session, "table": table, "since": since}
    if devices is not None:
        body["devices"] = devices  # each driver's health (croupier run)
    if alarms:
        body["alarms"] = alarms  # what stops the table now (a full disk): loud, retained
    return body


def info(table: Table, table_id: str, session: str) -> dict[str, Any]:
    p = table.p
    settings = {
        name: (fmt(v) if isinstance(v, Decimal) else list(v) if isinstance(v, tuple) else v)
        for name, v in p.settings().items()
    }
    return {
        "table": table_id,
        "contract": CONTRACT,
        "session": session,
        "versions": {
            "croupier": __version__,
            "python": platform.python_version(),
            "paho-mqtt": paho.mqtt.__version__,
        },
        "rules": {"name": p.name, "title": p.title, "settings": settings},
        "boxes": table.boxes,
        "limits": {"min": fmt(table.table_min), "max": fmt(table.table_max)},
    }


class Stream:
    """Numbers the `events` stream and turns operations into stream messages.

    `seq` counts every events message since the table's state began; it is
    rebuilt by replaying the journal, so the same operation always gets the
    same seq and event_id, also after a restart.
    """

    def __init__(self, table_id: str, public: bool = True) -> None:
        self.table_id = table_id
        # False: the full view (hidden cards shown), for the audit's own replay only.
        self.public = public
        self.seq = 0
        self.last_outcome: dict[str, Any] | None = None

    def event(self, body: dict[str, Any], source: int) -> Message:
        """An events message the service makes itself (an audit record, a correction):
        numbered in the same sequence as the operations."""
        self.seq += 1
        msg = {
            "seq": self.seq,
            "event_id": f"{self.table_id}:{self.seq}",
            "table": self.table_id,
            "source": source,
            **body,
        }
        return Message(EVENTS, dumps(msg), self.seq)

    def messages(self, operations: list[ops.Operation], table: Table, source: int) -> list[Message]:
        out: list[Message] = []
        upcoming = table.rounds + 1
        for op in operations:
            self.seq += 1
            body = op_json(op, public=self.public)
            if self.public and isinstance(op, ops.CardBurned):
                body["card"] = None  # a burned card is never shown
            # Bets and shoe events have no round yet: they belong to the next one.
            body["round"] = getattr(op, "round", upcoming)
            msg = {
                "seq": self.seq,
                "event_id": f"{self.table_id}:{self.seq}",
                "table": self.table_id,
                "source": source,
                **body,
            }
            out.append(Message(EVENTS, dumps(msg), self.seq))
            if isinstance(op, ops.RoundSettled | ops.RoundVoided):
                outcome = outcome_json(op.outcome)
                outcome["outcome_id"] = f"{self.table_id}:{op.round}"
                outcome["table"] = self.table_id
                outcome["seq"] = self.seq
                self.last_outcome = outcome
                out.append(Message(OUTCOME, dumps(outcome)))
        return out


def state(table: Table, table_id: str, seq: int, extra: dict[str, Any]) -> dict[str, Any]:
    snapshot = table_state(table, public=True)
    snapshot.update(table=table_id, seq=seq, **extra)
    return snapshot


def surveillance_state(table: Table, table_id: str, seq: int) -> dict[str, Any]:
    snapshot = table_state(table, public=False)
    snapshot.update(table=table_id, seq=seq)
    return snapshot


def alert(
    table_id: str,
    key: str,
    kind: str,
    message: str,
    round_number: int,
    box: int | None = None,
    **extra: Any,
) -> Message:
    """An alert; `key` makes its id, so the same alert raised again after a restart
    carries the same `alert_id`."""
    body = {
        "alert_id": f"{table_id}:{key}",
        "table": table_id,
        "kind": kind,
        "message": message,
        "round": round_number,
        "box": box,
        **extra,
    }
    return Message(ALERTS, dumps(body))


def audit(
    command: str,
    request: Request,
    at: str | None,
    ok: bool,
    error: str | None,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
    round_number: int,
    withheld: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The `audit` events message of a pit command: who (as claimed, see
    controller.commands), what, when, and the table before and after. `withheld`
    request fields show as null (a card named for a place still face down); the
    journal keeps them."""
    asked = commands.what(request)
    for name in withheld:
        if name in asked:
            asked[name] = None
    body: dict[str, Any] = {
        "type": "audit",
        "round": round_number,
        "command": command,
        "transaction": request.transaction,
        "by": request.by,
        "console": request.console,
        "at": at,
        "ok": ok,
        "request": asked,
        "before": before,
        "after": after,
    }
    if error is not None:
        body["error"] = error
    return body


def response(transaction: Any, ok: bool, **fields: Any) -> dict[str, Any]:
    return {"transaction": transaction, "ok": ok, **fields}
