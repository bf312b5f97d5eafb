"""Blocking reads of a few load-cell frames, for the calibration tool.

The table's driver streams in a thread; calibration only needs "the next N
frames, now", with a clear error when the board does not answer.
"""

from __future__ import annotations

import time

import serial

from drivers.loadcell.frame import TAG, VERSION, Frame, parse
from drivers.serial.lines import Framer, Line, decode


class BoardError(RuntimeError):
    pass


def read_frames(port: str, baudrate: int, count: int, timeout: float = 10.0) -> list[Frame]:
    try:
        link = serial.Serial(port, baudrate, timeout=0.1, exclusive=True)
    except (serial.SerialException, OSError, ValueError) as exc:
        raise BoardError(f"cannot open {port}: {exc}") from None
    framer = Framer()
    frames: list[Frame] = []
    deadline = time.monotonic() + timeout
    try:
        while len(frames) < count:
            if time.monotonic() > deadline:
                raise BoardError(
                    f"{port}: only {len(frames)} of {count} frames in {timeout:g} s: "
                    "is the board running its LC1 firmware at this baud rate?"
                )
            for item in framer.feed(link.read(max(1, link.in_waiting))):
                line = decode(item) if isinstance(item, bytes) else item
                if isinstance(line, Line) and (line.tag, line.version) == (TAG, VERSION):
                    frame = parse(line)
                    if isinstance(frame, Frame):
                        frames.append(frame)
    except (serial.SerialException, OSError) as exc:
        raise BoardError(f"{port}: {exc}") from None
    finally:
        link.close()
    return frames[:count]
