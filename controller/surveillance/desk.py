"""The surveillance desk: every analytics module fed from the table, messages out.

The service hands it what it hands the engine and what came back:

- `before()` just before an event is applied, `applied(operations, ...)`
  right after (the operation records), `foreign_card(card, ...)` when the
  engine refused a card the shoe cannot hold;
- `bet_seen(reading, ...)` for every bet sensor reading;
- `metrics(now, at)` from the service's one-minute timer;
- `snapshots()` whenever the service refreshes its retained topics.

Everything it returns is a (topic, payload) for a `surveillance/...` topic.
It never publishes, reads a clock or touches a file: `now` comes from the
service (monotonic seconds) for live records and is None for records
replayed from the journal, which rebuild everything but the timings.
Alert ids are made from the journal record's seq, so an alert regenerated
by a replay has the id it had the first time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, NamedTuple

from controller.engine import Table, ops
from controller.engine.money import fmt
from drivers.interfaces import BetSeen

from .betcount import Observations, Summary
from .count import count
from .decisions import Decision, DecisionWatch
from .edges import Edge
from .metrics import Metrics
from .payouts import PayoutCheck, PayoutError
from .shoewatch import Finding, ShoeWatch

# Topics below croupier/v1/<table>/ (docs/surveillance.md).
ALERTS = "surveillance/alerts"  # stream: foreign_card, payout_error, advantage_play, ...
DECISIONS = "surveillance/decisions"  # stream: each round's decisions off basic strategy
SHOES = "surveillance/shoe"  # stream: the report on each shoe that ends
METRICS = "surveillance/metrics"  # stream: table metrics, every minute
COUNT = "surveillance/count"  # retained: the count now
PLAYERS = "surveillance/players"  # retained: each spot's bets against the count, decisions
TOPICS = (ALERTS, DECISIONS, SHOES, METRICS, COUNT, PLAYERS)


class Out(NamedTuple):
    topic: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class Settings:
    count_z: float = 3.5  # advantage_play when a session's z reaches this
    count_min_rounds: int = 10  # ... after at least this many observations
    session_gap_rounds: int = 10  # a spot empty this many rounds starts a new session
    metrics_window_s: float = 3600.0
    payout_tolerance: Decimal = Decimal(0)


@dataclass
class Session:
    """One player's stay on one betting spot (see Settings.session_gap_rounds)."""

    box: int
    player: str
    since: int  # the first round
    rounds: int = 0
    absent: int = 0
    bets: Observations = field(default_factory=Observations)
    shoe_bets: Observations = field(default_factory=Observations)
    summary: Summary | None = None
    shoe_summary: Summary | None = None
    flagged: int | None = None  # the round advantage_play was raised
    decisions: int = 0
    deviations: int = 0
    cost_units: float = 0.0
    cost: Decimal = Decimal(0)

    def json(self) -> dict[str, Any]:
        return {
            "box": self.box,
            "player": self.player,
            "since_round": self.since,
            "rounds": self.rounds,
            "bets": None if self.summary is None else self.summary.json(),
            "shoe_bets": None if self.shoe_summary is None else self.shoe_summary.json(),
            "advantage_play_round": self.flagged,
            "decisions": {
                "decisions": self.decisions,
                "deviations": self.deviations,
                "cost_units": round(self.cost_units, 4),
                "cost": fmt(self.cost),
            },
        }


class Surveillance:
    def __init__(self, table: Table, table_id: str, settings: Settings, edge: Edge | None) -> None:
        self.table = table
        self.table_id = table_id
        self.settings = settings
        self.unit = table.table_min
        self.shoe = ShoeWatch(table.shoe, table.burned)
        self.decisions = DecisionWatch(table)
        self.payouts = PayoutCheck(settings.payout_tolerance)
        self.metrics_ = Metrics(table.boxes, settings.metrics_window_s, edge)
        self.sessions: dict[tuple[int, str], Session] = {}
        self._staked: Decimal = Decimal(0)  # the stakes of the round in play
        self._wait: tuple[Any, ...] | None = None  # the decision the table waits for
        self._waited: float | None = None  # since when (monotonic)
        self._count_at: tuple[int, ...] = ()  # the shoe as the last count snapshot saw it
        self._players_changed = True

    # ------------------------------------------------------------ the feed
    def before(self) -> None:
        self.decisions.before()

    def applied(self, operations: list[ops.Operation], seq: int, now: float | None) -> list[Out]:
        alerts: list[tuple[str, str, int, int | None, dict[str, Any]]] = []
        out: list[Out] = []
        self.decisions.after(operations)
        for op in operations:
            if isinstance(op, ops.ShoeStarted):
                report, findings = self.shoe.new_shoe(self.table.shoe, self.table.burned)
                out.append(Out(SHOES, self._shoe_report(report)))
                alerts += [self._finding(f, self.table.rounds + 1) for f in findings]
                for s in self.sessions.values():
                    s.shoe_bets = Observations()
                    s.shoe_summary = None
                self._players_changed = True
            elif isinstance(op, ops.BetsClosed):
                self._players_changed = True
                alerts += [self._payout(e) for e in self.payouts.close()]
                past = self.shoe.bets_closed(op.round)
                if past is not None:
                    alerts.append(self._finding(past, op.round))
                alerts += self._bets(op.round)
            elif isinstance(op, ops.RoundSettled | ops.RoundVoided):
                self._players_changed = True
                alerts += [self._payout(e) for e in self.payouts.settled(op.outcome)]
                decided = self._round_decisions(op.round)
                if decided is not None:
                    out.append(decided)
                if now is not None:
                    self.metrics_.round_over(now, op.outcome, self._staked)
        if now is not None:
            self._time_decisions(now)
        return [*(Out(ALERTS, self._alert(seq, n, *a)) for n, a in enumerate(alerts)), *out]

    def foreign_card(self, card: str, seq: int) -> list[Out]:
        finding = self.shoe.foreign_card(card)
        r = self.table.round
        number = r.number if r is not None and not r.over else self.table.rounds + 1
        return [Out(ALERTS, self._alert(seq, 0, *self._finding(finding, number)))]

    def bet_seen(self, seen: BetSeen, seq: int) -> list[Out]:
        if seen.kind != "stake":
            return []  # insurance has a spot of its own; its payout is not checked
        errors = self.payouts.reading(seen.box, seen.spot, seen.amount)
        return [Out(ALERTS, self._alert(seq, n, *self._payout(e))) for n, e in enumerate(errors)]

    # --------------------------------------------------------- the topics
    def metrics(self, now: float, at: str) -> Out:
        body = {
            "table": self.table_id,
            "at": at,
            **self.metrics_.snapshot(now),
            "payouts": {"checked": self.payouts.checked, "unchecked": self.payouts.unchecked},
        }
        return Out(METRICS, body)

    def snapshots(self) -> list[Out]:
        """The retained topics that changed since the last call (the service keeps the
        newest of each and publishes it again on every connect)."""
        out = []
        shoe = self.table.shoe
        at = (self.shoe.number, shoe.out, len(self.table.burned), self.table.rounds)
        if at != self._count_at:
            self._count_at = at
            c = count(shoe, self.table.burned)
            body = {
                "table": self.table_id,
                "shoe": self.shoe.number,
                "known": self.shoe.known,
                "round": self.table.rounds,
                **c.json(),
            }
            if not self.shoe.known:
                body.update(running=None, running_seen=None, true_count=None)
            out.append(Out(COUNT, body))
        if self._players_changed:
            self._players_changed = False
            out.append(
                Out(
                    PLAYERS,
                    {
                        "table": self.table_id,
                        "round": self.table.rounds,
                        "spots": [s.json() for _, s in sorted(self.sessions.items())],
                    },
                )
            )
        return out

    # ------------------------------------------------------------ details
    def _bets(self, number: int) -> list[tuple[str, str, int, int | None, dict[str, Any]]]:
        """Bets closed: one observation per stake, against the players' true count."""
        r = self.table.round
        assert r is not None
        tc = count(self.table.shoe, self.table.burned).true_count if self.shoe.known else None
        staked = Decimal(0)
        here: set[tuple[int, str]] = set()
        alerts = []
        for box in r.boxes:
            for player, stake in box.stakes.items():
                staked += stake
                key = (box.number, player)
                here.add(key)
                s = self.sessions.get(key)
                if s is None or s.absent >= self.settings.session_gap_rounds:
                    s = self.sessions[key] = Session(box.number, player, number)
                s.absent = 0
                s.rounds += 1
                if tc is None:
                    continue
                units = float(stake / self.unit)
                s.bets.add(tc, units)
                s.shoe_bets.add(tc, units)
                s.summary, s.shoe_summary = s.bets.summary(), s.shoe_bets.summary()
                alert = self._judge(s, number)
                if alert is not None:
                    alerts.append(alert)
        for key, s in self.sessions.items():
            if key not in here:
                s.absent += 1
        self._staked = staked
        return alerts

    def _judge(
        self, s: Session, number: int
    ) -> tuple[str, str, int, int | None, dict[str, Any]] | None:
        m = s.summary
        cfg = self.settings
        if s.flagged is not None or m is None or m.z is None:
            return None
        if m.n < cfg.count_min_rounds or m.z < cfg.count_z:
            return None
        s.flagged = number
        who = s.player if s.player == f"box{s.box}" else f"{s.player} (betting behind)"
        low = "-" if m.low is None else f"{m.low:.1f}"
        high = "-" if m.high is None else f"{m.high:.1f}"
        message = (
            f"box {s.box}: {who}'s bets follow the true count over {m.n} rounds "
            f"(rank correlation {m.rho:.2f}, z {m.z:.1f} >= {cfg.count_z}); "
            f"mean stake {low} units below +1, {high} units at +2 and over"
        )
        return (
            "advantage_play",
            message,
            number,
            s.box,
            {
                "player": s.player,
                "since_round": s.since,
                "shoe": self.shoe.number,
                **m.json(),
                "threshold": cfg.count_z,
            },
        )

    def _round_decisions(self, number: int) -> Out | None:
        decided: list[Decision] = self.decisions.round
        self.decisions.round = []
        for d in decided:
            s = self.sessions.get((d.box, d.player))
            if s is None:
                continue
            s.decisions += 1
            if d.deviation:
                s.deviations += 1
                s.cost_units += d.cost_units
                s.cost += d.cost
        off = [d for d in decided if d.deviation]
        if not off:
            return None
        return Out(
            DECISIONS,
            {
                "decision_id": f"{self.table_id}:{number}",
                "table": self.table_id,
                "round": number,
                "decisions": len(decided),
                "deviations": [d.json() for d in off],
                "cost": fmt(sum((d.cost for d in off), Decimal(0))),
            },
        )

    def _time_decisions(self, now: float) -> None:
        """How long the table waited for each decision (the metrics' decision time)."""
        self.metrics_.seen(now)
        r = self.table.round
        wait = None
        if r is not None and not r.over:
            e = self.table.expecting()
            if e.what in ("action", "offer"):
                box, hand = r.current()
                wait = (
                    r.number,
                    box.number,
                    hand.number,
                    len(hand.cards),
                    hand.doubled,
                    len(box.hands),
                    e.what,
                )
        if wait != self._wait:
            if self._wait is not None and self._waited is not None:
                self.metrics_.decision(now, now - self._waited)
            self._wait, self._waited = wait, now if wait is not None else None

    def _finding(self, f: Finding, number: int) -> tuple[str, str, int, int | None, dict[str, Any]]:
        return (f.kind, f.message, number, None, f.fields)

    def _payout(self, e: PayoutError) -> tuple[str, str, int, int | None, dict[str, Any]]:
        return ("payout_error", e.message(), e.round, e.box, e.json())

    def _alert(
        self,
        seq: int,
        n: int,
        kind: str,
        message: str,
        number: int,
        box: int | None,
        extra: dict[str, Any],
    ) -> dict[str, Any]:
        return {
            "alert_id": f"{self.table_id}:{seq}:{kind}:{n}",
            "table": self.table_id,
            "kind": kind,
            "message": message,
            "round": number,
            "box": box,
            **extra,
        }

    def _shoe_report(self, report: dict[str, Any]) -> dict[str, Any]:
        return {
            "report_id": f"{self.table_id}:shoe:{report['shoe']}",
            "table": self.table_id,
            **report,
        }
