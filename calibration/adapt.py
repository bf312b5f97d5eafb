"""Adapting the learned reader to a house deck (calibration time).

From the deck's own 52 faces: views of each index corner as the shoe and
table cameras show them (calibration.corner_samples, the views the network
learnt from, here of this deck alone) and views of what on the deck is no
index (pips, court pictures, an index whose rank is covered; card backs and
felt), the network's features
of each, and a linear discriminant of the 52 cards and "no index" on them:
the deck's head (drivers.vision.adapted). Then the head is checked on other
views of the same faces: a card another card's views are taken for, or
whose own views read as another card, is refused by name; and each card
is dealt through a simulated shoe and read as the shoe reads it: a deck
the shoe misreads the same way again is refused, naming the confusion.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from calibration.corner_samples import covered, sample
from drivers.vision.adapted import NO_INDEX, AdaptedReader, DeckHead
from drivers.vision.glyphs import Image
from drivers.vision.lda import Discriminant
from drivers.vision.learned import RANKS, SUITS, LearnedReader, LearnedThresholds
from drivers.vision.shoe import ShoeGeometry, read_still
from sim.camera.decks import to_bgra
from sim.camera.shoe import ShoeCamera

ALL_CARDS = tuple(r + s for s in SUITS for r in RANKS)
VIEWS = 32  # views of each card's index corner learnt from
NEGATIVE_VIEWS = 640  # views of what is no index
CHECK_VIEWS = 12  # other views of each card, read to check the head
MISREAD_VIEWS = 2  # of them read as another card: the card is refused
# Each card dealt this many times through a simulated shoe (`dealt`); the
# deck is refused where the shoe misreads one same way (a suit as another,
# a rank as another) in SHOE_CONFUSIONS of those frames (shoe_misreads).
# Two: of 11 decks tried with 6 frames a card, none with filled suits had
# one frame misread, and the outlined deck that misread in deals had 5
# (docs/vision.md).
SHOE_STILLS = 8
SHOE_CONFUSIONS = 2
NAMES = {"S": "spade", "H": "heart", "D": "diamond", "C": "club", "A": "ace", "T": "ten",
         "J": "jack", "Q": "queen", "K": "king", **{r: r for r in "23456789"}}
# A card read in fewer of them than this share is weak: said, not refused
# (the views span the whole camera envelope, cards 70 to 440 px wide,
# blurred, in glare; and a weak card is keyed in, never guessed).
MIN_READ = 0.25
SHRINK = 0.1  # the pooled covariance pulled toward its mean variance
# Sure at these log-likelihood ratios (best card over the runner-up). The
# shoe's tune gave 25 on still frames (2 for the two merged networks); it
# is 60 because an svg-cards 6 with the top of its rank covered was
# confirmed as the 9 the network ranked first at 42 (tests/vision/test_shoe.py).
# Frame mode's was 60, set out of fold for one network; the two merged
# networks' 256 features give larger ratios, and at 60 and 70 a judged
# svg-cards table scene misread a card (bench.vision_adapt): 80, set by
# hand, where it did not. The tune (corner by corner, not as frame mode
# gathers them) finds no ratio without a misread.
LLR = 60.0
FRAME_LLR = 80.0


class AdaptError(ValueError):
    """A deck the reader cannot be adapted to, naming the card and why."""


def _views(faces: dict[str, Image], per_card: int, negatives: int, seed: int
           ) -> tuple[list[Image], list[str]]:
    rng = np.random.default_rng(seed)
    patches, labels = [], []
    for code in ALL_CARDS:
        one = {code: faces[code]}
        for _ in range(per_card):
            # (placed from the card's edges, as the shoe and outlines place
            # them: the head was judged out of fold on those)
            patches.append(sample(one, rng, negative=0.0, ink=0.0).patch)
            labels.append(code)
    for k in range(negatives):
        # Half of them an index whose rank is covered: the head must not
        # take what is left of a rank for the rank it is part of.
        view = (covered(faces, rng) if k % 2 else None) or sample(faces, rng, negative=1.0, kinds=5)
        patches.append(view.patch)
        labels.append(NO_INDEX)
    return patches, labels


@dataclass(frozen=True)
class Adapted:
    reader: AdaptedReader
    read: dict[str, int]  # of each card's CHECK_VIEWS views, how many were read

    def weak(self) -> list[str]:
        """The cards read in fewer than MIN_READ of their views."""
        return [c for c in ALL_CARDS if self.read[c] < MIN_READ * CHECK_VIEWS]


def adapt(faces: dict[str, Image], base: LearnedReader, seed: int = 0,
          progress: Callable[[str], None] | None = None) -> Adapted:
    """The learned reader adapted to the deck of these 52 faces (BGR or
    BGRA, each at its own size and ratio), and how well it read each card's
    views; AdaptError names a card it would misread."""
    missing = [c for c in ALL_CARDS if c not in faces]
    if missing:
        raise AdaptError(f"missing cards: {' '.join(missing)}")
    if progress:
        progress("rendering views of the 52 faces")
    patches, labels = _views(faces, VIEWS, NEGATIVE_VIEWS, seed)
    _, e = base.features(patches)
    head = DeckHead(Discriminant.train(e, labels, shrink=SHRINK), LLR, FRAME_LLR, base.digest)
    reader = AdaptedReader(base, head)
    if progress:
        progress("checking the reader on other views")
    return Adapted(reader, check(reader, faces, seed + 1))


def check(reader: AdaptedReader, faces: dict[str, Image], seed: int) -> dict[str, int]:
    """Other views of each card, read by the adapted reader: a card whose
    image the network alone reads as another card, or read as another card
    in MISREAD_VIEWS of them, is refused (images named wrongly, or two cards
    of the deck too alike). Returns how many of its views each card was read
    in: a card read in few is no danger (it is never guessed) but will often
    be keyed in by the dealer (`weak`)."""
    patches, labels = _views(faces, CHECK_VIEWS, 0, seed)
    p, e = reader.features(patches)
    # The views span both cameras' envelopes (the shoe's, and a table
    # camera's cards 70 px wide and blurred): each is read at the stricter
    # of the shoe's and frame mode's thresholds and ratios, so that a view
    # the shoe never sees is not judged by the shoe's looser ones.
    t = LearnedThresholds(max(reader.thresholds.rank, reader.frame_thresholds.rank),
                          max(reader.thresholds.suit, reader.frame_thresholds.suit))
    llr = max(reader.head.llr, reader.head.frame_llr)
    # The network alone, sure of another card in a card's views: its image
    # shows another card (a deck the network reads as it is).
    named: dict[str, Counter[str]] = {}
    for truth, pi in zip(labels, p, strict=True):
        alone = reader.decide(pi, t).card
        if alone is not None and alone != truth:
            named.setdefault(truth, Counter())[alone] += 1
    for truth in ALL_CARDS:
        if truth in named and sum(named[truth].values()) >= CHECK_VIEWS / 4:
            shown = named[truth].most_common(1)[0][0]
            raise AdaptError(f"{truth}: its image shows {shown}; check the image names")
    read: Counter[str] = Counter()  # at the shoe's own thresholds: how often keyed in
    misread: dict[str, Counter[str]] = {}
    for truth, pi, ei in zip(labels, p, e, strict=True):
        wrong = reader.combine(pi, ei, t, llr).card
        if wrong is not None and wrong != truth:
            misread.setdefault(truth, Counter())[wrong] += 1
        read[truth] += reader.combine(pi, ei, reader.thresholds, reader.head.llr).card == truth
    for truth, other in misread.items():
        # One view in twelve, at the far end of the camera envelope (a card
        # 70 px wide, blurred), may go wrong on any deck; the same card
        # going wrong again is the deck's (or its image names').
        if sum(other.values()) >= MISREAD_VIEWS:
            raise AdaptError(f"{truth}: {sum(other.values())} of {CHECK_VIEWS} views of it read "
                             f"as {other.most_common(1)[0][0]}; check the image names, or the "
                             "deck's indices are too alike")
    shoe_misreads(dealt(reader, faces, seed))
    return {c: read[c] for c in ALL_CARDS}


def dealt(reader: AdaptedReader, faces: dict[str, Image], seed: int) -> dict[str, Counter[str]]:
    """Each card at rest in a simulated shoe (sim.camera.shoe, the nominal
    mount) SHOE_STILLS times, read as the shoe reads a frame (at its own
    thresholds, looser than the check views'): which cards each was read
    as, where not itself."""
    # (a camera calibration's cards are cut from its shots: no alpha)
    cam = ShoeCamera({c: to_bgra(f) for c, f in faces.items()}, seed=seed)
    geometry = ShoeGeometry()
    out: dict[str, Counter[str]] = {}
    for truth in ALL_CARDS:
        for _ in range(SHOE_STILLS):
            got = read_still(cam.still(truth), reader, geometry)[0]
            if got is not None and got != truth:
                out.setdefault(truth, Counter())[got] += 1
    return out


def shoe_misreads(in_shoe: dict[str, Counter[str]]) -> None:
    """Refuse a deck whose cards the shoe (`dealt`) misreads the same way
    again: one suit read as another, or one rank as another, in
    SHOE_CONFUSIONS frames or more of the whole deck. A confusion its
    frames repeat, the shoe repeats in deals (bench vision_unseen: a deck
    whose suits are only outlined had its spades read as clubs in the shoe
    after a calibration that checked views at the strict thresholds
    alone)."""
    confusions: dict[str, Counter[str]] = {}
    for truth, other in in_shoe.items():
        for got, n in other.items():
            for k, what in ((0, "rank"), (1, "suit")):
                if got[k] != truth[k]:
                    key = f"{what} {truth[k]} as {got[k]}"
                    confusions.setdefault(key, Counter())[f"{truth} as {got}"] += n
    if not confusions:
        return
    key, cards = max(confusions.items(), key=lambda kv: sum(kv[1].values()))
    if (n := sum(cards.values())) >= SHOE_CONFUSIONS:
        _, a, _, b = key.split()
        named = ", ".join(f"{c} ({k})" for c, k in cards.most_common(4))
        raise AdaptError(f"the shoe would misread this deck: {n} of its frames read "
                         f"{_a(NAMES[a])} as {_a(NAMES[b])} ({named}); its {NAMES[a]}s and "
                         f"{NAMES[b]}s are too alike for the reader")


def _a(word: str) -> str:
    return f"an {word}" if word[0] in "aeio8" else f"a {word}"
