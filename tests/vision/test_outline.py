"""Card corners from outlines and from straight edges (drivers.vision.outline)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from drivers.vision.outline import corners_in, edge_corners
from sim.camera.optics import card_corners


def _card_mask(shape: tuple[int, int], cards: list[tuple[float, float, float, float]]
               ) -> np.ndarray:
    """A mask of cards (centre x, y, width, angle), corners rounded."""
    mask = np.zeros(shape, np.uint8)
    for cx, cy, w, angle in cards:
        pts = card_corners(cx, cy, w, 1.4 * w, angle)
        cv2.fillConvexPoly(mask, np.round(pts).astype(np.int32), 255, cv2.LINE_AA)
        # Round the corners off as a card's are (radius 6 % of its width).
        r = 0.06 * w
        for p in pts:
            inward = (np.array([cx, cy]) - p) / np.hypot(*(np.array([cx, cy]) - p))
            cv2.circle(mask, tuple(int(v) for v in p), int(r), 0, -1)
            cv2.circle(mask, tuple(int(v) for v in p + inward * r * 1.42), int(r), 255, -1)
    _, mask = cv2.threshold(mask, 127, 255, cv2.THRESH_BINARY)
    return mask


def _near(found: list, point: np.ndarray, tol: float) -> list:
    return [c for c in found if np.hypot(c.point[0] - point[0], c.point[1] - point[1]) < tol]


@pytest.mark.parametrize("angle", [0.0, 17.0, 45.0, 100.0, 233.0])
def test_a_whole_card_has_four_corners_at_any_turn(angle: float) -> None:
    mask = _card_mask((480, 640), [(320, 240, 140, angle)])
    found = corners_in(mask, 60.0)
    truth = card_corners(320, 240, 140, 196, angle)
    assert len(found) == 4
    for p in truth:
        hits = _near(found, p, 4.0)
        assert len(hits) == 1, (p, [c.point for c in found])


def test_each_corner_pose_keeps_the_face_the_right_way_round() -> None:
    mask = _card_mask((480, 640), [(320, 240, 140, 30.0)])
    for corner in corners_in(mask, 60.0):
        pose = corner.pose(140.0)
        cross = pose.u[0] * pose.v[1] - pose.u[1] * pose.v[0]
        assert cross > 0
        # Where both sides run whole, each sets its own scale: the canonical
        # card's top and side are the card's sides in the image (140 and
        # 196; at the top's corners the top is the width, at the others the
        # length: a photo's export may show a card wider than long).
        sides = sorted((np.hypot(*pose.u) * 200, np.hypot(*pose.v) * 280))
        assert sides[0] == pytest.approx(140.0, rel=0.06)
        assert sides[1] == pytest.approx(196.0, rel=0.06)


def test_a_cascade_shows_the_corner_of_each_lower_card() -> None:
    """Three cards, each lying over the last moved right and down: the top
    left corner of every card is on the union's outline except where a card
    lies on the one before it (white on white); the lowest card's top left
    and the top card's bottom right always are."""
    w = 120.0
    cards = [(200 + 36 * i, 200 + 40 * i, w, 0.0) for i in range(3)]
    mask = _card_mask((480, 640), cards)
    found = corners_in(mask, 60.0)
    first = card_corners(*cards[0][:2], w, 1.4 * w, 0.0)
    last = card_corners(*cards[-1][:2], w, 1.4 * w, 0.0)
    assert _near(found, first[0], 4.0), "the lowest card's top left corner"
    assert _near(found, last[2], 4.0), "the top card's bottom right corner"
    # No corner at the concave steps between the cards.
    for i in range(1, 3):
        step = np.array([cards[i][0] - w / 2, cards[i - 1][1] + 0.7 * w])
        assert not _near(found, step, 6.0)


def test_no_corner_where_the_image_cuts_a_card() -> None:
    mask = _card_mask((480, 640), [(40, 240, 160, 0.0)])  # runs off the left edge
    found = corners_in(mask, 60.0)
    assert all(c.point[0] > 5 for c in found)
    assert len(found) == 2  # the right hand corners


def test_edges_find_a_card_lying_over_another() -> None:
    """Where a card lies over another, white on white, no outline shows its
    corner; its edges do (a thin shadow)."""
    img = np.full((480, 640), 60, np.uint8)
    lower = card_corners(300, 230, 140, 196, 0.0)
    upper = card_corners(345, 285, 140, 196, 0.0)
    cv2.fillConvexPoly(img, np.round(lower).astype(np.int32), 235)
    cv2.polylines(img, [np.round(upper).astype(np.int32)], True, 120, 2)
    cv2.fillConvexPoly(img, np.round(upper).astype(np.int32), 240)
    img = cv2.GaussianBlur(img, (3, 3), 0)
    found = edge_corners(img, 60.0)
    hits = _near(found, upper[0], 5.0)
    assert hits, [c.point for c in found]
    pose = hits[0].pose(140.0)
    # The pose looks into the upper card: right and down from its corner.
    assert pose.u[0] > 0 and pose.v[1] > 0
