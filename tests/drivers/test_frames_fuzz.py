"""Every frame parser under hypothesis: no exception escapes, nothing is misread.

"Misread" is checked two ways: random bytes never decode to a frame, and a
valid frame that is corrupted (a byte changed, inserted, dropped, cut short)
decodes either to exactly the frame that was sent or to nothing at all.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from drivers.loadcell import frame as lc
from drivers.serial import keypad as kp
from drivers.serial import shoe as cs
from drivers.serial.lines import Framer, Line, Reject, decode, encode
from drivers.settings import PANEL_ACTIONS

raws = st.one_of(st.none(), st.integers(lc.RAW_MIN, lc.RAW_MAX))
lc_frames = st.builds(
    lc.encode_frame, st.integers(0, 0xFFFF), st.lists(raws, min_size=1, max_size=16)
)
cards = st.sampled_from([r + s for r in "A23456789TJQK" for s in "SHDC"])
cs_lines = st.one_of(
    st.builds(cs.encode_card, st.integers(0, 0xFFFF), st.one_of(st.none(), cards)),
    st.builds(cs.encode_heartbeat, st.integers(0, 0xFFFF)),
)
kp_lines = st.one_of(
    st.builds(
        kp.encode_key,
        st.integers(0, 0xFFFF),
        st.sampled_from(PANEL_ACTIONS),
        st.integers(0, 999_999),
    ),
    st.builds(kp.encode_card, st.integers(0, 0xFFFF), cards),
    st.builds(kp.encode_heartbeat, st.integers(0, 0xFFFF)),
)
any_line = st.one_of(lc_frames, cs_lines, kp_lines)


PARSERS = {
    (lc.TAG, lc.VERSION): lc.parse,
    (cs.TAG, cs.VERSION): cs.parse,
    (kp.TAG, kp.VERSION): kp.parse,
}


def parse_all(data: bytes) -> list[object]:
    """Everything the drivers would take from `data`: decoded frames of any device."""
    out: list[object] = []
    for item in Framer().feed(data):
        if isinstance(item, Reject):
            continue
        line = decode(item)
        if isinstance(line, Reject):
            continue
        parser = PARSERS.get((line.tag, line.version))  # as each device's driver does
        if parser is None:
            continue
        parsed = parser(line)
        if not isinstance(parsed, str):
            out.append((line.tag, parsed))
    return out


@given(st.binary(max_size=600))
def test_random_bytes_never_raise_and_never_decode(data: bytes) -> None:
    assert parse_all(data) == []


@given(st.lists(st.binary(max_size=80), max_size=10))
def test_random_fields_never_raise(chunks: list[bytes]) -> None:
    # Well-framed, well-checksummed lines with arbitrary fields: the field parsers
    # refuse what is not theirs, never raise.
    for text in chunks:
        fields = tuple(text.decode("latin-1").split(","))
        for tag, parser in (("LC", lc.parse), ("CS", cs.parse), ("KP", kp.parse)):
            parser(Line(tag, 1, fields))


@given(any_line)
def test_a_valid_line_reads_back(data: bytes) -> None:
    assert len(parse_all(data)) == 1


@given(any_line, st.data())
def test_a_corrupted_line_is_refused_or_read_exactly(data: bytes, draw: st.DataObject) -> None:
    body = data[:-2]  # without \r\n
    where = draw.draw(st.integers(0, len(body) - 1))
    how = draw.draw(st.sampled_from(["flip", "insert", "drop", "cut"]))
    if how == "flip":
        bit = draw.draw(st.integers(0, 7))
        bad = body[:where] + bytes([body[where] ^ (1 << bit)]) + body[where + 1 :]
    elif how == "insert":
        bad = body[:where] + draw.draw(st.binary(min_size=1, max_size=4)) + body[where:]
    elif how == "drop":
        bad = body[:where] + body[where + 1 :]
    else:
        bad = body[:where]
    got = parse_all(bad + b"\r\n")
    assert got == [] or got == parse_all(data)


@given(st.lists(any_line, min_size=1, max_size=8), st.data())
def test_framing_survives_any_chunking_and_noise(lines: list[bytes], draw: st.DataObject) -> None:
    """Lines split anywhere across reads, with garbage lines between them: each
    valid line is read once, in order."""
    noise = draw.draw(st.binary(max_size=30).filter(lambda b: b"\n" not in b and b"$" not in b))
    stream = b"".join(noise + b"\n" + line for line in lines)
    cuts = sorted(draw.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    framer = Framer()
    items: list[bytes | Reject] = []
    for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        items += framer.feed(stream[a:b])
    decoded = [decode(i) for i in items if isinstance(i, bytes)]
    assert [d for d in decoded if isinstance(d, Line)] == [decode(x[:-2]) for x in lines]


@given(st.integers(257, 2000), any_line)
def test_an_oversized_line_is_dropped_whole_and_the_next_is_read(size: int, line: bytes) -> None:
    framer = Framer()
    got = framer.feed(b"$LC1," + b"1" * size) + framer.feed(b"2,3*00000000\r\n" + line)
    assert isinstance(got[0], Reject) and "longer" in got[0].reason
    assert [decode(g) for g in got if isinstance(g, bytes)] == [decode(line[:-2])]


def test_known_refusals() -> None:
    good = lc.encode_frame(1, [100, 200])
    assert isinstance(parse_all(good)[0], tuple)
    assert decode(good[:-12] + b"*00000000") == Reject("checksum mismatch")
    body = b"LC1,1,3,100,200"  # says 3 channels, sends 2
    from drivers.serial.lines import crc

    line = decode(b"$" + body + b"*" + crc(body).encode())
    assert isinstance(line, Line) and lc.parse(line) == "3 channels announced, 2 sent"
    wrong_version = encode("LC", 2, ["1", "1", "5"])
    assert isinstance(decode(wrong_version[:-2]), Line) and parse_all(wrong_version) == []
    assert cs.parse(Line("CS", 1, ("1", "C", "1S"))) == "not a card or heartbeat line"
    assert kp.parse(Line("KP", 1, ("1", "B", "explode", "10"))) == (
        "not a key, card or heartbeat line"
    )
