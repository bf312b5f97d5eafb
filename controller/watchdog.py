"""Readiness and watchdog notifications to systemd (sd_notify), written directly.

systemd starts the table with `Type=notify` and `WatchdogSec=`: it waits for
READY=1 before it calls the table started, and kills and restarts it when no
WATCHDOG=1 arrives for WatchdogSec. The protocol is one datagram of
newline-separated `KEY=value` lines on the AF_UNIX socket named by
$NOTIFY_SOCKET (a path, or `@name` for an abstract socket); $WATCHDOG_USEC
gives the interval. A few lines of `socket` do it, so there is no dependency.

Errors are not swallowed: `Notifier.notify` raises `NotifyError` with the
socket and the reason, and `Watchdog.tick` logs each failed ping and tries
again on its next call. Outside systemd ($NOTIFY_SOCKET unset: a terminal,
a test) the notifier is inactive and says so once in the log.

`Watchdog` pings only while the caller says the table is healthy. The main
loop calls `tick()` on every turn, so a loop that hangs stops the pings by
itself; other sources (camera frames, the outbox) are watched by name with
a maximum age, refreshed by `beat(name)` or read from a `since` callable.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

log = logging.getLogger("croupier.watchdog")

Clock = Callable[[], float]
SEND_TIMEOUT = 0.2  # seconds a notification may wait for room in systemd's socket queue


class NotifyError(Exception):
    """A notification could not be sent to systemd, or its settings are unusable."""


def _socket_address(value: str) -> str | None:
    """$NOTIFY_SOCKET as an address for `socket.sendto`; None when unset."""
    if not value:
        return None
    if value.startswith("@"):
        return "\0" + value[1:]  # Linux abstract namespace
    if value.startswith("/"):
        return value
    raise NotifyError(
        f"NOTIFY_SOCKET={value!r} is neither an absolute path nor an abstract socket (@name)"
    )


def _watchdog_interval(env: Mapping[str, str], pid: int) -> float | None:
    """WatchdogSec in seconds when systemd expects pings from this process, else None."""
    usec = env.get("WATCHDOG_USEC", "")
    if not usec:
        return None
    owner = env.get("WATCHDOG_PID", "")
    if owner:
        if not owner.isdigit():
            raise NotifyError(f"WATCHDOG_PID={owner!r} is not a process id")
        if int(owner) != pid:
            return None  # meant for another process (our parent, say): not ours to feed
    if not usec.isdigit() or int(usec) == 0:
        raise NotifyError(f"WATCHDOG_USEC={usec!r} is not a positive number of microseconds")
    return int(usec) / 1_000_000


class Notifier:
    """Sends sd_notify messages to the socket systemd gave this process."""

    def __init__(self, environ: Mapping[str, str] | None = None, pid: int | None = None) -> None:
        env = os.environ if environ is None else environ
        self.socket_name = env.get("NOTIFY_SOCKET", "")
        self._address = _socket_address(self.socket_name)
        # No socket: nothing will read WATCHDOG=1 either, whatever the environment says.
        self.watchdog_interval = (
            _watchdog_interval(env, os.getpid() if pid is None else pid)
            if self._address is not None
            else None
        )
        if self._address is None:
            log.info("not started by systemd (NOTIFY_SOCKET unset): no readiness or watchdog")

    @property
    def active(self) -> bool:
        return self._address is not None

    def notify(self, *lines: str) -> bool:
        """Send `KEY=value` lines as one datagram: True when sent, False when inactive.

        Waits at most SEND_TIMEOUT for a busy systemd to make room, then raises:
        the table's loop must never hang on its own watchdog.
        """
        if self._address is None:
            return False
        data = "\n".join(lines).encode("utf-8")
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.settimeout(SEND_TIMEOUT)
                sock.sendto(data, self._address)
        except OSError as exc:
            raise NotifyError(
                f"cannot notify systemd on {self.socket_name}: {exc.strerror or exc}"
            ) from exc
        return True

    def ready(self, status: str | None = None) -> bool:
        """Start-up is complete: journal replayed, drivers opened, the loop about to run."""
        return self.notify("READY=1", *([_status_line(status)] if status else []))

    def ping(self) -> bool:
        return self.notify("WATCHDOG=1")

    def status(self, text: str) -> bool:
        """The one-line status `systemctl status croupier` shows."""
        return self.notify(_status_line(text))

    def stopping(self) -> bool:
        """A clean stop has begun (sent before the outbox's last flush)."""
        return self.notify("STOPPING=1")

    def extend_timeout(self, seconds: float) -> bool:
        """Ask for `seconds` more before the start (or stop) times out: a long journal replay."""
        return self.notify(f"EXTEND_TIMEOUT_USEC={max(1, round(seconds * 1_000_000))}")


def _status_line(text: str) -> str:
    # One message line per field: a newline inside would start a bogus field.
    return "STATUS=" + " ".join(text.split())


@dataclass
class _Source:
    max_age: float
    since: Callable[[], float | None] | None
    last: float  # when the source was last seen alive (clock time)


class Watchdog:
    """Feeds systemd's watchdog from the main loop, only while the table is healthy.

    Call `tick()` on every turn of the loop (at least every WatchdogSec/4).
    A ping goes out at most every WatchdogSec/4 and only if every watched
    source is fresh; a stale source stops the pings, shows why in `systemctl
    status`, and systemd restarts the table once WatchdogSec has passed.
    `tick()` returns whether the table is healthy, with or without systemd.
    """

    def __init__(self, notifier: Notifier, *, clock: Clock = time.monotonic) -> None:
        self.notifier = notifier
        self.interval = notifier.watchdog_interval  # None: systemd expects no pings
        self.clock = clock
        self._sources: dict[str, _Source] = {}
        self._lock = threading.Lock()  # beat() comes from driver threads
        self._next_ping = clock()  # the first healthy tick pings at once
        self._unhealthy: tuple[str, ...] = ()
        self._status = ""
        self.pings = 0
        self.failures = 0  # pings systemd did not get (each one logged)
        self.last_error: str | None = None

    # ------------------------------------------------------ the sources
    def watch(
        self, name: str, max_age: float, since: Callable[[], float | None] | None = None
    ) -> None:
        """Require `name` to be seen alive at least every `max_age` seconds.

        Alive means a `beat(name)`, or, with `since`, the clock time it returns
        (the camera's last frame, say; None: nothing yet). The age counts from
        now until the first sign.
        """
        if max_age <= 0:
            raise ValueError(f"watchdog source {name!r}: max_age must be above 0, not {max_age}")
        if self.interval is not None and max_age >= self.interval:
            log.warning(
                "watchdog source %r: max_age %.1f s is not below WatchdogSec %.1f s: "
                "systemd acts before this source can be judged stale",
                name,
                max_age,
                self.interval,
            )
        with self._lock:
            self._sources[name] = _Source(max_age, since, self.clock())

    def unwatch(self, name: str) -> None:
        """Stop requiring `name` (a camera reported gone: an alert, not a restart, is due)."""
        with self._lock:
            self._sources.pop(name, None)

    def beat(self, name: str) -> None:
        """`name` is alive now. Thread-safe and cheap: call it per frame if you like."""
        now = self.clock()
        with self._lock:
            source = self._sources.get(name)
            if source is not None:
                source.last = now

    def stale(self) -> list[tuple[str, str]]:
        """The stale sources now, as (name, why); [] when healthy."""
        now = self.clock()
        reasons = []
        with self._lock:
            sources = list(self._sources.items())
        for name, source in sorted(sources):
            last = source.last
            if source.since is not None:
                seen = source.since()
                if seen is not None:
                    last = max(last, seen)
            age = now - last
            if age > source.max_age:
                why = f"{name}: nothing for {age:.1f} s (limit {source.max_age:g} s)"
                reasons.append((name, why))
        return reasons

    # ------------------------------------------------------ the loop's side
    def status(self, text: str) -> None:
        """Set the normal status line; shown whenever the table is healthy."""
        self._status = text
        if not self._unhealthy:
            self._send(self.notifier.status, text)

    def tick(self) -> bool:
        """Judge health now and ping systemd when due; True when healthy."""
        reasons = self.stale()
        names = tuple(name for name, _ in reasons)
        if names != self._unhealthy:  # said once per change, not on every turn
            self._unhealthy = names
            self._changed([why for _, why in reasons])
        if reasons:
            return False
        now = self.clock()
        interval = self.interval
        if interval is not None and now >= self._next_ping and self._send(self.notifier.ping):
            self.pings += 1
            self._next_ping = now + interval / 4
        # a ping that failed is not rescheduled: the next tick tries again
        return True

    def _changed(self, reasons: list[str]) -> None:
        if reasons:
            text = "; ".join(reasons)
            log.warning("unhealthy, not feeding the watchdog: %s", text)
            self._send(self.notifier.status, f"unhealthy, watchdog not fed: {text}")
        else:
            log.info("healthy again, feeding the watchdog")
            self._send(self.notifier.status, self._status or "healthy")

    def _send(self, send: Callable[..., bool], *args: str) -> bool:
        try:
            return send(*args)
        except NotifyError as exc:
            self.failures += 1
            self.last_error = str(exc)
            log.error("%s", exc)
            return False
