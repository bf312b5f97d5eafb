"""The one way bytes from outside become data: strict, bounded, never raising.

Every boundary that takes JSON (round-script lines, pit commands, calibration
files) comes through `load_json`; every file (config, profiles, calibration)
through `read_text`. Either returns the decoded value or raises `InputError`,
whose message says what is wrong in words a supervisor can act on. Nothing
else escapes: no UnicodeDecodeError, RecursionError, or the ValueError
Python raises for an integer of more than 4,300 digits.

Why each bound, and why before parsing:
- UTF-8 is decoded strictly: a replacement character would turn a corrupt
  byte into a plausible name or player.
- Size and nesting depth are measured on the text before `json.loads` sees
  it: the parser recurses once per level, so a few thousand `[` would end
  the process (RecursionError) or, worse, exhaust the C stack.
- Numbers: JSON integers longer than `MAX_INT_DIGITS` and NaN / Infinity
  (Python's json accepts them; JSON does not) are refused while parsing; a
  float that overflows to infinity too. Money never arrives as a JSON
  number anyway (controller.engine.money).
- A key given twice is refused: `{"amount": "5", "amount": "500"}` must not
  silently mean the second.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from pathlib import Path
from typing import Any

MAX_DEPTH = 16  # the deepest real input (a calibration file) nests 4 levels
MAX_INT_DIGITS = 20  # 2**64 has 20 digits: every integer the table uses is far below
_BRACKETS = re.compile(r'[\[\]{}"\\]')
_SURROGATE = re.compile("[\ud800-\udfff]")


class InputError(ValueError):
    """Input refused before it reached anything that acts on it; the message says why."""


def decode_utf8(data: bytes, what: str = "input") -> str:
    try:
        return data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{what} is not valid UTF-8 (byte {exc.start + 1}: 0x{data[exc.start]:02x})"
        ) from None


def nesting(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON text (brackets in strings
    do not count). Linear, no recursion, no allocation per character."""
    depth = deepest = 0
    in_string = escaped = False
    escape_at = -2
    for m in _BRACKETS.finditer(text):
        c = m.group()
        if in_string:
            if escaped:
                # An escape covers the one character after the backslash; the regex
                # only sees some characters, so check that this one is that one.
                escaped = False
                if m.start() == escape_at + 1:
                    continue
            if c == "\\":
                escaped, escape_at = True, m.start()
            elif c == '"':
                in_string = False
            continue
        if c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def _no_constant(name: str) -> Any:
    raise InputError(f"{name} is not a JSON number (write a number, or a decimal string)")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise InputError(
            f"a number of {len(text.lstrip('-'))} digits: no number here has more than "
            f"{MAX_INT_DIGITS}"
        )
    return int(text)


def _float(text: str) -> float:
    if len(text) > 40:
        raise InputError(f"a number of {len(text)} characters: not one the table uses")
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"the number {text} is out of range")
    return value


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise InputError(f"the field {key!r} is given twice")
        out[key] = value
    return out


def _text_only(value: Any) -> None:
    """Refuse lone surrogates (`"\\ud800"` decodes to one): such a string cannot be
    written as UTF-8, so it would fail later, in the journal or on the broker."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise InputError("a string holds a lone surrogate (\\ud800-\\udfff): not text")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def load_json(
    data: bytes | str, what: str = "input", max_bytes: int = 4096, max_depth: int = MAX_DEPTH
) -> Any:
    """Decode one JSON text, strictly and within bounds, or raise `InputError`."""
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise InputError(f"{what} is {size} bytes; at most {max_bytes} are taken")
    text = decode_utf8(data, what) if isinstance(data, bytes) else data
    depth = nesting(text)
    if depth > max_depth:
        raise InputError(f"{what} nests {depth} levels deep; at most {max_depth} are taken")
    try:
        value = json.loads(
            text,
            parse_constant=_no_constant,
            parse_int=_int,
            parse_float=_float,
            object_pairs_hook=_pairs,
        )
        _text_only(value)
        return value
    except InputError as exc:
        raise InputError(f"{what}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} is not JSON: {exc.msg} at column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:  # the bounds above should make this unreachable
        raise InputError(f"{what} is not JSON: {exc}") from None


def read_text(path: Path, what: str = "file", max_bytes: int = 1 << 20) -> str:
    """A whole small file (config, profile, calibration) as strict UTF-8, or `InputError`.
    OSError is left to the caller, which knows how to name a missing file."""
    with open(path, "rb") as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputError(f"{path}: more than {max_bytes} bytes: not a {what}")
    text = decode_utf8(data, str(path))
    if "\0" in text:
        raise InputError(f"{path}: holds a NUL byte: not a {what}")
    return text


def load_toml(text: str, where: str) -> dict[str, Any]:
    """TOML text to a mapping, or `InputError`. tomllib recurses once per nested inline
    array or table: a file nested thousands deep raises RecursionError, refused here."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}: not valid TOML: {exc}") from None
    except RecursionError:
        raise InputError(f"{where}: nested too deep to be a configuration") from None
    except ValueError as exc:  # an integer of more than 4,300 digits, and the like
        raise InputError(f"{where}: not valid TOML: {str(exc)[:120]}") from None
