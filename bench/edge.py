"""`croupier edge` speed, and its agreement with `croupier simulate`.

    python -m bench edge [--simulate HANDS] [--seed S] [--jobs J] [--shuffle cut|round]
                         [--engine native|python]

For every shipped profile: the wall time and the CPU time of `croupier edge
--rules P --json` in a fresh process (interpreter start, imports and every cache
cold, as a user runs it), best of 3, and the computation alone in that process
(wall). On a shared machine the CPU time is the steadier figure. With --simulate,
also `croupier simulate` for HANDS hands per profile and the difference in
standard errors: by default each round off a full shoe (--shuffle round), as the
edge is priced, on the compiled engine (sim/native.py), which plays the same
rounds faster.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

from controller import rules


def edge_command(name: str) -> tuple[float, float, dict[str, object]]:
    """(wall seconds, CPU seconds, the JSON it printed) of one `croupier edge` in a new
    process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "controller", "edge", "--rules", name, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(done.stdout)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench edge")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--simulate", type=int, default=0, help="hands per profile (0: none)")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--shuffle", choices=("cut", "round"), default="round")
    parser.add_argument("--engine", choices=("native", "python"), default="native")
    args = parser.parse_args(argv)
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    print("| profile | house edge | `croupier edge` wall | its CPU time | computation (wall) |")
    print("|---|---|---|---|---|")
    worst = 0.0
    for name in rules.SHIPPED:
        runs = [edge_command(name) for _ in range(args.repeat)]
        wall = min(r[0] for r in runs)
        cpu = min(r[1] for r in runs)
        out = runs[0][2]
        worst = max(worst, wall)
        print(
            f"| {name} | {out['house_edge_pct']:.4f}% | {wall:.2f} s | {cpu:.2f} s "
            f"| {out['seconds']:.2f} s |"
        )
    print(f"\nslowest profile, wall: {worst:.2f} s (best of {args.repeat})")
    if args.simulate:
        from controller.engine.edge import edge
        from sim.native import runner
        from sim.simulate import simulate

        play_on = runner(args.jobs) if args.engine == "native" else None

        print("\n| profile | croupier edge | croupier simulate | std. error | difference |")
        print("|---|---|---|---|---|")
        for name in rules.SHIPPED:
            p = rules.shipped(name)
            tally = simulate(p, args.simulate, args.seed, args.jobs, None, args.shuffle, play_on)
            ours = edge(p).edge_pct
            diff = tally.house_edge_pct - ours
            print(
                f"| {name} | {ours:.4f}% | {tally.house_edge_pct:.4f}% | "
                f"±{tally.stderr_pct:.4f} | {diff:+.4f} ({diff / tally.stderr_pct:+.1f} s.e.) |"
            )
    return 0
