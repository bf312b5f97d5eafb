"""Where the card reader's slow frames come from: still frames read one by
one, grouped by the corners the band search placed (from the card's edges,
from index ink), with each group's share of all frames and of the slowest
ones, and its p50 and p99; then the cards of the slowest frames.

    taskset -c 1 python -m bench.vision_tail --deck npm-svg-cards --frames 3000 --seed 7

The p99 of bench.vision is set by its slowest 1 %; a frame with one more
corner to read costs one more read, so the groups tell a tail made of
extra corners from one made of slow single reads, and the cards tell which
faces' reads make it.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from bench.vision import decks
from calibration.deck import calibrate_cards
from drivers.vision.learned import learned_model
from drivers.vision.reader import Model
from drivers.vision.shoe import ShoeGeometry, corners_in_view, read_still, still_band
from sim.camera.shoe import ShoeCamera

WARM = 50  # frames read first and not timed: the model's first reads fill the caches


def corner_sources(frame: Any, model: Model, geometry: ShoeGeometry) -> tuple[str, ...]:
    """The sources of the corners read_still reads in this frame, sorted
    ("edges", "ink"), found the way read_still finds them."""
    band, gray, ramp = still_band(frame, geometry)
    return tuple(sorted(p.source for p in corners_in_view(band, model, geometry, ramp, gray)))


def read_times(frames: list[Any], model: Model, geometry: ShoeGeometry) -> npt.NDArray[Any]:
    """Each frame's read_still, in ms (after WARM frames read untimed)."""
    for frame in frames[:WARM]:
        read_still(frame, model, geometry)
    times = np.empty(len(frames))
    for i, frame in enumerate(frames):
        t0 = time.perf_counter()
        read_still(frame, model, geometry)
        times[i] = (time.perf_counter() - t0) * 1000.0
    return times


def slowest(times: npt.NDArray[Any], share: float) -> set[int]:
    """The indices of the slowest `share` of the frames (one at least)."""
    return {int(i) for i in np.argsort(times)[len(times) - max(1, int(share * len(times))):]}


def slowest_cards(times: npt.NDArray[Any], cards: list[str], share: float = 0.02
                  ) -> list[tuple[str, int, int]]:
    """The cards of the slowest `share` of the frames, most first: (card,
    frames of it among the slowest, frames of it in all)."""
    among = Counter(cards[i] for i in sorted(slowest(times, share)))  # (ties: first seen first)
    every = Counter(cards)
    return [(card, n, every[card]) for card, n in among.most_common()]


def tail(frames: list[Any], model: Model, geometry: ShoeGeometry, share: float = 0.02,
         times: npt.NDArray[Any] | None = None
         ) -> list[tuple[tuple[str, ...], int, int, float, float]]:
    """Per group of corner sources, most frames first: (sources, frames,
    frames among the slowest `share`, p50 ms, p99 ms). `times`: the frames'
    read_times, when measured already."""
    times = read_times(frames, model, geometry) if times is None else times
    groups = [corner_sources(frame, model, geometry) for frame in frames]
    slow = slowest(times, share)
    out = []
    for sources, n in Counter(groups).most_common():
        mine = [i for i, g in enumerate(groups) if g == sources]
        sel = times[mine]
        out.append((sources, n, sum(i in slow for i in mine),
                    float(np.percentile(sel, 50)), float(np.percentile(sel, 99))))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.vision_tail", description=__doc__)
    parser.add_argument("--deck", default="npm-svg-cards")
    parser.add_argument("--reader", choices=("calibrated", "uncalibrated"), default="calibrated")
    parser.add_argument("--frames", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    (deck, faces), = decks([args.deck]).values()
    model = (calibrate_cards(faces, deck=args.deck).model() if args.reader == "calibrated"
             else learned_model())
    cam, rng = ShoeCamera(deck, seed=args.seed), np.random.default_rng(args.seed + 1)
    codes = sorted(deck)
    cards = [codes[int(rng.integers(len(codes)))] for _ in range(args.frames)]
    frames = [cam.still(card) for card in cards]
    geometry = ShoeGeometry()
    times = read_times(frames, model, geometry)
    print(f"| {args.deck} / {args.reader}: corners | frames | of the slowest 2 % | p50 ms "
          "| p99 ms |")
    print("|---|---|---|---|---|")
    for sources, n, slow, p50, p99 in tail(frames, model, geometry, times=times):
        print(f"| {' + '.join(sources) or 'none'} | {n} | {slow} | {p50:.2f} | {p99:.2f} |")
    print()
    print("| card | of the slowest 2 % | frames of it |")
    print("|---|---|---|")
    for card, n, every in slowest_cards(times, cards):
        print(f"| {card} | {n} | {every} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
