"""The MQTT contract's payloads (docs/mqtt.md, docs/schemas/): what each topic
carries, built from the engine's operation records and views.

Hidden information is decided by `controller.engine.view` (public=True for
every topic a display can read); this module adds ids and sequence numbers
and hides one more thing the engine's public view still shows: the faces of
burned cards.
"""

from __future__ import annotations

import json
import platform
import uuid
from decimal import Decimal
from typing import Any

import paho.mqtt

from controller import __version__
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
) -> dict[str, Any]:
    body: dict[str, Any] = {"state": state, "session": session, "table": table, "since": since}
    if devices is not None:
        body["devices"] = devices  # each driver's health (croupier run)
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

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.seq = 0
        self.last_outcome: dict[str, Any] | None = None

    def messages(self, operations: list[ops.Operation], table: Table, source: int) -> list[Message]:
        out: list[Message] = []
        upcoming = table.rounds + 1
        for op in operations:
            self.seq += 1
            body = op_json(op, public=True)
            if isinstance(op, ops.CardBurned):
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


def response(transaction: Any, ok: bool, **fields: Any) -> dict[str, Any]:
    return {"transaction": transaction, "ok": ok, **fields}
