"""The shipped broker configuration and ACL, enforced by a real mosquitto.

Every "cannot" is shown the same way: the refused client publishes and gets
its PUBACK (the broker is done with the message), then an allowed client
publishes a marker to the same topic; a subscriber with rights receives the
marker but never the refused message. Without the marker arriving, "nothing
came" would prove nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest

from tests.deploy.mosquitto import Broker, Peer, Tls, password, running_broker

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def broker() -> Iterator[Broker]:
    with running_broker() as b:
        yield b


@pytest.fixture
def peer(broker: Broker) -> Iterator[Callable[[str], Peer]]:
    """peer("name"): a connected client on the Pi's local (loopback) listener."""
    made: list[Peer] = []

    def connect(name: str) -> Peer:
        p = Peer(broker.tcp, name).connect()
        made.append(p)
        return p

    yield connect
    for p in made:
        p.close()


def unique(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:8]}"


def payloads(seen: list[tuple[str, bytes, bool]]) -> set[bytes]:
    return {item[1] for item in seen}


# ------------------------------------------------------------ displays
def test_a_display_cannot_publish_a_command(peer: Callable[[str], Peer]) -> None:
    display, table, eye, anna = peer("pit-display"), peer("table-T1"), peer("eye"), peer("anna")
    table.subscribe("croupier/v1/T1/cmd/+")  # what the table service subscribes to
    eye.subscribe("croupier/v1/#")
    forged, marker = unique("forged-void"), unique("supervisor-void")
    display.publish("croupier/v1/T1/cmd/void_round", forged)
    display.publish("croupier/v1/T1/cmd/republish", forged)
    anna.publish("croupier/v1/T1/cmd/void_round", marker)  # the positive control
    table.expect("croupier/v1/T1/cmd/void_round", marker)
    eye.expect("croupier/v1/T1/cmd/void_round", marker)
    assert forged.encode() not in payloads(table.settle())
    assert forged.encode() not in payloads(eye.settle())


def test_a_display_cannot_publish_anything_a_table_says(peer: Callable[[str], Peer]) -> None:
    display, table, eye = peer("pit-display"), peer("table-T1"), peer("eye")
    eye.subscribe("croupier/v1/#")
    forged, marker = unique("forged-outcome"), unique("real-outcome")
    for topic in ("outcome", "events", "state", "status", "alerts"):
        display.publish(f"croupier/v1/T1/{topic}", forged)
    table.publish("croupier/v1/T1/outcome", marker)
    eye.expect("croupier/v1/T1/outcome", marker)
    assert forged.encode() not in payloads(eye.settle())


def test_a_display_cannot_read_surveillance_or_commands(peer: Callable[[str], Peer]) -> None:
    display, table, eye = peer("pit-display"), peer("table-T1"), peer("eye")
    for topic in ("#", "croupier/v1/+/surveillance/#", "croupier/v1/T1/cmd/#"):
        display.subscribe(topic)  # accepted; the ACL filters every message
    eye.subscribe("croupier/v1/#")
    hidden, answer, public = unique("hole-card-QS"), unique("answer"), unique("state")
    table.publish("croupier/v1/T1/surveillance/state", hidden, retain=True)
    table.publish("croupier/v1/T1/cmd/void_round/response", answer)
    table.publish("croupier/v1/T1/state", public, retain=True)  # the positive control
    eye.expect("croupier/v1/T1/surveillance/state", hidden)
    eye.expect("croupier/v1/T1/cmd/void_round/response", answer)
    display.expect("croupier/v1/T1/state", public)
    got = payloads(display.settle())
    assert hidden.encode() not in got and answer.encode() not in got


def test_a_late_display_gets_retained_state_but_not_retained_surveillance(
    peer: Callable[[str], Peer],
) -> None:
    table = peer("table-T1")
    hidden, public = unique("shoe-order"), unique("state")
    table.publish("croupier/v1/T1/surveillance/state", hidden, retain=True)
    table.publish("croupier/v1/T1/state", public, retain=True)
    late_eye, late_display = peer("eye"), peer("pit-display")
    late_eye.subscribe("croupier/v1/T1/#")
    late_display.subscribe("croupier/v1/T1/#")
    assert late_eye.expect("croupier/v1/T1/surveillance/state", hidden)[2]  # retained
    assert late_display.expect("croupier/v1/T1/state", public)[2]
    assert hidden.encode() not in payloads(late_display.settle())


# ------------------------------------------------------------ tables
def test_a_table_cannot_write_another_tables_subtree(peer: Callable[[str], Peer]) -> None:
    t1, t2, eye = peer("table-T1"), peer("table-T2"), peer("eye")
    eye.subscribe("croupier/v1/T2/#")
    forged, marker = unique("t1-posing-as-t2"), unique("t2-itself")
    for topic in (
        "state",
        "events",
        "outcome",
        "status",
        "surveillance/state",
        "cmd/void_round/response",
    ):
        t1.publish(f"croupier/v1/T2/{topic}", forged)
    t1.publish("croupier/v1/elsewhere", forged)
    t2.publish("croupier/v1/T2/events", marker)
    eye.expect("croupier/v1/T2/events", marker)
    assert forged.encode() not in payloads(eye.settle())


def test_a_table_reads_its_own_commands_only(peer: Callable[[str], Peer]) -> None:
    t1, t2, anna = peer("table-T1"), peer("table-T2"), peer("anna")
    t1.subscribe("croupier/v1/T2/cmd/+")
    t1.subscribe("croupier/v1/T2/#")
    t2.subscribe("croupier/v1/T2/cmd/+")
    command = unique("new-shoe")
    anna.publish("croupier/v1/T2/cmd/new_shoe", command)
    t2.expect("croupier/v1/T2/cmd/new_shoe", command)
    assert command.encode() not in payloads(t1.settle())


# ------------------------------------------------------------ supervisors
def test_a_supervisor_commands_and_reads_the_answer(peer: Callable[[str], Peer]) -> None:
    anna, table, display = peer("anna"), peer("table-T1"), peer("pit-display")
    table.subscribe("croupier/v1/T1/cmd/+")
    anna.subscribe("croupier/v1/T1/cmd/+/response")
    display.subscribe("croupier/v1/T1/#")
    request, answer, marker = unique("set-limits"), unique("ok"), unique("state")
    anna.publish("croupier/v1/T1/cmd/set_limits", request)
    table.expect("croupier/v1/T1/cmd/set_limits", request)
    table.publish("croupier/v1/T1/cmd/set_limits/response", answer)
    anna.expect("croupier/v1/T1/cmd/set_limits/response", answer)
    table.publish("croupier/v1/T1/state", marker)
    display.expect("croupier/v1/T1/state", marker)
    got = payloads(display.settle())
    assert request.encode() not in got and answer.encode() not in got


def test_a_supervisor_of_one_table_cannot_command_another(peer: Callable[[str], Peer]) -> None:
    bob, anna, t2 = peer("bob"), peer("anna"), peer("table-T2")  # bob: T1 only
    t2.subscribe("croupier/v1/T2/cmd/+")
    forged, marker = unique("bob-on-t2"), unique("anna-on-t2")
    bob.publish("croupier/v1/T2/cmd/void_round", forged)
    anna.publish("croupier/v1/T2/cmd/void_round", marker)
    t2.expect("croupier/v1/T2/cmd/void_round", marker)
    assert forged.encode() not in payloads(t2.settle())


def test_a_supervisor_cannot_read_surveillance(peer: Callable[[str], Peer]) -> None:
    anna, table = peer("anna"), peer("table-T1")
    anna.subscribe("croupier/v1/#")
    hidden, public = unique("counts"), unique("alert")
    table.publish("croupier/v1/T1/surveillance/counts", hidden)
    table.publish("croupier/v1/T1/alerts", public)
    anna.expect("croupier/v1/T1/alerts", public)
    assert hidden.encode() not in payloads(anna.settle())


# ------------------------------------------------------------ recorders
def test_a_recorder_may_ask_for_a_republish_and_nothing_else(peer: Callable[[str], Peer]) -> None:
    archive, table, anna = peer("archive"), peer("table-T1"), peer("anna")
    table.subscribe("croupier/v1/T1/cmd/+")
    archive.subscribe("croupier/v1/T1/#")
    republish, forged, marker = unique("from-seq-1"), unique("recorder-void"), unique("void")
    archive.publish("croupier/v1/T1/cmd/republish", republish)
    archive.publish("croupier/v1/T1/cmd/void_round", forged)
    anna.publish("croupier/v1/T1/cmd/void_round", marker)
    table.expect("croupier/v1/T1/cmd/republish", republish)
    table.expect("croupier/v1/T1/cmd/void_round", marker)
    assert forged.encode() not in payloads(table.settle())
    hidden = unique("counts")
    table.publish("croupier/v1/T1/surveillance/counts", hidden)
    archive.expect("croupier/v1/T1/surveillance/counts", hidden)


# ------------------------------------------------------------ who may connect
@pytest.mark.parametrize(
    ("username", "secret"),
    [(None, None), ("pit-display", "not-its-password"), ("nobody", "nobody-secret-0123")],
    ids=["anonymous", "wrong-password", "unknown-account"],
)
def test_the_local_listener_refuses_unknown_clients(
    broker: Broker, username: str | None, secret: str | None
) -> None:
    p = Peer(broker.tcp, username, secret)
    try:
        assert p.attempt().startswith("refused: Not authorized")
    finally:
        p.close()


# ------------------------------------------------------------ TLS (floor listeners)
def test_tls_with_the_casino_ca_and_a_client_certificate_works(broker: Broker) -> None:
    pki = broker.pki
    tls = Tls(pki.ca, pki.client_cert, pki.client_key)
    p, local = Peer(broker.tls, "eye", tls=tls), Peer(broker.tcp, "table-T1")
    try:
        p.connect().subscribe("croupier/v1/T1/#")
        local.connect()
        marker = unique("over-tls")
        local.publish("croupier/v1/T1/events", marker)
        p.expect("croupier/v1/T1/events", marker)
    finally:
        p.close()
        local.close()


def test_tls_refuses_a_certificate_from_another_ca(broker: Broker) -> None:
    pki = broker.pki
    before = len(broker.log_text())
    p = Peer(broker.tls, "eye", tls=Tls(pki.ca, pki.rogue_cert, pki.rogue_key))
    try:
        result = p.attempt()
    finally:
        p.close()
    assert result != "ok", "a certificate from an unknown CA was accepted"
    # Refused by the TLS layer, before any password is looked at:
    assert "certificate verify failed" in broker.log_text()[before:]


def test_tls_refuses_a_client_without_a_certificate(broker: Broker) -> None:
    before = len(broker.log_text())
    p = Peer(broker.tls, "eye", tls=Tls(broker.pki.ca))
    try:
        result = p.attempt()
    finally:
        p.close()
    assert result != "ok", "the floor listener let in a client without a certificate"
    assert "peer did not return a certificate" in broker.log_text()[before:]


def test_a_client_that_does_not_trust_the_broker_ca_will_not_connect(broker: Broker) -> None:
    pki = broker.pki  # the client trusts only the rogue CA: the broker's certificate fails
    p = Peer(broker.tls, "eye", tls=Tls(pki.rogue_ca, pki.client_cert, pki.client_key))
    try:
        result = p.attempt()
    finally:
        p.close()
    assert result.startswith("error:") and "certificate verify failed" in result, result


def test_tls_with_a_good_certificate_still_needs_the_password(broker: Broker) -> None:
    tls = Tls(broker.pki.ca, broker.pki.client_cert, broker.pki.client_key)
    p = Peer(broker.tls, "eye", "guessed-password", tls=tls)
    try:
        assert p.attempt().startswith("refused: Not authorized")
    finally:
        p.close()


# ------------------------------------------------------------ WebSockets for displays
def test_a_display_over_secure_websockets_has_the_same_rights(
    broker: Broker, peer: Callable[[str], Peer]
) -> None:
    display = Peer(broker.wss, "pit-display", tls=Tls(broker.pki.ca), websockets=True)
    table, anna = peer("table-T1"), peer("anna")
    try:
        display.connect().subscribe("croupier/v1/+/#")
        table.subscribe("croupier/v1/T1/cmd/+")
        hidden, public = unique("surveillance"), unique("state")
        table.publish("croupier/v1/T1/surveillance/state", hidden)
        table.publish("croupier/v1/T1/state", public)
        display.expect("croupier/v1/T1/state", public)
        assert hidden.encode() not in payloads(display.settle())
        forged, marker = unique("ws-forged"), unique("anna")
        display.publish("croupier/v1/T1/cmd/void_round", forged)
        anna.publish("croupier/v1/T1/cmd/void_round", marker)
        table.expect("croupier/v1/T1/cmd/void_round", marker)
        assert forged.encode() not in payloads(table.settle())
    finally:
        display.close()


@pytest.mark.parametrize("how", ["plain-websockets", "wrong-password", "untrusted-broker"])
def test_the_websockets_listener_refuses(broker: Broker, how: str) -> None:
    pki = broker.pki
    p = {
        "plain-websockets": lambda: Peer(broker.wss, "pit-display", websockets=True),
        "wrong-password": lambda: Peer(
            broker.wss, "pit-display", "nope-nope-nope", tls=Tls(pki.ca), websockets=True
        ),
        "untrusted-broker": lambda: Peer(
            broker.wss, "pit-display", tls=Tls(pki.rogue_ca), websockets=True
        ),
    }[how]()
    try:
        assert p.attempt() != "ok"
    finally:
        p.close()


def test_passwords_are_stored_hashed(broker: Broker) -> None:
    text = (broker.base / "croupier" / "passwd").read_text()
    assert "table-T1:$7$" in text  # PBKDF2-SHA512, mosquitto 2.0's default
    assert password("table-T1") not in text
