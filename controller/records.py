"""Driver records and pit commands as journal rows (JSON objects), and back.

The journal stores what came in, exactly as it came in (a card read with
its confidence, chips seen on a spot, a button), not the engine event it
was translated to: replaying the records through the same intake and
engine rebuilds the table, the alerts and the streams identically, and a
whole batch of records can be made durable with one fsync before any of
them is applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from drivers.interfaces import BetSeen, CardRead, DriverEvent, PanelPress, SensorFault


@dataclass(frozen=True, slots=True)
class PitCommand:
    """A command from the pit (controller.commands), journaled like a driver record.

    `request` is the request as validated; `at` the table's wall-clock time when it
    arrived (UTC, ISO 8601; audit only: the order is the journal's). Records from
    before the audit trail have no `at`."""

    name: str
    request: dict[str, Any]
    at: str | None = None


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """Retention pruned the journal's oldest shoes (controller.retention): what was
    pruned, the hash the chain goes on from, and the table's state where it begins
    again. Replaying it changes nothing; the table starts from its `state`."""

    data: dict[str, Any]


Record = DriverEvent | PitCommand | Checkpoint
DRIVER_RECORDS = (CardRead, BetSeen, PanelPress, SensorFault)  # the input drivers send


# Fields a record leaves out when they hold the driver's default, and `decode` puts
# back: spelled out in every card, bet and button they were 30 % of a round's record
# text (docs/benchmarks.md, "Storage"). Records written with them read the same.
DEFAULTS: dict[str, dict[str, Any]] = {
    "card_read": {"frame": None, "reason": None},
    "bet_seen": {"spot_kind": "stake"},
    "panel": {"box": None, "card": None, "reason": ""},
    "fault": {"box": None},
}


def encode(record: Record) -> dict[str, Any]:
    data = _encode(record)
    defaults = DEFAULTS.get(data["kind"])
    if defaults:
        return {k: v for k, v in data.items() if k not in defaults or defaults[k] != v}
    return data


def _encode(record: Record) -> dict[str, Any]:
    match record:
        case CardRead(card, confidence, source, frame, reason):
            return {
                "kind": "card_read",
                "card": card,
                "confidence": confidence,
                "source": source,
                "frame": frame,
                "reason": reason,
            }
        case BetSeen(box, spot, amount, kind):
            return {
                "kind": "bet_seen",
                "box": box,
                "spot": spot,
                "amount": str(amount),
                "spot_kind": kind,
            }
        case PanelPress(button, box, card, reason):
            return {"kind": "panel", "button": button, "box": box, "card": card, "reason": reason}
        case SensorFault(device, detail, box):
            return {"kind": "fault", "device": device, "detail": detail, "box": box}
        case PitCommand(name, request, at):
            data = {"kind": "command", "name": name, "request": request}
            if at is not None:
                data["at"] = at
            return data
        case Checkpoint(data):
            return data
    raise TypeError(f"not a record: {record!r}")


def decode(data: dict[str, Any]) -> Record:
    kind = data["kind"]
    data = {**DEFAULTS.get(kind, {}), **data}
    if kind == "card_read":
        return CardRead(
            data["card"], data["confidence"], data["source"], data["frame"], data.get("reason")
        )
    if kind == "bet_seen":
        return BetSeen(data["box"], data["spot"], Decimal(data["amount"]), data["spot_kind"])
    if kind == "panel":
        return PanelPress(data["button"], data["box"], data["card"], data["reason"])
    if kind == "fault":
        return SensorFault(data["device"], data["detail"], data["box"])
    if kind == "command":
        return PitCommand(data["name"], data["request"], data.get("at"))
    if kind == "checkpoint":
        return Checkpoint(data)
    raise ValueError(f"unknown journal record kind {kind!r}")
