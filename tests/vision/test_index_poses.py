"""Index corners placed from their own ink (drivers.vision.index_poses): a
card on a white table, filling the view, or seen in a mirror."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from drivers.vision.corner import CARD_W
from drivers.vision.frame import read_frame, size_range
from drivers.vision.index_poses import INK_RANK_LEFT, INK_RANK_TOP, index_poses
from drivers.vision.learned import learned_model
from sim.camera.decks import house_deck

Image = np.ndarray


def _on_white(face: Image, width: int, angle: float, mirror: bool,
              shape: tuple[int, int] = (640, 640)) -> tuple[Image, np.ndarray]:
    """A face laid on a white table (no outline a mask finds: white on
    white), turned `angle` degrees about the frame's centre; mirrored when
    `mirror` (a camera that mirrors). Returns the frame and the 2x3 map from
    face pixels to the frame."""
    fh, fw = face.shape[:2]
    s = width / fw
    h, w = shape
    m = cv2.getRotationMatrix2D((fw / 2, fh / 2), angle, s)
    m[:, 2] += (w / 2 - fw / 2, h / 2 - fh / 2)
    if mirror:
        m = np.array([[-1.0, 0.0, w], [0.0, 1.0, 0.0]]) @ np.vstack([m, [0, 0, 1]])
    frame = np.full((h, w, 3), 236, np.float32)
    bgr = cv2.warpAffine(face[:, :, :3], m, (w, h), flags=cv2.INTER_AREA).astype(np.float32)
    alpha = cv2.warpAffine(face[:, :, 3], m, (w, h), flags=cv2.INTER_AREA)[:, :, None] / 255.0
    frame = frame * (1 - alpha) + bgr * alpha
    return np.clip(frame, 0, 255).astype(np.uint8), m


@pytest.mark.parametrize("angle, mirror", [(0.0, False), (35.0, False), (-120.0, True)])
def test_an_index_is_posed_from_its_rank_and_suit(angle: float, mirror: bool) -> None:
    """A pose lands the rank where the canonical corner has it, within a
    few canonical pixels, at any turn, mirrored or not: its scale from the
    rank's height, its turn from the line down to the suit."""
    face = house_deck()["7C"]
    width = 380
    frame, m = _on_white(face, width, angle, mirror)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    s = face.shape[1] / CARD_W  # face pixels per canonical pixel
    # Where the face's rank lies, in the frame: found on the face itself.
    ink = cv2.cvtColor(face[: int(70 * s), : int(56 * s), :3], cv2.COLOR_BGR2GRAY) < 150
    ink &= face[: int(70 * s), : int(56 * s), 3] > 128
    rows = np.flatnonzero(ink.any(axis=1))
    top = rows[0]
    gap = np.flatnonzero(np.diff(rows) > 2)
    bottom = rows[gap[0]] if gap.size else rows[-1]
    cols = np.flatnonzero(ink[top : bottom + 1].any(axis=0))
    # (mirrored, the rank's left side is on its right in the frame: the
    # pose un-mirrors it)
    want = m @ np.array([cols[0], top, 1.0])
    poses = [p for _, p in index_poses(gray, size_range(gray.shape))]
    assert poses
    near = [p for p in poses if np.hypot(*(np.array(p.to_image(INK_RANK_LEFT, INK_RANK_TOP))
                                          - want)) < 6 * width / CARD_W]
    assert near, "no pose near the rank"
    # Mirrored poses turn the other way: u x v < 0 with y down.
    assert any((p.u[0] * p.v[1] - p.u[1] * p.v[0] < 0) == mirror for p in near)


@pytest.mark.parametrize("code, angle, mirror", [
    ("7C", 20.0, False), ("QH", -15.0, True),
    # The network of 6 December takes every pose of this card for no index
    # (docs/vision.md, "Where the learned reader stands"): a known loss.
    pytest.param("4S", 160.0, True, marks=pytest.mark.xfail(
        strict=True, reason="the shipped network reads no pose of it as an index"))])
def test_a_card_on_white_filling_the_view_is_read(code: str, angle: float, mirror: bool) -> None:
    """No outline: the card is white on white and fills most of the view.
    Frame mode reads it by its index alone, mirrored or not, and reads no
    other card."""
    frame, _ = _on_white(house_deck()[code], 420, angle, mirror)
    got = {c.card for c in read_frame(frame, learned_model(), size_range(frame.shape))
           if c.card is not None}
    assert got == {code}


def test_a_blank_table_proposes_nothing() -> None:
    rng = np.random.default_rng(5)
    table = np.clip(rng.normal(236, 3, (480, 640)), 0, 255).astype(np.uint8)
    assert index_poses(table, size_range(table.shape)) == []
