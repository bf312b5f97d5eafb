"""The service's MQTT client: paho-mqtt 2.x behind a small interface.

paho's network thread runs the callbacks; each one only puts a record on
the service loop's queue (never blocks, never raises: an exception escaping
a paho callback can stall its thread). The loop publishes through
`publish`, which paho makes thread-safe, and tracks acknowledgements by
message id from `Acked` records: `wait_for_publish` is never used.

The will is the retained `status` {"state": "lost"}: the broker publishes it
when the connection drops without a DISCONNECT (kill -9, power cut, cable).
"""

from __future__ import annotations

import logging
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from controller.config import BrokerAddress, MqttSection

log = logging.getLogger("croupier.mqtt")


@dataclass(frozen=True, slots=True)
class Connected:
    pass


@dataclass(frozen=True, slots=True)
class Disconnected:
    reason: str


@dataclass(frozen=True, slots=True)
class Acked:
    mid: int


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    payload: bytes


@dataclass(frozen=True, slots=True)
class RecordedMark:
    """A message on `recorded`: what the floor's recorder holds of this table."""

    payload: bytes


LinkEvent = Connected | Disconnected | Acked | Command | RecordedMark


class MqttLink:
    def __init__(
        self,
        settings: MqttSection,
        address: BrokerAddress,
        root: str,
        will: str,
        put: Callable[[LinkEvent], None],
    ) -> None:
        self.root = root
        self.address = address
        self.put = put
        self.connected = False  # read and written by the service loop only
        client_id = settings.client_id or f"croupier-{root.rsplit('/', 1)[-1]}"
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            clean_session=True,
            transport="websockets" if address.websockets else "tcp",
            reconnect_on_failure=True,
        )
        c = self.client
        if address.websockets:
            c.ws_set_options(path=address.path)
        if settings.username is not None:
            c.username_pw_set(settings.username, settings.password)
        if address.tls or settings.tls is not None:
            self._tls(settings)
        c.will_set(f"{root}/status", will, qos=1, retain=True)
        c.max_inflight_messages_set(settings.window)
        c.reconnect_delay_set(min_delay=1, max_delay=5)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_publish = self._on_publish
        c.on_message = self._on_message
        self.keepalive = settings.keepalive

    def _tls(self, settings: MqttSection) -> None:
        tls = settings.tls
        self.client.tls_set(
            ca_certs=str(tls.ca_file) if tls and tls.ca_file else None,
            certfile=str(tls.cert_file) if tls and tls.cert_file else None,
            keyfile=str(tls.key_file) if tls and tls.key_file else None,
            cert_reqs=ssl.CERT_REQUIRED,
        )
        if tls and tls.insecure:
            self.client.tls_insecure_set(True)

    # ------------------------------------------------------- the loop's side
    def start(self) -> None:
        """Connect in the background: a broker that is down now is retried, not fatal."""
        self.client.connect_async(self.address.host, self.address.port, self.keepalive)
        self.client.loop_start()

    def publish(self, topic: str, payload: str, retain: bool = False) -> int:
        """Hand one QoS 1 message to paho; returns its message id."""
        info = self.client.publish(f"{self.root}/{topic}", payload, qos=1, retain=retain)
        return info.mid

    def disconnect(self) -> None:
        self.client.disconnect()

    def stop(self) -> None:
        self.client.loop_stop()

    # ----------------------------------------------- paho's thread (callbacks)
    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any, props: Any
    ) -> None:
        try:
            if rc.is_failure:
                log.warning("broker refused the connection", extra={"reason": str(rc)})
                return
            sock = client.socket()
            if isinstance(sock, socket.socket):
                # Small messages must not wait for the previous one's TCP ack (Nagle).
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            # The recorder's watermark is retained: the broker sends it at once, so
            # retention knows it again after a restart (controller.retention).
            client.subscribe([(f"{self.root}/cmd/+", 1), (f"{self.root}/recorded", 1)])
            self.put(Connected())
        except Exception:
            log.exception("on_connect failed")

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any, props: Any
    ) -> None:
        try:
            self.put(Disconnected(str(rc)))
        except Exception:
            log.exception("on_disconnect failed")

    def _on_publish(
        self, client: mqtt.Client, userdata: Any, mid: int, rc: Any, props: Any
    ) -> None:
        try:
            self.put(Acked(mid))
        except Exception:
            log.exception("on_publish failed")

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            if message.topic == f"{self.root}/recorded":
                self.put(RecordedMark(bytes(message.payload)))
                return
            # The name is all below cmd/: "void_round"; anything longer ("x/response")
            # is not a request, and the loop ignores it.
            name = message.topic.removeprefix(f"{self.root}/cmd/")
            self.put(Command(name, bytes(message.payload)))
        except Exception:
            log.exception("on_message failed")
