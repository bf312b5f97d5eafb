"""The generic reader out of fold on every synthetic view of its build.

    python -m bench.generic_views              # needs the `build` extra (PyTorch)
    python -m bench.generic_views --font-limit 12

The model build (calibration.build_generic) chooses its thresholds on the
out-of-fold reads of the views whose index the reader found where it was
drawn; views where the index was found elsewhere (a clutter pip taken for
the suit, part of a glyph for the rank) are left out of its statistics.
The reader meets such corners too. This runs the build's views and fold
readers again (same seed and fonts: the same thresholds as the build) and
reads every view's corner patch with the reader of the fold that held its
font family out: at the first look only (`index_parts`) and with every
look (`GenericReader.read_corner`), counting right, wrong and refused, and
listing the wrong reads.
"""

from __future__ import annotations

import argparse
import collections
import sys

import cv2
import numpy as np

from calibration import build_generic as build
from drivers.camera.generic import NOT_A_RANK, GenericReader, index_parts
from drivers.camera.glyphs import Image


def outcome(card: str | None, truth: str) -> str:
    return "refused" if card is None else ("right" if card == truth else "wrong")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.generic_views",
                                     description=__doc__.split("\n\n")[0])
    build.add_build_options(parser)  # the build's own, so the same views and thresholds
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    fonts = build.pick_fonts(args.font_limit)
    folds = build.family_folds(fonts)
    views: list[tuple[str, str, Image]] = []
    data = build.generate(fonts, args.per_rank, args.per_other, args.seed,
                          build.GlyphCache(), every=views)
    fold_of = np.array([folds[f] for f in data.family])
    readers, held = build.fold_readers(data, fold_of, args.shrink, args.seed)
    t = build.choose_thresholds(held, args.margin)
    counts: collections.Counter[tuple[str, str, str]] = collections.Counter()
    wrong: list[str] = []
    for truth, family, patch in views:
        r = readers[folds[family]]
        reader = GenericReader(r.rank, r.suit, t, {}, suit_nets=r.suit_nets)
        kind = "no rank" if truth.startswith(NOT_A_RANK) else "card"
        parts = index_parts(patch)
        first = reader.read_parts(parts).card if parts is not None else None
        every = reader.read_corner(patch).card
        counts[(kind, "first look", outcome(first, truth))] += 1
        counts[(kind, "every look", outcome(every, truth))] += 1
        for look, card in (("first look", first), ("later look", every if every != first
                                                   else None)):
            if card is not None and card != truth:
                wrong.append(f"{look}: {family} {truth} read as {card}")
    print(f"{len(fonts)} fonts, {len(views)} views with a corner, "
          f"{len(data.truth)} used by the build", file=sys.stderr)
    print("| glyphs | look | right | wrong | refused |")
    print("|---|---|---|---|---|")
    for kind in ("card", "no rank"):
        for look in ("first look", "every look"):
            c = [counts[(kind, look, o)] for o in ("right", "wrong", "refused")]
            print(f"| {kind} | {look} | {c[0]} | {c[1]} | {c[2]} |")
    print(f"\n{len(wrong)} wrong reads:")
    for w in wrong:
        print(f"- {w}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
