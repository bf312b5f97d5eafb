"""`python -m tests.docs.parse_only COMMAND...`: the command's arguments,
checked by the command's own argparse parser, and nothing run.

For the documented commands that take minutes (benchmarks) or hardware (a
serial port, a camera): a renamed or removed option still fails here. Exit
0 when its parser accepts them, 2 (argparse's message) when it does not, 3
when the command never parsed any arguments.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
from typing import Any, NoReturn

_parse_args = argparse.ArgumentParser.parse_args


def _accept(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> NoReturn:
    _parse_args(self, *args, **kwargs)  # exits 2 with the parser's message when wrong
    print(f"{self.prog}: arguments accepted", flush=True)
    os._exit(0)


def main(argv: list[str]) -> int:
    argparse.ArgumentParser.parse_args = _accept  # type: ignore[method-assign]
    if argv and argv[0] in ("croupier", "scripts/run"):
        from controller.cli import main as croupier

        croupier(argv[1:] or ["sim"])  # scripts/run alone is croupier sim
    elif len(argv) > 2 and argv[0] in ("python", "python3") and argv[1] == "-m":
        sys.argv = [argv[2], *argv[3:]]
        runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
    else:
        print(f"cannot check {argv[:1]}: only croupier, scripts/run and python -m", file=sys.stderr)
        return 3
    print(f"{' '.join(argv)}: never parsed its arguments", file=sys.stderr)
    return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
