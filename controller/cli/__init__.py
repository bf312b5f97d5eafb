"""The `croupier` command. Each subcommand lives in its own module here and
registers itself through `register(subparsers)`; this file only wires them."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from controller import __version__

# Module names under controller.cli, in the order `croupier --help` lists them.
SUBCOMMANDS = (
    "run",
    "sim",
    "display",
    "replay",
    "rules",
    "simulate",
    "edge",
    "vision",
    "calibrate",
    "check_config",
    "audit",
    "recorder",
    "floor",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="croupier", description="Runs a blackjack table: rules engine, drivers, MQTT."
    )
    parser.add_argument("--version", action="version", version=f"croupier {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in SUBCOMMANDS:
        importlib.import_module(f"controller.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.handler(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `croupier replay ... | head` closes stdout early; that is not an error.
        sys.stderr.close()
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
