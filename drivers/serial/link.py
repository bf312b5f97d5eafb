"""A serial device kept open: retry with backoff, a reader thread, reconnection.

Modelled on Klipper's `serialhdl.py`: the port is opened by a thread that
retries with an exponential backoff (a board that is not plugged in yet is
not an error the table stops for), a reader frames the byte stream into
lines and hands each to the device's `handle`, and any failure (the cable
pulled, the device node gone, silence, garbage) closes the port and starts
over. Nothing raises out of the thread: a bug in a handler is logged and
reported as a fault, and the thread goes on reading.

A subclass decodes lines (`handle`) and may watch the clock (`tick`). It
reports through `self.send` and `self.health`. Devices that number their
lines (the card shoe, the keypad) share `NumberedDevice`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import serial

from drivers.serial.lines import MAX_LINE, Framer, Line, Reject, decode, seq_gap
from drivers.settings import LinkSection
from drivers.worker import DriverWorker


@dataclass(frozen=True)
class LinkSettings:
    port: str
    baudrate: int = 115200
    backoff_min: float = 0.2  # seconds before the first retry
    backoff_max: float = 5.0  # the retry interval never grows past this
    silence: float | None = 3.0  # no valid line for this long: reopen (None: never)
    garbled: int = 8  # this many bad lines in a row: report the link as garbled
    max_line: int = MAX_LINE

    @classmethod
    def of(cls, cfg: LinkSection) -> LinkSettings:
        """The settings of a device's config section ([drivers.shoe], ...)."""
        return cls(cfg.port, cfg.baudrate, backoff_max=cfg.backoff_max_s, silence=cfg.silence_s)


class SerialDevice(DriverWorker):
    """The thread and the port; subclasses decode the lines."""

    tag = "??"
    version = 0

    def __init__(self, name: str, link: LinkSettings) -> None:
        super().__init__(name, f"{name}@{link.port}")
        self.link = link
        self.connected = threading.Event()  # set while the port is open
        self.opens = 0  # successful opens, for tests and logs
        self.rejected = 0  # lines refused (garbage, checksum, oversized, unknown)
        self._bad_run = 0

    # ------------------------------------------------------ for subclasses
    def fault(self, key: str, detail: str, box: int | None = None) -> None:
        self.health.fault(self.sink, key, detail, box)

    def handle(self, line: Line, now: float) -> str | None:
        """Act on a decoded line of our tag and version; return a reason to refuse it."""
        raise NotImplementedError

    def tick(self, now: float) -> None:
        """Called about every read timeout while the port is open (timers, watchdogs)."""

    def opened(self) -> None:
        """The port (re)opened: forget per-connection state."""

    # ------------------------------------------------------------ the thread
    def _run(self) -> None:
        delay = self.link.backoff_min
        while not self._stop.is_set():
            port = self._open()
            if port is None:
                self._stop.wait(delay)
                delay = min(delay * 2, self.link.backoff_max)
                continue
            delay = self.link.backoff_min
            try:
                self._serve(port)
            except (serial.SerialException, OSError) as exc:
                self.fault("link", f"lost the connection: {exc}")
            except Exception as exc:  # a bug must not kill the reader: log, reopen
                self.log.exception("reader failed")
                self.fault("link", f"reader failed: {type(exc).__name__}: {exc}")
            finally:
                self.connected.clear()
                try:
                    port.close()
                except Exception:
                    self.log.debug("close failed", exc_info=True)
            self._stop.wait(self.link.backoff_min)

    def _open(self) -> serial.Serial | None:
        try:
            port = serial.Serial(self.link.port, self.link.baudrate, timeout=0.1, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as exc:
            self.fault("link", f"cannot open {self.link.port}: {exc}")
            return None
        self.opens += 1
        self.log.info("opened at %d baud", self.link.baudrate)
        self.health.clear("link")
        self.connected.set()
        return port

    def _serve(self, port: serial.Serial) -> None:
        framer = Framer(self.link.max_line)
        self._bad_run = 0
        self.opened()
        last_good = time.monotonic()
        while not self._stop.is_set():
            data = port.read(max(1, port.in_waiting))
            now = time.monotonic()
            if self.receive(framer, data, now):
                last_good = now
            self._guarded_tick(now)
            silence = self.link.silence
            if silence is not None and now - last_good > silence:
                self.fault("link", f"no valid line for {silence:g} s: reopening the port")
                return

    def receive(self, framer: Framer, data: bytes, now: float) -> bool:
        """Bytes off the line: frame them, handle each line; True if one was valid.

        The reader thread calls it with what the port gave; a cable without a port
        (drivers.fake_serial.Cable) calls it with what a simulated device sent."""
        valid = False
        for item in framer.feed(data):
            valid = self._line(item, now) or valid
        return valid

    def _line(self, item: bytes | Reject, now: float) -> bool:
        """One framed line: True if it was a valid frame for this device."""
        decoded = decode(item) if isinstance(item, bytes) else item
        reason: str | None
        if isinstance(decoded, Reject):
            reason = decoded.reason
        elif (decoded.tag, decoded.version) != (self.tag, self.version):
            reason = f"a {decoded.tag}{decoded.version} frame, expected {self.tag}{self.version}"
        else:
            try:
                reason = self.handle(decoded, now)
            except Exception as exc:
                self.log.exception("handler failed on %r", decoded)
                reason = f"handler failed: {type(exc).__name__}"
        if reason is None:
            self._bad_run = 0
            self.health.clear("garbled")
            return True
        self.rejected += 1
        self._bad_run += 1
        self.log.debug("line refused: %s", reason)
        if self._bad_run >= self.link.garbled:
            # One wording for the whole outage, so it is one alert and not one a line.
            self.fault(
                "garbled",
                f"{self.link.garbled} or more bad lines in a row: "
                "check the cable, the baud rate and the firmware version",
            )
        return False

    def _guarded_tick(self, now: float) -> None:
        try:
            self.tick(now)
        except Exception:
            self.log.exception("tick failed")


class NumberedDevice(SerialDevice):
    """A device whose every line carries a sequence number (0..65535, wrapping): a
    repeated number is a resend, a skipped one a line lost. After a reconnect the
    first line's number is taken as it comes (the device may have restarted)."""

    def __init__(self, name: str, link: LinkSettings) -> None:
        super().__init__(name, link)
        self._seq: int | None = None

    def opened(self) -> None:
        self._seq = None

    def numbered(self, seq: int) -> int | None:
        """The lines lost before line `seq` (0: none), or None when it is a resend of
        the line we already have."""
        if seq == self._seq:
            return None
        lost = 0 if self._seq is None else seq_gap(self._seq, seq)
        self._seq = seq
        return lost
