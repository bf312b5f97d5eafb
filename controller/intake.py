"""From what the drivers saw to what the engine is asked: the table's input desk.

A driver reports hardware facts (a card read, chips on a spot, a button);
`Intake.translate` turns each into a round-script event for the engine, or
into an alert when there is nothing the engine should be asked (an
unreadable card, chips moved on a closed layout, a faulty sensor). It reads
the table only to know what the table waits for (a burn or a card, the box
in play): the engine still decides what is legal, and refuses the rest.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from controller.bet_desk import BetDesk, describe
from controller.engine import Table, ops, parse_card
from controller.engine.errors import UnknownCard
from controller.engine.events import Bet
from controller.engine.money import fmt
from controller.engine.phase import DEAL, PLAYERS
from controller.engine.round_state import HOLE
from drivers.interfaces import BetSeen, CardRead, DriverEvent, PanelPress, SensorFault

DECISIONS = ("stand", "double", "split", "surrender", "take_card", "refuse_card")
PLAIN = ("close_bets", "close_insurance", "misdeal_card")  # buttons named as their events


def player_at(box: int, spot: int) -> str:
    """The player id of a betting spot: the box holder, or a player betting behind."""
    return f"box{box}" if spot == 0 else f"box{box}/{spot}"


@dataclass(frozen=True, slots=True)
class Ask:
    """An event for the engine: a round-script object (DESIGN.md)."""

    event: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Raise:
    """An alert, and no engine event."""

    kind: str
    message: str
    box: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


Intent = Ask | Raise


def next_card_hidden(table: Table) -> bool:
    """Whether the next card out of the shoe goes face down or is burned: then nothing
    said about a read of it (an alert a display reads) may name it.

    The engine decides where a card goes; this reads the same state it reads (the
    deal plan, the hand in play) without changing it. tests/pit/test_hidden.py checks
    it against the engine's `face_down` on every card of simulated shoes."""
    if table.expecting().what == "burn":
        return True
    r = table.round
    if r is None or r.over:
        return False
    if r.phase is DEAL:
        target = r.plan[r.step]
        if target == HOLE:
            return True
        return target >= 0 and r.p.player_closed_card and len(r.boxes[target].hands[0].cards) == 1
    if r.phase is PLAYERS and r.offer_box < 0:
        _, hand = r.current()
        return hand.doubled and r.p.double_face_down
    return False


How = Literal["read", "unreadable", "keyed"]


@dataclass(frozen=True, slots=True)
class Read:
    """A card out of the shoe as the desk took it, for the dealer's screen."""

    card: str | None
    confidence: float | None  # the camera's; None for a card keyed in
    how: How


class Intake:
    def __init__(self, table: Table, min_confidence: float) -> None:
        self.table = table
        self.min_confidence = min_confidence
        # An unreadable card waits for the dealer's key-in; other cards are refused meanwhile.
        self.awaiting_key = False
        # Bet integrity: sensed stakes against the stakes the engine closed on.
        self.bets = BetDesk(table)
        # The last cards out of the shoe (newest last) and how many there were in all.
        self.reads: deque[Read] = deque(maxlen=8)
        self.read_count = 0

    def _note(self, card: str | None, confidence: float | None, how: How) -> None:
        # The dealer's screen faces the players too: a card going face down or to the
        # burn is listed as a back, never by its face (called before the engine applies).
        if card is not None and next_card_hidden(self.table):
            card = None
        self.reads.append(Read(card, confidence, how))
        self.read_count += 1

    def translate(self, event: DriverEvent) -> Intent | None:
        if isinstance(event, CardRead):
            return self._card(event)
        if isinstance(event, BetSeen):
            return self._bet(event)
        if isinstance(event, PanelPress):
            return self._press(event)
        if isinstance(event, SensorFault):
            return Raise("sensor_fault", f"{event.device}: {event.detail}", event.box)
        return None

    # ----------------------------------------------------------------- cards
    def _card(self, read: CardRead) -> Intent:
        if self.awaiting_key:
            return Raise(
                "card_while_waiting",
                "a card came out while an unreadable card waits to be keyed in: "
                "key the first card in, then show the second again",
            )
        if read.card is None or read.confidence < self.min_confidence:
            self._note(read.card, read.confidence, "unreadable")
            self.awaiting_key = True
            seen = "nothing" if read.card is None else f"{read.card} at {read.confidence:.2f}"
            if read.card is not None and next_card_hidden(self.table):
                seen = f"a card going face down at {read.confidence:.2f}"  # never its face
            if read.reason:
                seen += f", {read.reason.replace('_', ' ')}"
            return Raise(
                "unreadable",
                f"the shoe could not read the card (read {seen}): key it in on the panel",
                extra={"confidence": read.confidence},
            )
        try:
            code = parse_card(read.card)
        except UnknownCard as exc:
            self._note(read.card, read.confidence, "unreadable")
            self.awaiting_key = True
            if next_card_hidden(self.table):
                return Raise("unreadable", "the shoe read no card code: key the card in")
            return Raise("unreadable", f"{exc}: key the card in on the panel")
        self._note(code, read.confidence, "read")
        return Ask(self._card_event(code))

    def _card_event(self, code: str) -> dict[str, Any]:
        kind = "burn" if self.table.expecting().what == "burn" else "card"
        return {"type": kind, "card": code}

    # ------------------------------------------------------------------ bets
    def _bet(self, seen: BetSeen) -> Intent | None:
        player = player_at(seen.box, seen.spot)
        amount = fmt(seen.amount)
        if seen.kind == "insurance":
            return Ask({"type": "insurance", "box": seen.box, "player": player, "amount": amount})
        forward, alerts = self.bets.sensed(seen)
        if alerts:
            message, extra = describe(alerts[0])  # one reading moves one spot: one alert
            return Raise(alerts[0].kind, message, seen.box, extra)
        if not forward:
            return None  # the round keeps the stake it closed on
        held = self.table.bets.get(seen.box, {}).get(player)
        if held == seen.amount or (held is None and seen.amount == 0):
            return None  # the spot shows the bet the table already holds: nothing to do
        if self._payout_on_spot(seen.box, player, seen.amount):
            return None
        return Ask({"type": "bet", "box": seen.box, "player": player, "amount": amount})

    def _payout_on_spot(self, box: int, player: str, amount: Decimal) -> bool:
        """After a settlement the dealer pays on the spots that played: chips the rules
        would refuse as a bet there (3:2 on an odd stake, a win past the table maximum) are
        that payout, not a refused bet. The player takes the winnings before the next close;
        chips still there at the close are raised by the bet watch then (late_bet)."""
        r = self.table.round
        if r is None or not r.over:
            return False
        if not any(b.number == box and player in b.stakes for b in r.boxes):
            return False
        return not self.table.can(Bet(box, player, amount))

    def observe(self, operations: list[ops.Operation]) -> list[Raise]:
        """What the engine just did, for the bet watch: the alerts it raises."""
        out = []
        for alert in self.bets.observe(operations):
            message, extra = describe(alert)
            out.append(Raise(alert.kind, message, alert.box, extra))
        return out

    # ----------------------------------------------------------------- panel
    def _press(self, press: PanelPress) -> Intent:
        button = press.button
        if button == "key_card":
            if press.card is None:
                return Raise("refused", "key_card needs a card")
            try:
                code = parse_card(press.card)
            except UnknownCard as exc:
                return Raise("refused", str(exc))
            self.awaiting_key = False
            self._note(code, None, "keyed")
            return Ask(self._card_event(code))
        if button in DECISIONS:
            box = press.box if press.box is not None else self.table.expecting().box
            return Ask({"type": "action", "box": box or 1, "action": button})
        if button in PLAIN:
            return Ask({"type": button})
        if button == "call_supervisor":
            where = f" at box {press.box}" if press.box is not None else ""
            return Raise("supervisor_call", f"the dealer calls a supervisor{where}", press.box)
        if button == "new_shoe":
            return Ask({"type": "shoe"})
        return Ask({"type": "void", "reason": press.reason or "voided at the table"})
