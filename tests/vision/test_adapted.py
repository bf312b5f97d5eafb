"""The learned reader adapted to a house deck from its 52 faces
(calibration.adapt, drivers.vision.adapted)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from calibration.adapt import SHOE_CONFUSIONS, AdaptError, adapt, shoe_misreads
from drivers.camera.source import CardSource
from drivers.vision.adapted import AdaptedReader
from drivers.vision.learned import learned_model
from drivers.vision.shoe import ShoeGeometry, read_still
from sim.camera.decks import Deck, load_deck
from sim.camera.shoe import ShoeCamera

DECKS = Path(__file__).resolve().parent.parent / "data" / "decks"


@pytest.fixture(scope="module")
def deck() -> Deck:
    return load_deck(DECKS / "npm-cardsjs")


@pytest.fixture(scope="module")
def adapted(deck: Deck) -> AdaptedReader:
    return adapt(deck, learned_model(), seed=3).reader


def test_reads_the_house_decks_shoe_frames(deck: Deck, adapted: AdaptedReader) -> None:
    cam = ShoeCamera(deck, seed=11)
    rng = np.random.default_rng(12)
    codes = sorted(deck)
    truth = [codes[int(i)] for i in rng.integers(0, 52, 60)]
    got = [read_still(cam.still(c), adapted, ShoeGeometry())[0] for c in truth]
    assert sum(g == t for g, t in zip(got, truth, strict=True)) >= 57
    assert all(g in (None, t) for g, t in zip(got, truth, strict=True))


def test_reads_every_corner_the_network_alone_reads(deck: Deck, adapted: AdaptedReader) -> None:
    """Never worse than uncalibrated: where the network alone is sure, the
    adapted reader reads the same card (or, where the deck's own head is
    sure of another, neither)."""
    cam = ShoeCamera(deck, seed=21)
    base = learned_model()
    for code in ("7H", "QS", "TD", "AC", "5S", "KD"):
        frame = cam.still(code)
        alone = read_still(frame, base, ShoeGeometry())[0]
        both = read_still(frame, adapted, ShoeGeometry())[0]
        if alone is not None:
            assert both == alone


def test_faces_named_wrongly_are_refused_with_their_names(deck: Deck) -> None:
    swapped = dict(deck)
    swapped["AS"], swapped["7D"] = deck["7D"], deck["AS"]
    with pytest.raises(AdaptError, match=r"^(AS|7D): "):
        adapt(swapped, learned_model(), seed=3)


def test_a_deck_the_shoe_would_misread_is_refused_or_read_without_a_misread() -> None:
    """A deck whose suits are only outlined (tests/data/outlined-deck,
    procedural seed 460): the shipped network reads its small hollow spades
    as clubs at the shoe's thresholds, surely enough that a calibration
    that checked views at the strict thresholds alone let it through, and
    the shoe then misread 5 of 78 cards dealt. Its calibration is
    refused, naming cards the shoe would misread; or, if a network reads
    the deck, the cards dealt through the shoe after it are read right or
    not at all."""
    outlined = load_deck(DECKS.parent / "outlined-deck")
    try:
        reader = adapt(outlined, learned_model(), seed=3).reader
    except AdaptError as exc:
        assert re.match(r"the shoe would misread this deck: \d+ of its frames read a "
                        r"spade as a club \([A2-9TJQK]S as [A2-9TJQK]C \(\d\)", str(exc)), exc
        return
    spades_and_clubs = [r + s for r in "A23456789TJQK" for s in "SC"]
    cam = ShoeCamera(outlined, seed=4, fps=30.0)
    got = [r.card for r in CardSource(reader).reads(f.image for f in cam.deal(spades_and_clubs))]
    assert len(got) == len(spades_and_clubs)
    assert all(g in (None, t) for g, t in zip(got, spades_and_clubs, strict=True))


def test_a_deck_is_refused_for_one_confusion_repeated_not_for_scattered_misreads() -> None:
    """The shoe's frames misread apart are passed (the deck's reader never
    guesses, and one frame wrong in a deal is outvoted); the same suit (or
    rank) read as another in SHOE_CONFUSIONS frames refuses the deck,
    naming the confusion and its cards, the most misread first."""
    scattered = {"KS": Counter({"KC": 1}), "2H": Counter({"2D": 1}), "9D": Counter({"TD": 1}),
                 "QC": Counter({"QS": 1})}
    shoe_misreads(scattered)
    spades = {"KS": Counter({"KC": SHOE_CONFUSIONS - 1}), "2S": Counter({"2C": 1}),
              "9D": Counter({"TD": 1})}
    with pytest.raises(AdaptError, match=rf"misread this deck: {SHOE_CONFUSIONS} of its frames "
                       r"read a spade as a club \(KS as KC \(\d\), 2S as 2C \(1\)\); "
                       r"its spades and clubs are too alike"):
        shoe_misreads(spades)
    eights = {"8H": Counter({"3H": SHOE_CONFUSIONS})}
    with pytest.raises(AdaptError, match="read an 8 as a 3"):
        shoe_misreads(eights)


def test_missing_faces_are_refused(deck: Deck) -> None:
    partial = {k: v for k, v in deck.items() if k not in ("QH", "2C")}
    with pytest.raises(AdaptError, match=r"missing cards: .*QH"):
        adapt(partial, learned_model(), seed=3)


def test_a_head_made_with_another_network_is_refused(adapted: AdaptedReader) -> None:
    other = replace(adapted.head, network="0" * 64)
    with pytest.raises(ValueError, match="calibrate again"):
        AdaptedReader(learned_model(), other)


def test_the_project_deck_written_as_faces_loads_back_as_itself(tmp_path: Path) -> None:
    """`python -m sim.camera.decks DIR`: the 52 faces a house would scan, in the
    folder layout `croupier calibrate deck --images` takes."""
    from sim.camera import decks

    assert decks.main([str(tmp_path / "faces")]) == 0
    back, drawn = decks.load_deck(tmp_path / "faces"), decks.house_deck()
    assert sorted(back) == sorted(drawn) == sorted(decks.ALL_CARDS)
    assert all(np.array_equal(back[c], drawn[c]) for c in drawn)


def test_writing_the_faces_where_no_folder_can_be_made_says_why(tmp_path: Path) -> None:
    from sim.camera import decks

    (tmp_path / "a-file").write_text("")
    with pytest.raises(SystemExit, match=r"cannot make .*a-file/faces: Not a directory"):
        decks.main([str(tmp_path / "a-file" / "faces")])
