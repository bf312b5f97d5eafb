"""The calibrated reader's alignment (drivers.camera.match): its two steps
against the full search they stand for, and the screen of corners that may
hold no index."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from drivers.camera import match
from drivers.camera.corner import CORNER_H, CORNER_W, MARGIN, corner_patch
from drivers.camera.glyphs import percentile, to_gray
from drivers.camera.match import SCREEN_FIT, align, coarse, first_step, ink_maps
from drivers.camera.shoe import ShoeGeometry, corners_in_view, read_band, still_band
from sim.camera.shoe import ShoeCamera
from tests.vision.conftest import get_deck, get_matcher

FRAMES = Path(__file__).resolve().parent.parent / "data" / "frames"
GEOMETRY = ShoeGeometry()


def full_search(maps: match.Maps, whole: npt.NDArray[np.float32]
                ) -> tuple[tuple[int, int], float]:
    """Every shift of SEARCH canonical px each way, at COARSE, against every
    template: what align's two steps stand for."""
    small = coarse(maps)
    h, w = CORNER_H // match.COARSE, CORNER_W // match.COARSE
    off, reach = MARGIN // match.COARSE, match.SEARCH // match.COARSE
    best, where = -2.0, (0, 0)
    for dy in range(-reach, reach + 1):
        for dx in range(-reach, reach + 1):
            cut = small[:, off + dy : off + dy + h, off + dx : off + dx + w].reshape(1, -1)
            score = float((match.unit_rows(cut) @ whole.T).max())
            if score > best:
                best, where = score, (dx * match.COARSE, dy * match.COARSE)
    return where, best


@pytest.mark.parametrize("name", ["npm-cardsjs", "house"])
def test_the_two_steps_find_the_full_searchs_shift_on_every_read_corner(name: str) -> None:
    """On the corners of 150 still frames: where the full search finds a
    corner of the deck (min_fit or more), the two steps find the same shift
    and fit; nowhere do they find a better fit than it (they search fewer
    shifts and templates)."""
    model = get_matcher(name)
    cam, rng = ShoeCamera(get_deck(name), seed=31), np.random.default_rng(32)
    codes = sorted(get_deck(name))
    found = 0
    for _ in range(150):
        band, gray, ramp = still_band(cam.still(codes[int(rng.integers(len(codes)))]), GEOMETRY)
        for pose in corners_in_view(band, model, GEOMETRY, ramp, gray):
            maps = ink_maps(corner_patch(band, pose))
            shift, fit = align(maps, model.templates)
            want, best = full_search(maps, model.whole_templates)
            assert fit <= best + 1e-5
            if best >= model.thresholds.min_fit:
                found += 1
                assert shift == want
                assert fit == pytest.approx(best, abs=1e-5)
    assert found >= 140


def test_templates_are_laid_out_as_columns_less_their_means_with_a_column_of_ones() -> None:
    model = get_matcher("npm-cardsjs")
    t = model.templates
    n = len(model.whole_templates)
    assert t.count == n
    assert t.fine.shape == (2 * (CORNER_H // 2) * (CORNER_W // 2), n + 1)
    assert t.first.shape == (2 * (CORNER_H // 4) * (CORNER_W // 4), n + 1)
    for cols in (t.fine, t.first):
        assert np.abs(cols[:, :-1].mean(axis=0)).max() < 1e-6
        assert (cols[:, -1] == 1.0).all()
    assert np.linalg.norm(t.first[:, :-1], axis=0) == pytest.approx(np.ones(n), abs=1e-5)
    # Each template matches itself best, at the first step as at COARSE.
    self_scores = t.first[:, :-1].T @ t.first[:, :-1]
    assert (np.argmax(self_scores, axis=1) == np.arange(n)).all()


def test_maps_too_small_for_the_search_are_refused() -> None:
    model = get_matcher("npm-cardsjs")
    small = np.zeros((2, CORNER_H // 2, CORNER_W // 2), np.float32)  # no margin to shift in
    with pytest.raises(ValueError, match="run off maps"):
        first_step(small, model.templates)


def test_a_pictures_shapes_on_a_read_cards_face_are_screened_out() -> None:
    """The queen of hearts' band (svg-cards): her corner is found by its
    edges, and shapes of her picture place a second corner by their ink.
    The first step matches that corner with no corner of the deck (under
    SCREEN_FIT), so on her face it is refused there; read in full, it is
    refused too, at four times the cost."""
    band = cv2.imread(str(FRAMES / "svg-cards-QH-band-picture-shapes-screened-out.png"))
    assert band is not None
    ramp = percentile(to_gray(band)[::4, ::4], 10)
    model = get_matcher("npm-svg-cards")
    reads = read_band(band, model, GEOMETRY, ramp)
    assert [(p.source, r.card) for p, r in reads] == [("edges", "QH"), ("ink", None)]
    patch = corner_patch(band, reads[1][0])
    screened = model.read_corner(patch, screen=True)
    assert screened.fit < SCREEN_FIT and screened.best == "??"
    assert reads[1][1] == screened
    assert model.read_corner(patch).card is None


@pytest.mark.parametrize("name", ["npm-cardsjs", "house"])
def test_a_stuck_cards_index_on_the_face_of_another_passes_the_screen(name: str) -> None:
    """Two cards pulled out together: the trailing card's index lies on the
    leading card's face, found by its ink. In every frame where the full
    read gives it, the screened read gives it too."""
    model = get_matcher(name)
    cam = ShoeCamera(get_deck(name), seed=0)
    seen = 0
    for frame in cam.stuck_pair("AS", "KD"):
        band, gray, ramp = still_band(frame.image, GEOMETRY)
        poses = corners_in_view(band, model, GEOMETRY, ramp, gray)
        if not any(p.source == "edges" for p in poses):
            continue
        for pose in (p for p in poses if p.source == "ink"):
            patch = corner_patch(band, pose)
            full = model.read_corner(patch)
            if full.card is not None:
                seen += 1
                assert model.read_corner(patch, screen=True) == full
    assert seen >= 3
