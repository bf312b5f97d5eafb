"""A small convolutional network, run in numpy: learnt glyph features.

The generic reader's suit was read from hand-made features (ink stretched
to 12x12, gradient histograms); a spade and a club, blurred at 10-14 px,
differ there by a few pixels of stem and lobe. This network, trained at
build time on the fonts' glyphs (calibration.convnet_train, PyTorch), maps
a normalised glyph image to an embedding in which the classes lie apart;
the reader's linear discriminant then reads that embedding beside the
hand-made features, so the log-likelihood ratios, the distance to the class
and the thresholds set out of fold stay as they were.

Three 3x3 convolutions (zero padded, ReLU, 2x2 max pooling), then one dense
layer with ReLU over the flattened maps and the glyph's log aspect ratio.
Only the weights ship (package data, numpy arrays); no deep-learning
library is needed to read a card.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]


def conv3x3_relu(x: F32, weight: F32, bias: F32) -> F32:
    """3x3 convolution with zero padding of one, then ReLU. x: (H, W, C);
    weight: (C * 9, K), rows in (channel, row, column) order; bias: (K,)."""
    return _conv(x, _offset_major(weight), bias)


def _offset_major(weight: F32) -> F32:
    """Weight rows from (channel, row, column) order, the model file's, to
    (row, column, channel), the order `_im2col` lays the inputs out in."""
    k = weight.shape[1]
    out: F32 = np.ascontiguousarray(
        weight.reshape(-1, 9, k).transpose(1, 0, 2).reshape(-1, k), np.float32)
    return out


def _im2col(x: F32) -> F32:
    """(H * W, 9 * C): each pixel's 3x3 neighbourhood (zero padded), rows of
    (row, column, channel). numpy's padding and window helpers cost more
    than the arithmetic at these sizes: the neighbourhoods are a strided
    view of the padded maps, copied once; a single channel's rows of nine
    are copied faster as nine slices side by side."""
    h, w, c = x.shape
    padded = np.zeros((h + 2, w + 2, c), np.float32)
    padded[1:-1, 1:-1] = x
    if c == 1:
        cols = np.concatenate(
            [padded[dy : dy + h, dx : dx + w] for dy in range(3) for dx in range(3)], axis=2)
    else:
        s0, s1, s2 = padded.strides
        cols = np.ndarray((h, w, 3, 3, c), np.float32, padded, 0, (s0, s1, s0, s1, s2))
    out: F32 = cols.reshape(h * w, 9 * c)
    return out


def _conv(x: F32, weight: F32, bias: F32) -> F32:
    """conv3x3_relu with the weight already in `_im2col`'s row order."""
    h, w, _ = x.shape
    y = _im2col(x) @ weight
    y += bias
    np.maximum(y, 0.0, out=y)
    out: F32 = y.reshape(h, w, -1)
    return out


def max_pool2(x: F32) -> F32:
    """2x2 max pooling (an odd last row or column is dropped). Two
    maxima of strided slices: a reduction over two axes of a reshaped map
    costs three times as much on the first layer's maps."""
    h, w, _ = x.shape
    rows = np.maximum(x[0 : h // 2 * 2 : 2], x[1 : h // 2 * 2 : 2])
    out: F32 = np.maximum(rows[:, 0 : w // 2 * 2 : 2], rows[:, 1 : w // 2 * 2 : 2])
    return out


@dataclass(frozen=True)
class ConvNet:
    """Weights of the network (see the module doc). `convs`: (weight, bias)
    per convolution, weight (C_in * 9, C_out); `dense`: weight (features + 1,
    E) and bias (E,), the last input being the log aspect ratio."""

    convs: tuple[tuple[F32, F32], ...]
    dense: tuple[F32, F32]

    @property
    def size(self) -> int:
        return int(self.dense[1].shape[0])

    @functools.cached_property
    def _kernels(self) -> tuple[tuple[F32, F32], ...]:
        return tuple((_offset_major(w), b) for w, b in self.convs)

    def embed(self, image: F32, aspect: float) -> F32:
        """The embedding (E,) of one normalised glyph image (H, W), ink 0..1."""
        x = image.astype(np.float32)[:, :, None]
        for weight, bias in self._kernels:
            # (pooled before the bias and ReLU, on a quarter of the values:
            # rounding a sum is monotonic, so the largest of four sums plus
            # the bias is the largest of the four plus the bias, to the bit)
            h, w, _ = x.shape
            x = max_pool2((_im2col(x) @ weight).reshape(h, w, -1))
            x += bias
            np.maximum(x, 0.0, out=x)
        # Flattened channel by channel, as the training framework does.
        flat = np.concatenate([x.transpose(2, 0, 1).reshape(-1),
                               np.array([aspect], np.float32)])
        w, b = self.dense
        out: F32 = np.maximum(flat @ w + b, 0.0).astype(np.float32)
        return out

    def arrays(self, prefix: str) -> dict[str, F32]:
        """The weights as named arrays (for the model file)."""
        out = {f"{prefix}_conv{i}_w": w for i, (w, _) in enumerate(self.convs)}
        out |= {f"{prefix}_conv{i}_b": b for i, (_, b) in enumerate(self.convs)}
        out[f"{prefix}_dense_w"], out[f"{prefix}_dense_b"] = self.dense
        return out

    @classmethod
    def from_arrays(cls, data: Mapping[str, Any], prefix: str) -> ConvNet | None:
        """The network saved by `arrays`, or None when there is none."""
        convs: list[tuple[F32, F32]] = []
        while f"{prefix}_conv{len(convs)}_w" in data:
            i = len(convs)
            convs.append((np.asarray(data[f"{prefix}_conv{i}_w"], np.float32),
                          np.asarray(data[f"{prefix}_conv{i}_b"], np.float32)))
        if not convs:
            return None
        return cls(tuple(convs), (np.asarray(data[f"{prefix}_dense_w"], np.float32),
                                  np.asarray(data[f"{prefix}_dense_b"], np.float32)))


def fused(nets: Sequence[ConvNet]) -> ConvNet:
    """One network whose embedding is the embeddings of `nets` side by side
    (networks of one shape): the first convolutions stacked, the later layers
    block-diagonal. The same sums in half the numpy calls: at these sizes
    nearly all of a network's time is call overhead, and the 5 ms per frame
    budget needs it."""
    if len(nets) == 1:
        return nets[0]
    convs = [(np.hstack([n.convs[0][0] for n in nets]),
              np.concatenate([n.convs[0][1] for n in nets]))]
    # Rows are in channel order, each net's channels contiguous: block-diagonal.
    for i in range(1, len(nets[0].convs)):
        convs.append((_block_diagonal([n.convs[i][0] for n in nets]),
                      np.concatenate([n.convs[i][1] for n in nets])))
    # Dense: each net's flattened maps (channel by channel, its channels
    # contiguous in the fused maps) to its own outputs; the aspect (last
    # input) to all of them.
    features = _block_diagonal([n.dense[0][:-1] for n in nets])
    aspect = np.hstack([n.dense[0][-1:] for n in nets])
    dense = (np.vstack([features, aspect]).astype(np.float32),
             np.concatenate([n.dense[1] for n in nets]).astype(np.float32))
    return ConvNet(tuple((w.astype(np.float32), b.astype(np.float32)) for w, b in convs), dense)


def _block_diagonal(weights: Sequence[F32]) -> F32:
    """Several nets' weights (rows: inputs, columns: outputs) as one matrix,
    zero between them: each net's inputs feed only its own outputs."""
    out = np.zeros((sum(w.shape[0] for w in weights), sum(w.shape[1] for w in weights)),
                   np.float32)
    r = c = 0
    for w in weights:
        out[r : r + w.shape[0], c : c + w.shape[1]] = w
        r, c = r + w.shape[0], c + w.shape[1]
    return out
