"""Table metrics over a sliding window: pace, occupancy, bets, theoretical and actual win.

Fed by the surveillance desk with the service's clock (monotonic seconds) for
what happens live; records replayed from the journal at a restart carry no
time and are not counted, so the window fills again from the restart.

- rounds and hands (every hand played, split hands included) per hour;
- decision time: from the moment the table waits for a box's decision to
  the event that answers it (a card, stand, double, split, surrender);
- occupancy: boxes with a stake per round, and their share of the table's
  boxes; players (holders and players betting behind) per round;
- average bet: the stakes the rounds closed on, per player and round;
- handle: everything wagered (stakes, doubles, splits, insurance);
- drop: the cash and markers exchanged for chips at the table. The table has
  no sensor on its drop box, so it is null (see docs/surveillance.md);
- theoretical win: the stakes the rounds closed on times the profile's house
  edge under basic strategy (`edges.py`, computed by `croupier edge`),
  against the actual win (the house's net).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from controller.engine.money import fmt

from .edges import Edge
from .stats import quantile

CENT = Decimal("0.01")
ZERO = Decimal(0)


@dataclass(frozen=True, slots=True)
class RoundFigures:
    at: float
    boxes: int
    players: int
    hands: int
    staked: Decimal  # the stakes the round closed on
    handle: Decimal  # + doubles, splits, insurance
    house_net: Decimal


class Metrics:
    def __init__(self, boxes: int, window_s: float, edge: Edge | None) -> None:
        self.boxes = boxes
        self.window_s = window_s
        self.edge = edge
        self.rounds: deque[RoundFigures] = deque()
        self.decisions: deque[tuple[float, float]] = deque()  # (at, seconds waited)
        self.started: float | None = None  # the first live record

    def seen(self, now: float) -> None:
        if self.started is None:
            self.started = now

    def round_over(self, now: float, outcome: Any, staked: Decimal) -> None:
        """A round settled or was voided (`outcome`: engine.outcome.Outcome)."""
        self.seen(now)
        players = hands = 0
        handle = ZERO
        for box in outcome.boxes:
            hands += len(box.hands)
            for p in box.players:
                players += 1
                handle += p.stake + p.insurance
        self.rounds.append(
            RoundFigures(now, len(outcome.boxes), players, hands, staked, handle, outcome.house_net)
        )

    def decision(self, now: float, seconds: float) -> None:
        self.seen(now)
        self.decisions.append((now, seconds))

    def _prune(self, now: float) -> None:
        start = now - self.window_s
        while self.rounds and self.rounds[0].at < start:
            self.rounds.popleft()
        while self.decisions and self.decisions[0][0] < start:
            self.decisions.popleft()

    def snapshot(self, now: float) -> dict[str, Any]:
        self._prune(now)
        covered = 0.0 if self.started is None else min(self.window_s, now - self.started)
        per_hour = 3600.0 / covered if covered > 0 else None
        rounds = list(self.rounds)
        n = len(rounds)
        staked = sum((r.staked for r in rounds), ZERO)
        players = sum(r.players for r in rounds)
        hands = sum(r.hands for r in rounds)
        actual = sum((r.house_net for r in rounds), ZERO)
        theo = None if self.edge is None else (staked * self.edge.fraction).quantize(CENT)
        waits = sorted(s for _, s in self.decisions)
        return {
            "window_s": self.window_s,
            "covered_s": round(covered, 1),
            "rounds": n,
            "rounds_per_hour": None if per_hour is None else round(n * per_hour, 1),
            "hands": hands,
            "hands_per_hour": None if per_hour is None else round(hands * per_hour, 1),
            "decision_time_s": {
                "decisions": len(waits),
                "mean": round(sum(waits) / len(waits), 3) if waits else None,
                "p50": round(quantile(waits, 0.5), 3) if waits else None,
                "p90": round(quantile(waits, 0.9), 3) if waits else None,
            },
            "occupancy": {
                "boxes": self.boxes,
                "occupied_per_round": round(sum(r.boxes for r in rounds) / n, 2) if n else None,
                "share": round(sum(r.boxes for r in rounds) / (n * self.boxes), 3) if n else None,
                "players_per_round": round(players / n, 2) if n else None,
            },
            "average_bet": fmt((staked / players).quantize(CENT)) if players else None,
            "staked": fmt(staked),
            "handle": fmt(sum((r.handle for r in rounds), ZERO)),
            "drop": None,
            "house_edge_pct": None if self.edge is None else self.edge.pct,
            "house_edge_source": None if self.edge is None else self.edge.source,
            "theoretical_win": None if theo is None else fmt(theo),
            "actual_win": fmt(actual),
        }
