"""Procedural card decks: a new deck design for every seed.

Development time only: these decks train the learned card-index classifier,
which must read decks it has never seen, so every seed draws a different
design from the range of real decks (casino, poker, bridge, jumbo-index,
French and four-colour decks):

    .venv/bin/python -m calibration.procedural_decks --out /tmp/decks --seeds 0-19

writes each deck as /tmp/decks/proc-<seed>/<code>.png (BGRA, <code> as
"AS", "TD", "QH": rank in A23456789TJQK, suit in SHDC, T the ten, whatever
the card prints: a French deck's "R" is still the K file).

What varies from deck to deck (all drawn once from
numpy.random.default_rng(seed)): the card's shape (height/width 1.35-1.75,
corner radius 0-8% of the width), its paper (white, cream, ivory, light
grey; sometimes a fine texture and noise), a printed border line or frame,
or a coloured outer margin; the index font (any font of `font_paths()`:
its weights and condensed faces are fonts of the list; in half the decks
its strokes drawn 0.6-1.7 times as wide, in half its glyphs 0.72-1.3 times
as wide, as a deck's own lettering seldom is a font here), its size (8-20% of
the card's height for the rank), margins and layout (suit under the rank or
beside it, smaller or as tall), the ten's two digits (tight, spaced, the
font's own) and French letters (1 or A, R, D, V) in about 25% of decks;
the suits (shapes drawn from circles, polygons and curves with their own
proportions, or a font's U+2660-2667 symbols, filled or outlined), the inks
(orange-red to crimson, black to dark grey or navy, four-colour decks); the
pips (the standard layouts, their size; an ace's big pip, sometimes
ornate; jumbo decks with small pips) and the court pictures (framed,
mirrored art of shapes, robes, faces and crowns in red, blue, yellow and
black, with a small suit or letter inside the frame, never over an index).
The index is always in the top-left corner and, turned 180 degrees, in the
bottom-right one (sometimes in all four).

Fonts: every TTF/OTF font under /usr/share/fonts (and fc-list's) with
the glyphs 0-9 A J Q K R D V, upright, not hairline, with lining figures.
The decks used in training come from the Debian font packages (Debian 12)
of calibration.deck_fonts.FONT_PACKAGES (145 usable fonts), installed with:

    apt-get install fonts-dejavu fonts-liberation fonts-liberation2 fonts-freefont-ttf \\
        fonts-noto-core fonts-urw-base35 fonts-crosextra-carlito fonts-crosextra-caladea \\
        fonts-linuxlibertine fonts-ebgaramond fonts-roboto fonts-open-sans fonts-lato \\
        fonts-cantarell fonts-firacode fonts-inconsolata fonts-texgyre fonts-cmu \\
        fonts-oldstandard fonts-comic-neue fonts-bebas-neue

A seed gives the same deck on a machine with the same fonts (the design
picks from the sorted font list). Needs numpy, OpenCV and Pillow.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from calibration.deck_art import DeckArt
from calibration.deck_design import CODES, SS, deck_design
from calibration.deck_faces import render_card
from calibration.deck_fonts import font_paths, ink_of
from calibration.deck_suits import suit_fonts


@functools.lru_cache(maxsize=4)
def _deck(seed: int) -> DeckArt:
    return DeckArt(deck_design(seed))


def procedural_deck(seed: int) -> dict[str, npt.NDArray[np.uint8]]:
    """Deck `seed`'s 52 faces: code ("AS", "TH", ...) to a BGRA image
    (alpha 0 outside the rounded corners), portrait, CARD_H pixels high."""
    deck = _deck(seed)
    return {code: render_card(deck, code, i) for i, code in enumerate(CODES)}


def index_box(seed: int) -> tuple[int, int, int, int]:
    """Where deck `seed` prints its top-left index, x0, y0, x1, y1 in the
    face's pixels (the same box turned 180 degrees holds the other one)."""
    deck = _deck(seed)
    bw, bh = deck.block
    x0, y0 = deck.d.margin_x, deck.d.margin_y
    return (int(x0), int(y0), int(np.ceil(x0 + bw / SS)) + 1, int(np.ceil(y0 + bh / SS)) + 1)


# --- command line -------------------------------------------------------------------


def parse_seeds(text: str) -> list[int]:
    """"0-19", "3", "0-4,9,12-13" -> the seeds (non-negative)."""
    out: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def contact_sheet(decks: Sequence[dict[str, npt.NDArray[np.uint8]]], codes: Sequence[str],
                  card_h: int = 175) -> npt.NDArray[np.uint8]:
    """A BGR sheet: a row per deck, the given cards on a green felt."""
    cell_w = int(card_h / 1.3) + 8
    sheet = np.empty((len(decks) * (card_h + 8) + 8, len(codes) * cell_w + 8, 3), np.uint8)
    sheet[:] = (40, 90, 40)
    for i, deck in enumerate(decks):
        for j, code in enumerate(codes):
            face = deck[code]
            fw = round(face.shape[1] * card_h / face.shape[0])
            img = np.asarray(cv2.resize(face, (fw, card_h), interpolation=cv2.INTER_AREA),
                             np.uint8)
            a = ink_of(img[:, :, 3:4])
            y, x = 8 + i * (card_h + 8), 8 + j * cell_w
            sub = sheet[y : y + card_h, x : x + fw].astype(np.float32)
            sheet[y : y + card_h, x : x + fw] = (img[:, :, :3] * a + sub * (1 - a)).astype(
                np.uint8)
    return sheet


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m calibration.procedural_decks",
                                 description="Write procedural decks as DIR/proc-<seed>/<code>.png")
    ap.add_argument("--out", type=Path, required=True, help="output directory")
    ap.add_argument("--seeds", default="0-19", help='seeds, e.g. "0-19" or "0-4,9"')
    ap.add_argument("--sheet", type=Path, default=None,
                    help="also write a contact sheet of a few cards of every deck here")
    args = ap.parse_args(argv)
    seeds = parse_seeds(args.seeds)
    print(f"{len(font_paths())} usable fonts, {len(suit_fonts())} with suit symbols",
          file=sys.stderr)
    sheet_decks = []
    for seed in seeds:
        deck = procedural_deck(seed)
        out = args.out / f"proc-{seed}"
        out.mkdir(parents=True, exist_ok=True)
        for code, face in deck.items():
            cv2.imwrite(str(out / f"{code}.png"), face)
        if args.sheet is not None:
            sheet_decks.append(deck)
        print(f"proc-{seed}: {deck_design(seed).font.name}", file=sys.stderr)
    if args.sheet is not None:
        codes = ("AS", "5H", "TD", "QC", "KH", "7S", "9D", "JC")
        cv2.imwrite(str(args.sheet), contact_sheet(sheet_decks, codes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
