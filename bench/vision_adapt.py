"""The learned reader adapted to each deck, out of fold: calibrated reading.

    python -m bench vision_adapt [--tune 300] [--frames 500] [--scenes 30] [--only FAMILY ...]

Each real design is read by its fold's network (bench.vision_oof: trained
without the design's whole artwork family) adapted to the design from its
own 52 faces alone (calibration.adapt), as a house calibrates its deck.
`--tune N` first sets the heads' log-likelihood ratios on N other still
frames and N/30 other table scenes of each design (no left-out design
misread, then the most read of the worst design), and judges with them;
without it the defaults of calibration.adapt are used. Columns as in
bench.vision_oof: still shoe frames, frame mode, cascaded hands, the shoe
dealing 52 cards.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping
from dataclasses import replace

import cv2
import numpy as np

from bench.vision_oof import (
    MODELS,
    families,
    fold_model,
    hand_scenes,
    judged,
    pair_scenes,
    tally,
)
from calibration.adapt import FRAME_LLR, LLR, AdaptError, adapt
from calibration.designs import Design, design_deck
from drivers.vision.adapted import AdaptedReader
from drivers.vision.frame import read_by_corners, size_range
from drivers.vision.glyphs import Image
from drivers.vision.learned import F32, LearnedThresholds, learned_model, load
from drivers.vision.shoe import ShoeGeometry, read_still
from sim.camera.shoe import ShoeCamera

GRID = (2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0, 25.0, 30.0, 40.0, 60.0, 80.0, 120.0)
Corners = list[tuple[F32, F32]]
Records = list[tuple[str, Corners]]


class Recording(AdaptedReader):
    """An adapted reader that keeps the network's outputs of every corner
    it reads, so that a read can be decided again at other thresholds."""

    def __init__(self, reader: AdaptedReader) -> None:
        super().__init__(reader, reader.head)
        self.log: Corners = []

    def features(self, patches: list[Image] | Image) -> tuple[F32, F32]:
        p, e = super().features(patches)
        self.log += list(zip(p, e, strict=True))
        return p, e


def still_records(design: Design, rec: Recording, frames: int, seed: int) -> Records:
    deck = design_deck(design)
    cam = ShoeCamera(deck, seed=seed + 7)
    rng = np.random.default_rng(seed + 8)
    codes = sorted(deck)
    out: Records = []
    for _ in range(frames):
        truth = codes[int(rng.integers(len(codes)))]
        rec.log = []
        read_still(cam.still(truth), rec, ShoeGeometry())
        out.append((truth, rec.log))
    return out


def scene_records(design: Design, rec: Recording, scenes: int, seed: int) -> Records:
    out: Records = []
    for cards, image in (hand_scenes(design, scenes, seed, seed + 9, 500)
                         + pair_scenes(design, 4 * scenes, seed + 11)):
        rec.log = []
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        read_by_corners(image, gray, rec, size_range(image.shape[:2]))
        out.append((" ".join(cards), rec.log))
    return out


def outcome(rec: AdaptedReader, records: Records, t: LearnedThresholds, llr: float
            ) -> tuple[int, int]:
    """Cards read right and misread at this ratio (as bench.vision_oof.outcome)."""
    return tally((truth, {c for p, e in corners
                          if (c := rec.combine(p, e, t, llr).card) is not None})
                 for truth, corners in records)


def tune(by_design: Mapping[str, tuple[AdaptedReader, Records]], frame_mode: bool) -> float:
    best: tuple[tuple[float, int], float] | None = None
    for llr in GRID:
        results = []
        for rec, records in by_design.values():
            t = rec.frame_thresholds if frame_mode else rec.thresholds
            results.append(outcome(rec, records, t, llr))
        if any(w for _, w in results):
            continue
        worst = min(right / max(sum(len(t.split()) for t, _ in r), 1)
                    for (right, _), (_, r) in zip(results, by_design.values(), strict=True))
        key = (worst, sum(right for right, _ in results))
        if best is None or key > best[0]:
            best = (key, llr)
    what = "table scenes" if frame_mode else "still shoe frames"
    if best is None:
        raise SystemExit(f"{what}: no ratio on the grid leaves the left-out designs unmisread")
    print(f"<!-- {what}, tuned out of fold: llr {best[1]}; the worst design reads "
          f"{100 * best[0][0]:.2f}% of its cards -->", flush=True)
    return best[1]


def adapted(design: Design, family: str) -> AdaptedReader | str:
    """The design's fold network, at the shipped network's thresholds (as
    bench.vision_oof judges it), adapted to the design."""
    reader = load(fold_model(MODELS, family))
    shipped = learned_model()
    reader.thresholds, reader.frame_thresholds = shipped.thresholds, shipped.frame_thresholds
    t0 = time.monotonic()
    try:
        out = adapt(design_deck(design), reader, seed=7)
    except AdaptError as exc:
        return f"refused: {str(exc)[:90]}"
    print(f"<!-- {design.name}: adapted in {time.monotonic() - t0:.1f} s; weak cards: "
          f"{' '.join(out.weak()) or 'none'} -->", flush=True)
    return out.reader


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench vision_adapt",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", default=[], metavar="FAMILY")
    parser.add_argument("--frames", type=int, default=500, help="still frames per design")
    parser.add_argument("--scenes", type=int, default=30, help="table scenes per design")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--tune", type=int, default=0, metavar="FRAMES")
    parser.add_argument("--tune-only", action="store_true")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    readers: dict[str, AdaptedReader | str] = {}
    for family, members in families().items():
        if args.only and family not in args.only:
            continue
        for d in members:
            readers[d.name] = adapted(d, family)
    llr, frame_llr = LLR, FRAME_LLR
    designs = {d.name: d for ds in families().values() for d in ds}
    if args.tune:
        shoe_rec, scene_rec = {}, {}
        for name, r in readers.items():
            if isinstance(r, str):
                continue
            rec = Recording(r)
            shoe_rec[name] = (rec, still_records(designs[name], rec, args.tune, args.seed))
            scene_rec[name] = (rec, scene_records(designs[name], rec, max(1, args.tune // 30),
                                                  args.seed))
        llr, frame_llr = tune(shoe_rec, False), tune(scene_rec, True)
    if args.tune_only:
        return 0
    print("| design | still frames | frame mode | cascaded hands | shoe, 52 cards |")
    print("|---|---|---|---|---|")
    for name, r in readers.items():
        if isinstance(r, str):
            print(f"| {name} | {r} | | | |", flush=True)
            continue
        r.head = replace(r.head, llr=llr, frame_llr=frame_llr)
        d = designs[name]
        cells = judged(d, r, args.frames, args.scenes, args.seed)
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
