"""cmd/correct_card: a supervisor corrects a card of the round in play. The round is
derived again from its journaled inputs with the card replaced; the correction is
taken only when that round is still legal from its start up to now, and a refusal
changes nothing.

The table here is the service on fake drivers with no broker: commands go in the
way the MQTT client hands them over (tests/pit/test_commands.py does it through
mosquitto)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.engine.view import table_state
from tests.pit.harness import PitTable

N = 0


def fix(table: PitTable, **fields: Any) -> dict[str, Any]:
    global N
    N += 1
    table.settle()
    request = {
        "transaction": f"c{N}",
        "by": "pit boss 4",
        "reason": "misread",
        "round": table.service.table.rounds,
        **fields,
    }
    return table.command("correct_card", request)


def refused(table: PitTable, fields: dict[str, Any]) -> str:
    """Ask for the correction; check it is refused, changes nothing and is audited as
    refused; its reason."""
    table.new()
    before = table.snapshot()
    answer = fix(table, **fields)
    assert not answer["ok"], answer
    after = table.snapshot()
    assert after["table"] == before["table"] and after["limits"] == before["limits"]
    audit = [m for m in table.new() if m.get("type") == "audit"]
    assert [a["ok"] for a in audit] == [False] and audit[0]["error"] == answer["error"]
    return str(answer["error"])


@pytest.fixture
def table(tmp_path: Path) -> Iterator[PitTable]:
    t = PitTable(tmp_path / "state")
    # be-casino: box 1 gets 9H TS (19), box 2 8D 5H (13), the dealer's card is 7C.
    t.deal_round_start()
    t.new()
    yield t
    t.stop()


def hand(t: PitTable, box: int) -> dict[str, Any]:
    state = table_state(t.service.table, public=True)
    b = next(b for b in state["in_play"] if b["box"] == box)
    return dict(b["hands"][0])


def test_a_misread_card_is_corrected_and_the_round_goes_on_with_it(table: PitTable) -> None:
    answer = fix(table, box=2, hand=1, position=1, was="5H", card="6H")
    assert answer["ok"], answer
    new = table.new()
    corrected = [m for m in new if m.get("type") == "card_corrected"]
    assert corrected == [
        {
            **corrected[0],
            "box": 2,
            "hand": 1,
            "position": 1,
            "was": "5H",
            "card": "6H",
            "superseded": [],
        }
    ]
    audit = next(m for m in new if m.get("type") == "audit")
    assert audit["command"] == "correct_card" and audit["by"] == "pit boss 4"
    assert audit["before"]["cards"] == ["8D", "5H"] and audit["before"]["total"] == 13
    assert audit["after"]["cards"] == ["8D", "6H"] and audit["after"]["total"] == 14
    assert answer["audit_seq"] == audit["seq"]
    assert hand(table, 2)["cards"] == ["8D", "6H"]
    # The journal still holds the read as it came (5H): the correction is its own record.
    records = [data for _, data in table.service.store.records()]
    assert [d["card"] for d in records if d["kind"] == "card_read"][4] == "5H"
    # Play on: the settlement counts the corrected card.
    table.panel.press("stand")  # box 1
    table.shoe.draw("4C")  # box 2: 8 + 6 + 4 = 18
    table.panel.press("stand")  # box 2
    table.shoe.draw("TD")  # dealer 17
    outcome = next(m for m in table.new() if m["topic"] == "outcome")
    box2 = next(b for b in outcome["boxes"] if b["box"] == 2)
    assert box2["hands"][0]["cards"] == ["8D", "6H", "4C"] and box2["hands"][0]["result"] == "win"


def test_a_correction_that_gives_a_later_press_to_another_box_is_refused(
    table: PitTable,
) -> None:
    # A panel's press names no box: it is for the box in play. With box 2 busted
    # by the correction, its stand would have landed elsewhere.
    table.panel.press("stand")  # box 1
    table.shoe.draw("4C")  # box 2: 8 + 5 + 4 = 17
    table.panel.press("stand")  # box 2
    # 8 + 10 + 4 = 22
    error = refused(table, dict(box=2, hand=1, position=1, was="5H", card="KH"))
    assert error.startswith("after the correction box 2's stand that followed (seq "), error
    assert error.endswith(
        "would have been box 1's, not box 2's: box 2 hand 1 would have busted"
    ), error


def test_a_correction_that_makes_a_later_press_illegal_is_refused_and_changes_nothing(
    tmp_path: Path,
) -> None:
    t = PitTable(tmp_path / "s", rules="fr-2007")
    try:
        t.deal_round_start(("8H", "9D", "7C", "8S", "TH"))  # box 1: 8 8; box 2: 19
        t.panel.press("split")  # box 1
        error = refused(t, dict(box=1, hand=2, position=0, was="8S", card="9S"))  # 8 9
        assert error.startswith(
            "after the correction the table would refuse box 1's split that followed (seq "
        ), error
        assert error.endswith("(box 1 cannot split: the two cards are not a pair)"), error
    finally:
        t.stop()


def test_a_card_that_would_have_gone_to_another_hand_is_refused(table: PitTable) -> None:
    table.shoe.draw("2C")  # box 1: 9 + 10 + 2 = 21, ends; box 2's turn
    table.shoe.draw("4D")  # box 2: 17
    table.new()
    answer = fix(table, box=1, hand=1, position=2, was="2C", card="AC")  # 20: box 1 plays on
    assert not answer["ok"]
    assert "the four of diamonds that followed" in answer["error"]
    assert "would have gone to box 1 hand 1, not box 2 hand 1 where it was dealt" in answer["error"]


def test_at_the_last_input_a_correction_may_end_a_hand_and_its_events_follow(
    table: PitTable,
) -> None:
    table.panel.press("stand")  # box 1
    table.shoe.draw("7S")  # box 2: 20, waits for a decision
    table.new()
    answer = fix(table, box=2, hand=1, position=2, was="7S", card="8S")  # 21: the hand ends
    assert answer["ok"], answer
    kinds = [m.get("type") for m in table.new() if m["topic"] == "events"]
    assert kinds == ["card_corrected", "hand_complete", "dealer_turn", "audit"]
    assert table.service.table.expecting().what == "card"  # the dealer draws now
    table.shoe.draw("QD")  # dealer 17
    outcome = next(m for m in table.new() if m["topic"] == "outcome")
    assert next(b for b in outcome["boxes"] if b["box"] == 2)["hands"][0]["total"] == 21


def test_a_bust_that_no_longer_holds_is_named_as_superseded(table: PitTable) -> None:
    table.panel.press("stand")  # box 1
    table.shoe.draw("KS")  # box 2: 23, bust; the dealer's turn
    busted = [m for m in table.new() if m["topic"] == "events"]
    gone = [m["seq"] for m in busted if m["type"] in ("bust", "dealer_turn")]
    answer = fix(table, box=2, hand=1, position=2, was="KS", card="2S")  # 15: plays on
    assert answer["ok"], answer
    corrected = next(m for m in table.new() if m.get("type") == "card_corrected")
    assert corrected["superseded"] == gone == answer["superseded"]
    e = table.service.table.expecting()
    assert (e.what, e.box) == ("action", 2)
    assert not hand(table, 2)["bust"]


def test_a_keyed_in_card_is_corrected_like_a_read_one(table: PitTable) -> None:
    table.shoe.draw(None)  # unreadable: the dealer keys it in
    table.panel.press("key_card", card="3D")  # box 1: 22, bust
    table.new()
    answer = fix(table, box=1, hand=1, position=2, was="3D", card="2D")
    assert answer["ok"], answer
    assert hand(table, 1)["total"] == 21


def test_a_card_after_a_split_is_found_in_its_new_hand(tmp_path: Path) -> None:
    t = PitTable(tmp_path / "s", rules="fr-2007")
    try:
        t.deal_round_start(("8H", "9D", "7C", "8S", "TH"))  # box 1: 8 8; box 2: 19
        t.panel.press("split")  # box 1
        t.shoe.draw("2C")  # hand 1: 8 2
        t.panel.press("stand")  # box 1
        t.shoe.draw("5D")  # hand 2: 8 5
        t.new()
        answer = fix(t, box=1, hand=2, position=1, was="5D", card="6D")
        assert answer["ok"], answer
        box1 = next(b for b in table_state(t.service.table, True)["in_play"] if b["box"] == 1)
        assert [h["cards"] for h in box1["hands"]] == [["8H", "2C"], ["8S", "6D"]]
    finally:
        t.stop()


def test_refusals_name_the_problem(table: PitTable) -> None:
    before = table.snapshot()
    cases = [
        (
            {"box": 2, "hand": 1, "position": 1, "was": "4H", "card": "6H"},
            "is the five of hearts, not the four of hearts: the request was made on an out-of-date "
            "view",
        ),
        (
            {"box": 2, "hand": 1, "position": 5, "was": "5H", "card": "6H"},
            "box 2 hand 1's hand has 2 card(s): positions 0 to 1",
        ),
        (
            {"box": 4, "hand": 1, "position": 0, "was": "5H", "card": "6H"},
            "box 4 has no stake in round 1",
        ),
        (
            {"box": 2, "hand": 1, "position": 1, "was": "5H", "card": "5H"},
            "that card is already the five of hearts",
        ),
        (
            {"round": 7, "box": 2, "hand": 1, "position": 1, "was": "5H", "card": "6H"},
            "round 7 is not the round in play (round 1)",
        ),
    ]
    for fields, error in cases:
        answer = fix(table, **fields)
        assert not answer["ok"] and error in answer["error"], (error, answer)
    assert table.snapshot()["table"] == before["table"]


def test_only_the_round_in_play_is_corrected(table: PitTable) -> None:
    table.panel.press("stand")  # box 1
    table.panel.press("stand")  # box 2
    table.shoe.draw("TD")  # dealer 17: settled
    table.new()
    answer = fix(table, box=2, hand=1, position=1, was="5H", card="6H")
    assert not answer["ok"] and "no round is in play (round 1 is over)" in answer["error"]


def test_a_face_down_card_cannot_be_corrected_and_is_never_named(tmp_path: Path) -> None:
    t = PitTable(tmp_path / "h", rules="us-holecard")
    try:
        t.deal_round_start(("9H", "8D", "7C", "TS", "5H", "QC"))  # QC: the hole card
        t.new()
        answer = fix(t, box=0, hand=0, position=1, was="QC", card="KC")
        assert not answer["ok"]
        assert answer["error"] == (
            "the dealer's card at position 1 is still face down: it can be corrected once it "
            "is turned over"
        )
        wrong = fix(t, box=0, hand=0, position=1, was="2S", card="KC")  # a guess: no hint
        assert wrong["error"] == answer["error"]
        for m in t.new():
            assert "QC" not in str(m) and "queen of clubs" not in str(m)
    finally:
        t.stop()


def test_a_restart_rebuilds_the_corrected_round_from_the_journal(tmp_path: Path) -> None:
    t = PitTable(tmp_path / "state")
    t.deal_round_start()
    fix(t, box=2, hand=1, position=1, was="5H", card="6H")
    t.panel.press("stand")  # box 1
    fix(t, box=2, hand=1, position=0, was="8D", card="9D")  # a second correction, same round
    t.new()
    full = table_state(t.service.table, public=False)
    rows = t.service.store.rows_from(1, 100_000)
    t.stop()
    again = PitTable(tmp_path / "state")
    try:
        assert table_state(again.service.table, public=False) == full
        assert again.service.store.rows_from(1, 100_000) == rows
        # ...and the round plays on from there, corrections and all.
        again.shoe.draw("2C")  # box 2: 9 + 6 + 2 = 17
        again.panel.press("stand")  # box 2
        again.shoe.draw("TD")
        outcome = next(m for m in again.new() if m["topic"] == "outcome")
        box2 = next(b for b in outcome["boxes"] if b["box"] == 2)
        assert box2["hands"][0]["cards"] == ["9D", "6H", "2C"]
    finally:
        again.stop()
