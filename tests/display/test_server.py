"""`croupier display`'s server: the pages, config.json, nothing outside static/,
the headers; the shipped MQTT client is the one the lockfile pins."""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.display.server import STATIC, DisplayConfig, DisplayError, make_server

DISPLAY = STATIC.parent


@pytest.fixture
def server() -> Iterator[str]:
    config = DisplayConfig("ws://127.0.0.1:9001/", ("blue-7", "T2"), republish=True)
    srv = make_server(config, "127.0.0.1", 0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.port}"
    srv.shutdown()
    srv.server_close()


def get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return reply.status, dict(reply.headers), reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_pages_and_config(server: str) -> None:
    for path, marker in (
        ("/", b"js/pit.js"),
        ("/floor", b"js/floor.js"),
        ("/dealer", b"js/dealer.js"),
        ("/floor.html", b"js/floor.js"),
    ):
        status, headers, body = get(server + path + "?tables=blue-7")
        assert status == 200 and marker in body, path
        assert headers["Content-Type"] == "text/html; charset=utf-8"
        policy = headers["Content-Security-Policy"]
        assert "default-src 'self'" in policy and "connect-src 'self' ws: wss:" in policy
    status, headers, body = get(server + "/config.json")
    assert status == 200 and headers["Content-Type"] == "application/json"
    assert json.loads(body) == {
        "broker": "ws://127.0.0.1:9001/",
        "tables": ["blue-7", "T2"],
        "republish": True,
        "username": None,
    }
    status, headers, body = get(server + "/vendor/mqtt.esm.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")
    assert body == (STATIC / "vendor" / "mqtt.esm.js").read_bytes()


@pytest.mark.parametrize(
    "path",
    [
        "/../server.py",
        "/js/../../server.py",
        "/%2e%2e/server.py",
        "/nothing.js",
        "/js/",
        "/..%2fpackage.json",
        "/static/index.html",
    ],
)
def test_nothing_outside_static(server: str, path: str) -> None:
    status, _, body = get(server + path)
    assert status == 404, (path, body[:80])


def test_bad_settings_are_refused() -> None:
    with pytest.raises(DisplayError, match="WebSockets"):
        DisplayConfig("mqtt://127.0.0.1:1883")
    with pytest.raises(DisplayError, match="table id"):
        DisplayConfig(None, ("blue 7",))
    bad = subprocess.run(
        [sys.executable, "-m", "controller", "display", "--tables", "a/#"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and "table 'a/#'" in bad.stderr


def test_pages_load_only_their_own_files() -> None:
    """No CDN, no font service: every URL in the pages is relative."""
    for page in STATIC.rglob("*"):
        if page.suffix in (".html", ".css") or page.parent.name == "js":
            text = page.read_text().replace('"http://www.w3.org/2000/svg"', "")  # a name
            assert "http://" not in text and "https://" not in text and "//cdn" not in text, page


def test_shipped_client_is_the_locked_one() -> None:
    lock = json.loads((DISPLAY / "package-lock.json").read_text())
    pinned = lock["packages"]["node_modules/mqtt"]["version"]
    manifest = (STATIC / "vendor" / "VERSION").read_text().splitlines()
    assert manifest[0].startswith(f"mqtt {pinned} (npm)")
    digest = hashlib.sha256((STATIC / "vendor" / "mqtt.esm.js").read_bytes()).hexdigest()
    assert manifest[1] == f"{digest}  mqtt.esm.js"
    assert "MIT License" in (STATIC / "vendor" / "mqtt.LICENSE.md").read_text()
    package = json.loads((DISPLAY / "package.json").read_text())
    assert package["dependencies"] == {"mqtt": pinned}


def test_static_files_are_package_data() -> None:
    """Every file the pages need is declared, so an installed croupier serves them."""
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    for path in STATIC.rglob("*"):
        if path.is_file():
            folder = path.parent.relative_to(STATIC.parents[1]).as_posix()
            pattern = f'"{folder}/*{path.suffix if folder.endswith("static") else ""}"'
            assert pattern in pyproject, f"{path.name}: add {pattern} to package-data"


UNREACHABLE = ("ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNREFUSED", "ECONNRESET", "ENETUNREACH")


@pytest.mark.slow
def test_shipped_client_rebuilds_from_npm_byte_for_byte() -> None:
    """scripts/vendor-mqtt --check: npm ci from the lockfile, then compare the files."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed: the shipped client cannot be rebuilt here")
    script = Path(__file__).resolve().parents[2] / "scripts" / "vendor-mqtt"
    done = subprocess.run(
        [str(script), "--check"], capture_output=True, text=True, timeout=300, check=False
    )
    if done.returncode != 0 and any(code in done.stderr for code in UNREACHABLE):
        pytest.skip(f"the npm registry is unreachable: {done.stderr.strip()[-300:]}")
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "byte for byte" in done.stdout


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_the_display_stops_on_ctrl_c_and_sigterm_even_with_sigint_ignored(sig: int) -> None:
    """A script's background job starts with SIGINT ignored; Ctrl-C (to the group)
    and a service manager's SIGTERM must still stop the server, cleanly."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "display", "--bind", "127.0.0.1",
         "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline().startswith("pit display")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as page:
            assert page.status == 200
        proc.send_signal(sig)
        assert proc.wait(timeout=10) == 0
        assert "Traceback" not in proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()
