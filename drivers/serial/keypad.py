"""The dealer's panel as a serial keypad (a small board with keys and a display).

Lines, version 1 (docs/hardware.md, "Serial keypad"):

    $KP1,<seq>,B,<action>,<held ms>*<CRC>   a key released after `held ms`
    $KP1,<seq>,C,<card>*<CRC>               a card keyed in (rank + suit, e.g. `QH`)
    $KP1,<seq>,H*<CRC>                      heartbeat, every second

`action` is a panel action (`stand`, `close_bets`, `void`, `call_supervisor`,
...). The keypad reports how long a key was held and the Pi decides: a
costly key (void, new shoe, mistaken card) counts only when held for
`hold_s`, so a brush of the hand is not a voided round. A repeated `seq` is
a resend and is ignored.
"""

from __future__ import annotations

import re
from typing import cast

from drivers.interfaces import BUTTONS, Button, PanelPress
from drivers.serial.lines import Line, encode, seq_field
from drivers.serial.link import LinkSettings, NumberedDevice
from drivers.serial.shoe import CARD
from drivers.settings import COSTLY, PANEL_ACTIONS, KeypadSection

TAG, VERSION = "KP", 1


def parse(line: Line) -> tuple[int, str, str | int | None] | str:
    """(seq, "B", (action, held_ms)) / (seq, "C", card) / (seq, "H", None), or a reason."""
    f = line.fields
    seq = seq_field(f[0]) if f else None
    if seq is None:
        return "bad sequence number"
    if f[1:] == ("H",):
        return seq, "H", None
    if len(f) == 3 and f[1] == "C" and CARD.fullmatch(f[2]):
        return seq, "C", f[2]
    if (
        len(f) == 4
        and f[1] == "B"
        and f[2] in PANEL_ACTIONS
        and re.fullmatch(r"0|[1-9][0-9]{0,5}", f[3])
    ):
        return seq, f[2], int(f[3])
    return "not a key, card or heartbeat line"


def encode_key(seq: int, action: str, held_ms: int) -> bytes:
    return encode(TAG, VERSION, [str(seq), "B", action, str(held_ms)])


def encode_card(seq: int, card: str) -> bytes:
    return encode(TAG, VERSION, [str(seq), "C", card])


def encode_heartbeat(seq: int) -> bytes:
    return encode(TAG, VERSION, [str(seq), "H"])


class SerialKeypad(NumberedDevice):
    """A `DealerPanel` on a serial keypad."""

    tag, version = TAG, VERSION

    def __init__(
        self,
        link: LinkSettings,
        hold_s: float = 1.0,
        costly: tuple[str, ...] = COSTLY,
        name: str = "keypad",
    ) -> None:
        super().__init__(name, link)
        self.hold_ms = round(hold_s * 1000)
        self.costly = costly
        self.ignored: list[str] = []  # short presses of costly keys, for the log and tests

    @classmethod
    def from_config(cls, cfg: KeypadSection) -> SerialKeypad:
        return cls(LinkSettings.of(cfg), cfg.hold_s)

    def handle(self, line: Line, now: float) -> str | None:
        parsed = parse(line)
        if isinstance(parsed, str):
            return parsed
        seq, what, value = parsed
        if self.numbered(seq) is None:
            return None  # a resend
        if what == "H":
            return None
        if what == "C":
            self.send(PanelPress("key_card", card=str(value)))
            return None
        self._key(what, int(cast(int, value)))
        return None

    def _key(self, action: str, held_ms: int) -> None:
        if action in self.costly and held_ms < self.hold_ms:
            self.ignored.append(action)
            self.log.info("%s released after %d ms: hold it %d ms", action, held_ms, self.hold_ms)
            return
        if action == "confirm":
            return  # the keypad confirms a keyed card itself (its own enter key)
        if action not in BUTTONS:
            self.log.warning("%s is not a table button: ignored", action)
            return
        self.send(PanelPress(cast(Button, action)))
