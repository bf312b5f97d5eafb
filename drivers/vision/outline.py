"""Card corners from outlines: where an index may lie, with or without the
whole card in view.

On a table, cards overlap: a dealer cascades each hand so that only the
index corner of each lower card shows, and a photo's edge cuts cards off.
A reader that needs a card's whole outline reads only the top card of a
hand. So frame mode looks for card *corners*: the light regions that
cards make (drivers.vision.whole_card.card_mask, the union of the cards that
touch or overlap), their outlines simplified to polygons, and every convex
vertex whose two sides are straight and long enough and meet at about a
right angle. A card lying on others shows its own corners at the union's
outline, and each card under it shows its top left one (a cascade runs
right and down, or any way round, since every corner is tried).

Each corner gives one pose (drivers.vision.corner.CornerPose): along its
two sides, in the turn that keeps the card's face the right way round (a
face seen from above is never mirrored). At an index corner (a card's top
left or bottom right) the index then stands upright; at the two others it
lies on its side, which the learned reader takes for no index. The scale
comes from the card's width: the outline's own when it is one whole card,
else the width of the whole cards found in the same image, else the
shorter of the corner's sides.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from drivers.vision.corner import CARD_H, CARD_W, CornerPose
from drivers.vision.glyphs import Image

F64 = npt.NDArray[np.float64]

CORNER_ANGLE = (55.0, 125.0)  # degrees: a right angle under a slant or a stretched export
BORDER_GAP = 3.0  # a vertex this near to the image's edge is where the image cuts a card
# A whole card's length over its width as a camera may show it: 1.4 to 1.56
# on the table, squeezed or stretched by a slant and an export.
ASPECT_SEEN = (0.55, 2.2)


@dataclass(frozen=True)
class Corner:
    """A card corner in an image: where it is, the unit directions of its
    two sides (into the card), how far each runs straight from the corner
    (a card's width and length where nothing covers them), and the outline
    it is on (-1: none, two straight edges met)."""

    point: tuple[float, float]
    a: tuple[float, float]
    b: tuple[float, float]
    sides: tuple[float, float]
    region: int

    def pose(self, width: float) -> CornerPose:
        """The corner's pose for a card `width` pixels wide, turned so that
        the face is the right way round (u x v > 0 with y down). Where both
        sides run a whole card's width and length (a whole card: its top
        along u, its side along v), each side sets its own scale, as a
        warp of the outline to the canonical card would: a card seen at a
        slant, or in a photo stretched by its export, is a parallelogram
        whose sides are not in the card's ratio: a phone's 3:4 frame
        exported square and seen at a slant showed cards 1.5 times as wide
        as long (ASPECT_SEEN)."""
        a, b = np.array(self.a), np.array(self.b)
        swap = a[0] * b[1] - a[1] * b[0] <= 0
        u, v = (b, a) if swap else (a, b)
        run_u, run_v = (self.sides[1], self.sides[0]) if swap else self.sides
        su = sv = width / CARD_W
        if run_u >= 0.6 * width and ASPECT_SEEN[0] <= run_v / run_u <= ASPECT_SEEN[1]:
            # The runs stop where the rounded corners start (a few % short).
            su, sv = run_u / (0.96 * CARD_W), run_v / (0.97 * CARD_H)
        return CornerPose(self.point, (float(u[0] * su), float(u[1] * su)),
                          (float(v[0] * sv), float(v[1] * sv)), "outline")


def _fit(points: F64) -> tuple[F64, F64] | None:
    """A line through points: (a point on it, its unit direction)."""
    if len(points) < 3:
        return None
    vx, vy, x0, y0 = cv2.fitLine(points.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01
                                 ).ravel()
    return np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)


def _meet(p: F64, d: F64, q: F64, e: F64) -> F64 | None:
    """Where two lines cross (None when they are about parallel)."""
    m = np.array([[d[0], -e[0]], [d[1], -e[1]]])
    if abs(np.linalg.det(m)) < 1e-3:
        return None
    t = np.linalg.solve(m, q - p)
    out: F64 = p + t[0] * d
    return out


def _turns(pts: F64, k: int) -> tuple[F64, F64]:
    """At each outline point, the angle (degrees) between the chords to the
    points k before and k after it, and the sign of the turn."""
    a = np.roll(pts, k, axis=0) - pts
    b = np.roll(pts, -k, axis=0) - pts
    na, nb = np.hypot(a[:, 0], a[:, 1]), np.hypot(b[:, 0], b[:, 1])
    cos = (a * b).sum(axis=1) / np.maximum(na * nb, 1e-9)
    angle: F64 = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
    cross: F64 = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
    return angle, cross


def _straight(points: F64, tol: float) -> tuple[F64, F64] | None:
    """A line through points that lie along it (RMS distance under tol)."""
    line = _fit(points)
    if line is None:
        return None
    p, d = line
    off = (points - p) @ np.array([-d[1], d[0]])
    return line if float(np.sqrt(np.mean(off * off))) <= tol else None


def same_corner(a: Corner, b: Corner, tol: float) -> bool:
    """Two corners at one place (within tol) with the same sides, in either
    order: one corner found twice (at two scales, or in two masks)."""
    def dot(x: tuple[float, float], y: tuple[float, float]) -> float:
        return x[0] * y[0] + x[1] * y[1]

    return bool(np.hypot(a.point[0] - b.point[0], a.point[1] - b.point[1]) < tol
                and ((dot(a.a, b.a) > 0.9 and dot(a.b, b.b) > 0.9)
                     or (dot(a.a, b.b) > 0.9 and dot(a.b, b.a) > 0.9)))


def _sag(pts: F64, start: npt.NDArray[np.intp], end: npt.NDArray[np.intp]) -> F64:
    """For each span of the outline, how far its middle point lies from the
    chord between its ends (pixels)."""
    n = len(pts)
    p, q, m = pts[start % n], pts[end % n], pts[((start + end) // 2) % n]
    d = q - p
    cross = np.abs(d[:, 0] * (m[:, 1] - p[:, 1]) - d[:, 1] * (m[:, 0] - p[:, 0]))
    out: F64 = cross / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-9)
    return out


def _run(pts: F64, i: int, step: int, point: F64, direction: F64, tol: float, k: int
         ) -> float:
    """How far a side runs straight from its corner: along the outline from
    point i (forward or back), the last point still on the side's line
    (within 2 tol), as a distance from the corner."""
    n = len(pts)
    along = pts[(i + step * np.arange(k, n // 2)) % n] - point
    normal = np.array([-direction[1], direction[0]])
    off = np.abs(along @ normal)
    bad = np.flatnonzero(off > 2 * tol + 0.02 * (along @ direction).clip(0))
    last = along[bad[0] - 1] if len(bad) and bad[0] > 0 else along[-1] if not len(bad) \
        else along[0]
    return float(max(0.0, last @ direction))


def corners_in(mask: Image, min_width: float) -> list[Corner]:
    """Card corners on the outlines of a card mask (255 = card): points
    where the outline turns by about a right angle between two straight
    sides, at the scale of the smallest card and at twice and four times it
    (a rounded corner is a bend at the small scale, a corner at the larger;
    a large card's sides are straight at every scale)."""
    h, w = mask.shape[:2]
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out: list[Corner] = []
    for region, contour in enumerate(contours):
        if cv2.contourArea(contour) < 0.5 * min_width * min_width:
            continue
        pts = contour[:, 0, :].astype(np.float64)
        n = len(pts)
        # The outline runs so that the card is on one side: a convex corner
        # turns one way (the sign of the region's own orientation).
        sign = 1.0 if cv2.contourArea(contour, oriented=True) < 0 else -1.0
        found: list[Corner] = []
        # Largest first: longer sides fit the corner more exactly.
        for scale in (4.0, 2.0, 1.0):
            k = max(4, int(0.15 * min_width * scale))
            if 4 * k >= n:
                continue
            angle, cross = _turns(pts, k)
            # The sharpest point of each bend: the least angle within k/2.
            half = k // 2
            wrapped = np.concatenate([angle[-half:], angle, angle[:half]]).astype(np.float32)
            least = cv2.erode(wrapped.reshape(1, -1), np.ones((1, 2 * half + 1), np.uint8),
                              borderType=cv2.BORDER_REPLICATE).ravel()[half : half + n]
            ok = ((angle >= CORNER_ANGLE[0]) & (angle <= CORNER_ANGLE[1]) & (cross * sign > 0)
                  & (angle <= least + 1e-3))
            tol = max(1.0, 0.03 * k)
            idx = np.flatnonzero(ok)
            # Both sides about straight (their middles near their chords)
            # before any line is fitted: most bends are a pip's or a picture's.
            idx = idx[(_sag(pts, idx - 2 * k, idx - k) <= 2 * tol)
                      & (_sag(pts, idx + k, idx + 2 * k) <= 2 * tol)]
            for i in idx:
                # The sides from k on (a rounded corner's arc lies within k
                # of the corner at the scale where the bend is a corner).
                before = _straight(pts[np.arange(i - 2 * k, i - k) % n], tol)
                after = _straight(pts[np.arange(i + k, i + 2 * k) % n], tol)
                if before is None or after is None:
                    continue
                point = _meet(before[0], before[1], after[0], after[1])
                if point is None or np.hypot(*(point - pts[i])) > 0.5 * k:
                    continue
                if min(point[0], point[1], w - 1 - point[0], h - 1 - point[1]) < BORDER_GAP:
                    continue
                a, b = pts[(i - 2 * k) % n] - point, pts[(i + 2 * k) % n] - point
                da = before[1] if np.dot(before[1], a) > 0 else -before[1]
                db = after[1] if np.dot(after[1], b) > 0 else -after[1]
                turn = float(np.degrees(np.arccos(np.clip(np.dot(da, db), -1.0, 1.0))))
                if not CORNER_ANGLE[0] <= turn <= CORNER_ANGLE[1]:
                    continue
                sides = (_run(pts, int(i), -1, point, da, tol, k),
                         _run(pts, int(i), 1, point, db, tol, k))
                c = Corner((float(point[0]), float(point[1])), (float(da[0]), float(da[1])),
                           (float(db[0]), float(db[1])), sides, region)
                # A bend that made a corner at a larger scale is that corner
                # (its sides, fitted further from the rounding, are truer).
                if not any(np.hypot(c.point[0] - f.point[0], c.point[1] - f.point[1])
                           < 0.2 * min_width for f in found):
                    found.append(c)
        out.extend(found)
    return out


_LSD: list[cv2.LineSegmentDetector] = []


def _segments(gray: Image, min_len: float) -> F64:
    """Straight edges (x0, y0, x1, y1) at least min_len long, found at half
    size (OpenCV's line segment detector; a quarter of the time)."""
    if not _LSD:
        _LSD.append(cv2.createLineSegmentDetector())
    small = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2),
                       interpolation=cv2.INTER_AREA)
    found = _LSD[0].detect(small)[0]
    if found is None:
        return np.zeros((0, 4))
    seg: F64 = found.reshape(-1, 4).astype(np.float64) * 2.0
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    out: F64 = seg[length >= min_len]
    return out


def edge_corners(gray: Image, min_width: float, limit: int = 160) -> list[Corner]:
    """Card corners where two straight edges meet at about a right angle,
    each running away from the meeting point: the corners of cards lying
    over other cards, whose edges show against the face under them (a
    shadow, the card's thickness) though no outline of light regions does.
    At most `limit`, longest sides first."""
    seg = _segments(gray, 0.3 * min_width)
    if len(seg) < 2:
        return []
    p, q = seg[:, :2], seg[:, 2:]
    d = q - p
    length = np.hypot(d[:, 0], d[:, 1])
    unit = d / length[:, None]
    i, j = np.triu_indices(len(seg), 1)
    cos = np.abs((unit[i] * unit[j]).sum(axis=1))
    keep = cos <= np.cos(np.radians(90.0 - (90.0 - CORNER_ANGLE[0])))
    i, j = i[keep], j[keep]
    # Where the two lines cross, as a distance along each from its start.
    a11, a12 = unit[i, 0], -unit[j, 0]
    a21, a22 = unit[i, 1], -unit[j, 1]
    det = a11 * a22 - a12 * a21
    bx, by = p[j, 0] - p[i, 0], p[j, 1] - p[i, 1]
    ti = (bx * a22 - a12 * by) / det
    tj = (a11 * by - bx * a21) / det
    near = 0.12 * min_width
    # The meeting point must lie at one end of each segment (within `near`).
    end_i = np.where(np.abs(ti) <= near, 1.0, np.where(np.abs(ti - length[i]) <= near, -1.0, 0))
    end_j = np.where(np.abs(tj) <= near, 1.0, np.where(np.abs(tj - length[j]) <= near, -1.0, 0))
    ok = (end_i != 0) & (end_j != 0)
    i, j, ti, end_i, end_j = i[ok], j[ok], ti[ok], end_i[ok], end_j[ok]
    order = np.argsort(-np.minimum(length[i], length[j]))[:limit]
    out: list[Corner] = []
    h, w = gray.shape[:2]
    for k in order:
        point = p[i[k]] + ti[k] * unit[i[k]]
        if min(point[0], point[1], w - 1 - point[0], h - 1 - point[1]) < BORDER_GAP:
            continue
        da, db = unit[i[k]] * end_i[k], unit[j[k]] * end_j[k]
        out.append(Corner((float(point[0]), float(point[1])), (float(da[0]), float(da[1])),
                          (float(db[0]), float(db[1])),
                          (float(length[i[k]]), float(length[j[k]])), -1))
    return out


def hidden_corners(corners: list[Corner], width: float) -> list[Corner]:
    """The corners a card's width away along a side that stops short of it:
    where a card lies over another, its top left corner lies on the face
    under it (white on white, no outline), but its top right one is on the
    outline, its top side cut off where it enters the lower card. The
    corner one width along that side is the hidden one."""
    out = []
    for c in corners:
        for side, other, run in ((c.a, c.b, c.sides[0]), (c.b, c.a, c.sides[1])):
            if run >= 0.9 * width:
                continue
            point = (c.point[0] + width * side[0], c.point[1] + width * side[1])
            back = (-side[0], -side[1])
            out.append(Corner(point, back, other, (width, 0.0), -1))
    return out
