"""`croupier calibrate scale`: calibrate the bet scale (load cells) and write the file.

    croupier calibrate scale --port /dev/serial/by-id/... --channels 1-7 \
        --known-grams 500 --chip 5=10.0 --chip 25 --out /etc/croupier/scale.json
    croupier calibrate scale --check /etc/croupier/scale.json

`register_scale(subparsers)` adds `scale` to the `calibrate` group's
subparsers; `register(subparsers)` makes a `calibrate` group holding only
`scale` (for a build without the camera tools); `python -m
controller.cli.calibrate_scale ...` runs it standalone.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any


def register_scale(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "scale",
        help="calibrate the bet scale: tare per spot, a known weight, grams per chip",
        description="Tare every load-cell channel, measure each with a known weight, weigh "
        "(or take) the grams of one chip per denomination, check that the chips can be told "
        "apart, and write the calibration file. Refuses a bad calibration with the reason.",
    )
    _arguments(p)
    p.set_defaults(handler=run)


def register(subparsers: Any) -> None:
    group = subparsers.add_parser("calibrate", help="calibration tools")
    sub = group.add_subparsers(dest="calibrate_command", metavar="TOOL")
    sub.required = True
    register_scale(sub)


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--check", type=Path, metavar="FILE", help="check a calibration file, show it")
    p.add_argument("--port", help="the load-cell board's serial port")
    p.add_argument("--baudrate", type=int, default=115200)
    p.add_argument("--channels", default="1-7", help="channels to calibrate: 1-7 or 1,2,5")
    p.add_argument("--known-grams", type=float, help="the reference weight, in grams")
    p.add_argument(
        "--chip",
        action="append",
        default=[],
        metavar="VALUE[=GRAMS]",
        help="a denomination; without =GRAMS its chips are weighed (--chip-count of them)",
    )
    p.add_argument("--chip-count", type=int, default=20)
    p.add_argument("--samples", type=int, default=20, help="frames averaged per step (10/s)")
    p.add_argument("--noise-g", type=float, default=1.0)
    p.add_argument("--chip-tolerance-g", type=float, default=0.2)
    p.add_argument("--max-chips", type=int, default=40)
    p.add_argument(
        "--unique-up-to",
        type=int,
        default=5,
        help="stacks of up to this many chips must never be ambiguous",
    )
    p.add_argument("--out", type=Path, help="the calibration file to write")


def channels(text: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return tuple(out)


def chips(items: list[str]) -> tuple[tuple[Decimal, float | None], ...]:
    out = []
    for item in items:
        value, _, grams = item.partition("=")
        try:
            out.append((Decimal(value), float(grams) if grams else None))
        except (InvalidOperation, ValueError):
            raise ValueError(f"--chip {item!r}: write VALUE or VALUE=GRAMS (25=11.5)") from None
    return tuple(out)


def run(args: argparse.Namespace) -> int:
    from controller import scale_file as scale
    from drivers.loadcell.scale import CalibrationError

    if args.check is not None:
        try:
            cal = scale.load(args.check)
        except CalibrationError as exc:
            return _refuse(str(exc))
        _show(cal)
        return 0
    missing = [f for f in ("port", "known_grams", "out") if getattr(args, f) is None]
    if missing or not args.chip:
        need = ", ".join(f"--{m.replace('_', '-')}" for m in missing) or "--chip"
        return _refuse(f"need {need} (or --check FILE)")
    return _calibrate(args)


def _calibrate(args: argparse.Namespace) -> int:
    from calibration import scale_session
    from controller import scale_file as scale
    from drivers.loadcell.reader import BoardError, read_frames
    from drivers.loadcell.scale import CalibrationError

    try:
        plan = scale_session.Plan(
            channels(args.channels),
            args.known_grams,
            chips(args.chip),
            args.chip_count,
            args.samples,
            args.noise_g,
            args.chip_tolerance_g,
            args.max_chips,
            args.unique_up_to,
        )
    except ValueError as exc:
        return _refuse(str(exc))

    def read(n: int) -> list[Any]:
        return read_frames(args.port, args.baudrate, n, timeout=5 + n / 5)

    def ask(text: str) -> None:
        print(f"{text} Press Enter when ready.", file=sys.stderr)
        input()

    try:
        cal = scale_session.run(plan, read, ask)
        scale.save(cal, args.out)
    except (CalibrationError, BoardError) as exc:
        return _refuse(str(exc))
    except EOFError:
        return _refuse("the input ended before the calibration was done")
    _show(cal)
    print(f"scale calibration written to {args.out}", file=sys.stderr)
    return 0


def _show(cal: Any) -> None:
    for c in cal.channels:
        print(f"channel {c.channel}: tare {c.offset} counts, {c.counts_per_gram:.2f} counts/g")
    for d in cal.denominations:
        print(f"chip {d.value}: {d.grams:g} g")
    print(
        f"tolerance {cal.noise_g:g} g + {cal.chip_tolerance_g:g} g per chip; stacks up to "
        f"{cal.unique_up_to} chips are unambiguous"
    )


def _refuse(reason: str) -> int:
    print(f"croupier calibrate scale: refused: {reason}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="croupier calibrate scale")
    _arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
