"""The payout check, scripted: what the dealer leaves on each spot after the settlement."""

from __future__ import annotations

from decimal import Decimal

from controller.engine.outcome import BoxOutcome, HandOutcome, Outcome, PlayerOutcome
from controller.surveillance.payouts import PayoutCheck, dues

D = Decimal


def outcome(number: int, spots: dict[tuple[int, str], tuple[str, str]]) -> Outcome:
    """A settled round: (box, player) -> (stake, the hand's net for that player)."""
    boxes = []
    for box in sorted({b for b, _ in spots}):
        players = {p: (D(s), D(n)) for (b, p), (s, n) in spots.items() if b == box}
        nets = {p: n for p, (_, n) in players.items()}
        stake = sum((s for s, _ in players.values()), D(0))
        hand = HandOutcome(1, ("TH", "9C"), 19, False, "win", stake, sum(nets.values(), D(0)), nets)
        pl = tuple(PlayerOutcome(p, s, D(0), n) for p, (s, n) in players.items())
        boxes.append(BoxOutcome(box, (hand,), pl))
    return Outcome(number, ("7C", "TD"), 17, False, False, tuple(boxes), D(0), {})


def table_of(check: PayoutCheck, stakes: dict[tuple[int, int], str]) -> None:
    for (box, spot), amount in stakes.items():
        assert check.reading(box, spot, D(amount)) == []  # the bets, before the close


ROUND = {
    (1, "box1"): ("10", "10"),
    (2, "box2"): ("20", "-20"),
    (3, "box3"): ("5", "7.50"),
    (1, "box1/1"): ("5", "-2.50"),
}  # a win, a loss, a 3:2 blackjack, a surrender behind


def test_dues_are_stake_plus_result_per_spot() -> None:
    due = dues(outcome(4, ROUND))
    assert {k: v.expected for k, v in due.items()} == {
        (1, 0): D(20),
        (2, 0): D(0),
        (3, 0): D("12.50"),
        (1, 1): D("2.50"),
    }


def test_an_honest_dealer_raises_nothing() -> None:
    check = PayoutCheck()
    table_of(check, {(1, 0): "10", (2, 0): "20", (3, 0): "5", (1, 1): "5"})
    assert check.settled(outcome(4, ROUND)) == []
    for spot, amount in (((1, 0), "20"), ((2, 0), "0"), ((3, 0), "12.50"), ((1, 1), "2.50")):
        assert check.reading(*spot, D(amount)) == []
    # The players take their winnings and bet again: not the dealer's, not judged.
    assert check.reading(1, 0, D(10)) == [] and check.reading(2, 0, D(25)) == []
    assert check.close() == [] and check.checked == 4 and check.unchecked == 0


def test_overpaid_and_underpaid_with_the_difference() -> None:
    check = PayoutCheck()
    table_of(check, {(1, 0): "10", (3, 0): "5"})
    check.settled(
        outcome(4, {k: v for k, v in ROUND.items() if k[0] in (1, 3) and k[1] != "box1/1"})
    )
    over = check.reading(1, 0, D(25))
    assert [(e.what, e.difference) for e in over] == [("overpaid", D(5))]
    assert "overpaid" in over[0].message() and "(+5)" in over[0].message()
    under = check.reading(3, 0, D(10))
    assert [(e.what, e.difference, e.box) for e in under] == [("underpaid", D("-2.50"), 3)]


def test_a_losers_chips_left_are_judged_when_the_players_move() -> None:
    check = PayoutCheck()
    table_of(check, {(1, 0): "10", (2, 0): "20"})
    check.settled(outcome(4, {(1, "box1"): ("10", "10"), (2, "box2"): ("20", "-20")}))
    assert check.reading(1, 0, D(20)) == []  # the dealer pays box 1 ... and forgets box 2
    errors = check.reading(1, 0, D(10))  # box 1 takes the winnings: the dealer is done
    assert [(e.box, e.what, e.sensed, e.difference) for e in errors] == [
        (2, "not_collected", D(20), D(20))
    ]


def test_a_winner_not_paid_is_judged_at_the_next_close() -> None:
    check = PayoutCheck()
    table_of(check, {(1, 0): "10"})
    check.settled(outcome(4, {(1, "box1"): ("10", "10")}))
    errors = check.close()
    assert [(e.what, e.difference) for e in errors] == [("not_paid", D(-10))]


def test_a_surrender_collected_whole_is_taken_too_much() -> None:
    check = PayoutCheck()
    table_of(check, {(1, 1): "5"})
    check.settled(outcome(4, {(1, "box1/1"): ("5", "-2.50")}))
    errors = check.reading(1, 1, D(0))
    assert [(e.spot, e.what, e.difference) for e in errors] == [(1, "collected_wrong", D("-2.50"))]


def test_spots_already_settled_or_off_the_sensor_are_not_pending() -> None:
    check = PayoutCheck()
    # Box 1 busted and was collected during the round (0 on the sensor = what is due);
    # box 2's split chips lie beside the spot (the sensor shows 10 of a 20 stake).
    table_of(check, {(1, 0): "0", (2, 0): "10"})
    assert check.settled(outcome(4, {(1, "box1"): ("10", "-10"), (2, "box2"): ("20", "20")})) == []
    assert list(check.waiting()) == [] and (check.checked, check.unchecked) == (1, 1)


def test_within_the_tolerance_is_right() -> None:
    check = PayoutCheck(tolerance=D("0.50"))
    table_of(check, {(1, 0): "10"})
    check.settled(outcome(4, {(1, "box1"): ("10", "10")}))
    assert check.reading(1, 0, D("19.50")) == []
