"""Training views from real photos (development time).

The learned reader learns from rendered decks (calibration.corner_samples);
a real camera adds what no rendering quite makes: a phone's sharpening and
noise, real paper and light, an export that squeezes its frame. So it also
learns from half of the labelled real photos of ../shared/photos (CC BY 4.0:
see tests/data/photos/README.md): each photo's corners are proposed as frame
mode proposes them (drivers.vision.frame.corner_poses, and each whole
card's outline both ways round), and a corner is labelled by the photo's
index boxes (YOLO boxes around each visible index): the card of the box its
index falls in, "not an index" where its corner region touches no box.

The photos are split by card: a photo is learnt from only when every card
in it is a learnt card (`learnt`: half of the 52, every rank in two
suits), and judged (bench.vision_photos --held-out) only when none is, so
the judged photos show cards whose real photos were never learnt from. The
photos the tests read (tests/data/photos) are never learnt from.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from calibration.corner_samples import _camera
from drivers.vision.corner import CARD_H, CARD_W, CornerPose, corner_patch
from drivers.vision.frame import corner_poses, size_range
from drivers.vision.glyphs import Image
from drivers.vision.learned import (
    CORNER_WIDTH,
    NOT_AN_INDEX,
    RANKS,
    SUITS,
    LearnedReader,
    load,
    shrink,
)
from drivers.vision.whole_card import BORDER, corner_patches, portrait_order, warp_card

PHOTOS = Path(__file__).resolve().parent.parent.parent / "shared" / "photos" / "phone-single-card"
NOT_CARDS = {"BACK", "BLACK", "RED", "JOKER"}
# The index of this deck on the canonical card (a rank over its suit), and
# how well a corner's placement of it must match a labelled box.
INDEX = [(0.0, 0.0), (36.0, 0.0), (0.0, 80.0), (36.0, 80.0)]
MIN_IOU = 0.45
NEGATIVES_PER_PHOTO = 2
Box = tuple[float, float, float, float]
U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]


def learnt(card: str) -> bool:
    """Half of the cards, every rank in two suits."""
    return (RANKS.index(card[0]) + SUITS.index(card[1])) % 2 == 0


def code(label: str) -> str | None:
    """The project's code of a label (`10C` -> `TC`), None for a back or a
    joker ("BLACK JOKER")."""
    if any(word in NOT_CARDS for word in label.upper().split()):
        return None
    return ("T" + label[2:]) if label.startswith("10") else label


# Photos with a card in view that their boxes do not label (checked by eye):
# their corners cannot be told "not an index".
UNLABELLED = Path(__file__).resolve().parent.parent / "bench" / "data" / "photo_labels_added.csv"


# The photos the project's tests read (tests/data/photos): never learnt from.
IN_TESTS = Path(__file__).resolve().parent.parent / "tests" / "data" / "photos" / "labels.csv"


def photo_cards(folder: Path = PHOTOS) -> dict[str, set[str]]:
    """Each photo's cards, but for the photos with an unlabelled card and
    those the tests read."""
    skip: set[str] = set()
    for listed in (UNLABELLED, IN_TESTS):
        with listed.open(newline="") as f:
            skip |= {row["file"] for row in csv.DictReader(f)}
    out: dict[str, set[str]] = {}
    with (folder / "labels.csv").open(newline="") as f:
        for row in csv.DictReader(f):
            if row["file"] not in skip:
                out[row["file"]] = {c for c in map(code, row["cards_present"].split()) if c}
    return out


def index_boxes(folder: Path, name: str, shape: tuple[int, ...]) -> list[tuple[Box, str | None]]:
    """The photo's index boxes in pixels, each with its card (None: a back
    or a joker)."""
    # One class a line: "BLACK JOKER" is one class.
    classes = (folder / "classes.txt").read_text().splitlines()
    h, w = shape[0], shape[1]
    out: list[tuple[Box, str | None]] = []
    for line in (folder / name).with_suffix(".txt").read_text().splitlines():
        parts = line.split()
        if len(parts) != 5:
            continue
        k, (x, y, bw, bh) = int(parts[0]), (float(v) for v in parts[1:])
        out.append(((w * (x - bw / 2), h * (y - bh / 2), w * (x + bw / 2), h * (y + bh / 2)),
                    code(classes[k])))
    return out


@dataclass(frozen=True)
class Found:
    """A corner proposed on a photo: posed, or one corner of a whole card's
    outline (`quad`, in the order warp_card takes; `flip`: its opposite
    corner), and its label."""

    pose: CornerPose | None
    quad: npt.NDArray[np.float32] | None
    flip: bool
    rank: int
    suit: int


def _iou(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def _label(region: list[tuple[float, float]], index: list[tuple[float, float]],
           boxes: list[tuple[Box, str | None]]) -> tuple[int, int] | None:
    """(rank, suit) of the box that the corner's index region (its corners
    in the image) matches; NOT_AN_INDEX where no point of the corner
    region comes near a box; None where unsure (a box overlapped, but not
    as an index placed by this corner would be: turned, or at another
    scale)."""
    xs, ys = [x for x, _ in index], [y for _, y in index]
    placed = (min(xs), min(ys), max(xs), max(ys))
    for box, card in boxes:
        if _iou(placed, box) >= MIN_IOU:
            return None if card is None else (RANKS.index(card[0]), SUITS.index(card[1]))
    for (x0, y0, x1, y1), _ in boxes:
        if any(x0 - 8 <= px <= x1 + 8 and y0 - 8 <= py <= y1 + 8 for px, py in region):
            return None
    return (NOT_AN_INDEX, -1)


def corners_of(image: Image, boxes: list[tuple[Box, str | None]]) -> list[Found]:
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    found, _, poses, _ = corner_poses(image, gray, size_range(image.shape[:2]))
    out: list[Found] = []
    region = [(x, y) for x in (0.0, CORNER_WIDTH / 2, CORNER_WIDTH) for y in (0.0, 50.0, 100.0)]
    for *_, p in poses:
        lab = _label([p.to_image(*q) for q in region], [p.to_image(*q) for q in INDEX], boxes)
        if lab is not None:
            out.append(Found(p, None, False, *lab))
    for contour in (found.regions[r] for r in found.widths):
        quad = cv2.approxPolyDP(contour, 0.03 * cv2.arcLength(contour, True), True)
        if len(quad) != 4:
            continue
        box = portrait_order(quad[:, 0, :].astype(np.float32))
        for top in (box, np.roll(box, 1, axis=0)):
            canon = np.array([[0, 0], [CARD_W - 1, 0], [CARD_W - 1, CARD_H - 1], [0, CARD_H - 1]],
                             np.float32)
            m = np.asarray(cv2.getPerspectiveTransform(canon, top.astype(np.float32)), np.float64)
            for flip in (False, True):
                def at(x: float, y: float, m: npt.NDArray[np.float64] = m,
                       flip: bool = flip) -> tuple[float, float]:
                    if flip:
                        x, y = CARD_W - 1 - x, CARD_H - 1 - y
                    q = m @ np.array([x, y, 1.0])
                    return (float(q[0] / q[2]), float(q[1] / q[2]))
                lab = _label([at(*q) for q in region], [at(*q) for q in INDEX], boxes)
                if lab is not None:
                    out.append(Found(None, top, flip, *lab))
    return out


def _jitter_pose(p: CornerPose, rng: np.random.Generator) -> CornerPose:
    a = np.deg2rad(rng.normal(0, 2.0))
    s = float(np.exp(rng.normal(0, 0.05)))
    c, n = np.cos(a) * s, np.sin(a) * s
    u = (c * p.u[0] - n * p.u[1], n * p.u[0] + c * p.u[1])
    v = (c * p.v[0] - n * p.v[1], n * p.v[0] + c * p.v[1])
    shifted = p.moved(float(rng.normal(0, 2.0)), float(rng.normal(0, 2.0)))
    return CornerPose(shifted.origin, u, v, p.source)


def patch_of(image: Image, f: Found, rng: np.random.Generator | None = None) -> Image:
    """A found corner's patch; with `rng`, its pose or outline moved a
    little (the corner finder's error)."""
    if f.pose is not None:
        pose = f.pose if rng is None else _jitter_pose(f.pose, rng)
        return corner_patch(image, pose, CORNER_WIDTH)
    assert f.quad is not None
    quad = f.quad
    if rng is not None:
        side = float(np.linalg.norm(f.quad[1] - f.quad[0]))
        quad = (f.quad + rng.normal(0, 0.012 * side, f.quad.shape)).astype(np.float32)
    return corner_patches(warp_card(image, quad, BORDER), CORNER_WIDTH)[int(f.flip)]


def view(image: Image, f: Found, rng: np.random.Generator) -> Image:
    """One view of a found corner: moved a little, then (mostly) through the
    camera of calibration.corner_samples."""
    patch = patch_of(image, f, rng)
    if rng.random() < 0.7:
        patch = _camera(patch.astype(np.float32), rng)
    return patch


def bank(views: int, seed: int, check: LearnedReader, folder: Path = PHOTOS
         ) -> tuple[U8, I64, I64]:
    """`views` views of each corner found on the learnt photos, at the
    network's input size, with their labels (fewer negatives: at most
    NEGATIVES_PER_PHOTO corners of each photo). A corner labelled a card is
    kept only where `check` (a network that never saw these photos) ranks
    that card first, however unsure: a corner placed upside down matches
    its box as well as one placed right (a 6 read as a 9), and its label
    would teach the network to guess."""
    rng = np.random.default_rng(seed)
    xs: list[Image] = []
    ranks: list[int] = []
    suits: list[int] = []
    for name, cards in sorted(photo_cards(folder).items()):
        if not cards or not all(learnt(c) for c in cards):
            continue
        image = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
        if image is None:
            continue
        found = corners_of(image, index_boxes(folder, name, image.shape))
        pos = [f for f in found if f.rank != NOT_AN_INDEX and _agrees(check, image, f)]
        neg = [f for f in found if f.rank == NOT_AN_INDEX]
        order = rng.permutation(len(neg))
        for f in pos + [neg[int(i)] for i in order[:NEGATIVES_PER_PHOTO]]:
            for _ in range(views):
                xs.append(shrink(view(image, f, rng)))
                ranks.append(f.rank)
                suits.append(f.suit)
    return np.stack(xs), np.array(ranks, np.int64), np.array(suits, np.int64)


def _agrees(check: LearnedReader, image: Image, f: Found) -> bool:
    p = check.probabilities(patch_of(image, f))[0]
    return int(np.argmax(p[:NOT_AN_INDEX])) == f.rank and int(
        np.argmax(p[NOT_AN_INDEX + 1 :])) == f.suit


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m calibration.photo_samples",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", type=Path, required=True,
                        help="a corner network file that never learnt from these photos")
    parser.add_argument("--out", type=Path, required=True, help="the views (.npz)")
    parser.add_argument("--views", type=int, default=8, help="views of each corner")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--photos", type=Path, default=PHOTOS,
                        help="the labelled photos (labels.csv, classes.txt; default: "
                        "../shared/photos/phone-single-card beside the checkout)")
    args = parser.parse_args(argv)
    if not (args.photos / "labels.csv").is_file():
        raise SystemExit(f"no labelled photos in {args.photos} (its labels.csv): give the "
                         "folder with --photos")
    x, r, s = bank(args.views, args.seed, load(args.check), args.photos)
    np.savez(args.out, x=x, rank=r, suit=s)
    print(f"{len(x)} views, {int((r != NOT_AN_INDEX).sum())} of indices, to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
