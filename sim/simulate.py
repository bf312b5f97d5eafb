"""`croupier simulate`: basic strategy through the table's own engine.

Hands are played in chunks, each from its own seeded shoe sequence, so the
result depends on (seed, hands) and not on how many processes share the work.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from multiprocessing import get_context

from controller.engine.phase import Phase
from controller.engine.profile import RuleProfile
from controller.engine.round import Round
from controller.engine.table import Table
from sim.shoe import VirtualShoe
from sim.strategy import Strategy

CHUNK = 200_000  # hands per independently seeded chunk
SHUFFLES = ("cut", "round")  # when the shoe is shuffled: see play()
ONE = Decimal(1)


@dataclass
class Tally:
    """Sums over played rounds; every stake is one unit per box."""

    hands: int = 0
    rounds: int = 0
    net: float = 0.0  # the players' total net, in units (statistics only, not money)
    net_sq: float = 0.0  # sum over rounds of (round net)^2
    bets_sq: float = 0.0  # sum over rounds of (units bet)^2
    net_bets: float = 0.0  # sum over rounds of net * units bet
    seconds: float = 0.0

    def add(self, other: Tally) -> None:
        for name in ("hands", "rounds", "net", "net_sq", "bets_sq", "net_bets", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def house_edge_pct(self) -> float:
        return -100.0 * self.net / self.hands if self.hands else 0.0

    @property
    def stderr_pct(self) -> float:
        """Standard error of the edge: a ratio estimator over rounds, as boxes in a round
        are correlated."""
        n = self.rounds
        if n < 2 or not self.hands:
            return 0.0
        mean_bet = self.hands / n
        edge = self.net / self.hands
        # Variance of (net_i - edge * bet_i) over rounds.
        resid = self.net_sq - 2 * edge * self.net_bets + edge * edge * self.bets_sq
        var = max(resid / (n - 1), 0.0)
        return 100.0 * math.sqrt(var / n) / mean_bet


def boxes_for(profile: RuleProfile) -> int:
    """Play the fewest boxes the profile lets a round start with."""
    return max(1, profile.min_boxes)


def play(
    profile: RuleProfile,
    hands: int,
    seed: str,
    boxes: int | None = None,
    on_round: Callable[[Round], None] | None = None,
    shuffle: str = "cut",
) -> Tally:
    """Play `hands` initial hands (boxes x rounds) of basic strategy; return the tally.

    `shuffle`: "cut" shuffles when the cut card is out, as at the table; "round"
    puts every card back before each round (a continuous shuffler), so each
    round is dealt off the top of a full shoe, as `croupier edge` prices it.
    `on_round` sees each round once it is over (log_digest's hash of them)."""
    if shuffle not in SHUFFLES:
        raise ValueError(f"shuffle: expected one of {', '.join(SHUFFLES)}, not {shuffle!r}")
    each_round = shuffle == "round"
    rng = random.Random(seed)
    nboxes = boxes or boxes_for(profile)
    decide = Strategy(profile).decide
    table = Table(profile, max(nboxes, profile.min_boxes))
    shoe = VirtualShoe(profile.decks, profile.penetration, rng)
    stake = max(ONE, profile.table_min)
    unit = float(stake)
    holders = [(b, f"box{b}") for b in range(1, nboxes + 1)]
    bet, close_bets, card, action = table.bet, table.close_bets, table.card, table.action
    deal, dealer, players, insurance = Phase.DEAL, Phase.DEALER, Phase.PLAYERS, Phase.INSURANCE
    # Sums kept in locals, not on the Tally, inside the loop: it runs once per round.
    rounds = 0
    net_sum = net_sq = net_bets = 0.0
    started = time.perf_counter()
    draw: Callable[[], str] = iter(shoe.cards).__next__
    need_shoe = True
    while rounds * nboxes < hands:
        if need_shoe:
            if each_round:
                shoe.gather()
                draw = shoe.draw_any
            else:
                shoe.shuffle()
                # The shoe's cards in order, as a C-level iterator: the cheapest draw there is.
                draw = iter(shoe.cards).__next__
            table.new_shoe()
            for _ in range(profile.burn):
                table.burn(draw())
            need_shoe = False
        for b, holder in holders:
            bet(b, holder, stake)
        close_bets()
        r = table.round
        assert r is not None
        for _ in range(r.plan_end):  # the initial deal (r.deal_cards_left, at its start)
            card(draw())
        while not r.over:
            phase = r.phase
            if phase is deal or phase is dealer:
                card(draw())
            elif phase is players:
                if r.offer_box >= 0:
                    action(r.boxes[r.offer_box].number, "refuse_card")
                    continue
                choice = decide(r)
                if choice == "card":
                    card(draw())
                else:
                    action(r.boxes[r.turn].number, choice)
            elif phase is insurance:
                table.close_insurance()
        outcome = r.outcome
        assert outcome is not None
        if on_round is not None:
            on_round(r)
        net = -float(outcome.house_net) / unit
        rounds += 1
        net_sum += net
        net_sq += net * net
        net_bets += net * nboxes
        if table.bets:
            table.bets.clear()  # a push left on the layout (000) is taken back: bets afresh
        if each_round or table.shoe.cut_reached:
            need_shoe = True
    return Tally(
        hands=rounds * nboxes,
        rounds=rounds,
        net=net_sum,
        net_sq=net_sq,
        bets_sq=float(rounds * nboxes * nboxes),
        net_bets=net_bets,
        seconds=time.perf_counter() - started,
    )


def log_digest(
    profile: RuleProfile, hands: int, seed: str, boxes: int | None = None, shuffle: str = "cut"
) -> str:
    """A hash of every operation record of every round `play` plays: two engines
    that agree on it agree on every card, decision, payout and record."""
    digest = hashlib.sha256()

    def seen(r: Round) -> None:
        for record in r.log:
            digest.update(repr(record).encode())

    play(profile, hands, seed, boxes, seen, shuffle)
    return digest.hexdigest()


def chunk_plan(hands: int, seed: int) -> list[tuple[int, str]]:
    """The chunks `hands` is played in: (hands, the chunk's seed) each."""
    return [
        (min(CHUNK, hands - start), f"{seed}:{index}")
        for index, start in enumerate(range(0, hands, CHUNK))
    ]


# A chunk to play: (profile, hands, seed, boxes, shuffle), play()'s arguments.
Chunk = tuple[RuleProfile, int, str, int | None, str]
# Plays chunks somewhere and yields their tallies in order (sim/native.py's
# workers on the compiled engine).
Runner = Callable[[list[Chunk]], Iterator[Tally]]


def _chunk(args: Chunk) -> Tally:
    profile, hands, seed, boxes, shuffle = args
    return play(profile, hands, seed, boxes, None, shuffle)


def _forked(chunks: list[Chunk], jobs: int) -> Iterator[Tally]:
    with get_context("fork").Pool(jobs) as pool:
        yield from pool.imap(_chunk, chunks)


def simulate(
    profile: RuleProfile,
    hands: int,
    seed: int,
    jobs: int = 1,
    boxes: int | None = None,
    shuffle: str = "cut",
    runner: Runner | None = None,
) -> Tally:
    """Play `hands` in chunks; sum their tallies. The chunks are played here, in
    `jobs` forked processes, or by `runner` (which then decides the processes)."""
    chunks: list[Chunk] = [(profile, n, s, boxes, shuffle) for n, s in chunk_plan(hands, seed)]
    total = Tally()
    started = time.perf_counter()
    if runner is not None:
        tallies: Iterable[Tally] = runner(chunks)
    elif jobs <= 1 or len(chunks) == 1:
        tallies = map(_chunk, chunks)
    else:
        tallies = _forked(chunks, jobs)
    for t in tallies:
        total.add(t)
    total.seconds = time.perf_counter() - started
    return total
