"""The floor's record of a table against the table's own journal.

The journal is replayed in a copy (controller.audit.replay, what `croupier
audit events` prints) and every events message, outcome and alert it makes is
looked up in the floor database by its id: held once, with the same content.
A table still dealing is ahead of any recorder: compare a stopped table, or
read the extra messages at the end as "not yet recorded"."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.audit import replay

KINDS = (  # topic, floor table, id column
    ("events", "floor_events", "event_id"),
    ("outcome", "floor_outcomes", "outcome_id"),
    ("alerts", "floor_alerts", "alert_id"),
)
ID_FIELD = {"events": "event_id", "outcome": "outcome_id", "alerts": "alert_id"}


@dataclass
class Verdict:
    state_dir: Path
    table: str = ""
    counts: dict[str, int] = field(default_factory=dict)  # topic -> messages in the journal
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        held = ", ".join(f"{n} {topic}" for topic, n in self.counts.items())
        if not self.problems:
            return f"{self.table}: equal ({held}, each once)"
        return f"{self.table}: {len(self.problems)} difference(s) against {held} in the journal"


def compare(conn: Any, state_dir: Path) -> Verdict:
    verdict = Verdict(state_dir)
    journal: dict[str, dict[str, dict[str, Any]]] = {topic: {} for topic, _, _ in KINDS}
    for topic, payload in replay(state_dir):
        if topic in journal:
            journal[topic][payload[ID_FIELD[topic]]] = payload
            verdict.table = verdict.table or payload["table"]
    verdict.counts = {topic: len(found) for topic, found in journal.items()}
    if not verdict.table:
        verdict.table = state_dir.name
        return verdict
    with conn.cursor() as cur:
        for topic, table, column in KINDS:
            cur.execute(
                f"SELECT {column}, payload::text FROM {table} WHERE table_id = %s",
                (verdict.table,),
            )
            held: dict[str, dict[str, Any]] = {}
            for key, payload in cur.fetchall():
                if key in held:  # the keys are unique: this would be a broken schema
                    verdict.problems.append(f"{topic} {key}: held twice")
                held[key] = json.loads(payload)
            verdict.problems += _differences(topic, journal[topic], held)
    conn.rollback()
    return verdict


def _differences(
    topic: str, journal: dict[str, dict[str, Any]], held: dict[str, dict[str, Any]]
) -> list[str]:
    out = []
    for key, payload in journal.items():
        if key not in held:
            out.append(f"{topic} {key}: in the journal, not in the floor's record")
        elif held[key] != payload:
            out.append(f"{topic} {key}: differs: journal {payload} / floor {held[key]}")
    extra = sorted(held.keys() - journal.keys())
    out += [f"{topic} {key}: in the floor's record, not in the journal" for key in extra]
    return out
