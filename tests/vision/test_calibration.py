"""Deck calibration: learns each deck, refuses broken ones with the reason,
and its file format refuses what it does not know."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from calibration import vision_file
from calibration.deck import calibrate_deck
from calibration.vision_file import CalibrationError, load, save
from drivers.camera.frame import corners_of, read_canonical
from tests.vision.conftest import DECKS, canonical, get_calibration, get_deck


def test_every_face_reads_back_with_its_calibration(deck_name: str) -> None:
    model = get_calibration(deck_name).model()
    cards = canonical(get_deck(deck_name))
    wrong = {}
    for code, card in cards.items():
        got, conf, _ = read_canonical(card, model)
        if got != code:
            wrong[code] = (got, round(conf, 2))
    assert wrong == {}


def test_calibration_file_round_trip(tmp_path: Path) -> None:
    cal = get_calibration("npm-cardsjs")
    path = tmp_path / "deck.npz"
    save(cal, path)
    back = load(path)
    assert back.kind == "deck" and back.deck == "npm-cardsjs"
    assert back.rank_labels == cal.rank_labels
    np.testing.assert_array_equal(back.rank_vectors, cal.rank_vectors)
    card = canonical(get_deck("npm-cardsjs"))["QH"]
    assert read_canonical(card, back.model())[0] == "QH"


def _rewrite(path: Path, **changes: object) -> None:
    with np.load(path, allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    for key, value in changes.items():
        data[key] = np.array(value)
    with path.open("wb") as fh:
        np.savez(fh, **data)


def test_unknown_format_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deck.npz"
    save(get_calibration("npm-cardsjs"), path)
    _rewrite(path, version=vision_file.VERSION + 1)
    with pytest.raises(CalibrationError,
                       match=f"format version {vision_file.VERSION + 1} is not supported"):
        load(path)
    _rewrite(path, version=1)  # the first format: glyph templates only
    with pytest.raises(CalibrationError, match=r"version 1 is not supported.*calibrate again"):
        load(path)
    # The second: its reader was trained on ink maps that read a dark strip at
    # the patch's edge as ink (drivers.camera.match.ink_maps).
    _rewrite(path, version=2)
    with pytest.raises(CalibrationError, match=r"version 2 is not supported.*calibrate again"):
        load(path)


def test_damaged_and_foreign_files_are_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.npz"
    text.write_text("not numpy")
    with pytest.raises(CalibrationError, match="not a calibration file"):
        load(text)
    with pytest.raises(CalibrationError, match="no such file"):
        load(tmp_path / "missing.npz")
    path = tmp_path / "deck.npz"
    save(get_calibration("npm-cardsjs"), path)
    meta = json.loads(str(np.load(path)["meta"]))
    meta["feature_dims"] = [1, 2]
    _rewrite(path, meta=json.dumps(meta))
    with pytest.raises(CalibrationError, match="damaged"):
        load(path)


def _deck_copy(tmp_path: Path, name: str = "npm-cardsjs") -> Path:
    folder = tmp_path / name
    shutil.copytree(DECKS / name, folder)
    return folder


def test_missing_faces_are_refused_with_their_names(tmp_path: Path) -> None:
    folder = _deck_copy(tmp_path)
    (folder / "7H.png").unlink()
    (folder / "KC.png").unlink()
    with pytest.raises(CalibrationError, match=r"2 of the 52 faces are missing \(7H KC\)"):
        calibrate_deck(folder)


def test_unreadable_face_is_refused(tmp_path: Path) -> None:
    folder = _deck_copy(tmp_path)
    (folder / "9S.png").write_bytes(b"this is not a picture")
    with pytest.raises(CalibrationError, match=r"9S\.png: not a readable image"):
        calibrate_deck(folder)


def test_faces_named_with_the_wrong_colour_are_refused(tmp_path: Path) -> None:
    folder = _deck_copy(tmp_path)
    a, b = folder / "5S.png", folder / "5H.png"
    tmp = folder / "swap.png"
    a.rename(tmp)
    b.rename(a)
    tmp.rename(b)
    with pytest.raises(CalibrationError, match="5S: the suit is red; is the image named right"):
        calibrate_deck(folder)


def test_faces_named_with_the_wrong_rank_are_refused(tmp_path: Path) -> None:
    folder = _deck_copy(tmp_path)
    for suit in "SHDC":  # every six named as a nine and back: a naming mistake
        a, b, tmp = folder / f"6{suit}.png", folder / f"9{suit}.png", folder / "swap.png"
        a.rename(tmp)
        b.rename(a)
        tmp.rename(b)
    (folder / "6S.png").unlink()
    shutil.copy(DECKS / "npm-cardsjs" / "6S.png", folder / "6S.png")
    with pytest.raises(CalibrationError, match="reads as"):
        calibrate_deck(folder)


def test_french_indices_are_learned_by_calibration() -> None:
    model = get_calibration("house-french").model()
    cards = canonical(get_deck("house-french"))
    for code in ("KS", "QH", "JD", "AC", "TC", "7D"):
        assert read_canonical(cards[code], model)[0] == code


def test_an_index_is_found_in_a_corner_of_every_face() -> None:
    """Both corners nearly always; a corner where the printer let the rank
    touch the suit (cardsjs 8H, bottom) is read from the other one."""
    from calibration.deck import index_of

    for name in ("npm-svg-cards", "npm-cardsjs", "house"):
        one_corner = []
        for code, card in canonical(get_deck(name)).items():
            found = [index_of(c) is not None for c in corners_of(card)]
            assert any(found), (name, code)
            if not all(found):
                one_corner.append(code)
        assert len(one_corner) <= 2, (name, one_corner)
