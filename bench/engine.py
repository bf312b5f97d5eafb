"""Engine speed: hands per second of `croupier simulate` in one process, and the
median time the engine takes per event.

    python -m bench engine [--hands N] [--rules P ...] [--yardstick PATH]

With --yardstick (the fixed pure-Python workload, ../shared/bench/yardstick.py),
each run of the simulator is paired with a run of the yardstick just before it,
in one process each, and the ratio of the two (simulated hands per second over
the yardstick's rounds per second) is printed: a figure that holds when the
machine's speed drifts.

--engine native plays on the engine compiled by mypyc (sim/native.py), in a
worker process that imports it; the figure is the same loop's own timing.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import subprocess
import sys
import time

from controller import rules
from controller.engine.phase import Phase
from controller.engine.profile import RuleProfile
from controller.engine.table import Table
from sim.native import build, native_pool, play_chunk, profile_values
from sim.shoe import VirtualShoe
from sim.simulate import play
from sim.strategy import Strategy


def event_times(profile_name: str, rounds: int, seed: int = 7) -> list[float]:
    """Seconds each engine event took (bet, close, card, action, insurance), one by one."""
    profile = rules.shipped(profile_name)
    table = Table(profile, max(1, profile.min_boxes))
    shoe = VirtualShoe(profile.decks, profile.penetration, random.Random(seed))
    strategy = Strategy(profile)
    clock = time.perf_counter_ns
    times: list[float] = []
    stake = profile.table_min
    table.new_shoe()
    for _ in range(profile.burn):
        table.burn(shoe.draw())
    for _ in range(rounds):
        for b in range(1, table.boxes + 1):
            if b <= max(1, profile.min_boxes):
                t0 = clock()
                table.bet(b, f"box{b}", stake)
                times.append(clock() - t0)
        t0 = clock()
        table.close_bets()
        times.append(clock() - t0)
        r = table.round
        assert r is not None
        while not r.over:
            if r.phase is Phase.INSURANCE:
                t0 = clock()
                table.close_insurance()
            elif r.phase is Phase.PLAYERS:
                if r.offer_box >= 0:
                    t0 = clock()
                    table.action(r.boxes[r.offer_box].number, "refuse_card")
                else:
                    action = strategy.decide(r)
                    if action == "card":
                        card = shoe.draw()
                        t0 = clock()
                        table.card(card)
                    else:
                        box = r.boxes[r.turn].number
                        t0 = clock()
                        table.action(box, action)
            else:
                card = shoe.draw()
                t0 = clock()
                table.card(card)
            times.append(clock() - t0)
        table.bets.clear()
        if table.shoe.cut_reached:
            shoe.shuffle()
            table.new_shoe()
            for _ in range(profile.burn):
                table.burn(shoe.draw())
    return [t / 1e9 for t in times]


def yardstick(path: str, rounds: int) -> float:
    """Rounds per second of the yardstick script, run in its own process."""
    done = subprocess.run(
        [sys.executable, path, str(rounds)], capture_output=True, text=True, check=True
    )
    found = re.match(r"(\d+) rounds/s", done.stdout)
    if found is None:
        raise SystemExit(f"{path}: expected 'N rounds/s ...', got {done.stdout!r}")
    return float(found.group(1))


def speed_of(profile: RuleProfile, hands: int, seed: str, engine: str) -> float:
    """Hands per second of one `play` in this process, or in a worker of the compiled engine."""
    if engine == "python":
        tally = play(profile, hands, seed)
        return tally.hands / tally.seconds
    with native_pool(1, build()) as pool:
        done = pool.apply(play_chunk, ((profile_values(profile), hands, seed, None, "cut"),))
    return done[0] / done[-1]


def ratios(names: list[str], hands: int, repeat: int, path: str, engine: str) -> None:
    print(f"{'profile':<12} {'hands/s':>10} {'yardstick':>10} {'ratio':>6}  (pairs back to back)")
    for name in names:
        profile = rules.shipped(name)
        found = []
        for i in range(repeat):
            ruler = yardstick(path, 200_000)
            speed = speed_of(profile, hands, f"bench:{i}", engine)
            found.append(speed / ruler)
            print(f"{name:<12} {speed:>10,.0f} {ruler:>10,.0f} {speed / ruler:>6.3f}")
        print(f"{name:<12} median ratio {statistics.median(found):.3f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench engine")
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--rules", nargs="+", default=["ref-peek", "ref-enhc", "fr-classic"])
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs")
    parser.add_argument("--yardstick", help="the yardstick script: print simulate's ratio to it")
    parser.add_argument("--engine", choices=("python", "native"), default="python")
    args = parser.parse_args(argv)
    if args.yardstick:
        ratios(args.rules, args.hands, args.repeat, args.yardstick, args.engine)
        return
    title = f"hands/s (best of {args.repeat})"
    print(f"{'profile':<12} {'boxes':>5} {title:>22} {'event p50 us':>13}")
    for name in args.rules:
        profile = rules.shipped(name)
        best = 0.0
        boxes = 0
        for i in range(args.repeat):
            best = max(best, speed_of(profile, args.hands, f"bench:{i}", args.engine))
            boxes = max(1, profile.min_boxes)
        per_event = event_times(name, 50_000)
        p50 = statistics.median(per_event) * 1e6
        print(f"{name:<12} {boxes:>5} {best:>22,.0f} {p50:>13.2f}")


if __name__ == "__main__":
    main()
