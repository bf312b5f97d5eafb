"""croupier floor ...: the floor's record in PostgreSQL, read back."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    group: argparse.ArgumentParser = subparsers.add_parser(
        "floor", help="the floor's record (PostgreSQL): report, schema, check against a table"
    )
    sub = group.add_subparsers(dest="floor_command", metavar="TOOL")
    sub.required = True
    report = sub.add_parser(
        "report",
        help="per table and shift: rounds, pace, hold, alerts, corrections (CSV)",
        description="Read the floor_table_shifts view and print it as CSV: per table and "
        "shift, rounds, voided rounds, rounds per hour, dropped (stakes), won (house net), "
        "hold, alerts by kind, unreadable cards, mistaken cards and card corrections. "
        "Shifts and their time zone are the rows of floor_shifts and floor_settings.",
    )
    report.add_argument("--db", required=True, help="postgresql://user@host:port/dbname")
    report.add_argument("--since", help="first shift day, YYYY-MM-DD")
    report.add_argument("--until", help="last shift day, YYYY-MM-DD")
    report.add_argument("--table", action="append", default=[], help="only this table (repeat)")
    report.add_argument("--out", type=Path, help="write the CSV here (default: stdout)")
    report.set_defaults(handler=run_report)
    migrate = sub.add_parser(
        "migrate", help="create or upgrade the floor schema (the recorder does it at start)"
    )
    migrate.add_argument("--db", required=True)
    migrate.set_defaults(handler=run_migrate)
    check = sub.add_parser(
        "check",
        help="compare the floor's record of tables with their own journals",
        description="For each STATE_DIR (a table's state dir, read-only), replay its journal "
        "as `croupier audit events` does and compare every events message, outcome and "
        "alert with the floor database's rows for that table: each once, equal. Exit "
        "status 0 equal, 1 a difference (each listed), 2 cannot read.",
    )
    check.add_argument("--db", required=True)
    check.add_argument("state_dirs", type=Path, nargs="+", metavar="STATE_DIR")
    check.set_defaults(handler=run_check)


def run_report(args: argparse.Namespace) -> int:
    from controller.floor.report import ReportError, write_csv
    from controller.floor.schema import FloorDbError, connect

    try:
        conn = connect(args.db)
        out = args.out.open("w", newline="") if args.out else sys.stdout
        try:
            rows = write_csv(conn, out, args.since, args.until, args.table)
        finally:
            if args.out:
                out.close()
            conn.close()
    except (FloorDbError, ReportError, OSError) as exc:
        print(f"croupier floor report: {exc}", file=sys.stderr)
        return 2
    if args.out:
        print(f"{rows} rows written to {args.out}", file=sys.stderr)
    return 0


def run_migrate(args: argparse.Namespace) -> int:
    from controller.floor.schema import FloorDbError, connect, migrate

    try:
        conn = connect(args.db)
        applied = migrate(conn)
        conn.close()
    except FloorDbError as exc:
        print(f"croupier floor migrate: {exc}", file=sys.stderr)
        return 2
    print(f"applied {applied}" if applied else "the schema is up to date")
    return 0


def run_check(args: argparse.Namespace) -> int:
    import logging

    logging.getLogger("croupier").setLevel(logging.ERROR)  # the replay's alerts: not news
    from controller.audit import Unreadable
    from controller.config import ConfigError
    from controller.floor.compare import compare
    from controller.floor.schema import FloorDbError, connect

    status = 0
    try:
        conn = connect(args.db)
        for state_dir in args.state_dirs:
            verdict = compare(conn, state_dir)
            print(verdict.line())
            for problem in verdict.problems[:20]:
                print(f"  {problem}")
            if verdict.problems:
                status = 1
        conn.close()
    except (FloorDbError, Unreadable, ConfigError) as exc:
        print(f"croupier floor check: cannot read: {exc}", file=sys.stderr)
        return 2
    return status
