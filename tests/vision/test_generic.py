"""The generic (uncalibrated) reader: the shipped font-rendered model on the
two real decks and the house deck, none of which it was trained on; French
indices refused; a whole deal through CardSource; the build script itself."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from drivers.camera.generic import MODEL_PATH, generic_model, load_model
from drivers.camera.shoe import ShoeGeometry, read_still
from drivers.camera.source import CardSource
from sim.camera.decks import ALL_CARDS
from sim.camera.shoe import ShoeCamera
from tests.vision.conftest import get_deck

GEOMETRY = ShoeGeometry()
# Seeded samples (seed 12, 300 frames a deck); the 10,000-frame figures are in
# docs/benchmarks.md. The goal (99 % right, at most 1 misread in 10,000) is
# NOT met: floors sit under what the reader measures on these seeds (69.7,
# 58.0 and 57.3 %) so that a regression fails. Misreads must be zero, except
# on cardsjs, whose flat-topped 3 the model can take for a 5 (measured 1 of
# 300 here): that known failure is pinned, not allowed to grow or to spread
# to another confusion.
GENERIC_FLOOR = {"npm-svg-cards": 0.67, "npm-cardsjs": 0.55, "house": 0.54}
KNOWN_MISREADS = {"npm-cardsjs": ({("3", "5")}, 1)}


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
    kinds, most = KNOWN_MISREADS.get(name, (set(), 0))
    assert [(t, g) for t, g in wrong if (t[0], g[0]) not in kinds or t[1] != g[1]] == []
    assert len(wrong) <= most
    assert correct / len(results) >= GENERIC_FLOOR[name]


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
    # Measured 36 of 52 (the rest unreadable: the dealer keys them in).
    assert sum(r.card == c for r, c in zip(reads, cards, strict=True)) >= 34


def test_build_script_writes_a_model_the_reader_loads(tmp_path: Path) -> None:
    """A small build (few fonts, few views) runs end to end; the shipped file
    comes from the same code with the defaults."""
    pytest.importorskip("PIL")
    from calibration import build_generic

    fonts = build_generic.find_fonts()
    if len(fonts) < 10:
        pytest.skip("the font packages of calibration/build_generic.py are not installed")
    out = tmp_path / "generic.npz"
    reader = build_generic.build(out, per_rank=2, per_other=2, seed=3, shrink=0.1, margin=1.5,
                                 font_limit=12)
    loaded = load_model(out)
    assert loaded.thresholds == reader.thresholds
    assert len(loaded.meta["fonts"]) == 12
    json.dumps(loaded.meta)
    # Same seed, same fonts: the same model.
    again = build_generic.build(tmp_path / "again.npz", per_rank=2, per_other=2, seed=3,
                                shrink=0.1, margin=1.5, font_limit=12)
    assert np.array_equal(again.rank.weights, reader.rank.weights)
