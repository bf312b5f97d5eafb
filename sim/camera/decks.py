"""Card faces for the simulated camera: any deck from a folder of 52 images
named `<rank><suit>.png`, and the project's own deck drawn here.

A face is a BGRA image; the alpha channel cuts the rounded corners.
"""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np

from drivers.vision.glyphs import Image

RANKS = "A23456789TJQK"
SUITS = "SHDC"
ALL_CARDS = tuple(r + s for s in SUITS for r in RANKS)
RED = (40, 30, 200)  # BGR
BLACK = (30, 25, 25)
FACE_W, FACE_H = 250, 350

Deck = dict[str, Image]


class DeckError(ValueError):
    """A deck folder that cannot be used, with the reason."""


def load_deck(folder: Path) -> Deck:
    """All 52 faces of a deck folder as BGRA images."""
    faces: Deck = {}
    missing = [c for c in ALL_CARDS if not (folder / f"{c}.png").is_file()]
    if missing:
        raise DeckError(f"{folder}: missing {len(missing)} face(s): {' '.join(missing[:8])}")
    for code in ALL_CARDS:
        img = cv2.imread(str(folder / f"{code}.png"), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise DeckError(f"{folder / (code + '.png')}: not a readable image")
        faces[code] = to_bgra(img)
    return faces


def to_bgra(img: Image) -> Image:
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    if img.shape[2] == 3:
        return cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    return img


def _blank(
    w: int = FACE_W,
    h: int = FACE_H,
    colour: tuple[int, int, int] = (245, 245, 240),
    radius: int = 14,
) -> Image:
    face = np.zeros((h, w, 4), np.uint8)
    face[:, :, :3] = colour
    alpha = np.zeros((h, w), np.uint8)
    cv2.rectangle(alpha, (radius, 0), (w - 1 - radius, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, radius), (w - 1, h - 1 - radius), 255, -1)
    for cx, cy in (
        (radius, radius),
        (w - 1 - radius, radius),
        (radius, h - 1 - radius),
        (w - 1 - radius, h - 1 - radius),
    ):
        cv2.circle(alpha, (cx, cy), radius, 255, -1, cv2.LINE_AA)
    face[:, :, 3] = alpha
    return face


def draw_pip(img: Image, suit: str, cx: int, cy: int, size: int, colour: tuple[int, ...]) -> None:
    """The house deck's suit symbols: hearts and spades from two circles and a
    point, clubs from three circles, diamonds as a slim rhombus."""
    s = size / 2.0
    if suit in "HS":
        sign = 1 if suit == "H" else -1
        r = round(0.52 * s)
        lobe_y = round(cy - sign * 0.3 * s)
        for dx in (-0.47 * s, 0.47 * s):
            cv2.circle(img, (round(cx + dx), lobe_y), r, colour, -1, cv2.LINE_AA)
        tip = (cx, round(cy + sign * 1.0 * s))
        pts = np.array(
            [
                [round(cx - 0.98 * s), round(cy - sign * 0.14 * s)],
                [round(cx + 0.98 * s), round(cy - sign * 0.14 * s)],
                tip,
            ],
            np.int32,
        )
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
        if suit == "S":
            stem = np.array(
                [
                    [cx, round(cy + 0.1 * s)],
                    [round(cx + 0.3 * s), round(cy + s)],
                    [round(cx - 0.3 * s), round(cy + s)],
                ],
                np.int32,
            )
            cv2.fillPoly(img, [stem], colour, cv2.LINE_AA)
    elif suit == "D":
        pts = np.array(
            [
                [cx, round(cy - s)],
                [round(cx + 0.72 * s), cy],
                [cx, round(cy + s)],
                [round(cx - 0.72 * s), cy],
            ],
            np.int32,
        )
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
    else:
        r = round(0.42 * s)
        for dx, dy in ((0.0, -0.5), (-0.5, 0.15), (0.5, 0.15)):
            cv2.circle(img, (round(cx + dx * s), round(cy + dy * s)), r, colour, -1, cv2.LINE_AA)
        stem = np.array(
            [
                [cx, round(cy - 0.1 * s)],
                [round(cx + 0.3 * s), round(cy + s)],
                [round(cx - 0.3 * s), round(cy + s)],
            ],
            np.int32,
        )
        cv2.fillPoly(img, [stem], colour, cv2.LINE_AA)


def _index(face: Image, text: str, suit: str, colour: tuple[int, ...]) -> None:
    """Rank and suit in the top left corner of a face (drawn on a BGR view):
    the rank fitted into a 38 px high box (a ten is condensed to fit), the
    suit under it."""
    font = cv2.FONT_HERSHEY_DUPLEX
    (tw, th), base = cv2.getTextSize(text, font, 3.0, 7)
    mask = np.zeros((th + base + 20, tw + 20), np.uint8)
    cv2.putText(mask, text, (10, th + 10), font, 3.0, 255, 7, cv2.LINE_AA)
    ys, xs = np.nonzero(mask > 100)
    glyph = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    height = 38
    width = min(40, round(glyph.shape[1] * height / glyph.shape[0]))
    small = cv2.resize(glyph, (width, height), interpolation=cv2.INTER_AREA).astype(np.float32)
    cx, top = 30, 14
    x0 = cx - width // 2
    roi = face[top : top + height, x0 : x0 + width].astype(np.float32)
    a = (small / 255.0)[:, :, None]
    face[top : top + height, x0 : x0 + width] = (roi * (1 - a) + np.array(colour) * a).astype(
        np.uint8
    )
    draw_pip(face, suit, cx, top + height + 20, 26, colour)


def _pips(face: Image, rank: str, suit: str, colour: tuple[int, ...], letter: str) -> None:
    w, h = face.shape[1], face.shape[0]
    n = {"A": 1, "T": 10}.get(rank, int(rank) if rank.isdigit() else 0)
    if rank in "JQK":
        cv2.rectangle(face, (66, 76), (w - 66, h - 76), colour, 3, cv2.LINE_AA)
        cv2.putText(
            face,
            letter,
            (w // 2 - 38, h // 2 + 38),
            cv2.FONT_HERSHEY_TRIPLEX,
            3.2,
            colour,
            6,
            cv2.LINE_AA,
        )
        return
    if n == 1:
        draw_pip(face, suit, w // 2, h // 2, 90, colour)
        return
    cols = [w // 2] if n <= 3 else [w // 2 - 44, w // 2 + 44]
    per_col = -(-n // len(cols))
    placed = 0
    for col in cols:
        k = min(per_col, n - placed)
        for i in range(k):
            y = round(80 + (h - 160) * (i + 0.5) / k)
            draw_pip(face, suit, col, y, 34, colour)
        placed += k


@functools.lru_cache(maxsize=4)
def house_deck(french: bool = False) -> Deck:
    """The project's own deck. With french=True the indices read 1 R D V
    (as, roi, dame, valet), which only a calibration can teach the reader."""
    labels = {"A": "A", "T": "10", "J": "J", "Q": "Q", "K": "K"}
    if french:
        labels.update({"A": "1", "K": "R", "Q": "D", "J": "V"})
    deck: Deck = {}
    for code in ALL_CARDS:
        rank, suit = code[0], code[1]
        colour = RED if suit in "HD" else BLACK
        face = _blank()
        bgr = np.ascontiguousarray(face[:, :, :3])
        cv2.rectangle(bgr, (2, 2), (FACE_W - 3, FACE_H - 3), (150, 150, 150), 1, cv2.LINE_AA)
        _index(bgr, labels.get(rank, rank), suit, colour)
        bgr[:] = np.maximum(bgr, 0)
        turned = np.ascontiguousarray(bgr[::-1, ::-1])
        _index(turned, labels.get(rank, rank), suit, colour)
        bgr[:] = turned[::-1, ::-1]
        _pips(bgr, rank, suit, colour, labels.get(rank, rank))
        face[:, :, :3] = bgr
        deck[code] = face
    return deck


def card_back() -> Image:
    """A red patterned back: what the camera sees if a card goes in the shoe
    face up."""
    face = _blank(colour=(40, 40, 170))
    bgr = np.ascontiguousarray(face[:, :, :3])
    for k in range(-FACE_H, FACE_W + FACE_H, 14):
        cv2.line(bgr, (k, 0), (k + FACE_H, FACE_H), (230, 230, 235), 3, cv2.LINE_AA)
        cv2.line(bgr, (k, FACE_H), (k + FACE_H, 0), (230, 230, 235), 3, cv2.LINE_AA)
    cv2.rectangle(bgr, (10, 10), (FACE_W - 11, FACE_H - 11), (240, 240, 240), 6)
    face[:, :, :3] = bgr
    return face


def cut_card() -> Image:
    """The plain plastic cut card (yellow, no print)."""
    return _blank(colour=(60, 220, 240), radius=4)


def main(argv: list[str] | None = None) -> int:
    """Write the project's own deck as a folder of 52 faces (what `croupier
    calibrate deck --images` takes, as a house's scans of its deck)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m sim.camera.decks", description=main.__doc__)
    parser.add_argument("out", type=Path, help="folder to write <rank><suit>.png into")
    parser.add_argument("--french", action="store_true", help="French indices (1 R D V)")
    args = parser.parse_args(argv)
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SystemExit(
            f"python -m sim.camera.decks: cannot make {args.out}: {exc.strerror}") from None
    for code, face in house_deck(args.french).items():
        if not cv2.imwrite(str(args.out / f"{code}.png"), face):
            raise SystemExit(f"python -m sim.camera.decks: cannot write {args.out / code}.png")
    print(f"52 faces written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
