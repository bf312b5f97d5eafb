"""The terminal view: the table as the dealer's screen would show it (rich).

It is drawn by a timer of the service loop a few times a second at most,
from the same public snapshot displays get, so it never slows the table
and never shows hidden cards.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table as Grid
from rich.text import Text

from controller.engine.view import table_state
from controller.service import TableView

SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def card_text(code: str | None) -> Text:
    if code is None:
        return Text("▒▒", style="bold blue")
    return Text(code[0].replace("T", "10") + SUITS[code[1]], style="red" if code[1] in "HD" else "")


def cards_text(cards: list[str | None]) -> Text:
    return Text(" ").join(card_text(c) for c in cards) if cards else Text("-")


def render(view: TableView) -> Group:
    state = table_state(view.table, public=True)
    head = Text.assemble(
        (f"table {view.table_id}", "bold"),
        f"  {state['rules']}  round {state['round']}  {state['phase']}  ",
        f"shoe {state['shoe']['cards_out']}/{state['shoe']['size']}"
        + ("  cut card out" if state["shoe"]["cut_card_reached"] else ""),
        (
            "  broker ok" if view.connected else "  broker DOWN",
            "green" if view.connected else "red",
        ),
        f"  outbox {view.backlog}  seq {view.seq}",
    )
    dealer = state.get("dealer", {"cards": [], "total": 0})
    lines: list[Any] = [
        head,
        Text.assemble(("dealer ", "bold"), cards_text(dealer["cards"]), f"  ({dealer['total']})"),
    ]
    lines.append(_boxes(state))
    lines.append(_expecting(view, state))
    for alert in list(view.alerts)[-3:]:
        lines.append(Text(f"! {alert['kind']}: {alert['message']}", style="yellow"))
    return Group(*lines)


def _boxes(state: dict[str, Any]) -> Grid:
    grid = Grid(box=None, expand=False, padding=(0, 2))
    for name in ("box", "stakes", "hands", "result"):
        grid.add_column(name)
    results = {}
    if "outcome" in state:
        for b in state["outcome"]["boxes"]:
            results[b["box"]] = ", ".join(f"{h['result']} {h['payout']}" for h in b["hands"])
    for box in state.get("in_play", []):
        stakes = ", ".join(f"{s['player']} {s['amount']}" for s in box["stakes"])
        insured = ", ".join(f"{s['player']} {s['amount']}" for s in box["insurance"])
        hands = Text(" | ").join(
            Text.assemble(cards_text(h["cards"]), f" ({h.get('total', '?')})") for h in box["hands"]
        )
        grid.add_row(
            str(box["box"]),
            stakes + (f"  ins {insured}" if insured else ""),
            hands,
            results.get(box["box"], ""),
        )
    if state["bets"]:
        grid.add_row(
            "bets", ", ".join(f"{b['player']} {b['amount']}" for b in state["bets"]), "", ""
        )
    return grid


def _expecting(view: TableView, state: dict[str, Any]) -> Text:
    if view.awaiting_key:
        return Text("waiting: key in the unreadable card", style="bold yellow")
    e = state["expecting"]
    what = e["what"]
    if what in ("action", "offer"):
        return Text(
            f"waiting: box {e['box']} hand {e['hand']}: {', '.join(e['actions'])}", style="bold"
        )
    return Text(f"waiting: {what}", style="bold")


class TerminalView:
    def __init__(self, view: TableView, refresh_hz: float) -> None:
        self.view = view
        self.period = 1.0 / refresh_hz
        self.live = Live(console=Console(stderr=False), auto_refresh=False, transient=False)

    def start(self) -> None:
        self.live.start()

    def tick(self) -> float:
        self.live.update(Panel(render(self.view), title="croupier"), refresh=True)
        return self.period

    def stop(self) -> None:
        self.tick()
        self.live.stop()
