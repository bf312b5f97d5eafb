"""The CLI contract: `croupier vision read` and `croupier calibrate deck /
camera`, run through argparse exactly as the console script does (only our
subcommands are registered: the others live on other branches)."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import calibrate, vision
from drivers.vision.vision_file import load, save
from sim.camera.device import FakeShoeDevice
from sim.camera.table import LIGHT_TABLE, scene
from tests.vision.conftest import DECKS, get_calibration, get_deck


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="croupier")
    sub = parser.add_subparsers(dest="command")
    vision.register(sub)
    calibrate.register(sub)
    args = parser.parse_args(argv)
    status: int = args.handler(args)
    return status


def _lines(out: str) -> list[list[str]]:
    return [line.split("\t") for line in out.strip().splitlines() if line]


def test_vision_read_finds_and_reads_every_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cal = tmp_path / "cardsjs.npz"
    save(get_calibration("npm-cardsjs"), cal)
    deck = get_deck("npm-cardsjs")
    images, truths = [], []
    for seed, cards in enumerate([["AS", "TD", "QH"], ["7C", "2H"], ["KS", "9D", "4C"]]):
        s = scene(deck, cards, seed=seed, felt=LIGHT_TABLE if seed == 1 else (60, 105, 35))
        path = tmp_path / f"table{seed}.png"
        cv2.imwrite(str(path), s.image)
        images.append(str(path))
        truths.append(s.cards)
    assert run(["vision", "read", "--calibration", str(cal), *images]) == 0
    rows = _lines(capsys.readouterr().out)
    read = 0
    for path, placed in zip(images, truths, strict=True):
        mine = [r for r in rows if r[0] == path]
        assert len(mine) == len(placed)
        for p in placed:
            near = [
                r
                for r in mine
                if np.hypot(float(r[3]) - p.centre[0], float(r[4]) - p.centre[1]) < 12
            ]
            assert len(near) == 1
            assert near[0][1] in (p.card, "none")  # read right, or honestly not read
            assert 0.0 <= float(near[0][2]) <= 1.0
            read += near[0][1] == p.card
    assert read >= 6


def test_vision_read_reports_unreadable_images_and_bad_calibrations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.png"
    junk.write_text("not an image")
    black = tmp_path / "black.png"
    cv2.imwrite(str(black), np.zeros((480, 640, 3), np.uint8))
    assert run(["vision", "read", str(junk), str(black)]) == 1
    captured = capsys.readouterr()
    assert "junk.png: not a readable image" in captured.err
    assert captured.out == ""  # the black frame holds no card
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"garbage")
    assert run(["vision", "read", "--calibration", str(bad), str(black)]) == 2
    assert "not a calibration file" in capsys.readouterr().err


def test_vision_read_uncalibrated_prints_none_rather_than_a_guess(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sim.camera.decks import card_back

    deck = dict(get_deck("house"))
    deck["XX"] = card_back()
    s = scene(deck, ["XX", "8S"], seed=4)
    path = tmp_path / "back.png"
    cv2.imwrite(str(path), s.image)
    assert run(["vision", "read", str(path)]) == 0
    rows = _lines(capsys.readouterr().out)
    back = s.cards[0]
    near = [
        r for r in rows if np.hypot(float(r[3]) - back.centre[0], float(r[4]) - back.centre[1]) < 12
    ]
    assert [r[1] for r in near] == ["none"]
    assert all(r[1] in ("8S", "none") for r in rows)


def test_calibrate_deck_writes_a_file_and_refuses_a_bad_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "svg.npz"
    assert (
        run(["calibrate", "deck", "--images", str(DECKS / "npm-svg-cards"), "--out", str(out)]) == 0
    )
    assert load(out).kind == "deck"
    folder = tmp_path / "partial"
    shutil.copytree(DECKS / "npm-svg-cards", folder)
    (folder / "QD.png").unlink()
    assert (
        run(["calibrate", "deck", "--images", str(folder), "--out", str(tmp_path / "x.npz")]) == 2
    )
    assert "QD" in capsys.readouterr().err
    assert not (tmp_path / "x.npz").exists()


@pytest.fixture
def fake_camera(monkeypatch: pytest.MonkeyPatch) -> list[FakeShoeDevice]:
    made: list[FakeShoeDevice] = []

    def open_device(device: str) -> FakeShoeDevice:
        defect = None if device == "0" else device
        dev = FakeShoeDevice(get_deck("house"), seed=len(made), defect=defect)
        made.append(dev)
        return dev

    monkeypatch.setattr(calibrate, "open_device", open_device)
    return made


def test_calibrate_camera_guides_through_52_cards(
    tmp_path: Path, fake_camera: list[FakeShoeDevice], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "camera.npz"
    assert run(["calibrate", "camera", "--device", "0", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("lay ") == 52 and "52/52 KC ok" in err
    cal = load(out)
    assert cal.kind == "camera" and cal.geometry is not None
    left, right = cal.geometry.band
    assert left < 96 < right  # the mount's card edge lies in the band
    assert fake_camera[0].closed


@pytest.mark.parametrize(
    ("defect", "reason"), [("blur", "focus"), ("bright", "exposure"), ("offside", "region")]
)
def test_calibrate_camera_refuses_a_bad_setup_with_the_reason(
    tmp_path: Path,
    fake_camera: list[FakeShoeDevice],
    capsys: pytest.CaptureFixture[str],
    defect: str,
    reason: str,
) -> None:
    out = tmp_path / "camera.npz"
    assert (
        run(["calibrate", "camera", "--device", defect, "--seconds", "0.5", "--out", str(out)]) == 2
    )
    err = capsys.readouterr().err
    assert f"refused: AS: no usable picture ({reason}:" in err
    assert not out.exists()


def test_vision_read_says_why_a_card_was_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A card found and not read keeps its five columns on stdout; the reason
    goes to stderr. The back of a card has no index: nothing to read on it."""
    from sim.camera.decks import card_back

    deck = dict(get_deck("house"))
    deck["XX"] = card_back()
    s = scene(deck, ["XX"], seed=4)
    path = tmp_path / "back.png"
    cv2.imwrite(str(path), s.image)
    black = tmp_path / "black.png"
    cv2.imwrite(str(black), np.zeros((480, 640, 3), np.uint8))
    assert run(["vision", "read", str(path), str(black)]) == 0
    out, err = capsys.readouterr()
    rows = _lines(out)
    assert rows and all(len(r) == 5 and r[1] == "none" for r in rows)
    for r in rows:
        assert f"{path}: the card at {r[3]},{r[4]} was not read: " in err
    assert f"{black}: no card found" in err


def test_vision_read_reasons_in_words() -> None:
    from drivers.vision.frame import CardInFrame
    from drivers.vision.learned import CornerRead

    def corner(card: str | None, best: str, conf: float) -> CornerRead:
        return CornerRead(card, conf, best, (0.0, 0.0, 0.0), True)

    shape = (480, 340, 3)
    bare = CardInFrame(None, 0.0, (170.0, 240.0), (None, None))
    assert "a bare card face cut edge to edge" in vision.why_not_read(bare, shape, [bare])
    read = CardInFrame("QH", 0.99, (150.0, 200.0), (corner("QH", "QH", 0.99), None))
    assert "the image's own edge" in vision.why_not_read(bare, shape, [bare, read])
    off = CardInFrame(None, 0.0, (40.0, 60.0), (None, None))
    assert "no index corner found on its outline" in vision.why_not_read(off, shape, [off])
    unsure = CardInFrame(None, 0.0, (40.0, 60.0), (corner(None, "8S", 0.41), None))
    assert "looks most like 8S (confidence 0.41" in vision.why_not_read(unsure, shape, [unsure])
    split = CardInFrame(None, 0.0, (40.0, 60.0), (corner("8S", "8S", 0.9), corner("6S", "6S", 0.9)))
    assert "disagree (6S / 8S)" in vision.why_not_read(split, shape, [split])
