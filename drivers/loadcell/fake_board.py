"""A fake load-cell board on a `FakeSerialDevice`: a test tool.

    board = FakeBoard(device, calibration, channels=7)
    board.start()                      # streams LC1 frames like the firmware
    board.put(1, 21.0)                 # 21 g of chips on channel 1
    board.stick(2)                     # channel 2 repeats one raw value forever
    board.flap(3, 0.0, 50.0)           # channel 3 jumps between two weights
    board.fail(4)                      # channel 4 reports `E`

Readings carry a few counts of noise, as a live HX711 does, so only `stick`
makes a stuck sensor.
"""

from __future__ import annotations

import random
import threading

from drivers.fake_serial import FakeSerialDevice
from drivers.loadcell.frame import encode_frame
from drivers.loadcell.scale import ScaleCalibration


class FakeBoard:
    def __init__(
        self,
        device: FakeSerialDevice,
        calibration: ScaleCalibration,
        channels: int,
        period: float = 0.02,
        noise_counts: int = 3,
        seed: int = 1,
    ) -> None:
        self.device = device
        self.cal = calibration
        self.channels = channels
        self.period = period
        self.noise = noise_counts
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.grams = dict.fromkeys(range(1, channels + 1), 0.0)
        self.stuck: dict[int, int] = {}
        self.failed: set[int] = set()
        self.flapping: dict[int, tuple[float, float]] = {}
        self.raw_override: dict[int, int] = {}

    def start(self) -> None:
        self.device.stream(self.frame, self.period)

    def stop(self) -> None:
        self.device.stop_stream()

    def put(self, channel: int, grams: float) -> None:
        with self.lock:
            self.grams[channel] = grams
            self.stuck.pop(channel, None)
            self.flapping.pop(channel, None)
            self.failed.discard(channel)
            self.raw_override.pop(channel, None)

    def stick(self, channel: int) -> None:
        with self.lock:
            self.stuck[channel] = self._raw(channel)

    def fail(self, channel: int) -> None:
        with self.lock:
            self.failed.add(channel)

    def flap(self, channel: int, low: float, high: float) -> None:
        with self.lock:
            self.flapping[channel] = (low, high)

    def raw(self, channel: int, value: int) -> None:
        """Send exactly `value` counts (for out-of-range readings)."""
        with self.lock:
            self.raw_override[channel] = value

    def _raw(self, channel: int, i: int = 0) -> int:
        grams = self.grams[channel]
        if channel in self.flapping:
            low, high = self.flapping[channel]
            grams = low if (i // 2) % 2 else high
        c = self.cal.channel(channel)
        return round(c.offset + grams * c.counts_per_gram) + self.rng.randint(
            -self.noise, self.noise
        )

    def frame(self, i: int) -> bytes:
        with self.lock:
            raws: list[int | None] = []
            for ch in range(1, self.channels + 1):
                if ch in self.failed:
                    raws.append(None)
                elif ch in self.raw_override:
                    raws.append(self.raw_override[ch])
                elif ch in self.stuck:
                    raws.append(self.stuck[ch])
                else:
                    raws.append(self._raw(ch, i))
            return encode_frame(i % 0x10000, raws)
