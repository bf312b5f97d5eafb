"""The card reader on real photos: every card of each photo, read or not.

    python -m bench vision_photos [--photos DIR] [--calibration FILE | --model FILE] [--limit N]
                                  [--missed]

DIR holds photos and a `labels.csv` (`file,cards_present`: the photo's
cards, space-separated, `10` for a ten; backs and jokers are not cards to
read). Default: ../shared/photos/phone-single-card (real phone photos of a
deck and a camera the reader never learnt from; CC BY 4.0, see
tests/data/photos/README.md). Each photo is read as `croupier vision read`
reads it (drivers.vision.frame.read_frame) and its reads compared with its
cards: a card read is right when the photo holds it, a misread when it
does not; a card of the photo not read is missed. Time: each photo's wall
time on one thread.
"""

from __future__ import annotations

import argparse
import csv
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from drivers.vision.frame import read_frame, size_range
from drivers.vision.reader import Model

PHOTOS = Path(__file__).resolve().parent.parent.parent / "shared" / "photos" / "phone-single-card"
NOT_CARDS = {"BACK", "BLACK", "RED", "JOKER"}


def card_code(label: str) -> str | None:
    """The project's code of a label (`10C` -> `TC`), None for no card."""
    if label.upper() in NOT_CARDS:
        return None
    return ("T" + label[2:]) if label.startswith("10") else label


ADDED = Path(__file__).resolve().parent / "data" / "photo_labels_added.csv"


def labels(folder: Path) -> dict[str, set[str]]:
    """Each photo's cards: its labels, and the cards in view that the
    source did not label (ADDED: each read by the reader as a card the photo
    did not hold, then checked by eye)."""
    out: dict[str, set[str]] = {}
    with (folder / "labels.csv").open(newline="") as f:
        for row in csv.DictReader(f):
            codes = (card_code(c) for c in row["cards_present"].split())
            out[row["file"]] = {c for c in codes if c is not None}
    with ADDED.open(newline="") as f:
        for row in csv.DictReader(f):
            if row["file"] in out:
                out[row["file"]] |= set(row["cards_added"].split())
    return out


@dataclass
class PhotoTally:
    photos: int = 0
    cards: int = 0
    right: int = 0
    misread: int = 0
    times: list[float] = field(default_factory=list)
    misreads: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)

    def line(self) -> str:
        t = np.array(self.times) * 1000.0
        return (f"photos {self.photos} cards {self.cards} read {self.right} "
                f"({100.0 * self.right / max(self.cards, 1):.1f}%) misread {self.misread} "
                f"ms/photo p50 {np.percentile(t, 50):.1f} p99 {np.percentile(t, 99):.1f}")


def run(folder: Path, model: Model, limit: int | None = None,
        every: int = 1, split: str = "all") -> PhotoTally:
    """`split`: "all" photos, those "held-out" from the reader's learning
    (none of their cards learnt: calibration.photo_samples), or "learnt"."""
    from calibration.photo_samples import IN_TESTS, learnt

    tally = PhotoTally()
    truth = labels(folder)
    with IN_TESTS.open(newline="") as f:
        in_tests = {row["file"] for row in csv.DictReader(f)}
    names = sorted(truth)
    if split == "held-out":
        names = [n for n in names if not any(learnt(c) for c in truth[n])]
    elif split == "learnt":
        names = [n for n in names if n not in in_tests and all(learnt(c) for c in truth[n])]
    for name in names[::every][:limit]:
        image = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
        if image is None:
            continue
        t0 = time.perf_counter()
        found = read_frame(image, model, short_side=size_range(image.shape[:2]))
        tally.times.append(time.perf_counter() - t0)
        got = {c.card for c in found if c.card is not None}
        tally.photos += 1
        tally.cards += len(truth[name])
        tally.right += len(got & truth[name])
        wrong = got - truth[name]
        tally.misread += len(wrong)
        tally.misreads += [f"{name}: {w} (holds {' '.join(sorted(truth[name]))})" for w in wrong]
        tally.missed += [f"{name}: {c}" for c in sorted(truth[name] - got)]
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench vision_photos",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=Path, default=PHOTOS)
    parser.add_argument("--calibration", type=Path)
    parser.add_argument("--model", type=Path,
                        help="a corner network file (and its .json: thresholds) in place of "
                        "the shipped one, e.g. one trained to be weighed before it ships")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--every", type=int, default=1, help="read every Nth photo")
    parser.add_argument("--missed", action="store_true",
                        help="also list each card of a photo that was not read")
    parser.add_argument("--split", choices=("all", "held-out", "learnt"), default="held-out",
                        help="the photos of cards whose real photos were never learnt from "
                        "(calibration.photo_samples), those learnt from, or all")
    args = parser.parse_args(argv)
    if args.calibration and args.model:
        parser.error("--calibration names its own network: give one of it and --model")
    cv2.setNumThreads(1)
    model: Model
    if args.model:
        from drivers.vision.learned import ModelError
        from drivers.vision.learned import load as load_network

        try:
            model = load_network(args.model)
        except ModelError as exc:
            raise SystemExit(str(exc)) from None
    elif args.calibration:
        from drivers.vision.vision_file import load

        model = load(args.calibration).model()
    else:
        from drivers.vision.learned import learned_model

        model = learned_model()
    tally = run(args.photos, model, args.limit, args.every, args.split)
    print(tally.line())
    for m in tally.misreads[:20]:
        print("  misread", m)
    for m in tally.missed if args.missed else []:
        print("  missed", m)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
