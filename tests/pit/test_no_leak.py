"""Hidden information never reaches a display: 500 simulated rounds of us-holecard
and of pt (`croupier sim`, full speed) on the Pi's broker set-up (the shipped
mosquitto configuration, ACL and accounts: tests/deploy/mosquitto.py), watched by
a client with display rights subscribed to `#`.

The truth comes from the table's own record: its journal replayed in the full
(surveillance) view gives every card with the moment it was dealt and the moment
it was turned over (`croupier audit events --full`). Every payload the display
received is checked against it: each card code in it must be a card of that
round that was face up at that moment (a multiset: six decks repeat codes), the
dealer's hole card shows as null until its `card_revealed`, burned cards are never
shown, and nothing from surveillance/ or cmd/ arrives. A surveillance client
(which may see everything) gets the same treatment and must fail it: the check
can catch a leak when there is one.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.audit import replay
from tests.deploy.mosquitto import (
    SHIPPED,
    broker_files,
    free_port,
    mosquitto,
    need,
    password,
    scratch_dir,
    templated,
)
from tests.service.conftest import start_sim

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROUNDS = 500
CODE = re.compile(r"^[A2-9TJQK][SHDC]$")
DISPLAY_TOPICS = {"status", "info", "state", "events", "outcome", "outcome/last", "alerts"}


@pytest.fixture(scope="module")
def floor() -> Iterator[int]:
    """The Pi's broker as shipped (10-croupier.conf: accounts, ACL), on a free port; its
    local TCP port. One setting added: a full-speed table outruns a Python subscriber,
    and mosquitto drops QoS 1 messages past a client's queue (1000 by default). This
    test must receive every message to prove none leaked, so the queue is larger."""
    need("mosquitto", "mosquitto")
    with scratch_dir() as base:
        _, croupier = broker_files(base)
        port = free_port()
        local = templated(
            SHIPPED / "10-croupier.conf",
            croupier,
            {"listener 1883 127.0.0.1": f"listener {port} 127.0.0.1"},
        )
        confs = {"10-croupier.conf": local, "90-test-queue.conf": "max_queued_messages 0\n"}
        with mosquitto(base, confs, [port]):
            yield port


@dataclass
class Seen:
    topic: str  # below croupier/v1/<table>/
    payload: dict[str, Any]
    retained: bool
    after: int  # the highest events seq received before it (its moment, if it has no seq)


@dataclass
class Watcher:
    """An MQTT client subscribed to `#` with an account's rights; keeps everything."""

    port: int
    account: str
    table: str
    topics: str = "#"
    raw: list[tuple[str, bytes, bool]] = field(default_factory=list)
    parsed: list[Seen] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)  # topics outside the table's subtree
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.prefix = f"croupier/v1/{self.table}/"
        self.last_seq = 0
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=f"{self.account}-{uuid.uuid4().hex[:6]}"
        )
        self.client.username_pw_set(self.account, password(self.account))
        self.client.max_inflight_messages_set(100)
        self.client.on_message = self._on_message
        subscribed = threading.Event()
        self.client.on_subscribe = lambda *a: subscribed.set()
        self.client.connect("127.0.0.1", self.port, keepalive=30)
        self.client.subscribe(self.topics, qos=1)
        self.client.loop_start()
        assert subscribed.wait(10), "no SUBACK"

    def _on_message(self, client: Any, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        # As little as possible here (paho's thread): parsed later, in order.
        with self.lock:
            self.raw.append((msg.topic, bytes(msg.payload), bool(msg.retain)))

    @property
    def seen(self) -> list[Seen]:
        with self.lock:
            raw, self.raw = self.raw, []
        for topic, data, retained in raw:
            if not topic.startswith(self.prefix):
                if topic.startswith("croupier/"):
                    self.foreign.append(topic)
                continue
            try:
                payload = json.loads(data)
            except ValueError:
                payload = {"unparsed": data.decode(errors="replace")}
            topic = topic.removeprefix(self.prefix)
            if topic == "events" and isinstance(payload.get("seq"), int):
                self.last_seq = max(self.last_seq, payload["seq"])
            self.parsed.append(Seen(topic, payload, retained, self.last_seq))
        return self.parsed

    def on(self, topic: str) -> list[Seen]:
        return [s for s in self.seen if s.topic == topic]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


# ------------------------------------------------------------------ the truth
@dataclass
class Truth:
    """From the full view of the journal: what was visible of each round, when."""

    visible: dict[int, list[tuple[int, str]]]  # round -> (seq it became visible, code)
    hidden: list[tuple[int, str, int, int | None]]  # (round, code, dealt seq, revealed seq)
    hole_revealed: dict[int, int]  # round -> seq of the hole card's card_revealed
    burned: int
    last_seq: int
    memo: dict[tuple[int, int], Counter[str]] = field(default_factory=dict)

    def allowed(self, rnd: int, moment: int) -> Counter[str]:
        """The round's cards face up at `moment` (an events seq), with repeats."""
        key = (rnd, moment)
        if key not in self.memo:
            self.memo[key] = Counter(
                code for seq, code in self.visible.get(rnd, []) if seq <= moment
            )
        return self.memo[key]


def truth(state: Path) -> Truth:
    visible: dict[int, list[tuple[int, str]]] = {}
    pending: dict[tuple[int, int, int, str], list[int]] = {}
    hidden: list[tuple[int, str, int, int | None]] = []
    hole: dict[int, int] = {}
    burned = last = 0
    for topic, e in replay(state, full=True):
        if topic != "events":
            continue
        last = e["seq"]
        kind, rnd = e["type"], e["round"]
        if kind == "card_burned":
            burned += 1
        elif kind == "card_dealt" and e["face_down"]:
            pending.setdefault((rnd, e["box"], e["hand"], e["card"]), []).append(e["seq"])
        elif kind == "card_dealt":
            visible.setdefault(rnd, []).append((e["seq"], e["card"]))
        elif kind == "card_revealed":
            dealt = pending[rnd, e["box"], e["hand"], e["card"]].pop(0)
            hidden.append((rnd, e["card"], dealt, e["seq"]))
            visible.setdefault(rnd, []).append((e["seq"], e["card"]))
            if e["box"] == 0:
                hole[rnd] = e["seq"]
    for (rnd, _, _, code), seqs in pending.items():
        hidden += [(rnd, code, seq, None) for seq in seqs]  # never turned over
    return Truth(visible, hidden, hole, burned, last)


def codes(value: Any) -> Counter[str]:
    """Every card code anywhere in a payload (keys and values)."""
    found: Counter[str] = Counter()
    if isinstance(value, str):
        if CODE.match(value):
            found[value] += 1
    elif isinstance(value, dict):
        for v in value.values():
            found += codes(v)
    elif isinstance(value, list):
        for v in value:
            found += codes(v)
    return found


def _parts(topic: str, p: dict[str, Any]) -> list[tuple[str, Counter[str]]]:
    """A state shows each card of the round once on the layout and once more in its
    settlement: each part is one multiset of the round's cards."""
    if topic not in ("state", "surveillance/state"):
        return [("all", codes(p))]
    layout = codes(p.get("dealer")) + codes(p.get("in_play")) + codes(p.get("mistaken_card"))
    rest = {
        k: v for k, v in p.items() if k not in ("dealer", "in_play", "mistaken_card", "outcome")
    }
    return [("layout", layout), ("outcome", codes(p.get("outcome"))), ("rest", codes(rest))]


def leaks(seen: list[Seen], t: Truth) -> list[str]:
    """Every payload showing a card that was not face up in its round at its moment."""
    found = []
    for s in seen:
        p = s.payload
        moment = p["seq"] if isinstance(p.get("seq"), int) else s.after
        rnd = p.get("round")
        if not codes(p):
            continue
        if not isinstance(rnd, int):
            found.append(f"{s.topic}: cards {sorted(codes(p))} outside any round")
            continue
        for part, shown in _parts(s.topic, p):
            extra = shown - t.allowed(rnd, moment)
            if extra:
                found.append(
                    f"{s.topic} ({part}) round {rnd} at seq {moment}: {sorted(extra.elements())}"
                    f" not yet face up ({json.dumps(p)[:200]})"
                )
        dealer = p.get("dealer") if s.topic in ("state", "surveillance/state") else None
        hole_down = moment < t.hole_revealed.get(rnd, 1 << 60)
        if dealer and len(dealer["cards"]) > 1 and hole_down and dealer["cards"][1] is not None:
            found.append(f"{s.topic} round {rnd} at seq {moment}: the hole card shows")
    return found


@pytest.mark.parametrize("rules, table", [("us-holecard", "T1"), ("pt", "T2")])
def test_a_display_never_sees_a_hidden_card_before_it_is_turned_over(
    floor: int, tmp_path: Path, rules: str, table: str
) -> None:
    display = Watcher(floor, "pit-display", table)
    # Surveillance may see everything; it watches its own topic only (less to parse).
    eye = Watcher(floor, "eye", table, f"croupier/v1/{table}/surveillance/#")
    config = tmp_path / "table.toml"
    config.write_text("[mqtt]\nsurveillance = true\n")  # so there is something to keep out
    state = tmp_path / "state"
    proc = start_sim(
        "--config",
        str(config),
        "--rules",
        rules,
        "--rounds",
        str(ROUNDS),
        "--speed",
        "max",
        "--seed",
        "17",
        "--no-fsync",
        "--table",
        table,
        "--broker",
        f"mqtt://127.0.0.1:{floor}",
        "--username",
        f"table-{table}",
        "--password",
        password(f"table-{table}"),
        "--state-dir",
        str(state),
        log=tmp_path / "sim.log",
    )
    try:
        assert proc.wait(timeout=120) == 0, (tmp_path / "sim.log").read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
    t = truth(state)
    display_done = lambda: any(  # noqa: E731
        s.payload.get("state") == "offline" for s in display.on("status")
    )
    deadline_ok = _wait(display_done, 30)
    assert deadline_ok, (
        f"the display never saw the table go offline: {len(display.seen)} messages, last "
        f"events seq {display.last_seq} of {t.last_seq}; eye {len(eye.seen)} last {eye.last_seq}; "
        + str(Counter(s.topic for s in display.seen))
    )
    display.close()
    eye.close()

    # Completeness: the display got the whole stream, so "nothing leaked" covers it all.
    seqs = sorted({s.payload["seq"] for s in display.on("events")})
    assert seqs == list(range(1, t.last_seq + 1))
    assert len({s.payload["outcome_id"] for s in display.on("outcome")}) == ROUNDS
    assert len(t.hidden) > ROUNDS  # every round has a hole card; pt closed cards, doubles
    assert t.burned == 0 or rules != "pt"

    # What the display may read: the contract's public topics, nothing else.
    assert {s.topic for s in display.seen} <= DISPLAY_TOPICS
    # (Another table's retained topics come too: display rights cover every table.)
    assert {topic.split("/", 3)[3] for topic in display.foreign} <= DISPLAY_TOPICS
    assert eye.on("surveillance/state"), "surveillance got nothing: the check proves nothing"

    # No card before its time, on any topic, retained ones included.
    assert leaks(display.seen, t) == []
    # The same check on surveillance's full view does find the hidden cards early.
    assert leaks(eye.on("surveillance/state"), t)

    # A display that connects after the run gets the retained topics: checked the same way.
    late = Watcher(floor, "pit-display", table)
    assert _wait(
        lambda: {s.topic for s in late.seen} >= {"status", "info", "state", "outcome/last"}, 10
    )
    late.close()
    assert all(s.retained for s in late.seen)
    assert {s.topic for s in late.seen} <= DISPLAY_TOPICS
    assert {topic.split("/", 3)[3] for topic in late.foreign} <= DISPLAY_TOPICS
    assert leaks(late.seen, t) == []
    for s in display.seen:
        assert "remaining" not in json.dumps(s.payload) and "burned" not in s.payload.get(
            "shoe", {}
        ), s.topic


def _wait(check: Any, seconds: float) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return bool(check())
