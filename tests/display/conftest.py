"""Fixtures for the browser tests: a broker with a WebSockets listener on free
ports, headless Chromium (Debian's, driven by Selenium through Debian's
chromedriver), and `croupier display` serving the pages.

The broker is Debian's mosquitto (`.ci/run` installs it), else the embedded
amqtt broker in a process of its own. Without chromium and chromium-driver
(`.ci/run` installs them too) the browser tests skip and say why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.service.conftest import BrokerProcess, free_port, subscribe, wait_port

__all__ = ["subscribe"]  # the service tests' subscriber fixture, for these tests too

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
)


class WsBroker(BrokerProcess):
    """A broker with MQTT on `port` and MQTT over WebSockets on `ws_port`."""

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        self.ws_port = free_port()
        self.listeners = (
            f"listener {self.port} 127.0.0.1\n"
            f"listener {self.ws_port} 127.0.0.1\nprotocol websockets\n"
            "allow_anonymous true\n"
        )

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.ws_port}/"

    def _command(self) -> list[str]:
        if self.exe is None:
            return [sys.executable, "-m", "controller.broker", str(self.port), str(self.ws_port)]
        return super()._command()

    def start(self) -> None:
        super().start()
        wait_port(self.ws_port)


@pytest.fixture
def ws_broker(tmp_path: Path) -> Iterator[WsBroker]:
    b = WsBroker(tmp_path)
    b.start()
    yield b
    b.stop()
    b.log.close()


def _tool(name: str) -> str | None:
    return shutil.which(name) or next(
        (p for p in (f"/usr/bin/{name}", f"/usr/lib/chromium/{name}") if os.access(p, os.X_OK)),
        None,
    )


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[dev]'): browser tests skipped")
    chromium, driver_path = _tool("chromium"), _tool("chromedriver")
    if chromium is None or driver_path is None:
        pytest.skip(
            "Debian's chromium and chromium-driver are not installed "
            "(apt-get install chromium chromium-driver, as .ci/run does): browser tests skipped"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tempfile.mkdtemp(prefix='chromium-')}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_script_timeout(10)
    try:
        yield driver
    finally:
        driver.quit()


class DisplayProcess:
    """`croupier display` as the pit runs it, in a process of its own."""

    def __init__(self, log: Path, *args: str) -> None:
        self.port = free_port()
        self.log = open(log, "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller", "display", "--port", str(self.port), *args],
            stdout=self.log,
            stderr=self.log,
        )
        wait_port(self.port)

    def url(self, page: str = "", **query: str) -> str:
        from urllib.parse import urlencode

        return f"http://127.0.0.1:{self.port}/{page}" + (f"?{urlencode(query)}" if query else "")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.log.close()


@pytest.fixture
def display(tmp_path: Path, ws_broker: WsBroker) -> Iterator[DisplayProcess]:
    d = DisplayProcess(tmp_path / "display.log", "--broker", ws_broker.ws_url)
    yield d
    d.stop()


class Page:
    """What a test asks of the page in the browser: waits, with the page's text on failure."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver

    def open(self, url: str) -> None:
        self.driver.get(url)
        self.until("document.getElementById('link').dataset.link === 'up'", 15, "the broker link")

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def until(self, expression: str, timeout: float, what: str, *args: Any) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.js(f"return ({expression});", *args)
            if value:
                return value
            time.sleep(0.1)
        text = self.js("return document.body.innerText;")[:1500]
        logs = [e["message"][:300] for e in self.driver.get_log("browser")][-10:]
        raise AssertionError(f"timed out after {timeout}s waiting for {what}\n{text}\n{logs}")

    def screenshot(self, tmp: Path, name: str) -> None:
        """Kept with the test's files; also in CROUPIER_SCREENSHOTS (docs/) when set."""
        self.driver.save_screenshot(str(tmp / f"{name}.png"))
        target = os.environ.get("CROUPIER_SCREENSHOTS")
        if target:
            self.driver.save_screenshot(str(Path(target) / f"{name}.png"))


@pytest.fixture
def page(browser: Any) -> Page:
    return Page(browser)
