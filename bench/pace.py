"""The table's pace with the shoe camera in the loop: rounds per hour for 1 to
7 players at a real dealer's pace (`--speed 1`), against the same rounds dealt
from the virtual shoe (each card read at once, none unreadable) and against
the hand-dealt figures of a shoe game (Griffin, The Theory of Blackjack).

    python -m bench pace [--rounds 8] [--players 1-7] [--speed 1] [--seed 1]
                         [--deck DIR] [--calibration FILE] [--rules us-holecard]
                         [--serial]

Each player count runs twice in a process of its own, all at once (or one
player count at a time, `--serial`): the
virtual shoe and the camera (every card rendered as shoe-camera frames at
30 fps and read by the real reader). Every box is taken by a flat bettor,
so N players are N boxes dealt each round. With the same seed both runs deal
the same cards and the players decide the same, so the difference in time
per round is what the camera costs: the wait for a card's read after the
dealer's hand is done with it, and the key-ins of unreadable cards. Rounds
are timed from the first settlement to the last (start-up and the first
shuffle excluded), offline (no broker: the pace is the table's).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import tempfile
import time
from pathlib import Path
from typing import Any

HAND_DEALT = {1: 209, 2: 139, 3: 105, 4: 84, 5: 70, 6: 60, 7: 52}


def one(players: int, camera: bool, args: argparse.Namespace) -> dict[str, Any]:
    from controller.config import Config, override
    from sim.runner import build

    with tempfile.TemporaryDirectory() as state:
        config = override(
            Config(),
            "bench pace",
            table={"id": f"pace{players}", "rules": args.rules, "boxes": players},
            state={"dir": Path(state), "fsync": True},
            sim={
                "seed": args.seed,
                "rounds": args.rounds + 1,
                "speed": args.speed,
                "unreadable_rate": 0.0,
                "mistake_rate": 0.0,
                "players": {str(b): "flat" for b in range(1, players + 1)},
                "camera": camera,
                "deck": args.deck,
                "calibration": args.calibration,
            },
        )
        sim = build(config, offline=True)
        service = sim.service
        settled: list[float] = []

        def watch() -> float:
            if service.table.rounds > len(settled):
                settled.append(time.monotonic())
            return 0.01

        service.every(0.0, watch)
        service.run()
        service.store.close()
    span = settled[-1] - settled[0]
    rounds = len(settled) - 1
    out: dict[str, Any] = {
        "players": players,
        "camera": camera,
        "rounds": rounds,
        "seconds": span,
        "per_hour": 3600 * rounds / span if span else 0.0,
    }
    if sim.camera is not None:
        t = sim.camera.tally
        out.update(dealt=t.dealt, read=t.read, unreadable=t.unreadable, misread=t.misread,
                   missed=t.missed)
    return out


def _run(job: tuple[int, bool, argparse.Namespace]) -> dict[str, Any]:
    return one(*job)


def players_range(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench pace")
    parser.add_argument("--rounds", type=int, default=8, help="rounds timed per run")
    parser.add_argument("--players", default="1-7")
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deck", type=Path, help="deck folder (default: the house deck)")
    parser.add_argument("--calibration", type=Path,
                        help="the deck's calibration (default: the uncalibrated reader)")
    parser.add_argument("--rules", default="us-holecard")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--serial", action="store_true",
        help="one player count at a time (its two runs together): on a busy machine, seven "
        "camera processes at once starve each other of the CPU their 30 fps needs",
    )
    args = parser.parse_args(argv)
    counts = players_range(args.players)
    groups = [[n] for n in counts] if args.serial else [counts]
    results: list[dict[str, Any]] = []
    for group in groups:
        jobs = [(n, cam, args) for n in group for cam in (False, True)]
        with multiprocessing.get_context("spawn").Pool(len(jobs)) as pool:
            results += pool.map(_run, jobs)
    by = {(r["players"], r["camera"]): r for r in results}
    print(f"rules {args.rules}, speed {args.speed:g}, {args.rounds} rounds timed per run, "
          f"seed {args.seed}, deck {args.deck or 'house'}"
          + (f", calibrated ({args.calibration.name})" if args.calibration else ", uncalibrated")
          + (", one player count at a time" if args.serial else ", all at once"))
    # The simulated dealer is quicker than a human one: the camera's cost per round,
    # added to the hand-dealt time per round, is what a hand-paced table would make.
    print("| players | hand-dealt | sim, virtual shoe | sim, camera | added s/round "
          "| hand-dealt + camera | camera reads |")
    print("|---|---|---|---|---|---|---|")
    for n in players_range(args.players):
        v, c = by[(n, False)], by[(n, True)]
        added = 3600 / c["per_hour"] - 3600 / v["per_hour"]
        hand = HAND_DEALT.get(n)
        with_camera = f"{3600 / (3600 / hand + added):.0f}" if hand else "-"
        reads = (f"dealt {c['dealt']} read {c['read']} unreadable {c['unreadable']} "
                 f"misread {c['misread']} missed {c['missed']}")
        print(f"| {n} | {hand or '-'} | {v['per_hour']:.0f} | {c['per_hour']:.0f} "
              f"| {added:.2f} | {with_camera} | {reads} |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0
