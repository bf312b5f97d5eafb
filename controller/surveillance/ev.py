"""Expected values of blackjack decisions, for one rule profile: infinite deck.

The model (documented in docs/surveillance.md):

- **Infinite deck**: every card is drawn with the same probabilities whatever
  came out before (1/13 per rank, 4/13 for a ten-value card). A real 4- to
  6-deck shoe differs by a few thousandths of a unit per decision, and the
  composition of the shoe (the count) moves the true values further; the
  model answers "what does basic strategy give up", not "what did this exact
  shoe offer".
- **The dealer's blackjack**: with a peeking hole card (us-holecard, pt) no
  decision is ever taken against a dealer blackjack, so every value is
  conditioned on its absence. Without a peek (no hole card: fr-*, be-casino)
  a decision is worth `p_bj * L + (1 - p_bj) * V`, where V is its value when
  the dealer has no blackjack and L what the dealer's blackjack takes:
  everything staked (`enhc_loses = all`: a double or split loses two units)
  or the original stake only.
- **Splits**: each hand plays out on its own from one card of the pair,
  doubling after the split where the profile allows; a second split of a
  split hand is not modelled (a few hundredths of a unit on 8s and aces at
  most, always making the split look slightly worse than it is).
- The profile's restrictions are applied: doubles only on its totals, the
  forced draw (be-casino: no stand below hard 12, soft hands included),
  surrender at -0.5, split aces one card each, a hand ends at 21.

Values are per unit of the hand's stake before the decision. Pure Python;
every table is computed once per profile and cached.
"""

from __future__ import annotations

from functools import cache

from controller.engine.cards import VALUE
from controller.engine.edge_rules import Played
from controller.engine.profile import RuleProfile

# Infinite deck: the probability of each point value (ace = 1).
P: dict[int, float] = {v: (4 / 13 if v == 10 else 1 / 13) for v in range(1, 11)}
BUST = 22  # dealer outcome index for a bust
DealerDist = tuple[float, ...]  # probabilities of final 17, 18, 19, 20, 21, bust (6 entries)


def best(hard: int, ace: bool) -> int:
    return hard + 10 if ace and hard <= 11 else hard


@cache
def _dealer(hard: int, ace: bool, h17: bool) -> DealerDist:
    """The dealer's final totals from a hand of `hard` (aces as 1), drawing to the rules."""
    total = best(hard, ace)
    if hard > 21:
        return (0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
    soft17 = total == 17 and ace and hard == 7
    if total >= 17 and not (soft17 and h17):
        out = [0.0] * 6
        out[total - 17] = 1.0
        return tuple(out)
    acc = [0.0] * 6
    for v, p in P.items():
        sub = _dealer(hard + v, ace or v == 1, h17)
        for i in range(6):
            acc[i] += p * sub[i]
    return tuple(acc)


@cache
def dealer_no_blackjack(up: int, h17: bool) -> tuple[DealerDist, float]:
    """(final totals given the dealer has no blackjack, P(blackjack)) for an up card value."""
    acc = [0.0] * 6
    bj = 0.0
    for v, p in P.items():
        if {up, v} == {1, 10}:
            bj += p
            continue
        sub = _dealer(up + v, up == 1 or v == 1, h17)
        for i in range(6):
            acc[i] += p * sub[i]
    rest = 1.0 - bj
    return tuple(a / rest for a in acc), bj


# What the values depend on, out of a profile (hashable: the cache key): the
# calculator's reading of the rules, so both model the same game.
Rules = Played


class Model:
    """Decision values for one profile: `values(...)` per legal action."""

    def __init__(self, profile: RuleProfile) -> None:
        self.rules = Rules.of(profile)

    def values(
        self,
        cards: list[str],
        up: str,
        actions: tuple[str, ...],
        from_split: bool = False,
        first_hand: bool = True,
    ) -> dict[str, float]:
        """The EV of each of `actions` ("card" is a hit) for the hand `cards` against `up`."""
        hard = sum(VALUE[c] for c in cards)
        ace = any(c[0] == "A" for c in cards)
        pair = VALUE[cards[0]] if len(cards) == 2 and VALUE[cards[0]] == VALUE[cards[1]] else 0
        return _values(self.rules, hard, ace, pair, VALUE[up], actions, from_split, first_hand)

    def insurance_cost(self) -> float:
        """What a unit of insurance gives up against the dealer's ace (insurance pays 2:1)."""
        return 1.0 - 3.0 * P[10]


def _stand(total: int, dist: DealerDist) -> float:
    if total > 21:
        return -1.0
    ev = dist[5]  # the dealer busts
    for i in range(5):
        d = 17 + i
        if d < total:
            ev += dist[i]
        elif d > total:
            ev -= dist[i]
    return ev


def _may_stand(r: Rules, hard: int, ace: bool) -> bool:
    if not r.forced_to:
        return True
    total = hard if r.forced_hard else best(hard, ace)
    return total >= r.forced_to


@cache
def _play(r: Rules, hard: int, ace: bool, up: int) -> float:
    """The best of stand and hit from here (no double, split or surrender any more)."""
    if hard > 21:
        return -1.0
    dist, _ = dealer_no_blackjack(up, r.h17)
    total = best(hard, ace)
    stand = _stand(total, dist)
    if total == 21:
        return stand  # the hand ends by itself at 21
    hit = _hit(r, hard, ace, up)
    return max(stand, hit) if _may_stand(r, hard, ace) else hit


@cache
def _hit(r: Rules, hard: int, ace: bool, up: int) -> float:
    return sum(p * _play(r, hard + v, ace or v == 1, up) for v, p in P.items())


@cache
def _double(r: Rules, hard: int, ace: bool, up: int) -> float:
    dist, _ = dealer_no_blackjack(up, r.h17)
    return 2.0 * sum(p * _stand(best(hard + v, ace or v == 1), dist) for v, p in P.items())


def _may_double(r: Rules, hard: int, ace: bool, from_split: bool) -> bool:
    if from_split and not r.das:
        return False
    if not r.double_totals:
        return True
    return bool({hard, best(hard, ace)} & set(r.double_totals))


@cache
def _split_hand(r: Rules, pair: int, up: int) -> float:
    """One hand of a split pair, played out (no resplit), when the dealer has no blackjack."""
    dist, _ = dealer_no_blackjack(up, r.h17)
    ev = 0.0
    for v, p in P.items():
        hard, ace = pair + v, pair == 1 or v == 1
        if pair == 1:
            ev += p * _stand(best(hard, ace), dist)  # split aces: one card each
            continue
        options = [_hit(r, hard, ace, up)]
        if best(hard, ace) == 21:
            options = [_stand(21, dist)]
        elif _may_stand(r, hard, ace):
            options.append(_stand(best(hard, ace), dist))
        if best(hard, ace) != 21 and _may_double(r, hard, ace, True):
            options.append(_double(r, hard, ace, up))
        ev += p * max(options)
    return ev


@cache
def _values(
    r: Rules,
    hard: int,
    ace: bool,
    pair: int,
    up: int,
    actions: tuple[str, ...],
    from_split: bool,
    first_hand: bool,
) -> dict[str, float]:
    dist, p_bj = dealer_no_blackjack(up, r.h17)
    if r.peek:
        p_bj = 0.0  # the dealer looked: no decision is taken against a blackjack
    # What the dealer's blackjack takes, per action, in units of the hand's stake.
    lose = -1.0 if first_hand or r.enhc_all else 0.0
    lose_more = -2.0 if r.enhc_all else lose
    out: dict[str, float] = {}
    for action in actions:
        if action == "stand":
            v, loss = _stand(best(hard, ace), dist), lose
        elif action == "card":
            v, loss = _hit(r, hard, ace, up), lose
        elif action == "double":
            v, loss = _double(r, hard, ace, up), lose_more
        elif action == "split" and pair:
            v, loss = 2.0 * _split_hand(r, pair, up), lose_more
        elif action == "surrender":
            out[action] = -0.5  # half the stake, whatever the dealer holds
            continue
        else:
            continue  # not a decision this model values (take_card, refuse_card)
        out[action] = p_bj * loss + (1.0 - p_bj) * v
    return out
