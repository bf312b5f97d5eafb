"""croupier check-config FILE"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "check-config",
        help="check a table configuration file (TOML) without starting anything",
        description="Read FILE and check every section and key. Prints a summary and exits 0, "
        "or prints each problem as 'FILE: key: what is wrong' and exits 2.",
    )
    parser.add_argument("file", type=Path)
    parser.set_defaults(handler=run)


def summary(path: Path) -> str:
    from controller.config import load

    c = load(path)
    broker = c.mqtt.broker or (
        f"embedded {c.mqtt.embedded.host}:{c.mqtt.embedded.port}"
        + (f" (WebSockets {c.mqtt.embedded.ws_port})" if c.mqtt.embedded.ws_port else "")
    )
    boxes = c.table.boxes or "profile's"
    return (
        f"{path}: ok: table {c.table.id}, rules {c.table.rules}, {boxes} boxes, "
        f"state in {c.state.dir} (fsync {'on' if c.state.fsync else 'off'}), broker {broker}"
    )


def run(args: argparse.Namespace) -> int:
    from controller.config import ConfigError

    try:
        print(summary(args.file))
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0
