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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

F32 = npt.NDArray[np.float32]


def conv3x3_relu(x: F32, weight: F32, bias: F32) -> F32:
    """3x3 convolution with zero padding of one, then ReLU. x: (H, W, C);
    weight: (C * 9, K), rows in (channel, row, column) order; bias: (K,)."""
    h, w, c = x.shape
    padded = np.pad(x, ((1, 1), (1, 1), (0, 0)))
    cols = sliding_window_view(padded, (3, 3), axis=(0, 1))  # (H, W, C, 3, 3)
    y = cols.reshape(h * w, c * 9) @ weight + bias
    out: F32 = np.maximum(y, 0.0).reshape(h, w, -1).astype(np.float32, copy=False)
    return out


def max_pool2(x: F32) -> F32:
    """2x2 max pooling (an odd last row or column is dropped)."""
    h, w, c = x.shape
    out: F32 = x[: h // 2 * 2, : w // 2 * 2].reshape(h // 2, 2, w // 2, 2, c).max(axis=(1, 3))
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

    def embed(self, image: F32, aspect: float) -> F32:
        """The embedding (E,) of one normalised glyph image (H, W), ink 0..1."""
        x = image.astype(np.float32)[:, :, None]
        for weight, bias in self.convs:
            x = max_pool2(conv3x3_relu(x, weight, bias))
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
