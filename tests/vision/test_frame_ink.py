"""Frame mode's indices found by their ink: one rank's ink is never two
cards, and a whole card read lends none of its ink to another card."""

from __future__ import annotations

import numpy as np

from drivers.vision.corner import CARD_H, CARD_W, CornerPose
from drivers.vision.frame import INK_AGREE, CardInFrame, _inside_another, ink_cards
from drivers.vision.index_poses import INK_RANK_HEIGHT, INK_RANK_LEFT, INK_RANK_TOP
from drivers.vision.reader import CornerRead


def _read(card: str) -> CornerRead:
    return CornerRead(card, 0.95, card, (0.95, 0.96, 0.97), True)


def _pose(x: float, y: float, scale: float = 1.0, turn: float = 0.0) -> CornerPose:
    c, s = np.cos(np.radians(turn)) * scale, np.sin(np.radians(turn)) * scale
    return CornerPose((x, y), (c, s), (-s, c), "ink")


def _sure(card: str, pose: CornerPose) -> list[tuple[CornerPose, CornerRead]]:
    """INK_AGREE poses of one index agreeing on one card (its scales)."""
    return [(CornerPose(pose.origin, pose.u, pose.v, "ink"), _read(card))] * INK_AGREE


def test_an_index_sure_of_one_card_is_that_card() -> None:
    cards = ink_cards(_sure("4S", _pose(100.0, 100.0)))
    assert [c.card for c in cards] == ["4S"]
    assert cards[0].by_ink and cards[0].index_at is not None


def test_one_ranks_ink_read_as_two_cards_is_neither() -> None:
    # The same 4 posed twice: once at its size, once larger and to its left,
    # too far apart to be one index's poses, yet over the same ink: one
    # reads the 4 of spades, the other an ace (a real photo's misread).
    four = _pose(100.0, 100.0)
    h = INK_RANK_HEIGHT
    ace = _pose(100.0 - 0.4 * INK_RANK_LEFT - 0.75 * h, 100.0 - 0.4 * INK_RANK_TOP - 0.2 * h,
                1.4)
    assert ink_cards(_sure("4S", four) + _sure("AS", ace)) == []


def test_cascaded_indices_beside_each_other_are_each_read() -> None:
    # A cascade shows each lower card's index in full: rank boxes apart.
    lower = _pose(100.0, 100.0)
    upper = _pose(100.0 + 0.8 * INK_RANK_HEIGHT, 100.0 + 0.8 * INK_RANK_HEIGHT)
    cards = ink_cards(_sure("9H", lower) + _sure("KC", upper))
    assert sorted(c.card for c in cards) == ["9H", "KC"]


def _whole(card: str | None) -> tuple[np.ndarray, CardInFrame]:
    contour = np.array([[[50, 50]], [[50 + CARD_W, 50]], [[50 + CARD_W, 50 + CARD_H]],
                        [[50, 50 + CARD_H]]], np.int32)
    return contour, CardInFrame(card, 0.99, (50 + CARD_W / 2, 50 + CARD_H / 2), (None, None))


def _inked(card: str, at: tuple[float, float]) -> CardInFrame:
    return CardInFrame(card, 0.95, at, (None, None), by_ink=True, index_at=at)


def test_ink_on_a_whole_card_read_as_another_is_its_pip() -> None:
    whole = [_whole("4S")]
    assert _inside_another(_inked("AS", (80.0, 120.0)), whole)
    assert not _inside_another(_inked("4S", (80.0, 120.0)), whole)
    assert not _inside_another(_inked("AS", (50 + CARD_W + 30.0, 120.0)), whole)


def test_ink_on_a_whole_card_not_read_may_be_its_index() -> None:
    assert not _inside_another(_inked("AS", (80.0, 120.0)), [_whole(None)])


def test_a_cards_two_indices_count_together() -> None:
    """Two poses sure of the 7 of clubs at its top left index and two at
    its bottom right (turned half round) place one card: read. The same at
    two indices of cards apart: neither."""
    assert INK_AGREE == 3  # (two poses at each index: fewer than it alone)
    top = CornerPose((100.0, 100.0), (1.0, 0.0), (0.0, 1.0), "ink")
    bottom = CornerPose((100.0 + CARD_W, 100.0 + CARD_H), (-1.0, 0.0), (0.0, -1.0), "ink")
    apart = CornerPose((100.0 + 3 * CARD_W, 100.0), (1.0, 0.0), (0.0, 1.0), "ink")
    two = [(top, _read("7C"))] * 2
    assert {c.card for c in ink_cards(two + [(bottom, _read("7C"))] * 2)} == {"7C"}
    assert ink_cards(two + [(apart, _read("7C"))] * 2) == []
    assert ink_cards(two + [(bottom, _read("7S"))] * 2) == []


def test_a_mirrored_pose_sure_of_another_card_refuses_the_index() -> None:
    """A four-index deck's 9 of hearts, its lower index upside down: three
    upright poses read it (two of them sure), and the three poses mirrored
    about its rank, whose middles lie too far off to share a place with
    them, read a queen (a mirrored 9 looks one). Two sure readings of one
    rank's ink: no card, though only the queen has three sure poses."""
    nine = _pose(100.0, 100.0)
    # Mirrored: u turned back, v kept, its rank box on the nine's (a place
    # is kept at the rank box's left edge, the mirrored pose's right one).
    w = 0.75 * INK_RANK_HEIGHT
    mirrored = CornerPose((100.0 + 2 * INK_RANK_LEFT + w, 100.0), (-1.0, 0.0), (0.0, 1.0),
                          "ink")
    unsure = CornerRead(None, 0.4, "9H", (0.4, 0.45, 0.9), True)
    nines = [(nine, _read("9H"))] * 2 + [(nine, unsure)]
    queens = [(mirrored, _read("QH"))] * INK_AGREE
    assert {c.card for c in ink_cards(queens)} == {"QH"}  # alone, it is read
    assert ink_cards(nines + queens) == []
