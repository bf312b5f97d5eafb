"""The generic (uncalibrated) reader: the shipped font-rendered model on the
two real decks and the house deck, none of which it was trained on; French
indices refused; a whole deal through CardSource; the build script itself."""

from __future__ import annotations

import collections
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from drivers.camera import generic, glyphs
from drivers.camera.corner import CORNER_H, CORNER_W, MARGIN, corner_patch
from drivers.camera.generic import MODEL_PATH, GenericThresholds, generic_model, load_model
from drivers.camera.glyphs import member, percentile
from drivers.camera.match import CornerRead
from drivers.camera.shoe import ShoeGeometry, band_poses, in_view, read_still
from drivers.camera.source import CardSource
from sim.camera.decks import ALL_CARDS
from sim.camera.shoe import ShoeCamera
from tests.vision.conftest import get_deck

GEOMETRY = ShoeGeometry()
FRAMES = Path(__file__).resolve().parent.parent / "data" / "frames"
# Seeded samples (seed 12, 300 frames a deck); the 10,000-frame figures, and
# the goal (99 % right, at most 1 misread in 10,000), are in
# docs/benchmarks.md. 300 frames cannot show 99 %: floors sit under what the
# reader measures on these seeds (99.0, 99.7 and 99.3 %) so that a regression
# fails (without the looks through a court picture's art, svg-cards reads
# 97.3 % here; before its fives were read by their shape, 98.7 %). Misreads
# must be zero.
GENERIC_FLOOR = {"npm-svg-cards": 0.98, "npm-cardsjs": 0.975, "house": 0.97}


def _sample(name: str, n: int, seed: int) -> list[tuple[str, np.ndarray]]:
    cam = ShoeCamera(get_deck(name), seed=seed)
    rng = np.random.default_rng(seed)
    codes = [ALL_CARDS[int(i)] for i in rng.integers(0, 52, n)]
    return [(c, cam.still(c)) for c in codes]


def test_shipped_model_is_small_and_says_what_it_was_built_from() -> None:
    assert MODEL_PATH.stat().st_size < 3_000_000
    model = generic_model()
    fonts = model.meta["fonts"]
    assert len(fonts) >= 50
    # Thresholds come from cross-validation by family: a family's fonts
    # share one fold, and every fold holds some.
    fold_of: dict[str, int] = {}
    for f in fonts:
        assert fold_of.setdefault(f["family"], f["fold"]) == f["fold"]
    assert set(fold_of.values()) == set(range(model.meta["folds"]))
    assert sorted(model.rank.labels) == sorted([*"A23456789TJQK", "x"])
    assert sorted(model.suit.labels) == sorted("SHDC")


@pytest.mark.parametrize("name", ["npm-svg-cards", "npm-cardsjs", "house"])
def test_generic_reads_decks_it_never_saw(name: str) -> None:
    model = generic_model()
    results = [(truth, read_still(frame, model, GEOMETRY)[0])
               for truth, frame in _sample(name, 300, seed=12)]
    wrong = [(t, g) for t, g in results if g is not None and g != t]
    correct = sum(1 for t, g in results if g == t)
    assert wrong == []
    assert correct / len(results) >= GENERIC_FLOOR[name]


def test_a_rank_a_little_like_a_letter_is_read() -> None:
    """The house deck's bold Q and 10, cardsjs's thin 6 and 10: the model is
    sure which rank each is (ratio over the runner-up rank 90-140 on the
    benchmark's frames) and less sure that it is no letter (ratio over "not
    a rank" 35-60). One threshold for both ratios, set by a 3 of the fonts
    read as a 5 (57), refused them; the ratio over "not a rank" now has its
    own threshold, set the same way on the fonts' views (there a glyph of no
    rank is read as a rank at ratios of 10 at most)."""
    model = generic_model()
    t = model.thresholds
    assert t.rank_x_llr < t.rank_llr and t.rank_x_llr_black < t.rank_llr_black
    for name, codes in (("house", ("QC", "QD", "TS", "TH")),
                        ("npm-cardsjs", ("6S", "6H", "TC", "TD"))):
        cam = ShoeCamera(get_deck(name), seed=19)
        reads = [(c, read_still(cam.still(c), model, GEOMETRY)[0]) for c in codes * 5]
        assert [(c, g) for c, g in reads if g not in (c, None)] == []
        # Measured 20 and 19 of 20 (5 and 7 with one threshold for both).
        assert sum(c == g for c, g in reads) >= 17


def test_a_rank_the_fonts_seldom_confuse_needs_less_than_the_colours_worst() -> None:
    """The black rank threshold (82.5) is set by the fonts' most confident
    black confusion, a 9 read as a Q; it refused the house deck's black 5s
    (runner-up 6) and Js (runner-up 3, ratio about 37), though no font's
    glyph was read as a J or a 5 that surely. Each rank read now has its
    own threshold, set the same way on the fonts' out-of-fold reads of that
    rank, never under the median ratio of all the fonts' rank confusions
    nor over the colour's."""
    model = generic_model()
    t = model.thresholds
    assert t.rank_llr_by
    for key, need in t.rank_llr_by.items():
        assert need <= (t.rank_llr if key.endswith("HD") else t.rank_llr_black)
        assert need >= model.meta["rank_floor"][key[1:]] > 20.0
    cam = ShoeCamera(get_deck("house"), seed=29)
    reads = [(c, read_still(cam.still(c), model, GEOMETRY)[0])
             for c in ("5S", "5C", "JS", "JC") * 10]
    assert [(c, g) for c, g in reads if g not in (c, None)] == []
    # Measured 27 of 40 (11 with the colour's threshold for every rank).
    assert sum(c == g for c, g in reads) >= 25


def test_a_rank_over_a_runner_up_the_fonts_never_confused_it_with() -> None:
    """cardsjs's looped black Q is read as a Q with an 8 as runner-up at a
    ratio of about 73; the black Q's threshold (82.5) is set by the fonts'
    9 read as a Q. Each pair of rank read and runner-up rank now has its own
    threshold where the fonts' out-of-fold reads of that pair allow a lower
    one (never under the median ratio of all their rank confusions)."""
    model = generic_model()
    t = model.thresholds
    assert t.rank_llr_pair.get("Q8SC", t.rank_llr_black) < t.rank_llr_black
    for key, need in t.rank_llr_pair.items():
        assert need <= t.rank_llr_by.get(key[0] + key[2:], need)
        assert need >= model.meta["rank_floor"][key[2:]] > 20.0
    cam = ShoeCamera(get_deck("npm-cardsjs"), seed=37)
    reads = [(c, read_still(cam.still(c), model, GEOMETRY)[0]) for c in ("QS", "QC") * 15]
    assert [(c, g) for c, g in reads if g not in (c, None)] == []
    # Measured 27 of 30 (8 with one threshold for every black Q).
    assert sum(c == g for c, g in reads) >= 24


def test_the_ratio_over_no_rank_is_chosen_with_the_ranks_own_thresholds() -> None:
    """cardsjs's red Q is sure of its rank (ratio about 75 over an 8) but
    only about 6 over "not a rank"; red needed 12.1 there, set (before the
    ranks' own thresholds) by a letter of the fonts read as an 8. That ratio
    is now chosen with the ranks' and pairs' thresholds, for the most right
    out-of-fold reads with the misreads within the goal, glyphs of no rank
    counted: at 1.1 for both colours, the letters stopped by the ratios
    over the runner-up rank and the distance (with the 146 fonts none of
    their 1,984 was read; with the 338 fonts one of 4,762, an O of M PLUS 1
    taken for a Q, with the cards' misreads within the goal; the French
    courts stay refused, see below)."""
    model = generic_model()
    cards, letters = model.meta["out_of_fold"]["cards"], model.meta["out_of_fold"]["not_ranks"]
    assert letters["right"] == 0
    read = cards["right"] + cards["wrong"] + letters["wrong"]
    assert cards["wrong"] + letters["wrong"] <= 1e-4 * read
    cam = ShoeCamera(get_deck("npm-cardsjs"), seed=41)
    reads = [(c, read_still(cam.still(c), model, GEOMETRY)[0]) for c in ("QH", "QD") * 15]
    assert [(c, g) for c, g in reads if g not in (c, None)] == []
    # Measured 25 of 30 (5 with the ratio over "not a rank" chosen alone).
    assert sum(c == g for c, g in reads) >= 22


def test_a_small_spade_on_a_long_thin_stem_is_read_more_often() -> None:
    """svg-cards prints a small, domed spade on a long thin stem under its
    rank, unlike the spades the model was built from (stems short and
    flared): read between spade and club, most are refused. The spades the
    build draws now have stems up to 0.3 of their height and as narrow as
    0.08 wide; more of these spades are read, the clubs as before, none
    wrong. The suit is now also read from the embeddings of small
    convolutional networks trained on the fonts' suits (the 12x12 ink
    and gradient cells kept too little of the stem): nearly all are read."""
    model = generic_model()
    cam = ShoeCamera(get_deck("npm-svg-cards"), seed=23)
    reads = [(c, read_still(cam.still(c), model, GEOMETRY)[0])
             for c in ("AS", "4S", "7S", "JS", "AC", "4C", "7C", "JC") * 25]
    assert [(c, g) for c, g in reads if g not in (c, None)] == []
    # Measured 100 of 100 spades (25 with the hand-made features alone, 20
    # before the longer stems), 96 of 100 clubs (96 before).
    assert sum(c == g for c, g in reads if c[1] == "S") >= 95
    assert sum(c == g for c, g in reads if c[1] == "C") >= 94


def test_french_aces_and_courts_are_refused_by_the_generic_reader() -> None:
    """1 R D V (as, roi, dame, valet) are no standard rank: refused, not
    taken for the nearest of A K Q J or a digit; the number cards, printed
    alike in both decks, are still read."""
    model = generic_model()
    cam = ShoeCamera(get_deck("house-french"), seed=13)
    courts = [c for c in ALL_CARDS if c[0] in "AKQJ"]
    reads = [(c, read_still(cam.still(c), model, GEOMETRY)[0]) for c in courts for _ in range(3)]
    assert [(c, g) for c, g in reads if g is not None] == []
    numbers = [c for c in ALL_CARDS if c[0] not in "AKQJ"]
    read = [read_still(cam.still(c), model, GEOMETRY)[0] == c for c in numbers]
    assert sum(read) >= 0.6 * len(numbers)  # measured 23 of 36


def test_uncalibrated_deal_gives_one_read_per_card_and_no_misread() -> None:
    deck = get_deck("house")
    rng = np.random.default_rng(31)
    cards = [ALL_CARDS[int(i)] for i in rng.permutation(52)]
    cam = ShoeCamera(deck, seed=31, fps=30.0)
    reads = list(CardSource().reads(f.image for f in cam.deal(cards)))
    assert len(reads) == len(cards)
    assert [(i, r.card) for i, r in enumerate(reads) if r.card not in (cards[i], None)] == []
    # Measured 44 of 52 (the rest unreadable: the dealer keys them in).
    assert sum(r.card == c for r, c in zip(reads, cards, strict=True)) >= 34


def test_build_script_writes_a_model_the_reader_loads(tmp_path: Path) -> None:
    """A small build (few fonts, few views) runs end to end; the shipped file
    comes from the same code with the defaults."""
    pytest.importorskip("PIL")
    pytest.importorskip("torch")  # the `build` extra: trains the suit networks
    from calibration import build_generic

    fonts = build_generic.find_fonts()
    if len(fonts) < 10:
        pytest.skip("the font packages of calibration/build_generic.py are not installed")
    out = tmp_path / "generic.npz"
    # A build whose out-of-fold reads no thresholds keep within the goal is
    # refused: on these 12 fonts with seed 3, a letter read as a J beyond
    # every ratio of the grids (a dozen views a font: distances are loose).
    with pytest.raises(ValueError, match="within the goal"):
        build_generic.build(tmp_path / "refused.npz", per_rank=2, per_other=2, seed=3,
                            shrink=0.1, margin=1.5, font_limit=12)
    reader = build_generic.build(out, per_rank=2, per_other=2, seed=4, shrink=0.1, margin=1.5,
                                 font_limit=12)
    loaded = load_model(out)
    assert loaded.thresholds == reader.thresholds
    assert len(loaded.meta["fonts"]) == 12
    json.dumps(loaded.meta)
    # Same seed, same fonts: the same model.
    again = build_generic.build(tmp_path / "again.npz", per_rank=2, per_other=2, seed=4,
                                shrink=0.1, margin=1.5, font_limit=12)
    assert np.array_equal(again.rank.weights, reader.rank.weights)
    assert np.array_equal(again.suit.weights, reader.suit.weights)
    assert len(loaded.suit_nets) == len(reader.suit_nets) >= 1


def test_the_build_can_keep_every_view() -> None:
    """bench.generic_views reads every view of the build out of fold, those
    the build leaves out (no index found, or one elsewhere than drawn)
    included: `generate` keeps each view's corner patch with its truth."""
    pytest.importorskip("PIL")
    from calibration import build_generic

    fonts = build_generic.find_fonts()
    if len(fonts) < 2:
        pytest.skip("the font packages of calibration/build_generic.py are not installed")
    views: list[tuple[str, str, npt.NDArray[np.uint8]]] = []
    data = build_generic.generate(fonts[:2], per_rank=1, per_other=2, seed=5,
                                  cache=build_generic.GlyphCache(), log=False, every=views)
    assert len(data.truth) + data.miscut <= len(views) <= data.views
    kept = collections.Counter(truth for truth, _, _ in views)
    assert not collections.Counter(data.truth) - kept  # every sample used is among them
    assert {family for _, family, _ in views} == {f.family for f in fonts[:2]}
    assert all(patch.shape == views[0][2].shape for _, _, patch in views)


def test_a_flat_topped_3_is_never_read_as_a_5(monkeypatch: pytest.MonkeyPatch) -> None:
    """cardsjs prints its 3 with a flat top, like a 5's top bar, and no stroke
    at the upper left: the model built from the first 146 fonts took red
    ones for a 5 (8 in 10,000 frames). A 5 without that stroke is refused;
    no 5 the reader reads is refused for it. Since the fonts with flat-topped
    3s came in (B612, DIN, Jura, Tiresias...), the model reads these 3s as
    3s; the check stays as the guard should one pass for a 5."""
    model = generic_model()
    cam = ShoeCamera(get_deck("npm-cardsjs"), seed=17)
    threes = [(c, cam.still(c)) for c in ("3H", "3D") * 200]
    fives = {
        name: [cam5.still(c) for c in ("5S", "5H", "5D", "5C") * 10]
        for name in ("npm-svg-cards", "npm-cardsjs", "house")
        for cam5 in [ShoeCamera(get_deck(name), seed=18)]
    }

    def reads() -> tuple[list[tuple[str, str | None]], dict[str, list[str | None]]]:
        three = [(c, read_still(f, model, GEOMETRY)[0]) for c, f in threes]
        five = {n: [read_still(f, model, GEOMETRY)[0] for f in fs] for n, fs in fives.items()}
        return three, five

    three, five = reads()
    assert [(c, g) for c, g in three if g not in (c, None)] == []
    # Measured 400 of 400 (5 with the model of the 146 fonts).
    assert sum(c == g for c, g in three) >= 380
    # The check would stop these 3s, were they read as 5s: the region of a
    # 5's stroke is bare on nearly every one.
    stems = [generic.five_stem(parts.rank_ink) for _, f in threes[:100]
             for parts in _index_parts_in(f)]
    assert len(stems) >= 90
    assert sum(x < generic.FIVE_STEM_MIN for x in stems) >= 0.95 * len(stems)
    monkeypatch.setattr(generic, "FIVE_STEM_MIN", -1.0)  # the check off
    _, five_before = reads()
    assert five == five_before
    assert all(sum(g is not None for g in got) > 0 for got in five.values())


def _index_parts_in(frame: npt.NDArray[np.uint8]) -> list[generic.IndexParts]:
    """The indices the generic reader finds in a shoe frame's band."""
    left, right = GEOMETRY.band
    band = np.ascontiguousarray(frame[:, left:right])
    ramp = float(np.percentile(cv2.cvtColor(band, cv2.COLOR_BGR2GRAY)[::4, ::4], 10))
    found = []
    for pose in band_poses(band, generic_model(), GEOMETRY, ramp):
        if in_view(band.shape, pose):
            parts = generic.index_parts(corner_patch(band, pose))
            if parts is not None:
                found.append(parts)
    return found


@pytest.mark.parametrize("code", ["6D", "5D"])
def test_suit_is_the_glyph_under_the_rank_not_the_rim_of_a_pip_beside_it(code: str) -> None:
    """Corner patches of cardsjs diamonds (kept from benchmark frames): the
    rim of the big pip beside the index starts higher than the small suit
    under the rank, and was taken for the suit (read as a heart, refused
    only by its distance from the fonts' suits)."""
    patch = cv2.imread(str(FRAMES / f"cardsjs-{code}-corner-big-pip-rim.png"))
    assert patch is not None
    parts = generic.index_parts(patch)
    assert parts is not None
    assert parts.rank_box.x <= parts.suit_box.cx <= parts.rank_box.x2
    assert generic_model().read_corner(patch).card == code


def test_a_faint_rank_is_cut_at_its_own_ink_level() -> None:
    """Corner patch of a cardsjs 3D (kept from a benchmark frame): the 3 is
    faint beside its saturated diamond. Cut at the level set by the diamond,
    only its strongest strokes were left (the right of the top bar, the
    diagonal, the right of the bowl), and they passed for a 5, 5-stroke check
    included. Cut at its own level the 3 is whole; it is read as a 3 or
    refused, never as another card."""
    patch = cv2.imread(str(FRAMES / "cardsjs-3D-corner-faint-rank.png"))
    assert patch is not None
    ink = generic.ink_map(patch)
    inner = ink[MARGIN : MARGIN + CORNER_H, MARGIN : MARGIN + CORNER_W]
    corner_level = generic.INK_LEVEL * float(np.percentile(inner, 99.5))
    parts = generic.index_parts(patch)
    assert parts is not None
    rb = parts.rank_box
    rank_ink = ink[rb.y : rb.y2, rb.x : rb.x2]
    assert rank_ink.max() * generic.INK_LEVEL < 0.9 * corner_level  # a faint rank
    # The whole 3: its top bar and the bowl's tail reach left of the
    # diagonal (at the corner's level the glyph began at x = 23).
    assert rb.x <= 18 and rb.w >= 17
    assert generic.five_stem(parts.rank_ink) < generic.FIVE_STEM_MIN
    assert generic_model().read_corner(patch).card in (None, "3D")


def kept_patch_refused(
    name: str, truth: str, caught: Callable[[generic.IndexParts], bool]
) -> tuple[npt.NDArray[np.uint8], generic.GenericReader]:
    """A corner patch kept from a benchmark frame (tests/data/frames): its
    index is found, the check under test catches it, and the reader gives
    the right card or none."""
    patch = cv2.imread(str(FRAMES / f"{name}.png"))
    assert patch is not None
    parts = generic.index_parts(patch)
    assert parts is not None and caught(parts)
    model = generic_model()
    assert model.read_corner(patch).card in (None, truth)
    return patch, model


def test_a_rank_cut_in_parts_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patch of a cardsjs 3S (kept from a benchmark frame): the 3's
    thin top bar falls under the ink level though the glyph is at full
    strength, the serif at its left is cut off, and what is left (the right
    of the top bar, the diagonal, the bowl) was read as a 5. Followed down
    to half the level, the rank's ink runs on well beyond its box: it was
    cut in parts, and is refused."""
    patch, model = kept_patch_refused("cardsjs-3S-corner-thin-top-bar", "3S",
                                      lambda p: p.rank_spill > generic.RANK_SPILL_MAX)
    # Whole glyphs spread by their blur alone.
    for name in ("cardsjs-3D-corner-faint-rank", "cardsjs-5D-corner-big-pip-rim",
                 "cardsjs-6D-corner-big-pip-rim"):
        whole = generic.index_parts(cv2.imread(str(FRAMES / f"{name}.png")))
        assert whole is not None and whole.rank_spill <= 0.5 * generic.RANK_SPILL_MAX
    monkeypatch.setattr(generic, "RANK_SPILL_MAX", 1e9)  # the check off
    assert model.read_corner(patch).card == "5S"  # this patch needs it


def test_a_j_under_ink_of_its_own_columns_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patch of an svg-cards 5S (benchmark frame, seed 2024): the 5's
    thin top bar and stem fell under the ink level, its bowl alone was cut
    as the rank and read as a J, surely (ratio 142), once the small spade
    under it was read. Above the bowl, in its own columns, lies the rest of
    the 5: a J with ink there is refused. Ink that runs on past the rank's
    columns (the card's edge, a printed border) is not counted."""
    patch, model = kept_patch_refused("svg-cards-5S-corner-bowl-only", "5S",
                                      lambda p: p.rank_cap > generic.RANK_CAP_MAX)
    ink = np.zeros((80, 60), np.float32)
    ink[30:60, 20:35] = 1.0  # a rank
    ink[20:22, 0:60] = 1.0  # a line across, above it
    assert generic.rank_cap(ink, generic.Box(20, 30, 15, 30), 0.5) == 0.0
    monkeypatch.setattr(generic, "RANK_CAP_MAX", 1e9)  # the check off
    assert model.read_corner(patch).card == "JS"  # this patch needs it


def test_a_read_is_refused_past_either_distance_and_its_shape_is_kept_when_pickled(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """read_parts measures the suit's distance to its class only once the
    ratios, the colour, the rank's distance and the shape have passed: a
    read its ratios pass is still refused when either glyph lies too far
    from its class. The rank glyph's shape is measured when first asked for,
    and an index pickled (the build's dump) keeps it."""
    import pickle

    model = generic_model()
    parts = generic.index_parts(cv2.imread(str(FRAMES / "cardsjs-3D-corner-faint-rank.png")))
    assert parts is not None
    read = model.read_parts(parts)
    assert read.card == "3D"
    v = model.verdict(parts)
    assert math.isnan(model.verdict(parts, suit_distance=False).suit_d)  # (unmeasured)
    assert not math.isnan(v.suit_d)
    for field, d in (("suit_distance", v.suit_d), ("rank_distance", v.rank_d)):
        near = GenericThresholds(**{**vars(model.thresholds), field: 0.99 * d})
        monkeypatch.setattr(model, "thresholds", near)
        assert model.read_parts(parts).card is None, field
        monkeypatch.setattr(model, "thresholds", GenericThresholds(**{**vars(near), field: d}))
        assert model.read_parts(parts).card == "3D", field
    again = pickle.loads(pickle.dumps(parts))
    assert (again.rank_spill, again.rank_cap) == (parts.rank_spill, parts.rank_cap)


@pytest.mark.parametrize("code", ["KD", "TH"])
def test_a_pip_beside_the_rank_is_not_taken_for_a_rank_cut_in_parts(
        code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patches of svg-cards (kept from benchmark frames): a big pip
    (of the court picture, of the ten's pips) lies a pixel or two beside the
    rank. Followed down to half its level, the rank's ink ran into the pip,
    and the whole rank was refused as one cut in parts (about 1.5 % of the
    deck's frames). Ink of another glyph-sized component, and its blur, is
    no longer followed; a rank cut in parts is still refused (see above)."""
    patch = cv2.imread(str(FRAMES / f"svg-cards-{code}-corner-pip-beside-rank.png"))
    assert patch is not None
    parts = generic.index_parts(patch)
    assert parts is not None and parts.rank_spill <= 0.5 * generic.RANK_SPILL_MAX
    assert generic_model().read_corner(patch).card == code
    monkeypatch.setattr(generic, "RANK_SPILL_GLYPH", 1e9)  # every glyph followed
    before = generic.index_parts(patch)
    assert before is not None and before.rank_spill > generic.RANK_SPILL_MAX
    assert generic_model().read_corner(patch).card is None


@pytest.mark.parametrize(("name", "code"), [
    ("cardsjs-2H-corner-rank-on-its-suit", "2H"),
    ("cardsjs-TC-corner-suit-on-a-pip", "TC"),
    ("svg-cards-JC-corner-rank-on-its-suit", "JC"),
])
def test_glyphs_joined_by_blur_are_cut_apart(
        name: str, code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patches kept from benchmark frames: blur joins a small index's
    glyphs to each other or to what lies beside them (a cardsjs 2 standing on
    its heart, a cardsjs small club touching the big pip beside it, an
    svg-cards J on its club, too tall then for a rank). No index was found.
    The corner is now cut where the joined glyph is thinnest, and read."""
    patch = cv2.imread(str(FRAMES / f"{name}.png"))
    assert patch is not None
    parts = generic.index_parts(patch)
    assert parts is not None
    rb, sb = parts.rank_box, parts.suit_box
    assert sb.y >= rb.y2 - 1 and rb.x <= sb.cx <= rb.x2 and sb.h < rb.h
    assert generic_model().read_corner(patch).card == code
    monkeypatch.setattr(generic, "_split", lambda ink, miss: None)  # no cut
    assert generic.index_parts(patch) is None


def test_a_rank_joined_to_its_suit_is_cut_when_first_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patch of a cardsjs 9 of hearts (kept from a benchmark frame):
    blur joins the 9's tail to the heart under it, one glyph no taller than
    a rank, so the 9 and its heart were taken for the rank, the big pip
    under them for the suit, and the index read as no rank. When the index
    so found is refused, the reader looks again with the tall glyph cut
    where it is thinnest in its lower part; the part cut off must be the
    suit found under the cut."""
    patch = cv2.imread(str(FRAMES / "cardsjs-9H-corner-tail-on-its-heart.png"))
    assert patch is not None
    model = generic_model()
    first = generic.index_parts(patch)
    assert first is not None and first.rank_box.h > generic.TALL_RANK * first.rank_box.w
    assert model.read_parts(first).card is None
    again = [p for p in generic.index_candidates(patch) if p is not None][1]
    rb, sb = again.rank_box, again.suit_box
    assert sb.y >= rb.y2 and rb.x <= sb.cx <= rb.x2 and sb.h < rb.h < first.rank_box.h
    assert model.read_parts(again).card == "9H"
    assert model.read_corner(patch).card == "9H"
    monkeypatch.setattr(generic, "_joined", lambda patch, ink, level, found: None)  # no second look
    assert model.read_corner(patch).card is None


def test_a_rank_on_its_suit_is_cut_where_a_stroke_lies_across(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patch of a cardsjs 2 of hearts (benchmark frame): the 2's base
    lies on the heart's lobes, so the joined glyph is no thinner there than
    a stroke (JOINED_THIN, over the SPLIT_THIN that finds a bridge) and no
    index was found. Looked at again, it is cut there and read."""
    patch = cv2.imread(str(FRAMES / "cardsjs-2H-corner-base-on-its-heart.png"))
    assert patch is not None
    assert generic.index_parts(patch) is None
    assert generic_model().read_corner(patch).card == "2H"
    monkeypatch.setattr(generic, "JOINED_THIN", generic.SPLIT_THIN)
    assert generic_model().read_corner(patch).card is None


def test_a_suit_on_a_court_picture_is_taken_from_its_fat_part(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patch of an svg-cards king of clubs (benchmark frame): the
    small club under the K lies on the gold finial of the king's sceptre,
    and blur joins them. Cut where thinnest, the club keeps a piece of the
    finial and is refused (too far from every suit). Looked at again, the
    suit is the glyph's uppermost fat part, the finial's strokes fallen
    away, and the card is read. (The club found first is read too once its
    strokes are pruned, _suit_pruned, or the finial's gold cut away,
    _unveiled: those looks are left out here.)"""
    patch = cv2.imread(str(FRAMES / "svg-cards-KC-corner-suit-on-the-sceptre.png"))
    assert patch is not None
    model = generic_model()
    first = generic.index_parts(patch)
    assert first is not None and model.read_parts(first).card is None
    monkeypatch.setattr(generic, "_suit_pruned", lambda *args: None)
    monkeypatch.setattr(generic, "_unveiled", lambda *args: None)
    again = [p for p in generic.index_candidates(patch) if p is not None][-1]
    assert again.suit_box.w < first.suit_box.w  # the finial's piece beside it is gone
    assert model.read_parts(again).card == "KC"
    assert model.read_corner(patch).card == "KC"
    monkeypatch.setattr(generic, "_suit_core", lambda ink, found, core: None)
    assert model.read_corner(patch).card is None


def test_a_stroke_hanging_from_the_suit_is_pruned_when_first_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patch of an svg-cards king of clubs (benchmark frame): the
    club is found under the K, but the dark outline of the sceptre's finial
    hangs from its right lobe, and it is refused (too far from every suit).
    Looked at again with the thin strokes beside its middle pruned, it is
    read; the club's own stem, as thin, stays. (The finial's gold and
    outline cut away, _unveiled, it is read too: that look is left out
    when this one is.)"""
    patch = cv2.imread(str(FRAMES / "svg-cards-KC-corner-finial-outline-on-its-lobe.png"))
    assert patch is not None
    model = generic_model()
    first = generic.index_parts(patch)
    assert first is not None and model.read_parts(first).card is None
    ink = generic.ink_map(patch)
    level = max(generic.INK_FLOOR, generic.INK_LEVEL * percentile(
        ink[MARGIN : MARGIN + CORNER_H, MARGIN : MARGIN + CORNER_W], 99.5))
    again = generic._suit_pruned(patch, ink, level, first, None)
    assert again is not None and again.rank_box == first.rank_box
    fb, sb = first.suit_box, again.suit_box
    assert sb.y == fb.y and sb.y2 < fb.y2 and sb.x2 < fb.x2  # the stroke out beyond it is gone
    stem = again.suit_ink[-3:, :] > 0.5 * again.suit_ink.max()  # the stem's foot, its last rows
    assert stem.any() and abs(np.flatnonzero(stem.any(axis=0)).mean() - sb.w / 2) < 0.2 * sb.w
    assert model.read_parts(again).card == "KC"
    assert model.read_corner(patch).card == "KC"
    monkeypatch.setattr(generic, "_suit_pruned", lambda *args: None)
    monkeypatch.setattr(generic, "_unveiled", lambda *args: None)
    assert model.read_corner(patch).card is None


def test_pruning_a_suit_keeps_the_strokes_that_join_its_fat_parts() -> None:
    """A drawn corner: a K over a suit of three lobes in a row joined by
    thin bridges beside its middle (as a club's side lobes are to its
    middle), a thin stroke hanging from the right lobe out beyond it.
    Pruned, the stroke goes and the lobes and their bridges stay: a stroke
    beside the suit's middle is pruned only where it hangs from one fat
    part."""
    patch, first, level = _three_lobes((52, 84))
    assert first.suit_box.h > 15  # the stroke taken with the suit
    pruned = generic._suit_pruned(patch, generic.ink_map(patch), level, first, None)
    assert pruned is not None and pruned.rank_box == first.rank_box
    sb = pruned.suit_box
    assert sb.h <= 14 and sb.x <= 12 and sb.x2 >= 50  # the three lobes, the stroke gone


def test_a_suit_pruned_by_a_pixel_is_not_read_again() -> None:
    """The same drawn corner with a stroke a pixel or two long: pruned, the
    suit's box shrinks by less than PRUNE_REACH, the same glyph, and the look
    is not tried; a little longer, it is."""
    patch, first, level = _three_lobes((50, 70))
    assert generic._suit_pruned(patch, generic.ink_map(patch), level, first, None) is None
    patch, first, level = _three_lobes((51, 72))
    pruned = generic._suit_pruned(patch, generic.ink_map(patch), level, first, None)
    assert pruned is not None and pruned.suit_box.h == first.suit_box.h - 2


def _three_lobes(stroke_end: tuple[int, int]
                 ) -> tuple[npt.NDArray[np.uint8], generic.IndexParts, float]:
    patch = np.full((116, 64, 3), 235, np.uint8)
    ink = (20, 20, 20)
    cv2.putText(patch, "K", (16, 48), cv2.FONT_HERSHEY_DUPLEX, 1.6, ink, 3, cv2.LINE_AA)
    for x, r in ((15, 4), (31, 6), (47, 4)):
        cv2.circle(patch, (x, 64), r, ink, -1, cv2.LINE_AA)
    cv2.line(patch, (15, 64), (47, 64), ink, 1)  # the bridges
    cv2.line(patch, (49, 67), stroke_end, ink, 1)  # the stroke hanging from a lobe
    patch = np.asarray(cv2.GaussianBlur(patch, (3, 3), 0.7), np.uint8)
    first = generic.index_parts(patch)
    assert first is not None
    level = max(generic.INK_FLOOR, generic.INK_LEVEL * percentile(
        generic.ink_map(patch)[MARGIN : MARGIN + CORNER_H, MARGIN : MARGIN + CORNER_W], 99.5))
    return patch, first, level


RANKS_IN_PARTS = [
    ("svg-cards-5D-corner-top-bar-over-the-bowl", "5D"),
    ("svg-cards-5H-corner-stem-apart-from-the-bowl", "5H"),
    ("svg-cards-5S-corner-bowl-only", "5S"),
    ("svg-cards-AD-corner-foot-serif-apart", "AD"),
    ("svg-cards-7S-corner-bar-serif-apart", "7S"),
]


@pytest.mark.parametrize(("name", "code"), RANKS_IN_PARTS)
def test_a_rank_in_parts_is_joined_again_by_its_faint_ink(
        name: str, code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patches of svg-cards (benchmark frames): a thin stroke of the
    rank fell under the ink level, and the rank lies in parts (a 5's top
    bar over its bowl, its stem apart from the bowl, an A's foot serif or a
    7's bar serif beside it); the first look is refused. Looked at again,
    the part joined to the rank by the ink over half the level makes one
    glyph, bigger than the rank first found, that is read; without that
    look the corner is refused."""
    patch = cv2.imread(str(FRAMES / f"{name}.png"))
    assert patch is not None
    model = generic_model()
    first = generic.index_parts(patch)
    assert first is None or model.read_parts(first).card is None
    joined = [p for p in generic.index_candidates(patch)
              if p is not None and model.read_parts(p).card == code]
    assert joined
    if first is not None:
        rb = joined[0].rank_box
        assert rb.union(first.rank_box) == rb and rb != first.rank_box
    assert model.read_corner(patch).card == code
    monkeypatch.setattr(generic, "_stacked", lambda *args: iter(()))
    assert model.read_corner(patch).card is None


def test_a_part_apart_from_the_rank_even_at_half_the_level_is_not_joined() -> None:
    """The svg-cards 5D whose top bar lies over its bowl, with the faint
    ink between them (the hairline stem, under the level) painted over
    with paper: the parts no longer join at half the level, no look joins
    them, and the corner is refused."""
    patch = cv2.imread(str(FRAMES / "svg-cards-5D-corner-top-bar-over-the-bowl.png"))
    assert patch is not None
    ink = generic.ink_map(patch)
    level = generic.INK_LEVEL * percentile(
        ink[MARGIN : MARGIN + CORNER_H, MARGIN : MARGIN + CORNER_W], 99.5)
    first = generic.index_parts(patch)
    assert first is not None
    rb = first.rank_box  # the bowl
    rows = slice(rb.y - round(generic.STACK_GAP * rb.h) - 2, rb.y + 1)
    faint = np.zeros(ink.shape, bool)
    faint[rows, rb.x : rb.x2] = ink[rows, rb.x : rb.x2] <= level
    assert (ink[faint] > generic.RANK_SPILL_LEVEL * level).any()  # the stem, faint
    paper = np.median(patch[rb.y2 : rb.y2 + 4, rb.x2 + 2 : rb.x2 + 6].reshape(-1, 3), axis=0)
    patch[faint] = paper.astype(np.uint8)
    model = generic_model()
    assert not any(p is not None and model.read_parts(p).card == "5D"
                   for p in generic.index_candidates(patch))
    assert model.read_corner(patch).card is None


def test_a_later_look_must_clear_the_thresholds_by_a_margin(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patch of an svg-cards 5H (benchmark frame, seed 2024): its
    parts, joined again by their faint ink, were read as a 6, past every
    threshold by a margin of 1.10 only: the one misread of that look on the
    three decks. A look after the first must clear them by LATER_MARGIN;
    the same read at the first look needs only the thresholds."""
    patch = cv2.imread(str(FRAMES / "svg-cards-5H-corner-joined-read-as-a-6.png"))
    assert patch is not None
    model = generic_model()
    looks = list(generic.index_candidates(patch))
    assert looks[0] is not None and model.read_parts(looks[0]).card is None
    six = [p for p in looks[1:] if p is not None and model.read_parts(p).card == "6H"]
    assert six
    margin = model.verdict(six[0]).margin(model.thresholds)
    assert 1.0 <= margin < generic.LATER_MARGIN
    assert model.read_parts(six[0], need=generic.LATER_MARGIN).card is None
    assert model.read_corner(patch).card is None
    monkeypatch.setattr(generic, "LATER_MARGIN", 1.0)
    assert model.read_corner(patch).card == "6H"  # the misread it stops


def test_a_suit_on_a_fat_part_of_a_picture_is_taken_deeper_inside(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patch of an svg-cards king of spades (benchmark frame): the
    gold finial of the sceptre is drawn over the small spade's right lobe,
    and the finial's dark outline and cap join the spade. The spade's fat
    part taken at half the glyph's greatest depth keeps a piece of them and
    is refused; taken deeper (the next share of SUIT_CORES) it is read.
    (With the finial's gold and outline cut away, _unveiled, it is read
    too: that look is left out when the deeper share is.)"""
    patch = cv2.imread(str(FRAMES / "svg-cards-KS-corner-spade-under-the-finial.png"))
    assert patch is not None
    model = generic_model()
    assert generic.index_parts(patch) is None
    reads = [model.read_parts(p).card for p in generic.index_candidates(patch) if p is not None]
    assert reads[0] is None and "KS" in reads and set(reads) <= {None, "KS"}
    assert model.read_corner(patch).card == "KS"
    monkeypatch.setattr(generic, "SUIT_CORES", generic.SUIT_CORES[:1])
    monkeypatch.setattr(generic, "_unveiled", lambda *args: None)
    assert model.read_corner(patch).card is None


def test_a_rank_joined_to_the_glyph_beside_it_is_cut_when_first_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patch of an svg-cards king of diamonds (benchmark frame): blur
    joins the K's foot to the big diamond beside it, one glyph as wide as it
    is tall, read as a rank far from every one. Looked at again, the glyph
    is cut down its thinnest column, and the K alone is read."""
    patch = cv2.imread(str(FRAMES / "svg-cards-KD-corner-foot-on-the-pip.png"))
    assert patch is not None
    model = generic_model()
    first = generic.index_parts(patch)
    assert first is not None and first.rank_box.w >= generic.WIDE_RANK * first.rank_box.h
    assert model.read_parts(first).card is None
    again = [p for p in generic.index_candidates(patch) if p is not None][1]
    assert again.rank_box.w < 0.7 * again.rank_box.h and again.rank_box.x == first.rank_box.x
    assert model.read_corner(patch).card == "KD"
    monkeypatch.setattr(generic, "_beside", lambda patch, ink, level, found: None)
    assert model.read_corner(patch).card is None


def test_a_rank_joined_to_its_suit_at_its_own_level_is_cut_apart() -> None:
    """Corner patch of an svg-cards jack of clubs (benchmark frame): at the
    corner's ink level the J and its club are apart, but the J is fainter
    than the corner's strongest ink, and cut again at its own, lower, level
    its foot joins the club: one glyph too tall for a rank, and the corner
    was refused. It is now cut apart like a rank and suit joined at the
    corner's level."""
    patch = cv2.imread(str(FRAMES / "svg-cards-JC-corner-foot-on-its-club-at-its-own-level.png"))
    assert patch is not None
    ink = generic.ink_map(patch)
    inner = ink[MARGIN : MARGIN + CORNER_H, MARGIN : MARGIN + CORNER_W]
    level = generic.INK_LEVEL * percentile(inner, 99.5)
    parts = generic.index_parts(patch)
    assert parts is not None
    rb, sb = parts.rank_box, parts.suit_box
    own = generic.INK_LEVEL * float(ink[rb.y : rb.y2, rb.x : rb.x2].max())
    assert own < level
    # At the J's own level, J and club are one glyph, too tall for a rank.
    _, labels, _, boxes = generic._components(ink, own)
    joined = boxes[labels[rb.y + rb.h // 2, rb.x : rb.x2].max()]
    assert joined.h > generic.RANK_H[1] and joined.y2 >= sb.y2 - 1
    assert generic_model().read_corner(patch).card == "JC"


def test_a_glyph_is_cut_only_where_it_is_thin() -> None:
    """A rank and a suit joined by a one-pixel bridge are cut at the bridge;
    a glyph as wide all the way down is not cut (it is refused as before)."""
    ink = np.zeros((116, 64), np.float32)
    ink[10:40, 14:32] = 1.0  # a rank
    ink[40:42, 22:24] = 0.6  # blur between them
    ink[42:60, 16:30] = 1.0  # its suit
    n, labels, _, boxes = generic._components(ink, 0.4)
    assert n == 2  # one glyph
    miss = generic._NoSuit(labels, boxes, 1, boxes[1], [])
    cut = generic._split(ink, miss)
    assert cut is not None and set(np.nonzero(cut)[0]) <= {40, 41}
    bar = np.zeros_like(ink)
    bar[10:60, 14:32] = 1.0
    n, labels, _, boxes = generic._components(bar, 0.4)
    assert generic._split(bar, generic._NoSuit(labels, boxes, 1, boxes[1], [])) is None


def test_the_build_sets_its_ratios_for_the_reader_as_it_runs() -> None:
    """Out-of-fold reads the reader's shape checks refuse (a 3 read as a 5
    without a 5's stroke) set no ratio; a glyph whose rank was misread with
    its suit (a 9 of hearts read as a queen of diamonds) does not set the
    suit's ratio: its rank is wrong whatever its suit. In the first build
    with the 338 fonts one such glyph put the red suit's ratio over every
    right read."""
    from calibration import build_generic as b
    from drivers.camera.generic import Verdict

    def held(vetoed: bool) -> list[b.Scored]:
        right = [b.Scored("5S", Verdict("5", "S", llr, 200.0, 1.0, 1.0, "SC", 50.0, "3"))
                 for llr in (10.0, 100.0) for _ in range(1500)]
        wrong = Verdict("5", "S", 60.0, 200.0, 1.0, 1.0, "SC", 50.0, "3")
        return [*right, b.Scored("3S", wrong, vetoed)]

    tr, _ = b._rate_thresholds(held(vetoed=False), 10.0, 10.0, 0.0)
    assert 60.0 < tr <= 100.0
    tr, _ = b._rate_thresholds(held(vetoed=True), 10.0, 10.0, 0.0)
    assert tr <= 10.0
    assert b.tally(held(vetoed=True), GenericThresholds(rank_llr_black=1.0, suit_llr_black=1.0)
                   ) == {"right": 3000, "wrong": 0, "refused": 1}

    def red(truth: str, rank: str) -> list[b.Scored]:
        right = [b.Scored("9H", Verdict("9", "H", 90.0, 2400.0, 1.0, 1.0, "HD", 50.0, "6"))
                 for _ in range(3000)]
        wrong = Verdict(rank, "D", 5.0, 2500.0, 1.0, 1.0, "HD", 50.0, "9")
        return [*right, b.Scored(truth, wrong)]

    _, ts = b._rate_thresholds(red("9H", "Q"), 10.0, 10.0, 0.0)
    assert ts <= 1.0  # the rank was wrong too
    _, ts = b._rate_thresholds(red("QH", "Q"), 10.0, 10.0, 0.0)
    assert ts >= 2500.0  # a suit confusion of a rank read right sets the floor
    # A glyph misread in rank and suit beyond every ratio of the rank's grid:
    # only the suit's floor can stop it, and every suit confusion sets it.
    black = [b.Scored("9S", Verdict("9", "S", 90.0, 240.0, 1.0, 1.0, "SC", 50.0, "6"))] * 100
    beyond = b.Scored("9H", Verdict("Q", "D", 250.0, 2500.0, 1.0, 1.0, "HD", 250.0, "9"))
    t = b.choose_thresholds([*red("QH", "9")[:-1], *black, beyond], 1.1)
    assert b.tally([beyond], t)["wrong"] == 0 and t.suit_llr >= 2500.0


def test_a_j_whose_right_edge_is_no_stem_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patch of an svg-cards 3C (benchmark frame, seed 2024), blurred
    across: the thin left ends of the 3's curves fell under the ink level
    and its right half was read as a J. A J's right edge is its stem; this
    one comes in at the 3's waist, and the J is refused. Right Js pass."""
    patch, model = kept_patch_refused(
        "svg-cards-3C-corner-left-ends-blurred-away", "3C",
        lambda p: generic.right_notch(p.rank_ink) > generic.J_NOTCH_MAX)
    j = generic.index_parts(cv2.imread(str(FRAMES / "svg-cards-JC-corner-rank-on-its-suit.png")))
    assert j is not None and generic.right_notch(j.rank_ink) <= 0.5 * generic.J_NOTCH_MAX
    stem = np.zeros((40, 16), np.float32)
    stem[:32, 10:14] = 1.0  # a J: a stem, and a hook at its foot
    stem[30:36, 2:14] = 1.0
    assert generic.right_notch(stem) == 0.0
    monkeypatch.setattr(generic, "J_NOTCH_MAX", 1e9)  # the check off
    assert model.read_corner(patch).card == "JC"  # this patch needs it


@given(labels=hnp.arrays(np.int32, st.tuples(st.integers(0, 12), st.integers(0, 12)),
                         elements=st.integers(0, 9)),
       ids=st.lists(st.integers(-2, 14), max_size=6))
def test_the_label_lookup_is_numpys_isin(labels: npt.NDArray[np.int32], ids: list[int]) -> None:
    """The reader's mask of labels (drivers.camera.glyphs.member: compared,
    or by a lookup table) is exactly np.isin's, for any label image and any ids."""
    assert np.array_equal(member(labels, ids), np.isin(labels, ids))


@given(values=st.one_of(hnp.arrays(np.float32, st.integers(1, 400),
                                   elements=st.floats(0.0, 1.0, width=32)),
                        hnp.arrays(np.uint8, st.integers(1, 400))),
       q=st.one_of(st.sampled_from([0.0, 10.0, 97.0, 98.0, 99.5, 100.0]),
                   st.floats(0.0, 100.0)))
def test_the_percentile_is_numpys(values: npt.NDArray[Any], q: float) -> None:
    """The readers' percentile (drivers.camera.glyphs.percentile; ink maps
    in float32, grey images in uint8) is exactly np.percentile's, bit for
    bit, so no feature, level or read changes with it."""
    assert percentile(values, q) == float(np.percentile(values, q))


@given(values=st.one_of(
           hnp.arrays(np.float32, st.tuples(st.integers(32, 130), st.integers(32, 110)),
                      elements=st.one_of(st.sampled_from([0.0, 0.5, 0.75, 1.0]),
                                         st.floats(0.0, 1.0, width=32))),
           hnp.arrays(np.uint8, st.tuples(st.integers(32, 130), st.integers(32, 110)),
                      elements=st.integers(250, 255)),
           hnp.arrays(np.float32, st.integers(1024, 6000), elements=st.floats(0.0, 1.0, width=32))),
       q=st.one_of(st.sampled_from([0.0, 1.0, 3.0, 10.0, 14.9, 85.1, 90.0, 97.0, 99.5, 100.0]),
                   st.floats(0.0, 100.0)),
       strided=st.booleans())
def test_the_percentile_of_a_tail_is_numpys(values: npt.NDArray[Any], q: float,
                                            strided: bool) -> None:
    """A percentile in the tail of many values is taken among those beyond a
    threshold read off a sample (glyphs._tail_order_stats): still exactly
    np.percentile's, on images of few distinct levels and on strided views
    (the band's paper level is taken on every other row and column)."""
    if strided and values.ndim == 2:
        values = values[::2, 1::2]
    assert percentile(values, q) == float(np.percentile(values, q))


def test_a_tail_the_sample_misjudges_is_sorted_whole() -> None:
    """Where the sample's threshold leaves too few values beyond it (the
    tail lies wholly off the sampled rows and columns), the percentile is
    taken by sorting every value, and is still np.percentile's."""
    values = np.zeros((100, 100), np.float32)
    values[::4, ::4] = np.linspace(0.0, 0.9, 625, dtype=np.float32).reshape(25, 25)
    values[1::4, 1::4] = 0.8  # off the sample, under its threshold, in the top 1 %
    assert glyphs._tail_order_stats(values, 9899, 9900) is None
    assert percentile(values, 99.0) == float(np.percentile(values, 99.0)) == np.float32(0.8)
    even = np.random.default_rng(0).random((100, 100)).astype(np.float32)
    assert glyphs._tail_order_stats(even, 9899, 9900) is not None  # a fair sample: in reach


def _every_look_read_whole(model: generic.GenericReader, patch: npt.NDArray[np.uint8]
                           ) -> CornerRead:
    refused: CornerRead | None = None
    for look, parts in enumerate(generic.index_candidates(patch)):
        if parts is None:
            continue
        read = model.read_parts(parts, need=1.0 if look == 0 else generic.LATER_MARGIN)
        if read.card is not None:
            return read
        refused = refused or read
    return refused or CornerRead(None, 0.0, "??", (0.0, 0.0, 0.0), 0.0)


def test_a_corner_is_read_as_if_every_look_were_read_whole() -> None:
    """The reader reads a rank glyph once for the looks that keep it and
    skips the suit's when the rank alone refuses the index: on every kept
    corner patch (most of them refused at the first look, read by a later
    one or refused by all), the same read, confidence and ratios as every
    look read whole, one after the other. A refusal is the same refusal;
    when its rank alone refused it, its card and ratios are the rank's."""
    model = generic_model()
    patches = sorted(FRAMES.glob("*-corner-*.png"))
    assert len(patches) >= 15
    for path in patches:
        patch = cv2.imread(str(path))
        assert patch is not None
        read, whole = model.read_corner(patch), _every_look_read_whole(model, patch)
        if read.card is not None or whole.card is not None:
            assert read == whole, path.name
            continue
        assert (read.confidence, read.fit) == (whole.confidence, whole.fit), path.name
        if read.best.endswith("?") and not whole.best.endswith("?"):
            assert read.best[0] == whole.best[0] and read.llr[1] == whole.llr[1], path.name
        else:
            assert read == whole, path.name


def test_a_corner_refused_by_its_rank_alone_is_reported_without_its_suit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patch of an svg-cards 5 of hearts whose rank alone refuses it
    (unsure of the 5 over a 3, its five's shape not asked for here): the
    suit is not read at any look, and the refusal reported is the rank's,
    its ratio the rank's over its runner-up."""
    monkeypatch.setattr(generic, "FIVE_SHAPED_LLR", math.inf)
    patch = cv2.imread(str(FRAMES / "svg-cards-5H-corner-unsure-over-a-3.png"))
    assert patch is not None
    model = generic_model()
    first = generic.index_parts(patch)
    assert first is not None and model.rank_refused(model.rank_of(first))
    suits: list[int] = []
    real = model.suit_vector
    monkeypatch.setattr(model, "suit_vector", lambda parts: suits.append(1) or real(parts))
    read = model.read_corner(patch)
    assert read.card is None and read.best == "5?" and suits == []
    rank = model.rank_of(first)
    assert read.llr[1] == min(rank.llr, rank.over_x) == model.read_parts(first).llr[1]
    assert model.read_parts(first).best == "5H"  # read whole, its suit is the heart


def test_the_suit_is_not_taken_apart_again_when_the_rank_refuses(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Corner patch of an svg-cards 5 of hearts (benchmark frame) found
    where drawn, refused on its rank alone (unsure of the 5 over a 3):
    pruning its suit keeps the same 5, so that look is not tried; with the
    rank's check off it is, and changes nothing. (The glyph has the five's
    shape, which now reads it: that is turned off here, test_shapes.py
    shows it.)"""
    monkeypatch.setattr(generic, "FIVE_SHAPED_LLR", math.inf)
    patch = cv2.imread(str(FRAMES / "svg-cards-5H-corner-unsure-over-a-3.png"))
    assert patch is not None
    model = generic_model()
    first = generic.index_parts(patch)
    assert first is not None
    rank = model.rank_of(first)
    assert rank.rank == "5" and rank.second == "3" and rank.colours == (generic.RED_SUITS,)
    assert model.rank_refused(rank) and model.read_parts(first).card is None
    tried: list[str] = []
    real = generic._suit_pruned

    def pruned(*args: Any) -> generic.IndexParts | None:
        tried.append("pruned")
        return real(*args)

    monkeypatch.setattr(generic, "_suit_pruned", pruned)
    assert model.read_corner(patch).card is None and tried == []
    monkeypatch.setattr(model, "rank_refused", lambda r: False)
    assert model.read_corner(patch).card is None and tried == ["pruned"]
