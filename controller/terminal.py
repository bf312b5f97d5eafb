"""The terminal view: the dealer's screen of `croupier sim` (rich).

What the table waits for first and in large type ("BOX 3: hit, stand or
double?", or "enter the card" when the shoe could not read one), the last
cards out of the shoe with the camera's confidence, the alerts to resolve,
then the layout. It is drawn by a timer of the service loop, a few times a
second at most, and only when something changed, from the same public
snapshot displays get: it never slows the table and never shows hidden
cards.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table as Grid
from rich.text import Text

from controller.engine.view import table_state
from controller.intake import Read
from controller.service import TableView

SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
ACTIONS = {
    "card": "hit",
    "stand": "stand",
    "double": "double",
    "split": "split",
    "surrender": "surrender",
    "take_card": "take the card",
    "refuse_card": "refuse it",
}
PHASES = {
    "betting": "bets open",
    "deal": "dealing",
    "insurance": "insurance",
    "player_turns": "players",
    "dealer": "dealer's turn",
    "settled": "settled",
    "voided": "voided",
}


def card_text(code: str | None) -> Text:
    if code is None:
        return Text("▒▒", style="bold blue")
    return Text(code[0].replace("T", "10") + SUITS[code[1]], style="red" if code[1] in "HD" else "")


def cards_text(cards: list[str | None]) -> Text:
    return Text(" ").join(card_text(c) for c in cards) if cards else Text("-")


def _words(items: list[str]) -> str:
    return items[0] if len(items) < 2 else f"{', '.join(items[:-1])} or {items[-1]}"


def deal_target(state: dict[str, Any]) -> str | None:
    """Whose card the next one is in the initial deal (the web page's rule too)."""
    boxes = state.get("in_play", [])
    dealt = len(state.get("dealer", {}).get("cards", []))
    for turn in (1, 2):
        for box in boxes:
            if len(box["hands"][0]["cards"]) < turn:
                return f"box {box['box']}"
        if dealt < turn:
            return "the dealer"
    return None


def expectation(state: dict[str, Any], awaiting_key: bool) -> tuple[str, str]:
    """What the table waits for, in the dealer's words: (who, ask)."""
    if awaiting_key:
        return "UNREADABLE CARD", "enter the card on the panel"
    e = state["expecting"]
    what = e["what"]
    hands = next((len(b["hands"]) for b in state.get("in_play", []) if b["box"] == e["box"]), 1)
    who = f"BOX {e['box']}" + (f", HAND {e['hand']}" if hands > 1 else "")
    if what == "action":
        return who, _words([ACTIONS.get(a, a) for a in e["actions"]]) + "?"
    if what == "offer":
        card = state.get("mistaken_card")
        shown = f" ({card_text(card).plain})" if card else ""
        return who, f"take the mistaken card{shown} or refuse it?"
    if what == "card":
        if state["phase"] != "deal":
            return "DEALER", "next card to the dealer"
        to = deal_target(state)
        return "DEAL", f"next card to {to}" if to else "next card"
    if what == "bet":
        return "BETS", "place bets, then close bets"
    if what == "burn":
        due = state["shoe"]["burns_due"]
        return "NEW SHOE", f"burn a card ({due} to burn)" if due > 1 else "burn a card"
    if what == "insurance":
        return "INSURANCE", "take insurance, then close insurance"
    return "", "round settled" if state["phase"] == "settled" else "nothing to do"


def round_now(state: dict[str, Any]) -> int:
    """The round the screen is about: while bets are open, the coming one (the
    snapshot's `round` is the last one dealt; the bets are for the next)."""
    return int(state["round"]) + (1 if state["phase"] == "betting" else 0)


def to_resolve(alerts: list[dict[str, Any]], awaiting_key: bool) -> list[dict[str, Any]]:
    """The alerts still to act on: an unreadable card's only while the table
    waits for it to be keyed in (the newest one; the ones before were keyed in)."""
    unreadable = [a for a in alerts if a["kind"] == "unreadable"]
    waiting = unreadable[-1] if awaiting_key and unreadable else None
    return [a for a in alerts if a["kind"] != "unreadable" or a is waiting]


def read_text(read: Read) -> Text:
    if read.how == "unreadable":
        seen = read.card or "nothing"
        conf = f" {read.confidence:.2f}" if read.confidence is not None else ""
        return Text(f"?? unreadable ({seen}{conf})", style="bold yellow")
    shown = card_text(read.card)
    if read.how == "keyed":
        return Text.assemble(shown, (" keyed in", "yellow"))
    known = f" {read.confidence:.2f}" if read.confidence is not None else ""
    return Text.assemble(shown, (known, "dim"))


def render(view: TableView, footer: str | None = None) -> Group:
    state = table_state(view.table, public=True)
    shoe, phase = state["shoe"], state["phase"]
    head = Text.assemble(
        (f"table {view.table_id}", "bold"),
        f"  {state['rules']}  round {round_now(state)}  {PHASES.get(phase, phase)}  ",
        f"shoe {shoe['cards_out']}/{shoe['size']}"
        + ("  cut card out" if shoe["cut_card_reached"] else ""),
        (
            "  broker ok" if view.connected else "  broker DOWN",
            "green" if view.connected else "red",
        ),
        f"  outbox {view.backlog}  seq {view.seq}",
    )
    who, ask = expectation(state, view.awaiting_key)
    key = view.awaiting_key
    next_up = Panel(
        Text.assemble((who + ("  " if who else ""), "bold"), (ask, "bold")),
        title="next",
        title_align="left",
        style="bold black on yellow" if key else "bold",
        border_style="yellow" if key else "green",
        padding=(1, 2),
    )
    dealer = state.get("dealer", {"cards": [], "total": 0})
    reads = [read_text(r) for r in reversed(view.intake.reads)][:6]
    lines: list[Any] = [
        head,
        next_up,
        Text.assemble(("last cards  ", "bold"), Text("   ").join(reads) if reads else "-"),
        Text.assemble(("dealer ", "bold"), cards_text(dealer["cards"]), f"  ({dealer['total']})"),
        _boxes(state),
    ]
    for alert in to_resolve(list(view.alerts), view.awaiting_key)[-3:]:
        lines.append(Text(f"! {alert['kind']}: {alert['message']}", style="yellow"))
    if footer:
        lines.append(Text(footer, style="dim"))
    return Group(*lines)


def _boxes(state: dict[str, Any]) -> Grid:
    grid = Grid(box=None, expand=False, padding=(0, 2))
    for name in ("box", "stakes", "hands", "result"):
        grid.add_column(name)
    results = {}
    if "outcome" in state:
        for b in state["outcome"]["boxes"]:
            results[b["box"]] = ", ".join(f"{h['result']} {h['payout']}" for h in b["hands"])
    e = state["expecting"]
    for box in state.get("in_play", []):
        stakes = ", ".join(f"{s['player']} {s['amount']}" for s in box["stakes"])
        insured = ", ".join(f"{s['player']} {s['amount']}" for s in box["insurance"])
        hands = Text(" | ").join(
            Text.assemble(cards_text(h["cards"]), f" ({h.get('total', '?')})") for h in box["hands"]
        )
        playing = e["what"] in ("action", "offer") and e["box"] == box["box"]
        grid.add_row(
            Text(str(box["box"]), style="bold reverse" if playing else ""),
            stakes + (f"  ins {insured}" if insured else ""),
            hands,
            results.get(box["box"], ""),
        )
    if state["bets"]:
        grid.add_row(
            "bets", ", ".join(f"{b['player']} {b['amount']}" for b in state["bets"]), "", ""
        )
    return grid


def changes(view: TableView) -> tuple[Any, ...]:
    """What the screen shows depends on: drawn again only when one of these moved."""
    last_alert = view.alerts[-1]["alert_id"] if view.alerts else None
    return (
        view.seq,
        view.awaiting_key,
        view.connected,
        view.backlog,
        last_alert,
        view.intake.read_count,
        view.table.shoe.out,
    )


class TerminalView:
    def __init__(
        self, view: TableView, refresh_hz: float, footer: Callable[[], str] | None = None
    ) -> None:
        """`footer`: a line under the table, read at each redraw (sim --camera's tally)."""
        self.view = view
        self.footer = footer
        self.period = 1.0 / refresh_hz
        self.live = Live(console=Console(stderr=False), auto_refresh=False, transient=False)
        self._drawn: tuple[Any, ...] | None = None

    def start(self) -> None:
        self.live.start()

    def tick(self) -> float:
        now = changes(self.view)
        if now != self._drawn:
            self._drawn = now
            footer = self.footer() if self.footer is not None else None
            self.live.update(
                Panel(render(self.view, footer), title="croupier · dealer"), refresh=True
            )
        return self.period

    def stop(self) -> None:
        self._drawn = None
        self.tick()
        self.live.stop()
