"""Test helpers: tables on shipped profiles, scripted rounds, deep snapshots."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from controller import rules
from controller.engine import Table, outcome_json
from controller.engine.ops import Operation, RoundSettled, RoundVoided, kind


def table(name: str, boxes: int | None = None, **overrides: Any) -> Table:
    profile = rules.shipped(name)
    if overrides:
        profile = dataclasses.replace(profile, **overrides)
    return Table(profile, boxes)


def bet(t: Table, box: int, amount: str, player: str | None = None) -> list[Operation]:
    return t.bet(box, player or f"box{box}", Decimal(amount))


def start(t: Table, stakes: dict[int, str]) -> None:
    """Bets (box holders only) and close_bets."""
    for box, amount in stakes.items():
        bet(t, box, amount)
    t.close_bets()


def cards(t: Table, *codes: str) -> list[Operation]:
    out: list[Operation] = []
    for code in codes:
        out.extend(t.card(code))
    return out


def settled(ops: Iterable[Operation]) -> dict[str, Any]:
    """The settlement object among `ops` (exactly one)."""
    found = [outcome_json(op.outcome) for op in ops if isinstance(op, RoundSettled | RoundVoided)]
    assert len(found) == 1, f"expected one settlement, got {len(found)}"
    return found[0]


def last_outcome(t: Table) -> dict[str, Any]:
    assert t.round is not None and t.round.outcome is not None
    return outcome_json(t.round.outcome)


def nets(result: dict[str, Any]) -> dict[str, str]:
    return {p["player"]: p["net"] for b in result["boxes"] for p in b["players"]}


def hand_results(result: dict[str, Any]) -> dict[tuple[int, int], tuple[str, str]]:
    return {
        (b["box"], h["hand"]): (h["result"], h["payout"])
        for b in result["boxes"]
        for h in b["hands"]
    }


def kinds(ops: Iterable[Operation]) -> list[str]:
    return [kind(op) for op in ops]


def snapshot(obj: Any, _seen: set[int] | None = None) -> Any:
    """Every field of an object graph as plain nested values, for before/after equality."""
    seen = set() if _seen is None else _seen
    if isinstance(obj, str | int | float | bool | Decimal | type(None)):
        return obj
    if id(obj) in seen:
        return ("<cycle>", type(obj).__name__)
    seen = seen | {id(obj)}
    if isinstance(obj, dict):
        return tuple((snapshot(k, seen), snapshot(v, seen)) for k, v in obj.items())
    if isinstance(obj, list | tuple):
        return (type(obj).__name__, tuple(snapshot(v, seen) for v in obj))
    if dataclasses.is_dataclass(obj):
        return (type(obj).__name__, snapshot(dataclasses.asdict(obj), seen))  # type: ignore[arg-type]
    fields: dict[str, Any] = {}
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(obj, name):
                fields[name] = getattr(obj, name)
    fields.update(getattr(obj, "__dict__", {}))
    return (type(obj).__name__, tuple((k, snapshot(v, seen)) for k, v in sorted(fields.items())))
