"""croupier recorder: every table's stream into the floor's PostgreSQL."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "recorder",
        help="record every table's events, outcomes and alerts in PostgreSQL (the floor)",
        description="Subscribe to every table under croupier/v1/ (a `recorder` account) and "
        "write their events, outcomes and alerts into PostgreSQL, each message once; holes "
        "in a table's seq are asked for again with cmd/republish. A message is acknowledged "
        "to the broker only once committed. Creates or upgrades the schema at start. The "
        "database password: PGPASSWORD or ~/.pgpass, not the URL (ps shows it).",
    )
    parser.add_argument("--broker", required=True, help="mqtt://host:port, mqtts://, ws://, wss://")
    parser.add_argument("--db", required=True, help="postgresql://user@host:port/dbname")
    parser.add_argument("--username", help="the broker account (role recorder)")
    parser.add_argument(
        "--password-file",
        type=Path,
        help="a file holding the broker password (one line); else CROUPIER_MQTT_PASSWORD",
    )
    parser.add_argument(
        "--client-id",
        help="MQTT client id: fixed, so the broker keeps what comes while the recorder is "
        "away (default croupier-recorder-<host name>; a second recorder needs its own)",
    )
    parser.add_argument("--ca-file", type=Path, help="CA certificate for mqtts:// or wss://")
    parser.add_argument("--cert-file", type=Path, help="client certificate (TLS)")
    parser.add_argument("--key-file", type=Path, help="client key (TLS)")
    parser.add_argument("--log-level", choices=("debug", "info", "warning", "error"),
                        default="info")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from controller import logs
    from controller.config import broker_address
    from controller.floor.recorder import Recorder, Settings
    from controller.floor.schema import FloorDbError, psycopg_module

    logs.setup(args.log_level, None)
    try:
        psycopg_module()
        address = broker_address(args.broker)
        password = _password(args.password_file, args.username)
    except (FloorDbError, ValueError, OSError) as exc:
        print(f"croupier recorder: {exc}", file=sys.stderr)
        return 2
    settings = Settings(
        broker=address,
        db=args.db,
        client_id=args.client_id or f"croupier-recorder-{socket.gethostname()}",
        username=args.username,
        password=password,
        ca_file=str(args.ca_file) if args.ca_file else None,
        cert_file=str(args.cert_file) if args.cert_file else None,
        key_file=str(args.key_file) if args.key_file else None,
        console=args.client_id or "croupier-recorder",
    )
    recorder = Recorder(settings)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: recorder.stop())
    try:
        recorder.run()
    except FloorDbError as exc:
        print(f"croupier recorder: {exc}", file=sys.stderr)
        return 1
    return 0


def _password(path: Path | None, username: str | None) -> str | None:
    if path is None:
        return os.environ.get("CROUPIER_MQTT_PASSWORD") if username else None
    try:
        return path.read_text().strip()
    except OSError as exc:
        raise OSError(f"--password-file {path}: {exc.strerror}") from None
