"""The simulated table: its bots exercise every rule of the profile they run,
and its results are a pure function of the seed and the round number."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from controller.config import Config, override
from controller.journal import Store
from sim.runner import build
from tests.service.contract import validate


def run(
    state: Path, rules: str, rounds: int, seed: int = 7, speed: float | str = "max"
) -> list[tuple[str, dict[str, Any]]]:
    """Play up to round `rounds` (earlier runs on `state` count) offline; all stored messages."""
    config = override(
        Config(),
        "test",
        table={"id": "sim", "rules": rules},
        state={"dir": state, "fsync": False},
        sim={"rounds": rounds, "speed": speed, "seed": seed},
    )
    build(config, offline=True).service.run()
    store = Store(state, fsync=False)
    try:
        rows = store.rows_from(1, 1_000_000)
    finally:
        store.close()
    messages = []
    for row in rows:
        payload = json.loads(row.payload)
        validate(row.topic, payload)
        messages.append((row.topic, payload))
    return messages


@cache
def played(rules: str, rounds: int = 250) -> tuple[tuple[str, str], ...]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        return tuple((t, json.dumps(p)) for t, p in run(Path(tmp), rules, rounds))


def events(rules: str) -> list[dict[str, Any]]:
    return [json.loads(p) for t, p in played(rules) if t == "events"]


def outcomes(rules: str) -> list[dict[str, Any]]:
    return [json.loads(p) for t, p in played(rules) if t == "outcome"]


def kinds(rules: str) -> Counter[str]:
    return Counter(e["type"] for e in events(rules))


def test_be_casino_bots_use_every_rule_of_the_profile() -> None:
    seen = kinds("be-casino")
    for kind in (
        "surrendered",
        "split",
        "doubled",
        "insurance_placed",
        "mistaken_card",
        "card_offered",
        "card_taken",
        "card_refused",
        "blackjack",
        "bust",
    ):
        assert seen[kind] > 0, f"be-casino never saw {kind}"
    behind = {e["player"] for e in events("be-casino") if e["type"] == "bet_placed"}
    assert any("/" in p for p in behind), "nobody bet behind"
    per_box: Counter[tuple[int, int]] = Counter(
        (e["round"], e["box"]) for e in events("be-casino") if e["type"] == "bet_placed"
    )
    assert max(per_box.values()) == 3  # up to 3 players on a box
    raised = Counter(
        (e["round"], e["box"], e["player"])
        for e in events("be-casino")
        if e["type"] == "insurance_placed"
    )
    assert max(raised.values()) >= 2, "no insurance was raised after a double or split"
    alerts = [json.loads(p) for t, p in played("be-casino") if t == "alerts"]
    assert any(a["kind"] == "unreadable" for a in alerts)
    assert not [a for a in alerts if a["kind"] not in ("unreadable",)], alerts[:3]


def test_fr_classic_leaves_pushes_on_the_layout_and_takes_bets_behind() -> None:
    carried = [o for o in outcomes("fr-classic") if o.get("carried")]
    assert carried, "no push stayed on the layout"
    seen = kinds("fr-classic")
    assert seen["card_burned"] >= 5 and seen["blackjack"] > 0 and seen["split"] > 0
    assert any("/" in e["player"] for e in events("fr-classic") if e["type"] == "bet_placed")
    # A carried stake is the next round's bet without a new bet_placed for it.
    first = carried[0]
    nxt = next(o for o in outcomes("fr-classic") if o["round"] == first["round"] + 1)
    stakes = {(b["box"], p["player"]) for b in nxt["boxes"] for p in b["players"]}
    assert {(c["box"], c["player"]) for c in first["carried"]} & stakes


@pytest.mark.parametrize("rules", ["pt", "us-holecard"])
def test_hole_card_games_hide_face_down_cards_until_revealed(rules: str) -> None:
    seen = kinds(rules)
    assert seen["dealer_peeked"] > 0 and seen["card_revealed"] > 0
    hidden = [e for e in events(rules) if e["type"] == "card_dealt" and e["face_down"]]
    assert hidden and all(e["card"] is None for e in hidden)
    if rules == "pt":
        assert seen["surrendered"] > 0
    else:
        assert any(e["type"] == "doubled" for e in events(rules))


def test_every_outcome_balances() -> None:
    for rules in ("be-casino", "fr-classic", "pt"):
        for o in outcomes(rules):
            nets = sum(float(p["net"]) for b in o["boxes"] for p in b["players"])
            assert abs(nets + float(o["house_net"])) < 1e-9


def test_stopping_and_going_on_gives_the_same_game(tmp_path: Path) -> None:
    whole = run(tmp_path / "whole", "be-casino", 40)
    run(tmp_path / "parts", "be-casino", 13)
    run(tmp_path / "parts", "be-casino", 27)
    parts = run(tmp_path / "parts", "be-casino", 40)
    assert [m for m in parts if m[0] != "alerts"] == [m for m in whole if m[0] != "alerts"]


def test_the_pace_changes_nothing_but_the_time(tmp_path: Path) -> None:
    """At a watchable speed the bots place one bet, one insurance at a time; at full
    speed all at once: the game is the same."""
    fast = run(tmp_path / "fast", "fr-classic", 6)
    paced = run(tmp_path / "paced", "fr-classic", 6, speed=400.0)
    assert [m for m in paced if m[0] != "alerts"] == [m for m in fast if m[0] != "alerts"]


def test_another_seed_another_game(tmp_path: Path) -> None:
    a = run(tmp_path / "a", "fr-2007", 10, seed=1)
    b = run(tmp_path / "b", "fr-2007", 10, seed=2)
    assert [m for m in a if m[0] == "outcome"] != [m for m in b if m[0] == "outcome"]


def test_a_state_dir_refuses_another_set_up(tmp_path: Path) -> None:
    from controller.config import ConfigError

    run(tmp_path, "be-casino", 2)
    with pytest.raises(ConfigError, match="seed is '7', not '8'"):
        run(tmp_path, "be-casino", 3, seed=8)
