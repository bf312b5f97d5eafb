"""The card source the table service takes card events from.

`CardSource` turns a stream of shoe-camera frames into one `ShoeRead` per
physical card. Frames come from a `Capture` (the real camera) or from any
iterable of images (the simulator's `ShoeCamera.deal(...)` frames). It knows
nothing of MQTT or the rules engine: the service maps a read with a card to a
`card` event and a read with card None to an `unreadable` alert.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from drivers.camera.capture import Capture
from drivers.vision.glyphs import Image
from drivers.vision.learned import learned_model
from drivers.vision.reader import Model
from drivers.vision.shoe import ShoeGeometry, ShoeRead, ShoeReader

__all__ = ["CardSource", "ShoeRead"]


class CardSource:
    """Frames in, card reads out.

    model: a calibration's reader (`VisionCalibration.model()`); None uses
    the learned reader (drivers.vision.learned): out of fold it reads more
    of the frames of unseen decks than the generic reader, and misreads
    fewer (docs/vision.md).
    geometry: where the index crosses the frame (a camera calibration's
    `geometry`); None uses the nominal shoe mount.
    """

    def __init__(self, model: Model | None = None,
                 geometry: ShoeGeometry | None = None) -> None:
        self.reader = ShoeReader(model or learned_model(), geometry)

    @classmethod
    def from_calibration(cls, path: Path | None) -> CardSource:
        """From a calibration file (deck or camera); None: uncalibrated."""
        if path is None:
            return cls()
        from drivers.vision.vision_file import load

        cal = load(path)
        return cls(cal.model(), cal.geometry)

    def feed(self, image: Image, frame_index: int) -> list[ShoeRead]:
        """Push one frame; returns the cards finished in it (usually none)."""
        return self.reader.feed(image, frame_index)

    def flush(self) -> list[ShoeRead]:
        """End of stream: the card still in view, if any."""
        return self.reader.flush()

    def reads(self, frames: Iterable[Image]) -> Iterator[ShoeRead]:
        """Pull style over plain images (the simulator), numbered from 0."""
        for i, image in enumerate(frames):
            yield from self.feed(image, i)
        yield from self.flush()

    def run(self, capture: Capture) -> Iterator[ShoeRead]:
        """Pull style over a running capture; frame numbers count dropped
        frames too, so gaps are visible in `ShoeRead.frame_index`."""
        for frame in capture.frames():
            yield from self.feed(frame.image, frame.index)
        yield from self.flush()
