"""The ink of a band: its test as a table of bounds (the float test's own
results, pair by pair), and its connected components, labelled by OpenCV
and measured by drivers.vision.glyphs.components (the same labels and
statistics of the components as cv2.connectedComponentsWithStats, on every
kind of mask; the paper's row is left zero)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.vision import glyphs
from drivers.vision.glyphs import components


def _same_as_opencv(mask: np.ndarray, connectivity: int) -> None:
    _, want_labels, want_stats, _ = cv2.connectedComponentsWithStats(
        mask, connectivity=connectivity)
    labels, stats = components(mask, connectivity)
    assert labels.dtype == np.int32 and stats.dtype == np.int32
    np.testing.assert_array_equal(labels, want_labels)
    np.testing.assert_array_equal(stats[1:], want_stats[1:])
    assert not stats[0].any()  # the paper: nothing reads it


@settings(max_examples=200, deadline=None)
@given(
    h=st.integers(1, 60), w=st.integers(1, 60), density=st.floats(0.0, 1.0),
    blur=st.sampled_from([0.0, 1.0, 2.5]), connectivity=st.sampled_from([4, 8]),
    seed=st.integers(0, 2**32 - 1),
)
def test_components_are_opencvs(h: int, w: int, density: float, blur: float,
                                connectivity: int, seed: int) -> None:
    noise = np.random.default_rng(seed).random((h, w)).astype(np.float32)
    if blur and min(h, w) > 1:
        noise = cv2.GaussianBlur(noise, (0, 0), blur)
        noise = (noise - noise.min()) / max(float(np.ptp(noise)), 1e-6)
    _same_as_opencv((noise < density).astype(np.uint8), connectivity)


@settings(max_examples=300, deadline=None)
@given(
    h=st.integers(1, 130), w=st.integers(1, 130), density=st.floats(0.0, 1.0),
    blur=st.sampled_from([0.0, 1.0, 2.5]), connectivity=st.sampled_from([4, 8]),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_algorithm_used_labels_as_opencvs_default(
        h: int, w: int, density: float, blur: float, connectivity: int, seed: int) -> None:
    # The readers label with glyphs.CCL for speed; their loops visit components
    # in label order, so the labels must be the default's, numbered alike.
    noise = np.random.default_rng(seed).random((h, w)).astype(np.float32)
    if blur and min(h, w) > 1:
        noise = cv2.GaussianBlur(noise, (0, 0), blur)
    mask = (noise < np.quantile(noise, density)).astype(np.uint8)
    want = cv2.connectedComponentsWithStats(mask, connectivity=connectivity)
    got = cv2.connectedComponentsWithStatsWithAlgorithm(mask, connectivity, cv2.CV_32S,
                                                        glyphs.CCL)
    assert got[0] == want[0]
    for a, b in zip(got[1:], want[1:], strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("fill", [0, 1])
@pytest.mark.parametrize("connectivity", [4, 8])
def test_an_empty_and_a_full_mask(fill: int, connectivity: int) -> None:
    _same_as_opencv(np.full((480, 102), fill, np.uint8), connectivity)


def test_more_components_than_sixteen_bit_labels() -> None:
    # A checkerboard, 4-connected: every inked pixel its own component.
    yy, xx = np.mgrid[:400, :400]
    mask = ((yy + xx) % 2).astype(np.uint8)
    _same_as_opencv(mask, 4)


def test_a_band_of_the_shoe_camera() -> None:
    # The size the shoe's band is labelled at: 480 x 102, sparse glyphs.
    rng = np.random.default_rng(7)
    mask = np.zeros((480, 102), np.uint8)
    for _ in range(40):
        x, y = int(rng.integers(0, 95)), int(rng.integers(0, 470))
        mask[y : y + int(rng.integers(1, 12)), x : x + int(rng.integers(1, 8))] = 1
    _same_as_opencv(mask, 4)


def test_the_ink_table_is_the_float_test() -> None:
    # Every pair of 8-bit paper and ink levels: ink by the table's bound
    # exactly when ink by the float32 test the strength is measured with.
    paper = np.arange(256, dtype=np.float32)[:, None]
    g = np.arange(256, dtype=np.float32)[None, :]
    want = ((g < paper * glyphs.INK_RATIO) & (paper - g > glyphs.INK_MIN_CONTRAST)
            & (paper > glyphs.PAPER_MIN))
    got = np.arange(256)[None, :] < glyphs._INK_BELOW.astype(np.int64)[:, None]
    np.testing.assert_array_equal(got, want)
    assert want.any() and not want.all()
