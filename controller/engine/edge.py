"""The house edge of a rule profile by probability, and the strategy it is the edge of.

No dealing: every player hand that can arise is a *composition* (how many
cards of each point value it holds), and every value below is computed for
the shoe that remains once that composition and the dealer's up card are out:

- the dealer's final totals (17-21, bust) for each up card, drawing without
  replacement from that remaining shoe, for all compositions at once (numpy
  vectors over the compositions, one step per dealer card sequence);
- the value of standing, hitting and doubling for each composition, by
  recursion from the highest hard total down (a hit leads to a composition
  with one more card, already valued);
- the strategy: **total-dependent**. Hit or stand is decided per (soft or
  hard total, up card) for all compositions of that total together,
  weighted by how often the strategy reaches each; double, surrender and
  split are decided per two-card total (per pair), weighted by how often
  each two-card hand is dealt. Those are the tables `croupier simulate`
  plays (sim/strategy.py reads them from here);
- the edge: each dealt hand (both cards and the up card removed) played by
  that strategy, every later card removed as it is drawn.

Approximations, stated: (1) off the top of a full shoe (no cut card, no
other boxes' cards: on average they leave the shoe as it was); (2) resplits
by the expected number of hands, the chance of pairing again taken from the
shoe less the pair, and every hand of a split valued with its own cards, the
other half of the pair and the up card removed (exact when the pair may not
be split again, as tests/engine/test_edge.py checks card by card against the
engine); (3) no hole card with only the original stake lost: the dealer's
blackjack is weighed per hand (the box's first hand loses its stake, later
split hands and doubles come back), busted hands lose all.

With a peeking hole card nothing is approximated: the dealer's totals are
conditioned on "no blackjack", and so is every card the player draws, as the
hole card already dealt is known not to be the one that makes it.

Pure computation: no I/O. The engine's rules are read off the profile; the
result is cached per set of played rules. The pieces: what the rules allow
(edge_rules.py), the compositions (edge_hands.py), the dealer's final totals
(edge_dealer.py); here the values, the strategy and the edge.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

import numpy as np

from .edge_dealer import dealer
from .edge_hands import ACE, TEN, Hands, hands
from .edge_rules import Played, may_double, may_stand, may_surrender, split_limit
from .profile import RuleProfile

COLUMNS = "23456789TA"  # strategy table columns: up cards 2..9, ten, ace
UP_ORDER = (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)  # point-value index of each column


# ------------------------------------------------------------------ the strategy
@dataclass(frozen=True)
class Strategy:
    """Total-dependent tables: rows by total, one code per up card 2..9, T, A.

    Codes (as sim/strategy.py plays them): H hit, S stand, D double else hit,
    d double else stand, P split, R surrender else hit, r surrender else stand,
    Q surrender else split.
    """

    hard: dict[int, str]
    soft: dict[int, str]
    pairs: dict[int, str]


@dataclass(frozen=True)
class EdgeResult:
    edge_pct: float  # house edge, % of the initial stake
    strategy: Strategy
    by_up: dict[str, float]  # the player's EV per unit with each up card


APPROXIMATION = (
    "total-dependent strategy (hit/stand by total; double, surrender and split by the "
    "two-card total or pair); every card removed as it is drawn (the initial hand, the "
    "up card, each hit, the dealer's draws, the other half of a split pair); off the top "
    "of a full shoe; resplits by the expected number of hands"
)


def edge(profile: RuleProfile) -> EdgeResult:
    return _edge(Played.of(profile))


@cache
def _edge(r: Played) -> EdgeResult:
    return _Solver(r).run()


@dataclass(frozen=True)
class Values:
    """Per composition, in one context: the value of standing, hitting (then playing
    on by the strategy), doubling, and of the strategy's hit-or-stand; `hs` is that
    hit-or-stand per (soft, total)."""

    stand: np.ndarray
    hit: np.ndarray
    double: np.ndarray
    value: np.ndarray
    hs: dict[tuple[bool, int], str]


@dataclass(frozen=True)
class Odds:
    """Per composition, against one up card, from the shoe left once both are out: the
    next card's chances, the dealer's blackjack, standing's value given no blackjack."""

    draw: np.ndarray  # (B, 10)
    p_bj: np.ndarray  # (B,)
    sn: np.ndarray  # (B,)


def _odds(shoe: np.ndarray, up: int, r: Played, best: np.ndarray) -> Odds:
    dist, p_bj = dealer(shoe, up, r.h17)
    return Odds(_next_card(shoe, up, r.peek), p_bj, _stand_given_no_blackjack(dist, best))


def _next_card(shoe: np.ndarray, up: int, peek: bool) -> np.ndarray:
    """(B, 10): the chance of each point value as the player's next card.

    With a peek the hole card is already out, and it is known not to be the card
    that makes the up card a blackjack (t): the player draws from the shoe less a
    card that is not t. Of the N cards left, S_t of them t, the next is y with chance
    S_y (N - 1 - S_t + [y = t]) / ((N - 1)(N - S_t)). Given the cards drawn so far
    the hole card is still any non-t card left, so each draw is exact in turn."""
    n = shoe.sum(axis=1)[:, None]
    t = TEN if up == 1 else ACE if up == 10 else -1
    if not peek or t < 0:
        plain: np.ndarray = shoe / n
        return plain
    st = shoe[:, t][:, None]
    left = n - 1 - st + (np.arange(10) == t)
    cond: np.ndarray = shoe * left / np.maximum((n - 1) * (n - st), 1.0)
    return cond


class _Solver:
    """One profile's computation; every array is over the compositions (hands())."""

    def __init__(self, r: Played) -> None:
        self.r = r
        self.h = hands()
        full = np.full(10, 4.0 * r.decks)
        full[TEN] = 16.0 * r.decks
        self.full = full
        self.stand_ok = self._may_stand()

    def _may_stand(self) -> np.ndarray:
        h = self.h
        return np.array(
            [may_stand(self.r, int(a), int(b)) for a, b in zip(h.hard, h.best, strict=True)]
        )

    def may_double(self, hard: int, best: int) -> bool:
        return may_double(self.r, hard, best)

    def may_surrender(self, hard: int, has_ace: bool, up: int) -> bool:
        return may_surrender(self.r, hard, has_ace, up)

    def run(self) -> EdgeResult:
        h = self.h
        hard_rows = {t: ["H"] * 10 for t in range(4, 22)}
        soft_rows = {t: ["H"] * 10 for t in range(12, 22)}
        pair_rows = {v: ["H"] * 10 for v in range(1, 11)}
        by_up: dict[str, float] = {}
        total_ev = 0.0
        n_full = self.full.sum()
        for col, upi in enumerate(UP_ORDER):
            shoe = self.full - h.counts
            shoe[:, upi] -= 1
            ev, cells, pcells = _UpCard(self, upi + 1, np.maximum(shoe, 0.0)).run()
            for (soft, t), code in cells.items():
                rows = soft_rows if soft else hard_rows
                if t in rows:
                    rows[t][col] = code
            for v, code in pcells.items():
                pair_rows[v][col] = code
            by_up[COLUMNS[col]] = ev
            total_ev += self.full[upi] / n_full * ev
        strategy = Strategy(
            hard={t: "".join(row) for t, row in hard_rows.items()},
            soft={t: "".join(row) for t, row in soft_rows.items()},
            pairs={v: "".join(row) for v, row in pair_rows.items()},
        )
        return EdgeResult(edge_pct=float(-100.0 * total_ev), strategy=strategy, by_up=by_up)


class _UpCard:
    """Everything against one up card."""

    def __init__(self, solver: _Solver, up: int, shoe: np.ndarray) -> None:
        self.s = solver
        self.r = solver.r
        self.h = solver.h
        self.up = up
        self.odds = _odds(shoe, up, self.r, self.h.best)
        # At a two-card composition: the round's chance of a dealer blackjack.
        self.p_bj = self.odds.p_bj
        self.draw = self.odds.draw
        after_up = solver.full.copy()
        after_up[up - 1] -= 1
        self.deal_w = _deal_weights(self.h, after_up)
        self.multiset_w = _multiset_weights(self.h, after_up)
        self.two = self.h.size == 2

    def contexts(self, p_bj: np.ndarray) -> dict[str, tuple[np.ndarray, float, float]]:
        """Per context: (P(dealer blackjack) at each hand, what it takes of a stood hand,
        of a doubled one). The peek game conditions it away; without a peek the box's
        first hand and later split hands differ only under `enhc_loses = original`."""
        r = self.r
        if r.peek:
            return {"first": (np.zeros_like(p_bj), 0.0, 0.0)}
        if r.enhc_all:
            return {"first": (p_bj, 1.0, 2.0)}
        return {"first": (p_bj, 1.0, 1.0), "other": (p_bj, 0.0, 0.0)}

    def run(self) -> tuple[float, dict[tuple[bool, int], str], dict[int, str]]:
        h = self.h
        ctx = self.contexts(self.p_bj)
        # Pass 1 decides hit/stand weighting each composition by its chance of being
        # drawn; pass 2 by how often the pass-1 strategy actually holds it.
        weights = self.multiset_w
        for _ in range(2):
            vals = self.values(ctx["first"], weights)
            cells = self.cells(vals)
            weights = self.reach(vals.hs, cells)
        first = self.values(ctx["first"], weights, vals.hs)
        # A split pair's hands are valued apart, from the shoe less the whole pair.
        split = self.split_values(vals.hs)
        ev = 0.0
        pcells: dict[int, str] = {}
        self.dealt: dict[tuple[int, int], float] = {}  # each dealt hand's value (a <= b)
        for a in range(1, 11):
            for b in range(a, 11):
                i = h.pair_index[(a, b)]
                w = float(self.deal_w[i])
                key = (bool(h.soft[i]), int(h.best[i]))
                pbj0 = float(self.p_bj[i])
                if {a, b} == {1, 10}:
                    self.dealt[(a, b)] = self.blackjack(pbj0)
                    ev += w * self.dealt[(a, b)]
                    continue
                code = cells[key]
                value = self.first_value(i, code, first)
                if a == b:
                    code, value = self.pair(a, i, code, value, cells, *split.get(a, (first, first)))
                    pcells[a] = code
                self.dealt[(a, b)] = self.settle(value, pbj0)
                ev += w * self.dealt[(a, b)]
        return ev, cells, pcells

    def settle(self, value: float, pbj0: float) -> float:
        """A decision's value in the round: with a peek, the blackjack was found first."""
        if self.r.peek:
            return -pbj0 + (1 - pbj0) * value
        return value  # no hole card: the dealer's blackjack is inside each value

    def blackjack(self, pbj0: float) -> float:
        r = self.r
        paid = r.bj_paid == "always" or (r.bj_paid == "unless_dealer_ace" and self.up != 1)
        # A closed card (002) turns over after the peek: a dealer blackjack ends it first.
        if paid and not (r.peek and r.closed_card):
            return r.bj_pays
        return pbj0 * (0.0 if r.bj_push else -1.0) + (1 - pbj0) * r.bj_pays

    # ----------------------------------------------------------- values per context
    def values(
        self,
        ctx: tuple[np.ndarray, float, float],
        weights: np.ndarray,
        fixed_hs: dict[tuple[bool, int], str] | None = None,
        odds: Odds | None = None,
    ) -> Values:
        """Stand, hit, double for every composition; hit or stand decided per total
        (or as `fixed_hs` says). `odds`: from another shoe than the up card's own."""
        h = self.h
        odds = odds or self.odds
        draw = odds.draw
        pb, lose_stood, lose_doubled = ctx
        stand = (1 - pb) * odds.sn - pb * lose_stood
        child = h.child
        bust = child < 0
        safe = np.where(bust, 0, child)
        doubled = (1 - pb) * 2 * odds.sn - pb * lose_doubled
        double = (draw * np.where(bust, -2.0, doubled[safe])).sum(axis=1)
        value = np.zeros(len(stand))
        hit = np.zeros(len(stand))
        hs: dict[tuple[bool, int], str] = {}
        for t in range(21, 1, -1):
            idx = np.nonzero(h.hard == t)[0]
            if not len(idx):
                continue
            nxt = np.where(bust[idx], -1.0, value[safe[idx]])
            hit[idx] = (draw[idx] * nxt).sum(axis=1)
            for soft in (False, True):
                sel = idx[h.soft[idx] == soft]
                if not len(sel):
                    continue
                key = (soft, int(h.best[sel[0]]))
                if fixed_hs is not None:
                    choice = fixed_hs[key]
                elif key[1] == 21:
                    choice = "S"  # a hand ends by itself at 21
                elif not self.s.stand_ok[sel].all():
                    choice = "H"
                else:
                    w = weights[sel]
                    if w.sum() <= 0:
                        w = self.multiset_w[sel]
                    choice = "S" if float((w * (stand[sel] - hit[sel])).sum()) >= 0 else "H"
                hs[key] = choice
                value[sel] = stand[sel] if choice == "S" else hit[sel]
        return Values(stand=stand, hit=hit, double=double, value=value, hs=hs)

    # ---------------------------------------------------------------- two-card cells
    def cells(self, vals: Values) -> dict[tuple[bool, int], str]:
        """Each total's code: double or surrender where the two-card hands gain by it."""
        h, s = self.h, self.s
        out: dict[tuple[bool, int], str] = {}
        for key, choice in vals.hs.items():
            soft, best = key
            sel = np.nonzero(self.two & (h.soft == soft) & (h.best == best))[0]
            if not len(sel) or best == 21:
                out[key] = choice
                continue
            plain = sel[h.counts[sel].max(axis=1) < 2]
            if len(plain):
                sel = plain  # pairs have their own row; the total's code is for the rest
            w = self.deal_w[sel]
            base = vals.stand if choice == "S" else vals.hit
            options = {choice: float((w * base[sel]).sum())}
            hard = best - 10 if soft else best
            if s.may_double(hard, best):
                options["D"] = float((w * vals.double[sel]).sum())
            if s.may_surrender(hard, soft, self.up):
                options["R"] = -0.5 * float(w.sum())
            pick = max(options, key=options.__getitem__)
            if pick in ("D", "R"):
                out[key] = pick if choice == "H" else pick.lower()
            else:
                out[key] = choice
        return out

    def reach(
        self, hs: dict[tuple[bool, int], str], cells: dict[tuple[bool, int], str]
    ) -> np.ndarray:
        """How often the strategy holds each composition at a hit-or-stand decision."""
        h = self.h
        reach = np.zeros(len(h.hard))
        two = np.nonzero(self.two)[0]
        for i in two:
            if cells[(bool(h.soft[i]), int(h.best[i]))] in ("H", "S"):
                reach[i] = self.deal_w[i]
        hits = np.array([hs[(bool(s), int(b))] == "H" for s, b in zip(h.soft, h.best, strict=True)])
        for t in range(2, 22):
            idx = np.nonzero((h.hard == t) & hits & (reach > 0))[0]
            if not len(idx):
                continue
            kids = h.child[idx]
            flow = reach[idx][:, None] * self.draw[idx]
            ok = kids >= 0
            np.add.at(reach, kids[ok], flow[ok])
        return reach

    def first_value(self, i: int, code: str, vals: Values) -> float:
        """A dealt hand's value under its code, every first-hand option open."""
        if code in ("D", "d"):
            return float(vals.double[i])
        if code in ("R", "r"):
            return -0.5
        return float(vals.value[i])

    def split_hand_value(self, i: int, code: str, vals: Values) -> float:
        """A two-card hand made by a split: no surrender; a double only after-split rules allow."""
        if int(self.h.best[i]) == 21:
            return float(vals.stand[i])
        if code in ("D", "d") and self.r.das:
            return float(vals.double[i])
        return float(vals.value[i])  # the total's hit or stand

    # ---------------------------------------------------------------------- pairs
    def split_values(self, hs: dict[tuple[bool, int], str]) -> dict[int, tuple[Values, Values]]:
        """Per pair value the strategy may split: (first, other) values of every hand
        holding that value, from the shoe less the other half of the pair too.

        Once a pair is split, every hand played from it is missing that card as well:
        the other half is a known card out of the shoe, unlike the other hands' draws,
        which leave the shoe as it was on average. One dealer pass for all values."""
        r, h = self.r, self.h
        values = [v for v in range(1, 11) if split_limit(r, v) >= 2 and (v != 10 or r.split_tens)]
        if not values:
            return {}
        # Split aces take one card each: of theirs, only the two-card hands are played.
        rows = [np.nonzero((h.counts[:, v - 1] >= 1) & (self.two | (v != 1)))[0] for v in values]
        shoes = []
        for v, idx in zip(values, rows, strict=True):
            shoe = self.s.full - h.counts[idx]
            shoe[:, self.up - 1] -= 1
            shoe[:, v - 1] -= 1
            shoes.append(np.maximum(shoe, 0.0))
        stacked = _odds(
            np.concatenate(shoes), self.up, r, np.concatenate([h.best[i] for i in rows])
        )
        out: dict[int, tuple[Values, Values]] = {}
        start = 0
        for v, idx in zip(values, rows, strict=True):
            # Hands without the value are never reached from the pair: left at zero.
            part = slice(start, start + len(idx))
            start += len(idx)
            draw = np.zeros((len(h.hard), 10))
            p_bj, sn = np.zeros(len(h.hard)), np.zeros(len(h.hard))
            draw[idx], p_bj[idx], sn[idx] = stacked.draw[part], stacked.p_bj[part], stacked.sn[part]
            odds = Odds(draw, p_bj, sn)
            ctx = self.contexts(p_bj)
            vals = {name: self.values(c, self.multiset_w, hs, odds) for name, c in ctx.items()}
            out[v] = (vals["first"], vals.get("other", vals["first"]))
        return out

    def pair(
        self,
        v: int,
        i: int,
        code: str,
        plain: float,
        cells: dict[tuple[bool, int], str],
        first: Values,
        other: Values,
    ) -> tuple[str, float]:
        """(the pair's code, its value) once splitting is weighed."""
        r, h = self.r, self.h
        limit = split_limit(r, v)
        if (v == 10 and not r.split_tens) or limit < 2:
            return code, plain
        p_next = self.draw[i]  # the shoe less the pair and the up card
        q = float(p_next[v - 1])

        def per_hand(vals: Values) -> float:
            """A split hand's value averaged over how it ends (expected-hands weights)."""
            mixed = 0.0
            for x in range(1, 11):
                if x == v:
                    continue
                j = h.pair_index[(v, x)]
                if v == 1:
                    val = float(vals.stand[j])  # split aces: one card each
                else:
                    val = self.split_hand_value(j, cells[(bool(h.soft[j]), int(h.best[j]))], vals)
                mixed += float(p_next[x - 1]) * val
            non_pair = mixed / (1 - q)
            same = float(vals.stand[i]) if v == 1 else self.split_hand_value(i, code, vals)
            return (e_np * non_pair + e_pp * same) / (e_np + e_pp)

        e_np, e_pp = _split_counts(q, limit)
        hands_ = e_np + e_pp
        split = per_hand(first) + (hands_ - 1) * per_hand(other)
        options = {"P": split, "plain": plain}
        if self.s.may_surrender(2 * v, v == 1, self.up):
            options["R"] = -0.5
        ranked = sorted(options, key=options.__getitem__, reverse=True)
        if ranked[0] == "P":
            return "P", split
        if ranked[0] == "R":
            if ranked[1] == "P":
                return "Q", -0.5
            hs = "S" if code in ("S", "d", "r") else "H"
            return ("R" if hs == "H" else "r"), -0.5
        return code, plain


def _stand_given_no_blackjack(dist: np.ndarray, best: np.ndarray) -> np.ndarray:
    ev = dist[:, 5].copy()  # the dealer busts
    for k in range(5):
        d = 17 + k
        ev += np.where(best > d, dist[:, k], np.where(best < d, -dist[:, k], 0.0))
    return ev


def _deal_weights(h: Hands, shoe: np.ndarray) -> np.ndarray:
    """The chance of each two-card hand being dealt from `shoe` (zero elsewhere)."""
    n = shoe.sum()
    w = np.zeros(len(h.hard))
    for (a, b), i in h.pair_index.items():
        if a > b:
            continue
        first = shoe[a - 1]
        second = shoe[b - 1] - (1 if a == b else 0)
        w[i] = max(first * second, 0.0) / (n * (n - 1)) * (1 if a == b else 2)
    return w


@cache
def _log_factorials(n: int) -> np.ndarray:
    return np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1)))])


def _multiset_weights(h: Hands, shoe: np.ndarray) -> np.ndarray:
    """The chance that the first cards drawn from `shoe` are exactly each composition."""
    n = int(shoe.sum())
    lf = _log_factorials(n)
    counts = h.counts
    have = shoe.astype(np.int64)[None, :]
    ok = (counts <= have).all(axis=1)
    left = np.maximum(have - counts, 0)
    log_w = (lf[have] - lf[left] - lf[counts]).sum(axis=1)
    k = h.size
    log_w -= lf[n] - lf[n - k] - lf[k]
    return np.where(ok, np.exp(log_w), 0.0)


def _split_counts(q: float, limit: int) -> tuple[float, float]:
    """Expected final hands of a split: (a pair card and another, a pair that may not split
    again), when each new card pairs with chance `q` and a box holds `limit` hands."""

    @cache
    def go(hands: int, pending: int) -> tuple[float, float]:
        if pending == 0:
            return 0.0, 0.0
        np_, pp = go(hands, pending - 1)
        if hands < limit:
            a, b = go(hands + 1, pending + 1)
            return (1 - q) * (1 + np_) + q * a, (1 - q) * pp + q * b
        return (1 - q) * (1 + np_) + q * np_, (1 - q) * pp + q * (1 + pp)

    return go(2, 2)


# -------------------------------------------------------------- what each rule costs
# Settings that play together, named as a games manager would; each group is
# priced by changing it alone on a reference profile.
RULE_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("decks", ("decks",)),
    ("dealer hits soft 17", ("dealer_hits_soft_17",)),
    ("hole card and peek", ("hole_card", "peek")),
    ("what a dealer blackjack takes without a peek", ("enhc_loses",)),
    ("doubling totals", ("double_totals",)),
    ("double after split", ("double_after_split",)),
    ("hands from splits", ("max_hands",)),
    ("resplitting aces", ("resplit_aces", "max_ace_hands")),
    ("pairs by rank or value", ("split_match",)),
    (
        "surrender",
        ("surrender", "surrender_min_total", "surrender_with_ace", "surrender_vs_ace"),
    ),
    ("blackjack pays", ("blackjack_pays",)),
    ("blackjack paid at once", ("blackjack_paid_at_once", "player_closed_card")),
    ("blackjack against a dealer blackjack", ("blackjack_vs_dealer_blackjack",)),
    ("forced draw", ("forced_draw_to", "forced_draw_total")),
)


def rule_costs(profile: RuleProfile, reference: RuleProfile) -> list[tuple[str, float]]:
    """(rule, what it adds to the house edge in points) for each rule group in which
    `profile` plays differently from `reference`, each priced alone on the reference."""
    base = edge(reference).edge_pct
    out = []
    for label, names in RULE_GROUPS:
        changed = replace(reference, **{n: getattr(profile, n) for n in names})
        if Played.of(changed) == Played.of(reference):
            continue
        out.append((label, float(edge(changed).edge_pct - base)))
    return out
