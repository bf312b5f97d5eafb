"""Shoe mode: the index corner of each card crosses a fixed band of the shoe
camera; follow it across frames and give exactly one read per card.

The shoe camera looks at the exit ramp of the shoe. Cards slide through the
view from the top edge of the frame to the bottom edge, index corner on the
left; calibration fixes the band the index corner crosses and the glyph size.
Only that band is processed, which keeps a frame to a few milliseconds.

A *pass* is the time something lighter than the empty ramp is in the band.
Within a pass every index seen is assigned to a *track* (indices only move
down); a pass normally holds one track. Two cards pulled out together show
two indices and make two tracks, both reported, leading card first. A pass in
which no index could be read still yields one read, with card None, so the
dealer is asked to key the card in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from drivers.vision.corner import (
    CARD_W,
    MARGIN,
    CornerPose,
    patch_inside,
    shoe_corners,
)
from drivers.vision.glyphs import Image, IndexPlace, find_index_places, percentile, to_gray
from drivers.vision.reader import RANK_ANCHOR, CornerRead, Model, patch_for


@dataclass(frozen=True)
class ShoeGeometry:
    """Where the index corner passes in the shoe camera frame."""

    frame_size: tuple[int, int] = (640, 480)  # width, height
    # x range of the card's left edge and index corner: 100 px right of the
    # nominal edge (x 96), where a rank printed beside its suit ends
    band: tuple[int, int] = (70, 196)
    rank_height: int = 36  # rank glyph height in pixels
    card_width: float = 210.0  # card width in pixels

    @property
    def scale(self) -> float:
        """Image pixels per canonical card pixel."""
        return self.card_width / CARD_W

    def check(self) -> None:
        w, _ = self.frame_size
        left, right = self.band
        if not (0 <= left < right <= w):
            raise ValueError(f"band {self.band} is not inside a frame {w} pixels wide")
        if not 8 <= self.rank_height <= 200:
            raise ValueError(f"rank height {self.rank_height} px is out of range 8..200")
        if not 40.0 <= self.card_width <= 2.0 * w:
            raise ValueError(f"card width {self.card_width} px is out of range 40..{2 * w}")


@dataclass(frozen=True)
class ShoeRead:
    """One physical card out of the shoe.

    card: two-character code, or None when the card could not be read (the
    service raises an `unreadable` alert and the dealer keys the card in).
    reason: None for a read card; otherwise `no_index` (nothing like an index
    was seen: card back, cut card, a card pulled too fast), `low_confidence`
    or `conflict` (frames disagreed).
    """

    card: str | None
    confidence: float
    frame_index: int  # frame in which the card was read best (or first seen)
    first_frame: int
    last_frame: int
    frames_read: int  # frames whose index read agreed with `card`
    reason: str | None = None


@dataclass
class _Seen:
    frame: int
    y: float
    card: str | None
    raw: str  # best labels even when rejected, to detect conflicts
    confidence: float
    indexed: bool = True  # the corner looked like an index of the deck at all


@dataclass
class _Track:
    seen: list[_Seen] = field(default_factory=list)

    @property
    def last(self) -> _Seen:
        return self.seen[-1]

    def speed(self) -> float:
        """Pixels per frame from the last two sightings (a typical pull
        speed until there are two)."""
        if len(self.seen) < 2:
            return TYPICAL_STEP
        a, b = self.seen[-2], self.seen[-1]
        return (b.y - a.y) / max(1, b.frame - a.frame)


# Presence: a band pixel counts as card when this much lighter than the empty ramp.
PRESENCE_DELTA = 45.0
PRESENCE_ON = 0.20  # fraction of band pixels to start a pass
PRESENCE_OFF = 0.08  # below this for END_FRAMES frames ends the pass
END_FRAMES = 2
START_FRAMES = 2  # frames above PRESENCE_ON to start a pass (a glare flash is one)
MIN_PASS_FRAMES = 4  # a pass shorter than this with no index is not a card
MAX_STEP = 160.0  # largest downward move of an index between two frames, pixels
TYPICAL_STEP = 55.0  # pixels per frame of a card pulled at a usual speed
BACK_TOLERANCE = 6.0  # an index may seem to move up this much (jitter)
ACCEPT = 0.5  # combined confidence needed to report a card
CONFLICT_MIN = 0.15  # a disagreeing frame this sure makes the card a conflict


class ShoeReader:
    """Feed frames in order; get ShoeRead objects as cards leave the view."""

    def __init__(self, model: Model, geometry: ShoeGeometry | None = None) -> None:
        self.model = model
        self.geometry = geometry or ShoeGeometry()
        self.geometry.check()
        self._background: float | None = None
        self._in_pass = False
        self._quiet = 0
        self._tracks: list[_Track] = []
        self._pass_start = 0
        self._last_frame = -1
        self._rising = 0
        self._pending: list[tuple[Image, int]] = []

    def band_of(self, frame: Image) -> Image:
        """The band of the frame, a copy of its own (band_copy)."""
        return band_copy(frame, self.geometry)

    def presence(self, band_gray: Image) -> float:
        median = float(np.median(band_gray[::4, ::4]))
        if self._background is None:
            self._background = median
        frac = float(np.mean(band_gray[::2, ::2] > self._background + PRESENCE_DELTA))
        if frac < 0.02:
            # Follow slow light changes of the empty ramp.
            self._background = 0.9 * self._background + 0.1 * median
        return frac

    def feed(self, frame: Image, frame_index: int) -> list[ShoeRead]:
        """Process one frame; returns the cards that finished in it (usually none)."""
        self._last_frame = frame_index
        band = self.band_of(frame)
        gray = to_gray(band)
        frac = self.presence(gray)
        out: list[ShoeRead] = []
        if not self._in_pass:
            if frac < PRESENCE_ON:
                self._rising = 0
                self._pending = []
                return out
            self._rising += 1
            # (held past this frame: band_of copied it out of the camera's buffer)
            self._pending.append((band, frame_index))
            if self._rising < START_FRAMES:
                return out
            self._in_pass, self._quiet, self._tracks = True, 0, []
            self._pass_start = self._pending[0][1]
            for old_band, old_index in self._pending[:-1]:
                self._observe(old_band, old_index)
            self._pending = []
        if frac < PRESENCE_OFF:
            self._quiet += 1
            if self._quiet >= END_FRAMES:
                return self._end_pass()
            return out
        self._quiet = 0
        self._observe(band, frame_index, gray)
        return out

    def flush(self) -> list[ShoeRead]:
        """End of stream: report a card still in view."""
        return self._end_pass() if self._in_pass else []

    def _observe(self, band: Image, frame_index: int, gray: Image | None = None) -> None:
        ramp = self._background if self._background is not None else 48.0
        for pose, read in read_band(band, self.model, self.geometry, ramp, gray):
            self._assign(_Seen(frame_index, pose.origin[1], read.card, read.best,
                               read.confidence, read.is_index))

    def _assign(self, seen: _Seen) -> None:
        """Give a detection to the track whose predicted position it is
        nearest (indices only move down, at most MAX_STEP a frame)."""
        best: _Track | None = None
        best_cost = float("inf")
        for track in self._tracks:
            last = track.last
            dt = seen.frame - last.frame
            if dt <= 0:
                continue
            step = seen.y - last.y
            if not -BACK_TOLERANCE <= step <= MAX_STEP * dt:
                continue
            expected = track.speed() * dt
            if (_other_card(track, seen) and expected > 2 * BACK_TOLERANCE
                    and step < 0.5 * expected):
                # Surely another card, well behind where this one is by now:
                # the card following it (two cards pulled out together) whose
                # index shows where the first one's was.
                continue
            cost = abs(seen.y - (last.y + expected))
            if cost < best_cost:
                best, best_cost = track, cost
        if best is None:
            best = _Track()
            self._tracks.append(best)
        best.seen.append(seen)

    def _end_pass(self) -> list[ShoeRead]:
        self._in_pass = False
        start, end = self._pass_start, self._last_frame
        tracks = [t for t in self._tracks if t.seen]
        self._tracks = []
        self._rising, self._pending = 0, []
        if not tracks:
            if end - start + 1 < MIN_PASS_FRAMES:
                return []  # a flash of light on the empty ramp, not a card
            return [ShoeRead(None, 0.0, start, start, end, 0, "no_index")]
        # A lone detection in a pass that has a well-seen card is noise
        # (a glyph-like blot on the face), not a second card.
        strong = max(len(t.seen) for t in tracks)
        tracks = [t for t in tracks if len(t.seen) >= 2 or strong < 3]
        # Leading card first: the one whose index entered the view first,
        # estimated from all its sightings (a stray early sighting of one
        # card in the other's track does not reorder them).
        tracks.sort(key=_entry)
        reads = [decide(t, start, end) for t in tracks]
        return _merge_same_card(reads)


def _entry(track: _Track) -> float:
    """Frame at which the track's index was at the top of the view: the
    median over its sightings of frame - y / speed."""
    steps = [(b.y - a.y) / (b.frame - a.frame)
             for a, b in zip(track.seen, track.seen[1:], strict=False)
             if b.frame > a.frame and b.y > a.y]
    speed = float(np.median(steps)) if steps else TYPICAL_STEP
    return float(np.median([s.frame - s.y / max(speed, 1.0) for s in track.seen]))


def _other_card(track: _Track, seen: _Seen) -> bool:
    """The detection is read, surely, as a card that the track was read as
    surely, and never as this one."""
    if seen.card is None:
        return False
    cards = {s.card for s in track.seen if s.card is not None}
    return bool(cards) and seen.card not in cards


def _merge_same_card(reads: list[ShoeRead]) -> list[ShoeRead]:
    """Two tracks of one pass that read the same card are one card whose
    index was lost for a frame, not two identical cards."""
    out: list[ShoeRead] = []
    for r in reads:
        twin = next((o for o in out if r.card is not None and o.card == r.card), None)
        if twin is None:
            out.append(r)
            continue
        keep = max(twin, r, key=lambda x: x.confidence)
        merged = ShoeRead(keep.card, max(twin.confidence, r.confidence), keep.frame_index,
                          keep.first_frame, keep.last_frame, twin.frames_read + r.frames_read)
        out[out.index(twin)] = merged
    # An unread track beside a read one in the same pass is usually the
    # read card seen badly (entering or leaving the view): drop it. A pass
    # with nothing read is one unreadable card, however many blots it showed.
    if any(r.card is not None for r in out):
        return [r for r in out if r.card is not None]
    return out[:1]


def decide(track: _Track, start: int, end: int) -> ShoeRead:
    """One read from all the frames of one track: the card most frames agree
    on, unless some frame confidently says something else."""
    votes: dict[str, list[float]] = {}
    for s in track.seen:
        if s.card is not None:
            votes.setdefault(s.card, []).append(s.confidence)
    first = track.seen[0].frame
    if not votes:
        reason = "low_confidence" if any(s.indexed for s in track.seen) else "no_index"
        return ShoeRead(None, 0.0, first, start, end, 0, reason)
    card = max(votes, key=lambda c: (len(votes[c]), sum(votes[c])))
    confs = votes[card]
    # Any other accepted read is a conflict; unsure disagreeing frames are
    # one only when they are as many as the agreeing ones.
    accepted_other = len(votes) > 1
    unsure_other = [s for s in track.seen if s.card is None and s.raw != card
                    and s.confidence >= CONFLICT_MIN]
    if accepted_other or len(unsure_other) >= len(confs):
        return ShoeRead(None, 0.0, first, start, end, len(confs), "conflict")
    combined = 1.0 - float(np.prod([1.0 - c for c in confs]))
    best = max((s for s in track.seen if s.card == card), key=lambda s: s.confidence)
    if combined < ACCEPT:
        return ShoeRead(None, combined, best.frame, start, end, len(confs), "low_confidence")
    return ShoeRead(card, combined, best.frame, start, end, len(confs))


def empty_geometry_frame(geometry: ShoeGeometry, level: int = 40) -> Image:
    """A frame of the empty ramp (for tests and calibration checks)."""
    w, h = geometry.frame_size
    return np.full((h, w, 3), level, np.uint8)


def band_sharpness(band: Image) -> float:
    """Variance of the Laplacian: the usual focus measure."""
    return float(cv2.Laplacian(to_gray(band), cv2.CV_64F).var())


def band_poses(band: Image, model: Model, geometry: ShoeGeometry,
               ramp: float, gray: Image | None = None) -> list[CornerPose]:
    """Card corners in a band: from the card edges, plus one for each index
    found by its ink that no edge corner explains (a card lying over another,
    whose top edge does not show; a corner washed out by glare) and whose
    suit is shaped as one (suit_shaped). `gray`: the band's ink channel
    (to_gray), when the caller has it."""
    scale = geometry.scale
    # (both searches look at the ink channel alone: it is taken once)
    gray = to_gray(band) if gray is None else gray
    poses = shoe_corners(gray, scale, ramp)
    ax, ay = RANK_ANCHOR
    places = find_index_places(gray, geometry.rank_height)
    # An index lies by the card's left edge, in the column of the indices of
    # the corners found (or of the leftmost index): glyph pairs further right
    # are pips.
    columns = [p.origin[0] + ax * scale for p in poses] or \
        [min(float(i.rank_box.x) for i in places)] if places else []
    for place in places:
        rx, ry = float(place.rank_box.x), float(place.rank_box.y)
        if any(_explains(p, rx, ry, scale) for p in poses):
            continue
        if not any(abs(rx - c) <= 10.0 * scale for c in columns):
            continue
        if not suit_shaped(place):
            continue
        poses.append(CornerPose((rx - ax * scale, ry - ay * scale), (scale, 0.0), (0.0, scale),
                                "ink"))
    return poses


# A suit glyph, of any of the four suits in any deck's font, is a solid
# shape about as wide as tall. The band search finds a rank over a "suit" in
# every pair of shapes of a court picture, and on blots of the ramp beside a
# card; a corner placed there is read in full (a generic read tries every
# look: 1.25 ms on average, 3 to 6 ms at worst) and refused, and those reads
# were the slowest frames. Measured on the indices found by their ink and
# read right (545: 6,000 still frames of the three decks and 120 stuck
# pairs), the suit's width over its height is 0.61 to 1.29 and its ink
# fills 0.51 to 0.72 of its box (a heart 0.65, a diamond 0.5); the bounds
# lie well outside that. Of the 183 places read and refused, 82 fall
# outside them (a court picture's strokes: thin, hollow or long).
SUIT_ASPECT = (0.45, 1.6)
SUIT_FILL_MIN = 0.4


def suit_shaped(place: IndexPlace) -> bool:
    """The place's suit glyph has a suit's proportions and fill."""
    box = place.suit_box
    lo, hi = SUIT_ASPECT
    return lo * box.h <= box.w <= hi * box.h and place.suit_px >= SUIT_FILL_MIN * box.w * box.h


def _explains(pose: CornerPose, x: float, y: float, scale: float) -> bool:
    """The point (image px) lies in the index corner of the pose's card."""
    dx, dy = (x - pose.origin[0]) / scale, (y - pose.origin[1]) / scale
    return -6.0 <= dx <= 60.0 and -6.0 <= dy <= 90.0


# A corner placed from index ink may lie this far (canonical pixels) above
# the frame's top edge: the card's top edge and the paper over the index are
# then out of view, but the index is not (see in_view).
INK_TOP_SLACK = 4.0


def in_view(shape: tuple[int, ...], pose: CornerPose) -> bool:
    """The corner can be read in this band. A corner placed from the card's
    edges has its top edge in view, so its index is wholly in view even
    when the patch's margin runs off the frame. A corner placed from index
    ink has no edge to prove it, so its patch, margin included, must lie in
    the frame at the sides and the bottom. At the top it may run off by
    INK_TOP_SLACK: a card entering the view shows its index before its top
    edge. The ink was found as a rank glyph clear of the frame's edge
    (drivers.vision.glyphs.glyph_candidates), so a glyph cut by the edge
    (the lower loop of an 8 alone looks like a 6) places no corner, and the
    region above the frame is black in the patch."""
    if pose.source == "edges":
        return patch_inside(shape, pose)
    return patch_inside(shape, pose, margin=MARGIN, top=INK_TOP_SLACK)


def corners_in_view(band: Image, model: Model, geometry: ShoeGeometry, ramp: float,
                    gray: Image | None = None) -> list[CornerPose]:
    """The corners of the band that read_band reads: band_poses, in view."""
    return [p for p in band_poses(band, model, geometry, ramp, gray) if in_view(band.shape, p)]


def read_band(band: Image, model: Model, geometry: ShoeGeometry, ramp: float,
              gray: Image | None = None) -> list[tuple[CornerPose, CornerRead]]:
    """Each corner in view, read."""
    return [(p, model.read_corner(patch_for(model, band, p)))
            for p in corners_in_view(band, model, geometry, ramp, gray)]


def band_copy(frame: Image, geometry: ShoeGeometry) -> Image:
    """The band of the frame, copied out of it whole. A frame fresh from the
    camera is in no cache: its ink channel taken straight from the frame
    (one byte in three, row after row) cost 0.1 ms, the band's rows copied
    whole and the channel taken from the copy 0.045 ms (measured on 2,000
    frames of the bench, each read once)."""
    left, right = geometry.band
    return np.ascontiguousarray(frame[:, left:right])


def still_band(frame: Image, geometry: ShoeGeometry, ramp: float | None = None
               ) -> tuple[Image, Image, float]:
    """The band of one frame read on its own, its ink channel, and the grey
    level of the empty ramp (measured from the band when `ramp` is None)."""
    band = band_copy(frame, geometry)
    gray = to_gray(band)
    return band, gray, percentile(gray[::4, ::4], 10) if ramp is None else ramp


def read_still(frame: Image, model: Model, geometry: ShoeGeometry,
               ramp: float | None = None) -> tuple[str | None, float]:
    """Read one shoe frame on its own (no tracking): the card when every
    index seen in the band agrees on one accepted card, else None. `ramp`:
    grey level of the empty ramp (measured from the frame when None)."""
    band, gray, ramp = still_band(frame, geometry, ramp)
    reads = [r for _, r in read_band(band, model, geometry, ramp, gray)]
    cards = {r.card for r in reads if r.card is not None}
    if len(cards) != 1:
        return None, 0.0
    card = cards.pop()
    # Another index in view that is read as something else, even unsurely,
    # makes the frame ambiguous.
    for r in reads:
        if r.card is None and r.best != card and r.confidence >= CONFLICT_MIN:
            return None, 0.0
    return card, max(r.confidence for r in reads if r.card == card)
