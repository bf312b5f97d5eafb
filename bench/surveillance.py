"""Surveillance detectors measured in the simulator: how often they catch what they
are for, and how often they raise something that is not there.

    python -m bench surveillance [--tables 200] [--shoes 20] [--jobs 2] [--rules be-casino]
                                 [--payout-tables 40] [--shoe-runs 4000] [--decisions 20000]
                                 [--only count|payout|shoe|decisions]

- count: whole simulated tables (`croupier sim` offline: the service, its journal, the
  bots on the simulated drivers) with a counter-8 on box 1, a counter-12 on box 2, a
  classic-8 on box 3, a flat bettor on box 4 and random bettors elsewhere (boxes 5-7
  and every player betting behind), each for `--shoes` shoes. A counter counts as
  caught when `advantage_play` names its spot by the end of its 2nd shoe; any other
  spot flagged at any time over the shoes is a false alert. The dealer pays honestly
  on the sensors: every payout alert in these tables is false too.
- payout: tables whose dealer errs on 5% of the spots; alerts against the dealer's
  mistakes (same round, box and spot), and whether the difference is exact.
- shoe: shoes dealt through the engine and the desk (no service), some with a card
  added (a foreign card), some dealt one round past the cut card, some replaced early.
- decisions: a basic-strategy player and one who plays a random legal action 5% of
  the time, valued by the desk.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from multiprocessing import get_context
from pathlib import Path
from typing import Any, TypeVar

from controller import rules
from controller.config import Config, override
from controller.engine import Table, TableError, parse_event
from controller.engine.cards import CARD_CODES
from controller.engine.phase import Phase
from controller.engine.round import Round
from controller.journal import Store
from controller.surveillance import Settings, Surveillance
from controller.surveillance.edges import edge_for
from sim.runner import build
from sim.shoe import VirtualShoe
from sim.strategy import Strategy

SEATS = {"1": "counter-8", "2": "counter-12", "3": "classic-8", "4": "flat"}
COUNTERS = ("counter-8", "counter-12", "classic-8")
T = TypeVar("T")
A = TypeVar("A")


def _map(fn: Callable[[A], T], items: Iterable[A], jobs: int) -> list[T]:
    items = list(items)
    if jobs <= 1:
        return [fn(i) for i in items]
    with get_context("fork").Pool(jobs) as pool:
        return list(pool.imap(fn, items))


# ------------------------------------------------------------ simulated tables
@dataclass
class TableRun:
    seed: int
    rounds: int
    shoes: int
    seconds: float
    alerts: list[dict[str, Any]]
    spots: set[tuple[int, str]]  # every (box, player) that staked
    payout_errors: list[tuple[int, int, int, str, Decimal]]  # the dealer's mistakes
    checked: int  # spots the payout check judged
    unchecked: int


def run_table(args: tuple[int, int, int, str, float]) -> TableRun:
    """One offline simulated table: `seed`, stop after `shoes` shoes or `rounds` rounds."""
    seed, shoes, rounds, rules_name, error_rate = args
    state = Path(tempfile.mkdtemp(prefix="croupier-bench-"))
    try:
        config = override(
            Config(),
            "bench",
            table={"id": "b", "rules": rules_name},
            state={"dir": state, "fsync": False},
            mqtt={"surveillance": True},
            sim={
                "rounds": rounds,
                "speed": "max",
                "seed": seed,
                "players": SEATS,
                "payouts": True,
                "payout_error_rate": error_rate,
            },
        )
        run = build(config, offline=True)
        service = run.service

        def enough() -> float | None:
            if service.view.shoes > shoes:
                service.stop()
                return None
            return 0.001  # (a timer due again at once would run again at once)

        if shoes:
            service.every(0.0, enough, settled=True)
        started = time.perf_counter()
        service.run()
        seconds = time.perf_counter() - started
        store = Store(state, fsync=False)
        try:
            rows = store.rows_from(1, 100_000_000)
        finally:
            store.close()
        alerts = [json.loads(r.payload) for r in rows if r.topic == "surveillance/alerts"]
        spots = set()
        outcomes = 0
        for r in rows:
            if r.topic == "outcome":
                outcomes += 1
                for b in json.loads(r.payload)["boxes"]:
                    spots |= {(b["box"], p["player"]) for p in b["players"]}
        desk = service.surveillance
        assert desk is not None
        return TableRun(
            seed,
            outcomes,
            service.view.shoes,
            seconds,
            alerts,
            spots,
            list(run.bots.payout_errors),
            desk.payouts.checked,
            desk.payouts.unchecked,
        )
    finally:
        shutil.rmtree(state, ignore_errors=True)


@dataclass
class CountRates:
    shoes: int
    tables: int = 0
    rounds: int = 0
    seconds: float = 0.0
    caught: Counter[str] = field(default_factory=Counter)  # kind -> flagged within 2 shoes
    caught_by: dict[str, Counter[int]] = field(default_factory=dict)  # kind -> shoe -> n
    seated: Counter[str] = field(default_factory=Counter)  # kind -> spots
    flagged_rounds: dict[str, list[int]] = field(default_factory=dict)
    others: Counter[str] = field(default_factory=Counter)  # flat/random/behind -> spots
    others_flagged: Counter[str] = field(default_factory=Counter)
    payout_alerts: int = 0  # with an honest dealer: all false
    payout_checked: int = 0
    payout_unchecked: int = 0

    def add(self, run: TableRun) -> None:
        self.tables += 1
        self.rounds += run.rounds
        self.seconds += run.seconds
        flagged: dict[tuple[int, str], dict[str, Any]] = {}
        for a in run.alerts:
            if a["kind"] == "advantage_play" and a["shoe"] <= self.shoes:
                flagged.setdefault((a["box"], a["player"]), a)
        self.payout_alerts += sum(a["kind"] == "payout_error" for a in run.alerts)
        self.payout_checked += run.checked
        self.payout_unchecked += run.unchecked
        for box, player in run.spots:
            kind = _kind(box, player)
            alert = flagged.get((box, player))
            if kind in COUNTERS:
                self.seated[kind] += 1
                if alert is not None:
                    self.caught_by.setdefault(kind, Counter())[alert["shoe"]] += 1
                    self.flagged_rounds.setdefault(kind, []).append(alert["rounds"])
                    if alert["shoe"] <= 2:
                        self.caught[kind] += 1
            else:
                self.others[kind] += 1
                self.others_flagged[kind] += alert is not None


def _kind(box: int, player: str) -> str:
    if player != f"box{box}":
        return "random, betting behind"
    return SEATS.get(str(box), "random")


def count_rates(seeds: Iterable[int], shoes: int, rules_name: str, jobs: int) -> CountRates:
    rates = CountRates(shoes)
    for run in _map(run_table, [(s, shoes, 0, rules_name, 0.0) for s in seeds], jobs):
        rates.add(run)
    return rates


@dataclass
class PayoutRates:
    tables: int = 0
    rounds: int = 0
    mistakes: int = 0
    caught: int = 0
    exact: int = 0  # caught with the right difference
    false: int = 0
    checked: int = 0
    unchecked: int = 0
    by_what: Counter[str] = field(default_factory=Counter)
    caught_by_what: Counter[str] = field(default_factory=Counter)
    exact_by_what: Counter[str] = field(default_factory=Counter)


def payout_rates(
    seeds: Iterable[int], rounds: int, rules_name: str, rate: float, jobs: int
) -> PayoutRates:
    out = PayoutRates()
    for run in _map(run_table, [(s, 0, rounds, rules_name, rate) for s in seeds], jobs):
        out.tables += 1
        out.rounds += run.rounds
        out.checked += run.checked
        out.unchecked += run.unchecked
        found = {
            (a["round"], a["box"], a["spot"]): Decimal(a["difference"])
            for a in run.alerts
            if a["kind"] == "payout_error"
        }
        made = {(r, b, s): (what, diff) for r, b, s, what, diff in run.payout_errors}
        out.mistakes += len(made)
        for key, (what, diff) in made.items():
            out.by_what[what] += 1
            if key in found:
                out.caught += 1
                out.caught_by_what[what] += 1
                out.exact += found[key] == diff
                out.exact_by_what[what] += found[key] == diff
        out.false += sum(key not in made for key in found)
    return out


# ----------------------------------------------------------------- the shoe
@dataclass
class ShoeRates:
    shoes: int = 0
    honest: int = 0
    injected: int = 0  # shoes with a foreign card added
    detectable: int = 0  # ... whose every copy of that code was dealt (the count can tell)
    detected: int = 0  # ... refused as foreign_card
    false_foreign: int = 0  # foreign_card on a shoe without one
    past_cut: int = 0  # shoes dealt one round past the cut card
    past_cut_flagged: int = 0
    false_cut: int = 0
    early: int = 0  # shoes replaced at half the cut card
    early_flagged: int = 0
    false_early: int = 0
    missing: int = 0  # shoes with a card taken out
    reconciled: Counter[str] = field(default_factory=Counter)  # kind -> stack != report


@dataclass
class _Shoe:
    kind: str  # honest | foreign | missing
    cards: list[str]
    foreign: str | None
    extra: bool
    early: bool
    position: int = 0  # cards taken out of the shoe (a refused foreign card included)
    alerts: list[str] = field(default_factory=list)


def shoe_rates(runs: int, seed: int, rules_name: str = "be-casino") -> ShoeRates:
    """Shoes through the engine and the desk (three boxes of basic strategy): honest
    ones, ones with a card added (foreign) or taken out (missing), some dealt a round
    past the cut card, some replaced at half of it. Each shoe's report (at the next new
    shoe) is checked against the stack physically left, as surveillance would."""
    profile = rules.load(rules_name)
    rng = random.Random(seed)
    table = Table(profile, 3)
    desk = Surveillance(table, "b", Settings(), edge_for(profile))
    strategy = Strategy(profile)
    out = ShoeRates()
    previous: _Shoe | None = None
    for n in range(runs + 1):
        kinds, reports = _apply(table, desk, {"type": "shoe"})
        if previous is not None:
            _score(out, previous, kinds, reports[0], profile.decks)
        if n == runs:
            break
        cards = [c for c in CARD_CODES for _ in range(profile.decks)]
        rng.shuffle(cards)
        kind, foreign, what = "honest", None, rng.random()
        if what < 0.4:
            kind, foreign = "foreign", rng.choice(CARD_CODES)
            cards.insert(rng.randrange(len(cards)), foreign)
        elif what < 0.5:
            kind = "missing"
            cards.pop(rng.randrange(len(cards)))
        extra = rng.random() < 0.2
        shoe = _Shoe(kind, cards, foreign, extra, not extra and rng.random() < 0.1)
        _deal(table, desk, strategy, shoe)
        previous = shoe
    return out


def _score(
    out: ShoeRates, shoe: _Shoe, kinds: list[str], report: dict[str, Any], decks: int
) -> None:
    out.shoes += 1
    out.honest += shoe.kind == "honest"
    dealt = shoe.cards[: shoe.position]
    if shoe.foreign is not None:
        out.injected += 1
        out.detectable += dealt.count(shoe.foreign) > decks
        out.detected += "foreign_card" in shoe.alerts
    else:
        out.false_foreign += "foreign_card" in shoe.alerts
    out.past_cut += shoe.extra
    out.past_cut_flagged += shoe.extra and "past_cut_card" in shoe.alerts
    out.false_cut += not shoe.extra and "past_cut_card" in shoe.alerts
    out.early += shoe.early
    out.early_flagged += shoe.early and "shoe_ended_early" in kinds
    out.false_early += not shoe.early and "shoe_ended_early" in kinds
    out.missing += shoe.kind == "missing"
    stack = Counter(shoe.cards[shoe.position :])
    out.reconciled[shoe.kind] += stack != Counter(report["not_out"] or {})


def _apply(
    table: Table, desk: Surveillance, event: dict[str, Any]
) -> tuple[list[str], list[dict[str, Any]]]:
    """One event through the engine and the desk: (alert kinds, shoe reports)."""
    desk.before()
    try:
        found = desk.applied(table.apply(parse_event(event)), 0, None)
    except TableError:
        if event["type"] != "card":
            raise
        found = desk.foreign_card(event["card"], 0)  # refused: put aside, deal on
    kinds = [o.payload["kind"] for o in found if o.topic == "surveillance/alerts"]
    return kinds, [o.payload for o in found if o.topic == "surveillance/shoe"]


def play_out(
    table: Table,
    do: Callable[[dict[str, Any]], None],
    card: Callable[[], None],
    choose: Callable[[Round], str],
) -> None:
    """The round just closed, played to its end: `choose` decides for the box in play."""
    r = table.round
    assert r is not None
    while not r.over:
        if r.phase is Phase.INSURANCE:
            do({"type": "close_insurance"})
        elif r.phase is Phase.PLAYERS and r.offer_box >= 0:
            do({"type": "action", "box": r.boxes[r.offer_box].number, "action": "refuse_card"})
        elif r.phase is Phase.PLAYERS:
            action = choose(r)
            if action == "card":
                card()
            else:
                do({"type": "action", "box": r.boxes[r.turn].number, "action": action})
        else:
            card()


def _deal(table: Table, desk: Surveillance, strategy: Strategy, shoe: _Shoe) -> None:
    """Rounds to the cut card (one more when `extra`; to half of it when `early`)."""

    def card() -> None:
        kinds, _ = _apply(table, desk, {"type": "card", "card": shoe.cards[shoe.position]})
        shoe.position += 1
        shoe.alerts += kinds

    def do(event: dict[str, Any]) -> None:
        shoe.alerts += _apply(table, desk, event)[0]

    half = (table.shoe.cut_at or 0) // 2
    past = 0
    while shoe.position < len(shoe.cards) - 40:
        if table.shoe.cut_reached:
            if not shoe.extra or past:
                break
            past += 1
        if shoe.early and table.shoe.out >= half:
            break
        for box in (1, 2, 3):
            do({"type": "bet", "box": box, "amount": "10"})
        do({"type": "close_bets"})
        play_out(table, do, card, strategy.decide)


# -------------------------------------------------------------- decisions
@dataclass
class DecisionRates:
    rules: str
    rounds: int
    players: dict[str, dict[str, float]] = field(default_factory=dict)


def decision_rates(
    rounds: int, seed: int, rules_name: str, mistakes: float = 0.05
) -> DecisionRates:
    """Box 1 plays the shipped basic strategy tables; box 2 the same but a random legal
    action `mistakes` of the time. What the desk makes of their decisions."""
    profile = rules.load(rules_name)
    rng = random.Random(seed)
    table = Table(profile, max(2, profile.min_boxes))
    desk = Surveillance(table, "b", Settings(), edge_for(profile))
    strategy = Strategy(profile)
    shoe = VirtualShoe(profile.decks, profile.penetration, rng)
    draw: Callable[[], str] = iter(()).__next__
    random_picks = 0  # box 2's random actions that differ from the tables' action

    def do(event: dict[str, Any]) -> None:
        desk.before()
        desk.applied(table.apply(parse_event(event)), 0, None)

    def card() -> None:
        do({"type": "card", "card": draw()})  # the shoe's current order

    def choose(r: Round) -> str:
        nonlocal random_picks
        action = strategy.decide(r)
        legal = r.legal_actions()
        if r.boxes[r.turn].number == 2 and len(legal) > 1 and rng.random() < mistakes:
            pick = rng.choice(legal)
            random_picks += pick != action
            action = pick
        return action

    for _ in range(rounds):
        if table.rounds == 0 or table.shoe.cut_reached:
            shoe.shuffle()
            draw = iter(shoe.cards).__next__
            do({"type": "shoe"})
            for _ in range(profile.burn):
                do({"type": "burn", "card": draw()})
        for box in (1, 2):
            do({"type": "bet", "box": box, "amount": str(profile.table_min)})
        do({"type": "close_bets"})
        play_out(table, do, card, choose)
    out = DecisionRates(rules_name, rounds)
    for (box, _), s in sorted(desk.sessions.items()):
        name = "basic strategy tables" if box == 1 else f"tables + {mistakes:.0%} random"
        out.players[name] = {
            "decisions": s.decisions,
            "deviations": s.deviations,
            "per_1000": 1000 * s.deviations / max(1, s.decisions),
            "cost_per_deviation": s.cost_units / max(1, s.deviations),
            "cost_per_100_rounds": 100 * s.cost_units / max(1, s.rounds),
            "random_picks": random_picks if box == 2 else 0,
        }
    return out


# ------------------------------------------------------------------- report
def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}% ({part}/{whole})" if whole else "-"


def report_count(r: CountRates) -> None:
    print(
        f"\n### Advantage play: {r.tables} tables x {r.shoes} shoes, {r.rounds} rounds "
        f"({r.seconds:.0f} s of simulated play)\n"
    )
    print(
        "| player | spots | flagged within 2 shoes | flagged by shoe 20 | "
        "rounds to the alert (median, max) |"
    )
    print("|---|---|---|---|---|")
    for kind in COUNTERS:
        by = r.caught_by.get(kind, Counter())
        rounds = sorted(r.flagged_rounds.get(kind, []))
        med = f"{statistics.median(rounds):.0f}, {rounds[-1]}" if rounds else "-"
        print(
            f"| {kind} | {r.seated[kind]} | {pct(r.caught[kind], r.seated[kind])} | "
            f"{pct(sum(by.values()), r.seated[kind])} | {med} |"
        )
    print("\n| player | spots | flagged at any time over the shoes |\n|---|---|---|")
    for kind in sorted(r.others):
        print(f"| {kind} | {r.others[kind]} | {pct(r.others_flagged[kind], r.others[kind])} |")
    total = sum(r.others.values())
    print(f"| all others | {total} | {pct(sum(r.others_flagged.values()), total)} |")
    print(
        f"\nHonest dealer paying on the sensors: {r.payout_alerts} payout_error alerts "
        f"over {r.payout_checked} spots checked ({r.payout_unchecked} not checkable: "
        "split chips beside the spot)."
    )


def report_payout(p: PayoutRates, rate: float) -> None:
    print(
        f"\n### Payouts: {p.tables} tables, {p.rounds} rounds, the dealer wrong on "
        f"{rate:.0%} of the spots\n"
    )
    print("| dealer's mistake | made | alerted | with the exact difference |")
    print("|---|---|---|---|")
    for what in sorted(p.by_what):
        made = p.by_what[what]
        print(
            f"| {what} | {made} | {pct(p.caught_by_what[what], made)} | "
            f"{pct(p.exact_by_what[what], made)} |"
        )
    print(f"| all | {p.mistakes} | {pct(p.caught, p.mistakes)} | {pct(p.exact, p.mistakes)} |")
    print(
        f"\nAlerts with no mistake behind them: {p.false} (spots checked {p.checked}, "
        f"not checkable {p.unchecked})."
    )


def report_shoe(s: ShoeRates) -> None:
    print(f"\n### Shoe integrity: {s.shoes} shoes\n")
    print("| case | shoes | flagged | false alerts (other shoes) |\n|---|---|---|---|")
    print(
        f"| a card added (foreign), refused as foreign_card | {s.injected} | "
        f"{pct(s.detected, s.injected)} (every copy dealt in {s.detectable}) | "
        f"{s.false_foreign} |"
    )
    print(
        f"| dealt one round past the cut card | {s.past_cut} | "
        f"{pct(s.past_cut_flagged, s.past_cut)} | {s.false_cut} |"
    )
    print(
        f"| replaced at half the cut card | {s.early} | {pct(s.early_flagged, s.early)} | "
        f"{s.false_early} |"
    )
    print("\nThe shoe report (not_out) against the stack physically left:\n")
    print("| shoe | shoes | report and stack differ |\n|---|---|---|")
    print(f"| honest | {s.honest} | {pct(s.reconciled['honest'], s.honest)} |")
    print(f"| a card missing | {s.missing} | {pct(s.reconciled['missing'], s.missing)} |")
    print(f"| a card added | {s.injected} | {pct(s.reconciled['foreign'], s.injected)} |")


def report_decisions(d: DecisionRates) -> None:
    print(f"\n### Decisions ({d.rules}, {d.rounds} rounds)\n")
    print(
        "| player | decisions | deviations | per 1000 | units per deviation | "
        "units per 100 rounds | random picks off the tables |\n|---|---|---|---|---|---|---|"
    )
    for name, p in d.players.items():
        print(
            f"| {name} | {p['decisions']:.0f} | {p['deviations']:.0f} | "
            f"{p['per_1000']:.1f} | {p['cost_per_deviation']:.4f} | "
            f"{p['cost_per_100_rounds']:.3f} | {p['random_picks']:.0f} |"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench surveillance")
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--shoes", type=int, default=20)
    parser.add_argument("--payout-tables", type=int, default=40)
    parser.add_argument("--payout-rounds", type=int, default=300)
    parser.add_argument("--payout-rate", type=float, default=0.05)
    parser.add_argument("--shoe-runs", type=int, default=4000)
    parser.add_argument("--decisions", type=int, default=20000, help="rounds per profile")
    parser.add_argument("--rules", default="be-casino")
    parser.add_argument("--seed", type=int, default=1, help="the first table's seed")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", choices=("count", "payout", "shoe", "decisions"))
    args = parser.parse_args(argv)
    started = time.perf_counter()
    print(f"rules {args.rules}, seeds from {args.seed}, {args.jobs} processes")
    if args.only in (None, "count"):
        seeds = range(args.seed, args.seed + args.tables)
        report_count(count_rates(seeds, args.shoes, args.rules, args.jobs))
    if args.only in (None, "payout"):
        seeds = range(args.seed + 10_000, args.seed + 10_000 + args.payout_tables)
        report_payout(
            payout_rates(seeds, args.payout_rounds, args.rules, args.payout_rate, args.jobs),
            args.payout_rate,
        )
    if args.only in (None, "shoe"):
        report_shoe(shoe_rates(args.shoe_runs, args.seed, args.rules))
    if args.only in (None, "decisions"):
        for name in (args.rules, "ref-peek"):
            report_decisions(decision_rates(args.decisions, args.seed, name))
    print(f"\n({time.perf_counter() - started:.0f} s)")
