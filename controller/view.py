"""What the service loop shows its timers (the sim's bots, the terminal view)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from controller.engine import Table
from controller.intake import Intake


@dataclass
class TableView:
    """What the loop shows its timers (the sim's bots, the terminal view): read-only."""

    table: Table
    table_id: str
    intake: Intake
    seq: int = 0
    shoes: int = 0  # shoes started since the state began
    alerts: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=6))
    connected: bool = False
    backlog: int = 0
    halted: str | None = None  # why the table takes no input now (a full disk)

    @property
    def awaiting_key(self) -> bool:
        return self.intake.awaiting_key
