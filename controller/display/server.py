"""`croupier display`'s web server: the static pages, and `config.json` with
the broker and tables given on the command line (Python's standard library
only; the pages do all the work in the browser).

Routes: `/` the pit display, `/floor` the floor overview, `/dealer` the
dealer's screen, `/config.json`, and the files under `static/`. Nothing
outside `static/` is ever served.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger("croupier.display")

STATIC = Path(__file__).resolve().parent / "static"
PAGES = {"/": "index.html", "/floor": "floor.html", "/dealer": "dealer.html"}
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".md": "text/plain; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
}
TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
BROKER_URL = re.compile(r"^wss?://[^\s/?#]+(/[^\s?#]*)?$")
# The pages load only their own files and talk only to a WebSockets broker.
POLICY = (
    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; worker-src blob:; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'none'"
)


class DisplayError(ValueError):
    pass


@dataclass(frozen=True)
class DisplayConfig:
    """What the pages get in `config.json`; their URL's query string overrides it."""

    broker: str | None = None  # None: ws://<the page's host>:9001/
    tables: tuple[str, ...] = ()  # empty: every table on the broker
    republish: bool = False  # the account may send cmd/republish (supervisor, recorder)
    username: str | None = None  # the page asks for the password
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.broker is not None and not BROKER_URL.match(self.broker):
            raise DisplayError(
                f"broker {self.broker!r}: a browser reaches MQTT over WebSockets, "
                "give ws://host:port/ or wss://host:port/"
            )
        for table in self.tables:
            if not TABLE_ID.match(table):
                raise DisplayError(
                    f"table {table!r}: a table id is 1 to 32 letters, digits, '-' or '_'"
                )

    def json(self) -> bytes:
        body: dict[str, Any] = {
            "broker": self.broker,
            "tables": list(self.tables),
            "republish": self.republish,
            "username": self.username,
            **self.extra,
        }
        return json.dumps(body).encode()


def resolve(path: str, root: Path = STATIC) -> Path | None:
    """The file a URL path names under `root`, or None (missing, or outside it)."""
    name = PAGES.get(path, path.lstrip("/"))
    if not name or len(name) > 255 or "\\" in name or "\0" in name:
        return None
    try:
        candidate = (root / name).resolve()
        if not candidate.is_relative_to(root) or not candidate.is_file():
            return None
    except (OSError, ValueError):  # a name the file system refuses (too long, ...) is no file
        return None
    return candidate


class Handler(BaseHTTPRequestHandler):
    server: DisplayServer
    server_version = "croupier-display"
    sys_version = ""
    # No HTTP/0.9: a request without a version (or with a broken one) gets a status line
    # and headers like any other, not a bare body a browser or proxy cannot tell from data.
    default_request_version = "HTTP/1.0"

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def _answer(self, body: bool) -> None:
        path = urlsplit(self.path).path
        if path == "/config.json":
            self._send(HTTPStatus.OK, TYPES[".json"], self.server.config.json(), body)
            return
        found = resolve(path)
        if found is None:
            self._send(HTTPStatus.NOT_FOUND, TYPES[".txt"], b"not found\n", body)
            return
        kind = TYPES.get(found.suffix, "application/octet-stream")
        self._send(HTTPStatus.OK, kind, found.read_bytes(), body)

    def _send(self, status: HTTPStatus, kind: str, data: bytes, body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Security-Policy", POLICY)
        self.end_headers()
        if body:
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)


class DisplayServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], config: DisplayConfig) -> None:
        self.config = config
        super().__init__(address, Handler)

    @property
    def port(self) -> int:
        port: int = self.server_address[1]
        return port


def make_server(config: DisplayConfig, host: str = "127.0.0.1", port: int = 8080) -> DisplayServer:
    return DisplayServer((host, port), config)
