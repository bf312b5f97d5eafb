"""The procedural decks (calibration/procedural_decks.py) that train the
card-index classifier: a deck per seed, the same for a seed, 52 portrait
BGRA faces with their index in the corner."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PIL")

from calibration import procedural_decks as pd

SEEDS = (0, 1)


@pytest.fixture(scope="module", autouse=True)
def _fonts() -> None:
    if not pd.font_paths():
        pytest.skip("no usable font on this machine")


@pytest.fixture(scope="module")
def decks() -> dict[int, dict[str, np.ndarray]]:
    return {seed: pd.procedural_deck(seed) for seed in SEEDS}


def test_deterministic_for_a_seed(decks: dict[int, dict[str, np.ndarray]]) -> None:
    again = pd.procedural_deck(SEEDS[0])
    assert again.keys() == decks[SEEDS[0]].keys()
    for code, face in again.items():
        assert np.array_equal(face, decks[SEEDS[0]][code]), code


def test_seeds_differ(decks: dict[int, dict[str, np.ndarray]]) -> None:
    a, b = decks[SEEDS[0]], decks[SEEDS[1]]
    assert pd.deck_design(SEEDS[0]) != pd.deck_design(SEEDS[1])
    assert sum(a[c].shape != b[c].shape or not np.array_equal(a[c], b[c]) for c in a) == 52


def test_52_bgra_portrait_faces(decks: dict[int, dict[str, np.ndarray]]) -> None:
    codes = {r + s for r in "A23456789TJQK" for s in "SHDC"}
    for seed, deck in decks.items():
        assert set(deck) == codes
        shapes = {face.shape for face in deck.values()}
        assert len(shapes) == 1, seed
        h, w, ch = shapes.pop()
        assert ch == 4 and 300 <= h <= 400 and h > w
        assert 1.34 <= h / w <= 1.76
        assert all(face.dtype == np.uint8 for face in deck.values())
        # opaque inside
        assert all(int(face[h // 2, w // 2, 3]) == 255 for face in deck.values())


def test_aspect_ratio_and_radius_ranges() -> None:
    designs = [pd.deck_design(seed) for seed in range(40)]
    ratios = [d.height / d.width for d in designs]
    assert all(1.34 <= r <= 1.76 for r in ratios)
    assert max(ratios) - min(ratios) > 0.2  # the range is used
    assert all(0 <= d.radius <= 0.08 * d.width for d in designs)


def test_transparent_corners_when_rounded(decks: dict[int, dict[str, np.ndarray]]) -> None:
    for seed, deck in decks.items():
        radius = pd.deck_design(seed).radius
        for face in deck.values():
            h, w = face.shape[:2]
            corners = [face[0, 0, 3], face[0, w - 1, 3], face[h - 1, 0, 3], face[h - 1, w - 1, 3]]
            if radius >= 3.0:  # a corner pixel wholly outside the arc
                assert all(int(a) == 0 for a in corners), seed
            elif radius > 0:
                assert all(int(a) < 255 for a in corners), seed
            else:
                assert all(int(a) == 255 for a in corners), seed
    # a rounded deck among the first seeds is checked even if SEEDS are square
    seed = next(s for s in range(20) if pd.deck_design(s).radius >= 4.0)
    face = pd.procedural_deck(seed)["AS"] if seed not in decks else decks[seed]["AS"]
    assert int(face[0, 0, 3]) == 0 and int(face[-1, -1, 3]) == 0


def test_index_has_ink_in_the_top_left(decks: dict[int, dict[str, np.ndarray]]) -> None:
    for seed, deck in decks.items():
        paper = float(np.mean(pd.deck_design(seed).paper))
        x0, y0, x1, y1 = pd.index_box(seed)
        w, h = next(iter(deck.values())).shape[1::-1]
        assert 0 < x0 < x1 < 0.6 * w and 0 < y0 < y1 < 0.4 * h
        for code, face in deck.items():
            grey = face[y0:y1, x0:x1, :3].astype(np.float32).mean(axis=2)
            assert (grey < paper - 60).sum() >= 10, (seed, code)
            # the same ink, turned, in the bottom-right corner
            turned = face[h - y1 : h - y0, w - x1 : w - x0, :3].astype(np.float32).mean(axis=2)
            assert (turned < paper - 60).sum() >= 10, (seed, code)


def test_training_refuses_a_machine_without_the_documented_fonts() -> None:
    """The decks a seed draws depend on the fonts installed: with only
    DejaVu and Liberation (19 fonts) every procedural deck is drawn from
    those, so training refuses and names the packages to install."""
    from calibration import deck_fonts

    have = len(deck_fonts.font_table())
    assert deck_fonts.require_fonts(minimum=have) == have
    with pytest.raises(deck_fonts.FontsMissing) as refused:
        deck_fonts.require_fonts(minimum=have + 1)
    message = str(refused.value)
    assert f"only {have} usable index fonts" in message
    assert "apt-get install " + " ".join(deck_fonts.FONT_PACKAGES) in message


def test_views_drawn_with_other_fonts_are_other_views(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache of training views is named by the font list as well as the
    code: views drawn on a machine with fewer fonts are never taken for
    views of the documented decks."""
    from calibration import corner_train, deck_fonts

    every = deck_fonts.font_table()
    before = deck_fonts.fonts_digest()
    assert corner_train.bank_cache().name.startswith("corner-banks-")
    monkeypatch.setattr(deck_fonts, "font_table", lambda: every[:-1])
    assert deck_fonts.fonts_digest() != before
    # the suit fonts count too
    assert deck_fonts.fonts_digest((Path("/usr/share/fonts/x.ttf"),)) != deck_fonts.fonts_digest()


def test_a_decks_index_glyphs_are_drawn_bolder_lighter_narrower_or_wider() -> None:
    """Real decks letter their indices in weights and widths no installed
    font has: a deck may draw its font's strokes 0.6-1.7 times as wide, and
    its glyphs 0.72-1.3 times as wide."""
    from calibration.deck_art import reweighted, stroke_width

    bar = np.zeros((100, 60), np.float32)
    bar[:, 20:30] = 1.0  # a stroke 10 pixels wide
    assert abs(stroke_width(bar) - 10.0) < 1.5
    bolder = reweighted({"K": bar}, 1.6)["K"]
    lighter = reweighted({"K": bar}, 0.6)["K"]
    assert abs(stroke_width(bolder) - 16.0) < 2.0
    assert abs(stroke_width(lighter) - 6.0) < 1.5
    assert reweighted({"K": bar}, 1.0)["K"] is bar
    designs = [pd.deck_design(seed) for seed in range(60)]
    strokes = [d.stroke for d in designs]
    widths = [d.glyph_width for d in designs]
    assert all(0.6 <= s <= 1.7 for s in strokes) and all(0.72 <= w <= 1.3 for w in widths)
    assert 15 <= sum(s != 1.0 for s in strokes) <= 45  # about half the decks
    assert min(strokes) < 0.8 and max(strokes) > 1.4
    assert 15 <= sum(w != 1.0 for w in widths) <= 45


def test_no_deck_kept_for_judging_is_learnt_from() -> None:
    """bench vision_unseen judges the reader on procedural decks no network
    learnt from: their seeds are past every seed training draws."""
    from bench.vision_unseen import judged_designs
    from calibration.designs import PROCEDURAL_JUDGED, training_designs

    learnt = {d.name for d in training_designs()}
    judged = {d.name for d in judged_designs(len(PROCEDURAL_JUDGED))}
    assert len(judged) == len(PROCEDURAL_JUDGED) and not judged & learnt
    for wrong in (0, -1, len(PROCEDURAL_JUDGED) + 1):
        with pytest.raises(SystemExit, match=rf"--decks {wrong}: from 1 to"):
            judged_designs(wrong)
