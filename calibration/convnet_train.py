"""Training the generic reader's glyph network (drivers.camera.convnet).

Build time only: PyTorch (the `build` extra of pyproject.toml) is imported
here and nowhere else; the weights are handed back as numpy arrays, which
the reader runs without it. Seeded, one thread: the same glyphs give the
same weights.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from drivers.camera.convnet import ConvNet

CHANNELS = (8, 16, 32)
EMBED = 64
EPOCHS = 10
BATCH = 128
LEARNING_RATE = 3e-3
# Targets 0.9 for the class, 0.1 spread over the others, so the fonts
# trained on are not pulled apart without bound. Without it, builds that
# differed only in their seeds read 79-86 % of svg-cards' frames (its small
# spades); with it 94.7-94.9 % (docs/benchmarks.md, eighth pass).
LABEL_SMOOTHING = 0.1


def _network(hw: tuple[int, int], classes: int) -> Any:
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            ins = (1, *CHANNELS[:-1])
            self.convs = nn.ModuleList(nn.Conv2d(i, o, 3, padding=1)
                                       for i, o in zip(ins, CHANNELS, strict=True))
            flat = CHANNELS[-1] * (hw[0] // 8) * (hw[1] // 8)
            self.dense = nn.Linear(flat + 1, EMBED)
            self.drop = nn.Dropout(0.3)
            self.head = nn.Linear(EMBED, classes)

        def embed(self, x: torch.Tensor, aspect: torch.Tensor) -> torch.Tensor:
            for conv in self.convs:
                x = nn.functional.max_pool2d(nn.functional.relu(conv(x)), 2)
            return nn.functional.relu(self.dense(torch.cat([x.flatten(1), aspect[:, None]], 1)))

        def forward(self, x: torch.Tensor, aspect: torch.Tensor) -> torch.Tensor:
            out: torch.Tensor = self.head(self.drop(self.embed(x, aspect)))
            return out

    return Net()


def train_convnet(images: npt.NDArray[np.float32], aspects: npt.NDArray[np.float32],
                  labels: list[str], seed: int, epochs: int | None = None) -> ConvNet:
    """Fit the network to classify `images` (N, H, W; ink 0..1) by `labels`
    and return its embedding part. Each batch is shifted by up to a pixel and
    each glyph's ink scaled by 0.8-1.2 (the cut of a glyph's box and its ink
    level vary from view to view)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        gen = torch.Generator().manual_seed(seed)
        torch.manual_seed(seed)  # the weights' initialisation and dropout
        names = sorted(set(labels))
        y = torch.tensor([names.index(s) for s in labels])
        x = torch.tensor(images[:, None], dtype=torch.float32)
        a = torch.tensor(aspects, dtype=torch.float32)
        net = _network((images.shape[1], images.shape[2]), len(names))
        opt = torch.optim.AdamW(net.parameters(), LEARNING_RATE, weight_decay=1e-3)
        n = len(labels)
        epochs = EPOCHS if epochs is None else epochs
        steps = epochs * ((n + BATCH - 1) // BATCH)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, LEARNING_RATE, total_steps=steps)
        net.train()
        for _ in range(epochs):
            perm = torch.randperm(n, generator=gen)
            for i in range(0, n, BATCH):
                b = perm[i : i + BATCH]
                dy, dx = (int(v) for v in torch.randint(-1, 2, (2,), generator=gen))
                xb = torch.roll(x[b], shifts=(dy, dx), dims=(2, 3))
                gain = 0.8 + 0.4 * torch.rand(len(b), 1, 1, 1, generator=gen)
                xb = (xb * gain).clamp(0.0, 1.0)
                # Any: torch's backward() is untyped, and torch may be absent
                # where the project is type-checked.
                loss: Any = torch.nn.functional.cross_entropy(net(xb, a[b]), y[b],
                                                                label_smoothing=LABEL_SMOOTHING)
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
        net.eval()
        convs = tuple(
            (c.weight.detach().numpy().reshape(c.weight.shape[0], -1).T.copy().astype(np.float32),
             c.bias.detach().numpy().astype(np.float32))
            for c in net.convs)
        dense = (net.dense.weight.detach().numpy().T.copy().astype(np.float32),
                 net.dense.bias.detach().numpy().astype(np.float32))
        return ConvNet(convs, dense)
    finally:
        torch.set_num_threads(threads)
