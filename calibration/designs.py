"""The deck designs the learned reader learns from and is judged on.

A design is a whole deck: a folder of 52 faces (real published artwork,
data/decks and tests/data/decks, each with its source and licence in the
folder's README), the project's own drawn deck (also with French indices),
or a procedural deck (calibration.procedural_decks: a font, an index
layout, pips and courts drawn from a seed).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from drivers.vision.glyphs import Image

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = (ROOT / "data" / "decks", ROOT / "tests" / "data" / "decks")
# Procedural designs learnt from (seeds 0..719). Out of fold, one network
# learnt from 720 reads the left-out designs far better than one learnt
# from 240 by the same recipe, where more epochs or a wider network on the
# 240 did not (docs/vision.md: "More designs, not more epochs").
PROCEDURAL = 720
# A procedural design gives this share of a design's views: more designs of
# fewer views each, so that the network sees more fonts and index layouts.
PROCEDURAL_SHARE = 0.4
# Procedural seeds kept for judging only, never learnt from (bench
# vision_unseen deals them through the shoe): past every seed learnt from.
PROCEDURAL_JUDGED = range(1000, 1500)
# Folders of one artwork in several options (colours, index size or place):
# an out-of-fold fold leaves the whole family out, not one option of it.
FAMILY_PREFIXES = ("saulspatz-", "revk-", "house")
# Decks whose top left corner holds no whole index, learnt from by no reader
# of corners: revk-split-index prints the rank in one top corner and the
# suit in the other.
NOT_LEARNT = frozenset({"revk-split-index"})


@dataclass(frozen=True)
class Design:
    name: str
    kind: str  # "folder", "house", "house-french" or "procedural"
    source: str = ""  # the folder, or the procedural seed
    weight: int = 1  # views drawn, in units of the per-design count

    @property
    def family(self) -> str:
        """The artwork this design is an option of (see FAMILY_PREFIXES)."""
        for prefix in FAMILY_PREFIXES:
            if self.name.startswith(prefix):
                return prefix.rstrip("-")
        return self.name

    @property
    def real(self) -> bool:
        """Published artwork (or the project's own deck), not procedural."""
        return self.kind != "procedural"


def folder_designs() -> list[Design]:
    out = []
    for root in FOLDERS:
        if not root.is_dir():
            continue
        for folder in sorted(p for p in root.iterdir()
                             if (p / "AS.png").is_file() and p.name not in NOT_LEARNT):
            out.append(Design(folder.name, "folder", str(folder), weight=3))
    return out


def training_designs() -> list[Design]:
    """Every design learnt from (a fold of bench.vision_oof leaves one out)."""
    return [*folder_designs(), Design("house", "house", weight=3),
            Design("house-french", "house-french", weight=2),
            *(Design(f"proc-{i}", "procedural", str(i)) for i in range(PROCEDURAL))]


@functools.lru_cache(maxsize=8)
def design_deck(design: Design) -> dict[str, Image]:
    """The 52 BGRA faces of a design."""
    if design.kind == "folder":
        from sim.camera.decks import load_deck

        return load_deck(Path(design.source))
    if design.kind in ("house", "house-french"):
        from sim.camera.decks import house_deck

        return dict(house_deck(french=design.kind == "house-french"))
    if design.kind == "procedural":
        from calibration.procedural_decks import procedural_deck

        return procedural_deck(int(design.source))
    raise ValueError(f"unknown design kind {design.kind!r}")
