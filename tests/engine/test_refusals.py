"""Every refusal: a typed error that says why, and the table exactly as it was.

Each case is a profile, the events before, the refused event and what the
dealer is told. The same check runs for all of them: snapshot, refuse,
snapshot again, equal.
"""

from __future__ import annotations

from typing import Any

import pytest

from controller.engine import (
    BadAmount,
    BadEvent,
    BetRefused,
    IllegalAction,
    OutOfTurn,
    ShoeError,
    TableError,
    UnknownCard,
    parse_event,
)

from .helpers import snapshot, table


def bet(box: int, amount: str, player: str | None = None) -> dict[str, Any]:
    e: dict[str, Any] = {"type": "bet", "box": box, "amount": amount}
    if player:
        e["player"] = player
    return e


def card(code: str) -> dict[str, Any]:
    return {"type": "card", "card": code}


def act(box: int, action: str) -> dict[str, Any]:
    return {"type": "action", "box": box, "action": action}


CLOSE = {"type": "close_bets"}
CLOSE_INS = {"type": "close_insurance"}
TWO = [bet(1, "10"), bet(2, "10"), CLOSE]
# Two boxes, no hole card: box 1 T 6 (16), box 2 9 8 (17), dealer 7.
DEALT = [*TWO, card("TS"), card("9S"), card("7H"), card("6D"), card("8C")]
# Two boxes with a hole card: same, hole 9.
DEALT_HOLE = [*DEALT, card("9H")]
# Dealer shows an ace, insurance open.
ACE_UP = [*TWO, card("TS"), card("9S"), card("AH"), card("6D"), card("8C")]

# be-casino: box 1 hits by mistake; the card goes back on offer and box 1 stands.
OFFERED = [
    *TWO,
    card("TS"),
    card("9S"),
    card("7H"),
    card("2D"),
    card("8C"),
    card("2C"),
    {"type": "misdeal_card"},
    act(1, "stand"),
]

CASES: list[tuple[str, str, list[dict[str, Any]], Any, type[TableError], str]] = [
    # --- malformed events
    (
        "unknown type",
        "fr-2007",
        [],
        {"type": "hit", "box": 1},
        BadEvent,
        "unknown event type 'hit'",
    ),
    (
        "missing field",
        "fr-2007",
        [],
        {"type": "bet", "box": 1},
        BadEvent,
        "bet needs a 'amount' field",
    ),
    (
        "unexpected field",
        "fr-2007",
        [],
        {"type": "card", "card": "AS", "box": 2},
        BadEvent,
        "unexpected field 'box'",
    ),
    (
        "typo in a field",
        "fr-2007",
        [],
        {"type": "bet", "box": 1, "amout": "10", "amount": "5"},
        BadEvent,
        "unexpected field 'amout'",
    ),
    ("not an object", "fr-2007", [], ["card", "AS"], BadEvent, "JSON object"),
    ("box zero", "fr-2007", [], bet(0, "10"), BadEvent, "box must be a box number"),
    (
        "box as text",
        "fr-2007",
        [],
        {"type": "bet", "box": "1", "amount": "10"},
        BadEvent,
        "box must be a box number",
    ),
    ("empty player", "fr-2007", [], bet(1, "10", " "), BadEvent, "player must be a non-empty name"),
    ("unknown action", "fr-2007", DEALT, act(1, "hit"), BadEvent, "unknown action 'hit'"),
    (
        "void reason not text",
        "fr-2007",
        DEALT,
        {"type": "void", "reason": 3},
        BadEvent,
        "reason must be text",
    ),
    ("unknown card", "fr-2007", TWO, card("1S"), UnknownCard, "unknown card '1S'"),
    ("lower case card", "fr-2007", TWO, card("ts"), UnknownCard, "upper case"),
    ("negative bet", "fr-2007", [], bet(1, "-10"), BadAmount, "negative"),
    ("non-numeric bet", "fr-2007", [], bet(1, "ten"), BadAmount, "not a number"),
    (
        "float bet",
        "fr-2007",
        [],
        {"type": "bet", "box": 1, "amount": 10.5},
        BadAmount,
        "decimal string",
    ),
    ("sub-cent bet", "fr-2007", [], bet(1, "10.001"), BadAmount, "more than 2 decimal places"),
    ("bad shoe rules", "fr-2007", [], {"type": "shoe", "rules": 7}, BadEvent, "profile name"),
    # --- betting
    ("no such box", "fr-2007", [], bet(8, "10"), BetRefused, "there is no box 8"),
    ("below minimum", "fr-2007", [], bet(1, "4"), BetRefused, "below the table minimum of 5"),
    ("over maximum", "fr-2007", [], bet(1, "501"), BetRefused, "over the table maximum of 500"),
    (
        "behind over maximum",
        "be-casino",
        [bet(1, "450")],
        bet(1, "60", "anna"),
        BetRefused,
        "would hold 510, over the table maximum",
    ),
    ("not a multiple", "fr-2007", [], bet(1, "10.50"), BetRefused, "not a multiple of 1"),
    (
        "no bets behind",
        "fr-2007",
        [bet(1, "10")],
        bet(1, "10", "anna"),
        BetRefused,
        "fr-2007 has no bets behind",
    ),
    (
        "behind without holder",
        "be-casino",
        [],
        bet(1, "10", "anna"),
        BetRefused,
        "no box holder's stake",
    ),
    (
        "behind named as holder",
        "be-casino",
        [bet(1, "10")],
        bet(1, "10", "box2"),
        BetRefused,
        "names a box holder",
    ),
    (
        "fourth player",
        "be-casino",
        [bet(1, "10"), bet(1, "10", "a"), bet(1, "10", "b")],
        bet(1, "10", "c"),
        BetRefused,
        "already has 3 players",
    ),
    ("take back nothing", "fr-2007", [], bet(1, "0"), BetRefused, "no bet on box 1 to take back"),
    (
        "holder off before behind",
        "be-casino",
        [bet(1, "10"), bet(1, "10", "a")],
        bet(1, "0"),
        BetRefused,
        "bets behind: they come off before",
    ),
    (
        "bet during the round",
        "fr-2007",
        DEALT,
        bet(3, "10"),
        OutOfTurn,
        "cannot take bets now: round 1 is in player_turns",
    ),
    ("close with no stake", "fr-2007", [], CLOSE, BetRefused, "no box has a stake"),
    (
        "close with one box",
        "be-casino",
        [bet(1, "10")],
        CLOSE,
        BetRefused,
        "needs at least 2 boxes with a stake",
    ),
    (
        "close before burning",
        "fr-classic",
        [{"type": "shoe"}, bet(1, "10"), bet(2, "10")],
        CLOSE,
        ShoeError,
        "5 more card",
    ),
    ("close twice", "fr-2007", TWO, CLOSE, OutOfTurn, "cannot close bets now"),
    # --- the shoe
    (
        "burn without a shoe",
        "fr-classic",
        [],
        {"type": "burn", "card": "2S"},
        ShoeError,
        "burns 5 cards after the cut, and they are out",
    ),
    (
        "burn where none is due",
        "be-casino",
        [{"type": "shoe"}],
        {"type": "burn", "card": "2S"},
        ShoeError,
        "burns no card",
    ),
    (
        "burn during the round",
        "fr-classic",
        DEALT,
        {"type": "burn", "card": "2S"},
        OutOfTurn,
        "cannot burn a card now",
    ),
    (
        "new shoe during the round",
        "fr-2007",
        DEALT,
        {"type": "shoe"},
        OutOfTurn,
        "cannot start a new shoe now",
    ),
    (
        "shoe changes rules",
        "fr-2007",
        [],
        {"type": "shoe", "rules": "pt"},
        IllegalAction,
        "cannot change the rules to pt",
    ),
    (
        "shoe changes boxes",
        "fr-2007",
        [],
        {"type": "shoe", "boxes": 5},
        IllegalAction,
        "cannot change that to 5",
    ),
    (
        "card while betting",
        "fr-2007",
        [bet(1, "10")],
        card("AS"),
        OutOfTurn,
        "no card is expected: bets are open",
    ),
    (
        "seventh two of spades",
        "fr-2007",
        [*TWO] + [card("2S")] * 6,
        card("2S"),
        ShoeError,
        "the two of spades cannot come out again: a 6-deck shoe holds 6 and all of them are out",
    ),
    (
        "fifth copy in pt",
        "pt",
        [*TWO, card("KS"), card("KS"), card("KS"), card("KS")],
        card("KS"),
        ShoeError,
        "a 4-deck shoe holds 4",
    ),
    # --- turns
    (
        "action during the deal",
        "fr-2007",
        [*TWO, card("TS")],
        act(1, "stand"),
        OutOfTurn,
        "the round is in deal",
    ),
    ("action while betting", "fr-2007", [], act(1, "stand"), OutOfTurn, "no round is in play"),
    ("other box's turn", "fr-2007", DEALT, act(2, "stand"), OutOfTurn, "it is box 1's turn"),
    (
        "box not in the round",
        "fr-2007",
        DEALT,
        {"type": "insurance", "box": 5, "amount": "5"},
        OutOfTurn,
        "box 5 has no stake in round 1",
    ),
    (
        "card during insurance",
        "fr-2007",
        ACE_UP,
        card("2D"),
        OutOfTurn,
        "insurance is open: close insurance before the next card",
    ),
    (
        "action during insurance",
        "fr-2007",
        ACE_UP,
        act(1, "stand"),
        OutOfTurn,
        "the round is in insurance",
    ),
    (
        "stand before split card",
        "fr-2007",
        [bet(1, "10"), CLOSE, card("8S"), card("7H"), card("8D"), act(1, "split")],
        act(1, "stand"),
        IllegalAction,
        "needs its second card first",
    ),
    (
        "stand after double",
        "fr-2007",
        [*DEALT, act(1, "double")],
        act(1, "stand"),
        IllegalAction,
        "it doubled and takes one card",
    ),
    (
        "forced draw",
        "be-casino",
        [*TWO, card("AS"), card("TS"), card("7H"), card("7D"), card("8C")],
        act(1, "stand"),
        IllegalAction,
        "draw to a hard total of at least 12 \\(this hand has 8\\)",
    ),
    # --- double
    (
        "double on three cards",
        "fr-2007",
        [*DEALT, card("2C")],
        act(1, "double"),
        IllegalAction,
        "only the first two cards of a hand may double",
    ),
    (
        "double outside 9-11",
        "fr-classic",
        [*DEALT],
        act(1, "double"),
        IllegalAction,
        "fr-classic allows it only on 9, 10 or 11",
    ),
    (
        "double split aces",
        "fr-2007",
        [bet(1, "10"), CLOSE, card("AS"), card("7H"), card("AD"), act(1, "split"), card("AC")],
        act(1, "double"),
        IllegalAction,
        "hand 2 cannot double: it needs its second card",
    ),
    # --- split
    ("split a non-pair", "fr-2007", DEALT, act(1, "split"), IllegalAction, "not a pair"),
    (
        "split ten and king in fr-classic",
        "fr-classic",
        [*TWO, card("TS"), card("9S"), card("7H"), card("KD"), card("8C")],
        act(1, "split"),
        IllegalAction,
        "only two cards of the same rank",
    ),
    (
        "fourth hand in fr-2007",
        "fr-2007",
        [
            bet(1, "10"),
            CLOSE,
            card("8S"),
            card("7H"),
            card("8D"),
            act(1, "split"),
            card("8C"),
            act(1, "split"),
            card("8H"),
        ],
        act(1, "split"),
        IllegalAction,
        "at most 3 hands from splits",
    ),
    (
        "resplit aces",
        "fr-classic",
        [*TWO, card("AS"), card("9S"), card("7H"), card("AD"), card("8C"), act(1, "split")],
        card("AC"),
        None,
        "",
    ),  # placeholder replaced below
    # --- surrender
    (
        "surrender where there is none",
        "fr-2007",
        DEALT,
        act(1, "surrender"),
        IllegalAction,
        "fr-2007 has no surrender",
    ),
    (
        "surrender on three cards",
        "pt",
        [*DEALT_HOLE, card("2C")],
        act(1, "surrender"),
        IllegalAction,
        "only the first two cards of the box may surrender",
    ),
    (
        "surrender with an ace",
        "be-casino",
        [*TWO, card("AS"), card("TS"), card("7H"), card("5D"), card("6C")],
        act(1, "surrender"),
        IllegalAction,
        "only on two cards without an ace",
    ),
    (
        "surrender below 12",
        "be-casino",
        [*TWO, card("5S"), card("TS"), card("7H"), card("6D"), card("8C")],
        act(1, "surrender"),
        IllegalAction,
        "hard total of 12 or more",
    ),
    (
        "surrender against an ace",
        "be-casino",
        [*ACE_UP, CLOSE_INS],
        act(1, "surrender"),
        IllegalAction,
        "does not allow it when the dealer shows an ace",
    ),
    (
        "surrender after a split",
        "pt",
        [
            *TWO,
            card("8S"),
            card("9S"),
            card("7H"),
            card("8D"),
            card("8C"),
            card("9H"),
            act(1, "split"),
            card("7C"),
        ],
        act(1, "surrender"),
        IllegalAction,
        "only the first two cards of the box",
    ),
    # --- insurance
    (
        "insurance without an ace",
        "fr-2007",
        DEALT,
        {"type": "insurance", "box": 1, "amount": "5"},
        OutOfTurn,
        "only when the dealer's up card is an ace",
    ),
    (
        "insurance over half",
        "fr-2007",
        ACE_UP,
        {"type": "insurance", "box": 1, "amount": "5.50"},
        IllegalAction,
        "more than half the stake \\(5\\)",
    ),
    (
        "insurance by a stranger",
        "fr-2007",
        ACE_UP,
        {"type": "insurance", "box": 1, "player": "zed", "amount": "5"},
        IllegalAction,
        "zed has no stake on box 1",
    ),
    (
        "insurance after it closed",
        "fr-2007",
        [*ACE_UP, CLOSE_INS],
        {"type": "insurance", "box": 1, "amount": "5"},
        OutOfTurn,
        "insurance is closed",
    ),
    (
        "raise without insurance",
        "be-casino",
        [*ACE_UP, CLOSE_INS, act(1, "double")],
        {"type": "insurance", "box": 1, "amount": "5"},
        IllegalAction,
        "took no insurance",
    ),
    (
        "raise lowered",
        "be-casino",
        [*ACE_UP, {"type": "insurance", "box": 1, "amount": "5"}, CLOSE_INS, act(1, "double")],
        {"type": "insurance", "box": 1, "amount": "4"},
        IllegalAction,
        "may only be raised",
    ),
    (
        "close insurance when closed",
        "fr-2007",
        DEALT,
        CLOSE_INS,
        OutOfTurn,
        "insurance is not open",
    ),
    (
        "insurance while betting",
        "fr-2007",
        [],
        {"type": "insurance", "box": 1, "amount": "5"},
        OutOfTurn,
        "no round is in play",
    ),
    # --- mistaken card
    (
        "mistake without the rule",
        "fr-2007",
        [*DEALT, card("2C")],
        {"type": "misdeal_card"},
        IllegalAction,
        "no rule for a card drawn by mistake",
    ),
    (
        "mistake not right after the card",
        "be-casino",
        [
            *TWO,
            card("TS"),
            card("9S"),
            card("7H"),
            card("2D"),
            card("8C"),
            card("2C"),
            act(1, "stand"),
        ],
        {"type": "misdeal_card"},
        OutOfTurn,
        "must come right after",
    ),
    (
        "mistake during the deal",
        "be-casino",
        [*TWO, card("TS")],
        {"type": "misdeal_card"},
        OutOfTurn,
        "must come right after",
    ),
    (
        "second mistake while one is on offer",
        "be-casino",
        [
            *TWO,
            card("TS"),
            card("9S"),
            card("7H"),
            card("2D"),
            card("8C"),
            card("2C"),
            {"type": "misdeal_card"},
            card("5D"),
        ],
        {"type": "misdeal_card"},
        IllegalAction,
        "already waiting for a taker",
    ),
    (
        "take a card nobody offered",
        "be-casino",
        DEALT,
        act(1, "take_card"),
        OutOfTurn,
        "no mistaken card is on offer",
    ),
    (
        "card while an offer waits",
        "be-casino",
        OFFERED,
        card("3D"),
        OutOfTurn,
        "must first take or refuse the mistaken card",
    ),
    (
        "offer answered by the wrong box",
        "be-casino",
        OFFERED,
        act(1, "refuse_card"),
        OutOfTurn,
        "offered to box 2, not box 1",
    ),
    # --- void
    (
        "void while betting",
        "fr-2007",
        [bet(1, "10")],
        {"type": "void", "reason": "x"},
        OutOfTurn,
        "no round is in play",
    ),
]

# Aces split in fr-classic take one card each; a third ace cannot be split again.
CASES = [c for c in CASES if c[0] != "resplit aces"] + [
    (
        "resplit aces",
        "fr-classic",
        [
            *TWO,
            card("AS"),
            card("9S"),
            card("7H"),
            card("AD"),
            card("8C"),
            act(1, "split"),
            card("AC"),
        ],
        act(1, "split"),
        IllegalAction,
        "hand 2 cannot split: it needs its second card",
    ),
]


@pytest.mark.parametrize(
    ("profile", "before", "event", "error", "message"),
    [pytest.param(*c[1:], id=c[0]) for c in CASES],
)
def test_refused_event_says_why_and_changes_nothing(profile, before, event, error, message):
    t = table(profile, boxes=7)
    for e in before:
        t.apply(parse_event(e))
    state = snapshot(t)
    with pytest.raises(error, match=message):
        t.apply(parse_event(event))
    assert snapshot(t) == state
    if not issubclass(error, BadEvent):
        # verify / can say the same without applying anything
        with pytest.raises(error, match=message):
            t.verify(parse_event(event))
        assert not t.can(parse_event(event))
        assert snapshot(t) == state


def test_can_says_yes_to_what_apply_accepts():
    t = table("be-casino")
    for e in [bet(1, "10"), bet(2, "10"), CLOSE, card("TS"), card("9S"), card("7H"), card("6D")]:
        assert t.can(parse_event(e))
        t.apply(parse_event(e))
    for e in [card("8C"), act(1, "stand"), act(1, "double"), act(1, "surrender")]:
        assert not t.can(parse_event(e)) or e["type"] == "card"
    t.apply(parse_event(card("8C")))
    for e in [
        act(1, "stand"),
        act(1, "double"),
        act(1, "surrender"),
        card("2C"),
        {"type": "void", "reason": "x"},
    ]:
        assert t.can(parse_event(e)), e
    assert not t.can(parse_event(act(1, "split")))


def test_every_refusal_is_a_table_error_and_a_value_error():
    for error in (
        BadEvent,
        BadAmount,
        UnknownCard,
        IllegalAction,
        OutOfTurn,
        BetRefused,
        ShoeError,
    ):
        assert issubclass(error, TableError) and issubclass(error, ValueError)
