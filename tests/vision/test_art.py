"""A court picture's coloured art over the index (drivers.camera.art and
the generic reader's looks that use it): what is art, a suit completed from
its uncovered side, svg-cards' kings read through their sceptre's finial,
and a thumb over half a suit never misread."""

from __future__ import annotations

import collections
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from drivers.camera import art, generic
from drivers.camera.corner import CORNER_H, CORNER_W, MARGIN
from drivers.camera.generic import generic_model
from drivers.camera.glyphs import Image, find_indices, percentile
from drivers.camera.shoe import ShoeGeometry, read_still
from sim.camera.decks import ALL_CARDS
from sim.camera.shoe import ShoeCamera
from tests.vision.conftest import get_deck

FRAMES = Path(__file__).resolve().parent.parent / "data" / "frames"
GEOMETRY = ShoeGeometry()

PAPER = (235, 235, 235)
BLACK = (25, 25, 25)
RED = (40, 40, 200)  # BGR
GOLD = (30, 180, 230)
BLUE = (170, 70, 30)


def _swatches() -> npt.NDArray[np.uint8]:
    patch = np.zeros((10, 50, 3), np.uint8)
    for k, colour in enumerate((PAPER, BLACK, RED, GOLD, BLUE)):
        patch[:, 10 * k : 10 * k + 10] = colour
    return patch


def test_art_is_the_colour_that_is_neither_paper_nor_the_ranks_ink() -> None:
    centres = [5, 15, 25, 35, 45]  # paper, black, red, gold, blue
    under_black = art.art_mask(_swatches(), red_ink=False)[5, centres]
    under_red = art.art_mask(_swatches(), red_ink=True)[5, centres]
    assert under_black.tolist() == [False, False, True, True, True]
    assert under_red.tolist() == [False, False, False, True, True]


def _spade(scale: int = 8) -> npt.NDArray[np.float32]:
    """A spade drawn symmetric about its apex's column, at the corner's
    scale (15 x 17 pixels), as ink 0..1."""
    big = np.zeros((17 * scale, 15 * scale), np.uint8)
    c = 7.5 * scale
    top = np.array([[c, 0], [0.2 * scale, 10 * scale], [14.8 * scale, 10 * scale]], np.int32)
    cv2.fillPoly(big, [top], 255)
    for dx in (-3.6, 3.6):
        cv2.circle(big, (round(c + dx * scale), round(10 * scale)), round(3.8 * scale), 255, -1)
    stem = np.array([[c - 0.6 * scale, 10 * scale], [c + 0.6 * scale, 10 * scale],
                     [c + 3 * scale, 17 * scale], [c - 3 * scale, 17 * scale]], np.int32)
    cv2.fillPoly(big, [stem], 255)
    small = cv2.resize(big, (15, 17), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    return np.asarray(small, np.float32)


def _covered(spade: npt.NDArray[np.float32], cols: slice
             ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
    """The spade with the art over `cols` (lower half), and the art in the
    box grown by a pixel (as art.mirrored takes them)."""
    cover = np.zeros(spade.shape, bool)
    cover[6:, cols] = True
    ink = np.where(cover, 0.0, spade).astype(np.float32)
    return ink, np.pad(cover, 1)


def test_a_suit_covered_on_one_side_is_completed_from_the_other() -> None:
    spade = _spade()
    for cols in (slice(9, None), slice(None, 6)):  # the right lobe covered, then the left
        ink, cover = _covered(spade, cols)
        whole = art.mirrored(ink, cover)
        assert whole is not None
        assert whole.shape == spade.shape
        a, b = whole > 0.5, spade > 0.5
        assert (a & b).sum() / (a | b).sum() > 0.9  # the drawn spade, near enough
        assert (ink > 0.5).sum() < 0.8 * b.sum()  # what was left of it was not


def test_art_on_both_sides_of_the_suit_or_none_completes_nothing() -> None:
    spade = _spade()
    ink, cover = _covered(spade, slice(9, None))
    cover[8:, :4] = True  # art under the left lobe too
    assert art.mirrored(ink, cover) is None
    assert art.mirrored(spade, np.zeros((19, 17), bool)) is None


def test_a_red_suit_is_not_completed_by_its_mirror_image() -> None:
    """A heart's top is two lobes, not an apex on its axis: a red suit
    under art is read as the art left it, or refused."""
    patch = cv2.imread(str(FRAMES / "svg-cards-KS-corner-right-lobe-under-the-finial.png"))
    assert patch is not None
    ink, level, first = _first(patch)
    unveiled = generic._unveiled(patch, ink, level, first)
    assert unveiled is not None
    parts, cut = unveiled
    assert generic._mirrored(parts, cut) is not None
    assert generic._mirrored(replace(parts, suit_red=0.3), cut) is None
    assert generic._mirrored(replace(parts, suit_red=float("nan")), cut) is None


def _first(patch: Image) -> tuple[generic.FloatMap, float, generic.IndexParts | generic._NoSuit]:
    """The corner's ink, its level and the index as first found (as
    generic.index_candidates has them)."""
    ink = generic.ink_map(patch)
    inner = ink[MARGIN : MARGIN + CORNER_H, MARGIN : MARGIN + CORNER_W]
    level = max(generic.INK_FLOOR, generic.INK_LEVEL * percentile(inner, 99.5))
    first = generic._index_at(patch, ink, level, None)
    assert first is not None
    return ink, level, first


def _without(monkeypatch: pytest.MonkeyPatch, *looks: str) -> None:
    for name in looks:
        monkeypatch.setattr(generic, name, lambda *args: None)


def test_a_spade_whose_right_lobe_is_under_the_finial_is_read_from_its_left(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patch of an svg-cards king of spades (benchmark frame): the
    gold finial of the sceptre is drawn over the small spade's right lobe.
    With the gold and its outline cut away, the spade lacks its right lobe
    and is refused (taken for a club, far from every suit); completed from
    its left side, it is read. Without that look the corner is refused."""
    patch = cv2.imread(str(FRAMES / "svg-cards-KS-corner-right-lobe-under-the-finial.png"))
    assert patch is not None
    model = generic_model()
    ink, level, first = _first(patch)
    assert isinstance(first, generic._NoSuit)  # the spade and the finial: one glyph
    unveiled = generic._unveiled(patch, ink, level, first)
    assert unveiled is not None
    parts, cut = unveiled
    assert model.read_parts(parts, need=generic.LATER_MARGIN).card is None
    whole = generic._mirrored(parts, cut)
    assert whole is not None and whole.suit_ink.shape[1] >= parts.suit_ink.shape[1]
    assert model.read_parts(whole, need=generic.LATER_MARGIN).card == "KS"
    assert model.read_corner(patch).card == "KS"
    _without(monkeypatch, "_mirrored")
    assert model.read_corner(patch).card is None


@pytest.mark.parametrize("name,look", [
    ("svg-cards-KC-corner-club-against-the-finial.png", "_unveiled"),
    ("svg-cards-KC-corner-blurred-club-on-the-finial.png", "_mirrored"),
])
def test_a_club_on_the_finial_is_read_once_the_art_is_cut_away(
        monkeypatch: pytest.MonkeyPatch, name: str, look: str) -> None:
    """Corner patches of svg-cards kings of clubs (benchmark frames): the
    finial touches the small club under the K. One reads with the gold and
    its outline cut away; the other, blurred, only once the club is
    completed from its side away from the finial. Without that look each
    is refused."""
    patch = cv2.imread(str(FRAMES / name))
    assert patch is not None
    model = generic_model()
    assert model.read_corner(patch).card == "KC"
    _without(monkeypatch, look)
    assert model.read_corner(patch).card is None


def test_a_grey_image_has_no_art() -> None:
    patch = cv2.imread(str(FRAMES / "svg-cards-KS-corner-right-lobe-under-the-finial.png"))
    assert patch is not None
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    ink, level, first = _first(grey)
    assert generic._unveiled(grey, ink, level, first) is None


@pytest.mark.parametrize("name", ["npm-svg-cards", "npm-cardsjs", "house"])
def test_a_thumb_over_half_the_suit_is_read_right_or_refused(name: str) -> None:
    """A skin-coloured thumb (coloured: art to these looks) over the right
    or the left half of the small suit, on every card of the deck: the
    generic reader reads the card right or refuses it, never another."""
    model = generic_model()
    cam = ShoeCamera(get_deck(name), seed=4)
    left, _ = GEOMETRY.band
    outcomes: collections.Counter[str] = collections.Counter()
    wrong: list[tuple[str, slice, str]] = []
    for code in ALL_CARDS:
        frame = cam.still(code, clean=True)
        found = find_indices(np.ascontiguousarray(frame[:, left : GEOMETRY.band[1]]),
                             GEOMETRY.rank_height)
        suit = min(found, key=lambda i: i.rank_box.x).suit_box
        middle = suit.x + suit.w // 2
        for cols in (slice(middle + 1, suit.x2 + 4), slice(suit.x - 4, middle)):
            covered = frame.copy()
            covered[suit.y - 2 : suit.y2 + 3, left + cols.start : left + cols.stop] = (90, 120, 170)
            card, _ = read_still(covered, model, GEOMETRY)
            outcomes["refused" if card is None else "right" if card == code else "wrong"] += 1
            if card is not None and card != code:
                wrong.append((code, cols, card))
    assert wrong == [], dict(outcomes)
