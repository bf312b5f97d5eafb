"""A card shoe that reads the cards itself and reports them over serial.

Lines, version 1 (docs/hardware.md, "Serial card shoe"):

    $CS1,<seq>,C,<card>*<CRC>   a card came out: `AS`, `TH`, ... or `??` (unreadable)
    $CS1,<seq>,H*<CRC>          heartbeat, every second while nothing happens

`seq` counts every line (0..65535, wrapping). A repeated `seq` is a resend
and is ignored; a gap means lines were lost, and since a lost card line is
a card the table never saw, a gap is a fault raised at once (the dealer
checks the hand before the next card). After a reconnect the first line's
`seq` is taken as it comes (the shoe may have restarted).
"""

from __future__ import annotations

import re

from drivers.interfaces import CardRead
from drivers.serial.lines import Line, encode, seq_field
from drivers.serial.link import LinkSettings, NumberedDevice
from drivers.settings import ShoeSection

TAG, VERSION = "CS", 1
CARD = re.compile(r"[A23456789TJQK][SHDC]")


def parse(line: Line) -> tuple[int, str | None] | str:
    """(seq, card) for a card line, (seq, None) for a heartbeat, or a reason."""
    f = line.fields
    seq = seq_field(f[0]) if f else None
    if seq is None:
        return "bad sequence number"
    if f[1:] == ("H",):
        return seq, None
    if len(f) == 3 and f[1] == "C" and (f[2] == "??" or CARD.fullmatch(f[2])):
        return seq, f[2]
    return "not a card or heartbeat line"


def encode_card(seq: int, card: str | None) -> bytes:
    return encode(TAG, VERSION, [str(seq), "C", card or "??"])


def encode_heartbeat(seq: int) -> bytes:
    return encode(TAG, VERSION, [str(seq), "H"])


class SerialShoe(NumberedDevice):
    """A `CardSource`: one `CardRead` per card line."""

    tag, version = TAG, VERSION

    def __init__(self, link: LinkSettings, name: str = "shoe") -> None:
        super().__init__(name, link)
        self.cards = 0

    @classmethod
    def from_config(cls, cfg: ShoeSection) -> SerialShoe:
        return cls(LinkSettings.of(cfg))

    def handle(self, line: Line, now: float) -> str | None:
        parsed = parse(line)
        if isinstance(parsed, str):
            return parsed
        seq, card = parsed
        lost = self.numbered(seq)
        if lost is None:
            return None  # a resend of the line we already have
        if lost:
            self.fault(
                f"gap:{seq}",
                f"{lost} line(s) lost before line {seq}: a card may be "
                "missing: check the hand against the cards on the table",
            )
        if card is None:
            return None
        self.cards += 1
        if card == "??":
            self.send(CardRead(None, 0.0, self.name))
        else:
            self.send(CardRead(card, 1.0, self.name))
        return None
