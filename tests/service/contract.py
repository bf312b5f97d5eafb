"""The MQTT contract's JSON Schemas (docs/schemas/), by topic, for validating
every message a test receives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"
BASE = "https://croupier.example/schemas/v1/"


def _registry() -> Registry:
    resources = []
    for path in SCHEMAS.glob("*.json"):
        schema = json.loads(path.read_text("utf-8"))
        resources.append((BASE + path.name, Resource.from_contents(schema)))
    return Registry().with_resources(resources)


REGISTRY = _registry()
# The surveillance analytics' topics (docs/surveillance.md) and their schemas.
SURVEILLANCE = {
    "surveillance/alerts": "surveillance-alert",
    "surveillance/decisions": "surveillance-decisions",
    "surveillance/shoe": "surveillance-shoe",
    "surveillance/metrics": "surveillance-metrics",
    "surveillance/count": "surveillance-count",
    "surveillance/players": "surveillance-players",
}
VALIDATORS = {
    name: Draft202012Validator({"$ref": BASE + f"{name}.json"}, registry=REGISTRY)
    for name in (
        "status",
        "info",
        "state",
        "event",
        "outcome",
        "alert",
        "response",
        "recorded",
        "surveillance-state",
        *SURVEILLANCE.values(),
    )
}


def schema_for(topic_below_table: str) -> str | None:
    t = topic_below_table
    if t in ("status", "info", "state"):
        return t
    if t == "events":
        return "event"
    if t in ("outcome", "outcome/last"):
        return "outcome"
    if t == "alerts":
        return "alert"
    if t == "recorded":
        return "recorded"
    if t == "surveillance/state":
        return "surveillance-state"
    if t in SURVEILLANCE:
        return SURVEILLANCE[t]
    if t.startswith("cmd/") and t.endswith("/response"):
        return "response"
    return None


def validate(topic_below_table: str, payload: dict[str, Any]) -> None:
    name = schema_for(topic_below_table)
    assert name is not None, f"no schema for topic {topic_below_table!r}"
    VALIDATORS[name].validate(payload)
