"""The shipped reader on deck designs no network learnt from: procedural
decks of the seeds kept for judging (calibration.designs.PROCEDURAL_JUDGED),
each dealt through the shoe.

    python -m bench vision_unseen [--decks 100] [--seed 2024] [--model FILE]

bench.vision_oof judges 16 real designs, each read by a network that
learnt without its artwork. Sixteen designs are few for misreads this rare:
a deck whose suits are only outlined (a hollow spade looks, small and
soft, like a club) misread in the shoe where no real design did. Here every
deck is one no network learnt from (training draws seeds 0 to
PROCEDURAL - 1), as many as asked, each dealt once at 30 fps through
CardSource (the shoe's one read per card), at the model's own thresholds;
with `--calibrated`, by the network adapted to the deck from its 52 faces
(calibration.adapt: a deck whose calibration is refused counts as 52
cards refused, and is named with the reason). Printed: each deck, every
card read, misread (each named) and refused, and the designs that read
least.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import cv2

from bench.vision_oof import Count, shoe
from calibration.adapt import AdaptError, adapt
from calibration.deck_design import deck_design
from calibration.designs import PROCEDURAL_JUDGED, Design, design_deck
from drivers.vision.learned import MODEL_PATH, LearnedReader, ModelError, load


def judged_designs(decks: int) -> list[Design]:
    """The first `decks` procedural designs kept for judging."""
    if not 1 <= decks <= len(PROCEDURAL_JUDGED):
        raise SystemExit(f"--decks {decks}: from 1 to {len(PROCEDURAL_JUDGED)} decks are kept "
                         "for judging")
    return [Design(f"proc-{s}", "procedural", str(s)) for s in PROCEDURAL_JUDGED[:decks]]


def suits(design: Design) -> str:
    """How a procedural deck draws its suits (what its misreads have in
    common so far): drawn shapes or a font's, filled or outlined."""
    d = deck_design(int(design.source))
    kind = "drawn" if d.suit_source == "drawn" else "font"
    outlined = {"none": "filled", "red": "red outlined", "all": "all outlined"}[d.outline]
    return f"{kind} suits, {outlined}"


def dealt(model: Path, design: Design, seed: int, calibrated: bool) -> tuple[Count, str]:
    """One design dealt through the shoe (one process of --jobs), by the
    network alone or adapted to the deck from its 52 faces (as `croupier
    calibrate deck` does): its count, and why its calibration was refused."""
    cv2.setNumThreads(1)
    reader: LearnedReader = load(model)
    if calibrated:
        try:
            reader = adapt(design_deck(design), reader).reader
        except AdaptError as exc:
            return Count(refused=52), str(exc)
    return shoe(design, reader, seed), ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench vision_unseen",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--decks", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2024, help="the deals' seed")
    parser.add_argument("--model", type=Path, default=MODEL_PATH)
    parser.add_argument("--jobs", type=int, default=1, help="designs dealt at once")
    parser.add_argument("--calibrated", action="store_true",
                        help="each deck calibrated from its 52 faces first")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    try:
        load(args.model)  # a model that cannot be read stops here, once
    except ModelError as exc:
        raise SystemExit(str(exc)) from None
    designs = judged_designs(args.decks)
    t0 = time.monotonic()
    total = Count()
    per: list[tuple[str, Count]] = []
    refusals: list[str] = []
    # Spawned, not forked: a child forked from a process whose OpenCV had
    # started its threads (the model loaded above) hung at its first read.
    with ProcessPoolExecutor(max(1, args.jobs), mp_context=get_context("spawn")) as pool:
        counts = pool.map(dealt, [args.model] * len(designs), designs,
                          [args.seed] * len(designs), [args.calibrated] * len(designs))
        for design, (count, refused) in zip(designs, counts, strict=True):
            print(f"{design.name} ({suits(design)}): {count.cell()}"
                  + (f"; calibration refused: {refused}" if refused else ""), flush=True)
            refusals += [design.name] if refused else []
            per.append((design.name, count))
            total.right += count.right
            total.misread += count.misread
            total.refused += count.refused
            total.wrong += [f"{design.name} ({suits(design)}) {w}" for w in count.wrong]
    how = "calibrated from its 52 faces, then" if args.calibrated else "uncalibrated,"
    print(f"{args.decks} unseen procedural decks, each {how} dealt once through the shoe "
          f"(seed {args.seed}; {time.monotonic() - t0:.0f} s):")
    if args.calibrated:
        print(f"- calibration refused: {', '.join(refusals) or 'none'} (counted as refused)")
    print(f"- all cards: {total.cell()}")
    print(f"- misread: {', '.join(total.wrong) or 'none'}")
    worst = sorted(per, key=lambda p: p[1].right)[:5]
    print("- read least: " + ", ".join(f"{name} {c.cell()}" for name, c in worst))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
