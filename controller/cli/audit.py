"""croupier audit ...: the table's record, checked and read back."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    group: argparse.ArgumentParser = subparsers.add_parser(
        "audit", help="check the table's journal and read its audit trail"
    )
    sub = group.add_subparsers(dest="audit_command", metavar="TOOL")
    sub.required = True
    verify = sub.add_parser(
        "verify",
        help="check the journal's hash chain: edited, removed or reordered records",
        description="Read STATE_DIR's journal (read-only; the table may be running) and check "
        "that every record links to the one before it. Exit status: 0 intact, 1 tampered "
        "(each problem is listed with its seq), 2 cannot read.",
    )
    verify.add_argument("state_dir", type=Path, metavar="STATE_DIR")
    verify.set_defaults(handler=run_verify)
    trail = sub.add_parser(
        "trail",
        help="the pit commands the table took: who, what, when, before and after",
        description="Replay STATE_DIR's journal in a copy (read-only) and print each pit "
        "command's audit record as a JSON line, as the table published it on `events`.",
    )
    trail.add_argument("state_dir", type=Path, metavar="STATE_DIR")
    trail.set_defaults(handler=run_trail, kinds=("audit",), full=False)
    events = sub.add_parser(
        "events",
        help="every event the journal makes, optionally with the hidden cards (surveillance)",
        description="Replay STATE_DIR's journal in a copy (read-only) and print every `events` "
        "message as a JSON line. With --full, the surveillance view: burned cards, hole "
        "cards and face-down cards shown from the moment they were dealt. The state dir "
        "holds them anyway; keep the output as protected as the state dir.",
    )
    events.add_argument("state_dir", type=Path, metavar="STATE_DIR")
    events.add_argument("--full", action="store_true", help="show hidden cards")
    events.set_defaults(handler=run_trail, kinds=None)
    software = sub.add_parser(
        "software",
        help="SHA-256 of every installed file of croupier, checked against its RECORD",
        description="Hash every file of the installed croupier distribution, print each "
        "SHA-256 with its path, and check it against the distribution's RECORD (what the "
        "installer wrote from the released wheel); files added beside the package are "
        "named too. Exit status: 0 intact, 1 a file differs, is missing or was added (each "
        "named), 2 cannot verify (not installed, or an editable install of a checkout).",
    )
    software.set_defaults(handler=run_software)


def run_verify(args: argparse.Namespace) -> int:
    from controller.audit import Unreadable, report, verify

    try:
        verdict = verify(args.state_dir)
    except Unreadable as exc:
        print(f"croupier audit verify: cannot verify: {exc}", file=sys.stderr)
        return 2
    print(report(verdict))
    return 0 if verdict.intact else 1


def run_trail(args: argparse.Namespace) -> int:
    import json
    import logging

    # The replay says again what the table logged as it went (alerts): not news here.
    logging.getLogger("croupier").setLevel(logging.ERROR)
    from controller.audit import Unreadable, replay
    from controller.config import ConfigError

    try:
        messages = replay(args.state_dir, full=args.full)
    except (Unreadable, ConfigError) as exc:
        print(f"croupier audit: cannot read: {exc}", file=sys.stderr)
        return 2
    for topic, payload in messages:
        if topic == "events" and (args.kinds is None or payload["type"] in args.kinds):
            print(json.dumps(payload, ensure_ascii=False))
    return 0


def run_software(args: argparse.Namespace) -> int:
    from importlib import metadata

    from controller.software import check, report

    try:
        verdict = check()
    except metadata.PackageNotFoundError:
        print("croupier audit software: croupier is not installed here", file=sys.stderr)
        return 2
    print(report(verdict))
    if verdict.editable:
        return 2
    return 0 if verdict.intact else 1
