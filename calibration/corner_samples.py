"""Training views of index corners for the learned reader (development time).

Each sample is a corner patch exactly as the run-time readers get one
(drivers.vision.corner.corner_patch: the card's top left corner upright at
canonical scale, drivers.vision.learned.PATCH_W x PATCH_H: 96 x 116 pixels
with an 8 pixel margin), drawn from a deck
face the way a camera would show it:

- the card seen at a camera scale of 0.35 to 2.2 canonical (a card 70 to
  440 pixels wide), rendered at that scale and only then brought back to
  canonical, so that the detail a small card loses is lost;
- the corner placed with the error a run-time corner finder makes (a few
  pixels, a few degrees, a tenth in scale; more for corners placed from ink),
  under a slight perspective, with the card's own aspect ratio kept
  (the shoe: one scale from the card's width) or squeezed to the canonical
  card (frame mode warps the whole outline to 200 x 280), and the picture
  stretched by up to a third along some direction (a slanted camera, a
  photo's export squeezed to a square);
- what lies round the card: the dark ramp, felt, wood, a lighter table,
  another card; and another card lying over this one, off its index (a
  cascaded hand);
- the edge of what the camera sees (the shoe's band) cutting the patch's
  right side to black;
- the camera: exposure, colour cast, uneven light, glare, defocus, motion
  blur, sharpening, noise, JPEG, and now and then no colour at all.

A quarter of the index corners are placed as a finder of ink places them
(drivers.vision.index_poses: from the rank's own place and height, not the
card's edges).

Negatives ("not an index") are the same views of what a corner finder also
hands the reader: a window on a card's face away from its index (pips, a
court picture), a card's back, the felt, an index covered by another card,
a card turned a quarter (its index on its side), an index placed from its
ink but turned a half or a quarter turn about its rank (an ink finder
pairing the rank with a glyph above it or beside it), an index mirrored (read
the wrong way round; not A, 8 or V, their own mirror images), a rank
half covered by a thumb or a chip, and a pip or a piece of a court
picture in the face's middle posed as the ink finder poses an index.

Seeded: `samples(deck, n, seed)` gives the same views for the same seed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from drivers.vision.corner import CARD_H, CARD_W, MARGIN
from drivers.vision.glyphs import Image
from drivers.vision.index_poses import INK_RANK_HEIGHT, INK_RANK_LEFT, INK_RANK_TOP
from drivers.vision.learned import NOT_AN_INDEX, PATCH_H, PATCH_W, RANKS, SUITS
from sim.camera.decks import to_bgra

Deck = dict[str, Image]
Matrix = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Sample:
    patch: Image  # PATCH_H x PATCH_W x 3, BGR
    rank: int  # index into RANKS, or NOT_AN_INDEX
    suit: int  # index into SUITS, or -1 where there is no index


def _surround(rng: np.random.Generator, w: int, h: int) -> F32:
    """What lies round the card: ramp, felt, wood, a light table or noise."""
    kind = rng.integers(0, 6)
    if kind == 0:  # the shoe's dark ramp
        base = np.full(3, rng.uniform(10, 80))
    elif kind == 1:  # felt: green, blue, red or grey
        base = np.array([rng.uniform(20, 90), rng.uniform(60, 140), rng.uniform(10, 60)])
        base = base[rng.permutation(3)] if rng.random() < 0.35 else base
    elif kind == 2:  # wood
        base = np.array([rng.uniform(30, 90), rng.uniform(70, 140), rng.uniform(110, 190)])
    elif kind == 3:  # a light table (still darker than the card, mostly)
        base = np.full(3, rng.uniform(110, 200)) + rng.uniform(-15, 15, 3)
    else:
        base = rng.uniform(0, 200, 3)
    coarse = rng.normal(0.0, rng.uniform(2, 20), (h // 6 + 2, w // 6 + 2, 3)).astype(np.float32)
    img: F32 = np.asarray(cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)
    img += base.astype(np.float32)[None, None, :]
    if kind == 5:  # stripes or print (a tablecloth, a magazine)
        period = rng.uniform(3, 20)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, np.pi)
        img += (40 * np.sin((xx * np.cos(a) + yy * np.sin(a)) / period)).astype(np.float32)[
            :, :, None]
    return img


def _card_back(rng: np.random.Generator, w: int = 250, h: int = 350) -> Image:
    """A card back: a border round a lattice, stripes or a solid colour."""
    colour = rng.uniform(0, 255, 3)
    back = np.zeros((h, w, 4), np.uint8)
    back[:, :, 3] = 255
    back[:, :, :3] = 245
    inset = int(rng.uniform(0, 20))
    inner = back[inset : h - inset, inset : w - inset, :3]
    inner[:] = colour.astype(np.uint8)
    kind = rng.integers(0, 3)
    yy, xx = np.mgrid[0 : inner.shape[0], 0 : inner.shape[1]].astype(np.float32)
    period = rng.uniform(4, 18)
    if kind == 0:
        pattern = (np.sin((xx + yy) / period) * np.sin((xx - yy) / period)) > 0
    elif kind == 1:
        pattern = np.sin(xx / period) > 0
    else:
        pattern = np.zeros_like(xx, bool)
    inner[pattern] = np.clip(colour * rng.uniform(0.3, 1.6), 0, 255).astype(np.uint8)
    return back


def _camera(img: F32, rng: np.random.Generator) -> Image:
    """Exposure, colour cast, uneven light, glare, blur, noise and JPEG."""
    h, w = img.shape[:2]
    img = img * rng.uniform(0.55, 1.3) + rng.uniform(-25, 20)
    img *= rng.uniform(0.8, 1.2, 3).astype(np.float32)[None, None, :]
    slope = rng.uniform(-0.4, 0.4, 2)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img *= (1.0 + slope[0] * (xx / w - 0.5) + slope[1] * (yy / h - 0.5))[:, :, None]
    if rng.random() < 0.25:
        gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        sigma = rng.uniform(0.1, 0.6) * max(w, h)
        spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma * sigma))
        img += (spot * rng.uniform(30, 140))[:, :, None]
    defocus = rng.uniform(0.0, 1.6) if rng.random() < 0.7 else 0.0
    if defocus > 0.3:
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), defocus), np.float32)
    if rng.random() < 0.35:
        n = int(rng.integers(2, 7))
        kernel = np.zeros((n, n), np.float32)
        kernel[n // 2, :] = 1.0 / n
        rot = cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), rng.uniform(0, 180), 1.0)
        kernel = np.asarray(cv2.warpAffine(kernel, rot, (n, n)), np.float32)
        img = np.asarray(cv2.filter2D(img, -1, kernel / max(float(kernel.sum()), 1e-6)),
                         np.float32)
    if rng.random() < 0.2:  # a phone's sharpening
        soft = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.8, 2.0))
        img = np.asarray(cv2.addWeighted(img, 1.0 + (a := rng.uniform(0.3, 1.2)), soft, -a, 0.0),
                         np.float32)
    img += rng.normal(0.0, rng.uniform(0.5, 9.0), img.shape).astype(np.float32)
    if rng.random() < 0.15:
        # A monochrome camera (an infrared shoe camera) or a grey export: the
        # suit must be read from its shape, not from its colour alone.
        grey = img @ np.array([0.114, 0.587, 0.299], np.float32)
        img = np.repeat(grey[:, :, None], 3, axis=2)
    out: Image = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 96))])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            out = decoded
    return out


def _similarity(angle_deg: float, scale: float, tx: float, ty: float) -> Matrix:
    a = np.deg2rad(angle_deg)
    c, s = np.cos(a) * scale, np.sin(a) * scale
    return np.array([[c, -s, tx], [s, c, ty], [0.0, 0.0, 1.0]])


def _stretch(angle: float, factor: float) -> Matrix:
    c, s = np.cos(angle), np.sin(angle)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    out: Matrix = rot @ np.diag([factor, 1.0, 1.0]) @ rot.T
    return out


def _perspective(rng: np.random.Generator, amount: float) -> Matrix:
    m = np.eye(3)
    m[2, 0], m[2, 1] = rng.normal(0.0, amount, 2)
    return m


def _draw(dst: F32, face: Image, cam_to_face: Matrix) -> None:
    """Composite a BGRA face into a float BGR view through a 3x3 map from
    view pixels to face pixels."""
    h, w = dst.shape[:2]
    warped = cv2.warpPerspective(face, cam_to_face, (w, h),
                                 flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
    dst *= 1.0 - alpha
    dst += warped[:, :, :3].astype(np.float32) * alpha


@dataclass(frozen=True)
class View:
    """Where the corner finder puts the canonical corner on the card: the
    window's offset on the face (canonical px), its turn and scale error."""

    dx: float
    dy: float
    angle: float
    scale: float


def _view(rng: np.random.Generator, negative_window: bool) -> View:
    if negative_window:  # a window on the face away from its index
        if rng.random() < 0.5:
            # (not as far as the top right corner: some decks print an index there)
            dx, dy = rng.uniform(38, CARD_W - 80), rng.uniform(-10, CARD_H - 90)
        else:
            dx, dy = rng.uniform(-10, CARD_W - 40), rng.uniform(75, CARD_H - 90)
        return View(dx, dy, rng.uniform(-6, 6), float(np.exp(rng.uniform(-0.2, 0.2))))
    wide = rng.random() < 0.25  # a corner placed from ink, or a poor edge
    spread = 6.0 if wide else 2.5
    return View(float(np.clip(rng.normal(0, spread), -8, 8)),
                float(np.clip(rng.normal(0, spread), -8, 8)),
                float(np.clip(rng.normal(0, 2.0 if wide else 1.0), -6, 6)),
                float(np.exp(np.clip(rng.normal(0, 0.07), -0.18, 0.18))))


def _ink_view(face: Image, rng: np.random.Generator) -> View | None:
    """A corner placed from the index's own ink (drivers.vision.index_poses):
    the rank's left side and top at the canonical rank's place
    (INK_RANK_LEFT, INK_RANK_TOP), its height at INK_RANK_HEIGHT within
    the error of that finder's ladder of scales, turned as little as the
    line from rank to suit says. None where the face's rank is not found."""
    box = _rank_rows(face)
    if box is None:
        return None
    s = face.shape[1] / CARD_W
    x0, y0, _x1, y1 = (v / s for v in box)
    if y1 - y0 < 8:
        return None
    return _posed_at_rank(x0, y0, y1 - y0 + 1, rng)


def _posed_at_rank(x0: float, y0: float, height: float, rng: np.random.Generator) -> View:
    """The corner the ink finder poses on a rank whose box has its top left
    at (x0, y0) and is `height` high (canonical px): the rank at the
    canonical rank's place and height, with the finder's errors."""
    scale = height / INK_RANK_HEIGHT * float(np.exp(rng.uniform(-0.13, 0.13)))
    return View(x0 - INK_RANK_LEFT * scale + float(np.clip(rng.normal(0, 2.5), -6, 6)),
                y0 - INK_RANK_TOP * scale + float(np.clip(rng.normal(0, 2.5), -6, 6)),
                float(np.clip(rng.normal(0, 3.0), -8, 8)), scale)


def _blob_view(face: Image, rng: np.random.Generator) -> View | None:
    """A corner placed from ink that is no index: the ink finder takes a
    glyph in the face's middle (a pip, a piece of a court picture) for a
    rank and the glyph under it for its suit, and poses an index there as
    it would on a real rank (_ink_view). Measured before these were taught:
    the middle hearts of a 5 read as a 4 of diamonds at 0.96 / 0.94 out of
    fold. None where the face has no such glyph away from its indices."""
    h, w = face.shape[:2]
    s = w / CARD_W
    grey = cv2.cvtColor(np.ascontiguousarray(face[:, :, :3]), cv2.COLOR_BGR2GRAY)
    inside = cv2.erode((face[:, :, 3] > 128).astype(np.uint8), np.ones((3, 3), np.uint8),
                       iterations=max(1, int(3 * s)))
    ink = ((grey < 150) & (inside > 0)).astype(np.uint8)
    iw, ih = int(_INDEX_SHARE[0] * w), int(_INDEX_SHARE[1] * h)
    ink[:ih, :iw] = 0  # (both indices: the face may be upside down)
    ink[h - ih :, w - iw :] = 0
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    tall = [i for i in range(1, n)
            if 0.6 * INK_RANK_HEIGHT * s <= stats[i, cv2.CC_STAT_HEIGHT] <= 0.2 * h
            and stats[i, cv2.CC_STAT_WIDTH] <= 0.3 * w]
    if not tall:
        return None
    i = tall[int(rng.integers(0, len(tall)))]
    x0, y0 = stats[i, cv2.CC_STAT_LEFT] / s, stats[i, cv2.CC_STAT_TOP] / s
    return _posed_at_rank(x0, y0, stats[i, cv2.CC_STAT_HEIGHT] / s, rng)


# Where a corner placed from ink has its rank's middle, in the patch: a
# turned index is turned about it.
_RANK_MIDDLE = (MARGIN + INK_RANK_LEFT + 0.375 * INK_RANK_HEIGHT,
                MARGIN + INK_RANK_TOP + 0.5 * INK_RANK_HEIGHT)


def turned_about_rank(view: View, turn: float) -> View:
    """The view turned by `turn` degrees about the rank's middle: the ink
    finder pairing a rank with a glyph above it or beside it (the next
    card's, a pip) poses the index upside down or on its side, and an
    upside-down 6 is a 9's shape, a 7's an L: no index that way round."""
    q = np.array([*_RANK_MIDDLE, 1.0])
    # (patch -> card, as render maps it: the rank's middle stays where it was)
    at = _similarity(view.angle, view.scale, view.dx - MARGIN, view.dy - MARGIN) @ q
    spun = _similarity(view.angle + turn, view.scale, 0.0, 0.0) @ q
    return View(float(at[0] - spun[0] + MARGIN), float(at[1] - spun[1] + MARGIN),
                view.angle + turn, view.scale)


# Where a face's index lies, as shares of its width and height (jumbo
# indices run farther; a pip caught with it is no index either way); the
# card's border line is within the outer share.
_INDEX_SHARE = (0.22, 0.3)
_BORDER_SHARE = 0.02


def four_index(face: Image) -> Image:
    """The face with an index in every corner, as a four-index deck prints
    it (revk's): the top left index's ink copied upright into the top right
    corner, the bottom right one's into the bottom left, each as far from
    its side as the original (the border and paper are not copied: no seam
    on the face). Frame mode poses a card's corner the face's way round, so
    at the two new corners it reads an index turned a quarter: no index
    (the four-index deck was read as a 4 there, sure of it, where a turned
    ace looked like one)."""
    out = face.copy()
    h, w = face.shape[:2]
    iw, ih = int(_INDEX_SHARE[0] * w), int(_INDEX_SHARE[1] * h)
    m = max(2, int(_BORDER_SHARE * w))
    for rows, cols in ((slice(m, ih), slice(m, iw)), (slice(h - ih, h - m), slice(w - iw, w - m))):
        part = face[rows, cols]
        ink = (part[:, :, :3].min(axis=2) < 170) & (part[:, :, 3] == 255)
        ys, xs = np.nonzero(ink)
        if len(xs) == 0:
            continue
        ys, xs = ys + rows.start, xs + cols.start
        # (the ink's box mirrored about the face's middle: as far from the
        # other side)
        out[ys, xs + (w - 1 - int(xs.max()) - int(xs.min()))] = face[ys, xs]
    return out


def mirrored_index(face: Image) -> Image | None:
    """The face with its top left index mirrored in place (a camera that
    mirrors, or a card seen in a mirror, read the wrong way round): no
    index to read that way round. None where the rank is not found, or
    where it is its own mirror image (A, 8, a French V): that is an index
    either way round."""
    box = _rank_rows(face)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    h = y1 - y0 + 1
    s = face.shape[1] / CARD_W
    grey = cv2.cvtColor(np.ascontiguousarray(face[:, :, :3]), cv2.COLOR_BGR2GRAY)
    rows = slice(y0, min(face.shape[0], int(y1 + 1.5 * h)))
    cols = np.flatnonzero((grey[rows, : int(56 * s)] < 150).sum(axis=0) >= 1)
    cols = cols[cols >= x0 - 0.6 * h]
    if cols.size == 0:
        return None
    a, b = max(int(cols[0]) - 1, 0), int(cols[-1]) + 2
    rank = grey[y0 : y1 + 1, x0 : x1 + 1].astype(np.float32)
    if rank.size < 16 or float(rank.std()) < 1.0:
        return None
    out = face.copy()
    out[rows, a:b] = face[rows, a:b][:, ::-1]
    flipped = cv2.cvtColor(np.ascontiguousarray(out[:, :, :3]), cv2.COLOR_BGR2GRAY)[
        y0 : y1 + 1, x0 : x1 + 1].astype(np.float32)
    # (a blank where the rank was mirrored is no rank: kept)
    if float(flipped.std()) >= 1.0 and \
            float(np.corrcoef(rank.ravel(), flipped.ravel())[0, 1]) > 0.75:
        return None
    return out


def render(face: Image, rng: np.random.Generator, view: View, *, over: Image | None = None,
           cover_index: bool = False) -> Image:
    """One corner patch of `face` (BGRA) seen through `view`, optionally with
    another card `over` it (off the index, or over it when cover_index)."""
    face = to_bgra(face)
    fh, fw = face.shape[:2]
    k = float(np.exp(rng.uniform(np.log(0.35), np.log(2.2))))  # camera px per canonical px
    vw, vh = int(np.ceil(PATCH_W * k)), int(np.ceil(PATCH_H * k))
    # Face pixels per canonical pixel: one scale from the card's width (the
    # shoe), or the outline squeezed to the canonical card (frame mode).
    sx = fw / CARD_W
    sy = sx if rng.random() < 0.5 else fh / CARD_H
    # camera view px -> canonical patch px -> canonical card px (with the
    # corner finder's error) -> face px
    view_to_patch = np.diag([1.0 / k, 1.0 / k, 1.0])
    patch_to_card = _similarity(view.angle, view.scale, view.dx - MARGIN, view.dy - MARGIN)
    card_to_face = np.diag([sx, sy, 1.0])
    persp = _perspective(rng, 0.0015 / k)
    if rng.random() < 0.5:
        # The picture stretched along some direction: a camera looking at
        # the table at a slant, or a photo's export squeezing its frame.
        persp = _stretch(rng.uniform(0, np.pi), float(np.exp(rng.uniform(-0.33, 0.33)))) @ persp
    m = card_to_face @ patch_to_card @ view_to_patch @ persp
    # A face far larger than the view is shrunk first (the camera integrates
    # over a pixel; linear sampling alone would alias fine strokes).
    shrink = min(1.0, 1.5 / np.sqrt(abs(np.linalg.det(m[:2, :2]))))
    if shrink < 0.9:
        face = cv2.resize(face, (max(1, round(fw * shrink)), max(1, round(fh * shrink))),
                          interpolation=cv2.INTER_AREA)
        m = np.diag([shrink, shrink, 1.0]) @ m
    img = _surround(rng, vw, vh)
    _draw(img, face, m)
    if over is not None:
        _draw(img, to_bgra(over), _over_map(rng, over, k, cover_index))
    patch: Image = cv2.resize(_camera(img, rng), (PATCH_W, PATCH_H),
                              interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.12:
        # The shoe's band ends 100 px right of the card's nominal edge: past
        # it the patch is black (drivers.vision.corner.corner_patch).
        patch[:, int(rng.uniform(64, PATCH_W)) :] = 0
    return patch


def _over_map(rng: np.random.Generator, over: Image, k: float, cover_index: bool) -> Matrix:
    """Map from view px to the face of a card lying over the corner: its top
    left corner right of the index or below it (a cascade), or on it."""
    ow = over.shape[1]
    s = ow / CARD_W
    if cover_index:
        x0, y0 = rng.uniform(-4, 22), rng.uniform(-4, 40)
    elif rng.random() < 0.5:
        # (right of an index printed above its suit; one printed beside it
        # reaches 76, and a hand is spread so that it shows)
        x0, y0 = rng.uniform(44, 96), rng.uniform(-60, 100)
    else:
        x0, y0 = rng.uniform(-60, 60), rng.uniform(92, 125)
    place = _similarity(rng.uniform(-15, 15), 1.0, x0 + MARGIN, y0 + MARGIN)
    # view px -> patch px -> the over card's canonical px -> its face px
    out: Matrix = np.diag([s, s, 1.0]) @ np.linalg.inv(place) @ np.diag([1.0 / k, 1.0 / k, 1.0])
    return out


# Index views placed as the ink finder places them; the kinds of negatives
# (a calibration's head learns from the first five alone: calibration.adapt).
INK_SHARE = 0.25
NEGATIVE_KINDS = 9


def sample(deck: Deck, rng: np.random.Generator, negative: float = 0.3,
           ink: float = INK_SHARE, kinds: int = NEGATIVE_KINDS) -> Sample:
    """One random view from a deck: an index corner (either of the card's
    two, the bottom right turned half a turn; a share `ink` of them placed
    from the index's ink) or, with chance `negative`, something a corner
    finder hands the reader that is no index (of the first `kinds` kinds)."""
    codes = sorted(deck)
    code = codes[int(rng.integers(0, len(codes)))]
    face = to_bgra(deck[code])
    if rng.random() < 0.5:
        face = np.ascontiguousarray(face[::-1, ::-1])
    over = None
    if rng.random() < 0.3:
        over = to_bgra(deck[codes[int(rng.integers(0, len(codes)))]])
        if rng.random() < 0.5:
            over = np.ascontiguousarray(over[::-1, ::-1])
    if rng.random() >= negative:
        view = _ink_view(face, rng) if ink > 0 and rng.random() < ink else None
        patch = render(face, rng, view or _view(rng, False), over=over)
        return Sample(patch, RANKS.index(code[0]), SUITS.index(code[1]))
    kind = rng.integers(0, kinds)
    if kind == 0:  # a card's back
        patch = render(_card_back(rng), rng, _view(rng, False))
    elif kind == 1:  # the index covered by a card lying over it
        cover = over if over is not None else to_bgra(deck[codes[int(rng.integers(0, len(codes)))]])
        patch = render(face, rng, _view(rng, False), over=cover, cover_index=True)
    elif kind == 2:  # a card turned a quarter: its index on its side
        # (half of them with four indices: one of them turned into this corner)
        four = four_index(face) if rng.random() < 0.5 else face
        turned = np.ascontiguousarray(np.rot90(four, 1 if rng.random() < 0.5 else 3))
        patch = render(turned, rng, _view(rng, False))
    elif kind == 3:  # the felt alone, or the card's edge far from its corner
        empty = np.zeros((8, 8, 4), np.uint8)
        patch = render(empty, rng, _view(rng, False))
    elif kind == 5 and (flipped := mirrored_index(face)) is not None:
        # the index the wrong way round, placed from its edges or its ink
        view = _ink_view(face, rng) if rng.random() < 0.5 else None
        patch = render(flipped, rng, view or _view(rng, False), over=over)
    elif kind == 6 and (hidden := covered(deck, rng)) is not None:
        return hidden
    elif kind == 7 and (view := _ink_view(face, rng)) is not None:
        # the index placed from its ink, turned a half or a quarter turn
        turn = float(rng.choice([180.0, 180.0, 90.0, -90.0]))
        patch = render(face, rng, turned_about_rank(view, turn), over=over)
    elif kind == 8 and (view := _blob_view(face, rng)) is not None:
        # a pip or a piece of a picture taken for a rank by the ink finder
        patch = render(face, rng, view, over=over)
    else:  # a window on the face away from the index
        patch = render(face, rng, _view(rng, True), over=over)
    return Sample(patch, NOT_AN_INDEX, -1)


def _rank_rows(face: Image) -> tuple[int, int, int, int] | None:
    """The box (x0, y0, x1, y1, face pixels) of the rank printed in the
    face's top left corner: the first band of rows with ink from the top,
    in the corner's left part."""
    s = face.shape[1] / CARD_W
    corner = face[: int(70 * s), : int(56 * s)]
    grey = cv2.cvtColor(np.ascontiguousarray(corner[:, :, :3]), cv2.COLOR_BGR2GRAY)
    # (inside the face by a few pixels: its rounded corner's edge is no ink)
    inside = cv2.erode((corner[:, :, 3] > 128).astype(np.uint8), np.ones((3, 3), np.uint8),
                       iterations=max(1, int(2 * s)))
    ink = (grey < 150) & (inside > 0)
    ink[: int(2 * s)] = False
    ink[:, : int(2 * s)] = False
    # (a border printed round the face is a line of ink along a whole row
    # or column: not the rank)
    ink[ink.mean(axis=1) > 0.6] = False
    ink[:, ink.mean(axis=0) > 0.6] = False
    rows = np.flatnonzero(ink.sum(axis=1) >= max(1, int(1.5 * s)))
    if rows.size == 0:
        return None
    gaps = np.flatnonzero(np.diff(rows) > max(1, int(2 * s)))
    y0, y1 = int(rows[0]), int(rows[gaps[0]] if gaps.size else rows[-1])
    cols = np.flatnonzero(ink[y0 : y1 + 1].any(axis=0))
    return int(cols[0]), y0, int(cols[-1]), y1


def covered(deck: Deck, rng: np.random.Generator) -> Sample | None:
    """An index corner with its rank's upper half or more covered by
    something opaque (a thumb, a chip): no index to read. What is left of
    a rank is part of another rank (a 6's bowl is an 8's or a 10's lower
    half), so it must not be read as one. None where the face's rank is not
    found."""
    codes = sorted(deck)
    face = to_bgra(deck[codes[int(rng.integers(0, len(codes)))]]).copy()
    box = _rank_rows(face)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    pad = 0.1 * (x1 - x0 + 1)
    bottom = y0 + float(rng.uniform(0.55, 1.05)) * (y1 - y0 + 1)
    colour = (rng.uniform(60, 120), rng.uniform(90, 160), rng.uniform(140, 220)) \
        if rng.random() < 0.6 else tuple(rng.uniform(0, 255, 3))
    cv2.rectangle(face, (int(x0 - pad), int(y0 - pad)), (int(x1 + pad), int(bottom)),
                  (*(float(c) for c in colour), 255.0), -1)
    return Sample(render(face, rng, _view(rng, False)), NOT_AN_INDEX, -1)


def samples(deck: Deck, n: int, seed: int, negative: float = 0.3) -> Iterator[Sample]:
    rng = np.random.default_rng(seed)
    for _ in range(n):
        yield sample(deck, rng, negative)
