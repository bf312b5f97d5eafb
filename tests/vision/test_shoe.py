"""Shoe mode on simulated shoe-camera frames: per-frame accuracy on seeded
samples, exactly one read per card over a whole shoe, and the awkward
cases (glare, covered index, stuck cards, cut card, card back, empty and
black frames). Frames come from sim.camera (one of them kept in
tests/data/frames); nothing here is hard-coded."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from drivers.camera.source import CardSource
from drivers.vision import shoe
from drivers.vision.corner import CornerPose, _fit_line, shoe_corners
from drivers.vision.glyphs import (
    Box,
    IndexPlace,
    find_index_places,
    percentile,
    to_gray,
)
from drivers.vision.learned import learned_model
from drivers.vision.reader import patch_for
from drivers.vision.shoe import (
    ShoeGeometry,
    ShoeRead,
    band_poses,
    read_band,
    read_still,
    suit_shaped,
)
from sim.camera.decks import ALL_CARDS, card_back, cut_card
from sim.camera.optics import OpticsRange
from sim.camera.shoe import ShoeCamera
from tests.vision.conftest import get_calibration, get_deck

GEOMETRY = ShoeGeometry()
FRAMES = Path(__file__).resolve().parent.parent / "data" / "frames"
# Seeded samples; the full 10,000-frame figures are in docs/benchmarks.md.
# Floors are set under what the reader measures on these seeds so that a
# regression fails; misreads must be zero.
CALIBRATED_FLOOR = {"npm-svg-cards": 0.98, "npm-cardsjs": 0.98, "house": 0.98}


def _sample(name: str, n: int, seed: int) -> list[tuple[str, np.ndarray]]:
    cam = ShoeCamera(get_deck(name), seed=seed)
    rng = np.random.default_rng(seed)
    codes = [ALL_CARDS[int(i)] for i in rng.integers(0, 52, n)]
    return [(c, cam.still(c)) for c in codes]


def _cards_entering(name: str, seed: int) -> Iterator[tuple[str, np.ndarray, Box]]:
    """Each card of the deck as a clean still of the shoe camera, with the box of
    its top-left rank glyph (the tests below cut the frame above or across it)."""
    cam = ShoeCamera(get_deck(name), seed=seed)
    left, right = GEOMETRY.band
    for code in ALL_CARDS:
        frame = cam.still(code, clean=True)
        found = find_index_places(np.ascontiguousarray(frame[:, left:right]), GEOMETRY.rank_height)
        yield code, frame, min(found, key=lambda i: i.rank_box.x).rank_box


@pytest.mark.parametrize("name", ["npm-svg-cards", "npm-cardsjs", "house"])
def test_calibrated_reads_perturbed_frames_without_misreads(name: str) -> None:
    model = get_calibration(name).model()
    results = [
        (truth, read_still(frame, model, GEOMETRY)[0])
        for truth, frame in _sample(name, 400, seed=7)
    ]
    wrong = [(t, g) for t, g in results if g is not None and g != t]
    correct = sum(1 for t, g in results if g == t)
    assert wrong == []
    assert correct / len(results) >= CALIBRATED_FLOOR[name]


@pytest.mark.parametrize("name", ["npm-svg-cards", "npm-cardsjs", "house", "house-french"])
def test_uncalibrated_never_guesses(name: str) -> None:
    """Also on French indices (1 R D V), which the network learnt from the
    project's own deck with French indices."""
    model = learned_model()
    results = [
        (truth, read_still(frame, model, GEOMETRY)[0])
        for truth, frame in _sample(name, 200, seed=8)
    ]
    wrong = [(t, g) for t, g in results if g is not None and g != t]
    assert wrong == []


def test_whole_six_deck_shoe_gives_one_read_per_card_in_order() -> None:
    """312 cards at 30 fps: exactly one read per card, in the dealt order,
    none doubled, none missed, none wrong, none unreadable: the dealt
    sequence itself. (The figures of every deck are in docs/benchmarks.md.)"""
    deck = get_deck("npm-cardsjs")
    rng = np.random.default_rng(42)
    shoe = [c for _ in range(6) for c in ALL_CARDS]
    rng.shuffle(shoe)
    cam = ShoeCamera(deck, seed=42, fps=30.0)
    source = CardSource(get_calibration("npm-cardsjs").model())
    reads = list(source.reads(f.image for f in cam.deal(shoe)))
    assert len(reads) == len(shoe)
    assert [(i, r.card) for i, r in enumerate(reads) if r.card not in (shoe[i], None)] == []
    assert [r.card for r in reads] == shoe
    # Reads come in frame order, one per pass.
    firsts = [r.first_frame for r in reads]
    assert firsts == sorted(firsts)


def _deal(
    items: list[object], seed: int = 5, name: str = "npm-cardsjs", optics: OpticsRange | None = None
) -> list[ShoeRead]:
    deck = get_deck(name)
    cam = ShoeCamera(deck, seed=seed, optics=optics)
    source = CardSource(get_calibration(name).model())
    return list(source.reads(f.image for f in cam.deal(items)))  # type: ignore[arg-type]


def test_cut_card_and_card_back_are_reported_unreadable_not_guessed() -> None:
    reads = _deal(["7H", cut_card(), "KS", card_back(), "2D"])
    assert [r.card for r in reads] == ["7H", None, "KS", None, "2D"]
    assert reads[1].reason == "no_index"
    assert reads[3].reason in ("no_index", "low_confidence")


def test_empty_and_black_frames_give_no_reads() -> None:
    source = CardSource(get_calibration("npm-cardsjs").model())
    cam = ShoeCamera(get_deck("npm-cardsjs"), seed=3)
    frames = [cam.empty() for _ in range(20)]
    frames += [np.zeros((480, 640, 3), np.uint8) for _ in range(20)]
    assert list(source.reads(frames)) == []


def test_camera_going_black_mid_deal_does_not_invent_cards() -> None:
    cam = ShoeCamera(get_deck("npm-cardsjs"), seed=9)
    frames = [f.image for f in cam.deal(["9C", "QD"])]
    frames[len(frames) // 2 :] = [np.zeros_like(frames[0])] * (len(frames) - len(frames) // 2)
    reads = list(CardSource(get_calibration("npm-cardsjs").model()).reads(frames))
    assert all(r.card in ("9C", None) for r in reads)


def test_glare_on_the_index_is_read_or_refused_never_misread() -> None:
    glare = OpticsRange(glare_chance=1.0, glare_strength=(120.0, 220.0), glare_sigma=(15.0, 40.0))
    model = get_calibration("npm-svg-cards").model()
    cam = ShoeCamera(get_deck("npm-svg-cards"), seed=21, optics=glare)
    rng = np.random.default_rng(21)
    outcomes = []
    for _ in range(150):
        truth = ALL_CARDS[int(rng.integers(52))]
        frame = cam.still(truth)
        outcomes.append((truth, read_still(frame, model, GEOMETRY)[0]))
    assert [o for o in outcomes if o[1] is not None and o[1] != o[0]] == []
    assert sum(1 for t, g in outcomes if g == t) > 0.5 * len(outcomes)


def test_half_covered_index_is_refused_not_guessed() -> None:
    model = get_calibration("npm-cardsjs").model()
    cam = ShoeCamera(get_deck("npm-cardsjs"), seed=4)
    refused = 0
    for code in ("6S", "9S", "8H", "3C", "QD", "TH", "5D", "AS"):
        frame = cam.still(code, clean=True)
        left, right = GEOMETRY.band
        found = find_index_places(np.ascontiguousarray(frame[:, left:right]), GEOMETRY.rank_height)
        rank = min(found, key=lambda i: i.rank_box.x).rank_box  # the index, not a pip
        # A skin-coloured thumb over the upper 60% of the rank.
        cover = slice(rank.y - 6, rank.y + int(0.6 * rank.h))
        frame[cover, left + rank.x - 6 : left + rank.x2 + 6] = (90, 120, 170)
        card, _ = read_still(frame, model, GEOMETRY)
        assert card in (code, None)
        refused += card is None
    assert refused >= 4


def test_two_cards_stuck_together_give_both_reads_in_order() -> None:
    deck = get_deck("npm-cardsjs")
    source = CardSource(get_calibration("npm-cardsjs").model())
    for seed, (a, b) in enumerate([("AS", "KD"), ("5C", "5H"), ("TD", "3S")]):
        cam = ShoeCamera(deck, seed=seed)
        reads = list(source.reads(f.image for f in cam.stuck_pair(a, b)))
        # Both cards, leading card first: no card lost, none guessed.
        assert [r.card for r in reads] == [a, b]


STUCK_PAIRS = [("AS", "KD"), ("5C", "5H"), ("TD", "3S"), ("QH", "7C"), ("2D", "JS"),
               ("9S", "6H"), ("KC", "4D"), ("8H", "TC")]
# Pairs of the eight that give both cards in order (measured 4, 8 and 7: on
# svg-cards the leading card's corner, paper against paper, is often not
# found; on house the leading 8H of the last pair is seen only by its ink at
# the top of the view, which is no longer read there: see
# test_an_index_cut_by_the_top_of_the_view_is_not_read_from_its_ink. A card
# lost is reported by the service as a missing card, never as another card).
STUCK_BOTH_FLOOR = {"npm-svg-cards": 4, "npm-cardsjs": 8, "house": 7}


@pytest.mark.parametrize("name", ["npm-svg-cards", "npm-cardsjs", "house"])
def test_stuck_pairs_on_every_deck_never_give_a_wrong_card(name: str) -> None:
    deck = get_deck(name)
    model = get_calibration(name).model()
    both = 0
    for seed, (a, b) in enumerate(STUCK_PAIRS):
        cam = ShoeCamera(deck, seed=seed)
        cards = [r.card for r in CardSource(model).reads(f.image for f in cam.stuck_pair(a, b))]
        assert [c for c in cards if c not in (a, b, None)] == []
        assert len(cards) <= 2
        # Never in the wrong order (the second card would go to the wrong seat).
        assert cards != [b, a]
        both += cards == [a, b]
    assert both >= STUCK_BOTH_FLOOR[name]


@pytest.mark.parametrize("name", ["npm-svg-cards", "npm-cardsjs", "house"])
def test_covered_rank_or_index_is_never_misread_on_any_card(name: str) -> None:
    """Every card of the deck with the upper 60% of its rank covered, and
    with its whole index covered: read right (from what is left of the
    corner) or refused, never read as another card."""
    model = get_calibration(name).model()
    cam = ShoeCamera(get_deck(name), seed=4)
    left, right = GEOMETRY.band
    wrong = []
    for code in ALL_CARDS:
        frame = cam.still(code, clean=True)
        found = find_index_places(np.ascontiguousarray(frame[:, left:right]), GEOMETRY.rank_height)
        assert found, code
        index = min(found, key=lambda i: i.rank_box.x)
        r, b = index.rank_box, index.box
        half = frame.copy()
        half[r.y - 6 : r.y + int(0.6 * r.h), left + r.x - 6 : left + r.x2 + 6] = (90, 120, 170)
        whole = frame.copy()
        whole[b.y - 6 : b.y2 + 6, left + b.x - 6 : left + b.x2 + 6] = (90, 120, 170)
        for what, image in (("half", half), ("whole", whole)):
            card, _ = read_still(image, model, GEOMETRY)
            if card not in (code, None):
                wrong.append((what, code, card))
    assert wrong == []


@pytest.mark.parametrize("name", ["npm-svg-cards", "npm-cardsjs", "house"])
def test_index_cut_by_the_top_of_the_frame_is_never_misread(name: str) -> None:
    """A card entering at the top of the view: its top edge is out of the
    frame and its rank glyph cut part way (the lower loop of an 8 alone
    looks like a 6). With no edge to place the corner, the index found by
    its ink must lie wholly in the frame to be read."""
    model = get_calibration(name).model()
    wrong = []
    for code, frame, r in _cards_entering(name, seed=9):
        for cut in (0.3, 0.5, 0.7):
            top = r.y + int(cut * r.h)
            card, _ = read_still(np.ascontiguousarray(frame[top:]), model, GEOMETRY)
            if card not in (code, None):
                wrong.append((code, cut, card))
    assert wrong == []


def test_a_card_entering_the_view_is_read_from_its_index_ink() -> None:
    """A band of the shoe camera (kept from a simulated cardsjs shoe) with
    the 8 of hearts entering: its top edge is just above the view, its index
    wholly in it, so the corner is placed from the index ink. It used to be
    read as a 6 of hearts with full confidence: the patch's top margin, black
    outside the frame, was taken for a bar of ink over the 8."""
    band = cv2.imread(str(FRAMES / "cardsjs-8H-index-cut-by-the-top.png"))
    assert band is not None
    model = get_calibration("npm-cardsjs").model()
    ramp = float(np.percentile(to_gray(band)[::4, ::4], 10))
    poses = band_poses(band, model, GEOMETRY, ramp)
    assert [p.source for p in poses] == ["ink"]  # the index is found, by its ink only
    assert [r.card for _, r in read_band(band, model, GEOMETRY, ramp)] == ["8H"]


def test_a_dark_strip_at_the_top_of_a_corner_patch_is_not_read_as_ink() -> None:
    """The same band, its corner placed a pixel or two higher or lower (the
    black outside the frame then fills 6 to 10 rows of the patch's margin):
    the card is read right or not at all, and right at most places."""
    band = cv2.imread(str(FRAMES / "cardsjs-8H-index-cut-by-the-top.png"))
    assert band is not None
    model = get_calibration("npm-cardsjs").model()
    got = []
    for oy in (-2.0, -1.0, 0.0, 0.6, 1.0, 2.0):
        pose = CornerPose((35.75, oy), (GEOMETRY.scale, 0.0), (0.0, GEOMETRY.scale), "ink")
        patch = patch_for(model, band, pose)
        got.append(model.read_corner(patch).card)
    assert set(got) <= {"8H", None} and got.count("8H") >= 5, got


@pytest.mark.parametrize("name", ["npm-svg-cards", "npm-cardsjs", "house"])
def test_a_card_whose_top_edge_is_just_out_of_view_is_read(name: str) -> None:
    """A card entering the view: its top edge a few pixels above the frame,
    its index wholly below it. No edge places the corner, its index ink
    does; the index is read (it was refused whenever the patch's margin ran
    off the frame), and never misread."""
    model = get_calibration(name).model()
    results = []
    for code, frame, r in _cards_entering(name, seed=10):
        for clear in (10, 14):  # rows of paper between the frame's top and the rank
            card, _ = read_still(np.ascontiguousarray(frame[r.y - clear :]), model, GEOMETRY)
            results.append((code, clear, card))
    wrong = [(c, k, g) for c, k, g in results if g not in (c, None)]
    right = sum(1 for c, _, g in results if g == c)
    assert wrong == []
    assert right >= 0.9 * len(results), right


def test_a_line_fit_is_not_tilted_by_a_third_of_its_points_off_it() -> None:
    # The top edge of an svg-cards 5 as measured column by column: under
    # the 5's top bar, printed against the card's top edge, the first light
    # row is the bar's underside, 7-9 px down. A least-squares start tilted
    # this edge by 18 degrees.
    cols = np.arange(43.0, 72.0)
    tops = np.full(len(cols), 22.0)
    tops[:10] = [29, 29, 29, 29, 30, 30, 30, 30, 30, 31]
    line = _fit_line(cols, tops)
    assert line is not None
    slope, at = line
    assert abs(slope) < 1e-9 and at == pytest.approx(22.0)


def test_a_card_whose_rank_touches_its_top_edge_is_placed_from_its_edges() -> None:
    band = cv2.imread(str(FRAMES / "svg-cards-5H-band-top-bar-on-the-top-edge.png"))
    assert band is not None
    ramp = percentile(to_gray(band)[::4, ::4], 10)
    (pose,) = shoe_corners(band, GEOMETRY.scale, ramp)
    # The card is turned by at most a few degrees, and its top edge is row 23.
    assert abs(pose.u[1] / pose.u[0]) < 0.05
    assert pose.origin[1] == pytest.approx(23.0, abs=1.0)
    model = learned_model()
    assert model.read_corner(patch_for(model, band, pose)).card == "5H"


def _band(name: str) -> tuple[np.ndarray, float]:
    band = cv2.imread(str(FRAMES / name))
    assert band is not None
    return band, percentile(to_gray(band)[::4, ::4], 10)


def test_a_suit_has_a_suits_proportions_and_fill() -> None:
    """A heart 18 px tall (as wide as 0.9 of that, its ink 0.65 of its box)
    is suit-shaped; a stroke as thin as a picture's line, a hollow outline
    and a long bar are not."""
    rank = Box(10, 10, 22, 34)

    def place(w: int, h: int, fill: float) -> IndexPlace:
        return IndexPlace(rank, Box(12, 48, w, h), [1], [2], round(fill * w * h))

    assert suit_shaped(place(16, 18, 0.65))
    assert suit_shaped(place(14, 18, 0.5))  # a diamond
    assert not suit_shaped(place(3, 18, 0.9))  # a stroke
    assert not suit_shaped(place(18, 18, 0.25))  # an outline
    assert not suit_shaped(place(36, 14, 0.7))  # a bar


def test_a_court_pictures_shapes_place_no_corner_by_their_ink(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The queen of clubs' band (svg-cards): under her index the band
    search finds two more rank-over-suit pairs in the picture, in the index
    column and outside her corner. Their "suits" are a stroke and a hollow
    shape, and they place no corner; with the suit's shape not asked for,
    they do, and each is read and refused by both readers."""
    band, ramp = _band("svg-cards-QC-band-picture-shapes-in-the-index-column.png")
    places = find_index_places(to_gray(band), GEOMETRY.rank_height)
    assert len(places) == 3 and [suit_shaped(p) for p in places] == [True, False, False]
    readers = (learned_model(), get_calibration("npm-svg-cards").model())
    for model in readers:
        assert [p.source for p in band_poses(band, model, GEOMETRY, ramp)] == ["edges"]
        assert [r.card for _, r in read_band(band, model, GEOMETRY, ramp)] == ["QC"]
    monkeypatch.setattr(shoe, "SUIT_ASPECT", (0.0, math.inf))
    monkeypatch.setattr(shoe, "SUIT_FILL_MIN", 0.0)
    for model in readers:
        reads = read_band(band, model, GEOMETRY, ramp)
        assert [p.source for p, _ in reads][:1] == ["edges"] and len(reads) >= 2
        assert [r.card for _, r in reads] == ["QC"] + [None] * (len(reads) - 1)


@pytest.mark.parametrize(("frame", "want"), [
    # his corner found by its edges; a suit-shaped pair of his picture's
    # shapes places a second corner by its ink, which is no index
    ("svg-cards-JC-band-picture-shapes-read-as-an-index.png", [("edges", "JC"), ("ink", None)]),
    # his edges place no corner; his index, found by its ink, the only one
    ("svg-cards-KS-band-found-by-its-ink-alone.png", [("ink", "KS")]),
])
def test_corners_placed_from_ink_on_a_court_card(frame: str, want: list[Any]) -> None:
    band, ramp = _band(frame)
    for model in (learned_model(), get_calibration("npm-svg-cards").model()):
        reads = read_band(band, model, GEOMETRY, ramp)
        assert [(p.source, r.card) for p, r in reads] == want


def test_a_five_whose_top_bar_is_out_of_the_frame_is_not_read_as_a_j() -> None:
    """The 5 of hearts' band (svg-cards) as the card enters the view: the
    5's thin top bar and stem, at the frame's edge, are too faint for the
    band's ink layer, and its index is found by its bowl, which places a
    corner by its ink. The bowl alone looks like a J: it is read as the 5,
    or not at all."""
    band, ramp = _band("svg-cards-5H-band-cut-by-the-top-read-as-a-J.png")
    for model in (learned_model(), get_calibration("npm-svg-cards").model()):
        reads = read_band(band, model, GEOMETRY, ramp)
        assert [p.source for p, _ in reads] == ["ink"]
        assert reads[0][1].card in ("5H", None)
