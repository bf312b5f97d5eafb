"""What the learned reader learns from real photos: labels read right, the
split by card, and a corner labelled only where its index matches a box."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from calibration.photo_samples import NOT_AN_INDEX, _label, code, learnt, main
from drivers.vision.learned import RANKS, SUITS


def test_labels_are_the_projects_codes_and_jokers_are_no_card() -> None:
    assert code("10C") == "TC" and code("QH") == "QH"
    # A class name of two words is one class, not two (classes.txt: one a line).
    assert code("BLACK JOKER") is None and code("RED JOKER") is None and code("BACK") is None


def test_half_the_cards_are_learnt_every_rank_in_two_suits() -> None:
    cards = [r + s for r in RANKS for s in SUITS]
    chosen = [c for c in cards if learnt(c)]
    assert len(chosen) == 26
    assert Counter(c[0] for c in chosen) == dict.fromkeys(RANKS, 2)


def test_a_corner_is_labelled_by_the_box_its_index_matches() -> None:
    boxes = [((100.0, 100.0, 136.0, 180.0), "7H"), ((400.0, 400.0, 436.0, 480.0), None)]
    region = [(100.0, 100.0), (180.0, 200.0)]
    # The index placed where the box is: the box's card.
    assert _label(region, [(100, 100), (136, 100), (100, 180), (136, 180)], boxes) == (
        RANKS.index("7"), SUITS.index("H"))
    # Placed at another scale over the same box: unsure, no label at all.
    assert _label(region, [(100, 100), (200, 100), (100, 300), (200, 300)], boxes) is None
    # Far from every box: no index.
    far = [(250.0, 250.0), (300.0, 300.0)]
    assert _label(far, [(250, 250), (286, 250), (250, 330), (286, 330)], boxes) == (
        NOT_AN_INDEX, -1)
    # A box of a back or a joker: no label.
    assert _label([(400.0, 400.0)], [(400, 400), (436, 400), (400, 480), (436, 480)],
                  boxes) is None


def test_a_folder_without_labelled_photos_is_named(tmp_path: Path) -> None:
    """Run from a checkout with no ../shared beside it, the photos' views
    are refused with the folder looked in, not a traceback."""
    with pytest.raises(SystemExit) as refused:
        main(["--check", str(tmp_path / "net.onnx"), "--out", str(tmp_path / "v.npz"),
              "--photos", str(tmp_path / "nowhere")])
    assert str(refused.value) == (f"no labelled photos in {tmp_path / 'nowhere'} (its "
                                  "labels.csv): give the folder with --photos")
    assert not (tmp_path / "v.npz").exists()
