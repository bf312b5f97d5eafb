"""The simulated shoe camera: frames of cards sliding out of the shoe.

The camera looks down at the shoe's exit ramp (640x480). A card enters at the
top edge, slides down through the view and leaves at the bottom edge, its
index corner on the left, inside the band `drivers.vision.shoe.ShoeGeometry`
expects by default. Everything is drawn from one seed, so a failing frame can
be rendered again.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from drivers.vision.glyphs import Image
from sim.camera.decks import Deck
from sim.camera.optics import OpticsRange, Points, background, card_corners, expose, place


@dataclass(frozen=True)
class ShoeMount:
    """Nominal geometry of the camera over the ramp."""

    frame_size: tuple[int, int] = (640, 480)
    card_width: float = 210.0
    card_left: float = 96.0  # x of the card's left edge
    x_jitter: float = 5.0  # the ramp lets a card wander this much sideways
    max_angle: float = 2.0  # degrees
    perspective: float = 0.02  # corner jitter as a fraction of the card width
    ramp_colour: tuple[int, int, int] = (48, 46, 44)
    shutter: float = 0.06  # exposure time as a fraction of the frame interval

    @property
    def card_height(self) -> float:
        return self.card_width * 1.4


@dataclass(frozen=True)
class ShoeFrame:
    image: Image
    index: int
    card: str | None  # the card in view (None: empty ramp)
    card_number: int | None  # position of that card in the deal


class ShoeCamera:
    """Renders shoe-camera frames from a deck's faces."""

    def __init__(
        self,
        deck: Deck,
        seed: int = 0,
        mount: ShoeMount | None = None,
        fps: float = 30.0,
        optics: OpticsRange | None = None,
    ) -> None:
        self.deck = deck
        self.mount = mount or ShoeMount()
        self.fps = fps
        self.optics = optics or OpticsRange()
        self.rng = np.random.default_rng(seed)
        self.ramp = background(self.mount.frame_size, self.mount.ramp_colour, seed)

    def _face(self, card: str | Image) -> Image:
        return self.deck[card] if isinstance(card, str) else card

    def _pose(self) -> tuple[float, float, Points]:
        m = self.mount
        dx = float(self.rng.uniform(-m.x_jitter, m.x_jitter))
        angle = float(self.rng.uniform(-m.max_angle, m.max_angle))
        jitter = self.rng.uniform(-1, 1, (4, 2)).astype(np.float32) * m.perspective * m.card_width
        return dx, angle, jitter

    def _frame(
        self,
        face: Image | None,
        top: float,
        pose: tuple[float, float, Points],
        motion: float | None,
        clean: bool = False,
    ) -> Image:
        m = self.mount
        frame = self.ramp.copy()
        if face is not None:
            dx, angle, jitter = pose
            cx = m.card_left + dx + m.card_width / 2
            cy = top + m.card_height / 2
            place(frame, face, card_corners(cx, cy, m.card_width, m.card_height, angle, jitter))
        if clean:
            return frame
        optics = self.optics.draw(self.rng, m.frame_size, motion)
        return expose(frame, optics, self.rng)

    def still(self, card: str | Image, clean: bool = False) -> Image:
        """One frame with the card at rest, wholly in view, at a random place
        along the ramp (the benchmark frames)."""
        m = self.mount
        top = float(self.rng.uniform(4.0, m.frame_size[1] - m.card_height - 4.0))
        return self._frame(self._face(card), top, self._pose(), None, clean)

    def empty(self) -> Image:
        return self._frame(None, 0.0, self._pose(), 0.0)

    def deal(
        self,
        cards: Sequence[str | Image],
        speed: tuple[float, float] = (35.0, 80.0),
        gap: tuple[int, int] = (3, 12),
    ) -> Iterator[ShoeFrame]:
        """Frames of a whole deal: each card slides through the view at a speed
        (pixels per frame at this fps) drawn from `speed`, with `gap` empty
        frames before it; starts and ends on an empty ramp."""
        m = self.mount
        index = 0
        for number, card in enumerate(cards):
            for _ in range(int(self.rng.integers(gap[0], gap[1] + 1))):
                yield ShoeFrame(self.empty(), index, None, None)
                index += 1
            v = float(self.rng.uniform(*speed)) * 30.0 / self.fps
            pose = self._pose()
            face = self._face(card)
            top = -m.card_height + float(self.rng.uniform(0.0, v))
            code = card if isinstance(card, str) else None
            while top < m.frame_size[1]:
                img = self._frame(face, top, pose, v * m.shutter)
                yield ShoeFrame(img, index, code, number)
                index += 1
                top += v
        for _ in range(gap[1]):
            yield ShoeFrame(self.empty(), index, None, None)
            index += 1

    def stuck_pair(self, first: str, second: str, offset: float = 0.35) -> Iterator[ShoeFrame]:
        """Two cards pulled out together, the second `offset` card heights
        behind the first (they overlap): frames of their pass."""
        m = self.mount
        v = 50.0
        pose_a, pose_b = self._pose(), self._pose()
        top = -m.card_height
        index = 0
        for _ in range(3):
            yield ShoeFrame(self.empty(), index, None, None)
            index += 1
        while top - offset * m.card_height < m.frame_size[1]:
            frame = self.ramp.copy()
            for face, t, pose in (
                (self.deck[second], top - offset * m.card_height, pose_b),
                (self.deck[first], top, pose_a),
            ):
                dx, angle, jitter = pose
                corners = card_corners(
                    m.card_left + dx + m.card_width / 2,
                    t + m.card_height / 2,
                    m.card_width,
                    m.card_height,
                    angle,
                    jitter,
                )
                place(frame, face, corners)
            img = expose(frame, self.optics.draw(self.rng, m.frame_size, v * m.shutter), self.rng)
            yield ShoeFrame(img, index, first, 0)
            index += 1
            top += v
        for _ in range(4):
            yield ShoeFrame(self.empty(), index, None, None)
            index += 1
