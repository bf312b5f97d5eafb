"""Train the learned reader's corner network (development time, PyTorch).

    .venv/bin/python -m calibration.corner_train --out drivers/vision/data/corner_net.onnx

Needs the `build` extra (PyTorch, CPU is enough) and Pillow with the fonts
that calibration.procedural_decks names. The designs it learns from are
calibration.designs.training_designs(): the real decks in data/decks and
tests/data/decks, the project's own deck (also with French indices), and
procedural decks. `--leave-out FAMILY` trains without one artwork, for the
out-of-fold benchmark (bench.vision_oof).

Views are drawn once per design and seed (calibration.corner_samples) and
kept in a cache (the project's cache folder, `$CROUPIER_CACHE_DIR` else
`~/.cache/croupier`, as the compiled engine's builds; named by a digest of
the code that draws them and of the fonts the procedural decks are drawn
from: a change to the views is never trained on stale ones) at the
network's input size, so that the folds of the benchmark share
them, and a later run, after a reboot too, draws none again (drawing every
design's views takes some 25 minutes of a core).
"""

from __future__ import annotations

import argparse
import functools
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from calibration.code_digest import code_digest
from calibration.corner_samples import samples
from calibration.deck_fonts import FontsMissing, fonts_digest, require_fonts
from calibration.deck_suits import suit_fonts
from calibration.designs import PROCEDURAL_SHARE, Design, design_deck, training_designs
from drivers.vision.learned import (
    NET_H,
    NET_W,
    NOT_AN_INDEX,
    LearnedThresholds,
    save,
    shrink,
)
from sim.cache import cache_root

# The code a view is drawn by: the views, the designs and the faces they
# draw, the canonical corner and the ink's rank place the views are posed
# by, the shrink to the network's input. The fonts procedural decks are
# drawn with (Debian's packages) are named apart: bank_cache().
_DRAWN_BY = ("calibration/corner_samples.py", "calibration/designs.py",
             "calibration/procedural_decks.py", "calibration/deck*.py", "sim/camera/decks.py",
             "drivers/vision/corner.py", "drivers/vision/index_poses.py",
             "drivers/vision/learned.py")


@functools.cache
def bank_cache() -> Path:
    """The folder of the views drawn by this code with this machine's fonts
    (index fonts and suit fonts: which decks a seed draws)."""
    fonts = fonts_digest(tuple(p for p, _ in suit_fonts()))
    return cache_root() / f"corner-banks-{code_digest(_DRAWN_BY)}-{fonts}"


U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]


def _bank_part(design: Design, n: int, seed: int) -> tuple[U8, I64, I64]:
    deck = design_deck(design)
    xs = np.empty((n, NET_H, NET_W, 3), np.uint8)
    ranks = np.empty(n, np.int64)
    suits = np.empty(n, np.int64)
    for i, s in enumerate(samples(deck, n, seed)):
        xs[i] = shrink(s.patch)
        ranks[i], suits[i] = s.rank, s.suit
    return xs, ranks, suits


def bank(design: Design, n: int, seed: int, cache: Path | None = None,
         workers: int = 2) -> tuple[U8, I64, I64]:
    """n views of a design at the network's size, with their labels (kept in
    `cache`, else bank_cache())."""
    cache = cache or bank_cache()
    path = cache / f"{design.name}-{seed}-{n}.npz"
    if path.is_file():
        with np.load(path) as z:
            return z["x"], z["rank"], z["suit"]
    for bigger in sorted(cache.glob(f"{design.name}-{seed}-*.npz")):
        # a bank of more views of the design: its first n are n views as random
        if bigger.stem.rsplit("-", 1)[1].isdigit() and int(bigger.stem.rsplit("-", 1)[1]) > n:
            with np.load(bigger) as z:
                return z["x"][:n], z["rank"][:n], z["suit"][:n]
    parts = max(1, workers)
    sizes = [n // parts + (1 if i < n % parts else 0) for i in range(parts)]
    with ProcessPoolExecutor(parts) as pool:
        got = list(pool.map(_bank_part, [design] * parts, sizes,
                            [seed * 1000 + i for i in range(parts)]))
    x = np.concatenate([g[0] for g in got])
    r = np.concatenate([g[1] for g in got])
    s = np.concatenate([g[2] for g in got])
    cache.mkdir(parents=True, exist_ok=True)
    np.savez(path, x=x, rank=r, suit=s)
    return x, r, s


def network() -> Any:
    """The corner network: four 3x3 convolution stages (batch norm, ReLU,
    2x2 max pooling after the first three), a dense layer over the 7 x 4
    maps (where on the corner a shape lies matters: the index is at the top
    left), and two heads. About 7.5 M multiply-adds and 0.3 M weights."""
    from torch import nn

    def block(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True)]

    class CornerNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                *block(3, 16), nn.MaxPool2d(2),
                *block(16, 32), nn.MaxPool2d(2),
                *block(32, 48), *block(48, 48), nn.MaxPool2d(2),
                *block(48, 64),
                nn.Flatten(),
                nn.Linear(64 * (NET_H // 8) * (NET_W // 8), 128), nn.ReLU(inplace=True),
                nn.Dropout(0.2),
            )
            self.rank = nn.Linear(128, NOT_AN_INDEX + 1)
            self.suit = nn.Linear(128, 4)

        def forward(self, x: Any) -> tuple[Any, Any]:
            f = self.features(x)
            return self.rank(f), self.suit(f)

    return CornerNet()


def _normalise(x: Any) -> Any:
    """drivers.vision.learned.normalise on a batch (uint8 N x H x W x 3)."""
    x = x.permute(0, 3, 1, 2).float()
    x = x - x.mean(dim=(1, 2, 3), keepdim=True)
    return x / x.std(dim=(1, 2, 3), keepdim=True, unbiased=False).clamp(min=4.0)


def train(x: U8, ranks: I64, suits: I64, epochs: int, seed: int,
          log: bool = True, init: Path | None = None, threads: int = 2) -> Any:
    """`init`: go on from a network's weights (torch state, `--save-state`),
    at a third of the learning rate. `threads`: torch's (one each for two
    folds trained side by side: more than the cores slows both)."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    model = network()
    lr = 3e-3
    if init is not None:
        model.load_state_dict(torch.load(init))
        lr = 1e-3
    xt, rt, st = torch.from_numpy(x), torch.from_numpy(ranks), torch.from_numpy(suits)
    n, batch = len(xt), 256
    steps = epochs * (n // batch)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    rank_loss = nn.CrossEntropyLoss(label_smoothing=0.05)
    suit_loss = nn.CrossEntropyLoss(label_smoothing=0.05, ignore_index=-1)
    gen = torch.Generator().manual_seed(seed)
    step, t0 = 0, time.monotonic()
    model.train()
    for epoch in range(epochs):
        order = torch.randperm(n, generator=gen)
        total, right = 0.0, 0
        for i in range(n // batch):
            idx = order[i * batch : (i + 1) * batch]
            xb = _normalise(xt[idx])
            pr, ps = model(xb)
            loss = rank_loss(pr, rt[idx]) + suit_loss(ps, st[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            total += float(loss.detach())
            right += int((pr.argmax(1) == rt[idx]).sum())
        if log:
            print(f"epoch {epoch + 1}/{epochs}: loss {total / (n // batch):.4f} "
                  f"rank acc {right / ((n // batch) * batch):.4f} "
                  f"({time.monotonic() - t0:.0f} s)", flush=True)
    model.eval()
    return model


def to_onnx(model: Any) -> bytes:
    """The network with both heads' softmax, as ONNX: `p` (N x 18) and the
    features both heads read, `embedding` (N x 128: a calibration's
    prototypes of a house deck's corners are made of them)."""
    import torch

    class Probabilities(torch.nn.Module):
        def __init__(self, net: Any) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: Any) -> tuple[Any, Any]:
            f = self.net.features(x)
            r, s = self.net.rank(f), self.net.suit(f)
            return torch.cat([torch.softmax(r, 1), torch.softmax(s, 1)], 1), f

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "net.onnx"
        torch.onnx.export(Probabilities(model).eval(), (torch.zeros(1, 3, NET_H, NET_W),), path,
                          input_names=["patch"], output_names=["p", "embedding"], opset_version=13,
                          dynamic_axes={"patch": {0: "n"}, "p": {0: "n"}, "embedding": {0: "n"}},
                          dynamo=False)
        return path.read_bytes()


def views_of(design: Design, per_design: int) -> int:
    """How many views of a design are learnt from."""
    if design.kind == "procedural":
        return round(per_design * PROCEDURAL_SHARE)
    return per_design * design.weight


def training_set(designs: list[Design], per_design: int, seed: int
                 ) -> tuple[U8, I64, I64]:
    if any(d.kind == "procedural" for d in designs):
        require_fonts()
    parts = [bank(d, views_of(d, per_design), seed) for d in designs]
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]))


def train_without(out: Path, families: tuple[str, ...], per_design: int, epochs: int,
                  seed: int, thresholds: LearnedThresholds | None = None,
                  photos: Path | None = None, init: Path | None = None,
                  save_state: Path | None = None, threads: int = 2) -> None:
    """Train on every design but those of `families` (none: on all), and on
    the views of real photos in `photos` (calibration.photo_samples) when
    given, and write the network to `out` (its torch state to
    `save_state`, to go on from with `init`)."""
    designs = [d for d in training_designs() if d.family not in families]
    known = {d.family for d in training_designs()}
    if unknown := [f for f in families if f not in known]:
        raise SystemExit(f"no design of the family {unknown[0]!r}")
    t0 = time.monotonic()
    try:
        x, r, s = training_set(designs, per_design, seed)
    except FontsMissing as e:
        raise SystemExit(str(e)) from None
    if photos is not None:
        with np.load(photos) as z:
            x, r, s = (np.concatenate([x, z["x"]]), np.concatenate([r, z["rank"]]),
                       np.concatenate([s, z["suit"]]))
    print(f"{len(designs)} designs, {len(x)} views ({time.monotonic() - t0:.0f} s)", flush=True)
    model = train(x, r, s, epochs, seed, init=init, threads=threads)
    if save_state is not None:
        import torch

        torch.save(model.state_dict(), save_state)
    out.parent.mkdir(parents=True, exist_ok=True)
    save(out, to_onnx(model), thresholds or LearnedThresholds(), {
        "built_by": "calibration.corner_train", "designs": [d.name for d in designs],
        "left_out": list(families), "views_per_design": per_design, "epochs": epochs, "seed": seed,
        "photos": photos.name if photos else None, "went_on_from": init.name if init else None,
        "views": bank_cache().name,
    })
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m calibration.corner_train",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--leave-out", metavar="FAMILY", nargs="*", default=[],
                        help="train without these artwork families (bench.vision_oof)")
    parser.add_argument("--views", type=int, default=1500, help="views per design")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--photos", type=Path,
                        help="views of real photos to learn from too (calibration.photo_samples)")
    parser.add_argument("--init", type=Path, help="go on from this torch state")
    parser.add_argument("--save-state", type=Path, help="also write the torch state here")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    parser.add_argument("--rank-threshold", type=float, default=LearnedThresholds.rank)
    parser.add_argument("--suit-threshold", type=float, default=LearnedThresholds.suit)
    args = parser.parse_args(argv)
    train_without(args.out, tuple(args.leave_out), args.views, args.epochs, args.seed,
                  LearnedThresholds(args.rank_threshold, args.suit_threshold), args.photos,
                  args.init, args.save_state, args.threads)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
