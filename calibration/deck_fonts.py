"""The index fonts of the procedural decks: which fonts on this machine can print an index.

Every TTF/OTF font under /usr/share/fonts (and fc-list's) with the glyphs
0-9 A J Q K R D V, upright, not hairline, with lining figures, one font of
each design, from the Debian packages of FONT_PACKAGES. Glyphs are drawn
with Pillow as ink masks.

A procedural deck's font is picked from this machine's list, so the decks,
and the views a network learns from, are only those documented where those
packages are installed: `require_fonts` refuses to train without them (a
machine with only DejaVu and Liberation has 19 usable fonts, not some 145),
and `fonts_digest` names the views drawn with a font list.
"""

from __future__ import annotations

import functools
import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

F32 = npt.NDArray[np.float32]
U8 = npt.NDArray[np.uint8]

FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
NEEDED_GLYPHS = "0123456789AJQKRDV"
BAD_STYLE = re.compile(
    r"(?i)(ital|oblique|slanted|hairline|thin|extralight|ultralight|outline|inverted|keyboard"
    r"|standard ?symbols)")
RENDER = 192  # glyphs are rendered this large, then shrunk

# Debian 12's font packages the procedural decks are drawn from (145 usable
# index fonts with them all installed).
FONT_PACKAGES = (
    "fonts-dejavu", "fonts-liberation", "fonts-liberation2", "fonts-freefont-ttf",
    "fonts-noto-core", "fonts-urw-base35", "fonts-crosextra-carlito", "fonts-crosextra-caladea",
    "fonts-linuxlibertine", "fonts-ebgaramond", "fonts-roboto", "fonts-open-sans", "fonts-lato",
    "fonts-cantarell", "fonts-firacode", "fonts-inconsolata", "fonts-texgyre", "fonts-cmu",
    "fonts-oldstandard", "fonts-comic-neue", "fonts-bebas-neue")
# Fewer usable fonts than this: the packages above are not all installed.
MIN_FONTS = 120


@functools.cache
def pil_font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


def text_mask(font: ImageFont.FreeTypeFont, text: str) -> U8:
    """The text's ink (0..255), cut to its box."""
    left, top, right, bottom = font.getbbox(text)
    w, h = int(right - left) + 8, int(bottom - top) + 8
    if w <= 8 or h <= 8:
        return np.zeros((0, 0), np.uint8)
    img = Image.new("L", (w, h), 0)
    ImageDraw.Draw(img).text((4 - left, 4 - top), text, font=font, fill=255)
    a = np.asarray(img, np.uint8)
    ys, xs = np.nonzero(a > 0)
    if len(xs) == 0:
        return np.zeros((0, 0), np.uint8)
    return np.ascontiguousarray(a[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def ink_of(mask: U8) -> F32:
    """A 0..255 mask as ink, 0..1."""
    out: F32 = mask.astype(np.float32) * np.float32(1 / 255)
    return out


def font_files() -> list[Path]:
    files: set[Path] = set()
    fc = shutil.which("fc-list")
    if fc is not None:
        try:
            out = subprocess.run([fc, "--format", "%{file}\n"], capture_output=True,
                                 text=True, timeout=60, check=False).stdout
            files.update(Path(line.strip()) for line in out.splitlines() if line.strip())
        except (OSError, subprocess.SubprocessError):
            pass
    for root in FONT_DIRS:
        if root.is_dir():
            files.update(p for p in root.rglob("*") if p.is_file())
    return sorted(p for p in files if p.suffix.lower() in (".ttf", ".otf") and p.is_file())


def _usable(path: Path) -> tuple[str, bytes] | None:
    """(family, a fingerprint of its glyphs) when the font can print every
    index: each needed glyph drawn, none a missing-glyph box, all
    different, lining figures (old-style 3 4 5 7 9 hang below the line)."""
    if BAD_STYLE.search(path.stem):
        return None
    try:
        font = pil_font(str(path), 48)
        family, style = font.getname()
    except (OSError, ValueError):
        return None
    if BAD_STYLE.search(f"{family} {style}"):
        return None
    notdef = text_mask(font, "\ue000").tobytes()
    masks = [text_mask(font, c) for c in NEEDED_GLYPHS]
    keys = {m.tobytes() for m in masks}
    if any(m.size == 0 for m in masks) or len(keys) != len(masks) or notdef in keys:
        return None
    heights = [m.shape[0] for m in masks[:10]]
    if max(heights) > 1.12 * min(heights) or masks[0].shape[0] < 20:
        return None
    return str(family), b"".join(m.tobytes() for m in masks[10:14])


@functools.cache
def font_table() -> tuple[tuple[Path, str], ...]:
    """(path, family) of every usable font, sorted by path; faces that draw
    the same letters (a script font's copy of its Latin) counted once."""
    out: list[tuple[Path, str]] = []
    seen: set[bytes] = set()
    for path in font_files():
        got = _usable(path)
        if got is None or got[1] in seen:
            continue
        seen.add(got[1])
        out.append((path, got[0]))
    return tuple(out)


def font_paths() -> list[Path]:
    """The usable index fonts on this machine (see `_usable`), sorted."""
    return [p for p, _ in font_table()]


def fonts_digest(extra: tuple[Path, ...] = ()) -> str:
    """8 hex digits naming this machine's usable index fonts (and `extra`
    font files, e.g. the suit fonts): views drawn with another font list
    are other views."""
    h = hashlib.sha256()
    for path in [p for p, _ in font_table()] + sorted(extra):
        h.update(f"{path}\n".encode())
    return h.hexdigest()[:8]


class FontsMissing(RuntimeError):
    """The machine lacks the fonts the procedural decks are documented with."""


def require_fonts(minimum: int = MIN_FONTS) -> int:
    """The number of usable index fonts; FontsMissing, naming the packages
    to install, when there are fewer than `minimum`."""
    have = len(font_table())
    if have < minimum:
        raise FontsMissing(
            f"only {have} usable index fonts on this machine (the procedural decks are drawn "
            f"from {minimum} or more): apt-get install {' '.join(FONT_PACKAGES)}")
    return have
