"""croupier replay SCRIPT.jsonl [--rules P] [--boxes N]"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any, TextIO

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
    try:
        # Bytes, not text: each line is decoded strictly on its own, so invalid UTF-8 is
        # "line N: ..." (exit 2), not a UnicodeDecodeError out of the file object.
        stream = sys.stdin.buffer if args.script == "-" else open(args.script, "rb")  # noqa: SIM115
    except OSError as exc:
        print(f"croupier replay: cannot read {args.script}: {exc.strerror}", file=sys.stderr)
        return 2
    with stream:
        return play(stream, sys.stdout, sys.stderr, args.rules, args.boxes)


def play(
    lines: Iterable[bytes | str],
    out: TextIO,
    err: TextIO,
    rules: str | None = None,
    boxes: int | None = None,
) -> int:
    """The whole command on a stream: its exit status, settlements on `out`, why on `err`."""
    from controller.replay import ReplayError, Unfinished, replay

    try:
        for outcome in replay(_bounded(lines), rules, boxes):
            print(json.dumps(outcome, ensure_ascii=False), file=out, flush=False)
    except ReplayError as exc:
        out.flush()
        print(str(exc), file=err)
        return 2
    except ProfileError as exc:
        print(f"croupier replay: {exc}", file=err)
        return 2
    except Unfinished as exc:
        out.flush()
        print(f"end of script: {exc}", file=err)
        return 1
    return 0


def _bounded(lines: Iterable[bytes | str]) -> Iterable[bytes | str]:
    """A file's lines, none read past MAX_LINE + 1 bytes: a line without end (a 1 GB
    file with no newline, /dev/zero) is refused at its start, not read into memory."""
    from controller.replay import MAX_LINE

    readline = getattr(lines, "readline", None)
    if readline is None:
        yield from lines
        return
    while True:
        line = readline(MAX_LINE + 1)
        if not line:
            return
        yield line
