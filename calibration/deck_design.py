"""A procedural deck's design: every random choice of deck `seed`, drawn once.

What varies from deck to deck is listed in calibration/procedural_decks.py;
lengths are in the final card's pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from calibration.deck_fonts import font_table
from calibration.deck_suits import SUITS, SuitStyle, suit_fonts

RGB = tuple[float, float, float]

RANKS = "A23456789TJQK"
CODES = tuple(r + s for s in SUITS for r in RANKS)
CARD_H = 350  # the card's height in pixels
SS = 2  # drawn at twice the size, then shrunk (smooth edges)
FRENCH = {"K": "R", "Q": "D", "J": "V"}


@dataclass(frozen=True)
class DeckDesign:
    """Every choice of a deck (lengths in final pixels)."""

    seed: int
    width: int
    height: int
    radius: float
    paper: RGB
    border: str  # "none", "line", "double", "frame", "margin"
    border_inset: float
    border_width: float
    border_color: RGB
    font: Path
    ten: str  # "font", "tight", "spaced"
    ten_gap: float  # gap between the ten's digits over the rank height
    ten_squeeze: float  # the ten at most this many times the widest other rank
    french: bool
    french_ace: str  # "1" or "A"
    rank_h: float
    suit_ratio: float  # suit height over rank height in the index
    beside: bool  # suit to the right of the rank
    index_gap: float  # between rank and suit, over rank height
    left_align: bool
    margin_x: float
    margin_y: float
    four_corners: bool
    suit_source: str  # "drawn" or a font's path
    suit_style: SuitStyle
    outline: str  # "none", "red", "all" (outlined suits, index and pips)
    colors: tuple[RGB, RGB, RGB, RGB]  # ink of S H D C
    pip_frac: float  # pip height over card height (before the fit)
    pip_pad: float  # the pips' field from the top and bottom edges, over card height
    court_pad: float  # the court frame's from the top and bottom edges, over card height
    jumbo_small_pips: bool
    ace_frac: float  # the ace's pip height over card width
    ornate_ace: str  # "none", "halo", "dots", "rays"
    ornate_all_aces: bool
    court_frame: RGB
    court_frame_w: float
    court_palette: tuple[RGB, ...]
    court_suit: bool
    court_letter: bool
    court_divider: str  # "none", "line", "diagonal"
    noise: float
    texture: float
    art_seed: int
    # The index glyphs drawn bolder or lighter than the font (its strokes
    # this many times as wide) and narrower or wider (this many times): a
    # deck's own lettering is seldom a font on this machine, and the fonts
    # come in a few weights and widths only.
    stroke: float = 1.0
    glyph_width: float = 1.0


def _choice(rng: np.random.Generator, items: Sequence[str], p: Sequence[float]) -> str:
    return items[int(rng.choice(len(items), p=np.asarray(p) / np.sum(p)))]


def mix(a: RGB, b: RGB, t: float) -> RGB:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t)


def deck_design(seed: int) -> DeckDesign:
    """The design of deck `seed`: every random choice, drawn once."""
    rng = np.random.default_rng(seed)
    table = font_table()
    if not table:
        raise RuntimeError("no usable font found under /usr/share/fonts (see the docstring)")
    families = sorted({fam for _, fam in table})
    family = families[int(rng.integers(len(families)))]
    faces = [p for p, fam in table if fam == family]
    font = faces[int(rng.integers(len(faces)))]

    aspect = float(rng.uniform(1.35, 1.75))
    height = CARD_H
    width = round(height / aspect)
    radius = float(rng.uniform(0.0, 0.08)) * width
    paper = _choice(rng, ["white", "cream", "ivory", "grey"], [0.5, 0.2, 0.15, 0.15])
    base = {"white": (252.0, 252.0, 250.0), "cream": (250.0, 243.0, 222.0),
            "ivory": (251.0, 248.0, 236.0), "grey": (232.0, 233.0, 234.0)}[paper]
    paper_rgb: RGB = tuple(float(np.clip(c + rng.uniform(-4, 3), 0, 255)) for c in base)  # type: ignore[assignment]

    border = _choice(rng, ["none", "line", "double", "frame", "margin"],
                     [0.55, 0.15, 0.05, 0.1, 0.15])
    border_inset = float(rng.uniform(0.02, 0.05)) * width
    border_width = float(rng.uniform(0.6, 1.6))
    if border == "frame":
        border_width = float(rng.uniform(1.5, 3.5))
    if border == "margin":
        border_inset = 0.0
        border_width = float(rng.uniform(0.025, 0.06)) * width
    border_color = _choice(rng, ["black", "red", "blue", "green", "gold"], [3, 2, 2, 1, 1])
    bcol: RGB = {"black": (30.0, 30.0, 35.0), "red": (185.0, 30.0, 40.0),
                 "blue": (25.0, 55.0, 140.0), "green": (20.0, 105.0, 60.0),
                 "gold": (190.0, 150.0, 50.0)}[border_color]
    if border == "margin" and rng.random() < 0.3:
        bcol = mix(bcol, (255.0, 255.0, 255.0), 0.35)

    jumbo = rng.random() < 0.2
    rank_h = float(rng.uniform(0.125, 0.20) if jumbo else rng.uniform(0.08, 0.125)) * height
    beside = rng.random() < 0.2
    suit_ratio = float(rng.uniform(0.5, 0.85) if beside else rng.uniform(0.55, 0.95))
    inner = 0.0
    if border in ("line", "double", "frame"):
        inner = border_inset + border_width * (3 if border == "double" else 1)
    elif border == "margin":
        inner = border_width
    margin_x = max(float(rng.uniform(0.02, 0.10)) * width, inner + 0.02 * width)
    margin_y = max(float(rng.uniform(0.02, 0.10)) * width, inner + 0.02 * width)

    suit_source = "drawn"
    outline = "none"
    glyph_suits = suit_fonts()
    if glyph_suits and rng.random() < 0.35:
        path, has_outline = glyph_suits[int(rng.integers(len(glyph_suits)))]
        suit_source = str(path)
        if has_outline and rng.random() < 0.15:
            outline = _choice(rng, ["red", "all"], [0.6, 0.4])
    elif rng.random() < 0.04:
        outline = "red"
    suit_style = SuitStyle.draw(rng)

    red: RGB = mix((232.0, 62.0, 28.0), (172.0, 14.0, 44.0), float(rng.uniform(0, 1)))
    black: RGB = _choice_rgb(rng, [(22.0, 22.0, 24.0), (50.0, 50.0, 54.0), (24.0, 30.0, 66.0),
                                   (8.0, 8.0, 8.0)])
    colors = (black, red, red, black)
    if rng.random() < 0.1:
        diamond = _choice_rgb(rng, [(30.0, 80.0, 200.0), (235.0, 140.0, 20.0)])
        club = _choice_rgb(rng, [(20.0, 130.0, 60.0), (20.0, 110.0, 90.0)])
        if diamond[2] > 150 and rng.random() < 0.3:
            diamond, club = (235.0, 140.0, 20.0), (30.0, 80.0, 200.0)
        colors = (black, red, diamond, club)

    court_palette = (
        mix((200.0, 30.0, 35.0), (230.0, 70.0, 40.0), float(rng.uniform(0, 1))),
        mix((30.0, 60.0, 170.0), (40.0, 110.0, 200.0), float(rng.uniform(0, 1))),
        mix((240.0, 195.0, 40.0), (225.0, 165.0, 30.0), float(rng.uniform(0, 1))),
        (25.0, 25.0, 30.0),
    )
    return DeckDesign(
        seed=seed, width=width, height=height, radius=radius, paper=paper_rgb, border=border,
        border_inset=border_inset, border_width=border_width, border_color=bcol, font=font,
        ten=_choice(rng, ["font", "tight", "spaced"], [0.35, 0.35, 0.3]),
        ten_gap=float(rng.uniform(-0.04, 0.02)), ten_squeeze=float(rng.uniform(0.95, 1.4)),
        french=bool(rng.random() < 0.25), french_ace=_choice(rng, ["1", "A"], [0.6, 0.4]),
        rank_h=rank_h, suit_ratio=suit_ratio, beside=beside,
        index_gap=float(rng.uniform(0.04, 0.16)), left_align=bool(rng.random() < 0.15),
        margin_x=margin_x, margin_y=margin_y, four_corners=bool(rng.random() < 0.07),
        suit_source=suit_source, suit_style=suit_style, outline=outline,
        colors=colors,
        pip_frac=float(rng.uniform(0.09, 0.16)),
        pip_pad=float(rng.uniform(0.05, 0.11)), court_pad=float(rng.uniform(0.025, 0.07)),
        jumbo_small_pips=bool(jumbo and rng.random() < 0.6),
        ace_frac=float(rng.uniform(0.3, 0.65)),
        ornate_ace=_choice(rng, ["none", "halo", "dots", "rays"], [0.5, 0.2, 0.15, 0.15]),
        ornate_all_aces=bool(rng.random() < 0.15),
        court_frame=_choice_rgb(rng, [(25.0, 25.0, 30.0), (30.0, 55.0, 140.0),
                                      (180.0, 140.0, 40.0), (170.0, 30.0, 35.0)]),
        court_frame_w=float(rng.uniform(0.6, 2.2)),
        court_palette=court_palette,
        court_suit=bool(rng.random() < 0.5), court_letter=bool(rng.random() < 0.3),
        court_divider=_choice(rng, ["none", "line", "diagonal"], [0.4, 0.3, 0.3]),
        noise=float(rng.uniform(0.0, 3.0)) if rng.random() < 0.6 else 0.0,
        texture=float(rng.uniform(0.0, 5.0)) if rng.random() < 0.4 else 0.0,
        art_seed=int(rng.integers(2**62)),
        stroke=float(np.exp(rng.uniform(np.log(0.6), np.log(1.7)))) if rng.random() < 0.5
        else 1.0,
        glyph_width=float(np.exp(rng.uniform(np.log(0.72), np.log(1.3)))) if rng.random() < 0.5
        else 1.0,
    )


def _choice_rgb(rng: np.random.Generator, items: Sequence[RGB]) -> RGB:
    return items[int(rng.integers(len(items)))]
