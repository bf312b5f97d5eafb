"""Compiled loops of the card readers (numba), where numpy pays per call.

A shoe frame was read in some 1,100 numpy and OpenCV calls on small
arrays, each a microsecond or more of dispatch for a few hundred pixels of
work: the frame's time was their count. Each loop here does in one call
what the shoe's search did in several to dozens: the statistics of a
label image, an order statistic of 8-bit values, the card's edges in the
band and the robust fit of its lines, the index places of a band.

Each loop has a numpy twin (in the module that calls it) that gives the
same values to the bit: integer logic, and float arithmetic in the twin's
own types and order (numpy's pairwise sums included). The twins run where
numba is not installed (it has wheels for x86-64 and 64-bit Arm; 32-bit
Raspberry Pi OS has none) or CROUPIER_NO_JIT=1 is set, and the tests hold
each loop to its twin on real frames (tests/vision/test_kernels.py).

The loops are compiled, for the types the readers pass (an explicit
signature each), the first time one is asked for (`warm`: the camera
driver and the benchmarks ask before the first frame), not on import: the
command line imports the readers for every command. The machine code is
cached (numba's cache: beside this file where that is writable, else
NUMBA_CACHE_DIR, which the service sets to its state directory): a first
start compiles for some seconds (13 s on the development machine), later
ones load the cache in about half a second.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

COMPILED = (importlib.util.find_spec("numba") is not None
            and os.environ.get("CROUPIER_NO_JIT", "") != "1")

_F = Callable[..., Any]

# The loops as Python functions, with their signatures, in the order they
# are defined: a loop that calls another comes after it, so it is compiled
# after it (numba compiles a call to a loop it already has).
_LOOPS: dict[str, tuple[_F, tuple[str, ...]]] = {}


def _jit(*signatures: str) -> Callable[[_F], _F]:
    """Keep the function to be compiled for these signatures on first use."""
    def keep(f: _F) -> _F:
        _LOOPS[f.__name__] = (f, signatures)
        return f
    return keep


def warm() -> None:
    """Compile the loops, or load them from the cache, now: before a
    camera's first frame, so that no frame waits for them."""
    if not COMPILED:
        return
    import numba  # (a third of a second to import: only where frames are read)

    for name, (f, signatures) in _LOOPS.items():
        if name in globals():
            continue
        loop = numba.njit(cache=True, nogil=True, boundscheck=False)(f)
        # (bound before it is compiled: a loop that calls itself finds itself)
        globals()[name] = loop
        for signature in signatures:
            loop.compile(signature)
        loop.disable_compile()  # its signatures only: other types are an error


# --- label statistics ------------------------------------------------------

@_jit("int32[:, ::1](int32[:, ::1], int64)")
def label_stats(labels: npt.NDArray[np.int32], n: int) -> npt.NDArray[np.int32]:
    """cv2's component statistics (x, y, width, height, area) of labels
    1..n-1 of a label image, row 0 left zero: one pass over the pixels."""
    h, w = labels.shape
    stats = np.zeros((n, 5), np.int32)
    x1 = np.zeros(n, np.int32)
    y1 = np.zeros(n, np.int32)
    for y in range(h):
        for x in range(w):
            k = labels[y, x]
            if k <= 0:
                continue
            if stats[k, 4] == 0:
                stats[k, 0] = x
                stats[k, 1] = y
                x1[k] = x
            elif x < stats[k, 0]:
                stats[k, 0] = x
            elif x > x1[k]:
                x1[k] = x
            y1[k] = y
            stats[k, 4] += 1
    for k in range(1, n):
        if stats[k, 4] > 0:
            stats[k, 2] = x1[k] - stats[k, 0] + 1
            stats[k, 3] = y1[k] - stats[k, 1] + 1
    return stats


# --- order statistics --------------------------------------------------------

@_jit("UniTuple(float64, 2)(uint8[:, :], int64, int64)")
def order_pair_u8(values: Any, lo: int, hi: int) -> tuple[float, float]:
    """The lo-th and hi-th smallest of a 2-D array of 8-bit values (lo <=
    hi), from their histogram: one pass, a microsecond for a band's sample
    where a partial sort took twenty. (Floats are left to numpy: its sort
    is vectorised, numba's is not.)"""
    h, w = values.shape
    counts = np.zeros(256, np.int64)
    for y in range(h):
        for x in range(w):
            counts[values[y, x]] += 1
    seen = 0
    v = 0
    while seen + counts[v] <= lo:
        seen += counts[v]
        v += 1
    below = v
    while seen + counts[v] <= hi:
        seen += counts[v]
        v += 1
    return float(below), float(v)



@_jit("UniTuple(float64, 2)(float32[:, :], int64, int64)")
def order_pair_f32(values: Any, lo: int, hi: int) -> tuple[float, float]:
    """The lo-th and hi-th smallest of a 2-D array of float32 values (hi is
    lo or lo + 1) by quickselect on a copy: a three-way partition round the
    median of three, so that many equal values (an image's paper, a
    clipped glyph's ink) cost one pass, not one apiece."""
    h, w = values.shape
    n = h * w
    a = np.empty(n, values.dtype)
    for y in range(h):
        for x in range(w):
            a[y * w + x] = values[y, x]
    left, right = 0, n - 1
    while right > left:
        p0, p1, p2 = a[left], a[(left + right) // 2], a[right]
        pivot = max(min(p0, p1), min(max(p0, p1), p2))
        # a[left:lt] < pivot, a[lt:i] == pivot, a[gt+1:right+1] > pivot
        lt, i, gt = left, left, right
        while i <= gt:
            v = a[i]
            if v < pivot:
                a[i], a[lt] = a[lt], v
                lt += 1
                i += 1
            elif v > pivot:
                a[i], a[gt] = a[gt], v
                gt -= 1
            else:
                i += 1
        if lo < lt:
            right = lt - 1
        elif lo > gt:
            left = gt + 1
        else:
            break
    below = a[lo]
    if hi == lo:
        return float(below), float(below)
    # The next one up: the least of those after the lo-th (all at least it).
    above = a[hi]
    for k in range(hi, n):
        if a[k] < above:
            above = a[k]
    return float(below), float(above)


# --- the card's edges in the band (drivers.vision.corner.shoe_corners) -------

# The constants of drivers.vision.corner, passed in (this module imports
# nothing of the readers').
_GRAD_W = 3  # an edge's first strong gradient is looked for from this column


@_jit("float32(float32[:, ::1], int64, int64)")
def _gx(gray: Any, y: int, x: int) -> Any:
    """The band's horizontal gradient over 2 px, zero in its first and last
    columns (as shoe_corners' numpy twin pads it)."""
    if x < 1 or x > gray.shape[1] - 2:
        return np.float32(0.0)
    return gray[y, x + 1] - gray[y, x - 1]


@_jit("Tuple((int64[::1], float64[::1], int64))(float32[:, ::1], float64, float64)")
def edge_rows(gray: Any, step: float, contrast: float) -> tuple[Any, Any, int]:
    """The rows where a card's left edge rises (a gradient over `step` past
    the first columns), each with the edge's sub-pixel column, kept where
    the card is `contrast` * 0.45 lighter than the ramp 3 px either side
    and the edge is clear of the band's right side; and the count of rows
    with a rise at all, kept or not."""
    h, w = gray.shape
    step32 = np.float32(step)
    half = np.float32(0.45 * contrast)
    rows = np.empty(h, np.int64)
    left_x = np.empty(h, np.float64)
    n = 0
    risen = 0
    for y in range(h):
        first = -1
        for x in range(_GRAD_W, w - 1):
            if _gx(gray, y, x) > step32:
                first = x
                break
        if first < 0:
            continue
        risen += 1
        # The peak among the first strong pixel and the three after it.
        best, top = 0, _gx(gray, y, first)
        for d in range(1, 4):
            g = _gx(gray, y, min(first + d, w - 1))
            if g > top:
                best, top = d, g
        xk = min(max(first + best, 1), w - 2)
        g0, g1, g2 = _gx(gray, y, xk - 1), _gx(gray, y, xk), _gx(gray, y, xk + 1)
        den = g0 - np.float32(2.0) * g1 + g2
        sub = np.float32(0.0)
        if abs(den) > np.float32(1e-3):
            sub = min(max(np.float32(0.5) * (g0 - g2) / den, np.float32(-0.5)), np.float32(0.5))
        right = gray[y, min(xk + 3, w - 1)]
        left = gray[y, max(xk - 3, 0)]
        if right - left > half and xk < w - 8:
            rows[n] = y
            left_x[n] = float(xk) + float(sub)
            n += 1
    return rows[:n].copy(), left_x[:n].copy(), risen


@_jit("Tuple((float64[::1], float64[::1]))(float32[:, ::1], int64, int64, int64, int64, float64)")
def top_points(gray: Any, y0: int, y1: int, c0: int, c1: int, level: float
               ) -> tuple[Any, Any]:
    """In each column c0..c1-1, the sub-pixel row of the first rise over
    `level` (over 2 px) between rows y0 and y1: the card's top edge. Columns
    with no rise are left out."""
    rows = y1 - y0
    level32 = np.float32(level)
    xs = np.empty(c1 - c0, np.float64)
    ys = np.empty(c1 - c0, np.float64)
    n = 0
    for c in range(c0, c1):
        first = -1
        for r in range(rows):
            if gray[y0 + 1 + r, c] - gray[y0 - 1 + r, c] > level32:
                first = r
                break
        if first < 0:
            continue
        best = 0
        top = gray[y0 + 1 + first, c] - gray[y0 - 1 + first, c]
        for d in range(1, 3):
            r = min(first + d, rows - 1)
            g = gray[y0 + 1 + r, c] - gray[y0 - 1 + r, c]
            if g > top:
                best, top = d, g
        kk = min(max(first + best, 1), rows - 2)
        a0 = gray[y0 + kk, c] - gray[y0 - 2 + kk, c]
        a1 = gray[y0 + 1 + kk, c] - gray[y0 - 1 + kk, c]
        a2 = gray[y0 + 2 + kk, c] - gray[y0 + kk, c]
        den = a0 - np.float32(2.0) * a1 + a2
        sub = np.float32(0.0)
        if abs(den) > np.float32(1e-3):
            sub = min(max(np.float32(0.5) * (a0 - a2) / den, np.float32(-0.5)), np.float32(0.5))
        xs[n] = float(c)
        ys[n] = float(y0 + kk) + float(sub)
        n += 1
    return xs[:n].copy(), ys[:n].copy()


# --- a robust line (drivers.vision.corner._fit_line) --------------------------

_FIT_START_POINTS = 32


@_jit("float64(float64[::1])")
def _median(values: Any) -> float:
    v = np.sort(values)
    n = len(v)
    return float(v[n // 2]) if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


@_jit("float64(float64[::1])", "float32(float32[::1])")
def _pairwise_sum(a: Any) -> Any:
    """numpy's sum in numpy's order and type (pairwise, eight partial sums
    in a block of at most 128): the same bits as `a.sum()` of float64 or
    float32 values."""
    n = len(a)
    if n < 8:
        res = -np.zeros(1, a.dtype)[0]  # (numpy's start, in the values' type)
        for i in range(n):
            res += a[i]
        return res
    if n <= 128:
        r = a[:8].copy()
        i = 8
        while i < n - n % 8:
            for j in range(8):
                r[j] += a[i + j]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            res += a[i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise_sum(a[:n2]) + _pairwise_sum(a[n2:])


@_jit("UniTuple(float64, 2)(float64[::1], float64[::1])")
def _least_squares(t: Any, s: Any) -> tuple[float, float]:
    tm = _pairwise_sum(t) / len(t)
    sm = _pairwise_sum(s) / len(s)
    dt = t - tm
    a = _pairwise_sum(dt * (s - sm)) / _pairwise_sum(dt * dt)
    return a, sm - a * tm


@_jit("UniTuple(float64, 2)(float64[::1], float64[::1])")
def _repeated_median(t: Any, s: Any) -> tuple[float, float]:
    n = len(t)
    if n > _FIT_START_POINTS:
        pick = np.arange(_FIT_START_POINTS) * (n - 1) // (_FIT_START_POINTS - 1)
        t, s = t[pick], s[pick]
        n = _FIT_START_POINTS
    medians = np.empty(n, np.float64)
    slopes = np.empty(n - 1, np.float64)
    mid = (n - 1) // 2
    for i in range(n):
        # (each slope put in order as it is made: a few hundred steps for
        # a row of 31, a third of the time of a sort call)
        k = 0
        for j in range(n):
            if j != i:
                v = (s[j] - s[i]) / (t[j] - t[i])
                m = k
                while m > 0 and slopes[m - 1] > v:
                    slopes[m] = slopes[m - 1]
                    m -= 1
                slopes[m] = v
                k += 1
        medians[i] = slopes[mid] if (n - 1) % 2 else 0.5 * (slopes[mid - 1] + slopes[mid])
    a = _median(medians)
    return a, _median(s - a * t)


@_jit("Tuple((boolean, float64, float64))(float64[::1], float64[::1])")
def fit_line(t: Any, s: Any) -> tuple[bool, float, float]:
    """s = a * t + b, robust (drivers.vision.corner._fit_line: the repeated
    median line, then least squares on the points near it until they stay
    the same); False when fewer than 60 % of the points lie on the line."""
    n = len(t)
    if n < 6:
        return False, 0.0, 0.0
    a, b = _repeated_median(t, s)
    resid = np.abs(s - (a * t + b))
    keep = resid < max(1.5, _median(resid) * 2.5)
    for _ in range(3):
        if np.count_nonzero(keep) < 6:
            return False, 0.0, 0.0
        a, b = _least_squares(t[keep], s[keep])
        resid = np.abs(s - (a * t + b))
        new = resid < max(1.5, _median(resid[keep]) * 2.5)
        if (new == keep).all():
            break
        keep = new
    if np.count_nonzero(keep) < 0.6 * n:
        return False, 0.0, 0.0
    return True, a, b


# --- index places in a patch (drivers.vision.glyphs._index_places) ----------

@_jit("boolean[::1](int32[:, ::1], int64, int64, int64)")
def glyph_candidates(stats: Any, h: int, w: int, glyph_size: int) -> Any:
    """Which components could be part of a rank or a suit
    (drivers.vision.glyphs.glyph_candidates)."""
    n = stats.shape[0]
    ok = np.zeros(n, np.bool_)
    for i in range(1, n):
        x, y, bw, bh, area = stats[i, 0], stats[i, 1], stats[i, 2], stats[i, 3], stats[i, 4]
        ok[i] = (x > 0 and y > 0 and x + bw < w and y + bh < h
                 and bh >= 0.12 * glyph_size and bh <= 1.7 * glyph_size
                 and bw <= 2.2 * glyph_size and area >= 0.004 * glyph_size * glyph_size)
    return ok


@_jit("UniTuple(int64, 6)(int32[:, ::1], int32[:, ::1], int64, int64, int64, int64, int64[::1])")
def _suit_in_merged(labels: Any, stats: Any, rx: int, ry: int, rw: int, rh: int,
                    group: Any) -> tuple[int, int, int, int, int, int]:
    """A suit glyph joined to other ink under the rank box (rx, ry, rw, rh)
    (drivers.vision.glyphs._suit_in_merged): its component, the x, y, width
    and height of its cut box, and its pixels there; the component -1 when
    none."""
    h, w = labels.shape
    rx2, ry2 = rx + rw, ry + rh
    x0, x1 = max(0, int(rx - 0.15 * rh)), min(w, int(rx2 + 0.15 * rh))
    y0 = max(0, int(ry2 - 0.08 * rh))
    y1 = min(h, int(ry2 + 1.5 * rh))
    rcx = rx + rw / 2.0
    widths = np.zeros(max(y1 - y0, 0), np.int64)
    for i in range(stats.shape[0]):
        x, y, bw, bh = stats[i, 0], stats[i, 1], stats[i, 2], stats[i, 3]
        gap = y - ry2
        if not (x > 0 and y > 0 and gap >= -0.08 * rh and gap <= 0.6 * rh
                and x < x1 and x + bw > x0 and y < y1 and y + bh > y0):
            continue
        member = False
        for g in group:
            if g == i:
                member = True
        if member:
            continue
        rows, first = 0, -1
        for r in range(y1 - y0):
            c = 0
            for col in range(x0, x1):
                if labels[y0 + r, col] == i:
                    c += 1
            widths[r] = c
            if c:
                rows += 1
                if first < 0:
                    first = r
        if rows < 3:
            continue
        top = min(len(widths), first + int(0.6 * rh))
        widest = first
        for r in range(first + 1, top):
            if widths[r] > widths[widest]:
                widest = r
        cut = min(len(widths), first + int(0.8 * rh))
        for r in range(widest, len(widths)):
            if widths[r] <= 0.35 * widths[widest]:
                cut = r
                break
        sx0, sy0, sx1, sy1, px = w, h, -1, -1, 0
        for r in range(cut):
            for col in range(x0, x1):
                if labels[y0 + r, col] == i:
                    px += 1
                    sx0, sx1 = min(sx0, col), max(sx1, col)
                    sy0, sy1 = min(sy0, y0 + r), max(sy1, y0 + r)
        if px == 0:
            continue
        sw, sh = sx1 - sx0 + 1, sy1 - sy0 + 1
        if abs(sx0 + sw / 2.0 - rcx) > 0.45 * max(rw, sw) or sw > 1.3 * rh:
            continue
        if not 0.25 * rh <= sh <= 0.95 * rh:
            continue
        return i, sx0, sy0, sw, sh, px
    return -1, 0, 0, 0, 0, 0


@_jit("Tuple((int64[:, ::1], int64[::1]))(int32[:, ::1], int32[:, ::1], int64, int64)")
def index_places(labels: Any, stats: Any, glyph_size: int, limit: int
                 ) -> tuple[Any, Any]:
    """The rank-over-suit places of a label image and its statistics
    (drivers.vision.glyphs._index_places, which says how they are found).
    Each place a row: the rank box (x, y, w, h), the suit box, the suit's
    pixel count, and where its components lie in `ids`: the rank's from
    column 9 up to column 10, the suit's from there up to column 11."""
    h, w = labels.shape
    n = stats.shape[0]
    ok = glyph_candidates(stats, h, w, glyph_size)
    cands = np.flatnonzero(ok)
    # (seeds top first, then left first; a stable sort keeps the label
    # order of a tie, as Python's sorted does)
    key = np.empty(len(cands), np.int64)
    for k in range(len(cands)):
        key[k] = stats[cands[k], 1] * (w + 1) + stats[cands[k], 0]
    seeds = cands[np.argsort(key, kind="mergesort")]
    used = np.zeros(n, np.bool_)
    ingroup = np.zeros(n, np.bool_)
    places = np.zeros((limit, 12), np.int64)
    ids = np.empty(limit * (2 * len(cands) + 2), np.int64)
    nids = 0
    found = 0
    group = np.empty(len(cands) + 1, np.int64)
    for seed in seeds:
        if used[seed] or stats[seed, 3] < 0.5 * glyph_size:
            continue
        # The rank line: the seed and its neighbours (_rank_group).
        x, y = stats[seed, 0], stats[seed, 1]
        x2, y2 = x + stats[seed, 2], y + stats[seed, 3]
        group[0] = seed
        ng = 1
        for j in cands:
            if j == seed:
                continue
            bx, by, bh = stats[j, 0], stats[j, 1], stats[j, 3]
            bx2, by2 = bx + stats[j, 2], by + bh
            gh = y2 - y
            same_line = abs(by - y) < 0.2 * gh and abs(bh - gh) < 0.25 * gh
            inside = bx >= x - 1 and bx2 <= x2 + 1 and by >= y - 1 and by2 <= y2 + 1
            gap = max(bx - x2, x - bx2)
            if (same_line and gap < 0.25 * gh) or inside:
                group[ng] = j
                ng += 1
                x, y, x2, y2 = min(x, bx), min(y, by), max(x2, bx2), max(y2, by2)
        rx, ry, rw, rh = x, y, x2 - x, y2 - y
        if rw > 1.6 * rh:
            continue
        for k in range(ng):
            ingroup[group[k]] = True
        # The suit right under it (_suit_under), else one joined to art.
        rcx = rx + rw / 2.0
        suit: Any = -1
        best_gap: Any = 0
        for i in cands:
            if ingroup[i]:
                continue
            bx, by, bw, bh = stats[i, 0], stats[i, 1], stats[i, 2], stats[i, 3]
            gap = by - (ry + rh)
            if gap < -0.08 * rh or gap > 0.6 * rh:
                continue
            if abs(bx + bw / 2.0 - rcx) > 0.45 * max(rw, bw):
                continue
            if not (0.25 * rh <= bh <= 0.95 * rh and 0.2 * rh <= bw <= 1.3 * rh):
                continue
            if suit < 0 or gap < best_gap:
                suit, best_gap = i, gap
        start = nids
        for k in range(ng):
            ids[nids] = group[k]
            nids += 1
        rank_end = nids
        if suit >= 0:
            sx, sy, sw, sh = stats[suit, 0], stats[suit, 1], stats[suit, 2], stats[suit, 3]
            ids[nids] = suit
            nids += 1
            px = stats[suit, 4]
            for i in cands:
                if i != suit and not ingroup[i] and stats[i, 0] >= sx and stats[i, 1] >= sy \
                        and stats[i, 0] + stats[i, 2] <= sx + sw \
                        and stats[i, 1] + stats[i, 3] <= sy + sh:
                    ids[nids] = i
                    nids += 1
                    px += stats[i, 4]
        else:
            m, sx, sy, sw, sh, px = _suit_in_merged(labels, stats, rx, ry, rw, rh, group[:ng])
            if m < 0:
                for k in range(ng):
                    ingroup[group[k]] = False
                nids = start
                continue
            ids[nids] = m
            nids += 1
        for k in range(ng):
            ingroup[group[k]] = False
        for k in range(start, nids):
            used[ids[k]] = True
        p = places[found]
        p[0], p[1], p[2], p[3] = rx, ry, rw, rh
        p[4], p[5], p[6], p[7], p[8] = sx, sy, sw, sh, px
        p[9], p[10], p[11] = start, rank_end, nids
        found += 1
        if found >= limit:
            break
    return places[:found].copy(), ids[:nids].copy()


# The loops' names are bound to the compiled loops by warm(); until then
# they are looked up here, so that the first call compiles them.
for _name in _LOOPS:
    del globals()[_name]


def __getattr__(name: str) -> Any:
    if name in _LOOPS and COMPILED:
        warm()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
