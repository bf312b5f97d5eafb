"""Template model of rank and suit glyphs, and the decision to read or reject.

A glyph is compared with every template (Euclidean distance of feature
vectors). It is read only when the nearest template is close enough and
clearly nearer than any template of another class; otherwise the read is
rejected. A rejected card becomes an `unreadable` alert for the dealer: the
reader never guesses.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from drivers.camera.features import Vector, rank_features, suit_features
from drivers.camera.glyphs import IndexGlyphs

RANKS = "A23456789TJQK"
SUITS = "SHDC"
RED_SUITS = "HD"

# A suit whose ink is clearly red (or clearly not) must agree with its shape.
RED_MIN = 0.12
BLACK_MAX = 0.05


@dataclass(frozen=True)
class GlyphScore:
    label: str | None  # None: nothing close enough
    distance: float  # to the nearest template of that label
    runner_up: float  # to the nearest template of any other label
    confidence: float  # 0..1


@dataclass(frozen=True)
class IndexRead:
    card: str | None
    confidence: float
    rank: GlyphScore
    suit: GlyphScore


@dataclass(frozen=True)
class Thresholds:
    """Acceptance rule. `max_distance` bounds how unlike every template a
    glyph may be; `min_confidence` is the card-level decision threshold."""

    max_rank_distance: float = 0.8
    max_suit_distance: float = 0.8
    min_confidence: float = 0.25


class TemplateSet:
    """Labelled feature vectors of one kind of glyph (ranks or suits)."""

    def __init__(self, vectors: npt.NDArray[np.float32], labels: list[str]) -> None:
        if vectors.ndim != 2 or vectors.shape[0] != len(labels) or not labels:
            raise ValueError("templates need one label per feature vector")
        self.vectors = vectors.astype(np.float32)
        self.labels = labels
        self.classes = sorted(set(labels))
        self._norms = np.einsum("ij,ij->i", self.vectors, self.vectors)
        self._class_of = np.array([self.classes.index(c) for c in labels])

    def score(self, v: Vector, max_distance: float, allowed: str | None = None) -> GlyphScore:
        """Nearest class; `allowed` limits the classes compared (colour)."""
        d2 = self._norms - 2.0 * (self.vectors @ v) + float(v @ v)
        d = np.sqrt(np.maximum(d2, 0.0))
        per_class = np.full(len(self.classes), np.inf)
        np.minimum.at(per_class, self._class_of, d)
        if allowed is not None:
            for k, c in enumerate(self.classes):
                if c not in allowed:
                    per_class[k] = np.inf
        order = np.argsort(per_class)
        best = float(per_class[order[0]])
        second = float(per_class[order[1]]) if len(order) > 1 else float("inf")
        label = self.classes[int(order[0])]
        # Confidence: how much nearer the best class is than the next one,
        # scaled down as the glyph gets unlike even its best template (a
        # glyph half lost to glare is near nothing, so "nearest" means little).
        conf = (1.0 - best / second) * max(0.0, 1.0 - best) if second > 0 else 0.0
        if best > max_distance:
            return GlyphScore(None, best, second, 0.0)
        return GlyphScore(label, best, second, float(max(0.0, conf)))


@dataclass
class GlyphModel:
    """What the reader knows about a deck: rank and suit templates."""

    ranks: TemplateSet
    suits: TemplateSet
    thresholds: Thresholds
    name: str = "generic"

    def read(self, index: IndexGlyphs) -> IndexRead:
        rank = self.ranks.score(rank_features(index.rank_ink), self.thresholds.max_rank_distance)
        # Colour, when clear, settles red against black; the shape then only
        # has to tell hearts from diamonds or spades from clubs.
        suit = self.suits.score(
            suit_features(index.suit_ink),
            self.thresholds.max_suit_distance,
            suits_of_colour(index.redness),
        )
        if rank.label is None or suit.label is None:
            return IndexRead(None, 0.0, rank, suit)
        if not colour_agrees(suit.label, index.redness):
            return IndexRead(None, 0.0, rank, suit)
        conf = min(rank.confidence, suit.confidence)
        card = rank.label + suit.label
        if conf < self.thresholds.min_confidence:
            return IndexRead(None, conf, rank, suit)
        return IndexRead(card, conf, rank, suit)


def suits_of_colour(redness: float) -> str | None:
    """The suits the ink colour allows, or None when it is not clear (a grey
    camera, washed-out or mixed light)."""
    if redness < 0:
        return None
    if redness >= RED_MIN:
        return RED_SUITS
    if redness <= BLACK_MAX:
        return "SC"
    return None


def colour_agrees(suit: str, redness: float) -> bool:
    """False when the colour of the ink clearly contradicts the suit shape.
    Grey images (redness < 0) and washed-out colour leave the shape alone."""
    if redness < 0:
        return True
    if suit in RED_SUITS:
        return redness > BLACK_MAX
    return redness < RED_MIN
