"""A linear discriminant (LDA): the classifier of the calibrated reader.

Trained (calibration.train) on many simulated camera views of the deck's own
corners, it weighs the pixels that tell two classes apart under blur, noise
and glare, instead of every pixel alike as a plain template difference does.
The decision is the log-likelihood ratio of the best class over the runner-up
under the model's shared Gaussian; a card is read only when that ratio is
large, so a view the model cannot settle is rejected, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Decision:
    label: str
    llr: float  # log-likelihood ratio, best class over the runner-up
    runner_up: str


class Discriminant:
    """Linear scores g_k(x) = (x - mean) . w_k + b_k, one per class k."""

    def __init__(self, labels: list[str], weights: F32, bias: F32, mean: F32,
                 whitener: F32 | None = None) -> None:
        if weights.shape != (mean.shape[0], len(labels)) or bias.shape != (len(labels),):
            raise ValueError("discriminant arrays do not match its labels")
        if len(labels) < 2:
            raise ValueError("a discriminant needs two classes at least")
        d = mean.shape[0]
        if whitener is not None and whitener.shape != (d, d):
            raise ValueError("discriminant whitener does not match its dimension")
        self.labels = list(labels)
        self.weights = weights.astype(np.float32)
        self.bias = bias.astype(np.float32)
        self.mean = mean.astype(np.float32)
        # W with W.T @ W the inverse covariance: for distances to a class
        # (how unlike anything trained a sample is); optional.
        self.whitener = None if whitener is None else whitener.astype(np.float32)
        self._masks: dict[str, npt.NDArray[np.bool_]] = {}

    @classmethod
    def train(cls, x: F32, labels: list[str], shrink: float = 0.2,
              whitener: bool = False) -> Discriminant:
        """Fit on samples x (n, d), one label each. `shrink` pulls the pooled
        covariance toward its mean variance (d is large beside n).
        `whitener`: keep what `distance` needs."""
        names = sorted(set(labels))
        y = np.array([names.index(s) for s in labels])
        xd = x.astype(np.float64)
        mean = xd.mean(axis=0)
        xc = xd - mean
        means = np.stack([xc[y == k].mean(axis=0) for k in range(len(names))])
        within = xc - means[y]
        cov = within.T @ within / max(1, len(xd) - len(names))
        d = cov.shape[0]
        cov = (1.0 - shrink) * cov + shrink * (np.trace(cov) / d) * np.eye(d)
        w = np.linalg.solve(cov, means.T)  # (d, K)
        b = -0.5 * np.einsum("kd,dk->k", means, w)
        white = None
        if whitener:
            # cov = L L^T, so inv(cov) = inv(L)^T inv(L).
            white = np.linalg.inv(np.linalg.cholesky(cov)).astype(np.float32)
        return cls(names, w.astype(np.float32), b.astype(np.float32), mean.astype(np.float32),
                   white)

    def scores(self, x: F32) -> F32:
        return ((x - self.mean) @ self.weights + self.bias).astype(np.float32)

    def distance(self, x: F32, label: str) -> float:
        """Squared Mahalanobis distance of x from the class's mean under the
        pooled covariance: |W (x - m)|^2 - 2 g_k(x), g_k the class score."""
        if self.whitener is None:
            raise ValueError("this discriminant was trained without a whitener")
        xc = x - self.mean
        z = self.whitener @ xc
        k = self.labels.index(label)
        return float(z @ z - 2.0 * (xc @ self.weights[:, k] + self.bias[k]))

    def _competing(self, allowed: str) -> npt.NDArray[np.bool_]:
        """The classes whose labels are in `allowed` (made once for each: a
        read decides twice)."""
        mask = self._masks.get(allowed)
        if mask is None:
            mask = np.array([lab in allowed for lab in self.labels])
            mask.flags.writeable = False
            self._masks[allowed] = mask
        return mask

    def decide(self, x: F32, allowed: str | None = None, scores: F32 | None = None) -> Decision:
        """The best class and its log-likelihood ratio over the runner-up;
        `allowed`: only the classes whose labels are in it compete; `scores`:
        `self.scores(x)` when the caller has them already."""
        g = self.scores(x) if scores is None else scores
        if allowed is not None:
            g = np.where(self._competing(allowed), g, -np.inf).astype(np.float32)
        order = np.argsort(g)[::-1]
        best, second = int(order[0]), int(order[1])
        return Decision(self.labels[best], float(g[best] - g[second]), self.labels[second])
