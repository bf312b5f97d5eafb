"""`croupier replay`: a round script (JSON lines, DESIGN.md) through the engine.

Yields one settlement object per round. The first refused or malformed line
stops the run with a `ReplayError` naming the line and why; nothing is
settled from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from controller import rules
from controller.engine import Table, TableError, outcome_json, parse_event
from controller.engine.events import NewShoe
from controller.engine.ops import RoundSettled, RoundVoided
from controller.inputs import InputError, decode_utf8, load_json

MAX_LINE = 16_384  # bytes in one line; an event is well under 200


class Unfinished(Exception):
    """The script ended with a round still in play (not a refused line)."""


class ReplayError(Exception):
    def __init__(self, line: int, why: str) -> None:
        super().__init__(f"line {line}: {why}")
        self.line = line
        self.why = why


def _decode(number: int, raw: str | bytes) -> dict[str, Any] | None:
    """One line to its object (None for a blank line), or `ReplayError`: strict UTF-8,
    bounded size and depth (controller.inputs), so no line reaches the engine malformed."""
    if isinstance(raw, bytes) and len(raw) <= MAX_LINE:
        try:
            raw = decode_utf8(raw, "the line")
        except InputError as exc:
            raise ReplayError(number, str(exc)) from None
    if not raw.strip():
        return None
    try:
        data = load_json(raw.strip(), "the line", max_bytes=MAX_LINE)
    except InputError as exc:
        raise ReplayError(number, f"bad JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ReplayError(
            number, f"bad event: a JSON object is expected, not {type(data).__name__}"
        )
    return data


def replay(
    lines: Iterable[str | bytes], rules_name: str | None = None, boxes: int | None = None
) -> Iterator[dict[str, Any]]:
    """Play a script; `rules_name` and `boxes` (from the command line) win over its shoe line."""
    table: Table | None = None
    for number, raw in enumerate(lines, start=1):
        data = _decode(number, raw)
        if data is None:
            continue
        try:
            event = parse_event(data)
            if table is None:
                first_shoe = event if isinstance(event, NewShoe) else NewShoe(None, None)
                name = rules_name or first_shoe.rules
                if name is None:
                    raise ReplayError(
                        number, "no rule profile: give --rules or start with a shoe line naming one"
                    )
                table = Table(rules.load(name), boxes or first_shoe.boxes)
            if isinstance(event, NewShoe) and (rules_name or boxes):
                # The command line chose the table; the script's shoe lines only start shoes.
                event = NewShoe(None, None)
            for op in table.apply(event):
                if isinstance(op, RoundSettled | RoundVoided):
                    yield outcome_json(op.outcome)
        except TableError as exc:
            raise ReplayError(number, str(exc)) from None
    if table is not None and table.round is not None and not table.round.over:
        r = table.round
        raise Unfinished(
            f"the script ends in round {r.number} before it settles "
            f"({r.phase.value}, waiting for {describe(table)})"
        )


def describe(table: Table) -> str:
    e = table.expecting()
    if e.what == "action":
        return f"box {e.box} hand {e.hand}: {', '.join(e.actions)}"
    if e.what == "offer":
        return f"box {e.box} to take or refuse the mistaken card"
    return {"card": "a card", "insurance": "insurance or close_insurance"}.get(e.what, e.what)
