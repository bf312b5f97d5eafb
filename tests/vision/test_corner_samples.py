"""The training views' geometry: an index turned about its rank, as an ink
finder that paired the rank with a glyph above it or beside it poses it; a
face with an index in each corner, turned a quarter into the corner read."""

from __future__ import annotations

import numpy as np

from calibration.corner_samples import (
    _RANK_MIDDLE,
    View,
    _similarity,
    four_index,
    turned_about_rank,
)
from drivers.vision.corner import MARGIN


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
