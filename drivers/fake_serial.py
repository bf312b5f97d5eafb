"""Fake serial devices for the serial drivers: on a pseudo-terminal, or on a cable
with no port at all.

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
`/dev/serial/by-id/...` name. No `serial` import here: only the drivers import it.

    cable = Cable(SerialKeypad(LinkSettings("sim-keypad")))
    cable.start(sink)                            # the driver contract
    cable.write(encode_key(1, "stand", 120))     # handled before write returns

A `Cable` is for a simulated device at full speed (sim.board): no port and
no reader thread, the bytes go through the driver's own framing, checks and
handler (`SerialDevice.receive`) on the writer's thread, so the simulator
drives the real driver without a thread hop per line. The pty is what tests
of the port itself use.
"""

from __future__ import annotations

import os
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from drivers.interfaces import Sink
from drivers.serial.lines import Framer

if TYPE_CHECKING:  # the module stays importable without pyserial
    from drivers.serial.link import SerialDevice


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


class Cable:
    """A serial device's cable with no port under it (see the module's docstring)."""

    def __init__(self, device: SerialDevice) -> None:
        self.device = device
        self._framer = Framer(device.link.max_line)

    def start(self, sink: Sink) -> None:
        """Plug the device in: it reports to `sink` from now on, its numbering fresh."""
        self._framer.reset()
        self.device.sink = sink
        self.device.opened()
        self.device.connected.set()

    def stop(self) -> None:
        self.device.connected.clear()
        self.device.sink = None

    def write(self, data: bytes) -> None:
        """The device sends `data`: framed and handled on this thread, as if read."""
        if self.device.sink is None:
            # A real cable would carry it to nobody: the service would never see it.
            raise RuntimeError(f"{self.device.name}: the cable is not plugged in (start first)")
        self.device.receive(self._framer, data, time.monotonic())
