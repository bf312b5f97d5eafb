"""docs/schemas is the published contract for what the table takes in, and the
checks in the code are what it enforces: the two must say the same thing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from bench.fuzz_gen import MONEY_TEXTS, pit_requests
from controller import commands
from controller.engine.errors import BadAmount
from controller.engine.money import AMOUNT_PATTERN, POSITIVE_AMOUNT_PATTERN, parse_amount
from controller.inputs import InputError, load_json

SCHEMAS = Path(__file__).resolve().parents[1] / "docs" / "schemas"
COMMAND = json.loads((SCHEMAS / "command.json").read_text("utf-8"))
DEFS = json.loads((SCHEMAS / "defs.json").read_text("utf-8"))["$defs"]


def test_the_published_request_schema_is_the_models_own() -> None:
    assert json.loads(json.dumps(commands.request_schema())) == COMMAND, (
        "docs/schemas/command.json differs from controller/commands.py: regenerate it with "
        "`python -m controller.commands > docs/schemas/command.json` and review the change"
    )


def test_the_published_amount_is_the_one_parse_amount_takes() -> None:
    assert DEFS["amount"]["pattern"] == AMOUNT_PATTERN


def _takes(text: str, allow_zero: bool) -> bool:
    try:
        parse_amount(text, allow_zero=allow_zero)
    except BadAmount:
        return False
    return True


amount_texts = st.one_of(
    st.sampled_from(MONEY_TEXTS),
    st.from_regex(r"[0-9]{0,12}(\.[0-9]{0,3})?", fullmatch=True),
    st.text(alphabet="0123456789.-+eE _", max_size=16),
)


@settings(max_examples=300)
@given(amount_texts)
def test_an_amount_is_taken_exactly_when_the_schema_allows_it(text: str) -> None:
    assert _takes(text, True) == bool(re.fullmatch(AMOUNT_PATTERN, text)), text
    assert _takes(text, False) == bool(re.fullmatch(POSITIVE_AMOUNT_PATTERN, text)), text


def _integral_floats(value: Any) -> bool:
    """JSON Schema counts 1.0 as an integer; the models (strict) do not: the one
    difference, stated in the schema's description."""
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(_integral_floats(v) for v in value.values())
    if isinstance(value, list):
        return any(_integral_floats(v) for v in value)
    return False


@settings(max_examples=400)
@given(pit_requests())
def test_a_request_passes_the_schema_exactly_when_the_model_takes_it(
    request: tuple[str, bytes],
) -> None:
    name, payload = request
    try:
        data = load_json(payload, max_bytes=commands.MAX_BYTES, max_depth=commands.MAX_DEPTH)
    except InputError:
        return  # refused before any schema applies (size, depth, encoding, numbers)
    if not commands.known(name) or not isinstance(data, dict) or _integral_floats(data):
        return
    schema = {**COMMAND["$defs"][commands.canonical(name)], "$defs": COMMAND["$defs"]}
    by_schema = Draft202012Validator(schema).is_valid(data)
    by_model = not isinstance(commands.validate(name, data), commands.Refusal)
    assert by_schema == by_model, (name, data, commands.validate(name, data))


# ------------------------------------------------------------------ round scripts
ROUND_SCRIPT = Draft202012Validator(
    json.loads((SCHEMAS / "round-script.json").read_text("utf-8"))
)


def _object_lines() -> st.SearchStrategy[str]:
    from bench.fuzz_gen import mutated_object, script_lines

    seeds = [json.loads(line) for lines in script_lines() for line in lines if line.strip()]
    seeds += [{"type": "void", "reason": "x"}, {"type": "misdeal_card"},
              {"type": "insurance", "box": 1, "amount": "5"}, {"type": "burn", "card": "7H"}]
    return st.sampled_from(seeds).flatmap(mutated_object) | st.sampled_from(seeds).map(json.dumps)


@settings(max_examples=300)
@given(_object_lines())
def test_a_script_line_passes_the_schema_exactly_when_the_engine_takes_it(line: str) -> None:
    from controller.engine.errors import TableError
    from controller.engine.events import parse_event

    try:
        data = load_json(line.encode("utf-8", "surrogatepass"), max_bytes=16_384)
    except InputError:
        return  # refused before any schema applies
    if _integral_floats(data):
        return
    try:
        parse_event(data)
        by_engine = True
    except TableError:
        by_engine = False
    assert ROUND_SCRIPT.is_valid(data) == by_engine, (data, by_engine)
