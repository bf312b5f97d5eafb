"""`croupier vision read [--calibration FILE] IMAGE...`: frame mode on still
images. One line per card found: image, card (or `none` for a card found but
not readable), confidence, and the card centre x, y in pixels, tab-separated.
Uncalibrated, the learned reader (drivers.camera.learned) reads every card
corner in view, so cards that overlap or that the image's edge cuts are read
too.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from calibration.vision_file import CalibrationError, load
from drivers.camera.reader import Model


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    vision = subparsers.add_parser("vision", help="the card reader on still images")
    sub = vision.add_subparsers(dest="vision_command", metavar="ACTION")
    sub.required = True
    read = sub.add_parser(
        "read", help="find and read every card in images",
        description="Find and read every card in each image. One line per card found, "
        "tab-separated: IMAGE, CARD (a code such as QH or TS; `none` for a card found "
        "but not read: the reader never guesses), CONFIDENCE (0 to 1), and X, Y (the "
        "card's centre in pixels).")
    read.add_argument("--calibration", type=Path, help="deck or camera calibration file")
    read.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    read.set_defaults(handler=run_read)


def run_read(args: argparse.Namespace) -> int:
    import cv2  # only when reading: `croupier --help` stays light

    from drivers.camera.frame import read_frame, size_range

    model: Model
    try:
        if args.calibration:
            model = load(args.calibration).model()
        else:
            from drivers.camera.learned import learned_model

            model = learned_model()
    except (CalibrationError, ValueError) as exc:
        print(f"croupier vision read: {exc}", file=sys.stderr)
        return 2
    status = 0
    for path in args.images:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            print(f"croupier vision read: {path}: not a readable image", file=sys.stderr)
            status = 1
            continue
        for card in read_frame(image, model, short_side=size_range(image.shape[:2])):
            code = card.card or "none"
            x, y = card.centre
            print(f"{path}\t{code}\t{card.confidence:.3f}\t{x:.0f}\t{y:.0f}")
    return status

