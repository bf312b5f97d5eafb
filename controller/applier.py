"""One journaled record through the intake and the engine: its stream messages.

The service's loop journals a record first (controller.pipeline) and only
then hands it here. A driver record goes through the `Intake` (what it
means at this table now) to the engine; a pit command goes to the pit desk
(controller.pit), which applies its engine event through `apply_event`
like any other. A refusal of the rules becomes an alert, and never changes
the table.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from controller import wire
from controller.config import Config
from controller.engine import Table, TableError, ops, parse_event
from controller.engine.errors import ShoeError
from controller.intake import Intake, Raise, next_card_hidden
from controller.journal import Message
from controller.pit import PitDesk
from controller.records import Checkpoint, PitCommand, Record
from controller.retention import ShoeStart, carry
from controller.surveillance import Out, Settings, Surveillance
from controller.surveillance.edges import edge_for
from controller.view import TableView
from drivers.interfaces import BetSeen, DriverEvent


class Applier:
    def __init__(
        self,
        view: TableView,
        stream: wire.Stream,
        desk: PitDesk,
        surveillance: Surveillance | None,
    ) -> None:
        self.view = view
        self.view.table_id = view.table_id
        self.stream = stream
        self.desk = desk
        # Analytics for surveillance/... topics: only where they may be published.
        self.surveillance = surveillance
        self.live = False  # records replayed at start carry no time
        # Told of each live input record as it is applied, with its journal seq (the
        # simulator times camera reads by it); never of the records replayed at start.
        self.on_record: Callable[[int, Record], None] | None = None
        # Where each shoe in the journal began, with the state retention's checkpoint
        # restores there (controller.retention); oldest first.
        self.shoe_starts: list[ShoeStart] = []
        self._shoe_began = False

    def replace(self, table: Table, intake: Intake) -> None:
        """A corrected round (controller.correction): the table derived again takes over."""
        self.view.table = table
        self.view.intake = intake

    def process(self, seq: int, record: Record) -> list[Message]:
        """One journaled record through the intake and the engine: its stream messages."""
        if isinstance(record, Checkpoint):
            return []  # the table started from its state (Service._replay)
        messages = self._translate(seq, record)
        if self._shoe_began:
            self._shoe_began = False
            self.shoe_starts.append(ShoeStart(seq, carry(self.view, self.stream)))
        self.desk.note(seq, messages)
        if self.on_record is not None:
            self.on_record(seq, record)
        return messages

    def _translate(self, seq: int, record: DriverEvent | PitCommand) -> list[Message]:
        if isinstance(record, PitCommand):
            return self.desk.process(seq, record)
        watched: list[Message] = []
        if self.surveillance is not None and isinstance(record, BetSeen):
            watched = self.watched(self.surveillance.bet_seen(record, seq))
        intent = self.view.intake.translate(record)
        if isinstance(intent, Raise):
            alert = self.alert(seq, intent.kind, intent.message, intent.box, **intent.extra)
            return [alert, *watched]
        if intent is None:
            return watched
        return [*self.apply_event(seq, intent.event), *watched]

    def apply_event(self, seq: int, event: dict[str, Any]) -> list[Message]:
        """An engine event (a driver's, or a pit command's): its messages, or its refusal."""
        surveillance = self.surveillance
        if surveillance is not None:
            surveillance.before()
        try:
            operations = self.view.table.apply(parse_event(event))
        except TableError as exc:
            foreign = isinstance(exc, ShoeError) and event["type"] in ("card", "burn")
            card = str(event.get("card", ""))  # before a hidden one is blanked below
            message = str(exc)
            if event["type"] in ("card", "burn") and next_card_hidden(self.view.table):
                # A display reads alerts: the face of a card meant to go face down (or to
                # be burned) stays in the journal. The refusal left the table as it was, so
                # the table still says where the card was going.
                message = (
                    "the shoe gave a card the table cannot take face down here: "
                    + ("a card the shoe cannot hold (a foreign card?)" if foreign else "refused")
                    + "; the supervisor checks it against the journal"
                )
                event = {**event, "card": None}
            refused = [
                self.alert(
                    seq,
                    "foreign_card" if foreign else "refused",
                    message,
                    event.get("box"),
                    event=event,
                )
            ]
            if foreign and surveillance is not None:
                refused += self.watched(surveillance.foreign_card(card, seq))
            return refused
        for op in operations:
            if isinstance(op, ops.ShoeStarted):
                self.view.shoes += 1
                self._shoe_began = True
        messages = self.stream.messages(operations, self.view.table, seq)
        for n, found in enumerate(self.view.intake.observe(operations)):
            key = f"{seq}:{found.kind}:{n}"  # several at one event (e.g. at the close)
            messages.append(
                self.alert(seq, found.kind, found.message, found.box, key=key, **found.extra)
            )
        if surveillance is not None:
            now = time.monotonic() if self.live else None
            messages += self.watched(surveillance.applied(operations, seq, now))
        return messages

    def alert(
        self,
        seq: int,
        kind: str,
        message: str,
        box: int | None,
        key: str | None = None,
        **extra: Any,
    ) -> Message:
        r = self.view.table.round
        number = r.number if r and not r.over else self.view.table.rounds + 1
        key = key or f"{seq}:{kind}"
        return wire.alert(self.view.table_id, key, kind, message, number, box, **extra)

    def watched(self, found: list[Out]) -> list[Message]:
        """The desk's stream messages (its retained topics are slots: controller.publisher)."""
        return [Message(topic, wire.dumps(payload)) for topic, payload in found]


def surveillance_for(config: Config, table: Table) -> Surveillance | None:
    """The analytics desk, where the config lets the table publish surveillance topics."""
    if not config.mqtt.surveillance:
        return None
    s = config.surveillance
    settings = Settings(
        s.count_z,
        s.count_min_rounds,
        s.session_gap_rounds,
        s.metrics_window_s,
        s.payout_tolerance,
    )
    return Surveillance(table, config.table.id, settings, edge_for(table.p))
