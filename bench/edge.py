"""`croupier edge` speed, and its agreement with `croupier simulate`.

    python -m bench edge [--simulate HANDS] [--seed S] [--jobs J]

For every shipped profile: the wall time of `croupier edge --rules P --json` in a
fresh process (interpreter start, imports and every cache cold, as a user runs
it), best of 3, and the computation alone in that process. With --simulate,
also `croupier simulate` for HANDS hands per profile and the difference in
standard errors.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from controller import rules


def edge_command(name: str) -> tuple[float, dict[str, object]]:
    """(wall seconds, the JSON it printed) of one `croupier edge` in a new process."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "controller", "edge", "--rules", name, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - started, json.loads(done.stdout)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench edge")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--simulate", type=int, default=0, help="hands per profile (0: none)")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    print("| profile | house edge | `croupier edge` wall, best of 3 | computation |")
    print("|---|---|---|---|")
    worst = 0.0
    for name in rules.SHIPPED:
        runs = [edge_command(name) for _ in range(args.repeat)]
        wall = min(r[0] for r in runs)
        out = runs[0][1]
        worst = max(worst, wall)
        print(f"| {name} | {out['house_edge_pct']:.4f}% | {wall:.2f} s | {out['seconds']:.2f} s |")
    print(f"\nslowest profile: {worst:.2f} s")
    if args.simulate:
        from controller.engine.edge import edge
        from sim.simulate import simulate

        print("\n| profile | croupier edge | croupier simulate | std. error | difference |")
        print("|---|---|---|---|---|")
        for name in rules.SHIPPED:
            p = rules.shipped(name)
            tally = simulate(p, args.simulate, args.seed, args.jobs)
            ours = edge(p).edge_pct
            diff = tally.house_edge_pct - ours
            print(
                f"| {name} | {ours:.4f}% | {tally.house_edge_pct:.4f}% | "
                f"±{tally.stderr_pct:.4f} | {diff:+.4f} ({diff / tally.stderr_pct:+.1f} s.e.) |"
            )
    return 0
