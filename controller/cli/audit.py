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


def run_verify(args: argparse.Namespace) -> int:
    from controller.audit import Unreadable, report, verify

    try:
        verdict = verify(args.state_dir)
    except Unreadable as exc:
        print(f"croupier audit verify: cannot verify: {exc}", file=sys.stderr)
        return 2
    print(report(verdict))
    return 0 if verdict.intact else 1
