"""Rules common to every rule book (RULES.md, 'Common to all'), each with its source."""

import pytest

from controller.engine import IllegalAction, OutOfTurn
from controller.engine.phase import Phase

from .helpers import bet, cards, hand_results, kinds, last_outcome, nets, start, table


def test_blackjack_pays_three_to_two():
    t = table("fr-2007")
    start(t, {1: "10"})
    ops = cards(t, "AS", "9D", "KH", "7C")  # box 1: A K; dealer 9 then 7
    assert "blackjack" in kinds(ops)
    r = last_outcome(t)
    assert hand_results(r)[(1, 1)] == ("blackjack", "15")
    assert nets(r) == {"box1": "15"} and r["house_net"] == "-15"


def test_twenty_one_in_three_cards_is_not_blackjack():
    # 001: 'si le joueur atteint le point 21 en 3 cartes ou plus on compte le point 21'
    t = table("fr-2007")
    start(t, {1: "10"})
    cards(t, "7S", "9D", "4H", "KH")  # box 1 11, hits a ten: 21
    assert t.round is not None and t.round.phase is Phase.DEALER  # 21 ends the hand by itself
    cards(t, "TC")  # dealer 19
    assert hand_results(last_outcome(t))[(1, 1)] == ("win", "10")


def test_bust_loses_at_once_and_is_not_paid_when_the_dealer_busts():
    # 000/001/003: over 21 the stake and cards are collected at once; a later dealer
    # bust pays only the hands still in play (000).
    t = table("fr-2007", boxes=2)
    start(t, {1: "10", 2: "10"})
    cards(t, "TS", "9D", "6H", "6C", "5D")  # box1 T 6 = 16; box2 9 5 = 14... (dealer 6)
    ops = cards(t, "KD")  # box 1 hits: 26
    assert kinds(ops)[:2] == ["card_dealt", "bust"]
    t.stand(2)
    cards(t, "TH", "8S")  # dealer 6 T 8 = 24
    r = last_outcome(t)
    assert hand_results(r) == {(1, 1): ("bust", "-10"), (2, 1): ("win", "10")}
    assert r["dealer"]["bust"] is True and r["house_net"] == "0"


def test_dealer_draws_to_sixteen_and_stands_on_seventeen():
    t = table("fr-2007")
    start(t, {1: "10"})
    cards(t, "TS", "6D", "9H")  # box 1 19; dealer 6
    t.stand(1)
    cards(t, "TH")  # dealer 16: must draw
    assert t.round is not None and t.round.phase is Phase.DEALER
    cards(t, "AC")  # dealer 17: stands
    r = last_outcome(t)
    assert r["dealer"] == {
        "cards": ["6D", "TH", "AC"],
        "total": 17,
        "blackjack": False,
        "bust": False,
    }
    assert hand_results(r)[(1, 1)] == ("win", "10")


def test_dealer_stands_on_soft_seventeen_by_default_and_draws_with_h17():
    for h17, expect_more in ((False, False), (True, True)):
        t = table("fr-2007", dealer_hits_soft_17=h17)
        start(t, {1: "10"})
        cards(t, "TS", "6D", "8H")
        t.stand(1)
        cards(t, "AC")  # dealer 6 A = soft 17
        assert (t.round is not None and not t.round.over) is expect_more


def test_tie_is_a_push():
    t = table("be-casino")
    start(t, {1: "10", 2: "20"})
    cards(t, "TS", "9S", "7D", "8H", "TC")  # box1 18, box2 19; dealer 7
    t.stand(1)
    t.stand(2)
    cards(t, "KD")  # dealer 17
    r = last_outcome(t)
    assert hand_results(r) == {(1, 1): ("win", "10"), (2, 1): ("win", "20")}
    t2 = table("be-casino")
    start(t2, {1: "10", 2: "20"})
    cards(t2, "TS", "9S", "7D", "8H", "TC")
    t2.stand(1)
    t2.stand(2)
    cards(t2, "AD")  # dealer 18
    r2 = last_outcome(t2)
    assert hand_results(r2) == {(1, 1): ("push", "0"), (2, 1): ("win", "20")}
    assert r2["house_net"] == "-20"


def test_insurance_costs_half_the_stake_and_pays_two_to_one():
    t = table("fr-2007")
    start(t, {1: "10"})
    cards(t, "TS", "AD", "9H")  # box 1 19 against an ace
    assert t.expecting().what == "insurance"
    with pytest.raises(IllegalAction, match="more than half the stake"):
        t.insurance(1, "box1", __import__("decimal").Decimal("5.01"))
    t.insurance(1, "box1", __import__("decimal").Decimal("5"))
    t.close_insurance()
    t.stand(1)
    cards(t, "KC")  # dealer blackjack
    r = last_outcome(t)
    # 001: 'le joueur perd sa mise mais se voit payer l'assurance (donc benefice 0, perte 0)'
    assert nets(r) == {"box1": "0"}
    assert r["boxes"][0]["players"][0]["insurance"] == "5"


def test_insurance_lost_when_the_dealer_has_no_blackjack():
    # 001: wins the hand, loses the insurance: net half the stake.
    t = table("fr-2007")
    start(t, {1: "10"})
    cards(t, "TS", "AD", "9H")
    t.insurance(1, "box1", __import__("decimal").Decimal("5"))
    t.close_insurance()
    t.stand(1)
    cards(t, "7C")  # dealer soft 18 -> stands; player 19 wins
    assert nets(last_outcome(t)) == {"box1": "5"}


def test_double_doubles_the_stake_and_takes_exactly_one_card():
    t = table("fr-2007")
    start(t, {1: "10"})
    cards(t, "6S", "5D", "5H")  # box 1 11
    t.double(1)
    with pytest.raises(IllegalAction, match="doubled and takes one card"):
        t.stand(1)
    ops = cards(t, "2C")  # 13, and the hand is over
    assert "hand_complete" in kinds(ops)
    assert t.round is not None and t.round.phase is Phase.DEALER
    cards(t, "TD", "9S")  # dealer 5 T 9 = 24
    r = last_outcome(t)
    assert r["boxes"][0]["hands"][0]["stake"] == "20"
    assert hand_results(r)[(1, 1)] == ("win", "20")


def test_split_adds_an_equal_stake_and_plays_each_hand_on_its_own():
    t = table("fr-2007")
    start(t, {1: "10"})
    cards(t, "8S", "6D", "8H")
    t.split(1)
    # The first hand takes its second card and is played out first.
    with pytest.raises(IllegalAction, match="needs its second card"):
        t.stand(1)
    cards(t, "3C")  # hand 1: 8 3
    t.double(1)
    cards(t, "TC")  # hand 1: 21, doubled
    cards(t, "9D")  # hand 2: 8 9 = 17
    t.stand(1)
    cards(t, "TH", "7S")  # dealer 6 T 7 = 23
    r = last_outcome(t)
    assert hand_results(r) == {(1, 1): ("win", "20"), (1, 2): ("win", "10")}
    assert r["boxes"][0]["players"] == [
        {"player": "box1", "stake": "30", "insurance": "0", "net": "30"}
    ]


def test_split_aces_take_one_card_each_and_ace_ten_is_21_not_blackjack():
    t = table("fr-2007")
    start(t, {1: "10"})
    cards(t, "AS", "9D", "AH")
    t.split(1)
    ops = cards(t, "KC")  # hand 1: A K = 21 after a split: not blackjack, ends by itself
    assert "blackjack" not in kinds(ops)
    assert t.round is not None and t.round.current()[1].number == 2
    cards(t, "5D")  # hand 2: A 5, one card only: the hand is over
    assert t.round.phase is Phase.DEALER
    cards(t, "TH")  # dealer 19
    r = last_outcome(t)
    assert hand_results(r) == {(1, 1): ("win", "10"), (1, 2): ("lose", "-10")}
    assert r["boxes"][0]["hands"][0]["blackjack"] is False


def test_table_minimum_and_maximum_per_box():
    t = table("fr-2007")
    with pytest.raises(IllegalAction, match="below the table minimum of 5"):
        bet(t, 1, "4")
    with pytest.raises(IllegalAction, match="over the table maximum of 500"):
        bet(t, 1, "505")
    bet(t, 1, "500")


def test_each_box_plays_the_dealer_alone():
    # 002: the dealer pays each box on its own, whatever the others hold.
    t = table("pt", boxes=3)
    start(t, {1: "10", 2: "10", 3: "10"})
    cards(
        t, "TS", "TD", "TC", "8H", "KS", "AH", "6D", "9C"
    )  # boxes 20, 21 (blackjack), 16; up 8 hole 9
    t.stand(1)
    t.stand(3)
    r = last_outcome(t)
    assert hand_results(r) == {
        (1, 1): ("win", "10"),
        (2, 1): ("blackjack", "15"),
        (3, 1): ("lose", "-10"),
    }


def test_a_refused_action_out_of_turn_names_whose_turn_it_is():
    t = table("fr-2007", boxes=2)
    start(t, {1: "10", 2: "10"})
    cards(t, "TS", "9D", "6H", "6C", "5D")
    with pytest.raises(OutOfTurn, match="it is box 1's turn"):
        t.stand(2)
