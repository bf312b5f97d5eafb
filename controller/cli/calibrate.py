"""`croupier calibrate ...`: a group of calibration tools. Each tool is one
entry of SUBCOMMANDS below (name -> registrar), so adding one (for example
`calibrate scale` for the bet sensors) is one function and one line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from controller.cli.calibrate_scale import register_scale
from drivers.vision.vision_file import CalibrationError, save

Registrar = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]


def _deck(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("deck", help="learn the house deck from its 52 face images")
    p.add_argument(
        "--images",
        type=Path,
        required=True,
        help="folder of 52 faces named <rank><suit>.png (AS.png, TD.png, ...)",
    )
    p.add_argument("--out", type=Path, required=True, help="calibration file to write (.npz)")
    p.set_defaults(handler=run_deck)


def _camera(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "camera", help="learn the house deck and the shoe camera from 52 cards shown to the camera"
    )
    p.add_argument(
        "--device",
        required=True,
        help="camera: a V4L2 index (0) or path, or `picamera` for the Pi camera",
    )
    p.add_argument("--out", type=Path, required=True, help="calibration file to write (.npz)")
    p.add_argument(
        "--seconds",
        type=float,
        default=10.0,
        help="time allowed for each card before giving up (default 10)",
    )
    p.set_defaults(handler=run_camera)


SUBCOMMANDS: dict[str, Registrar] = {
    "deck": _deck,
    "camera": _camera,
    "scale": register_scale,
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    group = subparsers.add_parser("calibrate", help="calibration tools")
    sub = group.add_subparsers(dest="calibrate_command", metavar="TOOL")
    sub.required = True
    for registrar in SUBCOMMANDS.values():
        registrar(sub)


def _refuse(exc: Exception) -> int:
    print(f"croupier calibrate: refused: {exc}", file=sys.stderr)
    return 2


def run_deck(args: argparse.Namespace) -> int:
    from calibration.deck import calibrate_deck

    try:
        cal = calibrate_deck(args.images)
    except CalibrationError as exc:
        return _refuse(exc)
    save(cal, args.out)
    print(f"calibration of deck {cal.deck!r} written to {args.out}", file=sys.stderr)
    _say_weak(cal.checks)
    return 0


def _say_weak(checks: dict[str, object]) -> None:
    """The cards the adapted reader read in few of their check's views: no
    danger (never guessed), but the dealer will key them in more often."""
    weak = checks.get("weak")
    if isinstance(weak, list) and weak:
        print(f"note: {len(weak)} cards were read in under a quarter of their check's views "
              f"and will be keyed in more often: {' '.join(str(c) for c in weak)}",
              file=sys.stderr)


def open_device(device: str) -> object:
    """The camera (replaced by a fake device in tests)."""
    from drivers.camera.capture import open_source

    return open_source(device)


def run_camera(args: argparse.Namespace) -> int:
    from calibration.camera import calibrate_camera
    from drivers.camera.capture import CameraError, FrameSource

    try:
        source: FrameSource = open_device(args.device)  # type: ignore[assignment]
    except CameraError as exc:
        return _refuse(exc)

    def ask(code: str) -> None:
        print(
            f"lay {code} face up on the ramp, index corner to the left, and hold it still",
            file=sys.stderr,
        )
        show = getattr(source, "show", None)  # a simulated device follows the prompt
        if callable(show):
            show(code)

    def say(message: str) -> None:
        print(message, file=sys.stderr)

    try:
        cal = calibrate_camera(source, ask, say, max_frames=max(1, int(args.seconds * 30)))
    except CalibrationError as exc:
        return _refuse(exc)
    finally:
        source.close()
    save(cal, args.out)
    _say_weak(cal.checks)
    geometry = cal.geometry
    where = f" (band {geometry.band}, rank {geometry.rank_height} px)" if geometry else ""
    print(f"camera calibration written to {args.out}{where}", file=sys.stderr)
    return 0
