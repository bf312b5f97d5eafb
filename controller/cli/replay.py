"""croupier replay SCRIPT.jsonl [--rules P] [--boxes N]"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from controller.engine.errors import ProfileError


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "replay",
        help="play a round script (JSON lines) through the rules engine",
        description="Play a round script through the rules engine and print one settlement "
        "object (JSON) per round. A refused or malformed line stops the run with exit status 2 "
        "and 'line N: why' on stderr; a script that ends mid-round exits with status 1.",
    )
    parser.add_argument("script", help="round script, JSON lines ('-' for stdin)")
    parser.add_argument("--rules", help="rule profile name or .toml file (overrides the shoe line)")
    parser.add_argument("--boxes", type=int, help="boxes on the layout (overrides the shoe line)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from controller.replay import ReplayError, Unfinished, replay

    try:
        stream = sys.stdin if args.script == "-" else open(args.script, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        print(f"croupier replay: cannot read {args.script}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        with stream:
            for outcome in replay(stream, args.rules, args.boxes):
                print(json.dumps(outcome, ensure_ascii=False), flush=False)
    except ReplayError as exc:
        sys.stdout.flush()
        print(str(exc), file=sys.stderr)
        return 2
    except ProfileError as exc:
        print(f"croupier replay: {exc}", file=sys.stderr)
        return 2
    except Unfinished as exc:
        sys.stdout.flush()
        print(f"end of script: {exc}", file=sys.stderr)
        return 1
    return 0
