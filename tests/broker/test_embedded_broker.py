"""The embedded broker (controller/broker.py) with browser pages that come and
go: a page closed or reloaded mid-write is routine, not an error, and the
broker goes on serving the others. Real amqtt, real WebSockets."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from websockets.asyncio.client import connect

from controller.broker import EmbeddedBroker, _exception_handler
from controller.config import EmbeddedSection
from tests.service.conftest import free_port

# MQTT 3.1.1 packets as a browser's client sends them: CONNECT (client id "ab",
# clean session), SUBSCRIBE to the state topic at QoS 0, PINGREQ.
CONNECT = bytes([0x10, 14, 0, 4]) + b"MQTT" + bytes([4, 2, 0, 60, 0, 2]) + b"ab"
TOPIC = b"croupier/v1/t1/state"
SUBSCRIBE = bytes([0x82, 5 + len(TOPIC), 0, 1, 0, len(TOPIC)]) + TOPIC + bytes([0])
PINGREQ = bytes([0xC0, 0])


@pytest.fixture
def broker() -> Iterator[EmbeddedBroker]:
    b = EmbeddedBroker(EmbeddedSection(port=free_port(), ws_port=free_port()))
    b.start()
    yield b
    b.stop()


async def page_that_leaves(ws_port: int) -> None:
    """A page that subscribes, pings, and is closed (close code 1001, going away)
    while the broker still has a SUBACK, a PINGRESP and messages to write."""
    async with connect(f"ws://127.0.0.1:{ws_port}/", subprotocols=["mqtt"]) as ws:  # type: ignore[list-item]
        await ws.send(CONNECT)
        await ws.recv()  # CONNACK
        await ws.send(SUBSCRIBE)
        await ws.send(PINGREQ)
        await ws.send(SUBSCRIBE)
        await ws.close(code=1001)


def test_pages_that_go_away_log_no_error(
    broker: EmbeddedBroker, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    table = mqtt.Client(CallbackAPIVersion.VERSION2)
    table.connect("127.0.0.1", broker.settings.port)
    table.loop_start()
    stop = threading.Event()

    def publish() -> None:  # a table publishing its state all along
        while not stop.is_set():
            table.publish("croupier/v1/t1/state", b"{}" * 100, qos=1)
            time.sleep(0.002)

    publisher = threading.Thread(target=publish, daemon=True)
    publisher.start()
    try:
        assert broker.settings.ws_port is not None
        for _ in range(16):  # a run of 16 page loads made 14 tracebacks before
            asyncio.run(page_that_leaves(broker.settings.ws_port))
        time.sleep(0.5)
        # The broker still serves: a new subscriber gets the table's messages.
        got = threading.Event()
        viewer = mqtt.Client(CallbackAPIVersion.VERSION2)
        viewer.on_message = lambda *_: got.set()
        viewer.connect("127.0.0.1", broker.settings.port)
        viewer.subscribe("croupier/v1/t1/state")
        viewer.loop_start()
        assert got.wait(5), "the broker stopped delivering after the pages left"
        viewer.loop_stop()
        viewer.disconnect()
    finally:
        stop.set()
        publisher.join()
        table.loop_stop()
        table.disconnect()
    loud = [f"{r.name} {r.levelname}: {r.getMessage()}" for r in caplog.records
            if r.levelno >= logging.WARNING]
    assert loud == []


def test_other_errors_in_the_broker_loop_still_reach_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    loop = asyncio.new_event_loop()
    try:
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            _exception_handler(loop, {"message": "a bug", "exception": ValueError("boom")})
    finally:
        loop.close()
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == ["a bug"]
