"""croupier simulate --rules P --hands N --seed S [--jobs J] [--json]"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "simulate",
        help="house edge of basic strategy, played through the table's own engine",
        description="Play N hands of basic strategy through the rules engine and print the "
        "house edge (%), its standard error and hands per second. The result depends only "
        "on --rules, --hands, --seed and --boxes, not on --jobs.",
    )
    parser.add_argument("--rules", required=True, help="profile name or .toml file")
    parser.add_argument("--hands", type=int, default=1_000_000, help="initial hands to play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--boxes", type=int, help="boxes played each round (default: the fewest the rules allow)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (0: one per CPU)")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from controller import rules
    from controller.engine.errors import ProfileError
    from sim.simulate import simulate

    if args.hands < 1:
        print("croupier simulate: --hands must be at least 1", file=sys.stderr)
        return 2
    try:
        profile = rules.load(args.rules)
    except ProfileError as exc:
        print(f"croupier simulate: {exc}", file=sys.stderr)
        return 2
    if args.boxes is not None and not max(1, profile.min_boxes) <= args.boxes <= profile.boxes:
        print(
            f"croupier simulate: --boxes must be between {max(1, profile.min_boxes)} and "
            f"{profile.boxes} for {profile.name}",
            file=sys.stderr,
        )
        return 2
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    tally = simulate(profile, args.hands, args.seed, jobs, args.boxes)
    result = {
        "rules": profile.name,
        "hands": tally.hands,
        "rounds": tally.rounds,
        "seed": args.seed,
        "house_edge_pct": round(tally.house_edge_pct, 4),
        "stderr_pct": round(tally.stderr_pct, 4),
        "hands_per_second": round(tally.hands / tally.seconds) if tally.seconds else 0,
        "jobs": jobs,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{profile.name}: house edge {result['house_edge_pct']:.3f}% "
            f"± {result['stderr_pct']:.3f}% (1 s.e.) over {tally.hands:,} hands "
            f"({tally.rounds:,} rounds), {result['hands_per_second']:,} hands/s with {jobs} "
            f"job{'s' if jobs > 1 else ''}"
        )
    return 0
