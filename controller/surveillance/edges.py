"""The house edge of a table's rule profile, for the theoretical win.

Computed by probability (`croupier edge`, controller/engine/edge.py) for the
profile the table runs, whatever its rules: a custom profile file or an
edited shipped one gets its own edge, not a stale or missing figure. The
computation takes a fraction of a second and is cached per set of rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from controller.engine.edge import edge
from controller.engine.profile import RuleProfile


@dataclass(frozen=True, slots=True)
class Edge:
    pct: float  # house edge in percent of the initial stakes (a statistic)
    source: str

    @property
    def fraction(self) -> Decimal:
        """The edge as a fraction, for multiplying stakes (to a ten-thousandth of a point)."""
        return Decimal(repr(self.pct)) / 100


def edge_for(profile: RuleProfile) -> Edge:
    return Edge(round(edge(profile).edge_pct, 4), f"croupier edge --rules {profile.name}")
