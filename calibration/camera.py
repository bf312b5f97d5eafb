"""`croupier calibrate camera`: the dealer shows the 52 cards of the house
deck to the shoe camera, one at a time, in the order asked for. Each card is
taken when it lies still, wholly in view, along the ramp; focus, exposure and
placement are checked on it, and a card that fails a check is asked for
again until it passes or the time for it runs out. From the 52 images come
the reader adapted to the deck (as for `calibrate deck`) and the shoe
geometry: the band the index corner crosses and the glyph size in pixels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.deck import ALL_CARDS, calibrate_cards
from drivers.camera.capture import FrameSource
from drivers.vision.frame import CARD_W, RANK_HEIGHT
from drivers.vision.glyphs import Image, to_gray
from drivers.vision.shoe import ShoeGeometry
from drivers.vision.vision_file import CalibrationError, VisionCalibration
from drivers.vision.whole_card import corners_of, find_cards, warp_card

FOCUS_MIN = 100.0  # Laplacian variance of the (smoothed) index corner
PAPER_RANGE = (110.0, 250.0)  # paper brightness (90th percentile) allowed
CLIPPED_MAX = 0.03  # fraction of the card at full white
STILL_PX = 3.0  # centre movement between frames for "lying still"
EDGE_MARGIN = 4.0  # the card must be this far inside the frame
MAX_SPREAD = 0.12  # card left edges may differ by this fraction of a card width


@dataclass(frozen=True)
class Shot:
    card: Image  # canonical card
    left: float  # x of the card's left edge in the frame
    width: float  # card width in the frame, pixels
    rank_height: float  # rank glyph height in the frame, pixels
    sharpness: float
    paper: float


def check_shot(frame: Image) -> Shot | str:
    """A usable picture of one card, or why this frame is not one."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    h, w = gray.shape
    blobs = find_cards(gray, (60.0, 0.9 * min(w, h)))
    cards = [c for c in blobs if c.single]
    if len(cards) > 1:
        return "more than one card in view"
    if not cards:
        cut = [
            b
            for b in blobs
            if b.corners[:, 0].min() < EDGE_MARGIN
            or b.corners[:, 0].max() > w - EDGE_MARGIN
            or b.corners[:, 1].min() < EDGE_MARGIN
            or b.corners[:, 1].max() > h - EDGE_MARGIN
        ]
        if cut:
            return "region: the card is not wholly in view; place it in the middle of the ramp"
        return "no card in view"
    found = cards[0]
    xs, ys = found.corners[:, 0], found.corners[:, 1]
    if (
        xs.min() < EDGE_MARGIN
        or ys.min() < EDGE_MARGIN
        or xs.max() > w - EDGE_MARGIN
        or ys.max() > h - EDGE_MARGIN
    ):
        return "region: the card is not wholly in view; place it in the middle of the ramp"
    top, right = found.corners[1] - found.corners[0], found.corners[2] - found.corners[1]
    if abs(right[1]) < abs(right[0]):
        return "region: the card lies across the ramp; turn it to lie along it"
    del top
    card = warp_card(frame, found.corners)
    paper = float(np.percentile(to_gray(card), 90))
    clipped = float(np.mean(to_gray(card) >= 254))
    if not PAPER_RANGE[0] <= paper <= PAPER_RANGE[1]:
        return (
            f"exposure: the card's white is at {paper:.0f} (wanted {PAPER_RANGE[0]:.0f}-"
            f"{PAPER_RANGE[1]:.0f}); adjust the shoe light or the camera exposure"
        )
    if clipped > CLIPPED_MAX:
        return (
            f"exposure: {clipped:.0%} of the card is burnt out to white; lower the exposure "
            "or move the light (glare)"
        )
    corner = corners_of(card)[0]
    # Smoothed first so sensor noise does not pass for detail.
    sharp = float(cv2.Laplacian(cv2.GaussianBlur(to_gray(corner), (3, 3), 0), cv2.CV_64F).var())
    if sharp < FOCUS_MIN:
        return (
            f"focus: the index is soft (sharpness {sharp:.0f}, needs {FOCUS_MIN:.0f}); "
            "refocus the camera or clean its window"
        )
    # (the index's nominal size at this scale: the ink corners of the shoe
    # look for glyphs about this tall; the reader itself reads the corner)
    scale = found.size[0] / CARD_W
    return Shot(card, float(xs.min()), found.size[0], RANK_HEIGHT * scale, sharp, paper)


def take_card(source: FrameSource, code: str, max_frames: int) -> Shot:
    """Wait for one still, good picture of the card; CalibrationError with
    the last reason when none comes within max_frames."""
    reason = "no frame from the camera"
    last_centre: tuple[float, float] | None = None
    still = 0
    for _ in range(max_frames):
        frame = source.read()
        if frame is None:
            continue
        shot = check_shot(frame)
        if isinstance(shot, str):
            reason, still, last_centre = shot, 0, None
            continue
        centre = (shot.left, shot.width)
        if last_centre is not None and abs(centre[0] - last_centre[0]) <= STILL_PX:
            still += 1
        else:
            still = 0
        last_centre = centre
        if still >= 2:
            return shot
        reason = "the card is moving; hold it still"
    raise CalibrationError(f"{code}: no usable picture ({reason})")


def calibrate_camera(
    source: FrameSource,
    ask: Callable[[str], None],
    say: Callable[[str], None] = lambda _m: None,
    max_frames: int = 300,
    deck: str = "house",
) -> VisionCalibration:
    """Guide the dealer through the 52 cards and build a camera calibration."""
    shots: dict[str, Shot] = {}
    for n, code in enumerate(ALL_CARDS, 1):
        ask(code)
        shot = take_card(source, code, max_frames)
        shots[code] = shot
        say(f"{n:2d}/52 {code} ok (focus {shot.sharpness:.0f}, white {shot.paper:.0f})")
    geometry = _geometry(shots, source)
    cal = calibrate_cards({c: s.card for c, s in shots.items()}, deck=deck, kind="camera")
    cal.geometry = geometry
    cal.checks = {
        **cal.checks,
        "focus_min": round(min(s.sharpness for s in shots.values()), 1),
        "paper_range": [
            round(min(s.paper for s in shots.values()), 1),
            round(max(s.paper for s in shots.values()), 1),
        ],
        "card_width_px": round(float(np.median([s.width for s in shots.values()])), 1),
    }
    return cal


def _geometry(shots: dict[str, Shot], source: FrameSource) -> ShoeGeometry:
    lefts = np.array([s.left for s in shots.values()])
    width = float(np.median([s.width for s in shots.values()]))
    if lefts.max() - lefts.min() > MAX_SPREAD * width:
        raise CalibrationError(
            f"region: the cards were not shown in one place (left edges spread over "
            f"{lefts.max() - lefts.min():.0f} px, at most {MAX_SPREAD * width:.0f}); lay each card "
            "in the ramp's guide"
        )
    frame = source.read()
    if frame is None:
        raise CalibrationError("no frame from the camera")
    h, w = frame.shape[:2]
    left = float(np.median(lefts))
    # The band holds the card's left edge (with room for the card to wander)
    # and the index corner to its right.
    band = (max(0, round(left - 0.12 * width)), min(w, round(left + 0.36 * width)))
    rank_h = round(float(np.median([s.rank_height for s in shots.values()])))
    geometry = ShoeGeometry(frame_size=(w, h), band=band, rank_height=rank_h,
                            card_width=round(width, 1))
    try:
        geometry.check()
    except ValueError as exc:
        raise CalibrationError(f"region: {exc}") from None
    return geometry
