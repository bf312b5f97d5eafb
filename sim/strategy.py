"""Basic strategy per rule profile: hard, soft and pair tables by dealer up card.

Total-dependent basic strategy for multi-deck games (dealer stands or hits on
soft 17, with or without double after split), adjusted for the profile:
no-hole-card games (a dealer blackjack takes doubles and splits too) stop
doubling 11 and splitting 8s and aces against a ten or an ace; surrender where
the profile allows it; doubles restricted to the profile's totals fall back to
a hit or a stand; insurance is never taken.

Codes: H hit, S stand, D double else hit, d double else stand, P split,
R surrender else hit, r surrender else stand, Q surrender else split.
Columns: dealer up card 2 3 4 5 6 7 8 9 T A.
"""

from __future__ import annotations

from controller.engine.cards import VALUE
from controller.engine.profile import RuleProfile
from controller.engine.round import Round

UP_COLUMN = {v: v - 2 for v in range(2, 11)} | {1: 9}

_HARD_S17 = {
    9: "HDDDDHHHHH",
    10: "DDDDDDDDHH",
    11: "DDDDDDDDDH",
    12: "HHSSSHHHHH",
    13: "SSSSSHHHHH",
    14: "SSSSSHHHHH",
    15: "SSSSSHHHHH",
    16: "SSSSSHHHHH",
}
_SOFT_S17 = {
    13: "HHHDDHHHHH",
    14: "HHHDDHHHHH",
    15: "HHDDDHHHHH",
    16: "HHDDDHHHHH",
    17: "HDDDDHHHHH",
    18: "SddddSSHHH",
    19: "SSSSSSSSSS",
}
_PAIRS_DAS = {
    1: "PPPPPPPPPP",
    2: "PPPPPPHHHH",
    3: "PPPPPPHHHH",
    4: "HHHPPHHHHH",
    6: "PPPPPHHHHH",
    7: "PPPPPPHHHH",
    8: "PPPPPPPPPP",
    9: "PPPPPSPPSS",
}
_PAIRS_NO_DAS = _PAIRS_DAS | {
    2: "HHPPPPHHHH",
    3: "HHPPPPHHHH",
    4: "HHHHHHHHHH",
    6: "HPPPPHHHHH",
}


def _set(row: str, column: int, code: str) -> str:
    return row[:column] + code + row[column + 1 :]


class Strategy:
    """Basic strategy tables built for one profile."""

    def __init__(self, profile: RuleProfile) -> None:
        self.profile = profile
        h17 = profile.dealer_hits_soft_17
        enhc = profile.dealer_blackjack_after_play and profile.enhc_loses == "all"
        hard = (
            {t: "H" * 10 for t in range(2, 9)}
            | dict(_HARD_S17)
            | {t: "S" * 10 for t in range(17, 22)}
        )
        soft = {t: "H" * 10 for t in (12,)} | dict(_SOFT_S17) | {t: "S" * 10 for t in (20, 21)}
        pairs = dict(_PAIRS_DAS if profile.double_after_split else _PAIRS_NO_DAS)
        if h17:
            hard[11] = "DDDDDDDDDD"
            soft[18] = "dddddSSHHH"
            soft[19] = "SSSSdSSSSS"
        if enhc:
            # Without a hole card a dealer blackjack also takes the double or split.
            hard[11] = _set(_set(hard[11], 8, "H"), 9, "H")
            pairs[1] = _set(pairs[1], 9, "H")
            pairs[8] = _set(_set(pairs[8], 8, "H"), 9, "H")
        if profile.surrender:
            self._add_surrender(hard, pairs, enhc, h17)
        self.hard = hard
        self.soft = soft
        self.pairs = pairs

    def _add_surrender(
        self, hard: dict[int, str], pairs: dict[int, str], enhc: bool, h17: bool
    ) -> None:
        p = self.profile
        ten, ace = 8, 9
        wanted = {16: (7, ten, ace), 15: (ten,)}
        if enhc:
            # Surrender before the dealer's second card: give up more against a ten.
            wanted = {16: (7, ten, ace), 15: (ten, ace), 14: (ten, ace)}
        elif h17:
            wanted = {16: (7, ten, ace), 15: (ten, ace), 17: (ace,)}
        for total, columns in wanted.items():
            if total < p.surrender_min_total:
                continue
            for col in columns:
                if col == ace and not p.surrender_vs_ace:
                    continue
                row = hard[total]
                hard[total] = _set(row, col, "r" if row[col] == "S" else "R")
        if p.surrender_min_total <= 8 * 2:
            for col in (ten, ace) if enhc else ():
                if col == ace and not p.surrender_vs_ace:
                    continue
                if pairs[8][col] == "H":
                    pairs[8] = _set(pairs[8], col, "R")

    def code(self, cards: list[str], hard: int, soft: bool, up: str) -> str:
        column = UP_COLUMN[VALUE[up]]
        if len(cards) == 2 and VALUE[cards[0]] == VALUE[cards[1]]:
            row = self.pairs.get(VALUE[cards[0]])
            if row is not None:
                return row[column]
        if soft:
            return self.soft[hard + 10][column]
        return self.hard[min(hard, 21)][column]

    def decide(self, r: Round) -> str:
        """The action for the hand in play: "card" (a hit), "stand", "double", ..."""
        hand = r.boxes[r.turn].hands[r.hand_i]
        cards = hand.cards
        if len(cards) < 2 or hand.doubled:
            return "card"
        can = r.can
        # self.code(), inlined: this runs for every decision of every simulated hand.
        column = UP_COLUMN[VALUE[r.dealer[0]]]
        hard = hand.hard
        code = ""
        if len(cards) == 2 and VALUE[cards[0]] == VALUE[cards[1]]:
            row = self.pairs.get(VALUE[cards[0]])
            if row is not None:
                code = row[column]
        if not code:
            if hand.aces and hard <= 11:
                code = self.soft[hard + 10][column]
            else:
                code = self.hard[hard if hard < 21 else 21][column]
        if code == "P":
            if can("split"):
                return "split"
            # No more splits: play the pair as its total.
            column = UP_COLUMN[VALUE[r.dealer[0]]]
            code = self.soft[hand.hard + 10][column] if hand.soft else self.hard[hand.hard][column]
        for action in _PREFERENCE[code]:
            if can(action):
                return action
        return r.legal_actions()[0]


_PREFERENCE: dict[str, tuple[str, ...]] = {
    "H": ("card",),
    "S": ("stand", "card"),
    "D": ("double", "card"),
    "d": ("double", "stand", "card"),
    "R": ("surrender", "card"),
    "r": ("surrender", "stand", "card"),
    "Q": ("surrender", "split", "card"),
}
