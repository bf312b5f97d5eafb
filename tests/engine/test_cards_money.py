from decimal import Decimal

import pytest

from controller.engine import CARD_CODES, VALUE, BadAmount, UnknownCard, parse_card
from controller.engine.hand import Hand
from controller.engine.money import fmt, parse_amount


def test_fifty_two_codes_rank_then_suit():
    assert len(CARD_CODES) == 52 == len(set(CARD_CODES))
    assert "TH" in CARD_CODES and "AS" in CARD_CODES and "KC" in CARD_CODES


def test_card_values_face_value_tens_and_ace_as_one():
    # 2-10 at face value, J Q K ("buches") 10, the ace 1 (or 11 in a total).
    assert [VALUE[r + "S"] for r in "23456789"] == [2, 3, 4, 5, 6, 7, 8, 9]
    assert {VALUE[r + "H"] for r in "TJQK"} == {10}
    assert VALUE["AD"] == 1


@pytest.mark.parametrize(
    ("cards", "total", "soft"),
    [
        (["AS", "6H"], 17, True),
        (["AS", "6H", "TD"], 17, False),
        (["AS", "AH"], 12, True),  # 002: several aces count independently
        (["AS", "AH", "9C"], 21, True),
        (["AS", "AH", "AD", "AC", "7S"], 21, True),
        (["KS", "QH", "2D"], 22, False),
        (["TS", "AH"], 21, True),
    ],
)
def test_hand_totals_hard_and_soft(cards, total, soft):
    hand = Hand(1, {"box1": Decimal(10)})
    for c in cards:
        hand.add(c)
    assert (hand.total, hand.soft) == (total, soft)


def test_blackjack_is_two_cards_only_and_never_after_a_split():
    hand = Hand(1, {"box1": Decimal(10)})
    hand.add("AS")
    hand.add("KD")
    assert hand.blackjack
    three = Hand(1, {"box1": Decimal(10)})
    for c in ("7S", "4D", "KH"):
        three.add(c)
    assert three.total == 21 and not three.blackjack  # 001: 21 in three cards is not blackjack
    split = Hand(2, {"box1": Decimal(10)}, from_split=True)
    split.add("AS")
    split.add("TD")
    assert split.total == 21 and not split.blackjack  # 000, 002, 003


@pytest.mark.parametrize("bad", ["as", "1S", "10H", "TX", "", "ASX", None, 14])
def test_unknown_card_codes_are_refused(bad):
    with pytest.raises(UnknownCard, match="card"):
        parse_card(bad)


def test_lower_case_card_gets_a_hint():
    with pytest.raises(UnknownCard, match="'AS'"):
        parse_card("as")


@pytest.mark.parametrize(
    ("value", "expected"), [("10", Decimal(10)), ("12.50", Decimal("12.50")), (25, Decimal(25))]
)
def test_amounts_parse_exactly(value, expected):
    assert parse_amount(value) == expected


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("-5", "negative"),
        ("ten", "not a number"),
        (12.5, "decimal string"),
        (True, "decimal string"),
        ("NaN", "not a finite"),
        ("Infinity", "not a finite"),
        ("12.505", "more than 2 decimal places"),
        ("0", "more than 0"),
    ],
)
def test_bad_amounts_are_refused_with_the_reason(value, why):
    with pytest.raises(BadAmount, match=why):
        parse_amount(value)


def test_zero_is_allowed_where_it_means_taking_a_bet_back():
    assert parse_amount("0", allow_zero=True) == 0


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        ("15", "15"),
        ("7.5", "7.50"),
        ("7.515", "7.515"),
        ("-10", "-10"),
        ("-0", "0"),
        ("1E+1", "10"),
        ("0.50", "0.50"),
        ("2.50", "2.50"),
    ],
)
def test_money_strings(amount, text):
    assert fmt(Decimal(amount)) == text
