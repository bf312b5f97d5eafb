"""A real mosquitto with the shipped croupier configuration, for the deploy tests.

The broker runs from the files install.sh installs (systemd/mosquitto/*.conf),
with only the paths and port numbers replaced; its accounts and ACL are made
by the shipped `croupier-broker` from the shipped roles. A throw-away
certificate authority (and a rogue one) is made with openssl for each run.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "systemd" / "mosquitto"
BROKER_TOOL = REPO / "systemd" / "croupier-broker"
PROD_DIR = "/etc/mosquitto/croupier/"
TIMEOUT = 5.0  # for what must happen
QUIET = 0.3  # extra wait after a positive control, before concluding "nothing came"


def need(tool: str, package: str) -> str:
    path = shutil.which(tool) or next(
        (p for p in (f"/usr/sbin/{tool}", f"/usr/bin/{tool}") if os.access(p, os.X_OK)), None
    )
    if path is None:
        pytest.skip(f"{tool} is not installed (Debian package {package}): broker tests skipped")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def run(*args: str | Path, stdin: str | None = None, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args], input=stdin, capture_output=True, text=True, cwd=cwd, check=False
    )
    if done.returncode != 0:
        raise AssertionError(f"{args[0]} failed ({done.returncode}): {done.stderr}{done.stdout}")
    return done.stderr + done.stdout


# ---------------------------------------------------------------- certificates
@dataclass(frozen=True)
class Pki:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path  # signed by `ca`
    client_key: Path
    rogue_ca: Path  # another CA nobody here trusts
    rogue_cert: Path  # a client certificate signed by the rogue CA
    rogue_key: Path


def make_pki(where: Path) -> Pki:
    openssl = need("openssl", "openssl")
    where.mkdir(parents=True, exist_ok=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2"]

    def ca(name: str) -> tuple[Path, Path]:
        crt, key = where / f"{name}.crt", where / f"{name}.key"
        run(openssl, "req", "-x509", *ec, "-keyout", key, "-out", crt, "-subj", f"/CN={name}")
        return crt, key

    def leaf(name: str, signer: tuple[Path, Path], *ext: str) -> tuple[Path, Path]:
        crt, key = where / f"{name}.crt", where / f"{name}.key"
        extra = [a for e in ("basicConstraints=critical,CA:FALSE", *ext) for a in ("-addext", e)]
        run(
            openssl,
            "req",
            "-x509",
            *ec,
            "-keyout",
            key,
            "-out",
            crt,
            "-subj",
            f"/CN={name}",
            "-CA",
            signer[0],
            "-CAkey",
            signer[1],
            *extra,
        )
        return crt, key

    good, rogue = ca("casino-ca"), ca("rogue-ca")
    server = leaf("broker", good, "subjectAltName=DNS:localhost,IP:127.0.0.1")
    client = leaf("floor-client", good)
    stray = leaf("stray-client", rogue)
    return Pki(good[0], *server, *client, rogue[0], *stray)


# ---------------------------------------------------------------- the broker
ACCOUNTS = {  # name: (role, table or None)
    "table-T1": ("table", "T1"),
    "table-T2": ("table", "T2"),
    "pit-display": ("display", None),
    "anna": ("supervisor", None),
    "bob": ("supervisor", "T1"),
    "eye": ("surveillance", None),
    "archive": ("recorder", None),
}


def password(name: str) -> str:
    return f"{name}-secret-0123"


@dataclass
class Broker:
    base: Path
    tcp: int
    tls: int
    wss: int
    pki: Pki
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


def templated(conf: Path, croupier_dir: Path, ports: dict[str, str]) -> str:
    """A shipped or installed mosquitto conf file with test paths and ports."""
    text = conf.read_text()
    assert PROD_DIR in text, f"{conf.name} no longer uses {PROD_DIR}: update the test's templating"
    text = text.replace(PROD_DIR, f"{croupier_dir}/")
    for shipped, ours in ports.items():
        assert text.count(shipped) == 1, f"{conf.name}: expected one {shipped!r}"
        text = text.replace(shipped, ours)
    return text


def _wait_listening(process: subprocess.Popen[bytes], ports: list[int], log: Path) -> None:
    deadline = time.monotonic() + 10
    pending = list(ports)
    while pending:
        if process.poll() is not None:
            raise AssertionError(f"mosquitto exited ({process.returncode}):\n{log.read_text()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"mosquitto not listening on {pending}:\n{log.read_text()}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", pending[0])) == 0:
                pending.pop(0)
                continue
        time.sleep(0.05)


@contextlib.contextmanager
def mosquitto(base: Path, confs: dict[str, str], ports: list[int]) -> Iterator[Path]:
    """Run mosquitto with `confs` (name: text) in conf.d under a main file like
    Debian's; yields its log file once every port listens."""
    binary = need("mosquitto", "mosquitto")
    conf_d = base / "conf.d"
    conf_d.mkdir(exist_ok=True)  # a second start on the same base keeps its state
    for name, text in confs.items():
        (conf_d / name).write_text(text)
    lib = base / "lib"
    lib.mkdir(exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(lib, user="mosquitto")
    # What Debian's /etc/mosquitto/mosquitto.conf sets, with our paths.
    main = base / "mosquitto.conf"
    main.write_text(
        f"persistence true\npersistence_location {lib}/\nlog_dest stderr\ninclude_dir {conf_d}\n"
    )
    log = base / "mosquitto.log"
    with log.open("ab") as out:
        process = subprocess.Popen([binary, "-c", str(main)], stdout=out, stderr=out)
    try:
        _wait_listening(process, ports, log)
        yield log
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def scratch_dir() -> Iterator[Path]:
    """Not pytest's tmp_path: when the tests run as root, mosquitto drops to the
    `mosquitto` user, which must be able to reach the files (as on the Pi)."""
    base = Path(tempfile.mkdtemp(prefix="croupier-broker-"))
    base.chmod(0o755)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def broker_files(base: Path) -> tuple[Pki, Path]:
    """Certificates and the accounts of ACCOUNTS under `base`; returns the PKI
    and the directory that stands for /etc/mosquitto/croupier."""
    need("mosquitto_passwd", "mosquitto")
    pki = make_pki(base / "pki")
    croupier = base / "croupier"
    certs = croupier / "certs"
    certs.mkdir(parents=True)
    for src, dst in (
        (pki.ca, "ca.crt"),
        (pki.server_cert, "broker.crt"),
        (pki.server_key, "broker.key"),
    ):
        shutil.copy(src, certs / dst)
    (certs / "broker.key").chmod(0o640)
    for path in (croupier, certs, base / "pki"):
        path.chmod(0o750)
    for path in (croupier, certs, certs / "broker.key"):
        _give_to_mosquitto_group(path)
    for name, (role, table) in ACCOUNTS.items():
        run(
            "bash",
            BROKER_TOOL,
            "--dir",
            croupier,
            "--roles",
            SHIPPED / "roles.acl",
            "--no-reload",
            "add",
            role,
            name,
            *([table] if table else []),
            stdin=password(name) + "\n",
        )
    return pki, croupier


@contextlib.contextmanager
def broker_process(
    base: Path, pki: Pki, croupier: Path, ports: tuple[int, int, int]
) -> Iterator[Broker]:
    """The shipped 10- and 20- confs on `ports` (local TCP, TLS, WebSockets)."""
    tcp, tls, wss = ports
    confs = {
        "10-croupier.conf": templated(
            SHIPPED / "10-croupier.conf",
            croupier,
            {"listener 1883 127.0.0.1": f"listener {tcp} 127.0.0.1"},
        ),
        "20-croupier-floor.conf": templated(
            SHIPPED / "20-croupier-floor.conf",
            croupier,
            {"listener 8883\n": f"listener {tls}\n", "listener 9443\n": f"listener {wss}\n"},
        ),
    }
    with mosquitto(base, confs, [tcp, tls, wss]) as log:
        yield Broker(base, tcp, tls, wss, pki, log)


@contextlib.contextmanager
def running_broker() -> Iterator[Broker]:
    need("mosquitto", "mosquitto")
    with scratch_dir() as base:
        pki, croupier = broker_files(base)
        ports = (free_port(), free_port(), free_port())
        with broker_process(base, pki, croupier, ports) as broker:
            yield broker


def _give_to_mosquitto_group(path: Path) -> None:
    if os.geteuid() == 0:
        shutil.chown(path, group="mosquitto")


# ---------------------------------------------------------------- clients
@dataclass(frozen=True)
class Tls:
    ca: Path
    cert: Path | None = None
    key: Path | None = None


class Peer:
    """One MQTT 3.1.1 client (paho 2.x) that records what it gets."""

    def __init__(
        self,
        port: int,
        username: str | None,
        secret: str | None = None,
        *,
        tls: Tls | None = None,
        websockets: bool = False,
    ) -> None:
        self.name = username or "anonymous"
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"{self.name}-{uuid.uuid4().hex[:8]}",
            transport="websockets" if websockets else "tcp",
        )
        if username is not None:
            self.client.username_pw_set(username, password(username) if secret is None else secret)
        if tls is not None:
            self.client.tls_set(
                ca_certs=str(tls.ca),
                certfile=str(tls.cert) if tls.cert else None,
                keyfile=str(tls.key) if tls.key else None,
                cert_reqs=ssl.CERT_REQUIRED,
            )
        self.port = port
        self.messages: queue.Queue[tuple[str, bytes, bool]] = queue.Queue()
        self.seen: list[tuple[str, bytes, bool]] = []
        self.outcome: queue.Queue[str] = queue.Queue()  # "ok" or why the connection failed
        self._acks: set[int] = set()
        self._subacks: dict[int, list[Any]] = {}
        self._cond = threading.Condition()
        c = self.client
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        c.on_publish = self._on_publish
        c.on_subscribe = self._on_subscribe

    # paho's thread
    def _on_connect(self, client: Any, userdata: Any, flags: Any, rc: Any, props: Any) -> None:
        self.outcome.put("ok" if not rc.is_failure else f"refused: {rc}")

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, rc: Any, props: Any) -> None:
        self.outcome.put(f"disconnected: {rc}")

    def _on_message(self, client: Any, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        self.messages.put((msg.topic, bytes(msg.payload), bool(msg.retain)))

    def _on_publish(self, client: Any, userdata: Any, mid: int, rc: Any, props: Any) -> None:
        with self._cond:
            self._acks.add(mid)
            self._cond.notify_all()

    def _on_subscribe(self, client: Any, userdata: Any, mid: int, codes: Any, props: Any) -> None:
        with self._cond:
            self._subacks[mid] = list(codes)
            self._cond.notify_all()

    # the test's side
    def attempt(self) -> str:
        """Connect: "ok", or why not (TLS error, refusal, disconnection)."""
        try:
            self.client.connect("127.0.0.1", self.port, keepalive=10)
        except (OSError, ssl.SSLError) as exc:
            return f"error: {exc}"
        self.client.loop_start()
        try:
            return self.outcome.get(timeout=TIMEOUT)
        except queue.Empty:
            return "no answer"

    def connect(self) -> Peer:
        result = self.attempt()
        assert result == "ok", f"{self.name} could not connect: {result}"
        return self

    def subscribe(self, topic: str) -> None:
        rc, mid = self.client.subscribe(topic, qos=1)
        assert rc == mqtt.MQTT_ERR_SUCCESS
        with self._cond:
            assert self._cond.wait_for(lambda: mid in self._subacks, TIMEOUT), "no SUBACK"

    def publish(self, topic: str, payload: str, retain: bool = False) -> None:
        """Publish at QoS 1 and wait for the broker's PUBACK: the broker has then
        finished with the message (routed it, or dropped it as refused)."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        assert info.rc == mqtt.MQTT_ERR_SUCCESS, f"publish failed: {info.rc}"
        with self._cond:
            assert self._cond.wait_for(lambda: info.mid in self._acks, TIMEOUT), "no PUBACK"

    def expect(self, topic: str, payload: str, timeout: float = TIMEOUT) -> tuple[str, bytes, bool]:
        """Wait for this message; everything received meanwhile is kept in `seen`."""
        deadline = time.monotonic() + timeout
        while True:
            for item in self.seen:
                if item[0] == topic and item[1] == payload.encode():
                    return item
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.name} never got {topic} {payload!r}: {self.seen}")
            with contextlib.suppress(queue.Empty):
                self.seen.append(self.messages.get(timeout=left))

    def settle(self) -> list[tuple[str, bytes, bool]]:
        """Everything received, after a short extra wait for stragglers."""
        time.sleep(QUIET)
        while not self.messages.empty():
            self.seen.append(self.messages.get_nowait())
        return self.seen

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
