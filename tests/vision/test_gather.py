"""Frame mode's gathering of corner reads into cards (drivers.vision.frame.
gather): the lower card of a pair, whose one corner in view the network saw
as an index but was unsure of, is reported found and not read, never lost
and never a guess; a felt blotch is no card."""

from __future__ import annotations

import numpy as np

from drivers.vision.corner import CornerPose
from drivers.vision.frame import Seen, gather
from drivers.vision.outline import Corner
from drivers.vision.reader import CornerRead

PAIR = 5  # the outline of two cards lying on each other
SHORT_SIDE = (60.0, 260.0)


def _corner(x: float, y: float) -> tuple[Corner, CornerPose]:
    corner = Corner((x, y), (1.0, 0.0), (0.0, 1.0), (100.0, 140.0), PAIR)
    return corner, corner.pose(100.0)


def _sure(card: str) -> CornerRead:
    return CornerRead(card, 0.9, card, (0.9, 0.95, 0.95), True)


def _unsure(best: str) -> CornerRead:
    return CornerRead(None, 0.7, best, (0.7, 0.8, 0.875), True)


NO_INDEX = CornerRead(None, 0.0, "??", (0.9, 0.0, 0.3), False)


def _gathered(*corners: tuple[float, float, CornerRead]) -> list[tuple[str | None, str | None]]:
    outline = np.array([[[100, 100]], [[400, 100]], [[400, 400]], [[100, 400]]], np.int32)
    posed = [(k, *_corner(x, y)) for k, (x, y, _) in enumerate(corners)]
    seen = Seen({PAIR: outline}, {}, 100.0, posed, {})
    cards = gather(seen, [r for _, _, r in corners], SHORT_SIDE)
    return sorted(((c.card, c.seen_as) for c in cards), key=str)


def test_the_lower_card_of_a_pair_is_found_and_not_read() -> None:
    # The upper card read at one corner; the lower one's corner, a card's
    # width away, seen as a 6 of clubs below the thresholds.
    assert _gathered((300.0, 200.0, _sure("9C")), (180.0, 130.0, _unsure("6C"))) == [
        ("9C", None), (None, "6C")]


def test_an_unsure_corner_of_a_card_read_is_no_second_card() -> None:
    # Seen as the card read (its other corner), or as another card right
    # where the card read lies (a corner of it, misjudged): one card.
    assert _gathered((300.0, 200.0, _sure("9C")), (180.0, 130.0, _unsure("9C"))) == [
        ("9C", None)]
    assert _gathered((300.0, 200.0, _sure("9C")), (310.0, 205.0, _unsure("6C"))) == [
        ("9C", None)]
    # A corner of the card read, its suit half covered: seen as another
    # suit of the same rank.
    assert _gathered((300.0, 200.0, _sure("6C")), (220.0, 150.0, _unsure("6S"))) == [
        ("6C", None)]
    assert _gathered((300.0, 200.0, _sure("9C")), (220.0, 150.0, _unsure("6S"))) == [
        ("9C", None), (None, "6S")]


def test_one_corner_that_saw_an_index_is_a_card_and_a_blotch_is_none() -> None:
    assert _gathered((180.0, 130.0, _unsure("6C"))) == [(None, "6C")]
    assert _gathered((180.0, 130.0, NO_INDEX)) == []
