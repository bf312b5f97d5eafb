"""The learned reader out of fold: each deck design read by a network that
never saw its artwork.

    python -m bench vision_oof [--train] [--frames 500] [--views 2000] [--epochs 4]

Folds leave out artwork families (calibration.designs.Design.family; two
or three in each fold, FOLDS): a family is all the options of one artwork
(saulspatz's four index layouts and colourings, revk's six), so a fold
leaves every option of a left-out artwork out, not one of them. `--train`
trains one network per fold with calibration.corner_train (the `build`
extra) into --models; without it the networks there are read. `--tune N`
sets the thresholds on N other still frames (and N/4 with a thumb over the
rank) and N/30 other cascades of each left-out design (`--ship` writes
them into the shipped model's file); without it the shipped thresholds are
used. Each real design is then read
by its fold's network, uncalibrated:

- still: `--frames` shoe-camera frames of random cards, each read on its
  own (drivers.vision.shoe.read_still), under the simulator's camera
  envelope;
- frame: table scenes of four cards each at any angle, 70-140 px wide, read
  as `croupier vision read` reads a photo (frame mode);
- hands: table photos of 13 cards in 5 cascaded hands (only the index
  corner of each lower card in view), 110 px wide on 1280 x 800;
- shoe: the 52 cards dealt through CardSource at 30 fps, one read per card.

The shipped reader is two networks merged (calibration.corner_ensemble),
so its folds are too: each member's folds trained into a folder of its own
(`--train`, its own `--train-seed` or training views), then merged fold by
fold, file name by file name, into the folder judged.

Calibrated reading (the fold's network adapted to each design from its 52
faces alone) is bench.vision_adapt.

A read is right, a misread, or refused (no card: never a guess). The table
printed is the one in docs/vision.md.
"""

from __future__ import annotations

import argparse
import functools
import json
import pickle
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.code_digest import code_digest
from calibration.designs import Design, design_deck, training_designs
from drivers.camera.source import CardSource
from drivers.vision.frame import Seen, gather, read_frame, seen, seen_patches, size_range
from drivers.vision.glyphs import Image, find_index_places
from drivers.vision.learned import (
    MODEL_PATH,
    PATCH_H,
    PATCH_W,
    LearnedReader,
    LearnedThresholds,
    load,
)
from drivers.vision.reader import CornerRead, Model
from drivers.vision.shoe import ShoeGeometry, read_band, read_still, still_band
from sim.cache import cache_root
from sim.camera.optics import OpticsRange, background, card_corners, expose, place
from sim.camera.shoe import ShoeCamera
from sim.camera.table import FELT, cascade, scene

# The fold networks and the tune's records, kept with the project's other
# caches (sim.cache: `$CROUPIER_CACHE_DIR`, else ~/.cache/croupier): a
# fold's network takes a quarter of an hour to train.
MODELS = cache_root() / "oof"


@dataclass
class Count:
    right: int = 0
    misread: int = 0
    refused: int = 0
    wrong: list[str] = field(default_factory=list)  # each misread, "truth as read"

    def add(self, truth: str, got: str | None) -> None:
        if got is None:
            self.refused += 1
        elif got == truth:
            self.right += 1
        else:
            self.misread += 1
            self.wrong.append(f"{truth} as {got}")

    def cell(self) -> str:
        n = self.right + self.misread + self.refused
        return f"{100.0 * self.right / max(n, 1):.2f}% ({self.misread} misread of {n})"


def families() -> dict[str, list[Design]]:
    out: dict[str, list[Design]] = {}
    for d in training_designs():
        if d.real:
            out.setdefault(d.family, []).append(d)
    return out


# The folds: each network learns without two or three artwork families,
# seven families in three trainings. More left out at once is stricter than
# one: each fold learns from fewer real designs.
FOLDS = (("saulspatz", "github-geaxgx", "npm-svg-cards"), ("revk", "npm-cardsjs"),
         ("house", "knoll-vector"))


def fold_of(family: str) -> tuple[str, ...]:
    for fold in FOLDS:
        if family in fold:
            return fold
    raise SystemExit(f"no fold leaves out {family!r}")


def fold_model(models: Path, family: str) -> Path:
    return models / f"without-{'+'.join(fold_of(family))}.onnx"


def train_folds(models: Path, views: int, epochs: int, seed: int, only: list[str],
                photos: Path | None) -> None:
    from calibration.corner_train import train_without

    for fold in FOLDS:
        if only and not set(fold) & set(only):
            continue
        t0 = time.monotonic()
        train_without(fold_model(models, fold[0]), fold, views, epochs, seed, photos=photos)
        print(f"<!-- fold without {' '.join(fold)}: {time.monotonic() - t0:.0f} s -->",
              flush=True)


def still(design: Design, reader: Model, frames: int, seed: int) -> Count:
    deck = design_deck(design)
    cam = ShoeCamera(deck, seed=seed)
    rng = np.random.default_rng(seed + 1)
    codes = sorted(deck)
    geo = ShoeGeometry()
    count = Count()
    for _ in range(frames):
        truth = codes[int(rng.integers(len(codes)))]
        count.add(truth, read_still(cam.still(truth), reader, geo)[0])
    return count


def frame(design: Design, reader: LearnedReader, scenes: int, seed: int) -> Count:
    deck = design_deck(design)
    rng = np.random.default_rng(seed + 2)
    codes = sorted(deck)
    count = Count()
    for i in range(scenes):
        cards = [codes[int(k)] for k in rng.choice(len(codes), 4, replace=False)]
        sc = scene(deck, cards, seed=seed * 1000 + i, size=(800, 600), widths=(70.0, 140.0))
        found = read_frame(sc.image, reader, short_side=size_range(sc.image.shape[:2]))
        for placed in sc.cards:
            near = [f for f in found
                    if np.hypot(f.centre[0] - placed.centre[0],
                                f.centre[1] - placed.centre[1]) < 0.5 * placed.width]
            count.add(placed.card, near[0].card if len(near) == 1 else None)
    return count


def hand_scenes(design: Design, scenes: int, seed: int, draw: int, first: int
                ) -> list[tuple[list[str], Image]]:
    """Table photos of 13 cards each in 5 cascaded hands: the cards (seeded
    by `draw`) and the image (seeded from `first` on)."""
    deck = design_deck(design)
    rng = np.random.default_rng(draw)
    codes = sorted(deck)
    out = []
    for i in range(scenes):
        cards = [codes[int(k)] for k in rng.choice(len(codes), 13, replace=False)]
        split = [cards[0:3], cards[3:6], cards[6:8], cards[8:11], cards[11:13]]
        out.append((cards, cascade(deck, split, seed=seed * 1000 + first + i).image))
    return out


def hands(design: Design, reader: LearnedReader, scenes: int, seed: int) -> Count:
    """Table photos of 1280 x 800 with 13 cards in 5 cascaded hands (2 to 3
    cards each, only the index corner of each lower card in view)."""
    count = Count()
    for cards, image in hand_scenes(design, scenes, seed, seed + 3, 0):
        got = {f.card for f in read_frame(image, reader, short_side=size_range(image.shape[:2]))}
        got.discard(None)
        count.right += len(got & set(cards))
        count.misread += len(got - set(cards))
        count.refused += len(set(cards) - got)
    return count


def shoe(design: Design, reader: LearnedReader, seed: int) -> Count:
    deck = design_deck(design)
    order = sorted(deck)
    np.random.default_rng(seed).shuffle(order)
    cam = ShoeCamera(deck, seed=seed, fps=30.0)
    got = [r.card for r in CardSource(reader).reads(f.image for f in cam.deal(order))]
    count = Count()
    if len(got) != len(order):  # a card split in two or two merged: none counts as read
        count.refused = len(order)
        return count
    for truth, card in zip(order, got, strict=True):
        count.add(truth, card)
    return count


# Each shoe frame's record: the truth (one card) and every corner read:
# (best card, rank probability, suit probability).
Records = list[tuple[str, list[tuple[str, float, float]]]]


def corner_records(design: Design, reader: LearnedReader, frames: int, seed: int) -> Records:
    """Each still frame's truth and its corners' reads (best card, rank
    probability, suit probability), whatever the thresholds; and a quarter
    as many more frames with the upper half or more of the index's rank
    covered (a thumb: the card read right, or not at all)."""
    deck = design_deck(design)
    cam = ShoeCamera(deck, seed=seed + 7)
    rng = np.random.default_rng(seed + 8)
    codes = sorted(deck)
    geo = ShoeGeometry()
    out: Records = []
    for i in range(frames + frames // 4):
        truth = codes[int(rng.integers(len(codes)))]
        image: Image | None = cam.still(truth)
        if i >= frames and image is not None:
            image = thumb_over_rank(image, geo, rng)
        if image is None:
            continue
        band, gray, ramp = still_band(image, geo)
        reads = [r for _, r in read_band(band, reader, geo, ramp, gray)]
        out.append((truth, [(r.best, r.p[1], r.p[2]) for r in reads if r.best != "??"]))
    return out


def thumb_over_rank(frame: Image, geo: ShoeGeometry, rng: np.random.Generator) -> Image | None:
    """The frame with the upper 50-90 % of the index's rank covered, as a
    thumb on the card would (tests/vision/test_shoe.py covers 60 %)."""
    left, right = geo.band
    found = find_index_places(np.ascontiguousarray(frame[:, left:right]), geo.rank_height)
    if not found:
        return None
    r = min(found, key=lambda i: i.rank_box.x).rank_box
    out = frame.copy()
    bottom = r.y + int(rng.uniform(0.5, 0.9) * r.h)
    out[max(0, r.y - 6) : bottom, left + r.x - 6 : left + r.x2 + 6] = (90, 120, 170)
    return out


def pair_scenes(design: Design, scenes: int, seed: int) -> list[tuple[list[str], Image]]:
    """Two cards lying on each other at any angles, the lower one's corners
    half covered (a card dropped on another)."""
    deck = design_deck(design)
    rng = np.random.default_rng(seed)
    codes = sorted(deck)
    out = []
    for i in range(scenes):
        a, b = (codes[int(k)] for k in rng.choice(len(codes), 2, replace=False))
        frame = background((640, 480), FELT, seed + i)
        width = float(rng.uniform(100, 160))
        turn = float(rng.uniform(0, 360))
        place(frame, deck[a], card_corners(280, 240, width, 1.4 * width, turn))
        place(frame, deck[b], card_corners(float(280 + rng.uniform(40, 90)),
                                           float(240 + rng.uniform(-40, 40)), width, 1.4 * width,
                                           float(rng.uniform(0, 360))))
        out.append(([a, b], expose(frame, OpticsRange().draw(rng, (640, 480)), rng)))
    return out


@dataclass
class Scene:
    """A table scene as frame mode saw it, at no threshold: its cards
    (space-separated), every corner it proposed (no patches) and each
    corner's read as if sure and as if not, with its rank and suit
    probability and whether it was placed from ink; so that frame mode's
    own gathering (drivers.vision.frame.gather) can be run again at any
    thresholds."""

    truth: str
    found: Seen
    short_side: tuple[float, float]
    sure: list[CornerRead]
    unsure: list[CornerRead]
    p_rank: np.ndarray
    p_suit: np.ndarray
    ink: np.ndarray
    # The cards gathered, by which corners were sure (many threshold
    # points make the same corners sure).
    gathered: dict[bytes, set[str]] = field(default_factory=dict, repr=False)


def scene_of(truth: str, image: Image, reader: LearnedReader) -> Scene:
    """What frame mode sees of a table photo (`truth`, its cards)."""
    short_side = size_range(image.shape[:2])
    found = seen(image, cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), reader, short_side)
    patches = seen_patches(image, found, reader.corner_width)
    probs = reader.probabilities(patches) if patches else np.zeros((0, 18), np.float32)
    sure = [reader.decide(p, LearnedThresholds(0.0, 0.0)) for p in probs]
    return Scene(truth, replace(found, warped={}), short_side, sure,
                 [replace(r, card=None) for r in sure],
                 np.array([r.p[1] for r in sure]), np.array([r.p[2] for r in sure]),
                 np.array([p.source == "ink" for _, _, p in found.corners], bool))


def scene_records(design: Design, reader: LearnedReader, scenes: int, seed: int
                  ) -> list[Scene]:
    """Table photos of cascaded hands and of pairs of cards lying on each
    other (other seeds than those judged), as frame mode sees them."""
    return [scene_of(" ".join(cards), image, reader)
            for cards, image in (hand_scenes(design, scenes, seed, seed + 9, 500)
                                 + pair_scenes(design, 4 * scenes, seed + 11))]


def outcome(records: Records, t_rank: float, t_suit: float) -> tuple[int, int]:
    """Cards read right and misread in shoe frames at these thresholds: a
    frame reads the one card its sure corners agree on."""
    return tally((truth, {b for b, pr, ps in reads if pr >= t_rank and ps >= t_suit})
                 for truth, reads in records)


def tally(reads: Iterable[tuple[str, set[str]]]) -> tuple[int, int]:
    """Cards read right and misread, from each record's truth (one card, or
    a table's cards space-separated) and the cards its sure corners read."""
    right = wrong = 0
    for truth, cards in reads:
        if " " in truth:
            right += len(cards & set(truth.split()))
            wrong += len(cards - set(truth.split()))
        elif len(cards) == 1:
            if cards == {truth}:
                right += 1
            else:
                wrong += 1
    return right, wrong


def frame_outcome(scenes: list[Scene], frame: LearnedThresholds, ink: LearnedThresholds
                  ) -> tuple[int, int]:
    """Cards read right and misread in table scenes as frame mode reads
    them (drivers.vision.frame.gather), its corners of outlines and edges
    at `frame`, those placed from ink at `ink`."""
    def cards(sc: Scene) -> set[str]:
        sure = ((sc.p_rank >= np.where(sc.ink, ink.rank, frame.rank))
                & (sc.p_suit >= np.where(sc.ink, ink.suit, frame.suit)))
        key = np.packbits(sure).tobytes()
        if key not in sc.gathered:
            reads = [s if k else u for s, u, k in zip(sc.sure, sc.unsure, sure, strict=True)]
            sc.gathered[key] = {c.card for c in gather(sc.found, reads, sc.short_side)
                                if c.card is not None}
        return sc.gathered[key]

    return tally((sc.truth, cards(sc)) for sc in scenes)


# Training smooths the labels by 0.05: a probability tops out at 0.954
# (rank) and 0.963 (suit), so the grid is fine below those. It reaches down
# to 0.3 so that its floor never stops the tune: the shoe's rank threshold
# came to 0.5 when that was the floor (at 0.3 the left-out shoe frames
# misread 9 corners, and the tune still picks 0.5: docs/vision.md).
GRID = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.88, 0.9, 0.91, 0.92, 0.93, 0.935, 0.94, 0.945, 0.95,
        0.955, 0.96)


# The thresholds chosen give up at most this share of the worst design's
# reads (relative: a hundredth of them) for a margin: of the points that
# read within it of the best, the strictest. A point at the edge of
# misreading on the designs tuned on is a misread on the next deck (0.5 /
# 0.5 read every left-out design without a misread, yet a calibration's
# check views, at the far end of the camera envelope, read an ace of clubs
# as spades there).
MARGIN = 0.01


Judge = Callable[[Any, float, float], tuple[int, int]]


def tune(by_design: Mapping[str, Sequence[Any]], what: str, judge: Judge
         ) -> tuple[float, float]:
    """The thresholds with the fewest misreads on the left-out designs (none,
    where any point of the grid has none) that read, within MARGIN of it,
    the most cards of the worst design; of those the strictest. `judge`
    gives the cards read right and misread in a design's records at a
    point (rank, suit)."""
    totals = [sum(len(_truth(r).split()) for r in records) for records in by_design.values()]
    points: dict[tuple[float, float], tuple[int, float, int]] = {}
    for tr in GRID:
        for ts in GRID:
            results = [judge(r, tr, ts) for r in by_design.values()]
            worst = min(right / max(n, 1) for (right, _), n in zip(results, totals, strict=True))
            points[(tr, ts)] = (sum(w for _, w in results), worst,
                                sum(right for right, _ in results))
    least = min(m for m, _, _ in points.values())
    best = max(w for m, w, _ in points.values() if m == least)
    near = [(t, w) for t, (m, w, _) in points.items()
            if m == least and w >= best * (1.0 - MARGIN)]
    chosen, worst = max(near, key=lambda tw: (tw[0][0] + tw[0][1], tw[1]))
    curve = ", ".join(f"{t}: {100 * points[(t, t)][1]:.1f}% ({points[(t, t)][0]})"
                      for t in GRID[::3])
    print(f"<!-- {what}, tuned out of fold: rank {chosen[0]}, suit {chosen[1]}; the worst "
          f"design reads {100 * worst:.2f}% of its cards (the best point {100 * best:.2f}%), "
          f"{least} misread in all; at equal thresholds, the worst design (misread): "
          f"{curve} -->", flush=True)
    return chosen


def _truth(record: Any) -> str:
    return record.truth if isinstance(record, Scene) else str(record[0])


# Frame mode's two pairs of thresholds act together (an inked index and an
# outline's corner may read one card): each is tuned with the other held,
# the outlines' first (the inked at the strictest point), until neither
# moves, at most this many times.
PASSES = 3


def tune_frame(scenes: dict[str, list[Scene]]
               ) -> tuple[LearnedThresholds, LearnedThresholds]:
    """Frame mode's thresholds for corners of outlines and edges, and for
    those placed from ink, tuned on what frame mode gathers (frame_outcome)."""
    frame = ink = LearnedThresholds(GRID[-1], GRID[-1])
    for _ in range(PASSES):
        before = (frame, ink)
        frame = LearnedThresholds(*tune(scenes, "table scenes, outlines and edges",
                                        functools.partial(_outlines_at, ink=ink)))
        ink = LearnedThresholds(*tune(scenes, "table scenes, inked indices",
                                      functools.partial(_inked_at, frame=frame)))
        if (frame, ink) == before:
            break
    return frame, ink


def _outlines_at(scenes: list[Scene], rank: float, suit: float, ink: LearnedThresholds
                 ) -> tuple[int, int]:
    return frame_outcome(scenes, LearnedThresholds(rank, suit), ink)


def _inked_at(scenes: list[Scene], rank: float, suit: float, frame: LearnedThresholds
              ) -> tuple[int, int]:
    return frame_outcome(scenes, frame, LearnedThresholds(rank, suit))


# The code the tune's records are drawn, proposed and read by.
_RECORDED_BY = ("bench/vision_oof.py", "drivers/vision/*.py", "sim/camera/*.py",
                "calibration/designs.py", "calibration/procedural_decks.py",
                "calibration/deck*.py")


def tune_records(models: Path, frames: int, seed: int, only: list[str]
                 ) -> tuple[dict[str, Records], dict[str, list[Scene]]]:
    """Each left-out design's shoe frames and table scenes read by its fold's
    network at no thresholds (corner_records, scene_records); kept beside
    the fold networks (about 14 minutes to make), and made again when a
    network is newer than they are (and named by a digest of the code that
    draws and proposes them)."""
    cache = models / (f"tune-records-{frames}-{seed}-{'+'.join(only) or 'all'}-"
                      f"{code_digest(_RECORDED_BY)}.pickle")
    nets = list(models.glob("*.onnx"))
    if cache.exists() and all(n.stat().st_mtime < cache.stat().st_mtime for n in nets):
        with cache.open("rb") as f:
            kept: tuple[dict[str, Records], dict[str, list[Scene]]] = pickle.load(f)
        return kept
    shoe_records, frame_records = {}, {}
    for family, designs in families().items():
        if only and family not in only:
            continue
        reader = load(fold_model(models, family))
        reader.thresholds = reader.frame_thresholds = reader.ink_thresholds = \
            LearnedThresholds(0.0, 0.0)
        for d in designs:
            shoe_records[d.name] = corner_records(d, reader, frames, seed)
            frame_records[d.name] = scene_records(d, reader, max(1, frames // 30), seed)
    with cache.open("wb") as f:
        pickle.dump((shoe_records, frame_records), f)
    return shoe_records, frame_records


def ship_thresholds(thresholds: LearnedThresholds, frame: LearnedThresholds,
                    ink: LearnedThresholds, how: str) -> None:
    """The shipped network's thresholds, as set out of fold."""
    info_path = MODEL_PATH.with_suffix(".json")
    info = json.loads(info_path.read_text())
    info["thresholds"] = {"rank": thresholds.rank, "suit": thresholds.suit}
    info["frame_thresholds"] = {"rank": frame.rank, "suit": frame.suit}
    info["ink_thresholds"] = {"rank": ink.rank, "suit": ink.suit}
    info["thresholds_set_by"] = how
    info_path.write_text(json.dumps(info, indent=1, sort_keys=True) + "\n")


def judged(design: Design, reader: LearnedReader, frames: int, scenes: int, seed: int
           ) -> list[str]:
    """The table's cells of one design: still frames, frame mode, cascaded
    hands, the shoe dealing 52 cards."""
    return [still(design, reader, frames, seed).cell(),
            frame(design, reader, scenes, seed).cell(),
            hands(design, reader, max(1, scenes // 5), seed).cell(),
            shoe(design, reader, seed).cell()]


def speed(scenes: int, seed: int) -> None:
    """The shipped reader's time on table photos of 1280x800 with 13 cards
    in cascaded hands (cardsJS and Knoll), each read once warm, one thread;
    and the network alone on one corner patch."""
    import time

    from drivers.vision.learned import learned_model

    reader = learned_model()
    wall, cpu = [], []
    for name, folder in (("npm-cardsjs", "tests/data/decks"), ("knoll-vector", "data/decks")):
        design = Design(name, "folder", str(Path(__file__).resolve().parent.parent / folder / name))
        for _, image in hand_scenes(design, scenes, seed, seed + 1, 0):
            read_frame(image, reader, size_range(image.shape[:2]))
            c0, t0 = time.thread_time(), time.perf_counter()
            read_frame(image, reader, size_range(image.shape[:2]))
            wall.append(time.perf_counter() - t0)
            cpu.append(time.thread_time() - c0)
    w, c = np.array(wall) * 1000, np.array(cpu) * 1000
    print(f"1280x800, 13 cards, {len(w)} photos: wall p50 {np.percentile(w, 50):.1f} "
          f"p99 {np.percentile(w, 99):.1f} ms, CPU p50 {np.percentile(c, 50):.1f} "
          f"p99 {np.percentile(c, 99):.1f} ms")
    patch = np.full((PATCH_H, PATCH_W, 3), 200, np.uint8)
    reader.probabilities(patch)
    t0 = time.perf_counter()
    for _ in range(500):
        reader.probabilities(patch)
    print(f"one corner, the network alone: {(time.perf_counter() - t0) * 2:.3f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench vision_oof",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=Path, default=MODELS)
    parser.add_argument("--train", action="store_true", help="train the fold networks first")
    parser.add_argument("--only", nargs="*", default=[], metavar="FAMILY")
    parser.add_argument("--views", type=int, default=2000, help="views per design (training)")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--train-seed", type=int, default=1,
                        help="the seed of the training views and run (--train)")
    parser.add_argument("--photos", type=Path,
                        help="with --train: views of real photos learnt from too "
                        "(calibration.photo_samples; no deck design of the folds)")
    parser.add_argument("--frames", type=int, default=500, help="still frames per design")
    parser.add_argument("--scenes", type=int, default=50, help="table scenes per design")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--tune", type=int, default=0, metavar="FRAMES",
                        help="first set the thresholds on this many still frames per left-out "
                        "design (other frames than those judged), and judge with them")
    parser.add_argument("--tune-only", action="store_true", help="set the thresholds, judge none")
    parser.add_argument("--ship", action="store_true",
                        help="with --tune: write the thresholds into the shipped model's file")
    parser.add_argument("--speed", type=int, default=0, metavar="SCENES",
                        help="only time the shipped reader on SCENES table photos per deck")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    if args.speed:
        speed(args.speed, args.seed)
        return 0
    if args.train:
        train_folds(args.models, args.views, args.epochs, args.train_seed, args.only,
                    args.photos)
    thresholds: LearnedThresholds | None = None
    frame_thresholds: LearnedThresholds | None = None
    ink_thresholds: LearnedThresholds | None = None
    if args.tune:
        shoe_records, frame_records = tune_records(args.models, args.tune, args.seed, args.only)
        thresholds = LearnedThresholds(*tune(shoe_records, "shoe frames", outcome))
        frame_thresholds, ink_thresholds = tune_frame(frame_records)
        if args.ship:
            ship_thresholds(thresholds, frame_thresholds, ink_thresholds,
                            f"bench.vision_oof --tune {args.tune} --seed {args.seed}")
    if args.tune_only:
        return 0
    if thresholds is None and not args.train:
        # Judged at the shipped thresholds (set by --tune --ship).
        shipped = load()
        thresholds, frame_thresholds = shipped.thresholds, shipped.frame_thresholds
        ink_thresholds = shipped.ink_thresholds
    print("| design (left out with) | still frames | frame mode | cascaded hands "
          "| shoe, 52 cards |")
    print("|---|---|---|---|---|")
    for family, designs in families().items():
        if args.only and family not in args.only:
            continue
        reader = load(fold_model(args.models, family))
        if thresholds is not None and frame_thresholds is not None:
            reader.thresholds, reader.frame_thresholds = thresholds, frame_thresholds
        if ink_thresholds is not None:
            reader.ink_thresholds = ink_thresholds
        for d in designs:
            cells = judged(d, reader, args.frames, args.scenes, args.seed)
            print(f"| {d.name} ({family}) | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
