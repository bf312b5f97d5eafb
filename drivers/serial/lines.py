"""The line format every croupier serial device speaks (docs/hardware.md).

    $<TAG><VERSION>,<field>,<field>,...*<CRC>\r\n

- `TAG` is two capital letters naming the device kind (`LC` load-cell board,
  `CS` card shoe, `KP` keypad) and `VERSION` one to three digits: a device
  and the Pi agree on both or the line is refused, so a firmware that
  changes its fields must change its version.
- Fields are printable ASCII without `$`, `*` or `,`.
- `CRC` is the CRC-32 (IEEE 802.3, as zlib.crc32) of every byte between `$`
  and `*`, as 8 upper-case hex digits. CRC-32 catches every error burst of
  up to 32 bits and all but one in 2**32 of the rest, so a corrupted line is
  refused, not misread.
- A line ends at `\n` (a `\r` before it is dropped). A line longer than
  `MAX_LINE` bytes is dropped whole, up to its newline: the reader never
  buffers without bound and never glues the tail of one frame to the head
  of the next.

Nothing here raises on input: every function returns either a decoded
value or a `Reject` saying why.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

MAX_LINE = 256
_LINE = re.compile(rb"\$([A-Z]{2})([0-9]{1,3}),([\x20-\x29\x2b-\x7e]*)\*([0-9A-F]{8})")
_FIELD_BAD = re.compile(r"[$*,]")


@dataclass(frozen=True, slots=True)
class Reject:
    """A line (or a run of bytes) that is not a valid frame, and why."""

    reason: str


@dataclass(frozen=True, slots=True)
class Line:
    tag: str
    version: int
    fields: tuple[str, ...]


def crc(body: bytes) -> str:
    return f"{zlib.crc32(body) & 0xFFFFFFFF:08X}"


def encode(tag: str, version: int, fields: list[str] | tuple[str, ...]) -> bytes:
    """One complete line, newline included (what a device sends)."""
    if not re.fullmatch(r"[A-Z]{2}", tag) or not 0 <= version <= 999:
        raise ValueError(f"bad tag or version: {tag!r} {version!r}")
    for f in fields:
        if _FIELD_BAD.search(f) or not f.isascii() or not f.isprintable():
            raise ValueError(f"a field cannot hold {f!r}")
    body = f"{tag}{version},{','.join(fields)}".encode("ascii")
    return b"$" + body + b"*" + crc(body).encode("ascii") + b"\r\n"


def decode(line: bytes) -> Line | Reject:
    """One line (without its newline) to its tag, version and fields."""
    start = line.rfind(b"$")  # resynchronise on the last frame start (noise before it)
    if start < 0:
        return Reject("no frame start ($)")
    m = _LINE.fullmatch(line, start)
    if m is None:
        return Reject("malformed frame")
    tag, version, body, sent = m.groups()
    whole = line[start + 1 : m.start(4) - 1]
    if crc(whole) != sent.decode("ascii"):
        return Reject("checksum mismatch")
    fields = tuple(body.decode("ascii").split(","))
    return Line(tag.decode("ascii"), int(version), fields)


class Framer:
    """Cuts a byte stream into lines of at most `max_line` bytes."""

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self._buf = bytearray()
        self._skipping = False  # inside an oversized line: drop up to its newline

    def feed(self, data: bytes) -> list[bytes | Reject]:
        out: list[bytes | Reject] = []
        self._buf += data
        while True:
            end = self._buf.find(b"\n")
            if end < 0:
                if len(self._buf) > self.max_line:
                    if not self._skipping:
                        out.append(Reject(f"line longer than {self.max_line} bytes"))
                    self._skipping = True
                    self._buf.clear()
                return out
            line = bytes(self._buf[:end]).rstrip(b"\r")
            del self._buf[: end + 1]
            if self._skipping:
                self._skipping = False  # the newline that ends the oversized line
                continue
            if len(line) > self.max_line:
                out.append(Reject(f"line longer than {self.max_line} bytes"))
            elif line:
                out.append(line)

    def reset(self) -> None:
        """Forget a partial line (after a reconnect the rest of it never comes)."""
        self._buf.clear()
        self._skipping = False


def seq_field(text: str) -> int | None:
    """A sequence number 0..65535, written without sign or leading zeros."""
    if not re.fullmatch(r"0|[1-9][0-9]{0,4}", text):
        return None
    value = int(text)
    return value if value <= 0xFFFF else None


def seq_gap(last: int, now: int) -> int:
    """How many sequence numbers were skipped between `last` and `now` (mod 2**16)."""
    return (now - last - 1) % 0x10000
