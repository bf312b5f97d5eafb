"""The embedded broker: amqtt in-process, on its own asyncio loop in a thread.

Used by `croupier sim` when no broker is configured, so a display can
subscribe with no other set-up. amqtt speaks MQTT 3.1.1 only, and versions
before 0.11.4 have a ReDoS in topic matching (pinned in pyproject.toml). It
is fine for a simulated table; a casino floor runs mosquitto.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from controller.config import BrokerAddress, Config, EmbeddedSection, broker_address

log = logging.getLogger("croupier.broker")


class BrokerFailed(Exception):
    pass


class EmbeddedBroker:
    def __init__(self, settings: EmbeddedSection) -> None:
        self.settings = settings
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="embedded-broker", daemon=True)

    def config(self) -> dict[str, Any]:
        s = self.settings
        listeners: dict[str, Any] = {"default": {"type": "tcp", "bind": f"{s.host}:{s.port}"}}
        if s.ws_port is not None:
            listeners["ws"] = {"type": "ws", "bind": f"{s.host}:{s.ws_port}"}
        return {
            "listeners": listeners,
            # Only anonymous access: no packet logger (it logs every packet) and no $SYS.
            "plugins": {
                "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}
            },
        }

    def start(self, timeout: float = 15.0) -> None:
        self._thread.start()
        if not self._ready.wait(timeout):
            raise BrokerFailed("the embedded broker did not start in time")
        if self._error is not None:
            s = self.settings
            raise BrokerFailed(
                f"the embedded broker could not start: {self._error} (is another broker on "
                f"{s.host}:{s.port} or {s.ws_port}? use --port and --ws-port, or --broker URL)"
            )
        s = self.settings
        log.info(
            "embedded broker listening",
            extra={"host": s.host, "port": s.port, "ws_port": s.ws_port},
        )

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve())
        except BaseException as exc:  # reported to start(); a thread must not raise
            self._error = exc
            self._ready.set()
        finally:
            loop.close()

    async def _serve(self) -> None:
        from amqtt.broker import Broker  # type: ignore[import-untyped]

        self._stop = asyncio.Event()
        broker = Broker(self.config())
        await broker.start()
        self._ready.set()
        await self._stop.wait()
        await broker.shutdown()

    def stop(self) -> None:
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(stop.set)
            except RuntimeError:
                return  # the loop already ended
            self._thread.join(timeout=5)


def broker_for(
    config: Config, offline: bool = False
) -> tuple[BrokerAddress | None, EmbeddedBroker | None]:
    """The broker to use: the configured one, else an embedded one (not yet started)."""
    if offline:
        return None, None
    if config.mqtt.broker is not None:
        return broker_address(config.mqtt.broker), None
    embedded = config.mqtt.embedded
    address = BrokerAddress(host=embedded.host, port=embedded.port, tls=False, websockets=False)
    return address, EmbeddedBroker(embedded)


def main() -> None:
    """python -m controller.broker [PORT [WS_PORT]]: the embedded broker on its own."""
    import signal
    import sys

    port = int(sys.argv[1]) if len(sys.argv) > 1 else 1883
    ws_port = int(sys.argv[2]) if len(sys.argv) > 2 else None
    broker = EmbeddedBroker(EmbeddedSection(port=port, ws_port=ws_port))
    broker.start()
    print(f"embedded broker on 127.0.0.1:{port}", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    done.wait()
    broker.stop()


if __name__ == "__main__":
    main()
