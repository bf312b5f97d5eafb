"""The learned reader adapted to a house deck: what its calibration reads with.

The corner network (drivers.vision.learned) learnt from many decks, never
the house's own. A calibration (calibration.adapt) renders views of the
house deck's 52 faces under the camera conditions the network learnt under,
and of what on those faces is no index (pips, court pictures), takes the
network's features of each view, and fits a linear discriminant of the 52
cards and "no index" on them (drivers.vision.lda): the `DeckHead`. A corner
is then read twice, by the network's own heads at their thresholds and by
the deck's discriminant, sure when its best card's log-likelihood ratio
over the runner-up is at least the head's `llr`:

- the network says "not an index": no card;
- the discriminant is sure of the card the network ranks first, however
  unsure the network is: that card;
- else the network's own read (at its thresholds).

So every corner the uncalibrated reader reads is read the same way, and a
corner the network alone is unsure of (an index unlike any it learnt) is
read where the house deck's own likeness agrees with it. The discriminant
alone never names a card: an index half covered by a thumb looks to it,
surely, like another card of the deck (a 6 like a 9), where the network,
which learnt covered indices as no index, ranks another first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from drivers.vision.glyphs import Image
from drivers.vision.lda import Discriminant
from drivers.vision.learned import F32, CornerRead, LearnedReader, LearnedThresholds

NO_INDEX = "??"  # the discriminant's class of what is no index


@dataclass(frozen=True)
class DeckHead:
    """The house deck's discriminant over the network's features."""

    discriminant: Discriminant  # labels: the 52 card codes and NO_INDEX
    llr: float  # sure at this log-likelihood ratio (the shoe)
    frame_llr: float  # frame mode: more corners proposed that are no index
    network: str  # the digest of the corner network it was fitted with


class AdaptedReader(LearnedReader):
    """The corner network and a house deck's head (see the module)."""

    name = "adapted"

    def __init__(self, base: LearnedReader, head: DeckHead) -> None:
        if head.network != base.digest:
            raise ValueError("the calibration was made with another corner network: "
                             "calibrate again")
        super().__init__(base.onnx, base.thresholds, base.meta, base.frame_thresholds,
                         base.ink_thresholds)
        self.head = head

    def read_corner(self, patch: Image) -> CornerRead:
        p, e = self.features(patch)
        return self.combine(p[0], e[0], self.thresholds, self.head.llr)

    def read_corners(self, patches: list[Image], ink: bool = False) -> list[CornerRead]:
        if not patches:
            return []
        p, e = self.features(patches)
        t = self.ink_thresholds if ink else self.frame_thresholds
        return [self.combine(pi, ei, t, self.head.frame_llr)
                for pi, ei in zip(p, e, strict=True)]

    def combine(self, p: F32, e: F32, t: LearnedThresholds, llr: float) -> CornerRead:
        """One corner's read from the network's probabilities `p` and
        features `e` (see the module)."""
        net = self.decide(p, t)
        if net.best == NO_INDEX:
            return net
        d = self.head.discriminant.decide(e)
        if d.label != net.best or d.llr < llr:
            return net
        # (the discriminant's posterior of its best class over the runner-up)
        confidence = float(1.0 / (1.0 + np.exp(-d.llr)))
        return CornerRead(d.label, max(confidence, net.confidence), d.label, net.p, net.is_index)
