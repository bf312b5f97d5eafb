"""Frame mode: every card in a still image, read at its index corners.

Card corners are proposed where outlines bend by a right angle, where
straight edges meet, a card width along a side, and at every index found by
its own ink (drivers.vision.outline, drivers.vision.index_poses); each is
read by the corner network in one pass, and the reads are gathered into
cards (read_by_corners). Cards that overlap, or that the image's edge cuts,
are read too; see docs/vision.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from drivers.vision.corner import (
    CARD_H,
    CARD_W,
    CORNER_H,
    CORNER_W,
    RANK_HEIGHT,
    CornerPose,
    corner_patch,
)
from drivers.vision.glyphs import Image
from drivers.vision.index_poses import (
    INK_RANK_HEIGHT,
    INK_RANK_LEFT,
    INK_RANK_TOP,
    index_poses,
)
from drivers.vision.learned import LearnedReader
from drivers.vision.outline import (
    Corner,
    corners_in,
    edge_corners,
    hidden_corners,
    same_corner,
)
from drivers.vision.reader import CornerRead, Model
from drivers.vision.whole_card import (
    ASPECT_RANGE,
    BORDER,
    MIN_SOLIDITY,
    corner_patches,
    decide,
    portrait_order,
    warp_card,
)

__all__ = ["CARD_H", "CARD_W", "RANK_HEIGHT", "read_frame"]

@dataclass(frozen=True)
class CardInFrame:
    card: str | None
    confidence: float
    centre: tuple[float, float]
    reads: tuple[CornerRead | None, CornerRead | None]
    by_ink: bool = False  # read only at indices placed from their ink (index_poses)
    index_at: tuple[float, float] | None = None  # an inked index's rank, in the image
    # A card not read, placed by a corner of an outline where the network
    # saw an index, unsure of it: its best card then (never reported as read).
    seen_as: str | None = None


def size_range(shape: tuple[int, ...]) -> tuple[float, float]:
    """Card widths looked for in an image: from 1/12 of its short side up to 3/4."""
    short = float(min(shape[0], shape[1]))
    return (max(40.0, short / 12.0), short * 0.75)


def read_frame(frame: Image, model: Model,
               short_side: tuple[float, float] = (60.0, 260.0)) -> list[CardInFrame]:
    """Every card found in a BGR (or grey) frame, read or not, left to right:
    every card corner on the cards' outlines and every index found by its ink
    is read (read_by_corners: cards that overlap, or that the image's edge
    cuts)."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    cards = read_by_corners(frame, gray, model, short_side)
    if any(c.card for c in cards):
        return cards
    # Nothing read: the image may be one card's face, edge to edge (a deck's
    # artwork): read it again laid on a dark surround.
    pad = max(8, min(gray.shape[:2]) // 8)
    padded = cv2.copyMakeBorder(frame, pad, pad, pad, pad, cv2.BORDER_CONSTANT,
                                value=(40, 40, 40) if frame.ndim == 3 else 40)
    wide = (short_side[0], max(short_side[1], float(min(gray.shape[:2]))))
    again = read_by_corners(padded, cv2.copyMakeBorder(gray, pad, pad, pad, pad,
                                                       cv2.BORDER_CONSTANT, value=40),
                            model, wide)
    if not any(c.card for c in again):
        return cards
    return [replace(c, centre=(c.centre[0] - pad, c.centre[1] - pad)) for c in again]


# Canonical corner points an index corner's patch must show in the image:
# the index region's four corners (a card the image's edge cuts is read
# when its index is in view).
_INDEX_BOX = ((0.0, 0.0), (CORNER_W, 0.0), (0.0, CORNER_H * 0.8), (CORNER_W, CORNER_H * 0.8))
CARD_CENTRE = (CARD_W / 2.0, CARD_H / 2.0)


def _index_in_view(shape: tuple[int, ...], pose: CornerPose) -> bool:
    h, w = shape[0], shape[1]
    for cx, cy in _INDEX_BOX:
        x, y = pose.to_image(cx, cy)
        if not (-2.0 <= x <= w + 1.0 and -2.0 <= y <= h + 1.0):
            return False
    return True


def region_widths(mask: Image, short_side: tuple[float, float]) -> dict[int, float]:
    """The card width of each outline that is one whole card (its short
    side), by the outline's number in cv2.findContours' external order."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    lo, hi = short_side
    out: dict[int, float] = {}
    for i, c in enumerate(contours):
        (_, _), (w, h), _ = cv2.minAreaRect(c)
        short, long_ = min(w, h), max(w, h)
        if short < 0.85 * lo or short > 1.15 * hi:
            continue
        # One card fills its box and is a quadrilateral; cards that overlap
        # make an outline of six sides or more, which may fill its box well.
        fill = cv2.contourArea(c) / max(w * h, 1.0)
        sides = len(cv2.approxPolyDP(c, 0.03 * cv2.arcLength(c, True), True))
        if (ASPECT_RANGE[0] <= long_ / short <= ASPECT_RANGE[1] and fill >= MIN_SOLIDITY
                and sides == 4):
            out[i] = short
    return out


def _corner_width(corner: Corner, widths: dict[int, float], typical: float | None,
                  short_side: tuple[float, float]) -> float:
    """The width of the card a corner belongs to: its outline's, when that
    is one whole card; else the cards' in the image (typical_width); else
    what its own sides say (the shorter, or the longer over 1.75)."""
    if corner.region in widths:
        return widths[corner.region]
    if typical is not None:
        return typical
    a, b = sorted(corner.sides)
    return float(np.clip(max(a, b / 1.75), short_side[0], short_side[1]))


# Where nothing says how wide a corner's card is, it is read at widths from
# what its sides allow up to the largest looked for, each this much wider
# than the last: the network reads an index 18 % off its scale.
WIDTH_STEP = 1.35


def _widths(corner: Corner, widths: dict[int, float], typical: float | None,
            short_side: tuple[float, float]) -> list[float]:
    """The card widths a corner is read at: the one its outline or the
    image says; else from its own sides' estimate (a side cut short by the
    image's edge or by another card is a lower bound) up."""
    w = _corner_width(corner, widths, typical, short_side)
    if corner.region in widths or typical is not None:
        return [w]
    out = []
    while w <= short_side[1] * 1.05:
        out.append(w)
        w *= WIDTH_STEP
    return out or [short_side[1]]


def _one_per_corner(corner_ids: list[int], reads: list[CornerRead]) -> list[CornerRead]:
    """A corner read at several widths reads one card: the surest read of
    it, the others unread; where its widths read different cards, none."""
    best: dict[int, tuple[float, int]] = {}
    codes: dict[int, set[str]] = {}
    for k, (i, r) in enumerate(zip(corner_ids, reads, strict=True)):
        if r.card is None:
            continue
        codes.setdefault(i, set()).add(r.card)
        if i not in best or r.confidence > best[i][0]:
            best[i] = (r.confidence, k)
    keep = {k for i, (_, k) in best.items() if len(codes[i]) == 1}
    return [r if r.card is None or k in keep else replace(r, card=None)
            for k, r in enumerate(reads)]


def typical_width(widths: dict[int, float], corners: list[Corner],
                  short_side: tuple[float, float]) -> float | None:
    """The width of the cards in an image (cards on one table are one size):
    the median of the whole cards', else of the corners whose two sides run
    straight as far as a card's width and length (a card on top of its hand,
    the lowest card of a cascade)."""
    if widths:
        return float(np.median(list(widths.values())))
    whole = [min(c.sides) for c in corners
             if 1.2 <= max(c.sides) / max(min(c.sides), 1.0) <= 1.85
             and short_side[0] <= min(c.sides) <= short_side[1]]
    return float(np.median(whole)) if whole else None


WHITE_MIN = 80  # the least channel of card white, grey levels, at the dimmest exposure
# Paper has at most this share of the colour (HSV saturation) of the table
# round it, within these bounds (of 255).
PAPER_SAT_SHARE = 0.6
PAPER_SAT = (12.0, 60.0)


def card_masks(frame: Image, gray: Image, short_side: tuple[float, float]) -> list[Image]:
    """Masks at half size of what may be cards, each of which finds some
    cards the others miss: lighter than the neighbourhood of a small card
    (felt, cards up to a few times the smallest width, as card_mask); the
    same for the neighbourhood of a large card (a close camera); white
    (the least of the three channels over its Otsu threshold: paper is
    bright in every channel, wood and felt are not); and without colour
    (paper is grey, a light wooden table is not). A proposal costs only
    the reads of its corners, and the reader refuses what is no index."""
    h, w = gray.shape[:2]
    half = (w // 2, h // 2)
    small = cv2.GaussianBlur(cv2.resize(gray, half, interpolation=cv2.INTER_AREA), (5, 5), 0)
    block = int(max(31, short_side[0] * 0.8)) | 1
    masks = [_cleaned(cv2.adaptiveThreshold(small, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                            cv2.THRESH_BINARY, block, -20))]
    big = int(min(small.shape) * 0.45) | 1
    if big > 2 * block:
        masks.append(_cleaned(cv2.adaptiveThreshold(small, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                                    cv2.THRESH_BINARY, big, -12)))
    if frame.ndim == 3:
        colour = cv2.resize(frame, half, interpolation=cv2.INTER_AREA)
        b, g, r = cv2.split(colour)
        white = cv2.GaussianBlur(cv2.min(cv2.min(b, g), r), (5, 5), 0)
        level, otsu = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        # Only where what Otsu splits off is white at all: on a bare felt
        # it splits the felt's own grain.
        if level >= WHITE_MIN:
            masks.append(_cleaned(otsu))
        # Paper has almost no colour; wood, felt and most tables have some.
        # On a light wooden table the white mask takes the wood with the
        # card, and a card filling the view leaves no lighter neighbourhood.
        hsv = cv2.cvtColor(cv2.GaussianBlur(colour, (5, 5), 0), cv2.COLOR_BGR2HSV)
        sat = hsv[:, :, 1]
        edge = np.concatenate([sat[:8].ravel(), sat[-8:].ravel(), sat[:, :8].ravel(),
                               sat[:, -8:].ravel()])
        # Under the table's own colour, taken where the image's edge is
        # (mostly table): paper 10-25, light wood 35-75 on the real photos.
        most = float(np.clip(PAPER_SAT_SHARE * np.median(edge), *PAPER_SAT))
        paper = ((sat <= most) & (hsv[:, :, 2] >= WHITE_MIN)).astype(np.uint8)
        if 0.02 <= float(paper.mean()) <= 0.9:
            masks.append(_cleaned(paper * 255))
    return masks


def _cleaned(mask: Image) -> Image:
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    out: Image = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    return out


@dataclass
class _Proposals:
    """Card corners proposed by every mask and by straight edges, and what
    each mask's outlines say of card widths."""

    corners: list[Corner]
    widths: dict[int, float]  # outline -> card width, for outlines of one whole card
    regions: dict[int, Image]  # outline -> contour, card-sized ones
    card: Image  # the masks' union, at half size


def _proposals(frame: Image, gray: Image, short_side: tuple[float, float]) -> _Proposals:
    corners: list[Corner] = []
    widths: dict[int, float] = {}
    regions: dict[int, Image] = {}
    # The masks are at half size: outlines, widths and corners doubled.
    half = (short_side[0] / 2, short_side[1] / 2)
    masks = card_masks(frame, gray, short_side)
    for m, mask in enumerate(masks):
        offset = (m + 1) * 1_000_000  # outline numbers unique across masks
        for c in corners_in(mask, half[0]):
            moved = replace(c, point=(2 * c.point[0], 2 * c.point[1]),
                            sides=(2 * c.sides[0], 2 * c.sides[1]), region=c.region + offset)
            if not any(same_corner(moved, k, 0.2 * short_side[0]) for k in corners):
                corners.append(moved)
        widths.update({r + offset: 2 * w for r, w in region_widths(mask, half).items()})
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        regions.update({i + offset: 2 * c for i, c in enumerate(contours)
                        if cv2.contourArea(c) >= 0.8 * half[0] ** 2})
    for c in edge_corners(gray, short_side[0]):
        if not any(same_corner(c, k, 0.2 * short_side[0]) for k in corners):
            corners.append(c)
    union = masks[0].copy()
    for mask in masks[1:]:
        cv2.bitwise_or(union, mask, dst=union)
    return _Proposals(corners, widths, regions, union)


Reads = list[tuple[CornerPose, CornerRead]]


def _region_cards(contour: Image, reads: Reads, whole: bool
                  ) -> list[CardInFrame]:
    """The cards of one outline. One whole card: one card, which its corners
    must agree on (never a guess), or none. Cards that touch or overlap:
    one card per code read, and a card not read where a corner saw an
    index of another card, unsure of it (_unread); none when no corner saw
    an index, if it has two card corners or more (else it is no card's
    outline)."""
    sure = [(p, r) for p, r in reads if r.card is not None]
    unread = [] if whole else _unread(reads, {r.card for _, r in sure})
    if not whole and not sure and (unread or len(reads) < 2):
        return unread  # (no index seen on one corner: a blotch of the felt)
    if whole or not sure:
        (cx, cy), _, _ = cv2.minAreaRect(contour)
        card, conf, _ = decide(tuple(r for _, r in reads))
        best = [r for _, r in sure if r.card == card][:2]
        return [CardInFrame(card, conf, (float(cx), float(cy)),
                            (best[0] if best else None, best[1] if len(best) > 1 else None))]
    out = []
    for code in sorted({r.card for _, r in sure if r.card is not None}):
        same = [(p, r) for p, r in sure if r.card == code]
        centre = np.mean([p.to_image(*CARD_CENTRE) for p, _ in same], axis=0)
        conf = 1.0 - float(np.prod([1.0 - r.confidence for _, r in same]))
        out.append(CardInFrame(code, conf, (float(centre[0]), float(centre[1])),
                               (same[0][1], same[1][1] if len(same) > 1 else None)))
    return out + unread


def _unread(reads: Reads, read: set[str | None]) -> list[CardInFrame]:
    """Cards found but not read on an outline of cards that overlap: each
    corner where the network saw an index, unsure of it, of a card none of
    the outline's corners read (the lower card of a pair, its one corner in
    view read below the thresholds), placed where that corner's card lies."""
    out = []
    for p, r in reads:
        if r.card is None and r.is_index and r.best not in read:
            centre = p.to_image(*CARD_CENTRE)
            out.append(CardInFrame(None, 0.0, (float(centre[0]), float(centre[1])),
                                   (r, None), seen_as=r.best))
    return out


def _on_card(card: Image, corner: Corner, width: float) -> bool:
    """A corner's card lies on card-like ground (the half-size mask) just
    inside the corner: a hidden corner proposed out on the felt is none."""
    x = corner.point[0] + 0.15 * width * (corner.a[0] + corner.b[0])
    y = corner.point[1] + 0.15 * width * (corner.a[1] + corner.b[1])
    i, j = int(y / 2), int(x / 2)
    return 0 <= i < card.shape[0] and 0 <= j < card.shape[1] and bool(card[i, j])


Posed = list[tuple[int, Corner, CornerPose]]  # (the corner's number, the corner, a pose)


def corner_poses(frame: Image, gray: Image, short_side: tuple[float, float]
                 ) -> tuple[_Proposals, float | None, Posed, int]:
    """Every corner proposed on outlines, where edges meet and hidden a
    width along a side, posed at its width or widths, and every index
    placed from its own ink (drivers.vision.index_poses: a card on white,
    a card filling the view, a camera that mirrors), each with its index
    in view: the proposals, the cards' width in the image, the poses, and
    how many corners were numbered."""
    found = _proposals(frame, gray, short_side)
    typical = typical_width(found.widths, found.corners, short_side)
    corners = list(found.corners)
    if typical is not None:
        for c in hidden_corners(found.corners, typical):
            if _on_card(found.card, c, typical) and not any(
                    same_corner(c, k, 0.2 * short_side[0]) for k in corners):
                corners.append(c)
    poses = [(i, c, c.pose(w)) for i, c in enumerate(corners)
             for w in _widths(c, found.widths, typical, short_side)]
    numbered = len(corners)
    inked = index_poses(gray, short_side)
    for key, p in inked:
        # (an index found by its ink is on no outline: each read is a card)
        poses.append((numbered + key, Corner(p.origin, _unit(p.u), _unit(p.v), (0.0, 0.0), -1),
                      p))
    numbered += 1 + max((key for key, _ in inked), default=-1)
    return found, typical, [(i, c, p) for i, c, p in poses
                            if _index_in_view(frame.shape, p)], numbered


def _unit(v: tuple[float, float]) -> tuple[float, float]:
    n = max(float(np.hypot(*v)), 1e-9)
    return (v[0] / n, v[1] / n)


@dataclass(frozen=True)
class Seen:
    """What frame mode proposed in an image, before the network read it:
    the outlines, the widths of those of one whole card, the cards' width
    in the image, and each corner's number (a corner posed at several
    widths has one), corner and pose, with its patch where a whole card's
    outline was warped (else cut at read time)."""

    regions: dict[int, Image]
    widths: dict[int, float]
    typical: float | None
    corners: list[tuple[int, Corner, CornerPose]]
    warped: dict[int, Image]  # the corner's place in `corners` -> its patch


def seen(frame: Image, gray: Image, model: LearnedReader, short_side: tuple[float, float]
         ) -> Seen:
    """Every corner proposed (corner_poses) and both index corners of each
    whole card's outline warped (_warped)."""
    found, typical, poses, numbered = corner_poses(frame, gray, short_side)
    warped: dict[int, Image] = {}
    for region in found.widths:
        for k, (corner, patch) in enumerate(_warped(frame, found.regions[region], region,
                                                    model.corner_width)):
            poses.append((numbered + 4 * region + k, corner, corner.pose(1.0)))
            warped[len(poses) - 1] = patch
    return Seen(found.regions, found.widths, typical, poses, warped)


def seen_patches(frame: Image, found: Seen, width: int) -> list[Image]:
    """The patch of each corner seen, in order, `width` canonical pixels wide."""
    return [found.warped[k] if k in found.warped else corner_patch(frame, pose, width)
            for k, (_, _, pose) in enumerate(found.corners)]


def corner_reads(frame: Image, found: Seen, model: LearnedReader) -> list[CornerRead]:
    """Each corner seen, read (one pass of the network per kind): those
    placed from ink at the reader's ink thresholds, the others at frame
    mode's."""
    patches = seen_patches(frame, found, model.corner_width)
    reads: dict[int, CornerRead] = {}
    for ink in (False, True):
        mine = [k for k, (_, _, p) in enumerate(found.corners) if (p.source == "ink") == ink]
        reads.update(zip(mine, model.read_corners([patches[k] for k in mine], ink=ink),
                         strict=True))
    return [reads[k] for k in range(len(found.corners))]


# An index placed from its ink is read when this many of its poses (its
# scales, the two ink masks, a ten's glyphs paired apart and together) are
# sure of one card and none of another: one sure pose misread 6 of 220
# held-out photo cards (a mirrored 9 read as a Q); three, tuned on the
# photos learnt from (bench vision_photos --split learnt), none there
# (docs/vision.md).
INK_AGREE = 3
_INK_RANK_MIDDLE = (INK_RANK_LEFT, INK_RANK_TOP + INK_RANK_HEIGHT / 2)


def ink_cards(reads: Reads) -> list[CardInFrame]:
    """The cards of the indices placed from their ink: the sure reads
    gathered by where their rank is (within half its height), each place
    a card when INK_AGREE of them or more read one card and none another
    (with those of the card's other index, which place its centre within a
    quarter of its width), and no sure pose over the same rank's ink reads
    another card."""
    places: list[tuple[float, float, float, Reads]] = []
    for p, r in reads:
        if r.card is None:
            continue
        x, y = p.to_image(*_INK_RANK_MIDDLE)
        h = float(np.hypot(*p.u)) * INK_RANK_HEIGHT
        for px, py, ph, same in places:
            if np.hypot(x - px, y - py) < 0.5 * max(h, ph):
                same.append((p, r))
                break
        else:
            places.append((x, y, h, [(p, r)]))
    # A place sure of one card, with where its card's centre would be and
    # how wide the card: a card's two indices (opposite corners) put it in
    # one place, and their poses count together.
    unanimous = []
    for *_, same in places:
        if len({r.card for _, r in same}) == 1:
            p, r = max(same, key=lambda pr: pr[1].confidence)
            unanimous.append((len(same), p, r, p.to_image(*CARD_CENTRE),
                              float(np.hypot(*p.u)) * CARD_W))
    chosen: list[tuple[CornerPose, CornerRead]] = []
    for n, p, r, (cx, cy), w in unanimous:
        n += sum(m for m, _, q, (qx, qy), v in unanimous
                 if q is not r and q.card == r.card
                 and np.hypot(cx - qx, cy - qy) < 0.25 * max(w, v))
        if n >= INK_AGREE:
            chosen.append((p, r))
    sure = [(p, r) for p, r in reads if r.card is not None]
    out = []
    for p, r in chosen:
        # One rank's ink read as two cards, by any sure pose: neither is
        # sure. A pose mirrored about the rank puts its middle elsewhere (no
        # place of its own with the upright poses), and a mirrored 9 reads
        # as a queen.
        if any(q.card != r.card and _same_ink(p, q_pose) for q_pose, q in sure):
            continue
        centre = p.to_image(*CARD_CENTRE)
        x, y = p.to_image(*_INK_RANK_MIDDLE)
        out.append(CardInFrame(r.card, r.confidence, (float(centre[0]), float(centre[1])),
                               (r, None), by_ink=True, index_at=(float(x), float(y))))
    return out


def _rank_box(p: CornerPose) -> Image:
    """Where a pose placed from ink has its rank, in the image."""
    w = 0.75 * INK_RANK_HEIGHT
    return np.array([p.to_image(INK_RANK_LEFT + dx, INK_RANK_TOP + dy)
                     for dx, dy in ((0.0, 0.0), (w, 0.0), (w, INK_RANK_HEIGHT),
                                    (0.0, INK_RANK_HEIGHT))], np.float32)


def _same_ink(a: CornerPose, b: CornerPose) -> bool:
    """Two poses whose rank boxes share a quarter of the smaller one: they
    read the same ink (the indices of cards that overlap are each in view,
    so theirs never share it)."""
    box_a, box_b = _rank_box(a), _rank_box(b)
    shared, _ = cv2.intersectConvexConvex(box_a, box_b)
    smaller = min(abs(cv2.contourArea(box_a)), abs(cv2.contourArea(box_b)))
    return float(shared) > 0.25 * smaller


def _inside_another(card: CardInFrame, whole: list[tuple[Image, CardInFrame]]) -> bool:
    """An index found by its ink lies on a whole card's face that was read
    as another card: a card whose whole outline is in view lies on top, so
    all ink on its face is its own (a pip beside its index, read as an
    ace), never another card's index."""
    if card.index_at is None:
        return False
    return any(k.card is not None and k.card != card.card
               and cv2.pointPolygonTest(contour, card.index_at, False) >= 0
               for contour, k in whole)


def _warped(frame: Image, contour: Image, region: int, width: int
            ) -> list[tuple[Corner, Image]]:
    """A whole card's two index corners as the other readers read them: its
    outline's four corners warped to the canonical card (its perspective
    undone), each corner placed from the card's edges (corner_patches); a
    card near to square both ways round. Each with a stand-in corner of its
    outline (for the card's place)."""
    quad = cv2.approxPolyDP(contour, 0.03 * cv2.arcLength(contour, True), True)
    if len(quad) != 4:
        return []
    box = portrait_order(quad[:, 0, :].astype(np.float32))
    sides = (float(np.linalg.norm(box[1] - box[0])), float(np.linalg.norm(box[3] - box[0])))
    # Both ways round: a photo stretched by its export, or taken at a slant,
    # may show a card wider than long (the network refuses the corners
    # without an index).
    out = []
    for top in (box, np.roll(box, 1, axis=0)):
        x, y = float(top[0][0]), float(top[0][1])
        stand_in = Corner((x, y), (1.0, 0.0), (0.0, 1.0), sides, region)
        out += [(stand_in, p) for p in corner_patches(warp_card(frame, top, BORDER), width)]
    return out


def read_by_corners(frame: Image, gray: Image, model: LearnedReader,
                    short_side: tuple[float, float]) -> list[CardInFrame]:
    """Every card corner proposed on the card outlines of each mask
    (card_masks) and where straight edges meet (drivers.vision.outline),
    read in one pass of the network, and gathered into cards (gather)."""
    found = seen(frame, gray, model, short_side)
    return gather(found, corner_reads(frame, found, model), short_side)


def gather(found: Seen, reads: list[CornerRead], short_side: tuple[float, float]
           ) -> list[CardInFrame]:
    """The cards of the corners seen in an image and their reads (one per
    corner, in order). Each outline's cards (_region_cards); a corner where
    edges meet belongs to no outline, and each card it reads is a card; an
    index placed from its ink is weighed with its other poses (ink_cards).
    The same card found more than once is one card; a card found but not
    read is dropped where a read card lies."""
    edge = [k for k, (_, _, p) in enumerate(found.corners) if p.source != "ink"]
    # A corner read at several widths reads one card (an inked index's
    # poses are weighed together, in ink_cards).
    one = dict(zip(edge, _one_per_corner([found.corners[k][0] for k in edge],
                                         [reads[k] for k in edge]), strict=True))
    by_region: dict[int, Reads] = {}
    for k, (_, c, p) in enumerate(found.corners):
        by_region.setdefault(c.region, []).append((p, one.get(k, reads[k])))
    cards: list[CardInFrame] = []
    whole: list[tuple[Image, CardInFrame]] = []
    for region, contour in found.regions.items():
        mine = _region_cards(contour, by_region.get(region, []), region in found.widths)
        cards += mine
        if region in found.widths:
            whole += [(contour, k) for k in mine]
    for p, r in by_region.get(-1, []):
        if r.card is not None and p.source != "ink":
            centre = p.to_image(*CARD_CENTRE)
            cards.append(CardInFrame(r.card, r.confidence, (float(centre[0]), float(centre[1])),
                                     (r, None)))
    cards += [c for c in ink_cards([(p, r) for p, r in by_region.get(-1, [])
                                     if p.source == "ink"])
              if not _inside_another(c, whole)]
    width = found.typical or short_side[0]
    out: list[CardInFrame] = []
    # Cards placed by their outlines or edges first, the surest first; then
    # those placed from an index's ink; then those not read.
    for card in sorted((c for c in cards if c.card), key=lambda c: (c.by_ink, -c.confidence)) + \
            [c for c in cards if not c.card]:
        if not any(_same_card(card, k, width) for k in out):
            out.append(card)
    out.sort(key=lambda c: (c.centre[0], c.centre[1]))
    return out


def _same_card(card: CardInFrame, kept: CardInFrame, width: float) -> bool:
    """A card found is one already kept: read as the same card near it
    (within 0.6 of a card's width; 1.2 for an index placed from its ink,
    whose centre is where a card of that rank height would have it: off by
    up to half a width); not read, and near a card kept (0.6); not read but
    seen by a corner as a card, where a card of that rank was read or seen
    (1.2: a card's other corner, its suit half covered, seen as a 6 of
    spades where the 6 of clubs was read; its centre, placed from the two
    corners at a card width a fifth off, 0.7 of a width apart), or near any
    card kept (0.35)."""
    apart = float(np.hypot(card.centre[0] - kept.centre[0], card.centre[1] - kept.centre[1]))
    if card.card is not None:
        return card.card == kept.card and apart < (1.2 if card.by_ink else 0.6) * width
    if card.seen_as is None:
        return apart < 0.6 * width
    ranks = {c[0] for c in (kept.card, kept.seen_as) if c is not None}
    return apart < 0.35 * width or (apart < 1.2 * width and card.seen_as[0] in ranks)
