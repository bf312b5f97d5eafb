"""The numpy network of the generic reader's suit (drivers.camera.convnet):
the same arithmetic as the framework it was trained in, checked here
against a plain loop (the framework is a build-time tool, not installed
where the tests run)."""

from __future__ import annotations

import numpy as np
import pytest

from drivers.camera.convnet import ConvNet, conv3x3_relu, fused, max_pool2
from drivers.camera.generic import generic_model


def _conv_loop(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """Cross-correlation as a training framework computes it: weight
    (C_out, C_in, 3, 3), zero padding of one."""
    h, w, _ = x.shape
    p = np.pad(x, ((1, 1), (1, 1), (0, 0)))
    out = np.zeros((h, w, weight.shape[0]), np.float64)
    for k in range(weight.shape[0]):
        for i in range(h):
            for j in range(w):
                out[i, j, k] = np.sum(p[i : i + 3, j : j + 3, :].transpose(2, 0, 1)
                                      * weight[k]) + bias[k]
    return np.maximum(out, 0.0)


def test_convolution_is_the_frameworks_cross_correlation() -> None:
    rng = np.random.default_rng(0)
    x = rng.random((7, 5, 3)).astype(np.float32)
    weight = rng.normal(size=(4, 3, 3, 3)).astype(np.float32)
    bias = rng.normal(size=4).astype(np.float32)
    # The model file keeps (C_in * 9, C_out): the framework's weight flattened.
    got = conv3x3_relu(x, weight.reshape(4, -1).T.copy(), bias)
    assert np.allclose(got, _conv_loop(x, weight, bias), atol=1e-5)


def test_max_pool_halves_and_drops_an_odd_edge() -> None:
    x = np.arange(5 * 4 * 2, dtype=np.float32).reshape(5, 4, 2)
    got = max_pool2(x)
    assert got.shape == (2, 2, 2)
    assert got[1, 1, 0] == x[2:4, 2:4, 0].max()


@pytest.mark.parametrize("shape", [(7, 5, 3), (24, 24, 16), (12, 13, 32), (6, 6, 1)])
def test_max_pool_takes_each_two_by_two_block_maximum(shape: tuple[int, int, int]) -> None:
    x = np.random.default_rng(sum(shape)).normal(size=shape).astype(np.float32)
    got = max_pool2(x)
    h, w, c = shape
    assert got.shape == (h // 2, w // 2, c)
    for i in range(h // 2):
        for j in range(w // 2):
            assert (got[i, j] == x[2 * i : 2 * i + 2, 2 * j : 2 * j + 2].max(axis=(0, 1))).all()


def test_the_shipped_model_has_its_suit_networks_and_they_round_trip() -> None:
    nets = generic_model().suit_nets
    assert len(nets) >= 1
    net = nets[0]
    image = np.random.default_rng(1).random((24, 24)).astype(np.float32)
    e = net.embed(image, 0.1)
    assert e.shape == (net.size,) and np.isfinite(e).all()
    again = ConvNet.from_arrays(net.arrays("n"), "n")
    assert again is not None and np.array_equal(again.embed(image, 0.1), e)


def test_the_fused_networks_embed_as_the_networks_side_by_side() -> None:
    nets = generic_model().suit_nets
    assert len(nets) >= 2
    one = fused(nets)
    rng = np.random.default_rng(2)
    for _ in range(20):
        image = rng.random((24, 24)).astype(np.float32)
        aspect = float(rng.normal())
        apart = np.concatenate([n.embed(image, aspect) for n in nets])
        assert np.allclose(one.embed(image, aspect), apart, rtol=1e-5, atol=1e-5)
