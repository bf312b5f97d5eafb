"""croupier sim: the whole table on simulated drivers, published over MQTT."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "sim",
        help="run the table on simulated drivers (virtual shoe, sensors, dealer and players)",
        description="Run the table service on simulated drivers, publishing the MQTT contract. "
        "Without --broker an MQTT broker is started in-process (127.0.0.1, TCP 1883, WebSockets "
        "9001). Results are a pure function of the seed and the round number; run again on the "
        "same --state-dir after a crash to continue where it stopped.",
    )
    parser.add_argument("--config", type=Path, help="table configuration (TOML); flags win")
    parser.add_argument("--rounds", type=int, help="stop after this round (0: never)")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--rules", help="rule profile name or .toml file")
    parser.add_argument("--boxes", type=int)
    parser.add_argument("--speed", help="pace factor (1 = a real dealer) or 'max'")
    parser.add_argument("--table", help="table id (a topic level)")
    parser.add_argument("--state-dir", type=Path)
    parser.add_argument(
        "--broker", help="mqtt://host:port, mqtts://, ws://, wss:// (default: embedded)"
    )
    parser.add_argument("--username")
    parser.add_argument("--password")
    parser.add_argument("--ca-file", type=Path, help="CA certificate for mqtts:// or wss://")
    parser.add_argument("--cert-file", type=Path, help="client certificate (TLS)")
    parser.add_argument("--key-file", type=Path, help="client key (TLS)")
    parser.add_argument("--port", type=int, help="embedded broker's TCP port (1883)")
    parser.add_argument("--ws-port", type=int, help="embedded broker's WebSockets port (9001)")
    parser.add_argument(
        "--cheat-rate",
        type=float,
        help="share of rounds with a cheating player (past-posting or pinching; 0 to 1)",
    )
    parser.add_argument(
        "--player",
        action="append",
        metavar="BOX=KIND",
        default=[],
        help="who sits on a box: counter-8, counter-12, classic-8 (Hi-Lo counters) or flat "
        "(repeat for several boxes; the others bet at random)",
    )
    parser.add_argument(
        "--payouts",
        action="store_true",
        help="the dealer pays and collects on the bet sensors after each round",
    )
    parser.add_argument(
        "--payout-error-rate",
        type=float,
        help="share of spots the dealer pays wrong (0 to 1; implies --payouts)",
    )
    parser.add_argument(
        "--camera",
        action="store_true",
        help="the shoe camera in the loop: each card drawn is rendered as camera frames and "
        "the card reader reads them; the table gets only what the reader read. Prints "
        "'camera: dealt N read R unreadable U misread M' and the latency from a card's "
        "first frame to its events message at the end",
    )
    parser.add_argument(
        "--deck", type=Path, metavar="DIR", help="with --camera: a folder of 52 card faces "
        "named <rank><suit>.png (default: the house deck)"
    )
    parser.add_argument(
        "--calibration", type=Path, metavar="FILE",
        help="with --camera: a deck or camera calibration (default: the learned reader)",
    )
    parser.add_argument("--no-view", action="store_true", help="no terminal view (headless)")
    parser.add_argument(
        "--no-fsync", action="store_true", help="journal survives a crash, not a power cut"
    )
    parser.add_argument("--log-level", choices=("debug", "info", "warning", "error"))
    floor = parser.add_argument_group("a floor of tables (sim/floor.py)")
    floor.add_argument("--tables", type=int, help="run N tables <table>-01.. against --broker")
    floor.add_argument("--processes", type=int, help="worker processes (default: one per core)")
    floor.add_argument(
        "--stay", action="store_true", help="tables stay online after their rounds until stopped"
    )
    parser.set_defaults(handler=run)


def configure(args: argparse.Namespace) -> Any:
    from controller.config import Config, override
    from controller.config import load as load_config

    base = load_config(args.config) if args.config else Config()
    speed: float | str | None = args.speed
    if speed is not None and speed != "max":
        try:
            speed = float(speed)
        except ValueError:
            speed = args.speed  # let the model say what is wrong
    tls = None
    if args.ca_file or args.cert_file or args.key_file:
        tls = {"ca_file": args.ca_file, "cert_file": args.cert_file, "key_file": args.key_file}
    mqtt: dict[str, Any] = {
        "broker": args.broker,
        "username": args.username,
        "password": args.password,
        "tls": tls,
    }
    embedded = {"port": args.port, "ws_port": args.ws_port}
    if any(v is not None for v in embedded.values()):
        mqtt["embedded"] = {
            **base.mqtt.embedded.model_dump(),
            **{k: v for k, v in embedded.items() if v is not None},
        }
    return override(
        base,
        "command line",
        table={"id": args.table, "rules": args.rules, "boxes": args.boxes},
        state={"dir": args.state_dir, "fsync": False if args.no_fsync else None},
        mqtt=mqtt,
        sim={
            "seed": args.seed,
            "rounds": args.rounds,
            "speed": speed,
            "cheat_rate": args.cheat_rate,
            "players": _players(args.player, base),
            "payouts": True if args.payouts else None,
            "payout_error_rate": args.payout_error_rate,
            "camera": True if args.camera else None,
            "deck": args.deck,
            "calibration": args.calibration,
        },
        log={"level": args.log_level},
    )


def _players(given: list[str], base: Any) -> dict[str, str] | None:
    """--player 3=counter-8 ...: added to the config file's [sim] players."""
    if not given:
        return None
    players = dict(base.sim.players)
    for item in given:
        box, _, kind = item.partition("=")
        players[box.strip()] = kind.strip()
    return players


def run(args: argparse.Namespace) -> int:
    from controller import logs
    from controller.broker import BrokerFailed
    from controller.config import ConfigError
    from controller.engine.errors import ProfileError
    from controller.service import JournalSyncError
    from sim.runner import build

    if args.tables is not None:
        return _floor(args)
    if (args.deck or args.calibration) and not args.camera:
        print("croupier sim: --deck and --calibration go with --camera", file=sys.stderr)
        return 2
    try:
        config = configure(args)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    show = not args.no_view and sys.stdout.isatty()
    log_file = config.log.file or (config.state.dir / "croupier.log" if show else None)
    logs.setup(config.log.level, log_file)
    try:
        sim = build(config)
        if sim.broker is not None:
            sim.broker.start()
    except (ConfigError, ProfileError, BrokerFailed) as exc:
        print(f"croupier sim: {exc}", file=sys.stderr)
        return 2
    service = sim.service
    if args.stay:
        sim.bots.on_done = None  # its rounds dealt, the table stays online until stopped
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: service.stop())
    clock = _camera_clock(sim, config)
    view = None
    if show:
        from controller.terminal import TerminalView

        footer = sim.camera.tally.line if sim.camera is not None else None
        view = TerminalView(service.view, config.view.refresh_hz, footer)
        view.start()
        service.every(0.0, view.tick)
    try:
        service.run()
    except JournalSyncError as exc:
        # Exit non-zero; started again on the same state dir, the sim replays its journal.
        print(f"croupier sim: {exc}", file=sys.stderr)
        return 1
    finally:
        if view is not None:
            view.stop()
        if clock is not None:
            clock.stop()
        if sim.broker is not None:
            sim.broker.stop()
        if sim.camera is not None:
            print(sim.camera.tally.line(), flush=True)
    return 0


def _floor(args: argparse.Namespace) -> int:
    from controller import logs
    from controller.config import ConfigError
    from sim.floor import run_floor

    if args.tables < 1 or args.camera:
        print("croupier sim: --tables takes 1 or more, without --camera", file=sys.stderr)
        return 2
    try:
        config = configure(args)
        logs.setup(config.log.level, config.log.file)
        return run_floor(config, args.tables, args.processes, args.stay)
    except (ConfigError, ValueError) as exc:
        print(f"croupier sim: {exc}", file=sys.stderr)
        return 2


def _camera_clock(sim: Any, config: Any) -> Any:
    """With --camera and a broker: the subscriber that times card events."""
    if sim.camera is None or sim.address is None:
        return None
    from sim.camera.clock import EventClock

    clock = EventClock(config.mqtt, sim.address, sim.service.root, sim.camera.tally)
    if not clock.start():
        print("croupier sim: the latency subscriber could not subscribe in 10 s: latencies "
              "are measured from its first message on", file=sys.stderr)
    return clock
