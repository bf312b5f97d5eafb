"""croupier run: the table on its hardware, published over MQTT."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import Any

HEALTH_S = 1.0  # how often the drivers' health is read for `status`
LEDS_S = 0.1  # how often the panel's LEDs follow what the engine expects
SUMMARY_S = 3.0  # after start, say what works and what does not


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "run",
        help="run the table on its hardware (drivers from the config's [drivers.*])",
        description="Run the table service on the configured drivers. It starts with whatever "
        "works and says what does not: a driver that cannot open its device is reported (on "
        "stderr, as a sensor_fault alert and in the status topic's devices) and keeps retrying "
        "while the table runs on the rest.",
    )
    parser.add_argument("--config", type=Path, required=True, help="table configuration (TOML)")
    parser.add_argument("--state-dir", type=Path)
    parser.add_argument("--log-level", choices=("debug", "info", "warning", "error"))
    parser.add_argument(
        "--record",
        type=Path,
        metavar="DIR",
        help="save the shoe camera's frames around each unreadable card in DIR (a video "
        "and a note each; replay one with croupier vision replay)",
    )
    parser.set_defaults(handler=run)


def summary(health: list[Any]) -> str:
    ok = sorted({h.device for h in health if h.ok})
    bad = [f"  {h.device}: {h.detail}" for h in health if not h.ok]
    lines = [f"croupier run: working: {', '.join(ok) or 'nothing'}"]
    if bad:
        lines += ["croupier run: NOT working (retrying; the table runs without them):", *bad]
    return "\n".join(lines)


def _record(config: Any, folder: Path) -> Any:
    """--record DIR: the camera's `record` key, refused without a camera."""
    from controller.config import ConfigError, override

    camera = config.drivers.camera
    if camera is None:
        raise ConfigError("--record: this table has no [drivers.camera]")
    drivers = config.drivers.model_dump(exclude_unset=True)
    drivers["camera"] = {**drivers.get("camera", {}), "record": folder}
    return override(config, "command line", drivers=drivers)


def run(args: argparse.Namespace) -> int:
    from controller import hardware, logs
    from controller.broker import BrokerFailed, broker_for
    from controller.config import ConfigError, override
    from controller.config import load as load_config
    from controller.service import JournalSyncError, Service

    try:
        config = override(
            load_config(args.config),
            "command line",
            state={"dir": args.state_dir},
            log={"level": args.log_level},
        )
        if args.record is not None:
            config = _record(config, args.record)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    logs.setup(config.log.level, config.log.file)
    try:
        hw = hardware.build(config.drivers, config.cards.camera_stale_after)
    except hardware.HardwareError as exc:
        print(f"croupier run: {args.config}: {exc}", file=sys.stderr)
        return 2
    for h in hw.health():
        if h.device == "camera" and not h.ok:
            # Said at once, not only in the summary: the dealer keys cards in meanwhile.
            print(
                f"croupier run: camera: {h.detail} (the table starts; cards are keyed in "
                "on the panel until the camera gives frames)",
                file=sys.stderr,
                flush=True,
            )
    address, broker = broker_for(config)
    try:
        if broker is not None:
            broker.start()
        service = Service(config, hw.drivers, address, meta={"mode": "run"})
    except (ConfigError, BrokerFailed) as exc:
        print(f"croupier run: {exc}", file=sys.stderr)
        return 2
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: service.stop())

    def health() -> float:
        service.set_devices([h.as_status() for h in hw.health()])
        return HEALTH_S

    def leds() -> float:
        panel = hw.panel
        if panel is not None:
            e = service.table.expecting()
            panel.show(e.what, e.actions, service.intake.awaiting_key)
        return LEDS_S

    def say() -> None:
        print(summary(hw.health()), file=sys.stderr, flush=True)

    service.every(0.0, health)
    service.every(0.0, leds)
    service.every(SUMMARY_S, lambda: say())  # returns None: once
    try:
        service.run()
    except JournalSyncError as exc:
        # Exit non-zero: systemd starts the table again, and the start replays the journal.
        print(f"croupier run: {exc}", file=sys.stderr)
        return 1
    finally:
        if broker is not None:
            broker.stop()
    return 0
