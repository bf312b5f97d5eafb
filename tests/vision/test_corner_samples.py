"""The training views' geometry: an index turned about its rank, as an ink
finder that paired the rank with a glyph above it or beside it poses it; a
face with an index in each corner, turned a quarter into the corner read;
a pip in a face's middle posed as the ink finder poses a rank."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.corner_samples import (
    _RANK_MIDDLE,
    View,
    _blob_view,
    _similarity,
    four_index,
    turned_about_rank,
)
from drivers.vision.corner import CARD_H, CARD_W, MARGIN
from sim.camera.decks import house_deck, to_bgra


def _on_card(view: View, x: float, y: float) -> np.ndarray:
    """Where patch pixel (x, y) of `view` lies on the canonical card."""
    m = _similarity(view.angle, view.scale, view.dx - MARGIN, view.dy - MARGIN)
    out: np.ndarray = (m @ np.array([x, y, 1.0]))[:2]
    return out


def test_a_turned_index_keeps_its_rank_where_it_was() -> None:
    view = View(3.0, -2.0, 4.0, 1.1)
    qx, qy = _RANK_MIDDLE
    for turn in (180.0, 90.0, -90.0):
        turned = turned_about_rank(view, turn)
        assert turned.angle == view.angle + turn and turned.scale == view.scale
        assert np.allclose(_on_card(turned, qx, qy), _on_card(view, qx, qy))


def test_a_half_turn_shows_what_lay_below_the_rank_above_it() -> None:
    view = View(-1.0, 2.5, -3.0, 0.95)
    turned = turned_about_rank(view, 180.0)
    qx, qy = _RANK_MIDDLE
    # The patch's point under the rank (where an upright index has its suit)
    # shows the card's point as far above it: the index upside down.
    middle = _on_card(view, qx, qy)
    below = _on_card(view, qx, qy + 30.0)
    assert np.allclose(_on_card(turned, qx, qy + 30.0), 2 * middle - below)
    # A quarter turn puts it beside the rank.
    quarter = turned_about_rank(view, 90.0)
    assert np.allclose(np.linalg.norm(_on_card(quarter, qx, qy + 30.0) - middle),
                       np.linalg.norm(below - middle))
    assert not np.allclose(_on_card(quarter, qx, qy + 30.0), below)


def test_a_four_index_face_turned_a_quarter_shows_an_index_on_its_side() -> None:
    """The top left index copied upright to the top right corner and the
    bottom right one to the bottom left; a quarter turn either way brings
    one of them into the top left corner, on its side."""
    face = np.full((350, 250, 4), 255, np.uint8)
    face[10:40, 8:30, :3] = 0  # the top left index
    face[-40:-10, -30:-8, :3] = 0  # the bottom right one, half a turn round
    four = four_index(face)
    # Each as far from its side as the original from the other.
    assert (four[10:40, 250 - 30 : 250 - 8, :3] == 0).all()  # top right, as top left
    assert (four[310:340, 8:30, :3] == 0).all()  # bottom left, as bottom right
    assert (four[:, 30:220, :3] == 255).sum() == (face[:, 30:220, :3] == 255).sum()
    for k in (1, 3):
        turned = np.rot90(four, k)
        corner = turned[:55, :105, :3]
        # Ink in the corner, lying across it (wider than high): on its side.
        ys, xs = np.nonzero(corner[:, :, 0] == 0)
        assert len(xs) and np.ptp(xs) > np.ptp(ys)


def test_a_pip_in_the_middle_is_posed_where_a_rank_would_be() -> None:
    face = to_bgra(house_deck()["5H"])
    s = face.shape[1] / CARD_W
    ink = cv2.cvtColor(np.ascontiguousarray(face[:, :, :3]), cv2.COLOR_BGR2GRAY) < 150
    rng = np.random.default_rng(3)
    for _ in range(30):
        view = _blob_view(face, rng)
        assert view is not None
        x, y = _on_card(view, *_RANK_MIDDLE)
        # Away from both indices, and on a heart's ink (within the pose's error).
        assert not (x < 0.22 * CARD_W and y < 0.3 * CARD_H)
        assert not (x > 0.78 * CARD_W and y > 0.7 * CARD_H)
        i, j, r = int(y * s), int(x * s), int(8 * s)
        assert ink[max(0, i - r) : i + r, max(0, j - r) : j + r].any()


def test_a_face_with_nothing_in_its_middle_gives_no_such_view() -> None:
    blank = np.full((350, 250, 4), 255, np.uint8)
    assert _blob_view(blank, np.random.default_rng(0)) is None
