"""The displays in headless Chromium against a table the test drives message by
message: hidden cards, bets behind, an unreadable card, a gap in `seq` (a
display re-reads `state`; a page with republish rights asks the table), and
the broker going away and coming back.

The payloads are the real ones: the engine plays the round and `controller.wire`
builds every message, checked against the contract's schemas before it is
published; only the timing (and the gap) is the test's.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller import rules, wire
from controller.engine import Table, parse_event
from controller.journal import Message
from controller.terminal import expectation
from tests.display.conftest import DisplayProcess, Page, WsBroker
from tests.service.contract import validate

SECTION = "document.querySelector(\"section.table[data-table='fake']\")"


class FakeTable:
    """A table whose messages the test publishes when it chooses."""

    def __init__(self, port: int, profile: Path, table_id: str = "fake") -> None:
        self.id = table_id
        self.root = f"{wire.ROOT}/{table_id}/"
        self.table = Table(rules.load(str(profile)), 5)
        self.stream = wire.Stream(table_id)
        self.awaiting_key = False
        self.requests: list[dict[str, Any]] = []  # what pages sent on cmd/republish
        self.got_request = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"fake-{table_id}")
        self.client.on_message = self._request
        self.client.connect("127.0.0.1", port)
        self.client.subscribe(self.root + "cmd/republish", qos=1)
        self.client.loop_start()

    def _request(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        self.requests.append(json.loads(msg.payload))
        self.got_request.set()

    def publish(self, topic: str, payload: dict[str, Any], retain: bool = False) -> None:
        if not topic.startswith("cmd/"):
            validate(topic, payload)
        info = self.client.publish(self.root + topic, wire.dumps(payload), qos=1, retain=retain)
        info.wait_for_publish(5)

    def online(self) -> None:
        self.publish("status", wire.status("online", "s1", self.id, "2026-01-01T00:00:00Z"), True)
        self.publish("info", wire.info(self.table, self.id, "s1"), True)

    def play(self, *events: dict[str, Any]) -> list[Message]:
        """Apply round-script events; the stream messages they make (not yet sent)."""
        out: list[Message] = []
        for event in events:
            out += self.stream.messages(self.table.apply(parse_event(event)), self.table, 0)
        return out

    def send(self, messages: list[Message]) -> None:
        for m in messages:
            self.publish(m.topic, json.loads(m.payload))

    def snapshot(self) -> None:
        extra = {"awaiting_key": self.awaiting_key}
        self.publish("state", wire.state(self.table, self.id, self.stream.seq, extra), True)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def fake(ws_broker: WsBroker, tmp_path: Path) -> Iterator[FakeTable]:
    # A house's own rules: the American game (a hole card) with bets behind.
    profile = tmp_path / "house.toml"
    profile.write_text(
        'extends = "us-holecard"\nname = "house"\nbets_behind = true\nmax_players_per_box = 3\n'
    )
    t = FakeTable(ws_broker.port, profile)
    yield t
    t.close()


def deal(fake: FakeTable) -> None:
    """Bets (one behind box 1), the deal, the hole card face down; box 1 to play."""
    fake.online()
    fake.send(
        fake.play(
            {"type": "bet", "box": 1, "amount": "20"},
            {"type": "bet", "box": 1, "player": "lena", "amount": "12"},
            {"type": "bet", "box": 3, "amount": "15"},
            {"type": "close_bets"},
            *({"type": "card", "card": c} for c in ("8H", "9C", "6S", "3S", "7D", "KD")),
        )
    )
    fake.snapshot()


def test_table_hidden_cards_bets_behind_and_the_dealer_screen(
    fake: FakeTable,
    display: DisplayProcess,
    page: Page,
    tmp_path: Path,
) -> None:
    deal(fake)
    page.open(display.url("", tables="fake"))
    page.until(f"{SECTION}?.dataset.seq === '{fake.stream.seq}'", 15, "the table drawn")
    dealer = page.js(
        f"return [...{SECTION}.querySelectorAll('.dealer svg.card')]"
        ".map((c) => c.getAttribute('aria-label'));"
    )
    assert dealer == ["six of spades", "face-down card"]
    text = page.js(f"return {SECTION}.innerText;")
    assert "KD" not in text and "king of diamonds" not in text.lower()  # the hole card
    stakes = page.js(f"""return [...{SECTION}.querySelectorAll("li.box[data-box='1'] .stakes li")]
        .map((li) => [li.dataset.player, li.querySelector('.stake').textContent]);""")
    assert stakes == [["box1", "20"], ["lena", "12"]]
    assert "lena" in page.js(f"return {SECTION}.querySelector(\"li.box[data-box='1']\").innerText;")
    totals = page.js(
        f"return [...{SECTION}.querySelectorAll('.hand .total')].map((t) => t.textContent);"
    )
    assert totals == ["11", "16"]

    # The dealer's screen: box 1 decides; then the shoe cannot read a card.
    page.open(display.url("dealer", table="fake"))
    state = wire.state(fake.table, "fake", fake.stream.seq, {"awaiting_key": False})
    who, ask = expectation(state, False)
    assert who == "BOX 1" and ask.startswith("hit, stand")
    page.until(
        "document.querySelector('.next-ask')?.textContent === arguments[0]",
        15,
        "box 1's decision",
        ask,
    )
    assert page.js("return document.querySelector('.next-who').textContent;") == "Box 1"
    # Opened after the deal, the page saw no card come out: its last cards are
    # the layout's, newest first, the hole card face down.
    reads = page.js("""return [...document.querySelectorAll('li.read')].map((li) =>
        [...li.querySelectorAll('.read-card, .read-where, .read-how')]
            .map((e) => e.textContent));""")
    assert reads == [
        ["face down", "→ dealer", "on the layout"],
        ["7♦", "→ box 3", "on the layout"],
        ["3♠", "→ box 1", "on the layout"],
        ["6♠", "→ dealer", "on the layout"],
        ["9♣", "→ box 3", "on the layout"],
        ["8♥", "→ box 1", "on the layout"],
    ]
    fake.awaiting_key = True
    fake.publish(
        "alerts",
        json.loads(
            wire.alert(
                "fake",
                "90:unreadable",
                "unreadable",
                "the shoe could not read the card (read nothing): key it in on the panel",
                1,
                None,
                confidence=0.2,
            ).payload
        ),
    )
    fake.snapshot()
    page.until(
        "document.querySelector('.next-ask').textContent === 'enter the card on the panel'",
        10,
        "the dealer asked to enter the card",
    )
    assert (
        page.js("return document.querySelector('.next-detail').textContent;")
        == "read at confidence 0.20"
    )
    assert page.js("return document.querySelectorAll('li.alert.unreadable').length;") == 1
    page.screenshot(tmp_path, "dealer-unreadable")
    # The dealer keys in a 5: box 1 hits; the card is marked keyed in, the alert resolved.
    fake.awaiting_key = False
    fake.send(fake.play({"type": "card", "card": "5H"}))
    fake.snapshot()
    page.until(
        "document.querySelector('li.read')?.classList.contains('keyed')",
        10,
        "the keyed-in card first in the list",
    )
    assert page.js("return document.querySelector('li.read .read-card').textContent;") == "5♥"
    page.until(
        "document.querySelectorAll('li.alert.unreadable').length === 0",
        5,
        "the unreadable card resolved",
    )


def test_a_gap_in_seq_makes_the_table_stale_until_state_covers_it(
    fake: FakeTable,
    display: DisplayProcess,
    page: Page,
) -> None:
    deal(fake)
    page.open(display.url("", tables="fake"))
    page.until(f"{SECTION}?.dataset.seq === '{fake.stream.seq}'", 15, "the table drawn")
    before = page.js(f"return Number({SECTION}.dataset.snapshots);")
    stand = fake.play({"type": "action", "box": 1, "action": "stand"})
    hit = fake.play({"type": "card", "card": "4D"})  # box 3's hit
    assert len(stand) >= 2, "a stand makes more than one event: one can go missing"
    fake.send(stand[:1] + stand[2:] + hit)  # the second event never arrives
    missed = json.loads(stand[1].payload)["seq"]
    page.until(f"{SECTION}.querySelector('[data-stale]')", 10, "the table marked stale")
    assert f"missed events {missed}\u2013{missed}" in page.js(
        f"return {SECTION}.querySelector('[data-stale]').textContent;"
    )
    # A display re-reads the retained state (the broker sends it again on re-subscribing)...
    page.until(f"Number({SECTION}.dataset.snapshots) > {before}", 10, "state read again")
    # ...and sends no command: it has no right to.
    assert not fake.got_request.wait(1.0), f"a display sent {fake.requests}"
    assert page.js(f"return {SECTION}.querySelector('[data-stale]') !== null;"), (
        "the retained state is older than the gap: still stale"
    )
    fake.snapshot()  # the table's next snapshot includes the missed event
    page.until(f"{SECTION}.querySelector('[data-stale]') === null", 10, "live again")


def test_a_page_with_republish_rights_asks_the_table(
    fake: FakeTable,
    display: DisplayProcess,
    page: Page,
) -> None:
    deal(fake)
    page.open(display.url("", tables="fake", republish="1"))
    page.until(f"{SECTION}?.dataset.seq === '{fake.stream.seq}'", 15, "the table drawn")
    stand = fake.play({"type": "action", "box": 1, "action": "stand"})
    first_missed = json.loads(stand[0].payload)["seq"]
    fake.send(stand[1:])  # the first event never arrives
    assert fake.got_request.wait(10), "no cmd/republish from the page"
    request = fake.requests[0]
    assert request["from_seq"] == first_missed and request["transaction"]
    fake.publish(
        "cmd/republish/response",
        {
            "transaction": request["transaction"],
            "ok": True,
            "command": "republish",
            "table": "fake",
            "from_seq": first_missed,
            "to_seq": fake.stream.seq,
        },
    )
    fake.send(stand)  # what a table re-sends: the missed event, then copies (de-duplicated)
    fake.snapshot()
    page.until(f"{SECTION}.querySelector('[data-stale]') === null", 10, "live again")


def test_reconnects_by_itself(
    fake: FakeTable,
    ws_broker: WsBroker,
    display: DisplayProcess,
    page: Page,
) -> None:
    deal(fake)
    page.open(display.url("", tables="fake"))
    page.until(f"{SECTION}?.dataset.seq === '{fake.stream.seq}'", 15, "the table drawn")
    fake.close()
    ws_broker.stop()
    page.until("document.getElementById('link').dataset.link !== 'up'", 15, "the link down")
    page.until(
        f"{SECTION}.querySelector('[data-stale]')?.textContent.includes('no connection')",
        5,
        "the table marked stale",
    )
    ws_broker.start()
    page.until("document.getElementById('link').dataset.link === 'up'", 20, "the link back")
    page.until(f"{SECTION}.querySelector('[data-stale]') === null", 10, "live again")


def test_a_page_with_an_account_asks_for_its_password(
    tmp_path: Path,
    page: Page,
) -> None:
    """A broker that takes accounts only: a wrong password is refused and asked again."""
    if shutil.which("mosquitto_passwd") is None:
        pytest.skip("mosquitto_passwd is not installed (Debian package mosquitto)")
    passwd = tmp_path / "passwd"
    subprocess.run(
        ["mosquitto_passwd", "-b", "-c", str(passwd), "pit-display-1", "s3cret"],
        check=True,
        capture_output=True,
    )
    broker = WsBroker(tmp_path)
    if broker.kind != "mosquitto":
        pytest.skip("accounts need mosquitto (the embedded broker takes anyone)")
    broker.listeners = broker.listeners.replace(
        "allow_anonymous true\n", f"allow_anonymous false\npassword_file {passwd}\n"
    )
    broker.start()
    display = DisplayProcess(
        tmp_path / "display.log", "--broker", broker.ws_url, "--username", "pit-display-1"
    )
    try:
        page.driver.get(display.url("", tables="T7"))
        form = "document.querySelector('#login[open] input[type=password]')"
        page.until(form, 10, "the password form")
        page.driver.find_element("css selector", "#password").send_keys("wrong")
        page.driver.find_element("css selector", "#login button[type=submit]").click()
        page.until(
            "document.getElementById('link').dataset.link === 'refused' && "
            "document.querySelector('#login[open] .login-error')",
            10,
            "the refusal",
        )
        page.driver.find_element("css selector", "#password").send_keys("s3cret")
        page.driver.find_element("css selector", "#login button[type=submit]").click()
        page.until("document.getElementById('link').dataset.link === 'up'", 10, "logged in")
        assert page.js("return document.querySelector('#login').open;") is False
    finally:
        display.stop()
        broker.stop()
        broker.log.close()
