"""The dealer's screen in `croupier sim`'s terminal: what the table waits for
(an unreadable card first), the last reads with their confidence, drawn only
when something changed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.panel import Panel

from controller.config import Config, override
from controller.terminal import TerminalView, render
from sim.runner import build


def screens(tmp: Path) -> dict[str, tuple[str, Console]]:
    """Play three rounds offline with many unreadable cards; the screen at the first
    unreadable card, and at the first decision with a choice once a few cards are out."""
    config = override(
        Config(),
        "test",
        table={"id": "t1", "rules": "be-casino"},
        state={"dir": tmp, "fsync": False},
        sim={"rounds": 3, "speed": "max", "seed": 3, "unreadable_rate": 0.2},
    )
    run = build(config, offline=True)
    view = run.service.view
    seen: dict[str, tuple[str, Console]] = {}

    def look() -> float:
        expect = view.table.expecting()
        key = "key" if view.awaiting_key else expect.what
        wanted = key != "action" or (view.intake.read_count >= 10 and "stand" in expect.actions)
        if key not in seen and wanted:
            console = Console(record=True, width=110, color_system="truecolor")
            console.print(Panel(render(view), title="croupier · dealer"))
            seen[key] = (console.export_text(clear=False), console)
        return 0.001

    run.service.every(0.0, look)
    run.service.run()
    return seen


def test_dealer_screen_in_the_terminal(tmp_path: Path) -> None:
    seen = screens(tmp_path)
    key, _ = seen["key"]
    assert "UNREADABLE CARD" in key and "enter the card on the panel" in key
    assert "?? unreadable (nothing 0.00)" in key  # the shoe reads a card or it does not
    assert "! unreadable: the shoe could not read the card" in key  # the alert to resolve
    action, console = seen["action"]
    assert "BOX " in action and "hit" in action and "stand" in action and "?" in action
    assert " 1.00" in action  # a read card with the shoe's confidence
    assert "keyed in" in action  # the card the dealer keyed in after the unreadable one
    assert "! unreadable" not in action  # keyed in: nothing left to resolve
    bets, _ = seen["bet"]
    assert "round 1  bets open" in bets  # the bets are for round 1, before any round is dealt
    shots = os.environ.get("CROUPIER_SCREENSHOTS")
    if shots:
        console.save_svg(str(Path(shots) / "dealer-terminal.svg"), title="croupier sim")


class CountingLive:
    def __init__(self) -> None:
        self.updates = 0

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.updates += 1


def test_drawn_only_when_something_changed(tmp_path: Path) -> None:
    config = override(
        Config(),
        "test",
        table={"id": "t1"},
        state={"dir": tmp_path, "fsync": False},
        sim={"rounds": 1, "speed": "max", "seed": 3},
    )
    run = build(config, offline=True)
    screen = TerminalView(run.service.view, refresh_hz=4)
    live = CountingLive()
    screen.live = live  # type: ignore[assignment]
    assert screen.tick() == 0.25
    screen.tick()
    assert live.updates == 1
    run.service.run()  # a round is played: seq moves
    screen.tick()
    screen.tick()
    assert live.updates == 2
