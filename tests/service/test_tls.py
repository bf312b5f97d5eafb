"""`croupier sim` against a broker that wants TLS and a password (mosquitto)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.service.conftest import (
    BrokerProcess,
    Subscriber,
    free_port,
    mosquitto_path,
    outcomes_by_id,
    start_sim,
    wait_port,
)


@pytest.fixture
def secure_broker(tmp_path: Path) -> Iterator[tuple[BrokerProcess, int]]:
    """mosquitto with a TLS listener that wants a password, and a plain one for the test."""
    if mosquitto_path() is None or shutil.which("openssl") is None:
        pytest.skip("needs mosquitto and openssl (a TLS listener with a password file)")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    make_cert = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1"
    subprocess.run(
        [
            *make_cert.split(),
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    passwd = tmp_path / "passwd"
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(passwd), "table", "s3cret"], check=True)
    tls_port, plain_port = free_port(), free_port()
    broker = BrokerProcess(
        tmp_path,
        "per_listener_settings true\n"
        f"listener {tls_port} 127.0.0.1\ncertfile {cert}\nkeyfile {key}\n"
        f"password_file {passwd}\nallow_anonymous false\n"
        f"listener {plain_port} 127.0.0.1\nallow_anonymous true\n",
    )
    broker.port = plain_port  # where the test's display subscribes
    broker.start()
    wait_port(tls_port)
    yield broker, tls_port
    broker.stop()
    broker.log.close()


def test_sim_publishes_over_tls_with_a_password(
    secure_broker: tuple[BrokerProcess, int],
    tmp_path: Path,
    subscribe: Callable[..., Subscriber],
) -> None:
    broker, port = secure_broker
    sub = subscribe(broker.port, "tls")
    proc = start_sim(
        "--rounds",
        "5",
        "--speed",
        "max",
        "--table",
        "tls",
        "--broker",
        f"mqtts://127.0.0.1:{port}",
        "--ca-file",
        str(tmp_path / "cert.pem"),
        "--username",
        "table",
        "--password",
        "s3cret",
        "--state-dir",
        str(tmp_path / "state"),
        log=tmp_path / "sim.log",
    )
    try:
        assert proc.wait(timeout=60) == 0, (tmp_path / "sim.log").read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
    # The sim exits once the broker has acknowledged every outcome; delivery to this
    # subscriber follows on its own schedule, so wait for it rather than race it.
    expected = {f"tls:{n}" for n in range(1, 6)}
    sub.wait_for(lambda: set(outcomes_by_id(sub)) == expected, 30, "the five outcomes over TLS")
    assert set(outcomes_by_id(sub)) == expected
