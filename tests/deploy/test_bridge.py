"""The bridge example, between two real mosquittos: a table's Pi and a central
broker running the same shipped configuration and ACL."""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.deploy.mosquitto import (
    BROKER_TOOL,
    PROD_DIR,
    SHIPPED,
    Broker,
    Peer,
    Pki,
    broker_files,
    broker_process,
    free_port,
    mosquitto,
    password,
    run,
    running_broker,
    scratch_dir,
    templated,
)

LOCAL_SECRET = "pi-local-secret-0123"  # table-T1 on the Pi's own broker


@dataclass
class Floor:
    central: Broker
    pi_port: int


def bridge_conf(croupier: Path, central: Broker) -> str:
    text = (SHIPPED / "30-croupier-bridge.conf.example").read_text()
    address = "address central-a.floor.example:8883 central-b.floor.example:8883\n"
    assert text.count(address) == 1 and "@TABLE@" in text and "@PASSWORD@" in text
    text = text.replace(address, f"address 127.0.0.1:{central.tls}\n")
    text = text.replace("@TABLE@", "T1").replace("@PASSWORD@", password("table-T1"))
    return text.replace(PROD_DIR, f"{croupier}/")


@contextlib.contextmanager
def pi_with_bridge(pki: Pki, central: Broker) -> Iterator[int]:
    """A table's Pi: the shipped local conf and the bridge example to `central`.
    Yields the port of its local listener (accounts table-T1 and eye)."""
    with scratch_dir() as pi:
        croupier = pi / "croupier"
        certs = croupier / "certs"
        certs.mkdir(parents=True)
        for src, name in (
            (pki.ca, "central-ca.crt"),
            (pki.client_cert, "bridge.crt"),
            (pki.client_key, "bridge.key"),
        ):
            shutil.copy(src, certs / name)
        for path in (croupier, certs, certs / "bridge.key"):
            path.chmod(0o750 if path.is_dir() else 0o640)
            if os.geteuid() == 0:  # mosquitto drops to its own user: let it read them
                shutil.chown(path, group="mosquitto")
        tool = ["bash", str(BROKER_TOOL), "--dir", str(croupier)]
        tool += ["--roles", str(SHIPPED / "roles.acl"), "--no-reload", "add"]
        run(*tool, "table", "table-T1", "T1", stdin=LOCAL_SECRET + "\n")
        run(*tool, "surveillance", "eye", stdin=password("eye") + "\n")
        port = free_port()
        confs = {
            "10-croupier.conf": templated(
                SHIPPED / "10-croupier.conf",
                croupier,
                {"listener 1883 127.0.0.1": f"listener {port} 127.0.0.1"},
            ),
            "30-croupier-bridge.conf": bridge_conf(croupier, central),
        }
        with mosquitto(pi, confs, [port]):
            yield port


def link_is(port: int, state: str, username: str = "eye") -> Peer:
    """Wait until the bridge state seen on the broker at `port` is `state`."""
    watcher = Peer(port, username).connect()
    watcher.subscribe("croupier/v1/T1/bridge")
    watcher.expect("croupier/v1/T1/bridge", state)
    return watcher


@pytest.fixture(scope="module")
def floor() -> Iterator[Floor]:
    with running_broker() as central, pi_with_bridge(central.pki, central) as port:
        link_is(central.tcp, "1").close()  # the link is up
        yield Floor(central, port)


@pytest.fixture
def table(floor: Floor) -> Iterator[Peer]:
    """The table process on the Pi, on its local broker."""
    p = Peer(floor.pi_port, "table-T1", LOCAL_SECRET).connect()
    yield p
    p.close()


@pytest.fixture
def central(floor: Floor) -> Iterator[dict[str, Peer]]:
    peers = {
        name: Peer(floor.central.tcp, name).connect() for name in ("eye", "pit-display", "anna")
    }
    yield peers
    for p in peers.values():
        p.close()


def unique(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:8]}"


def test_the_tables_topics_reach_the_central_broker_under_its_acl(
    table: Peer, central: dict[str, Peer]
) -> None:
    eye, display = central["eye"], central["pit-display"]
    eye.subscribe("croupier/v1/T1/#")
    display.subscribe("croupier/v1/T1/#")
    hidden, state = unique("shoe-order"), unique("state")
    table.publish("croupier/v1/T1/surveillance/state", hidden, retain=True)
    table.publish("croupier/v1/T1/state", state, retain=True)
    assert eye.expect("croupier/v1/T1/surveillance/state", hidden)
    assert display.expect("croupier/v1/T1/state", state)
    assert hidden.encode() not in {m[1] for m in display.settle()}


def test_pit_commands_cross_the_bridge_and_the_answer_comes_back(
    table: Peer, central: dict[str, Peer]
) -> None:
    anna, display = central["anna"], central["pit-display"]
    table.subscribe("croupier/v1/T1/cmd/+")
    anna.subscribe("croupier/v1/T1/cmd/+/response")
    forged, command = unique("display-void"), unique("void")
    display.publish("croupier/v1/T1/cmd/void_round", forged)  # refused at the central broker
    anna.publish("croupier/v1/T1/cmd/void_round", command)
    table.expect("croupier/v1/T1/cmd/void_round", command)
    assert forged.encode() not in {m[1] for m in table.settle()}
    answer = unique("ok")
    table.publish("croupier/v1/T1/cmd/void_round/response", answer)
    anna.expect("croupier/v1/T1/cmd/void_round/response", answer)


def test_only_the_listed_topics_cross(table: Peer, central: dict[str, Peer]) -> None:
    eye = central["eye"]
    eye.subscribe("croupier/v1/#")
    stray, marker = unique("not-in-the-contract"), unique("event")
    table.publish("croupier/v1/T1/debug", stray)
    table.publish("croupier/v1/T1/events", marker)
    eye.expect("croupier/v1/T1/events", marker)
    assert stray.encode() not in {m[1] for m in eye.settle()}


def test_a_central_outage_queues_the_tables_messages_but_drops_stale_commands() -> None:
    """What docs/deploy.md promises of the bridge: the table's messages wait on
    the Pi while the central broker is away and arrive, in order, when it is
    back; a command sent to the central broker meanwhile is not executed later."""
    with scratch_dir() as base:
        pki, croupier = broker_files(base)
        ports = (free_port(), free_port(), free_port())
        first_run = contextlib.ExitStack()
        central = first_run.enter_context(broker_process(base, pki, croupier, ports))
        with first_run, pi_with_bridge(pki, central) as pi:
            link_is(central.tcp, "1").close()
            local_eye = link_is(pi, "1")
            table = Peer(pi, "table-T1", LOCAL_SECRET).connect()
            table.subscribe("croupier/v1/T1/cmd/+")
            again_peers: list[Peer] = []
            try:
                first_run.close()  # the central broker goes away
                local_eye.seen.clear()
                local_eye.expect("croupier/v1/T1/bridge", "0")
                queued = [unique(f"queued-{i:02d}") for i in range(50)]
                for text in queued:  # acknowledged by the Pi's own broker
                    table.publish("croupier/v1/T1/events", text)
                with broker_process(base, pki, croupier, ports) as again:
                    eye, anna = Peer(again.tcp, "eye"), Peer(again.tcp, "anna")
                    again_peers += [eye, anna]
                    eye.connect().subscribe("croupier/v1/T1/events")
                    stale = unique("stale-void")
                    anna.connect().publish("croupier/v1/T1/cmd/void_round", stale)
                    assert b"1" not in {m[1] for m in local_eye.settle()}, (
                        "the bridge came back before the stale command was sent: "
                        "restart_timeout in the bridge example should wait at least 5 s"
                    )
                    local_eye.seen.clear()
                    local_eye.expect("croupier/v1/T1/bridge", "1", timeout=40)
                    for text in queued:
                        eye.expect("croupier/v1/T1/events", text)
                    got = [m[1].decode() for m in eye.seen if m[0].endswith("/events")]
                    assert got[: len(queued)] == queued  # in order
                    fresh = unique("fresh-void")
                    anna.publish("croupier/v1/T1/cmd/void_round", fresh)
                    table.expect("croupier/v1/T1/cmd/void_round", fresh)
                    assert stale.encode() not in {m[1] for m in table.settle()}
            finally:
                for peer in (local_eye, table, *again_peers):
                    peer.close()
