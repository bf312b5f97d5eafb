"""The intake with the bet watch, on a real engine table: what a sensed bet
becomes before and after the close, and the panel's call_supervisor."""

from __future__ import annotations

from decimal import Decimal

from controller import rules
from controller.engine import Table, parse_event
from controller.intake import Ask, Intake, Raise
from drivers.interfaces import BetSeen, PanelPress

D = Decimal


def table() -> tuple[Table, Intake]:
    t = Table(rules.load("be-casino"))
    return t, Intake(t, 0.9)


def apply(t: Table, intake: Intake, event: dict[str, object]) -> list[Raise]:
    return intake.observe(t.apply(parse_event(event)))


def test_bets_before_the_close_go_to_the_engine_and_repeats_do_not() -> None:
    t, intake = table()
    ask = intake.translate(BetSeen(1, 0, D(10)))
    assert ask == Ask({"type": "bet", "box": 1, "player": "box1", "amount": "10"})
    apply(t, intake, ask.event)
    assert intake.translate(BetSeen(1, 0, D(10))) is None  # the same bet, seen again
    assert intake.translate(BetSeen(2, 0, D(0))) is None  # an empty spot that was empty


def test_after_the_close_the_engine_keeps_its_stake_and_changes_are_alerts() -> None:
    t, intake = table()
    for box in (1, 2):
        seen = intake.translate(BetSeen(box, 0, D(10)))
        assert isinstance(seen, Ask)
        apply(t, intake, seen.event)
    assert apply(t, intake, {"type": "close_bets"}) == []
    late = intake.translate(BetSeen(2, 0, D(35)))
    assert isinstance(late, Raise) and late.kind == "late_bet" and late.box == 2
    assert late.extra == {"spot": 0, "amount": "25", "stake": "10", "sensed": "35"}
    assert "past-posting" in late.message
    pinched = intake.translate(BetSeen(1, 0, D(0)))
    assert isinstance(pinched, Raise) and pinched.kind == "pinched_bet"
    assert t.round is not None and t.round.boxes[0].stakes == {"box1": D(10)}


def test_call_supervisor_is_an_alert() -> None:
    _, intake = table()
    called = intake.translate(PanelPress("call_supervisor", box=3))
    assert isinstance(called, Raise) and called.kind == "supervisor_call" and called.box == 3
