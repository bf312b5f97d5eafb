"""The validation layer at every boundary (controller/inputs.py and its users), on the
malformed inputs issue 37 lists: each is refused with a message naming what and why,
none reaches code that raises."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from controller import commands, rules
from controller import scale_file as scale
from controller.cli.replay import play
from controller.config import ConfigError, load
from controller.display.server import resolve
from controller.engine.errors import BadAmount, ProfileError
from controller.engine.money import MAX_AMOUNT, parse_amount
from controller.inputs import InputError, load_json, load_toml, nesting
from drivers.loadcell.scale import CalibrationError

ENVELOPE = {"transaction": "t1", "by": "anna"}


# ------------------------------------------------------------------ JSON
@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b'{"a": "\xff"}', "not valid UTF-8 (byte 8: 0xff)"),
        (b"[" * 300 + b"]" * 300, "nests 300 levels deep; at most 16"),
        (b'{"a": ' + b"9" * 4000 + b"}", "a number of 4000 digits"),
        (b'{"a": NaN}', "NaN is not a JSON number"),
        (b'{"a": -Infinity}', "-Infinity is not a JSON number"),
        (b'{"a": 1e999}', "out of range"),
        (b'{"a": 1, "a": 2}', "the field 'a' is given twice"),
        (b'{"a": "\\ud800"}', "lone surrogate"),
        (b"x" * 5000, "5000 bytes; at most 4096"),
        (b'{"a": ', "not JSON"),
    ],
)
def test_load_json_refuses_with_the_reason(data: bytes, why: str) -> None:
    with pytest.raises(InputError, match=why.replace("(", r"\(").replace(")", r"\)")):
        load_json(data)


def test_depth_is_measured_outside_strings_and_escapes() -> None:
    assert nesting('{"a": "[[[[{{{{", "b": [["\\"]]]]"]]}') == 3
    assert nesting('"\\\\"[[]]') == 2
    assert load_json('{"a": "[[[[[[[[[[[[[[[[[[[[[[[["}') == {"a": "[" * 24}


# ------------------------------------------------------------------ money
@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("1e30", "no exponent"),
        ("1E+26", "no exponent"),
        ("1" * 30, "30 characters long"),
        ("1" * 60, "60 characters long"),
        ("1e999999999", "no exponent"),
        ("9" * 5000, "5000 characters long"),
        ("sNaN", "not a finite"),
        ("10000000000", "more than 9999999999.99"),
        (10**40, "more than 9999999999.99"),
        (" 5", "plain digits"),
        ("5_0", "plain digits"),
        ("10.000", "more than 2 decimal places"),
    ],
)
def test_money_out_of_the_tables_range_is_refused_naming_the_field(
    value: object, why: str
) -> None:
    with pytest.raises(BadAmount, match=f"^bet amount.*{why}"):
        parse_amount(value, "bet amount")


def test_the_largest_amount_is_taken() -> None:
    assert parse_amount("9999999999.99") == MAX_AMOUNT


# ------------------------------------------------------------------ pit commands
@pytest.mark.parametrize("value", ["1e30", "1E+26", "1" * 30, "1" * 60, "1e999999999"])
@pytest.mark.parametrize("field", ["min", "max"])
def test_set_limits_that_killed_the_table_are_refused(field: str, value: str) -> None:
    request = {**ENVELOPE, "min": "10", "max": "500", field: value}
    got = commands.parse("set_limits", json.dumps(request).encode())
    assert isinstance(got, commands.Refusal)
    assert got.error.startswith(f"{field}: "), got.error
    assert got.transaction == "t1"


def test_a_request_nested_hundreds_deep_is_refused() -> None:
    got = commands.parse("set_limits", b"[" * 400 + b"]" * 400)
    assert isinstance(got, commands.Refusal) and "nests 400 levels deep" in got.error


@pytest.mark.parametrize("from_seq", [2**63, 10**3990, 2**53])
def test_republish_from_an_impossible_seq_is_refused(from_seq: int) -> None:
    payload = f'{{"transaction": "t1", "from_seq": {from_seq}}}'.encode()
    got = commands.parse("republish", payload)
    assert isinstance(got, commands.Refusal), got


def test_republish_with_by_null_is_taken_not_a_crash() -> None:
    got = commands.parse("republish", b'{"transaction": "t1", "by": null}')
    assert isinstance(got, commands.Republish) and got.by is None


# ------------------------------------------------------------------ round scripts
HEAD = b'{"type": "shoe", "rules": "fr-2007"}\n'


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (b'{"type": "bet", "box": 1, "amount": "\xc3("}', "not valid UTF-8"),
        (b"[" * 5000, "nests 5000 levels deep"),
        (b'{"type": "bet", "box": 1, "amount": "1e30"}', "bet amount '1e30'"),
        (b'{"type": "bet", "box": 1, "amount": "' + b"7" * 5000 + b'"}', "5000 characters"),
        (b'{"type": "bet", "box": 1, "amount": ' + b"7" * 5000 + b"}", "5000 digits"),
        (b'{"type": {"a": 1}}', "unknown event type {'a': 1}"),
        (b'{"type": ["bet"]}', "unknown event type"),
        (b'{"type": "action", "box": 1, "action": {}}', "unknown action {}"),
        (b'{"type": "bet", "box": 99999999999999999999, "amount": "5"}', "box must be"),
        (b'{"type": "bet", "box": 1, "player": "\\ud800", "amount": "5"}', "lone surrogate"),
        (b'{"type": "shoe", "rules": "' + b"x" * 300 + b'"}', "rules must be a profile name"),
    ],
)
def test_a_malformed_script_line_is_line_n_why_and_exit_2(line: bytes, why: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    status = play(io.BytesIO(HEAD + line + b"\n"), out, err)
    assert status == 2
    assert err.getvalue().startswith("line 2: "), err.getvalue()
    assert why in err.getvalue()


def test_a_script_naming_a_device_as_its_profile_is_refused_not_read_forever() -> None:
    out, err = io.StringIO(), io.StringIO()
    script = b'{"type": "shoe", "rules": "/dev/zero"}\n'
    assert play(io.BytesIO(script), out, err) == 2
    assert err.getvalue() == "line 1: /dev/zero: no such profile file\n"


# ------------------------------------------------------------------ files
@pytest.mark.parametrize(
    ("text", "why"),
    [
        (b'[table]\nid = "\xff"\n', "not valid UTF-8"),
        (b"a = " + b"[" * 3000 + b"]" * 3000 + b"\n", "nested too deep"),
        (b"[state]\nkeep_sent = " + b"9" * 5000 + b"\n", "not valid TOML"),
        (b"[state]\nkeep_sent = 99999999999999999999\n", "keep_sent"),
        (b'[surveillance]\npayout_tolerance = "1e30"\n', "payout_tolerance"),
        (b'[table]\nrules = "/dev/zero"\n', "no such profile file"),
    ],
)
def test_a_bad_config_file_is_a_config_error_naming_it(
    tmp_path: Path, text: bytes, why: str
) -> None:
    path = tmp_path / "table.toml"
    path.write_bytes(text)
    with pytest.raises(ConfigError, match=why) as caught:
        load(path)
    assert str(caught.value).startswith(str(path))


def test_toml_nesting_is_refused_not_a_recursion_error() -> None:
    with pytest.raises(InputError, match="nested too deep"):
        load_toml("a = " + "[" * 5000 + "]" * 5000, "x.toml")


@pytest.mark.parametrize(
    ("setting", "why"),
    [('table_max = "1e30"', "no exponent"), ("boxes = " + "9" * 40, "whole number")],
)
def test_a_profile_out_of_range_is_refused(tmp_path: Path, setting: str, why: str) -> None:
    path = tmp_path / "house.toml"
    path.write_text(f'extends = "fr-2007"\nname = "house"\n{setting}\n')
    with pytest.raises(ProfileError, match=why):
        rules.load(str(path))


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"denominations": [{"value": "1e30", "grams": 10.0}]}, "no exponent"),
        ({"denominations": [{"value": "sNaN", "grams": 10.0}]}, "not a finite"),
        ({"noise_g": 10**15}, "not a number in range"),
        ({"noise_g": 10**400}, "a number of 401 digits"),
        ({"unique_up_to": 200, "max_chips": 200}, "stacks to tell apart"),
    ],
)
def test_a_bad_calibration_file_is_refused(
    tmp_path: Path, change: dict[str, object], why: str
) -> None:
    from tests.drivers.conftest import make_calibration

    data = {**scale.to_json(make_calibration()), **change}
    if change.get("unique_up_to") == 200:
        data["denominations"] = [
            {"value": str(5 * 2**i), "grams": 10.0 + 9 * i} for i in range(8)
        ]
    path = tmp_path / "scale.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match=why):
        scale.load(path)


def test_a_calibration_file_of_invalid_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "scale.json"
    path.write_bytes(b'{"format": "\xff"}')
    with pytest.raises(CalibrationError, match="not valid UTF-8"):
        scale.load(path)


# ------------------------------------------------------------------ display server
def test_a_path_the_file_system_refuses_is_not_found() -> None:
    assert resolve("/" + "a" * 5000) is None
    assert resolve("/" + "a/" * 3000) is None
    assert resolve("/index.html") is not None


def test_a_line_without_end_is_refused_at_its_start_not_read_whole() -> None:
    out, err = io.StringIO(), io.StringIO()
    endless = io.BytesIO(HEAD + b"a" * 5_000_000)
    assert play(endless, out, err) == 2
    assert err.getvalue() == "line 2: bad JSON: the line is 16385 bytes; at most 16384 are taken\n"
    assert endless.tell() < 20_000  # the rest was never read


@pytest.mark.parametrize(
    "fields",
    [
        {"version": "abc"},
        {"meta": "[" * 5000},
        {"meta": '{"feature_dims": ' + "9" * 5000 + "}"},
        {"meta": "[1, 2]"},
    ],
)
def test_a_damaged_vision_calibration_is_refused(tmp_path: Path, fields: dict[str, str]) -> None:
    import numpy as np

    from drivers.vision import vision_file

    path = tmp_path / "vision.npz"
    arrays = {"format": vision_file.FORMAT, "version": str(vision_file.VERSION), "meta": "{}"}
    np.savez(path, **{**arrays, **fields})
    with pytest.raises(vision_file.CalibrationError, match=str(path)):
        vision_file.load(path)
