"""`croupier vision read [--calibration FILE] IMAGE...`: frame mode on still
images. One line per card found: image, card (or `none` for a card found but
not readable), confidence, and the card centre x, y in pixels, tab-separated.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from calibration.vision_file import CalibrationError, load
from drivers.camera.generic import generic_model
from drivers.camera.reader import Model


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    vision = subparsers.add_parser("vision", help="the card reader on still images")
    sub = vision.add_subparsers(dest="vision_command", metavar="ACTION")
    sub.required = True
    read = sub.add_parser("read", help="find and read every card in images")
    read.add_argument("--calibration", type=Path, help="deck or camera calibration file")
    read.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    read.set_defaults(handler=run_read)


def run_read(args: argparse.Namespace) -> int:
    import cv2  # only when reading: `croupier --help` stays light

    from drivers.camera.frame import read_frame

    model: Model
    try:
        model = load(args.calibration).model() if args.calibration else generic_model()
    except CalibrationError as exc:
        print(f"croupier vision read: {exc}", file=sys.stderr)
        return 2
    status = 0
    for path in args.images:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            print(f"croupier vision read: {path}: not a readable image", file=sys.stderr)
            status = 1
            continue
        for card in read_frame(image, model, short_side=_size_range(image.shape[:2])):
            code = card.card or "none"
            x, y = card.centre
            print(f"{path}\t{code}\t{card.confidence:.3f}\t{x:.0f}\t{y:.0f}")
    return status


def _size_range(shape: tuple[int, ...]) -> tuple[float, float]:
    """Card widths looked for: from 1/12 of the image's short side up to 3/4."""
    short = float(min(shape[0], shape[1]))
    return (max(40.0, short / 12.0), short * 0.75)
