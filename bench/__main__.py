"""python -m bench [NAME] [ARGS...]: run one benchmark (default: engine)."""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = (
    "engine", "vision", "vision_tail", "service", "drivers", "soak",
    "surveillance", "vision_photos", "vision_oof", "vision_unseen", "vision_adapt", "pace", "fuzz",
    "storage",
    "edge",
    "floor",
)


def main() -> None:
    args = sys.argv[1:]
    name = args.pop(0) if args and not args[0].startswith("-") else "engine"
    if name not in BENCHMARKS:
        sys.exit(f"unknown benchmark {name!r}: choose from {', '.join(BENCHMARKS)}")
    status = importlib.import_module(f"bench.{name}").main(args)
    sys.exit(status or 0)


if __name__ == "__main__":
    main()
