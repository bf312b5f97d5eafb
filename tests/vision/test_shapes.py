"""The generic reader's shape measures (drivers/camera/shapes.py): a 5 told
from a 3 and a 6 by where its ink lies, and the big pip beside the index,
which runs on out of the corner patch, kept off the rank's line."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from drivers.camera import generic
from drivers.camera.generic import generic_model
from drivers.camera.shapes import left_gap, right_reach
from sim.camera.shoe import ShoeCamera
from tests.vision.conftest import get_deck
from tests.vision.test_generic import _index_parts_in

FRAMES = Path(__file__).resolve().parent.parent / "data" / "frames"


def _glyph(text: str, scale: float = 2.0, thickness: int = 4) -> np.ndarray:
    """A glyph drawn with OpenCV's Hershey font, as rank ink (0..1) cut at its box."""
    img = np.zeros((120, 120), np.uint8)
    cv2.putText(img, text, (20, 90), cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thickness,
                cv2.LINE_AA)
    ys, xs = np.nonzero(img > 76)
    return (img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1] / 255.0).astype(np.float32)


def test_row_measures_on_drawn_shapes() -> None:
    """right_reach: how far right the least-reaching row of a band gets;
    left_gap: how far from the left the most open row starts; an empty row
    counts against the shape (as reaching right, as inked from the left)."""
    ink = np.zeros((10, 10), np.float32)
    ink[:, 0:2] = 1.0  # a stem down the left
    ink[0:2, :] = 1.0  # a bar along the top
    ink[6:10, 6:10] = 1.0  # a block at the lower right
    assert right_reach(ink, 0.2, 0.6) == pytest.approx(0.2)
    assert right_reach(ink, 0.0, 0.2) == pytest.approx(1.0)
    assert left_gap(ink, 0.6, 1.0) == pytest.approx(0.0)  # the stem reaches down there
    ink[6:10, 0:2] = 0.0
    assert left_gap(ink, 0.6, 1.0) == pytest.approx(0.6)
    ink[7] = 0.0  # a row with no ink
    assert left_gap(ink, 0.7, 0.8) == pytest.approx(0.0)
    assert right_reach(ink, 0.7, 0.8) == pytest.approx(1.0)


@pytest.mark.parametrize("thickness", [2, 4, 6])
def test_only_a_5_has_the_five_shape_in_a_font_the_reader_never_saw(thickness: int) -> None:
    """OpenCV's own stroke font, thin to bold, condensed to wide: of the
    digits and court letters, the 5 alone is open at its right under the
    bar, with its bowl open at its left and a stem at its upper left."""
    for sx in (0.6, 1.0, 1.4):
        shaped = {c for c in "A23456789JQK"
                  if generic.five_shaped(cv2.resize(_glyph(c, thickness=thickness), None,
                                                    fx=sx, fy=1.0))}
        assert shaped == {"5"}, (thickness, sx)


def test_the_decks_3s_and_6s_never_have_the_five_shape() -> None:
    """Shoe frames of the three decks' 3s, 5s and 6s (seeded): no 3 or 6 has
    the five's shape; most 5s do (svg-cards' hairline stem is often lost
    under the ink level, and that 5 is then not shaped, only refused)."""
    shaped: dict[str, list[bool]] = {"3": [], "5": [], "6": []}
    for name in ("npm-svg-cards", "npm-cardsjs", "house"):
        cam = ShoeCamera(get_deck(name), seed=31)
        for code in [r + s for r in "356" for s in "SHDC"] * 16:
            shaped[code[0]] += [generic.five_shaped(p.rank_ink)
                                for p in _index_parts_in(cam.still(code))]
    assert len(shaped["3"]) >= 150 and len(shaped["6"]) >= 150
    assert not any(shaped["3"]) and not any(shaped["6"])
    # Measured: 162 of 195 5s (0.83), 0 of 192 3s and of 195 6s.
    assert sum(shaped["5"]) >= 0.75 * len(shaped["5"])


def test_an_unsure_5_of_the_five_shape_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patch of an svg-cards 5 of hearts (benchmark frame): the model
    is unsure of the condensed 5 over a 3 (a ratio of 26.1 where the fonts'
    confusions set 26.3), but the glyph has the five's shape, and a 5 of
    that shape needs only FIVE_SHAPED_LLR over a 3: it is read. Without
    the shape it is refused."""
    patch = cv2.imread(str(FRAMES / "svg-cards-5H-corner-unsure-over-a-3.png"))
    assert patch is not None
    model = generic_model()
    parts = generic.index_parts(patch)
    assert parts is not None and generic.five_shaped(parts.rank_ink)
    rank = model.rank_of(parts)
    assert (rank.rank, rank.second, rank.five) == ("5", "3", True)
    assert rank.llr < model.thresholds.rank_llr_pair["35HD"]
    assert model.read_corner(patch).card == "5H"
    monkeypatch.setattr(generic, "FIVE_SHAPED_LLR", math.inf)
    assert model.read_corner(patch).card is None


def test_the_five_shape_lowers_only_a_5s_ratio_over_a_3_or_a_6() -> None:
    """The shape tells a 5 from a 3 and a 6 only: a 5 whose runner-up is
    another rank (a J), and any other rank read, get nothing from it."""
    t = generic_model().thresholds
    shaped = t.for_colour("HD", "5", "3", five=True)
    assert shaped[0] == generic.FIVE_SHAPED_LLR
    assert t.for_colour("HD", "5", "6", five=True)[0] == generic.FIVE_SHAPED_LLR
    assert t.for_colour("HD", "5", "J", five=True)[0] == t.for_colour("HD", "5", "J")[0]
    for unknown in ("", None):  # no runner-up given: nothing to tell the 5 from
        assert t.for_colour("HD", "5", unknown, five=True)[0] == t.for_colour("HD", "5")[0]
    assert t.for_colour("HD", "3", "5", five=True)[0] == t.for_colour("HD", "3", "5")[0]
    assert t.for_colour("HD", "5", "3")[0] > generic.FIVE_SHAPED_LLR


def test_the_big_pip_beside_the_queen_is_not_her_rank() -> None:
    """Corner patch of an svg-cards queen of hearts (benchmark frame, seed
    7): the big heart beside the Q is as tall as the Q, on its line and
    close to it, and was taken for a second glyph of the rank (a two-glyph
    rank like a ten's, read as no rank). It runs on out of the patch's
    right side, where no index glyph goes: kept off the rank, the queen is
    read at the first look."""
    patch = cv2.imread(str(FRAMES / "svg-cards-QH-corner-big-heart-beside-the-queen.png"))
    assert patch is not None
    parts = generic.index_parts(patch)
    assert parts is not None
    assert parts.rank_parts == 1 and parts.rank_box.x2 < patch.shape[1] - 10
    assert generic_model().read_parts(parts).card == "QH"


def test_a_glyph_on_the_rank_line_is_left_off_it_only_when_it_runs_out_of_the_patch() -> None:
    """Drawn corner: an O, a suit under it, and beside the O a glyph as tall
    on its line. Ending inside the patch, the glyph is the rank's second
    (as a ten's 0 is); running on out of the patch's right side, it is not,
    and the suit must then start within PIP_SUIT_GAP_MAX of the rank's
    height under it (a suit further down is found only without it)."""
    def corner(right: int, suit_y: int = 60) -> np.ndarray:
        patch = np.full((116, 64, 3), 235, np.uint8)
        cv2.ellipse(patch, (26, 29), (9, 16), 0, 0, 360, (20, 20, 20), 3)  # the O, 33 px
        cv2.ellipse(patch, (26, suit_y), (7, 7), 0, 0, 360, (20, 20, 20), -1)  # the suit
        if right:
            cv2.rectangle(patch, (41, 13), (right, 45), (20, 20, 20), -1)  # beside it
        return patch

    inside = generic.index_parts(corner(56))
    assert inside is not None and inside.rank_parts == 2 and inside.rank_box.x2 == 57
    out = generic.index_parts(corner(63))
    assert out is not None and out.rank_parts == 1 and out.rank_box.x2 <= 40
    # A suit 20 px (0.6 of the O's height) under it.
    low = generic.index_parts(corner(0, suit_y=73))
    assert low is not None and low.suit_box.y == 66
    assert generic.index_parts(corner(63, suit_y=73)) is None


def test_a_queen_whose_tail_touches_her_heart_is_cut_from_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patch of an svg-cards queen of hearts (benchmark frame, seed
    99): the Q's tail touches the small heart, and the two are one glyph as
    tall as a rank may be (read as no rank). Cut where its ink is thinnest
    (the joined look), the heart cut off is 0.46-0.49 of the Q's height
    with its tail: taken as the suit, the queen is read; asking half the
    rank's height of the suit, as before, refused it."""
    patch = cv2.imread(str(FRAMES / "svg-cards-QH-corner-tail-on-the-heart.png"))
    assert patch is not None
    model = generic_model()
    first = generic.index_parts(patch)
    assert first is not None and first.rank_box.h >= 50
    assert model.read_parts(first).card is None
    assert model.read_corner(patch).card == "QH"
    monkeypatch.setattr(generic, "JOINED_SUIT_H", 0.5)
    assert model.read_corner(patch).card is None
