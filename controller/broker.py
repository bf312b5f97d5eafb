"""The embedded broker: amqtt in-process, on its own asyncio loop in a thread.

Used by `croupier sim` when no broker is configured, so a display can
subscribe with no other set-up. amqtt speaks MQTT 3.1.1 only, and versions
before 0.11.4 have a ReDoS in topic matching (pinned in pyproject.toml). It
is fine for a simulated table; a casino floor runs mosquitto.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed

from controller.config import EmbeddedSection

log = logging.getLogger("croupier.broker")


class BrokerFailed(Exception):
    pass


def _went_away(exc: BaseException | None) -> bool:
    """An exception that only says a client left while the broker wrote to it
    (a browser page closed or reloaded: WebSockets close 1001, or a dropped
    socket), or the packet handling amqtt cancels because of it."""
    while exc is not None:
        if isinstance(exc, ConnectionClosed | asyncio.CancelledError):
            return True
        if type(exc).__name__ == "ProtocolHandlerError" and "cancelled" in str(exc):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


class GoneClientFilter(logging.Filter):
    """Keeps amqtt's and websockets' tracebacks about a client that went away
    out of the log: amqtt lets the write to a closed WebSocket raise in tasks
    nobody awaits, and each page that closes or reloads made one or more
    error-level tracebacks. Anything else they log passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and _went_away(record.exc_info[1]):
            return False
        # amqtt's handler logs the exception as text only ("Unhandled exception:
        # received 1001 (going away); ..."): websockets' wording of a close.
        if _CLOSE_TEXT.match(record.getMessage()):
            return False
        for arg in record.args if isinstance(record.args, tuple) else ():
            if isinstance(arg, BaseException) and _went_away(arg):
                return False
            if isinstance(arg, asyncio.Task) and arg.done() and not arg.cancelled() and \
                    _went_away(arg.exception()):
                return False
        return True


_CLOSE_TEXT = re.compile(
    r"Unhandled exception: (received|sent) \d{4} |Unhandled exception: no close frame"
)

# The loggers that report a closed client's write as an error (amqtt 0.12).
NOISY_ON_CLOSE = ("amqtt.broker", "amqtt.mqtt.protocol.handler", "websockets.server")


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
        loop.set_exception_handler(_exception_handler)
        gone = GoneClientFilter()
        for name in NOISY_ON_CLOSE:
            logging.getLogger(name).addFilter(gone)
        try:
            loop.run_until_complete(self._serve())
        except BaseException as exc:  # reported to start(); a thread must not raise
            self._error = exc
            self._ready.set()
        finally:
            for name in NOISY_ON_CLOSE:
                logging.getLogger(name).removeFilter(gone)
            loop.close()

    async def _serve(self) -> None:
        from amqtt.broker import Broker  # type: ignore[import-untyped]

        self._stop = asyncio.Event()
        broker = Broker(self.config())
        await broker.start()
        self._ready.set()
        await self._stop.wait()
        await broker.shutdown()
        # amqtt leaves some of its tasks pending: ended here, not destroyed
        # with the loop ("Task was destroyed but it is pending!").
        rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in rest:
            task.cancel()
        await asyncio.gather(*rest, return_exceptions=True)

    def stop(self) -> None:
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(stop.set)
            except RuntimeError:
                return  # the loop already ended
            self._thread.join(timeout=5)


def _exception_handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """asyncio's "Task exception was never retrieved" for a write to a client
    that went away is routine, not an error; the rest goes to asyncio's handler."""
    exc = context.get("exception")
    if _went_away(exc):
        log.debug("a client went away while the broker wrote to it: %s", exc)
        return
    task = context.get("future") or context.get("task")
    code = getattr(task.get_coro(), "cr_code", None) if isinstance(task, asyncio.Task) else None
    if code is not None and "amqtt" in Path(code.co_filename).parts and (
        exc is None  # "Task was destroyed but it is pending!": a left client's waiter, collected
        # amqtt 0.12 awaits a left client's waiters (broker.py, _client_connected)
        # a second time on disconnect.
        or (isinstance(exc, RuntimeError) and "already awaited" in str(exc))
    ):
        log.debug("%s: %r", context.get("message"), exc or task)
        return
    loop.default_exception_handler(context)


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
