"""The displays in headless Chromium against `croupier sim` and a real broker:
the pit display shows each settled round's exact payouts (compared with the
`outcome` message a test subscriber receives), the dealer's screen asks what
the table's `state` expects, and a table killed with -9 goes `lost` on the
page (the broker publishes its will); one stopped cleanly goes `offline`.
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.terminal import expectation
from tests.display.conftest import DisplayProcess, Page, WsBroker
from tests.service.conftest import Subscriber, start_sim

# What the page shows of its latest settled round, read in one go.
PAGE_OUTCOME = """
const el = document.querySelector(`[data-table="${arguments[0]}"] .outcome[data-outcome-id]`);
if (!el) return null;
const text = (root, sel) => root.querySelector(sel).textContent;
return {
  id: el.dataset.outcomeId,
  house: text(el, ".house-net"),
  hands: [...el.querySelectorAll(".hand-result")].map((h) =>
    [Number(h.dataset.box), Number(h.dataset.hand), text(h, ".result-word"), text(h, ".payout")]),
  players: [...el.querySelectorAll("tr[data-player]")].map((r) =>
    [Number(r.dataset.box), r.dataset.player, text(r, ".stake"), text(r, ".net")]),
};
"""


def as_shown(outcome: dict[str, Any]) -> dict[str, Any]:
    """An outcome message as the page must show it: every string exactly as sent."""
    return {
        "id": outcome["outcome_id"],
        "house": outcome["house_net"],
        "hands": [
            [b["box"], h["hand"], h["result"], h["payout"]]
            for b in outcome["boxes"]
            for h in b["hands"]
        ],
        "players": [
            [b["box"], p["player"], p["stake"], p["net"]]
            for b in outcome["boxes"]
            for p in b["players"]
        ],
    }


@pytest.fixture
def sims(ws_broker: WsBroker, tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []

    def start(table: str, speed: str = "20", seed: str = "7") -> subprocess.Popen[bytes]:
        proc = start_sim(
            "--rounds",
            "0",
            "--speed",
            speed,
            "--seed",
            seed,
            "--table",
            table,
            "--broker",
            ws_broker.url,
            "--state-dir",
            str(tmp_path / f"{table}-state"),
            log=tmp_path / f"{table}.log",
        )
        started.append(proc)
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


def test_payouts_as_rounds_settle_and_lost_when_killed(
    ws_broker: WsBroker,
    tmp_path: Path,
    page: Page,
    subscribe: Callable[..., Subscriber],
    sims: Callable[..., subprocess.Popen[bytes]],
) -> None:
    display = DisplayProcess(
        tmp_path / "display.log", "--broker", ws_broker.ws_url, "--tables", "e2e"
    )
    sub = subscribe(ws_broker.port, "e2e")
    sim = sims("e2e")
    try:
        # The dealer's screen: what the table waits for, as the table's own state says it.
        page.open(display.url("dealer", table="e2e"))
        seq, who, ask = page.until(
            "(() => { const ask = document.querySelector('.next-ask[data-expecting=\"action\"]');"
            " return ask && ask.textContent.includes('stand') && ["
            " Number(document.querySelector('.dealer-head').dataset.seq),"
            " document.querySelector('.next-who').textContent, ask.textContent]; })()",
            30,
            "the dealer's screen to ask a box for a decision",
        )
        page.screenshot(tmp_path, "dealer-screen")
        states = [m.payload for m in sub.on("state") if m.payload["seq"] == seq]
        assert states, f"the page drew state {seq}, which the subscriber never got"
        assert (who.upper(), ask) in [expectation(s, s["awaiting_key"]) for s in states]

        # The pit display: each settled round's payouts, exactly as the outcome message has them.
        page.open(display.url(""))
        compared: list[str] = []
        while len(compared) < 2:
            shown_outcome = page.until(
                "(() => { const o = arguments[0]; const el = document.querySelector("
                "`[data-table='e2e'] .outcome[data-outcome-id]`);"
                " return el && !o.includes(el.dataset.outcomeId); })()",
                30,
                "a newly settled round on the pit display",
                compared,
            ) and page.js(PAGE_OUTCOME, "e2e")
            sub.wait_for(
                lambda o=shown_outcome: any(
                    m.payload["outcome_id"] == o["id"] for m in sub.on("outcome")
                ),
                10,
                "the subscriber's copy of the page's outcome",
            )
            sent = next(
                m.payload
                for m in sub.on("outcome")
                if m.payload["outcome_id"] == shown_outcome["id"]
            )
            assert shown_outcome == as_shown(sent)
            assert shown_outcome["players"], "a settled round has players"
            compared.append(shown_outcome["id"])
        page.screenshot(tmp_path, "pit-display")

        # kill -9: the broker publishes the table's will, and the page says so.
        sim.send_signal(signal.SIGKILL)
        sim.wait(timeout=10)
        page.until(
            "document.querySelector(\"[data-table='e2e'] [data-liveness]\")"
            ".dataset.liveness === 'lost'",
            20,
            "the table to show lost",
        )
        badge = page.js(
            "return document.querySelector(\"[data-table='e2e'] [data-liveness]\").textContent;"
        )
        assert badge == "Lost"
        sub.wait_for(
            lambda: any(m.payload["state"] == "lost" for m in sub.on("status")),
            10,
            "the will on status",
        )
        # The dealer's screen no longer asks for what the dead table last wanted.
        page.open(display.url("dealer", table="e2e"))
        page.until(
            "document.querySelector('.next-who')?.textContent === 'Table lost'",
            10,
            "the dealer's screen to say the table is lost",
        )
    finally:
        display.stop()


def test_floor_overview_online_offline_lost(
    ws_broker: WsBroker,
    tmp_path: Path,
    page: Page,
    display: DisplayProcess,
    sims: Callable[..., subprocess.Popen[bytes]],
    subscribe: Callable[..., Subscriber],
) -> None:
    subs = {t: subscribe(ws_broker.port, t) for t in ("P1-T01", "P1-T02", "P1-T03")}
    procs = {t: sims(t, seed=str(n)) for n, t in enumerate(subs, start=3)}
    page.open(display.url("floor"))  # every table on the broker: no list given
    tile = "document.querySelector(`li.tile[data-table='${arguments[0]}'] [data-liveness]`)"
    for table in subs:
        page.until(f"{tile}?.dataset.liveness === 'online'", 30, f"{table} online", table)
    for table, sub in subs.items():
        sub.wait_for(lambda s=sub: bool(s.on("outcome")), 30, f"a round settled at {table}")
    page.until(
        "document.querySelectorAll('li.tile .money').length === 3",
        20,
        "every tile to show its last round",
    )

    procs["P1-T02"].send_signal(signal.SIGTERM)  # a clean stop: offline
    assert procs["P1-T02"].wait(timeout=20) == 0
    procs["P1-T03"].send_signal(signal.SIGKILL)  # a crash: lost (the will)
    procs["P1-T03"].wait(timeout=10)
    page.until(f"{tile}.dataset.liveness === 'offline'", 20, "P1-T02 offline", "P1-T02")
    page.until(f"{tile}.dataset.liveness === 'lost'", 20, "P1-T03 lost", "P1-T03")
    assert page.js(f"return {tile}.dataset.liveness;", "P1-T01") == "online"
    page.screenshot(tmp_path, "floor")
    summary = page.js("return document.getElementById('summary').textContent;")
    assert "1 online" in summary and "1 offline" in summary and "1 lost" in summary
