"""The house edge of each shipped rule profile, for the theoretical win.

Measured once with `croupier simulate` (basic strategy played through the
table's own engine, flat stakes, no insurance) and shipped as data: a table
cannot spend minutes of its Pi simulating at start-up. Each figure carries the
fingerprint of the rules it was measured on: a profile whose rules differ
(the same name, edited) gets no edge, and the metrics say so, rather than a
wrong one. `python -m bench surveillance --edges` measures the table again
and prints it in this form.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from decimal import Decimal

from controller.engine.profile import RuleProfile

# Settings that do not change what basic strategy wins or loses per unit staked.
NOT_PLAYED = (
    "table_min",
    "table_max",
    "bet_multiple",
    "boxes",
    "bets_behind",
    "max_players_per_box",
    "insurance_raise",
    "misdeal_offer",
)


def fingerprint(profile: RuleProfile) -> str:
    settings = {k: str(v) for k, v in profile.settings().items() if k not in NOT_PLAYED}
    text = json.dumps(settings, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class Edge:
    pct: float  # house edge in percent of the stakes (a statistic)
    stderr_pct: float
    source: str

    @property
    def fraction(self) -> Decimal:
        """The edge as a fraction, for multiplying stakes (rounded to the figure's precision)."""
        return Decimal(repr(self.pct)) / 100


# profile: (fingerprint, house edge %, standard error %, hands, seed)
# Measured with `python -m bench surveillance --edges --hands 2000000` (2 million
# hands per profile: a standard error under 0.1 point, enough for a theoretical win).
MEASURED: dict[str, tuple[str, float, float, int, int]] = {
    "fr-classic": ("8fe35d42c0a2", 0.5087, 0.0918, 2000000, 1),
    "fr-2007": ("e9bce4650426", 0.5695, 0.0802, 2000000, 1),
    "us-holecard": ("0a8fea15db37", 0.3417, 0.0817, 2000000, 1),
    "pt": ("491957cb8cc1", 0.4128, 0.0942, 2000000, 1),
    "be-casino": ("8fde08668a0d", 2.0315, 0.0924, 2000000, 1),
    "ref-peek": ("db6472affba0", 0.3417, 0.0817, 2000000, 1),
    "ref-enhc": ("355e9cd46c3f", 0.5698, 0.0803, 2000000, 1),
}


def edge_for(profile: RuleProfile) -> Edge | None:
    row = MEASURED.get(profile.name)
    if row is None or row[0] != fingerprint(profile):
        return None
    _, pct, err, hands, seed = row
    return Edge(pct, err, f"croupier simulate --rules {profile.name} --hands {hands} --seed {seed}")
