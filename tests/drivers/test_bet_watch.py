"""Bet integrity, the pure module: past-posting and pinching are caught, the
dealer's own chip movements and sensor noise are not alerts."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from controller.bet_watch import BetAlert, BetWatch

D = Decimal


def closed(stakes: dict[int, str], tolerance: str = "0") -> BetWatch:
    w = BetWatch(tolerance=D(tolerance))
    for box, amount in stakes.items():
        assert w.sensed_bet(box, 0, D(amount)).forward
    assert w.close({(box, 0): D(a) for box, a in stakes.items()}) == []
    return w


def test_bets_are_forwarded_while_open_and_never_after_the_close() -> None:
    w = BetWatch()
    assert w.sensed_bet(1, 0, D(10)).forward
    w.close({(1, 0): D(10)})
    assert not w.sensed_bet(1, 0, D(10)).forward


def test_past_posting_is_a_late_bet_with_the_amount_added() -> None:
    w = closed({1: "10", 2: "25"})
    v = w.sensed_bet(2, 0, D(75))
    assert v.alerts == (BetAlert("late_bet", 2, 0, D(50), D(25), D(75)),)
    # Raised once while the chips stay; more chips are a further alert for the extra.
    assert w.sensed_bet(2, 0, D(75)).alerts == ()
    assert w.sensed_bet(2, 0, D(80)).alerts == (BetAlert("late_bet", 2, 0, D(5), D(25), D(80)),)


def test_a_chip_on_an_empty_box_after_the_close_is_a_late_bet() -> None:
    w = closed({1: "10"})
    assert w.sensed_bet(4, 0, D(5)).alerts == (BetAlert("late_bet", 4, 0, D(5), D(0), D(5)),)


def test_pinching_is_raised_with_the_amount_taken() -> None:
    w = closed({1: "50"})
    assert w.sensed_bet(1, 0, D(30)).alerts == (BetAlert("pinched_bet", 1, 0, D(20), D(50), D(30)),)
    assert w.sensed_bet(1, 0, D(0)).alerts == (BetAlert("pinched_bet", 1, 0, D(30), D(50), D(0)),)


def test_put_back_and_taken_again_is_raised_again() -> None:
    w = closed({1: "50"})
    assert len(w.sensed_bet(1, 0, D(40)).alerts) == 1
    assert w.sensed_bet(1, 0, D(50)).alerts == ()
    assert len(w.sensed_bet(1, 0, D(40)).alerts) == 1


def test_a_reading_at_the_close_that_differs_is_judged_at_once() -> None:
    w = BetWatch()
    w.sensed_bet(1, 0, D(10))
    # The engine closed on 5 (the sensor's last reading came too late, or was refused).
    assert w.close({(1, 0): D(5)}) == [BetAlert("late_bet", 1, 0, D(5), D(5), D(10))]


def test_a_double_confirmed_by_the_dealer_is_no_alert() -> None:
    w = closed({1: "10", 2: "10"})
    assert w.turn(1, may_add=True) == []
    assert w.sensed_bet(1, 0, D(20)).alerts == ()  # the player puts the double down ...
    assert w.committed(1, {0: D(20)}) == []  # ... and the dealer presses double
    assert w.turn(2, may_add=True) == []
    # Taking the doubled chips back is pinching.
    assert w.sensed_bet(1, 0, D(10)).alerts == (BetAlert("pinched_bet", 1, 0, D(10), D(10), D(10)),)


def test_chips_added_in_a_turn_and_never_confirmed_are_a_late_bet_when_it_ends() -> None:
    w = closed({1: "10", 2: "10"})
    w.turn(1, may_add=True)
    assert w.sensed_bet(1, 0, D(20)).alerts == ()
    assert w.turn(2, may_add=True) == [BetAlert("late_bet", 1, 0, D(10), D(10), D(20))]


def test_more_than_the_double_is_a_late_bet() -> None:
    w = closed({1: "10"})
    w.turn(1, may_add=True)
    w.sensed_bet(1, 0, D(30))
    assert w.committed(1, {0: D(20)}) == []  # still the box's turn: held
    assert w.turn(None, may_add=False) == [BetAlert("late_bet", 1, 0, D(10), D(10), D(30))]


def test_another_box_cannot_add_during_a_turn() -> None:
    w = closed({1: "10", 2: "10"})
    w.turn(1, may_add=True)
    assert w.sensed_bet(2, 0, D(20)).alerts == (BetAlert("late_bet", 2, 0, D(10), D(10), D(20)),)


def test_a_double_placed_beside_the_sensor_is_no_pinch() -> None:
    w = closed({1: "10"})
    w.turn(1, may_add=True)
    assert w.committed(1, {0: D(20)}) == []
    assert w.turn(None, may_add=False) == []
    assert w.sensed_bet(1, 0, D(10)).alerts == ()


def test_released_boxes_and_the_settlement_are_the_dealers_business() -> None:
    w = closed({1: "10", 2: "10"})
    w.release(1)  # box 1 busted: the dealer takes the chips at once
    assert w.sensed_bet(1, 0, D(0)).alerts == ()
    w.settle()  # payouts and collections, then the next round's bets
    assert w.sensed_bet(2, 0, D(40)).forward
    assert w.sensed_bet(2, 0, D(0)).forward
    assert w.sensed_bet(3, 0, D(15)) == w.sensed_bet(3, 0, D(15))
    assert w.close({(3, 0): D(15)}) == []


def test_a_box_back_in_play_is_watched_again() -> None:
    w = closed({1: "10"})
    w.release(1)  # a bust ...
    assert w.sensed_bet(1, 0, D(0)).alerts == ()  # ... collected
    w.restore(1)  # the card was a mistake: the bust is undone, the chips go back
    assert w.sensed_bet(1, 0, D(10)).alerts == ()
    assert w.sensed_bet(1, 0, D(0)).alerts == (BetAlert("pinched_bet", 1, 0, D(10), D(10), D(0)),)


def test_noise_within_the_tolerance_is_no_alert() -> None:
    w = closed({1: "10"}, tolerance="1")
    assert w.sensed_bet(1, 0, D("10.5")).alerts == ()
    assert w.sensed_bet(1, 0, D("9")).alerts == ()
    assert w.sensed_bet(1, 0, D("8")).alerts[0].kind == "pinched_bet"


def test_bets_behind_are_watched_per_spot() -> None:
    w = BetWatch()
    w.sensed_bet(1, 0, D(10))
    w.sensed_bet(1, 1, D(5))
    w.close({(1, 0): D(10), (1, 1): D(5)})
    assert w.sensed_bet(1, 1, D(0)).alerts == (BetAlert("pinched_bet", 1, 1, D(5), D(5), D(0)),)
    assert w.sensed_bet(1, 0, D(10)).alerts == ()


# ------------------------------------------------------------ properties
amounts = st.integers(min_value=0, max_value=40).map(lambda n: D(5 * n))


@given(
    stakes=st.dictionaries(st.integers(1, 7), amounts, min_size=1),
    noise=st.lists(st.tuples(st.integers(1, 7), st.sampled_from(["-1", "0", "1"])), max_size=30),
    doubles=st.sets(st.integers(1, 7)),
)
def test_an_honest_round_raises_nothing(
    stakes: dict[int, Decimal], noise: list[tuple[int, str]], doubles: set[int]
) -> None:
    """Noise within the tolerance, doubles placed on the spot and confirmed,
    busted boxes collected, payouts after the settlement: no alert."""
    w = BetWatch(tolerance=D(1))
    for box, amount in stakes.items():
        w.sensed_bet(box, 0, amount)
    alerts = w.close({(b, 0): a for b, a in stakes.items()})
    for box, delta in noise:
        alerts += w.sensed_bet(box, 0, stakes.get(box, D(0)) + D(delta)).alerts
    for box in sorted(stakes):
        alerts += w.turn(box, may_add=True)
        if box in doubles:
            alerts += w.sensed_bet(box, 0, 2 * stakes[box]).alerts
            alerts += w.committed(box, {0: 2 * stakes[box]})
        elif stakes[box] and box % 2:
            w.release(box)  # bust: collected
            alerts += w.sensed_bet(box, 0, D(0)).alerts
    alerts += w.turn(None, may_add=False)
    w.settle()
    for box in stakes:
        assert w.sensed_bet(box, 0, 3 * stakes[box]).forward  # paid
    assert alerts == []


@given(
    stakes=st.dictionaries(st.integers(1, 7), amounts, min_size=1),
    box=st.integers(1, 7),
    change=st.integers(-40, 40).filter(lambda n: n != 0).map(lambda n: D(5 * n)),
    turn=st.sampled_from([None, "same", "other"]),
)
def test_every_change_after_the_close_is_caught_with_its_amount(
    stakes: dict[int, Decimal], box: int, change: Decimal, turn: str | None
) -> None:
    w = BetWatch()
    for b, amount in stakes.items():
        w.sensed_bet(b, 0, amount)
    w.close({(b, 0): a for b, a in stakes.items()})
    stake = stakes.get(box, D(0))
    after = stake + change
    if after < 0:
        return
    if turn is not None:
        w.turn(box if turn == "same" else box % 7 + 1, may_add=True)
    alerts = list(w.sensed_bet(box, 0, after).alerts)
    alerts += w.turn(None, may_add=False)  # the turn ends: no double was confirmed
    kind = "late_bet" if change > 0 else "pinched_bet"
    assert alerts == [BetAlert(kind, box, 0, abs(change), stake, after)]
