"""Load-cell board frames, version 1 (docs/hardware.md, "Load-cell board").

    $LC1,<seq>,<n>,<raw 1>,...,<raw n>*<CRC-32>\r\n

- `seq`: 0..65535, one more each frame (wrapping), so the Pi sees lost frames.
- `n`: the number of channels that follow, 1..16; it must match the count.
- `raw i`: channel i's HX711 reading in ADC counts, a signed 24-bit integer
  (-8388608..8388607) in decimal without leading zeros, or `E` when the
  board could not read that HX711 (not ready, timed out, unplugged).

The board sends a frame every 100 ms (10 Hz, the HX711's slow rate) whether
or not anything changed: silence means the board or the cable is gone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from drivers.serial.lines import Line, encode, seq_field

TAG, VERSION = "LC", 1
RAW_MIN, RAW_MAX = -(1 << 23), (1 << 23) - 1
MAX_CHANNELS = 16
_RAW = re.compile(r"0|-?[1-9][0-9]{0,6}")


@dataclass(frozen=True, slots=True)
class Frame:
    seq: int
    raws: tuple[int | None, ...]  # None: the board could not read this channel


def parse(line: Line) -> Frame | str:
    """A decoded LC1 line to a frame, or the reason it is not one."""
    f = line.fields
    if len(f) < 3:
        return "too few fields"
    seq = seq_field(f[0])
    if seq is None:
        return f"bad sequence number {f[0]!r}"
    if not re.fullmatch(r"[1-9][0-9]?", f[1]) or int(f[1]) > MAX_CHANNELS:
        return f"bad channel count {f[1]!r}"
    n = int(f[1])
    if len(f) - 2 != n:
        return f"{n} channels announced, {len(f) - 2} sent"
    raws: list[int | None] = []
    for text in f[2:]:
        if text == "E":
            raws.append(None)
            continue
        if not _RAW.fullmatch(text):
            return f"bad reading {text!r}"
        value = int(text)
        if not RAW_MIN <= value <= RAW_MAX:
            return f"reading {value} is outside the HX711's 24-bit range"
        raws.append(value)
    return Frame(seq, tuple(raws))


def encode_frame(seq: int, raws: list[int | None] | tuple[int | None, ...]) -> bytes:
    """What the board sends (used by the fake board and the docs' examples)."""
    fields = [str(seq), str(len(raws)), *("E" if r is None else str(r) for r in raws)]
    return encode(TAG, VERSION, fields)
