"""Every account's every right on the shipped ACL (systemd/mosquitto/roles.acl),
enforced by a real mosquitto: what each role may write and read, and each
"cannot" shown against a positive control on the same topic.

One run: every account subscribes to `#`. For each topic, an account that may
write it publishes a marker (the positive control); every account that may not
write it publishes a forgery. Surveillance (which reads every table topic) must
receive every marker: the topic works. Then no forgery may have reached anyone,
and each account must have received exactly the markers its role may read.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.deploy.mosquitto import ACCOUNTS, Broker, Peer, running_broker

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PUBLIC = ("status", "info", "state", "events", "outcome", "outcome/last", "alerts")
TABLE_WRITES = (*PUBLIC, "surveillance/state", "surveillance/count", "cmd/void_round/response",
                "cmd/republish/response")
REQUESTS = ("cmd/void_round", "cmd/set_limits", "cmd/republish")
RECORDED = "recorded"  # the floor recorder's watermark, which the table prunes by
TOPICS = [f"croupier/v1/{t}/{s}" for t in ("T1", "T2")
          for s in (*TABLE_WRITES, *REQUESTS, "bridge", RECORDED)]


def may_write(account: str, topic: str) -> bool:
    """The rights the ACL must give, written out by role (the contract of docs/deploy.md)."""
    role, own = ACCOUNTS[account]
    table, sub = topic.split("/", 3)[2], topic.split("/", 3)[3]
    if role == "table":
        # Never a request, never another table. `bridge`: the bridge's link state, which it
        # writes on the central broker under the table's account.
        return table == own and (sub in TABLE_WRITES or sub == "bridge")
    if role == "supervisor":
        return (own is None or table == own) and sub in REQUESTS
    if role == "recorder":
        return sub in ("cmd/republish", RECORDED)
    return False  # display, surveillance


def may_read(account: str, topic: str) -> bool:
    role, own = ACCOUNTS[account]
    table, sub = topic.split("/", 3)[2], topic.split("/", 3)[3]
    mine = own is None or table == own
    if role == "table":
        return mine and (sub in REQUESTS or sub == RECORDED)
    if role == "display":
        return mine and sub in (*PUBLIC, "bridge")
    if role == "supervisor":
        return mine and (sub in (*PUBLIC, "bridge") or sub.endswith("/response"))
    return role in ("surveillance", "recorder")


def writer(topic: str) -> str:
    """An account that may write `topic`: the positive control's sender."""
    return next(a for a in ACCOUNTS if may_write(a, topic))


@pytest.fixture(scope="module")
def broker() -> Iterator[Broker]:
    with running_broker() as b:
        yield b


def test_every_role_writes_and_reads_exactly_what_it_may(broker: Broker) -> None:
    peers = {name: Peer(broker.tcp, name).connect() for name in ACCOUNTS}
    try:
        for p in peers.values():
            p.subscribe("#")
        markers: dict[str, str] = {}  # marker -> topic
        forged: dict[str, tuple[str, str]] = {}  # forgery -> (account, topic)
        for topic in TOPICS:
            sender = writer(topic)
            marker = f"ok-{sender}-{uuid.uuid4().hex[:8]}"
            peers[sender].publish(topic, marker)
            markers[marker] = topic
            for name, p in peers.items():
                if not may_write(name, topic):
                    fake = f"forged-{name}-{uuid.uuid4().hex[:8]}"
                    p.publish(topic, fake)
                    forged[fake] = (name, topic)
        # Every account that may write a topic really can (not only the control's sender).
        for name, p in peers.items():
            for topic in TOPICS:
                if may_write(name, topic) and writer(topic) != name:
                    marker = f"ok-{name}-{uuid.uuid4().hex[:8]}"
                    p.publish(topic, marker)
                    markers[marker] = topic
        for marker, topic in markers.items():
            peers["eye"].expect(topic, marker)  # the topic works: the controls arrived
        refused_writes = len(forged)
        refused_reads = 0
        for name, p in peers.items():
            got = {payload.decode(): topic for topic, payload, _ in p.settle()}
            leaked = sorted(f"{forged[m]}" for m in got if m in forged)
            assert not leaked, f"forgeries got through, seen by {name}: {leaked}"
            for marker, topic in markers.items():
                if may_read(name, topic):
                    assert marker in got, f"{name} may read {topic} but got nothing"
                else:
                    refused_reads += 1
                    assert marker not in got, f"{name} must not read {topic}"
        print(f"\nrefused writes checked: {refused_writes}, refused reads checked: "
              f"{refused_reads}, allowed messages: {len(markers)}")
        assert refused_writes > 100 and refused_reads > 100
    finally:
        for p in peers.values():
            p.close()


def test_the_table_cannot_send_itself_a_command(broker: Broker) -> None:
    table, anna = Peer(broker.tcp, "table-T1").connect(), Peer(broker.tcp, "anna").connect()
    try:
        table.subscribe("croupier/v1/T1/cmd/+")  # what the table service subscribes to
        forged = f"forged-void-{uuid.uuid4().hex[:8]}"
        control = f"supervisor-void-{uuid.uuid4().hex[:8]}"
        table.publish("croupier/v1/T1/cmd/void_round", forged)
        anna.publish("croupier/v1/T1/cmd/void_round", control)  # the positive control
        table.expect("croupier/v1/T1/cmd/void_round", control)
        assert forged.encode() not in {payload for _, payload, _ in table.settle()}
        # Its own answers it may write, and a supervisor reads them.
        anna.subscribe("croupier/v1/T1/cmd/+/response")
        table.publish("croupier/v1/T1/cmd/void_round/response", control)
        anna.expect("croupier/v1/T1/cmd/void_round/response", control)
    finally:
        table.close()
        anna.close()


def test_only_the_recorder_tells_a_table_what_the_floor_holds(broker: Broker) -> None:
    """`recorded` gates the table's retention: the table reads it (retained, so at once
    on subscribing), the recorder writes it; the table itself, a supervisor and a
    display cannot move it, and a display does not read it."""
    archive, table = Peer(broker.tcp, "archive").connect(), Peer(broker.tcp, "table-T1").connect()
    others = {name: Peer(broker.tcp, name).connect() for name in ("anna", "pit-display")}
    topic = "croupier/v1/T1/recorded"
    try:
        control = f'{{"seq": 7, "marker": "{uuid.uuid4().hex[:8]}"}}'
        archive.publish(topic, control, retain=True)  # the positive control
        for name, p in (("table-T1", table), *others.items()):
            p.publish(topic, f'{{"seq": 999999, "forged_by": "{name}"}}', retain=True)
        table.subscribe(topic)  # after the fact: what it reads is the retained message
        table.expect(topic, control)
        others["pit-display"].subscribe(topic)
        got = {payload for _, payload, _ in table.settle()}
        assert not any(b"forged_by" in payload for payload in got), got
        assert others["pit-display"].settle() == [], "a display read the watermark"
    finally:
        for p in (archive, table, *others.values()):
            p.close()
