"""Why the rules refuse a decision to a hand: a reason a dealer can read, or None.

One function per decision, pure (the profile, the box, the hand, the
dealer's up card): the round asks them before it acts (`verify_x`), to list
the legal actions and for `can(x)`. The house edge calculator keeps its own
reading of the same rules (engine/edge_rules.py); a test holds the two
together decision by decision.
"""

from __future__ import annotations

from .cards import VALUE
from .hand import Box, Hand
from .profile import RuleProfile


def hit(hand: Hand) -> str | None:
    if hand.split_aces and len(hand.cards) >= 2:
        return "split aces take one card each"
    return None


def stand(p: RuleProfile, hand: Hand) -> str | None:
    if p.forced_draw_to:
        total = hand.hard if p.forced_draw_total == "hard" else hand.total
        if total < p.forced_draw_to:
            kind = "a hard total" if p.forced_draw_total == "hard" else "a total"
            return (
                f"{p.name} makes the box holder draw to {kind} of at least "
                f"{p.forced_draw_to} (this hand has {total})"
            )
    return None


def double(p: RuleProfile, hand: Hand) -> str | None:
    if len(hand.cards) != 2:
        return "only the first two cards of a hand may double"
    if hand.split_aces:
        return "split aces take one card each"
    if hand.from_split and not p.double_after_split:
        return f"{p.name} does not allow a double after a split"
    if p.double_totals:
        totals = {hand.hard, hand.total}
        if not totals & set(p.double_totals):
            return f"{p.name} allows it only on {p.describe_double()}"
    return None


def split(p: RuleProfile, box: Box, hand: Hand) -> str | None:
    if len(hand.cards) != 2:
        return "only a pair of two cards may split"
    a, b = hand.cards
    if p.split_match == "rank" and a[0] != b[0]:
        return f"{p.name} splits only two cards of the same rank"
    if VALUE[a] != VALUE[b]:
        return "the two cards are not a pair"
    aces = a[0] == "A"
    if aces and hand.split_aces and not p.resplit_aces:
        return f"{p.name} does not allow split aces to split again"
    limit = p.max_ace_hands if aces else p.max_hands
    if len(box.hands) >= limit:
        what = "after splitting aces" if aces else "from splits"
        return f"{p.name} allows at most {limit} hands {what}"
    return None


def surrender(p: RuleProfile, box: Box, hand: Hand, up_card: str) -> str | None:
    if not p.surrender:
        return f"{p.name} has no surrender"
    if len(hand.cards) != 2 or len(box.hands) != 1:
        return "only the first two cards of the box may surrender"
    if not p.surrender_with_ace and hand.aces:
        return f"{p.name} allows it only on two cards without an ace"
    if hand.hard < p.surrender_min_total:
        return f"{p.name} allows it only on a hard total of {p.surrender_min_total} or more"
    if not p.surrender_vs_ace and up_card[0] == "A":
        return f"{p.name} does not allow it when the dealer shows an ace"
    return None
