"""The compiled loops of the shoe's search (drivers.vision.kernels) against
their numpy twins: the same values to the bit, loop by loop on random inputs
and on real frames of the three decks, and the same reads, pose for pose and
field for field, through the whole band read of both readers. Without
numba only the twins run (the rest of the suite reads through them)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.vision import corner, glyphs, kernels
from drivers.vision.glyphs import ink_layer, percentile
from drivers.vision.learned import learned_model
from drivers.vision.shoe import ShoeGeometry, read_band, still_band
from sim.camera.decks import ALL_CARDS
from sim.camera.shoe import ShoeCamera
from tests.vision.conftest import DECK_NAMES, get_calibration, get_deck

ROOT = Path(__file__).resolve().parents[2]
GEOMETRY = ShoeGeometry()

compiled = pytest.mark.skipif(not kernels.COMPILED, reason="numba is not installed here")


@pytest.fixture
def twins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The callers' numpy twins for the test's duration."""
    monkeypatch.setattr(kernels, "COMPILED", False)
    yield


def _frames(name: str, n: int, seed: int) -> list[np.ndarray]:
    """Random perturbed frames, court cards among them twice as often, and
    a pair of cards stuck together (the band search's hardest cases)."""
    cam = ShoeCamera(get_deck(name), seed=seed)
    rng = np.random.default_rng(seed)
    courts = [c for c in ALL_CARDS if c[0] in "KQJ"]
    codes = [ALL_CARDS[int(i)] for i in rng.integers(0, 52, n)]
    codes += [courts[int(i)] for i in rng.integers(0, len(courts), n // 2)]
    return [cam.still(c) for c in codes] + [f.image for f in cam.stuck_pair("KS", "5H")][::4]


# --- loop by loop, on random inputs -------------------------------------------

@compiled
@settings(max_examples=200, deadline=None)
@given(h=st.integers(1, 70), w=st.integers(1, 70), q=st.floats(0.0, 100.0),
       low=st.integers(0, 255), span=st.integers(0, 255), seed=st.integers(0, 2**32 - 1))
def test_an_order_statistic_of_bytes_is_numpys(h: int, w: int, q: float, low: int, span: int,
                                               seed: int) -> None:
    values = np.random.default_rng(seed).integers(
        low, min(255, low + span) + 1, (h, w)).astype(np.uint8)
    for arr in (values, values[::2, ::3], values.reshape(-1)):
        assert percentile(arr, q) == np.percentile(arr, q)


@compiled
@settings(max_examples=300, deadline=None)
@given(h=st.integers(1, 40), w=st.integers(1, 40), q=st.floats(0.0, 100.0),
       levels=st.integers(1, 60), zeros=st.floats(0.0, 1.0), seed=st.integers(0, 2**32 - 1))
def test_an_order_statistic_of_floats_is_numpys(h: int, w: int, q: float, levels: int,
                                                zeros: float, seed: int) -> None:
    """Few values or many equal ones (a clipped glyph's ink: zeros and
    ones), in a block or strided."""
    rng = np.random.default_rng(seed)
    values = (np.round(rng.random((h, w)) * levels) / levels).astype(np.float32)
    values[rng.random((h, w)) < zeros] = 0.0
    for arr in (values, values[::2, ::3], values.reshape(-1)):
        assert percentile(arr, q) == np.percentile(arr, q)


@compiled
@settings(max_examples=200, deadline=None)
@given(h=st.integers(1, 60), w=st.integers(1, 60), density=st.floats(0.0, 1.0),
       connectivity=st.sampled_from([4, 8]), seed=st.integers(0, 2**32 - 1))
def test_label_statistics_are_the_twins_and_opencvs(h: int, w: int, density: float,
                                                    connectivity: int, seed: int) -> None:
    mask = ((np.random.default_rng(seed).random((h, w)) < density) * 255).astype(np.uint8)
    n, labels, want, _ = cv2.connectedComponentsWithStats(mask, connectivity=connectivity)
    labels = np.asarray(labels, np.int32)
    got = kernels.label_stats(labels, int(n))
    np.testing.assert_array_equal(got, glyphs._label_stats(labels))
    np.testing.assert_array_equal(got[1:], want[1:])


@compiled
@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, 300), scale=st.floats(1e-3, 1e4), seed=st.integers(0, 2**32 - 1))
def test_sums_are_numpys_to_the_bit(n: int, scale: float, seed: int) -> None:
    a = np.random.default_rng(seed).normal(size=n) * scale
    assert kernels._pairwise_sum(a) == a.sum()
    b = a.astype(np.float32)
    assert kernels._pairwise_sum(b) == np.add.reduce(b)


@compiled
@settings(max_examples=300, deadline=None)
@given(n=st.integers(0, 220), slope=st.floats(-0.3, 0.3), outliers=st.floats(0.0, 0.6),
       seed=st.integers(0, 2**32 - 1))
def test_a_robust_line_is_the_twins(n: int, slope: float, outliers: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    t = np.sort(rng.choice(np.arange(600.0), size=n, replace=False))
    s = slope * t + 40.0 + rng.normal(size=n) * 0.4
    off = rng.random(n) < outliers
    s[off] += rng.normal(size=int(off.sum())) * 15.0
    ok, a, b = kernels.fit_line(t, s)
    want = corner._fit_line(t, s)
    assert (want is None) == (not ok)
    if want is not None:
        assert (a, b) == want


# --- on real frames ------------------------------------------------------------

@compiled
@pytest.mark.parametrize("name", DECK_NAMES)
def test_the_band_search_is_the_twins_on_real_frames(name: str) -> None:
    """The card's edges, the order statistics, the ink layer and the index
    places of each frame's band, compiled and not."""
    compared = 0
    for frame in _frames(name, 24, seed=31):
        _, gray, ramp = still_band(frame, GEOMETRY)
        got = (corner.shoe_corners(gray, GEOMETRY.scale, ramp), percentile(gray[::4, ::4], 10))
        layer = ink_layer(gray, GEOMETRY.rank_height)
        places = glyphs._index_places_compiled(layer, GEOMETRY.rank_height, 4)
        kernels.COMPILED = False
        try:
            want = (corner.shoe_corners(gray, GEOMETRY.scale, ramp),
                    percentile(gray[::4, ::4], 10))
            plain = ink_layer(gray, GEOMETRY.rank_height)
            want_places = glyphs._index_places_numpy(plain, GEOMETRY.rank_height, 4)
        finally:
            kernels.COMPILED = True
        assert got == want
        np.testing.assert_array_equal(layer.stats, plain.stats)
        assert places == want_places
        compared += len(places)
    assert compared > 24  # (the places were found: the comparison compared something)


@compiled
@pytest.mark.parametrize("name", DECK_NAMES)
def test_both_readers_read_every_band_as_the_twins_do(name: str) -> None:
    """Every corner placed and every read (card, confidence, probabilities),
    calibrated and uncalibrated, the same to the bit."""
    readers = (get_calibration(name).model(), learned_model())
    reads = 0
    for frame in _frames(name, 16, seed=47):
        band, gray, ramp = still_band(frame, GEOMETRY)
        for model in readers:
            got = read_band(band, model, GEOMETRY, ramp, gray)
            kernels.COMPILED = False
            try:
                want = read_band(band, model, GEOMETRY, ramp, gray)
            finally:
                kernels.COMPILED = True
            assert got == want
            reads += sum(r.card is not None for _, r in got)
    assert reads > 16


def test_the_twins_read_where_nothing_is_compiled(twins: None) -> None:
    """With the loops off, the readers still find and read a card (the
    path of a machine without numba)."""
    frame = ShoeCamera(get_deck("house"), seed=3).still("QH", clean=True)
    band, gray, ramp = still_band(frame, GEOMETRY)
    reads = read_band(band, learned_model(), GEOMETRY, ramp, gray)
    assert [r.card for _, r in reads] == ["QH"]


def _python(code: str, **env: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True, env={**os.environ, **env})
    return out.stdout.strip()


def test_the_command_line_does_not_load_the_compiler() -> None:
    """Every croupier command imports the readers; only reading frames
    compiles or loads the loops."""
    assert _python("import sys, controller.cli.vision, drivers.vision.shoe; "
                   "print('numba' in sys.modules)") == "False"


def test_croupier_no_jit_turns_the_loops_off() -> None:
    assert _python("from drivers.vision import kernels; print(kernels.COMPILED)",
                   CROUPIER_NO_JIT="1") == "False"


@compiled
def test_every_loop_is_compiled_once_warm() -> None:
    """No loop is left to run as Python (a thousand times slower)."""
    import numba

    kernels.warm()
    plain = [name for name in kernels._LOOPS
             if not isinstance(getattr(kernels, name), numba.core.registry.CPUDispatcher)]
    assert plain == []


@compiled
def test_a_loop_refuses_the_wrong_types_instead_of_compiling_again() -> None:
    with pytest.raises(TypeError):
        kernels.label_stats(np.zeros((3, 3), np.int64), 1)
