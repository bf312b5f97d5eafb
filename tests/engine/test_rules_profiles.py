"""Every row of RULES.md 'Where the profiles differ', profile by profile."""

from decimal import Decimal

import pytest

from controller.engine import CARD_CODES, BetRefused, IllegalAction, ShoeError
from controller.engine.ops import CardDealt, CardRevealed, CutCardReached, HandBlackjack, kind
from controller.engine.phase import Phase

from .helpers import bet, cards, hand_results, kinds, last_outcome, nets, start, table

D = Decimal


# ----------------------------------------------------------------- decks
@pytest.mark.parametrize(
    ("name", "decks"),
    [("fr-classic", 6), ("fr-2007", 6), ("us-holecard", 6), ("pt", 4), ("be-casino", 6)],
)
def test_decks_per_profile_and_the_shoe_refuses_one_copy_too_many(name, decks):
    t = table(name)
    assert t.p.decks == decks
    t.new_shoe()
    for _ in range(t.p.burn):
        t.burn("2C")
    # Burn the rest of the 2C copies one round at a time is slow: feed rounds of 2S instead.
    while t.shoe.seen.get("2S", 0) < decks:
        start(t, {1: "10", 2: "10"})
        r = t.round
        assert r is not None
        while not r.over:
            what = t.expecting().what
            if what == "card":
                code = "2S" if t.shoe.seen.get("2S", 0) < decks else "TD"
                t.card(code)
            elif what == "insurance":
                t.close_insurance()
            elif what == "action":
                acts = t.expecting().actions
                if "stand" in acts:
                    t.stand(t.expecting().box)
                else:
                    t.card("TD")
    start(t, {1: "10", 2: "10"})
    with pytest.raises(ShoeError, match=f"a {decks}-deck shoe holds {decks}"):
        t.card("2S")


# ----------------------------------------------------------------- boxes
def test_seven_boxes_and_no_eighth():
    t = table("fr-classic")
    assert t.boxes == 7
    with pytest.raises(BetRefused, match="there is no box 8"):
        bet(t, 8, "10")


# ------------------------------------------------------------------ burn
def test_fr_classic_burns_five_after_the_cut():
    t = table("fr-classic")
    t.new_shoe()
    start_bets = {1: "10", 2: "10"}
    for box, amount in start_bets.items():
        bet(t, box, amount)
    for i in range(4):
        t.burn(["2S", "3S", "4S", "5S"][i])
    with pytest.raises(ShoeError, match="1 more card"):
        t.close_bets()
    t.burn("6S")
    with pytest.raises(ShoeError, match="burns 5 cards after the cut, and they are out"):
        t.burn("7S")
    t.close_bets()


@pytest.mark.parametrize("name", ["fr-2007", "us-holecard", "pt", "be-casino"])
def test_profiles_silent_on_burning_burn_nothing(name):
    t = table(name)
    t.new_shoe()
    with pytest.raises(ShoeError, match="burns no card"):
        t.burn("2S")


# ------------------------------------------------------------- min boxes
@pytest.mark.parametrize(("name", "need"), [("fr-classic", 2), ("pt", 2), ("be-casino", 2)])
def test_at_least_two_occupied_boxes(name, need):
    t = table(name)
    bet(t, 1, "10")
    with pytest.raises(BetRefused, match=f"needs at least {need} boxes with a stake"):
        t.close_bets()
    bet(t, 4, "10")
    t.close_bets()


@pytest.mark.parametrize("name", ["fr-2007", "us-holecard"])
def test_one_box_is_enough_where_the_seed_is_silent(name):
    t = table(name)
    bet(t, 1, "10")
    t.close_bets()


# ------------------------------------------- dealer's second card and peek
@pytest.mark.parametrize("name", ["fr-classic", "fr-2007", "be-casino"])
def test_no_hole_card_the_dealer_draws_the_second_card_after_the_players(name):
    t = table(name)
    start(t, {1: "10", 2: "10"})
    ops = cards(t, "TS", "9S", "6H", "7D", "8C")
    dealt = [op for op in ops if isinstance(op, CardDealt)]
    assert [op.box for op in dealt] == [1, 2, 0, 1, 2]  # one dealer card in the deal
    assert t.round is not None and t.round.phase is Phase.PLAYERS


def test_us_holecard_hole_card_face_down_then_revealed():
    t = table("us-holecard")
    start(t, {1: "10"})
    ops = cards(t, "TS", "6H", "9D", "KC")  # up 6, hole K
    hole = [op for op in ops if isinstance(op, CardDealt) and op.box == 0]
    assert [(op.card, op.face_down) for op in hole] == [("6H", False), ("KC", True)]
    assert not any(isinstance(op, CardRevealed) for op in ops)
    ops = t.stand(1)
    assert CardRevealed(1, 0, 0, 1, "KC") in ops  # revealed at the dealer's turn


def test_us_holecard_peek_ends_the_round_before_anyone_plays():
    t = table("us-holecard", boxes=2)
    start(t, {1: "10", 2: "10"})
    ops = cards(t, "9S", "AS", "TH", "9D", "9C", "AC")  # box1 9 9, box2 A 9; up T, hole A
    assert "dealer_peeked" in kinds(ops)
    assert "turn_started" not in kinds(ops)
    r = last_outcome(t)
    assert r["dealer"]["blackjack"] is True
    assert nets(r) == {"box1": "-10", "box2": "-10"}


def test_us_holecard_peek_without_blackjack_goes_on():
    t = table("us-holecard")
    start(t, {1: "10"})
    ops = cards(t, "9S", "TH", "9D", "8C")
    assert ops[-2:] == [ops[-2], ops[-1]] and "dealer_peeked" in kinds(ops)
    assert t.round is not None and t.round.phase is Phase.PLAYERS


# -------------------------------------------------- players' cards (002)
def test_pt_second_card_closed_until_the_players_turn():
    t = table("pt", boxes=2)
    start(t, {1: "10", 2: "10"})
    ops = cards(t, "TS", "9S", "6H", "7D", "8C", "2D")  # up 6, hole 2
    closed = [op for op in ops if isinstance(op, CardDealt) and op.face_down]
    assert [(op.box, op.card) for op in closed] == [(1, "7D"), (2, "8C"), (0, "2D")]
    assert CardRevealed(1, 1, 1, 1, "7D") in ops  # box 1's turn has begun: its card turns over
    assert not any(isinstance(op, CardRevealed) and op.box == 2 for op in ops)
    ops = t.stand(1)
    assert CardRevealed(1, 2, 1, 1, "8C") in ops


def test_pt_closed_blackjack_shows_and_is_paid_when_turned_over():
    t = table("pt", boxes=2)
    start(t, {1: "10", 2: "10"})
    ops = cards(t, "TS", "AS", "6H", "7D", "KC", "2D")
    assert not any(isinstance(op, HandBlackjack) for op in ops)  # box 2's K is still closed
    ops = t.stand(1)
    assert HandBlackjack(1, 2, 1, True) in ops  # 002: 'ganha automaticamente'
    cards(t, "TH")  # dealer 6 2 T = 18: box 1 17 loses
    assert hand_results(last_outcome(t))[(2, 1)] == ("blackjack", "15")


# -------------------------------------------------------------- doubling
def test_fr_classic_doubles_only_on_nine_ten_eleven():
    t = table("fr-classic")
    start(t, {1: "10", 2: "10"})
    cards(t, "5S", "9S", "6H", "3D", "AC")  # box1 8, box2 A 9 (10 or 20)
    with pytest.raises(IllegalAction, match="fr-classic allows it only on 9, 10 or 11"):
        t.double(1)
    cards(t, "AH")  # box1 5 3 A = 9 or 19, three cards
    with pytest.raises(IllegalAction, match="first two cards"):
        t.double(1)
    t.stand(1)
    t.double(2)  # the ace counts 1 'au choix du joueur', so 10


@pytest.mark.parametrize("name", ["fr-2007", "us-holecard", "pt", "be-casino"])
def test_double_on_any_two_cards(name):
    t = table(name, boxes=2)
    start(t, {1: "10", 2: "10"})
    up = ["5S", "9S", "6H", "3D", "7C"] + (["8D"] if t.p.hole_card else [])
    cards(t, *up)  # box 1: 5 3 = 8
    t.double(1)


def test_us_holecard_double_card_face_down_until_the_dealer_finishes():
    t = table("us-holecard")
    start(t, {1: "10"})
    cards(t, "5S", "6H", "6D", "TC")  # box 1 11; up 6, hole T
    t.double(1)
    ops = cards(t, "KS")
    dealt = [op for op in ops if isinstance(op, CardDealt)]
    assert dealt == [CardDealt(1, 1, 1, "KS", True)]
    done = [op for op in ops if kind(op) == "hand_complete"]
    assert done and done[0].total == 0  # no total shown for a face-down double
    ops = cards(t, "9H")  # dealer 6 T 9 = 25
    revealed = [op for op in ops if isinstance(op, CardRevealed) and op.box == 1]
    assert revealed == [CardRevealed(1, 1, 1, 2, "KS")]
    assert hand_results(last_outcome(t))[(1, 1)] == ("win", "20")


def test_us_holecard_face_down_double_that_busts_is_collected_at_the_reveal():
    t = table("us-holecard")
    start(t, {1: "10"})
    cards(t, "TS", "6H", "6D", "TC")  # box 1 16; dealer 6 T
    t.double(1)
    ops = cards(t, "KS")  # 26, but nobody sees it: the dealer plays on
    assert "bust" not in kinds(ops)
    assert t.round is not None and t.round.phase is Phase.DEALER
    ops = cards(t, "9H")  # dealer 25
    assert "bust" in kinds(ops)
    assert hand_results(last_outcome(t))[(1, 1)] == ("bust", "-20")


# ------------------------------------------------------- splits and hands
def test_fr_classic_at_most_three_hands_and_identical_cards():
    t = table("fr-classic")
    start(t, {1: "10", 2: "10"})
    cards(t, "8S", "TS", "6H", "8D", "KD")
    t.split(1)
    cards(t, "8C")
    t.split(1)
    cards(t, "8H")  # hand 1 again 8 8, but 3 hands already
    with pytest.raises(IllegalAction, match="at most 3 hands from splits"):
        t.split(1)
    t.stand(1)
    cards(t, "2C")
    t.stand(1)
    cards(t, "9C")
    t.stand(1)
    # box 2: T K, 'identiques' is read as the same rank
    with pytest.raises(IllegalAction, match="fr-classic splits only two cards of the same rank"):
        t.split(2)


def test_be_casino_splits_three_times_for_four_hands():
    t = table("be-casino")
    start(t, {1: "10", 2: "10"})
    cards(t, "8S", "TS", "6H", "8D", "TD")  # box 2 T T (same value: a pair here)
    for _ in range(3):
        t.split(1)
        cards(t, "8C" if _ < 2 else "8H")
    with pytest.raises(IllegalAction, match="at most 4 hands from splits"):
        t.split(1)
    assert len(t.round.boxes[0].hands) == 4  # type: ignore[union-attr]


@pytest.mark.parametrize("name", ["fr-classic", "fr-2007", "us-holecard", "pt", "be-casino"])
def test_split_aces_two_hands_one_card_each(name):
    t = table(name, boxes=2)
    start(t, {1: "10", 2: "10"})
    cards(t, *(["AS", "TS", "6H", "AD", "9D"] + (["7C"] if t.p.hole_card else [])))
    t.split(1)
    cards(t, "AC")  # another ace on the first split ace
    r = t.round
    assert r is not None
    assert r.current()[1].number == 2  # the split ace took its one card: next hand
    with pytest.raises(IllegalAction, match="split"):
        t.split(1)  # hand 2 has one card: it needs its card, not another split


def test_resplit_aces_when_the_profile_allows_it():
    t = table("fr-2007", resplit_aces=True, max_ace_hands=3)
    start(t, {1: "10"})
    cards(t, "AS", "6H", "AD")
    t.split(1)
    cards(t, "AC")  # A A on a split ace: may split again
    with pytest.raises(IllegalAction, match="split aces take one card each"):
        t.card("5D")
    t.split(1)
    assert len(t.round.boxes[0].hands) == 3  # type: ignore[union-attr]


def test_double_after_split_is_a_setting():
    t = table("fr-2007", double_after_split=False)
    start(t, {1: "10"})
    cards(t, "8S", "6H", "8D")
    t.split(1)
    cards(t, "3C")
    with pytest.raises(IllegalAction, match="does not allow a double after a split"):
        t.double(1)


# -------------------------------------------------------------- surrender
@pytest.mark.parametrize("name", ["fr-classic", "fr-2007", "us-holecard"])
def test_no_surrender(name):
    t = table(name, boxes=2)
    start(t, {1: "10", 2: "10"})
    cards(t, *(["TS", "9S", "TH", "6D", "8D"] + (["7C"] if t.p.hole_card else [])))
    with pytest.raises(IllegalAction, match=f"{name} has no surrender"):
        t.surrender(1)


def test_pt_surrender_first_two_cards_loses_half():
    t = table("pt", boxes=2)
    start(t, {1: "10", 2: "10"})
    cards(t, "TS", "9S", "TH", "6D", "8D", "7C")  # box 1 16 vs T
    t.surrender(1)
    t.stand(2)
    r = last_outcome(t)
    assert hand_results(r)[(1, 1)] == ("surrender", "-5")


def test_pt_surrender_only_on_the_first_two_cards():
    t = table("pt", boxes=2)
    start(t, {1: "10", 2: "10"})
    cards(t, "2S", "9S", "TH", "3D", "8D", "7C")
    cards(t, "4C")
    with pytest.raises(IllegalAction, match="only the first two cards"):
        t.surrender(1)


def test_be_casino_restricted_surrender():
    # 003: at least 12 on two cards without an ace, and not against a dealer ace.
    t = table("be-casino", boxes=4)
    start(t, {1: "10", 2: "10", 3: "10", 4: "10"})
    cards(t, "AS", "5S", "TS", "9C", "TH", "6D", "4D", "5H", "7C")  # up T
    with pytest.raises(IllegalAction, match="only on two cards without an ace"):
        t.surrender(1)  # A 6
    cards(t, "5C")  # A 6 5: hard 12, the forced draw is done
    t.stand(1)
    with pytest.raises(IllegalAction, match="hard total of 12 or more"):
        t.surrender(2)  # 5 4
    cards(t, "3C")
    t.stand(2)
    t.surrender(3)  # T 5 = 15
    t.surrender(4)  # 9 7 = 16
    cards(t, "9H")  # dealer T 9
    r = last_outcome(t)
    assert hand_results(r)[(3, 1)] == ("surrender", "-5")
    assert hand_results(r)[(4, 1)] == ("surrender", "-5")


def test_be_casino_no_surrender_against_an_ace():
    t = table("be-casino")
    start(t, {1: "10", 2: "10"})
    cards(t, "TS", "9S", "AH", "6D", "7D")
    t.close_insurance()
    with pytest.raises(IllegalAction, match="does not allow it when the dealer shows an ace"):
        t.surrender(1)


# -------------------------------------------------------------- insurance
def test_be_casino_insurance_may_be_raised_after_a_double_or_split():
    t = table("be-casino")
    start(t, {1: "10", 2: "10"})
    cards(t, "6S", "9S", "AH", "5D", "7D")  # box 1 11 against an ace
    t.insurance(1, "box1", D(5))
    t.close_insurance()
    with pytest.raises(IllegalAction, match="only after it doubles or splits"):
        t.insurance(1, "box1", D(7))
    t.double(1)
    with pytest.raises(IllegalAction, match="may only be raised"):
        t.insurance(1, "box1", D(4))
    with pytest.raises(IllegalAction, match="more than half the stake"):
        t.insurance(1, "box1", D("10.01"))
    t.insurance(1, "box1", D(10))
    cards(t, "TC")  # box 1: 21
    with pytest.raises(IllegalAction, match="only after it doubles or splits"):
        t.insurance(2, "box2", D(5))
    t.stand(2)
    cards(t, "KS")  # dealer blackjack
    r = last_outcome(t)
    # box 1: doubled 20 lost, insurance 10 pays 20: net 0
    assert nets(r) == {"box1": "0", "box2": "-10"}


@pytest.mark.parametrize("name", ["fr-classic", "fr-2007", "us-holecard", "pt"])
def test_insurance_is_not_raised_elsewhere(name):
    t = table(name, boxes=2)
    start(t, {1: "10", 2: "10"})
    cards(t, *(["6S", "9S", "AH", "5D", "7D"] + (["7C"] if t.p.hole_card else [])))
    t.insurance(1, "box1", D(5))
    t.close_insurance()
    t.double(1)
    with pytest.raises(IllegalAction, match="insurance is closed"):
        t.insurance(1, "box1", D(10))


# ----------------------------------------------------------- player blackjack
def test_fr_classic_blackjack_paid_at_once_when_the_dealer_shows_no_ace():
    t = table("fr-classic")
    start(t, {1: "10", 2: "10"})
    ops = cards(t, "AS", "9S", "TH", "KD", "9D")
    assert HandBlackjack(1, 1, 1, True) in ops
    t.stand(2)
    cards(t, "AC")  # the dealer makes blackjack afterwards: the paid blackjack stays paid
    r = last_outcome(t)
    assert r["dealer"]["blackjack"] is True
    assert hand_results(r)[(1, 1)] == ("blackjack", "15")
    assert nets(r) == {"box1": "15", "box2": "-10"}


def test_fr_classic_blackjack_against_an_ace_waits_and_even_money_is_insurance():
    for dealer_second, expected in (("KC", "10"), ("7C", "10")):
        t = table("fr-classic")
        start(t, {1: "10", 2: "10"})
        ops = cards(t, "AS", "9S", "AH", "KD", "9D")
        assert HandBlackjack(1, 1, 1, False) in ops
        t.insurance(1, "box1", D(5))  # even money
        t.close_insurance()
        t.stand(2)
        cards(t, dealer_second)
        # 000: 1 for 1 either way (1.5 - .5 without a dealer blackjack; stake back + 1 with it)
        assert nets(last_outcome(t))["box1"] == expected


def test_blackjack_against_dealer_blackjack_is_a_push_or_the_literal_000_loss():
    for setting, result in (("push", ("push", "0")), ("lose", ("lose", "-10"))):
        t = table("fr-classic", blackjack_vs_dealer_blackjack=setting)
        start(t, {1: "10", 2: "10"})
        cards(t, "AS", "9S", "AH", "KD", "9D")
        t.close_insurance()
        t.stand(2)
        cards(t, "KC")
        assert hand_results(last_outcome(t))[(1, 1)] == result


@pytest.mark.parametrize("name", ["fr-2007", "be-casino"])
def test_no_hole_card_blackjack_waits_for_the_dealer(name):
    t = table(name, boxes=2)
    start(t, {1: "10", 2: "10"})
    ops = cards(t, "AS", "9S", "TH", "KD", "9D")
    assert HandBlackjack(1, 1, 1, False) in ops
    t.stand(2)
    cards(t, "AC")
    assert hand_results(last_outcome(t))[(1, 1)] == ("push", "0")


# --------------------------------------------------------------------- push
def test_fr_classic_push_stays_on_the_box_for_the_next_round():
    t = table("fr-classic")
    start(t, {1: "10", 2: "20"})
    cards(t, "TS", "9S", "7H", "8D", "9D")  # box1 18, box2 18
    t.stand(1)
    t.stand(2)
    cards(t, "AC")  # dealer 18: both push
    r = last_outcome(t)
    assert r["carried"] == [
        {"box": 1, "player": "box1", "amount": "10"},
        {"box": 2, "player": "box2", "amount": "20"},
    ]
    assert t.bets == {1: {"box1": D(10)}, 2: {"box2": D(20)}}
    bet(t, 2, "25")  # a new bet changes it
    t.close_bets()
    assert [b.stakes for b in t.round.boxes] == [{"box1": D(10)}, {"box2": D(25)}]  # type: ignore[union-attr]


@pytest.mark.parametrize("name", ["fr-2007", "us-holecard", "pt", "be-casino"])
def test_push_returns_the_stake_elsewhere(name):
    t = table(name, boxes=2)
    start(t, {1: "10", 2: "10"})
    cards(t, *(["TS", "9S", "7H", "8D", "9D"] + (["AC"] if t.p.hole_card else [])))
    t.stand(1)
    t.stand(2)
    if not t.p.hole_card:
        cards(t, "AC")
    assert "carried" not in last_outcome(t) and t.bets == {}


# ------------------------------------------------------------- bets behind
def test_fr_classic_bets_behind_settled_each_on_its_own_share():
    t = table("fr-classic")
    bet(t, 1, "10")
    for name in ("anna", "bob", "carl", "dora"):  # 000 sets no limit
        bet(t, 1, "5", name)
    bet(t, 2, "10")
    t.close_bets()
    cards(t, "AS", "9S", "6H", "KD", "9D")  # box 1 blackjack, paid at once (up 6)
    t.stand(2)
    cards(t, "TC", "5C")
    r = last_outcome(t)
    assert nets(r) == {
        "box1": "15",
        "anna": "7.50",
        "bob": "7.50",
        "carl": "7.50",
        "dora": "7.50",
        "box2": "-10",
    }


def test_be_casino_three_players_per_box_within_the_table_maximum():
    t = table("be-casino")
    with pytest.raises(BetRefused, match="no box holder's stake to bet behind"):
        bet(t, 1, "10", "anna")
    bet(t, 1, "400")
    bet(t, 1, "50", "anna")
    with pytest.raises(BetRefused, match="over the table maximum of 500"):
        bet(t, 1, "60", "bob")
    bet(t, 1, "50", "bob")
    with pytest.raises(BetRefused, match="already has 3 players"):
        bet(t, 1, "5", "carl")


@pytest.mark.parametrize("name", ["fr-2007", "us-holecard", "pt"])
def test_no_bets_behind_elsewhere(name):
    t = table(name)
    bet(t, 1, "10")
    with pytest.raises(BetRefused, match="has no bets behind"):
        bet(t, 1, "10", "anna")


def test_be_casino_box_holder_decides_and_each_share_follows():
    t = table("be-casino")
    bet(t, 1, "20")
    bet(t, 1, "10", "anna")
    bet(t, 2, "10")
    t.close_bets()
    cards(t, "8S", "TS", "6H", "8D", "9D")
    t.split(1)  # the holder's decision: every share follows
    cards(t, "3C")
    t.double(1)
    cards(t, "TC")  # hand 1: 8 3 T = 21, doubled
    cards(t, "KH")  # hand 2: 8 K = 18
    t.stand(1)
    t.stand(2)
    cards(t, "TH")  # dealer 16
    cards(t, "7H")  # dealer 23
    r = last_outcome(t)
    players = {p["player"]: p for p in r["boxes"][0]["players"]}
    assert players["box1"]["stake"] == "60" and players["box1"]["net"] == "60"
    assert players["anna"]["stake"] == "30" and players["anna"]["net"] == "30"


# -------------------------------------------------------------- forced draw
def test_be_casino_box_holder_draws_to_a_hard_total_of_12():
    t = table("be-casino")
    start(t, {1: "10", 2: "10"})
    cards(t, "AS", "5S", "9H", "7D", "6D")  # box1 A 7 = soft 18 (hard 8); box2 5 6 = 11
    with pytest.raises(
        IllegalAction, match="draw to a hard total of at least 12 \\(this hand has 8\\)"
    ):
        t.stand(1)
    cards(t, "3C")  # A 7 3 = 21: ends by itself
    with pytest.raises(IllegalAction, match="this hand has 11"):
        t.stand(2)
    cards(t, "AH")  # 12
    t.stand(2)


@pytest.mark.parametrize("name", ["fr-classic", "fr-2007", "us-holecard", "pt"])
def test_standing_below_12_is_allowed_elsewhere(name):
    t = table(name, boxes=2)
    start(t, {1: "10", 2: "10"})
    cards(t, *(["5S", "9S", "9H", "3D", "8D"] + (["7C"] if t.p.hole_card else [])))
    t.stand(1)


# ------------------------------------------------------------ mistaken card
def test_be_casino_mistaken_card_offered_to_the_following_boxes():
    t = table("be-casino", boxes=3)
    start(t, {1: "10", 2: "10", 3: "10"})
    cards(t, "TS", "9S", "7S", "6H", "8D", "9D", "5C")  # 18, 17, 12; up 6
    cards(t, "4C")  # hit by mistake on box 1's 18
    ops = t.misdeal_card()
    assert kinds(ops) == ["mistaken_card", "turn_started"]
    t.stand(1)  # box 1 plays on as usual with its 18
    assert t.expecting().what == "offer" and t.expecting().box == 2
    t.action(2, "refuse_card")
    t.stand(2)
    assert t.expecting().box == 3
    ops = t.action(3, "take_card")  # box 3: 7 5 4 = 16
    assert ("card_taken", 3) in [(kind(op), getattr(op, "box", None)) for op in ops]
    t.stand(3)
    cards(t, "TD")  # dealer 6 T = 16
    cards(t, "5D")  # 21
    r = last_outcome(t)
    assert r["boxes"][0]["hands"][0]["cards"] == ["TS", "8D"]
    assert r["boxes"][2]["hands"][0]["cards"] == ["7S", "5C", "4C"]


def test_be_casino_mistaken_card_nobody_takes_is_the_dealers_second_card():
    t = table("be-casino")
    start(t, {1: "10", 2: "10"})
    cards(t, "TS", "9S", "6H", "8D", "9D")
    cards(t, "4C")  # box 1: mistake
    t.misdeal_card()
    t.stand(1)
    t.action(2, "refuse_card")
    ops = t.stand(2)
    assert ("card_taken", 0) in [(kind(op), getattr(op, "box", None)) for op in ops]
    cards(t, "7C")  # dealer 6 4 7 = 17
    r = last_outcome(t)
    assert r["dealer"]["cards"] == ["6H", "4C", "7C"]


def test_a_mistaken_card_that_busted_a_hand_reopens_it():
    t = table("be-casino")
    start(t, {1: "10", 2: "10"})
    cards(t, "TS", "9S", "6H", "8D", "9D")
    ops = cards(t, "KC")
    assert "bust" in kinds(ops)
    t.misdeal_card()
    r = t.round
    assert r is not None and r.current()[0].number == 1 and r.current()[1].total == 18


@pytest.mark.parametrize("name", ["fr-classic", "fr-2007", "us-holecard", "pt"])
def test_mistaken_card_rule_only_in_be_casino(name):
    t = table(name, boxes=2)
    start(t, {1: "10", 2: "10"})
    cards(t, *(["TS", "9S", "6H", "3D", "8D"] + (["7C"] if t.p.hole_card else [])))
    cards(t, "2C")
    with pytest.raises(IllegalAction, match="has no rule for a card drawn by mistake"):
        t.misdeal_card()


# --------------------------------------------------------------- bet sizes
def test_pt_odd_stake_accepted_and_paid_exactly():
    # 002 advises multiples of 2 so 3:2 stays whole; it does not require them.
    t = table("pt", boxes=2)
    start(t, {1: "5", 2: "7"})
    cards(t, "AS", "9S", "6H", "KD", "9D", "TC")
    t.stand(2)
    cards(t, "7C")  # dealer 6 T 7 = 23
    assert nets(last_outcome(t)) == {"box1": "7.50", "box2": "7"}


def test_bet_multiple_is_enforced_when_set():
    t = table("pt", bet_multiple=D(2), table_min=D(2))
    with pytest.raises(BetRefused, match="not a multiple of 2"):
        bet(t, 1, "5")
    bet(t, 1, "6")


# ---------------------------------------- no-hole-card dealer blackjack
def test_enhc_all_stakes_lost_by_default_and_original_only_as_a_setting():
    for setting, expected in (("all", "-30"), ("original", "-10")):
        t = table("fr-2007", enhc_loses=setting)
        start(t, {1: "10"})
        cards(t, "8S", "TH", "8D")
        t.split(1)
        cards(t, "3C")
        t.double(1)
        cards(t, "9C")  # hand 1 8 3 9 doubled (20)
        cards(t, "9H")  # hand 2 8 9
        t.stand(1)
        cards(t, "AC")  # dealer blackjack
        assert nets(last_outcome(t))["box1"] == expected


# ------------------------------------------------------------------ cut card
def test_cut_card_comes_out_at_the_penetration():
    t = table("fr-2007")
    t.new_shoe()
    assert t.shoe.cut_at == 234  # 75% of 312
    reached: list[CutCardReached] = []
    while not reached:
        start(t, {1: "10"})
        r = t.round
        assert r is not None
        while not r.over:
            e = t.expecting()
            if e.what == "insurance":
                t.close_insurance()
            elif e.what == "action" and "stand" in e.actions and r.current()[1].total >= 12:
                t.stand(e.box)
            else:
                code = next(c for c in CARD_CODES if t.shoe.seen.get(c, 0) < 6)
                reached += [op for op in t.card(code) if isinstance(op, CutCardReached)]
    assert reached[0].cards_out == 234
