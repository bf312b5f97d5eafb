"""The training views' geometry: an index turned about its rank, as an ink
finder that paired the rank with a glyph above it or beside it poses it."""

from __future__ import annotations

import numpy as np

from calibration.corner_samples import _RANK_MIDDLE, View, _similarity, turned_about_rank
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
