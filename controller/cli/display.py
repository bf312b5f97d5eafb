"""croupier display: the pit display, floor overview and dealer's screen in a browser."""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "display",
        help="serve the pit display, the floor overview and the dealer's screen (web pages)",
        description="Serve the reference displays: the pit display (/), the floor overview "
        "(/floor) and the dealer's screen (/dealer). The pages subscribe to the tables' MQTT "
        "contract over WebSockets from the browser; this server only hands out the files. "
        "Each page also takes broker=, tables=, republish= and user= in its URL.",
    )
    parser.add_argument(
        "--broker",
        help="the broker's WebSockets address as the browser reaches it, ws://host:port/ or "
        "wss://host:port/ (default: ws://<this page's host>:9001/, croupier sim's)",
    )
    parser.add_argument(
        "--tables", help="table ids, comma-separated (default: every table on the broker)"
    )
    parser.add_argument("--port", type=int, default=8080, help="HTTP port (8080)")
    parser.add_argument(
        "--bind", default="127.0.0.1", help="address to listen on (127.0.0.1; 0.0.0.0: all)"
    )
    parser.add_argument(
        "--republish",
        action="store_true",
        help="the pages' account may send cmd/republish (a supervisor or recorder): after a gap "
        "they ask the table for the missed messages instead of re-reading the state",
    )
    parser.add_argument("--username", help="broker account; the page asks for its password")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from controller.display.server import DisplayConfig, DisplayError, make_server

    tables = tuple(t.strip() for t in (args.tables or "").split(",") if t.strip())
    try:
        config = DisplayConfig(args.broker, tables, args.republish, args.username)
    except DisplayError as exc:
        print(f"croupier display: {exc}", file=sys.stderr)
        return 2
    try:
        server = make_server(config, args.bind, args.port)
    except OSError as exc:
        print(f"croupier display: cannot listen on {args.bind}:{args.port}: {exc}", file=sys.stderr)
        return 2
    host = "127.0.0.1" if args.bind in ("0.0.0.0", "::") else args.bind
    base = f"http://{host}:{server.port}"
    first = f"?table={tables[0]}" if tables else ""
    print(
        f"pit display      {base}/\nfloor overview   {base}/floor\n"
        f"dealer's screen  {base}/dealer{first}\n"
        f"broker           {config.broker or 'ws://<page host>:9001/'}",
        flush=True,
    )
    # Ctrl-C and a service manager's SIGTERM both end the loop, as they stop the
    # table and the recorder. Set, not left to Python's default: a process
    # started with SIGINT ignored (a script's background job) keeps it ignored.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def _stop(signum: int, frame: object) -> None:
    # Raised in the main thread, inside serve_forever: shutdown() from here
    # would wait for the very loop that called it.
    raise KeyboardInterrupt
