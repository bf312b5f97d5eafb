"""The rules that play, as the house edge calculator reads them off a profile.

`Played` keeps only the settings that change what a hand is worth (it is the
calculator's cache key); the `may_x` functions say what the rules allow a
hand, in the calculator's terms (a test, tests/engine/test_edge.py, holds
them to the engine's own refusals, engine/refusals.py, decision by decision).
"""

from __future__ import annotations

from dataclasses import dataclass

from .profile import RuleProfile


@dataclass(frozen=True, slots=True)
class Played:
    """The settings that change what a hand is worth (the cache key)."""

    decks: int
    h17: bool
    peek: bool  # hole card and peek: no decision is taken against a dealer blackjack
    enhc_all: bool  # without a peek, the dealer's blackjack takes doubles and splits
    double_totals: tuple[int, ...]
    das: bool
    max_hands: int
    ace_hands: int  # hands a box may hold from splitting aces
    split_tens: bool  # False where a pair must be the same rank (10-J cannot split)
    surrender: bool
    surrender_min: int
    surrender_with_ace: bool
    surrender_vs_ace: bool
    bj_pays: float
    bj_paid: str  # never, unless_dealer_ace, always
    bj_push: bool  # a blackjack against a dealer blackjack pushes (else loses)
    closed_card: bool
    forced_to: int
    forced_hard: bool

    @classmethod
    def of(cls, p: RuleProfile) -> Played:
        return cls(
            decks=p.decks,
            h17=p.dealer_hits_soft_17,
            peek=p.hole_card and p.peek,
            enhc_all=p.enhc_loses == "all",
            double_totals=p.double_totals,
            das=p.double_after_split,
            max_hands=p.max_hands,
            ace_hands=p.max_ace_hands if p.resplit_aces else min(2, p.max_ace_hands),
            # With rank matching only same-rank tens split; basic strategy never splits
            # tens, so the calculator does not offer it (a ten pair stands as 20).
            split_tens=p.split_match == "value",
            surrender=p.surrender,
            surrender_min=p.surrender_min_total,
            surrender_with_ace=p.surrender_with_ace,
            surrender_vs_ace=p.surrender_vs_ace,
            bj_pays=float(p.blackjack_pays),
            bj_paid=p.blackjack_paid_at_once,
            bj_push=p.blackjack_vs_dealer_blackjack == "push",
            closed_card=p.player_closed_card,
            forced_to=p.forced_draw_to,
            forced_hard=p.forced_draw_total == "hard",
        )


def may_stand(r: Played, hard: int, best: int) -> bool:
    """A hand may stand (a hand of 21 ends by itself)."""
    if not r.forced_to or best == 21:
        return True
    return (hard if r.forced_hard else best) >= r.forced_to


def may_double(r: Played, hard: int, best: int) -> bool:
    """A two-card hand (not split aces; after a split only with `das`) may double."""
    t = r.double_totals
    return not t or hard in t or best in t


def may_surrender(r: Played, hard: int, has_ace: bool, up: int) -> bool:
    """The box's first two cards, before any split, may surrender against `up`."""
    return (
        r.surrender
        and hard >= r.surrender_min
        and (r.surrender_with_ace or not has_ace)
        and (r.surrender_vs_ace or up != 1)
    )


def split_limit(r: Played, value: int) -> int:
    """The hands a box may hold from splitting a pair of `value` (1: aces)."""
    return r.ace_hands if value == 1 else r.max_hands
