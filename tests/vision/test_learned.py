"""The learned reader: its model file, what it refuses, and real photos read
end to end by `croupier vision read`."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from drivers.vision.corner import CornerPose, corner_patch
from drivers.vision.frame import read_frame, size_range
from drivers.vision.learned import (
    CORNER_WIDTH,
    MODEL_PATH,
    NET_H,
    NET_W,
    PATCH_H,
    PATCH_W,
    LearnedThresholds,
    ModelError,
    learned_model,
    load,
    net_input,
    normalise,
    shrink,
)
from sim.camera.decks import card_back, house_deck, load_deck
from sim.camera.table import cascade

DATA = Path(__file__).resolve().parent.parent / "data"
PHOTOS = DATA / "photos"


def test_the_shipped_model_is_small_and_says_what_it_is() -> None:
    assert MODEL_PATH.stat().st_size < 2_000_000
    info = json.loads(MODEL_PATH.with_suffix(".json").read_text())
    assert info["format"] == "croupier-corner-net" and info["version"] == 2
    for kind in ("thresholds", "frame_thresholds"):
        assert 0.5 <= info[kind]["rank"] < 1.0
        assert 0.5 <= info[kind]["suit"] < 1.0
    # Set out of fold (bench.vision_oof --tune --ship), not by hand.
    assert info["thresholds_set_by"].startswith("bench.vision_oof --tune")
    # Every network in it (two trained apart, merged: calibration.corner_ensemble)
    # learnt from every design.
    assert not info["left_out"]
    for member in info.get("members", [info]):
        assert not member["left_out"] and len(member["designs"]) >= 20


def test_a_broken_model_file_is_refused_with_its_name(tmp_path: Path) -> None:
    bad = tmp_path / "net.onnx"
    bad.write_bytes(b"not a network")
    with pytest.raises(ModelError, match=r"net\.onnx"):
        load(bad)
    shutil.copy(MODEL_PATH, bad)
    info = json.loads(MODEL_PATH.with_suffix(".json").read_text())
    bad.with_suffix(".json").write_text(json.dumps({**info, "version": 0}))
    with pytest.raises(ModelError, match="version 2"):
        load(bad)


def test_the_input_is_the_patch_at_half_size_zero_mean_unit_spread() -> None:
    rng = np.random.default_rng(3)
    patch = rng.integers(0, 256, (PATCH_H, PATCH_W, 3), dtype=np.uint8)
    x = net_input(patch)
    assert x.shape == (1, 3, NET_H, NET_W)
    assert abs(float(x.mean())) < 1e-4 and float(x.std()) == pytest.approx(1.0, abs=1e-3)
    # A blank patch stays blank: its spread is not blown up into noise.
    flat = normalise(shrink(np.full((PATCH_H, PATCH_W, 3), 200, np.uint8)))
    assert float(np.abs(flat).max()) == 0.0


def _patch(face: np.ndarray, dx: float = 0.0, dy: float = 0.0) -> np.ndarray:
    """A corner patch of a face laid on felt, its corner at (dx, dy)."""
    frame = np.full((480, 640, 3), (60, 105, 35), np.uint8)
    fh, fw = face.shape[:2]
    scale = 160 / fw
    small = cv2.resize(face, (160, round(fh * scale)), interpolation=cv2.INTER_AREA)
    alpha = small[:, :, 3:4] / 255.0
    roi = frame[100 : 100 + small.shape[0], 200:360]
    roi[:] = (small[:, :, :3] * alpha + roi * (1 - alpha)).astype(np.uint8)
    s = 160 / 200
    pose = CornerPose((200 + dx * s, 100 + dy * s), (s, 0.0), (0.0, s))
    return corner_patch(frame, pose, CORNER_WIDTH)


def test_reads_an_index_corner_and_refuses_what_is_no_index() -> None:
    reader = learned_model()
    deck = house_deck()
    assert reader.read_corner(_patch(deck["7H"])).card == "7H"
    # A card's back, the middle of a face and a card on its side: no index.
    assert reader.read_corner(_patch(card_back())).card is None
    assert reader.read_corner(_patch(deck["7H"], 70, 120)).card is None
    turned = np.ascontiguousarray(np.rot90(deck["QS"]))
    assert reader.read_corner(_patch(turned)).card is None


def test_a_read_below_its_thresholds_is_none() -> None:
    reader = load()
    patch = _patch(house_deck()["7H"])
    sure = reader.read_corner(patch)
    reader.thresholds = LearnedThresholds(rank=1.01, suit=0.0)
    unsure = reader.read_corner(patch)
    assert sure.card == "7H" and unsure.card is None and unsure.best == "7H"


def test_cascaded_hands_are_read_card_by_card() -> None:
    """13 cards in 5 hands, each lower card showing only its index corner:
    the cards on top by their whole outline, the lowest by the corner on
    the hand's outline, those between by their edges or the hidden corner
    a width along their top side; nothing read that is not there. (9 of
    13 read with the shipped thresholds: 3S, 6S, 8C and 9H refused;
    bench.vision_oof measures many more.)"""
    deck = load_deck(DATA / "decks" / "npm-cardsjs")
    hands = [["AS", "5H", "KD"], ["2C", "TD", "QS"], ["9H", "3S"], ["JC", "7D", "4H"],
             ["6S", "8C"]]
    scene = cascade(deck, hands, seed=3)
    got = [c.card for c in read_frame(scene.image, learned_model(),
                                      size_range(scene.image.shape[:2]))]
    dealt = {c for hand in hands for c in hand}
    read = {c for c in got if c is not None}
    assert read <= dealt
    assert len(read) >= 8, sorted(dealt - read)


def _photo_labels() -> dict[str, set[str]]:
    with (PHOTOS / "labels.csv").open(newline="") as f:
        return {row["file"]: {("T" + c[2:]) if c.startswith("10") else c
                              for c in row["cards_present"].split()}
                for row in csv.DictReader(f)}


def test_real_photos_read_end_to_end_with_no_misread() -> None:
    """Photos of a deck and a camera the reader never learnt from, through
    `croupier vision read`: no card read that is not in the photo."""
    labels = _photo_labels()
    out = subprocess.run(
        [sys.executable, "-m", "controller", "vision", "read",
         *(str(PHOTOS / name) for name in sorted(labels))],
        capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    read: dict[str, set[str]] = {}
    for line in out.stdout.splitlines():
        path, card, conf, x, y = line.split("\t")
        # (a card the photo's edge cuts may have its centre outside it)
        assert 0.0 <= float(conf) <= 1.0 and abs(float(x)) < 2000 and abs(float(y)) < 2000
        if card != "none":
            read.setdefault(Path(path).name, set()).add(card)
    wrong = {name: cards - labels[name] for name, cards in read.items() if cards - labels[name]}
    assert not wrong
    right = sum(len(cards & labels[name]) for name, cards in read.items())
    total = sum(len(cards) for cards in labels.values())
    # 40 of 67 (60 %) when this model shipped (docs/vision.md), less a margin.
    assert right >= FLOOR * total, f"{right} of {total}"


FLOOR = 0.55
