"""The index corner of a card, cut out of a frame in the card's own frame.

Every reader works on a *corner patch*: the top left corner of a card,
turned upright and scaled to the canonical card (drivers.vision.frame.CARD_W
x CARD_H), with a margin around it so that a reader can search small shifts.
Where the card lies comes from its outline: in frame mode the warped card
itself, in the shoe the card's left and top edges, found in the band the
index crosses (a straight, high-contrast line against the dark ramp, far
easier to find than the index, and found as well when a glyph touches a pip
or the artwork). A card lying over another (two cards pulled together) has
no visible top edge; its corner is placed from its index glyphs instead.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.vision import kernels
from drivers.vision.glyphs import Image, percentile, to_gray

CARD_W, CARD_H = 200, 280  # the canonical card, portrait
RANK_HEIGHT = 34  # nominal rank glyph height on the canonical card
CORNER_W, CORNER_H = 48, 100  # the corner region read, canonical pixels
MARGIN = 8  # patch margin around it, canonical pixels

Vec = tuple[float, float]


@dataclass(frozen=True)
class CornerPose:
    """Where a card's top left corner is: `origin` in image pixels, `u` and
    `v` the image displacement of one canonical pixel along the card's top
    edge and down its left edge."""

    origin: Vec
    u: Vec
    v: Vec
    source: str = "edges"  # "edges", "ink" or "card" (frame mode)

    def to_image(self, cx: float, cy: float) -> Vec:
        """Image position of canonical corner coordinates (cx, cy)."""
        return (self.origin[0] + cx * self.u[0] + cy * self.v[0],
                self.origin[1] + cx * self.u[1] + cy * self.v[1])

    def moved(self, dx: float, dy: float) -> CornerPose:
        """The same pose with its origin moved (dx, dy) canonical pixels."""
        return CornerPose(self.to_image(dx, dy), self.u, self.v, self.source)


def corner_patch(image: Image, pose: CornerPose, width: int = CORNER_W,
                 height: int = CORNER_H, margin: int = MARGIN) -> Image:
    """The corner region, upright at canonical scale; patch pixel (i, j) is
    canonical corner position (i - margin, j - margin)."""
    ox, oy = pose.to_image(-margin, -margin)
    m = np.array([[pose.u[0], pose.v[0], ox], [pose.u[1], pose.v[1], oy]], np.float64)
    size = (width + 2 * margin, height + 2 * margin)
    # Outside the image is black: no paper, so no ink (a replicated border
    # would draw strokes that are not there).
    return cv2.warpAffine(image, m, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def patch_inside(shape: tuple[int, ...], pose: CornerPose, width: int = CORNER_W,
                 height: int = CORNER_H, margin: int = 0, top: float | None = None) -> bool:
    """The corner region (and `margin` around it) lies inside an image of
    this shape: a corner cut by the frame's edge is not read. The patch's
    own margin may run off the frame (a card whose top edge is just inside
    it): `corner_patch` fills it with black, no paper and so no ink, as the
    dark ramp around the card. `top`: the canonical row from which the
    region must be inside (default: `-margin`, its top with the margin)."""
    h, w = shape[0], shape[1]
    for cx in (-margin, width + margin):
        for cy in (-margin if top is None else top, height + margin):
            x, y = pose.to_image(cx, cy)
            if not (0.0 <= x <= w - 1 and 0.0 <= y <= h - 1):
                return False
    return True


# --- shoe mode: card corners from the edges in the band -------------------

EDGE_MIN_CONTRAST = 40.0  # card white over the ramp, grey levels
MIN_EDGE_ROWS = 24  # rows of left edge needed to trust a line
MIN_EDGE_COLS = 10


# The robust start of a line fit looks at this many points at most (the
# slopes of every pair: a few thousand numbers).
FIT_START_POINTS = 32

# Offsets of the few pixels past an edge's first strong one where its peak is
# looked for (one fancy index for all, not one per offset).
_STEPS = np.arange(4)


def _repeated_median(t: npt.NDArray[np.float64], s: npt.NDArray[np.float64]
                     ) -> tuple[float, float]:
    """Siegel's repeated median line through (t, s), t distinct: for each
    point the median slope to the others, then the median of those. Half
    the points may lie off the line without moving it; a least-squares
    start is pulled off by a few (the columns under the top bar of a 5
    printed against the card's top edge: their first light row is under
    the bar, 7 px down, and a third of them tilted the edge 18 degrees)."""
    if len(t) > FIT_START_POINTS:
        pick = np.arange(FIT_START_POINTS) * (len(t) - 1) // (FIT_START_POINTS - 1)
        t, s = t[pick], s[pick]
    n = len(t)
    dt = t[None, :] - t[:, None]
    ds = s[None, :] - s[:, None]
    off = _off_diagonal(n)
    slopes = np.sort((ds[off] / dt[off]).reshape(n, n - 1), axis=1)
    # (each row's median from the sorted row: np.median costs a tenth of a
    # millisecond a call here)
    mid = (n - 1) // 2
    medians = slopes[:, mid] if (n - 1) % 2 else 0.5 * (slopes[:, mid - 1] + slopes[:, mid])
    a = _median(medians)
    return a, _median(s - a * t)


@functools.cache
def _off_diagonal(n: int) -> npt.NDArray[np.bool_]:
    off: npt.NDArray[np.bool_] = ~np.eye(n, dtype=bool)
    off.flags.writeable = False  # shared by every fit of n points
    return off


def _median(values: npt.NDArray[np.float64]) -> float:
    """Median of a few hundred values at most, by a full sort: a fit takes
    half a dozen, and np.median's generality costs tens of microseconds
    a call."""
    v = np.sort(values)
    n = len(v)
    return float(v[n // 2]) if n % 2 else 0.5 * float(v[n // 2 - 1] + v[n // 2])


def _least_squares(t: npt.NDArray[np.float64], s: npt.NDArray[np.float64]
                   ) -> tuple[float, float]:
    # (the sums' means, as np.mean makes them, without its checks: a fit
    # takes two to four of these, two fits a frame; the products summed as
    # numpy sums, not through BLAS, whose order a compiled loop cannot
    # follow: drivers.vision.kernels)
    tm, sm = float(t.sum()) / len(t), float(s.sum()) / len(s)
    dt = t - tm
    a = float((dt * (s - sm)).sum()) / float((dt * dt).sum())
    return a, sm - a * tm


def _fit_line(t: npt.NDArray[np.float64], s: npt.NDArray[np.float64]
              ) -> tuple[float, float] | None:
    """s = a * t + b, robust: from the repeated median line, least squares
    on the points near it, again until the points kept stay the same (the
    glare, a glyph, the rounded corner left out). None when fewer than 60 %
    of the points lie on the line."""
    if len(t) < 6:
        return None
    a, b = _repeated_median(t, s)
    resid = np.abs(s - (a * t + b))
    keep = resid < max(1.5, _median(resid) * 2.5)
    for _ in range(3):
        if np.count_nonzero(keep) < 6:
            return None
        a, b = _least_squares(t[keep], s[keep])
        resid = np.abs(s - (a * t + b))
        new = resid < max(1.5, _median(resid[keep]) * 2.5)
        if (new == keep).all():
            break
        keep = new
    if np.count_nonzero(keep) < 0.6 * len(t):
        return None
    return a, b


def shoe_corners(band: Image, scale: float, ramp: float) -> list[CornerPose]:
    """Top left corners of cards whose left and top edges show in the band.

    band: the band of the frame (BGR or grey); scale: image pixels per
    canonical pixel; ramp: grey level of the empty ramp. Band coordinates.
    Edges are steps of brightness (the gradient), not levels, so glare on
    the ramp, which is smooth, does not pass for a card."""
    gray: npt.NDArray[np.float32] = np.asarray(
        cv2.GaussianBlur(to_gray(band).astype(np.float32), (0, 0), 1.0), np.float32)
    paper = percentile(gray[::2, ::2], 97)
    if paper - ramp < EDGE_MIN_CONTRAST:
        return []
    step = 0.22 * (paper - ramp)  # a card edge rises at least this much over 2 px
    rows, left_x, risen = _edge_rows(gray, step, paper - ramp)
    if risen < MIN_EDGE_ROWS:
        return []
    starts = _segment_starts(rows, int(30 * scale))
    return _corners_from_edges(gray, starts, rows.astype(np.float64), left_x, step, scale)


def _edge_rows_numpy(gray: npt.NDArray[np.float32], step: float, contrast: float
                     ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64], int]:
    """The rows where a card's left edge rises, each with the edge's
    sub-pixel column, and the count of rows with a rise at all
    (drivers.vision.kernels.edge_rows, in numpy)."""
    w = gray.shape[1]
    gx = np.zeros_like(gray)
    gx[:, 1:-1] = gray[:, 2:] - gray[:, :-2]
    strong = gx > step
    # Left of the edge is the ramp: darker than the card by half the contrast.
    rows = np.nonzero(strong[:, 3:].any(axis=1))[0]
    risen = len(rows)
    if risen < MIN_EDGE_ROWS:
        return rows, np.zeros(0), risen
    first = np.argmax(strong[rows, 3:], axis=1) + 3
    peak = gx[rows[:, None], np.minimum(first[:, None] + _STEPS, w - 1)]
    xk = first + np.argmax(peak, axis=1)
    xk = np.minimum(np.maximum(xk, 1), w - 2)
    g0, g1, g2 = gx[rows, xk - 1], gx[rows, xk], gx[rows, xk + 1]
    den = g0 - 2 * g1 + g2
    sub = np.where(np.abs(den) > 1e-3, 0.5 * (g0 - g2) / np.where(den == 0, 1, den), 0.0)
    left_x = xk + np.minimum(np.maximum(sub, -0.5), 0.5)
    right_side = gray[rows, np.minimum(xk + 3, w - 1)]
    left_side = gray[rows, np.maximum(xk - 3, 0)]
    valid = (right_side - left_side > 0.45 * contrast) & (xk < w - 8)
    return rows[valid], left_x[valid].astype(np.float64), risen


def _top_points_numpy(gray: npt.NDArray[np.float32], y0: int, y1: int, c0: int, c1: int,
                      level: float) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """In each column c0..c1-1 with a rise over `level` between rows y0 and
    y1, the column and the rise's sub-pixel row (drivers.vision.kernels.
    top_points, in numpy)."""
    gy = gray[y0 + 1 : y1 + 1, c0:c1] - gray[y0 - 1 : y1 - 1, c0:c1]
    rise = gy > level
    first = np.argmax(rise, axis=0)
    ok = rise.any(axis=0)
    across = np.arange(c1 - c0)
    near = gy[np.minimum(first + _STEPS[:3, None], len(gy) - 1), across]
    k = first + np.argmax(near, axis=0)
    kk = np.minimum(np.maximum(k, 1), len(gy) - 2)
    a0, a1, a2 = gy[kk - 1, across], gy[kk, across], gy[kk + 1, across]
    den = a0 - 2 * a1 + a2
    sub = np.where(np.abs(den) > 1e-3, 0.5 * (a0 - a2) / np.where(den == 0, 1, den), 0.0)
    ys = (y0 + kk + np.minimum(np.maximum(sub, -0.5), 0.5))[ok]
    return np.arange(c0, c1)[ok].astype(np.float64), ys.astype(np.float64)


# The compiled loops where numba is here, else their numpy twins: the same
# values (tests/vision/test_kernels.py).

def _edge_rows(gray: npt.NDArray[np.float32], step: float, contrast: float
               ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64], int]:
    if kernels.COMPILED:
        found: tuple[npt.NDArray[np.intp], npt.NDArray[np.float64], int] = \
            kernels.edge_rows(gray, step, contrast)
        return found
    return _edge_rows_numpy(gray, step, contrast)


def _top_points(gray: npt.NDArray[np.float32], y0: int, y1: int, c0: int, c1: int,
                level: float) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    if kernels.COMPILED:
        found: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] = \
            kernels.top_points(gray, y0, y1, c0, c1, level)
        return found
    return _top_points_numpy(gray, y0, y1, c0, c1, level)


def _fit(t: npt.NDArray[np.float64], s: npt.NDArray[np.float64]) -> tuple[float, float] | None:
    if not kernels.COMPILED:
        return _fit_line(t, s)
    ok, a, b = kernels.fit_line(np.ascontiguousarray(t), np.ascontiguousarray(s))
    return (a, b) if ok else None


def _corners_from_edges(gray: npt.NDArray[Any], starts: list[int],
                        rows: npt.NDArray[np.float64], left_x: npt.NDArray[np.float64],
                        level: float, scale: float) -> list[CornerPose]:
    """`level`: the least rise (over 2 px) of a top edge."""
    h, w = gray.shape
    if len(rows) < MIN_EDGE_ROWS:
        return []
    # The top of the card: in columns right of the left edge (past the
    # rounded corner), the first light row from the top. Several cards may
    # be in view one above the other; each top edge starts a light run.
    x_edge = _median(left_x)
    c0 = int(x_edge + 16 * scale)
    c1 = min(w, int(x_edge + 44 * scale))
    if c1 - c0 < MIN_EDGE_COLS:
        return []
    out: list[CornerPose] = []
    for top in starts:
        if top < 2:
            continue  # the card runs off the top of the frame: no corner in view
        # Sub-pixel top per column: the strongest rise near the segment's
        # first row.
        y0 = max(1, top - int(24 * scale))
        y1 = min(h - 1, top + int(8 * scale))
        if y1 - y0 < 3:
            continue
        xs, ys = _top_points(gray, y0, y1, c0, c1, level)
        if len(ys) < MIN_EDGE_COLS:
            continue
        top_line = _fit(xs, ys)
        if top_line is None:
            continue
        ta, tb = top_line
        # The left edge below this top: rows past the rounded corner.
        r0 = tb + ta * x_edge + 16 * scale
        r1 = r0 + 110 * scale
        sel = (rows >= r0) & (rows <= r1)
        if sel.sum() < MIN_EDGE_ROWS // 2:
            continue
        left_line = _fit(rows[sel], left_x[sel])
        if left_line is None:
            continue
        la, lb = left_line
        # Intersection: x = la*y + lb, y = ta*x + tb.
        y = (ta * lb + tb) / (1.0 - ta * la)
        x = la * y + lb
        nu = float(np.hypot(1.0, ta))
        nv = float(np.hypot(la, 1.0))
        out.append(CornerPose((x, y), (scale / nu, scale * ta / nu), (scale * la / nv, scale / nv)))
    return out


def _segment_starts(rows: npt.NDArray[np.intp], min_len: int) -> list[int]:
    """First row of each run of card rows (rows with a light run) at least
    min_len long, top first: the top edge of each card in view."""
    if len(rows) == 0:
        return []
    # (in numpy: a noisy band breaks its rows into hundreds of runs)
    breaks = np.flatnonzero(np.diff(rows) > 3)
    firsts = np.concatenate(([0], breaks + 1))
    lasts = np.concatenate((breaks, [len(rows) - 1]))
    starts: list[int] = rows[firsts[rows[lasts] - rows[firsts] >= min_len]].tolist()
    return starts

