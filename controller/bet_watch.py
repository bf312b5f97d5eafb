"""Bet integrity: what the bet sensors saw against the stakes the engine closed on.

Pure (no I/O, no clock): the service tells it what the sensors report and
what happens in the round; it answers whether a reading is a bet to hand
the engine and which alerts to raise.

- While bets are open every reading is the spot's bet (`Verdict.forward`).
- At `close` the engine's stakes become the reference. From then on the
  engine keeps the stake it closed on, whatever the sensors say, and:
  - chips added (the reading above what the box may hold) raise
    `late_bet` with the amount added: past-posting;
  - chips taken (the reading below the closed stake) raise `pinched_bet`
    with the amount taken.
- The dealer's own chip movements are not alerts:
  - a double or a split: during the box's turn, while the engine allows a
    double or split there (`turn`), an increase is held, not raised; when
    the dealer confirms it (`committed`), the box may hold up to the new
    total. When the turn ends with the increase still unconfirmed it is a
    late bet after all;
  - a hand settled early (a bust, a surrender, a blackjack paid at once):
    after `release(box)` the dealer takes or pays chips on that box;
  - everything after `settle` (payouts, collections, the next round's
    bets): bets are open again.
- Readings within `tolerance` of the reference are noise, not alerts.
- Each excursion is raised once: a late bet is not raised again while the
  extra chips stay, but is if they are taken away and put back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

Spot = tuple[int, int]  # (box, spot): spot 0 the box holder, 1.. players betting behind
ZERO = Decimal(0)


@dataclass(frozen=True, slots=True)
class BetAlert:
    kind: Literal["late_bet", "pinched_bet"]
    box: int
    spot: int
    amount: Decimal  # chips added (late) or taken (pinched)
    stake: Decimal  # the stake the engine holds for the spot
    sensed: Decimal  # what the sensor reads now


@dataclass(frozen=True, slots=True)
class Verdict:
    forward: bool  # hand the reading to the engine as the spot's bet
    alerts: tuple[BetAlert, ...] = ()


@dataclass
class _Watch:
    stake: Decimal  # what the engine closed on (floor for pinching)
    ceiling: Decimal  # what the box may hold (stake, + confirmed doubles and splits)
    floor: Decimal  # chips seen on the spot that may not be taken
    sensed: Decimal
    high: Decimal | None = None  # the excursion above the ceiling already raised
    low: Decimal | None = None  # the excursion below the floor already raised
    held: bool = False  # an increase waits for the dealer to confirm a double/split


@dataclass
class BetWatch:
    tolerance: Decimal = ZERO
    open: bool = True
    sensed: dict[Spot, Decimal] = field(default_factory=dict)
    _spots: dict[Spot, _Watch] = field(default_factory=dict)
    _turn: int | None = None  # the box whose double/split may be pending
    _released: set[int] = field(default_factory=set)

    # ------------------------------------------------------------ readings
    def sensed_bet(self, box: int, spot: int, amount: Decimal) -> Verdict:
        """A sensor reading for a spot (the settled amount on it)."""
        self.sensed[box, spot] = amount
        if self.open:
            return Verdict(True)
        if box in self._released:
            return Verdict(False)
        w = self._watch(box, spot)
        w.sensed = amount
        return Verdict(False, tuple(self._judge(box, spot, w, hold=self._turn == box)))

    # --------------------------------------------------------- round events
    def close(self, stakes: Mapping[Spot, Decimal]) -> list[BetAlert]:
        """Bets closed: `stakes` is what the engine closed on, per spot."""
        self.open = False
        self._turn = None
        self._released.clear()
        self._spots = {}
        for key in set(stakes) | set(self.sensed):
            stake = stakes.get(key, ZERO)
            self._spots[key] = _Watch(stake, stake, stake, self.sensed.get(key, stake))
        alerts: list[BetAlert] = []
        for (box, spot), w in sorted(self._spots.items()):
            alerts += self._judge(box, spot, w, hold=False)
        return alerts

    def turn(self, box: int | None, may_add: bool) -> list[BetAlert]:
        """The box in play changed (None: no box), and whether a double or split
        may still come there. Increases held on the box that was in play and not
        confirmed are late bets now."""
        alerts: list[BetAlert] = []
        before = self._turn
        self._turn = box if may_add else None
        if before is not None and before != self._turn:
            for (b, spot), w in sorted(self._spots.items()):
                if b == before and w.held:
                    w.held = False
                    alerts += self._judge(b, spot, w, hold=False)
        return alerts

    def committed(self, box: int, totals: Mapping[int, Decimal]) -> list[BetAlert]:
        """The dealer confirmed a double or split on `box`: the spots' new total stakes."""
        alerts: list[BetAlert] = []
        for spot, total in totals.items():
            w = self._watch(box, spot)
            w.ceiling = max(w.ceiling, total)
            w.held = False
            alerts += self._judge(box, spot, w, hold=self._turn == box)
        return alerts

    def release(self, box: int) -> None:
        """The dealer settles `box` now (bust, surrender, blackjack paid at once)."""
        if not self.open:
            self._released.add(box)

    def restore(self, box: int) -> None:
        """`box` is in play again (the card that settled it was taken back as a mistake):
        its chips are watched again from its next reading."""
        self._released.discard(box)

    def settle(self) -> None:
        """The round is over (settled or voided): bets are open again."""
        self.open = True
        self._turn = None
        self._released.clear()
        self._spots = {}

    # -------------------------------------------------------------- judging
    def _watch(self, box: int, spot: int) -> _Watch:
        w = self._spots.get((box, spot))
        if w is None:  # a spot with no stake and no reading at the close
            w = self._spots[box, spot] = _Watch(ZERO, ZERO, ZERO, ZERO)
        return w

    def _judge(self, box: int, spot: int, w: _Watch, hold: bool) -> list[BetAlert]:
        tol = self.tolerance
        if w.sensed <= w.ceiling:
            # Chips the dealer confirmed and that are on the spot may not be taken back.
            w.floor = max(w.floor, min(w.sensed, w.ceiling))
        out: list[BetAlert] = []
        if w.sensed > w.ceiling + tol:
            w.low = None
            if hold:
                w.held = True  # maybe a double or split the dealer is about to confirm
            elif w.high is None or w.sensed > w.high:
                added = w.sensed - (w.high if w.high is not None else w.ceiling)
                w.high = w.sensed
                out.append(BetAlert("late_bet", box, spot, added, w.stake, w.sensed))
        elif w.sensed < w.floor - tol:
            w.high = None
            w.held = False
            if w.low is None or w.sensed < w.low:
                taken = (w.low if w.low is not None else w.floor) - w.sensed
                w.low = w.sensed
                out.append(BetAlert("pinched_bet", box, spot, taken, w.stake, w.sensed))
        else:
            w.high = w.low = None  # back within bounds: a new excursion is a new alert
            w.held = False
        return out
