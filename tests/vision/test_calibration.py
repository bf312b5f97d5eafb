"""Deck calibration: the learned reader adapted to each deck, broken decks
refused with the reason, and a file format that refuses what it does not
know."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.deck import calibrate_deck, load_face
from drivers.vision import vision_file
from drivers.vision.vision_file import CalibrationError, load, save
from drivers.vision.whole_card import read_canonical
from sim.camera.decks import to_bgra
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
    assert back.head.discriminant.labels == cal.head.discriminant.labels
    np.testing.assert_array_equal(back.head.discriminant.weights, cal.head.discriminant.weights)
    assert (back.head.llr, back.head.frame_llr) == (cal.head.llr, cal.head.frame_llr)
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
    # Versions 1 to 3: glyph templates of the reader the learned one replaced.
    for old in (1, 2, 3):
        _rewrite(path, version=old)
        with pytest.raises(CalibrationError,
                           match=rf"version {old} is not supported.*calibrate again"):
            load(path)


def test_a_calibration_made_with_another_network_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deck.npz"
    save(get_calibration("npm-cardsjs"), path)
    meta = json.loads(str(np.load(path)["meta"]))
    meta["network"] = "0" * 64
    _rewrite(path, meta=json.dumps(meta))
    with pytest.raises(CalibrationError, match=r"another corner network.*calibrate again"):
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
    _rewrite(path, head_mean=np.zeros(7, np.float32))
    with pytest.raises(CalibrationError, match="damaged"):
        load(path)
    save(get_calibration("npm-cardsjs"), path)
    weights = np.load(path)["head_weights"].copy()
    weights[3, 5] = np.nan
    _rewrite(path, head_weights=weights)
    with pytest.raises(CalibrationError, match=r"damaged.*non-finite"):
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


def _swap(folder: Path, a: str, b: str) -> None:
    pa, pb, tmp = folder / f"{a}.png", folder / f"{b}.png", folder / "swap.png"
    pa.rename(tmp)
    pb.rename(pa)
    tmp.rename(pb)


def test_faces_named_with_the_wrong_colour_are_refused(tmp_path: Path) -> None:
    folder = _deck_copy(tmp_path)
    _swap(folder, "5S", "5H")
    with pytest.raises(CalibrationError, match=r"^5[SH]: its image shows 5[HS]; check the image"):
        calibrate_deck(folder)


def test_faces_named_with_the_wrong_rank_are_refused(tmp_path: Path) -> None:
    folder = _deck_copy(tmp_path)
    _swap(folder, "6C", "9C")
    with pytest.raises(CalibrationError, match=r"^[69]C: its image shows [96]C"):
        calibrate_deck(folder)


def test_french_indices_are_learned_by_calibration() -> None:
    model = get_calibration("house-french").model()
    cards = canonical(get_deck("house-french"))
    for code in ("KS", "QH", "JD", "AC", "TC", "7D"):
        assert read_canonical(cards[code], model)[0] == code


def test_a_deck_with_its_rank_beside_its_suit_is_accepted_and_read(tmp_path: Path) -> None:
    """Spatz's horizontal deck prints each rank with its suit beside it;
    the calibration of hand-made rules refused it ("no index (rank above
    suit)"). Here on cards 1.7 times as long as wide (some national
    decks), stretched from the artwork."""
    source = Path(__file__).resolve().parents[2] / "data" / "decks" / "saulspatz-horizontal2"
    folder = tmp_path / "long-beside"
    folder.mkdir()
    for face in source.glob("*.png"):
        img = cv2.imread(str(face), cv2.IMREAD_UNCHANGED)
        w = img.shape[1]
        cv2.imwrite(str(folder / face.name), cv2.resize(img, (w, round(1.7 * w))))
    model = calibrate_deck(folder).model()
    faces = {c: load_face(folder / f"{c}.png") for c in ("TH", "QS", "8D", "AC", "2S")}
    for code, card in canonical({c: to_bgra(f) for c, f in faces.items()}).items():
        assert read_canonical(card, model)[0] == code
