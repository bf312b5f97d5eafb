"""A fake serial device on a pseudo-terminal: a test tool for the serial drivers.

    dev = FakeSerialDevice(tmp_path / "ttyLC")   # a device node path that
    driver = LoadCellBets(LinkSettings(str(dev.path)), ...)   # the driver opens
    dev.write(encode_frame(0, [8400, 8410]))     # the device sends bytes
    dev.unplug()                                 # the cable is pulled
    dev.replug()                                 # the device is back (a new pty)

The driver opens `path`, a symlink to the pty's slave side, with the real
pyserial; the test writes the device's bytes to the master side. Unplugging
closes the master (the driver's next read fails as on a pulled USB cable)
and removes the link (reopening fails as when the node disappears);
replugging makes a new pty and points the link at it, as udev does with a
`/dev/serial/by-id/...` name. Only the standard library: no `serial` import.
"""

from __future__ import annotations

import os
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path


class FakeSerialDevice:
    def __init__(self, path: Path, plugged: bool = True) -> None:
        self.path = path
        self.master: int | None = None
        self._slave: int | None = None
        self._lock = threading.Lock()
        self._streamer: threading.Thread | None = None
        self._streaming = threading.Event()
        if plugged:
            self.replug()

    @property
    def plugged(self) -> bool:
        return self.master is not None

    def replug(self) -> None:
        """Plug the device in (again): a fresh pty behind the same path."""
        with self._lock:
            self._close()
            master, slave = os.openpty()
            # Raw mode before the driver opens it: no echo, no newline translation.
            tty.setraw(slave)
            self.master, self._slave = master, slave
            tmp = self.path.with_name(self.path.name + ".new")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(os.ttyname(slave))
            tmp.replace(self.path)

    def unplug(self) -> None:
        with self._lock:
            self._close()
            self.path.unlink(missing_ok=True)

    def _close(self) -> None:
        for fd in (self.master, self._slave):
            if fd is not None:
                os.close(fd)
        self.master = self._slave = None

    def write(self, data: bytes) -> bool:
        """Send bytes as the device; False if it is unplugged (they are lost)."""
        with self._lock:
            if self.master is None:
                return False
            try:
                os.write(self.master, data)
            except OSError:
                return False
            return True

    # ----------------------------------------------------------- streaming
    def stream(self, frame: Callable[[int], bytes], period: float = 0.02) -> None:
        """Send `frame(i)` every `period` seconds from a thread, as a board does,
        until `stop_stream`. Frames sent while unplugged are lost, as on a real cable."""
        self.stop_stream()
        self._streaming.set()

        def run() -> None:
            i = 0
            while self._streaming.is_set():
                self.write(frame(i))
                i += 1
                time.sleep(period)

        self._streamer = threading.Thread(target=run, name="fake-device", daemon=True)
        self._streamer.start()

    def stop_stream(self) -> None:
        self._streaming.clear()
        if self._streamer is not None:
            self._streamer.join(timeout=5)
            self._streamer = None

    def close(self) -> None:
        self.stop_stream()
        self.unplug()
