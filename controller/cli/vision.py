"""`croupier vision read [--calibration FILE] IMAGE...`: frame mode on still
images. One line per card found: image, card (or `none` for a card found but
not readable), confidence, and the card centre x, y in pixels, tab-separated.
Uncalibrated, the learned reader (drivers.vision.learned) reads every card
corner in view, so cards that overlap or that the image's edge cuts are read
too.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from drivers.vision.reader import Model
from drivers.vision.vision_file import CalibrationError, load


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    vision = subparsers.add_parser("vision", help="the card reader on still images")
    sub = vision.add_subparsers(dest="vision_command", metavar="ACTION")
    sub.required = True
    read = sub.add_parser(
        "read", help="find and read every card in images",
        description="Find and read every card in each image. Prints one line per card found, "
        "five tab-separated columns: IMAGE, CARD (a code such as QH or TS; `none` for a card "
        "found but not read: the reader never guesses), CONFIDENCE (0 to 1; 0.000 for `none`), "
        "X and Y (the card's centre in pixels). For each `none`, why it was not read goes to "
        "stderr, and an image with no card found says so there too. The reader looks for "
        "cards as the camera sees them, lying on the table: a scan of a bare card face, cut "
        "edge to edge, reads best laid on a dark or felt-green background.")
    read.add_argument("--calibration", type=Path, help="deck or camera calibration file")
    read.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    read.set_defaults(handler=run_read)
    replay = sub.add_parser(
        "replay", help="read the cards of a recorded shoe video",
        description="Read a recorded shoe-camera video (any format OpenCV opens; the clips "
        "croupier run --record saves) as the running table's reader would, frame by frame. "
        "One line per card, tab-separated: FRAME (the frame it was read best in, from 0), "
        "CARD (`none`: a card went past and was not read; the table would have asked the "
        "dealer to key it in), CONFIDENCE; then `# reason` for a card not read.")
    replay.add_argument("--calibration", type=Path,
                        help="deck or camera calibration file (its shoe geometry too)")
    replay.add_argument("video", type=Path, metavar="VIDEO")
    replay.set_defaults(handler=run_replay)


def run_read(args: argparse.Namespace) -> int:
    import cv2  # only when reading: `croupier --help` stays light

    from drivers.vision.frame import read_frame, size_range

    model: Model
    try:
        if args.calibration:
            model = load(args.calibration).model()
        else:
            from drivers.vision.learned import learned_model

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
        cards = read_frame(image, model, short_side=size_range(image.shape[:2]))
        if not cards:
            print(f"croupier vision read: {path}: no card found", file=sys.stderr)
        for card in cards:
            code = card.card or "none"
            x, y = card.centre
            print(f"{path}\t{code}\t{card.confidence:.3f}\t{x:.0f}\t{y:.0f}", flush=True)
            if card.card is None:
                print(f"croupier vision read: {path}: the card at {x:.0f},{y:.0f} was not read: "
                      f"{why_not_read(card, image.shape, cards)}", file=sys.stderr, flush=True)
    return status


def why_not_read(card: Any, shape: tuple[int, ...], others: list[Any]) -> str:
    """In words, why a card found was not read (stdout keeps its five columns)."""
    reads = [r for r in card.reads if r is not None]
    if not reads:
        x, y = card.centre
        h, w = shape[0], shape[1]
        if abs(x - w / 2) < 0.03 * w and abs(y - h / 2) < 0.03 * h:
            # The outline centred on the image: the image's own edge, which a
            # scan of a bare face cut edge to edge shows where the table would.
            if any(c.card for c in others):
                return ("the image's own edge, taken for a card's outline: no index corner on "
                        "it (the card inside it is read on another line)")
            return ("no index corner found on an outline the size of the whole image: a bare "
                    "card face cut edge to edge? lay it on a dark or green background")
        return "no index corner found on its outline (covered, cut off, or too small)"
    codes = {r.card for r in reads if r.card is not None}
    if len(codes) > 1:
        return f"its two index corners disagree ({' / '.join(sorted(codes))})"
    best = max(reads, key=lambda r: r.confidence)
    return (f"not sure enough: it looks most like {best.best} (confidence {best.confidence:.2f}, "
            "below what the reader accepts)")



def run_replay(args: argparse.Namespace) -> int:
    import cv2

    from drivers.camera.source import CardSource

    try:
        source = CardSource.from_calibration(args.calibration)
    except (CalibrationError, OSError, ValueError) as exc:
        print(f"croupier vision replay: {args.calibration}: {exc}", file=sys.stderr)
        return 2
    if not args.video.is_file():
        print(f"croupier vision replay: {args.video}: no such file", file=sys.stderr)
        return 2
    video = cv2.VideoCapture(str(args.video))
    if not video.isOpened():
        print(f"croupier vision replay: {args.video}: not a video OpenCV can open",
              file=sys.stderr)
        return 2
    from drivers.vision import kernels

    kernels.warm()
    size = source.reader.geometry.frame_size
    index = 0
    try:
        while True:
            ok, frame = video.read()
            if not ok:
                break
            if index == 0 and (frame.shape[1], frame.shape[0]) != size:
                print(f"croupier vision replay: {args.video}: frames are "
                      f"{frame.shape[1]}x{frame.shape[0]}, the shoe geometry expects "
                      f"{size[0]}x{size[1]} (a camera calibration sets it)", file=sys.stderr)
                return 2
            for read in source.feed(frame, index):
                _print_read(read)
            index += 1
        for read in source.flush():
            _print_read(read)
    finally:
        video.release()
    if index == 0:
        print(f"croupier vision replay: {args.video}: no frames", file=sys.stderr)
        return 1
    return 0


def _print_read(read: Any) -> None:
    line = f"{read.frame_index}\t{read.card or 'none'}\t{read.confidence:.3f}"
    if read.card is None and read.reason:
        line += f"\t# {read.reason}"
    print(line, flush=True)
