"""Journal records leave out the fields that hold the driver's default: every
record reads back as it was, and a record written with them spelled out (before
format 3) reads back the same."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from controller.records import PitCommand, Record, decode, encode
from drivers.interfaces import BetSeen, CardRead, PanelPress, SensorFault

RECORDS: list[Record] = [
    CardRead("TH", 0.99, "shoe"),
    CardRead(None, 0.4, "camera", frame=1234, reason="no_index"),
    BetSeen(3, 0, Decimal("12.50")),
    BetSeen(3, 1, Decimal("5"), "insurance"),
    PanelPress("close_bets"),
    PanelPress("key_card", box=2, card="AS", reason="unreadable"),
    SensorFault("scale", "no frame for 2 s"),
    SensorFault("scale", "no frame for 2 s", box=4),
    PitCommand(
        "void_round", {"transaction": "t1", "by": "anna", "reason": "x"}, "2026-12-06T11:00Z"
    ),
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_a_record_reads_back_as_it_was(record: Record) -> None:
    text = json.dumps(encode(record), separators=(",", ":"))
    assert decode(json.loads(text)) == record


def test_defaults_are_left_out_and_what_differs_is_kept() -> None:
    assert encode(CardRead("TH", 0.99, "shoe")) == {
        "kind": "card_read",
        "card": "TH",
        "confidence": 0.99,
        "source": "shoe",
    }
    assert encode(PanelPress("close_bets")) == {"kind": "panel", "button": "close_bets"}
    assert encode(BetSeen(3, 1, Decimal("5"), "insurance"))["spot_kind"] == "insurance"
    assert encode(CardRead(None, 0.4, "camera"))["card"] is None  # not a default: kept


def test_a_record_written_in_full_reads_the_same() -> None:
    full: list[dict[str, Any]] = [
        {
            "kind": "card_read",
            "card": "TH",
            "confidence": 0.99,
            "source": "shoe",
            "frame": None,
            "reason": None,
        },
        {"kind": "bet_seen", "box": 3, "spot": 0, "amount": "12.50", "spot_kind": "stake"},
        {"kind": "panel", "button": "close_bets", "box": None, "card": None, "reason": ""},
        {"kind": "fault", "device": "scale", "detail": "no frame for 2 s", "box": None},
    ]
    assert [decode(d) for d in full] == [RECORDS[0], RECORDS[2], RECORDS[4], RECORDS[6]]
