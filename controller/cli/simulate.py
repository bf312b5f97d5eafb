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
        "on --rules, --hands, --seed, --boxes and --shuffle, not on --jobs or --engine.",
    )
    parser.add_argument("--rules", required=True, help="profile name or .toml file")
    parser.add_argument("--hands", type=int, default=1_000_000, help="initial hands to play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--boxes", type=int, help="boxes played each round (default: the fewest the rules allow)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (0: one per CPU)")
    parser.add_argument(
        "--engine",
        choices=("auto", "native", "python"),
        default="auto",
        help="native: the engine compiled by mypyc (sim/native.py), the same results "
        "about 2.7x faster, built once into a cache; python: as imported; auto: native "
        f"when it is built, or can be and the run is {AUTO_BUILD:,} hands or more",
    )
    parser.add_argument(
        "--shuffle",
        choices=("cut", "round"),
        default="cut",
        help="cut: shuffle when the cut card comes out, as at the table; round: every card "
        "back before each round (a continuous shuffler), each round off the top of a full "
        "shoe as `croupier edge` prices it",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object instead of text")
    parser.set_defaults(handler=run)


AUTO_BUILD = 2_000_000  # hands: a run long enough to pay for building the native engine


def _engine(choice: str, hands: int) -> tuple[str, str | None]:
    """("native" or "python", why auto chose python)."""
    from sim import native

    if choice != "auto":
        return choice, None
    if native.built() is not None:
        return "native", None
    missing = native.buildable()
    if missing:
        return "python", f"the compiled engine is not built and cannot be: {missing}"
    if hands < AUTO_BUILD:
        return "python", None
    return "native", None


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
    engine, why = _engine(args.engine, args.hands)
    if why and args.hands >= AUTO_BUILD:
        print(f"croupier simulate: the python engine: {why}", file=sys.stderr)
    runner = None
    if engine == "native":
        from sim.native import NativeUnavailable
        from sim.native import runner as native_runner

        try:
            runner = native_runner(jobs)
        except NativeUnavailable as exc:
            print(f"croupier simulate: {exc}", file=sys.stderr)
            return 2
    tally = simulate(profile, args.hands, args.seed, jobs, args.boxes, args.shuffle, runner)
    result = {
        "rules": profile.name,
        "hands": tally.hands,
        "rounds": tally.rounds,
        "seed": args.seed,
        "house_edge_pct": round(tally.house_edge_pct, 4),
        "stderr_pct": round(tally.stderr_pct, 4),
        "hands_per_second": round(tally.hands / tally.seconds) if tally.seconds else 0,
        "jobs": jobs,
        "engine": engine,
        "shuffle": args.shuffle,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{profile.name}: house edge {result['house_edge_pct']:.3f}% "
            f"± {result['stderr_pct']:.3f}% (1 s.e.) over {tally.hands:,} hands "
            f"({tally.rounds:,} rounds), {result['hands_per_second']:,} hands/s with {jobs} "
            f"job{'s' if jobs > 1 else ''} ({engine} engine)"
        )
    return 0
