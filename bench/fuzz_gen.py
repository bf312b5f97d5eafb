"""Malformed input for every boundary of the table: hypothesis strategies that take
valid inputs and break them, byte-wise and structurally.

Used twice: by the short fuzz tests (tests/fuzz/, in `scripts/test`) and by the
long run (`python -m bench fuzz --minutes N`). Each strategy starts from real,
valid input (the round scripts of tests/scripts, a supervisor's requests, the
shipped profiles, a table's config, a scale calibration, device frames) so that
most cases get past the first check and reach the deeper ones.

Values that `json.dumps` cannot write (a 5,000-digit integer, NaN, a list nested
3,000 deep) travel as `Raw` placeholders and are spliced into the text after.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from controller.inputs import InputError, load_json

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((REPO / "tests" / "scripts").glob("*.jsonl"))
EXPECTED = ".expected.jsonl"


@dataclass(frozen=True)
class Raw:
    """JSON text to splice in as a value, as is."""

    text: str


# --------------------------------------------------------------- bad values
def deep(depth: int, open_: str = "[", close: str = "]") -> Raw:
    return Raw(open_ * depth + close * depth)


INTERESTING_NUMBERS = [
    2**31, 2**53, 2**63, 2**64, -1, 0, -(2**63), 10**19, 10**20,
]
MONEY_TEXTS = [
    "1e30", "1E+26", "1e999999999", "-1e-999999999", "NaN", "nan", "sNaN", "Infinity",
    "-Infinity", "inf", "-0", "+5", " 5", "5 ", "5_0", "0x10", "1,5", "12.505", "10.000",
    "0", "0.00", "00000000000010", "9999999999.99", "10000000000", "٣", "5\u00a0",
    "1" * 30, "1" * 60, "9" * 5000, "0." + "0" * 40 + "1",
]
UNICODE_JUNK = [
    "\u0000", "\ud800", "\udfff", "\u202e", "\ufeff", "\uffff", "\U0001d7d8", "é", "\u0085", "\r\n",
]


def bad_values() -> st.SearchStrategy[Any]:
    """Anything a buggy console or a careless script could put where a value goes."""
    return st.one_of(
        st.sampled_from(MONEY_TEXTS),
        st.sampled_from(INTERESTING_NUMBERS),
        st.sampled_from(UNICODE_JUNK),
        st.integers(),
        st.integers(min_value=19, max_value=6000).map(lambda n: Raw("9" * n)),
        st.integers(min_value=19, max_value=6000).map(lambda n: "9" * n),
        st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1e-999"]).map(Raw),
        st.integers(min_value=2, max_value=3000).map(deep),
        st.integers(min_value=2, max_value=3000).map(lambda d: deep(d, '{"a":' , "}")),
        st.floats(allow_nan=True, allow_infinity=True),
        st.none(),
        st.booleans(),
        st.text(max_size=20),
        st.text(min_size=300, max_size=5000),
        st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
        st.lists(st.integers(), max_size=3),
    )


def dumps(value: Any) -> str:
    """JSON text of `value` with every `Raw` spliced in (and NaN written as NaN)."""
    raws: dict[str, str] = {}

    def swap(v: Any) -> Any:
        if isinstance(v, Raw):
            key = f"@@{uuid.uuid4().hex}@@"
            raws[f'"{key}"'] = v.text
            return key
        if isinstance(v, dict):
            return {k: swap(x) for k, x in v.items()}
        if isinstance(v, list):
            return [swap(x) for x in v]
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 10**4000:
            return swap(Raw(str(v)))
        return v

    text = json.dumps(swap(value), ensure_ascii=False)
    for key, raw in raws.items():
        text = text.replace(key, raw)
    return text


# --------------------------------------------------------------- mutations
@st.composite
def mutated_object(draw: st.DrawFn, seed: dict[str, Any]) -> str:
    """One JSON object broken structurally: a value replaced by a bad one, a key dropped,
    added, renamed or given twice; or the whole thing wrapped, emptied or re-typed."""
    obj: dict[str, Any] = dict(seed)
    keys = list(obj) or ["type"]
    how = draw(st.sampled_from(["value", "value", "value", "drop", "add", "twice", "wrap", "type"]))
    if how == "value":
        obj[draw(st.sampled_from(keys))] = draw(bad_values())
    elif how == "drop":
        obj.pop(draw(st.sampled_from(keys)), None)
    elif how == "add":
        obj[draw(st.text(max_size=12))] = draw(bad_values())
    elif how == "twice":
        key = draw(st.sampled_from(keys))
        text = dumps(obj)
        again = f"{json.dumps(key)}: {dumps(draw(bad_values()))}"
        return text[:-1] + (", " if obj else "") + again + "}"
    elif how == "wrap":
        return dumps(draw(st.sampled_from([[obj], "x", 1, None, [], {"": obj}])))
    else:
        return dumps(draw(bad_values()))
    return dumps(obj)


BYTES_OF_NOTE = [
    b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x00", b"\r", b"\n", b"\"", b"\\",
    b"[", b"{", b"}", b"]", b",", b":", b"\xef\xbb\xbf", b"$", b"*", b"\x1b", b"\x7f",
]


@st.composite
def mutated_bytes(draw: st.DrawFn, data: bytes, max_ops: int = 4) -> bytes:
    """`data` with a few byte-level changes: flips, inserts, deletions, a cut, a repeat."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, max_ops))):
        at = draw(st.integers(0, len(out)))
        op = draw(st.sampled_from(["flip", "insert", "note", "delete", "cut", "repeat"]))
        if op == "flip" and out:
            at = min(at, len(out) - 1)
            out[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "insert":
            out[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif op == "note":
            out[at:at] = draw(st.sampled_from(BYTES_OF_NOTE))
        elif op == "delete":
            del out[at : at + draw(st.integers(1, 16))]
        elif op == "cut":
            del out[at:]
        elif op == "repeat":
            span = bytes(out[at : at + draw(st.integers(1, 64))])
            out[at:at] = span * draw(st.integers(1, 50))
    return bytes(out)


# --------------------------------------------------------------- round scripts
def script_lines() -> list[list[str]]:
    return [
        p.read_text("utf-8").splitlines() for p in SCRIPTS if not p.name.endswith(EXPECTED)
    ]


@st.composite
def round_scripts(draw: st.DrawFn) -> bytes:
    """A shipped round script with lines broken, duplicated, swapped, dropped or cut."""
    lines = list(draw(st.sampled_from(script_lines())))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["object", "object", "bytes", "dup", "swap", "drop", "cut"]))
        if op == "object":
            try:  # a line an earlier step broke is no longer an object
                # Bounded: json.loads of a line nested 3,000 deep raises RecursionError,
                # at a depth that depends on the caller's stack (hypothesis saw it as flaky).
                seed = load_json(lines[i], max_bytes=1 << 20)
            except InputError:
                seed = {}
            lines[i] = draw(mutated_object(seed if isinstance(seed, dict) else {}))
        elif op == "bytes":
            broken = draw(mutated_bytes(lines[i].encode()))
            lines[i] = "\0RAW" + broken.hex()  # turned back into these bytes below
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "drop" and len(lines) > 1:
            del lines[i]
        elif op == "cut":
            del lines[i + 1 :]
    out = []
    for line in lines:
        raw = line.startswith("\0RAW")
        out.append(bytes.fromhex(line[4:]) if raw else line.encode("utf-8", "surrogatepass"))
    return b"\n".join(out) + b"\n"


# --------------------------------------------------------------- pit requests
ENVELOPE = {"transaction": "t1", "by": "anna", "console": "pit-7"}
REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("set_limits", {**ENVELOPE, "min": "10", "max": "300", "reason": "vip"}),
    ("set_limits", {**ENVELOPE, "min": "5", "max": "500"}),
    ("void_round", {**ENVELOPE, "reason": "dispute at box 2"}),
    ("void", {**ENVELOPE, "reason": "dispute"}),
    ("new_shoe", {**ENVELOPE, "reason": "dealer change"}),
    ("republish", {"transaction": "t1", "from_seq": 1}),
    ("republish", {"transaction": "t1"}),
    (
        "correct_card",
        {**ENVELOPE, "reason": "misread", "round": 1, "box": 1, "hand": 0, "position": 0,
         "was": "9H", "card": "9S"},
    ),
]
NAMES = ["set_limits", "void_round", "void", "new_shoe", "republish", "correct_card"]


@st.composite
def pit_requests(draw: st.DrawFn) -> tuple[str, bytes]:
    """(command name, payload) of a request broken structurally or byte-wise; now and then
    a wrong or junk command name."""
    name, seed = draw(st.sampled_from(REQUESTS))
    seed = {**seed, "transaction": f"f{draw(st.integers(0, 10**9))}"}
    how = draw(st.sampled_from(["object", "object", "object", "bytes", "name", "deep"]))
    if how == "object":
        payload = draw(mutated_object(seed)).encode("utf-8", "surrogatepass")
    elif how == "bytes":
        payload = draw(mutated_bytes(json.dumps(seed).encode()))
    elif how == "name":
        name = draw(st.one_of(st.sampled_from(NAMES), st.text(max_size=20)))
        payload = json.dumps(seed).encode()
    else:
        payload = ("[" * draw(st.integers(2, 5000))).encode()
    return name, payload


# --------------------------------------------------------------- TOML files
TOML_JUNK = [
    "1e999", "-1e999", "nan", "inf", '"1e30"', '"NaN"', "99999999999999999999999999999",
    '"' + "9" * 5000 + '"', "9" * 5000, "true", '""', "[]", "{}", "-1", "0", '"\\u0000"',
    '"/dev/zero"', '"/etc/passwd"', '"' + "a" * 300 + '.toml"', "1979-05-27T07:32:00Z",
]


@st.composite
def toml_values(draw: st.DrawFn) -> str:
    return draw(
        st.one_of(
            st.sampled_from(TOML_JUNK),
            st.integers(2, 3000).map(lambda d: "[" * d + "]" * d),
            st.integers(2, 3000).map(lambda d: "{a=" * d + "1" + "}" * d),
            st.integers().map(str),
            st.text(max_size=30).map(json.dumps),
        )
    )


@st.composite
def mutated_toml(draw: st.DrawFn, text: str) -> bytes:
    """A TOML file with one value replaced, a line dropped or doubled, or bytes broken."""
    lines = text.splitlines()
    values = [i for i, line in enumerate(lines) if "=" in line and not line.startswith("#")]
    how = draw(st.sampled_from(["value", "value", "dup", "drop", "bytes"]))
    if how == "value" and values:
        i = draw(st.sampled_from(values))
        key = lines[i].split("=", 1)[0]
        lines[i] = f"{key}= {draw(toml_values())}"
    elif how == "dup" and lines:
        i = draw(st.integers(0, len(lines) - 1))
        lines.insert(i, lines[i])
    elif how == "drop" and lines:
        del lines[draw(st.integers(0, len(lines) - 1))]
    elif how == "bytes":
        return draw(mutated_bytes(text.encode()))
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


CONFIG = """\
[table]
id = "blue-7"
rules = "be-casino"
boxes = 5

[state]
dir = "state"
fsync = false
keep_sent = 5000

[mqtt]
broker = "mqtts://pit.example:8883"
username = "table-blue-7"
password = "secret"
keepalive = 10
window = 100

[cards]
min_confidence = 0.95
camera_stale_after = 5.0

[surveillance]
count_z = 3.5
payout_tolerance = "0.5"

[sim]
seed = 3
rounds = 10
speed = 2.0
players = { "3" = "counter-8" }

[view]
refresh_hz = 4.0
"""


def profile_texts() -> list[str]:
    return [p.read_text("utf-8") for p in sorted((REPO / "controller" / "profiles").glob("*.toml"))]


def calibration_text() -> str:
    from decimal import Decimal

    from controller.scale_file import to_json
    from drivers.loadcell.scale import ChannelCal, Denomination, ScaleCalibration

    cal = ScaleCalibration(
        channels=(ChannelCal(1, 1000, 420.0), ChannelCal(2, -2000, 415.5)),
        denominations=(Denomination(Decimal("5"), 10.0), Denomination(Decimal("25"), 27.5)),
        noise_g=0.5,
        chip_tolerance_g=0.1,
        max_chips=40,
        unique_up_to=8,
        created="2026-01-01T00:00:00Z",
    )
    return json.dumps(to_json(cal))


@st.composite
def calibration_files(draw: st.DrawFn) -> bytes:
    data = json.loads(calibration_text())
    how = draw(st.sampled_from(["top", "denomination", "channel", "bytes", "deep"]))
    if how == "top":
        return draw(mutated_object(data)).encode("utf-8", "surrogatepass")
    if how in ("denomination", "channel"):
        key = "denominations" if how == "denomination" else "channels"
        i = draw(st.integers(0, len(data[key]) - 1))
        data[key][i] = Raw(draw(mutated_object(data[key][i])))
        return dumps(data).encode("utf-8", "surrogatepass")
    if how == "bytes":
        return draw(mutated_bytes(calibration_text().encode()))
    return ("[" * draw(st.integers(2, 5000))).encode()


# --------------------------------------------------------------- device lines
@st.composite
def device_streams(draw: st.DrawFn) -> tuple[str, bytes]:
    """(device kind, bytes off its serial line): valid frames, then broken."""
    from drivers.loadcell import frame as lc
    from drivers.serial import keypad as kp
    from drivers.serial import shoe as cs

    kind = draw(st.sampled_from(["loadcell", "shoe", "keypad"]))
    seq = draw(st.integers(0, 0xFFFF))
    if kind == "loadcell":
        raws = draw(st.lists(st.one_of(st.none(), st.integers(-(1 << 23), (1 << 23) - 1)),
                             min_size=1, max_size=16))
        good = lc.encode_frame(seq, raws)
    elif kind == "shoe":
        good = draw(st.sampled_from([cs.encode_card(seq, "AS"), cs.encode_card(seq, None),
                                     cs.encode_heartbeat(seq)]))
    else:
        good = draw(st.sampled_from([kp.encode_key(seq, "stand", 120), kp.encode_card(seq, "TH"),
                                     kp.encode_heartbeat(seq)]))
    stream = good * draw(st.integers(1, 3))
    return kind, draw(mutated_bytes(stream, max_ops=6))


# --------------------------------------------------------------- display requests
@st.composite
def http_requests(draw: st.DrawFn) -> bytes:
    """A browser's GET for a page or file, broken: the path, the request line, headers."""
    path = draw(st.sampled_from(["/", "/floor", "/dealer", "/config.json", "/js/page.js",
                                 "/css/display.css", "/favicon.svg"]))
    how = draw(st.sampled_from(["path", "path", "bytes", "long", "traverse"]))
    if how == "path":
        path = path + draw(st.text(max_size=40)).replace("\r", "").replace("\n", "")
    elif how == "long":
        path = "/" + "a" * draw(st.integers(200, 70000))
    elif how == "traverse":
        path = draw(st.sampled_from(["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
                                     "/static/../../x", "//etc/passwd", "/\\..\\x", "/%00"]))
    request = f"GET {path} HTTP/1.1\r\nHost: table\r\n\r\n".encode("utf-8", "surrogatepass")
    if how == "bytes":
        request = draw(mutated_bytes(request))
    return request
