"""The bet sensors on a load-cell board: `BetSeen` when a spot's stake settles.

The board streams every channel 10 times a second (`frame.py`); each
channel runs through its `ChannelState` (settling, stuck, flapping, range),
and a settled stake that differs from the last one reported becomes a
`BetSeen` for the spot the channel is mapped to. Faults are per channel and
name the box; the link's own faults (unplugged, silent, garbled) name none.

An optional presence check (the GPIO presence sensors) is asked, when a
stake settles, whether it sees chips on that box: a disagreement is a fault
(a sensor is lying, or something that is not a chip is on the spot).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from drivers.interfaces import BetSeen
from drivers.loadcell.channel import ChannelState, SettleSettings, Update
from drivers.loadcell.frame import TAG, VERSION, Frame, parse
from drivers.loadcell.scale import ScaleCalibration
from drivers.serial.lines import Line, seq_gap
from drivers.serial.link import LinkSettings, SerialDevice
from drivers.settings import LoadCellSection, SpotSection

Presence = Callable[[int], bool | None]  # box -> chips seen (None: unknown)


class LoadCellBets(SerialDevice):
    tag, version = TAG, VERSION

    def __init__(
        self,
        link: LinkSettings,
        calibration: ScaleCalibration,
        spots: list[SpotSection],
        settle: SettleSettings,
        presence: Presence | None = None,
        name: str = "loadcell",
    ) -> None:
        super().__init__(name, link)
        self.spots = {s.channel: s for s in spots}
        self.channels = {
            s.channel: ChannelState(calibration.channel(s.channel), calibration, settle)
            for s in spots
        }
        self.presence = presence
        self.frames = 0
        self.lost = 0  # frames missed (sequence gaps)
        self._seq: int | None = None

    @classmethod
    def from_config(
        cls, cfg: LoadCellSection, calibration: ScaleCalibration, presence: Presence | None = None
    ) -> LoadCellBets:
        link = LinkSettings.of(cfg)
        settle = SettleSettings(
            cfg.settle_s,
            cfg.band_g,
            cfg.stuck_frames,
            max_g=cfg.max_g,
            flap_changes=cfg.flap_changes,
            flap_window_s=cfg.flap_window_s,
        )
        return cls(link, calibration, list(cfg.spots), settle, presence)

    def opened(self) -> None:
        self._seq = None
        for state in self.channels.values():
            state.restart()

    def handle(self, line: Line, now: float) -> str | None:
        frame = parse(line)
        if isinstance(frame, str):
            return frame
        wanted = max(self.spots)
        if len(frame.raws) < wanted:
            self.fault(
                "channels",
                f"the board sends {len(frame.raws)} channels, the table maps channel {wanted}: "
                "check the board's firmware and the [drivers.loadcell] spots",
            )
            return f"{len(frame.raws)} channels, need {wanted}"
        self.health.clear("channels")
        self._count(frame)
        for number, state in self.channels.items():
            self._apply(number, state.update(now, frame.raws[number - 1]))
        return None

    def _count(self, frame: Frame) -> None:
        self.frames += 1
        if self._seq is not None:
            gap = seq_gap(self._seq, frame.seq)
            if gap:
                self.lost += gap
                self.log.debug("%d frames lost before %d", gap, frame.seq)
        self._seq = frame.seq

    def _apply(self, number: int, u: Update) -> None:
        spot = self.spots[number]
        for key in u.clears:
            self.health.clear(f"{key}:{number}")
        for key, detail in u.faults:
            self.fault(f"{key}:{number}", f"box {spot.box} (channel {number}): {detail}", spot.box)
        if u.stake is None:
            return
        self._cross_check(spot, u.stake)
        self.send(BetSeen(spot.box, spot.spot, u.stake, spot.kind))

    def _cross_check(self, spot: SpotSection, stake: Decimal) -> None:
        if self.presence is None or spot.kind != "stake" or spot.spot != 0:
            return
        seen = self.presence(spot.box)
        key = f"presence:{spot.channel}"
        if seen is None or seen == (stake > 0):
            self.health.clear(key)
            return
        says = "chips" if seen else "no chips"
        self.fault(
            key,
            f"box {spot.box}: the presence sensor sees {says} but the scale reads a stake of "
            f"{stake}: one of them is wrong (or something other than chips is on the spot)",
            spot.box,
        )

    def stakes(self) -> dict[int, Decimal | None]:
        """The last stake reported per channel (for the status view)."""
        return {n: s.reported for n, s in self.channels.items()}
