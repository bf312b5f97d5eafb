"""A table and its surveillance desk, driven by round-script events (no service)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from controller import rules
from controller.engine import Table, TableError, parse_event
from controller.engine.errors import ShoeError
from controller.surveillance import Out, Settings, Surveillance
from controller.surveillance.edges import edge_for
from drivers.interfaces import BetSeen
from tests.service.contract import validate


def profile_file(tmp: Path, **settings: Any) -> str:
    """A profile file extending ref-enhc with `settings` (e.g. decks=1)."""
    lines = ['extends = "ref-enhc"', 'name = "test"']
    for key, value in settings.items():
        lines.append(f"{key} = {value!r}" if not isinstance(value, str) else f'{key} = "{value}"')
    path = tmp / "test.toml"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


class Desk:
    def __init__(self, profile: str = "ref-enhc", boxes: int = 2, **settings: Any) -> None:
        p = rules.load(profile)
        self.table = Table(p, boxes)
        self.desk = Surveillance(self.table, "t", Settings(**settings), edge_for(p))
        self.seq = 0
        self.out: list[Out] = []

    def do(self, now: float | None = None, **event: Any) -> None:
        """Apply one event as the service does (refusals other than a foreign card raise)."""
        self.seq += 1
        self.desk.before()
        try:
            operations = self.table.apply(parse_event(event))
        except ShoeError:
            if event["type"] not in ("card", "burn"):
                raise
            self.out += self.desk.foreign_card(event["card"], self.seq)
            return
        except TableError:
            raise
        self.out += self.desk.applied(operations, self.seq, now)

    def cards(self, *codes: str, now: float | None = None) -> None:
        for code in codes:
            self.do(now, type="card", card=code)

    def bets(self, **stakes: str) -> None:
        for player, amount in stakes.items():
            box = int(player.removeprefix("box"))
            self.seen(box, amount)
            self.do(type="bet", box=box, amount=amount)

    def seen(self, box: int, amount: str, spot: int = 0) -> None:
        self.seq += 1
        self.out += self.desk.bet_seen(BetSeen(box, spot, Decimal(amount)), self.seq)

    def take(self, topic: str) -> list[dict[str, Any]]:
        """The messages on `topic` since the last take (schema-checked)."""
        got = [o.payload for o in self.out if o.topic == topic]
        self.out = [o for o in self.out if o.topic != topic]
        for payload in got:
            validate(topic, payload)
        return got

    def alerts(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [a for a in self.take("surveillance/alerts") if kind is None or a["kind"] == kind]
