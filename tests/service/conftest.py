"""Fixtures for the service tests: a real MQTT broker on a free port, a
subscriber that validates every message against the contract's schemas, and
`croupier sim` run as a separate process (so it can be killed with -9).

The broker is Debian's mosquitto (`.ci/run` installs it). When it is absent
and cannot be installed, the tests run on the embedded amqtt broker in a
process of its own and say so with a warning; tests that need mosquitto's
features (persistent sessions across a broker restart) are skipped with
that reason.
"""

from __future__ import annotations

import getpass
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tests.service.contract import validate

ROOT = "croupier/v1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def mosquitto_path() -> str | None:
    found = shutil.which("mosquitto")
    if found:
        return found
    return "/usr/sbin/mosquitto" if os.access("/usr/sbin/mosquitto", os.X_OK) else None


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


class BrokerProcess:
    """A broker in its own process, which a test can stop and start again."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.exe = mosquitto_path()
        self.kind = "mosquitto" if self.exe else "amqtt"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = open(workdir / f"{self.kind}.log", "ab")  # noqa: SIM115

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def _command(self) -> list[str]:
        if self.exe is None:
            return [sys.executable, "-m", "controller.broker", str(self.port)]
        conf = self.workdir / "mosquitto.conf"
        data = self.workdir / "data"
        data.mkdir(exist_ok=True)
        conf.write_text(
            f"listener {self.port} 127.0.0.1\n"
            "allow_anonymous true\n"
            "persistence true\n"
            f"persistence_location {data}/\n"
            "max_queued_messages 100000\n"
            "log_dest stderr\n"
            # Started as root, mosquitto drops to the 'mosquitto' user, which cannot
            # write our temp dir: it would then lose its persistence file silently.
            f"user {getpass.getuser()}\n"
        )
        return [self.exe, "-c", str(conf)]

    def start(self) -> None:
        self.proc = subprocess.Popen(self._command(), stdout=self.log, stderr=self.log)
        wait_port(self.port)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # mosquitto saves its sessions on the way out
            self.proc.wait(timeout=10)
        self.proc = None


@pytest.fixture(scope="session")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    b = BrokerProcess(tmp_path_factory.mktemp("broker"))
    if b.kind != "mosquitto":
        warnings.warn(
            "mosquitto is not installed (apt-get install mosquitto, as .ci/run does): "
            "the broker tests run on the embedded amqtt broker instead",
            stacklevel=1,
        )
    b.start()
    yield b
    b.stop()
    b.log.close()


@pytest.fixture
def fresh_broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    """A broker of the test's own (for tests that stop it)."""
    b = BrokerProcess(tmp_path)
    b.start()
    yield b
    b.stop()
    b.log.close()


@dataclass
class Received:
    topic: str  # below croupier/v1/<table>/
    payload: dict[str, Any]
    retain: bool


class Subscriber:
    """A display: subscribes to a table's topics and checks every message's schema."""

    def __init__(
        self,
        port: int,
        table: str,
        client_id: str | None = None,
        clean: bool = True,
        topics: str = "#",
    ) -> None:
        self.table = table
        self.prefix = f"{ROOT}/{table}/"
        self.messages: list[Received] = []
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.connected = threading.Event()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id or "", clean_session=clean
        )
        self.client.reconnect_delay_set(0.2, 1)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.topics = topics
        self.client.connect("127.0.0.1", port, keepalive=10)
        self.client.loop_start()
        assert self.connected.wait(10), "the subscriber could not connect"

    def _on_connect(self, client: mqtt.Client, *args: Any) -> None:
        client.subscribe(self.prefix + self.topics, qos=1)
        self.connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            topic = msg.topic.removeprefix(self.prefix)
            if topic.startswith("cmd/") and not topic.endswith("/response"):
                return  # requests, ours or another display's
            payload = json.loads(msg.payload)
            validate(topic, payload)
            with self.lock:
                self.messages.append(Received(topic, payload, bool(msg.retain)))
        except Exception as exc:  # an assertion in a paho thread would be lost
            with self.lock:
                self.errors.append(f"{msg.topic}: {exc!r}"[:2000])

    def on(self, topic: str) -> list[Received]:
        with self.lock:
            return [m for m in self.messages if m.topic == topic]

    def wait_for(self, check: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check():
                return
            time.sleep(0.05)
        raise AssertionError(f"timed out after {timeout}s waiting for {what}")

    def publish(self, topic: str, payload: dict[str, Any]) -> None:
        self.client.publish(self.prefix + topic, json.dumps(payload), qos=1)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        assert not self.errors, "messages broke the contract:\n" + "\n".join(self.errors[:5])


@pytest.fixture
def subscribe() -> Iterator[Callable[..., Subscriber]]:
    made: list[Subscriber] = []

    def make(*args: Any, **kwargs: Any) -> Subscriber:
        s = Subscriber(*args, **kwargs)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()


def sim_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "controller", "sim", "--no-view", "--log-level", "warning", *args]


def start_sim(*args: str, log: Path | None = None) -> subprocess.Popen[bytes]:
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115
    return subprocess.Popen(sim_command(*args), stdout=out, stderr=out)


def outcomes_by_id(sub: Subscriber) -> dict[str, list[dict[str, Any]]]:
    seen: dict[str, list[dict[str, Any]]] = {}
    for m in sub.on("outcome"):
        seen.setdefault(m.payload["outcome_id"], []).append(m.payload)
    return seen
