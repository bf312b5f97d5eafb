"""A subscriber that times the card events of `croupier sim --camera`.

It reads the table's `events` topic like any display does and tells the
camera tally when each `card_dealt` or `card_burned` message arrived, so the
latency the sim prints ends where a pit display's starts. It connects with
the table's own broker settings (address, credentials, TLS).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from controller.config import BrokerAddress, MqttSection
from sim.camera.tally import CameraTally

log = logging.getLogger("croupier.sim.camera")

CARD_EVENTS = ("card_dealt", "card_burned")


class EventClock:
    def __init__(
        self, settings: MqttSection, address: BrokerAddress, root: str, tally: CameraTally
    ) -> None:
        self.tally = tally
        self.topic = f"{root}/events"
        self.address = address
        c = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"croupier-sim-clock-{root.rsplit('/', 1)[-1]}",
            transport="websockets" if address.websockets else "tcp",
        )
        if address.websockets:
            c.ws_set_options(path=address.path)
        if settings.username is not None:
            c.username_pw_set(settings.username, settings.password)
        tls = settings.tls
        if address.tls or tls is not None:
            c.tls_set(
                ca_certs=str(tls.ca_file) if tls and tls.ca_file else None,
                certfile=str(tls.cert_file) if tls and tls.cert_file else None,
                keyfile=str(tls.key_file) if tls and tls.key_file else None,
            )
            if tls is not None and tls.insecure:
                c.tls_insecure_set(True)
        c.on_connect = self._on_connect
        c.on_subscribe = self._on_subscribe
        c.on_message = self._on_message
        self.client = c
        self.ready = threading.Event()

    def start(self, wait: float = 10.0) -> bool:
        """Connect and subscribe; False if that took longer than `wait` seconds (the
        first cards' latencies are then not measured)."""
        self.client.connect_async(self.address.host, self.address.port, keepalive=10)
        self.client.loop_start()
        return self.ready.wait(wait)

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if not reason.is_failure:
            client.subscribe(self.topic, qos=1)

    def _on_subscribe(self, *_: Any) -> None:
        self.ready.set()

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        at = time.monotonic()
        try:  # nothing may escape a paho callback
            body = json.loads(msg.payload)
            if body.get("type") in CARD_EVENTS and isinstance(body.get("source"), int):
                self.tally.published(body["source"], at)
        except Exception:
            log.exception("sim camera clock: a message it cannot read")
