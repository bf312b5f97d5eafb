"""Training the calibrated reader from a deck's 52 canonical cards.

Each card is shown to the real corner finder (drivers.camera.corner) many
times over, drawn on a patch of dark ramp by the simulated camera
(sim.camera.optics: a slight turn and perspective, exposure steps, uneven
light, glare, defocus, motion blur, noise, JPEG; the test envelope of the
shoe camera; in some views another card lies behind, as when two cards are
pulled out together), and the reader's discriminants are fitted on what the
reader then sees. Views are drawn from a fixed seed, so a calibration is
reproducible. The benchmark draws its frames from other seeds.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from drivers.camera.corner import CORNER_H, CORNER_W, MARGIN, corner_patch, shoe_corners
from drivers.camera.frame import RANK_HEIGHT
from drivers.camera.glyphs import Box, Image, find_indices
from drivers.camera.lda import Discriminant
from drivers.camera.match import (
    WHOLE_BOX,
    CalibratedReader,
    Templates,
    align,
    coarse,
    ink_maps,
    region,
    unit_rows,
)
from sim.camera.optics import OpticsRange, card_corners, expose, place

RAMP = (48, 46, 44)
VIEWS = 20  # simulated camera views of each corner of each card
BEHIND = 0.25  # share of views with another card behind (two cards stuck together)
_CANVAS = (110, 200)  # width, height: a band of the shoe camera at canonical scale
_TOP_LEFT = (24.0, 30.0)  # where the card's corner lies on it


class TrainingError(ValueError):
    """A deck the reader cannot be trained on, with the reason."""


def corner_view(face: Image, rng: np.random.Generator | None) -> Image | None:
    """The corner patch the reader gets from one camera view of a face (BGRA
    or BGR, canonical size); rng None: a clean, upright view."""
    w, h = _CANVAS
    canvas = np.empty((h, w, 3), np.uint8)
    canvas[:] = RAMP
    if face.shape[2] == 3:
        face = cv2.cvtColor(face, cv2.COLOR_BGR2BGRA)
    fh, fw = face.shape[:2]
    x0, y0 = _TOP_LEFT
    angle, jitter = 0.0, None
    if rng is not None:
        x0 += float(rng.uniform(-3, 3))
        y0 += float(rng.uniform(-3, 3))
        angle = float(rng.uniform(-2.0, 2.0))
        jitter = rng.uniform(-1, 1, (4, 2)).astype(np.float32) * 0.02 * fw
        if rng.random() < BEHIND:
            # Two cards pulled out together: the one behind shows above
            # this card's top edge, paper against paper instead of the ramp.
            back = float(rng.uniform(0.3, 0.6)) * fh
            place(canvas, face, card_corners(x0 + float(rng.uniform(-4, 4)) + fw / 2,
                                             y0 - back + fh / 2, float(fw), float(fh),
                                             float(rng.uniform(-2.0, 2.0))))
    place(canvas, face, card_corners(x0 + fw / 2, y0 + fh / 2, float(fw), float(fh), angle,
                                     jitter))
    if rng is not None:
        canvas = expose(canvas, OpticsRange().draw(rng, _CANVAS), rng)
    ramp = float(np.median(canvas[:12, :12, 1]))
    poses = shoe_corners(canvas, 1.0, ramp)
    if not poses:
        return None
    return corner_patch(canvas, poses[0])


def _index_boxes(patches: dict[str, list[Image]]) -> tuple[Box, Box]:
    """Where the deck prints its rank and suit in the corner (the union over
    its cards, a little wider), from clean views."""
    rank: Box | None = None
    suit: Box | None = None
    for views in patches.values():
        for p in views:
            inner = np.ascontiguousarray(p[MARGIN : MARGIN + CORNER_H, MARGIN : MARGIN + CORNER_W])
            found = find_indices(inner, RANK_HEIGHT, limit=1)
            if not found:
                continue
            g = found[0]
            rank = g.rank_box if rank is None else rank.union(g.rank_box)
            suit = g.suit_box if suit is None else suit.union(g.suit_box)
    if rank is None or suit is None:
        raise TrainingError("no index (rank above suit) found in the deck's corners")
    return _clip(rank), _clip(suit)


def _clip(b: Box, pad: int = 2) -> Box:
    x0, y0 = max(0, b.x - pad), max(0, b.y - pad)
    x1, y1 = min(CORNER_W, b.x2 + pad), min(CORNER_H, b.y2 + pad)
    return Box(x0, y0, x1 - x0, y1 - y0)


def train_reader(cards: dict[str, Image], name: str, seed: int = 0, views: int = VIEWS,
                 progress: Callable[[str], None] | None = None) -> CalibratedReader:
    """A calibrated reader for 52 canonical cards (BGR, CARD_W x CARD_H)."""
    clean: dict[str, list[Image]] = {}
    for code, card in sorted(cards.items()):
        faces = (card, np.ascontiguousarray(card[::-1, ::-1]))
        got = [corner_view(f, None) for f in faces]
        if any(p is None for p in got):
            raise TrainingError(f"{code}: the card's edges are not found on a dark ramp")
        clean[code] = [p for p in got if p is not None]
    rank_box, suit_box = _index_boxes(clean)
    templates = unit_rows(np.stack([
        coarse(ink_maps(p)[:, MARGIN : MARGIN + CORNER_H, MARGIN : MARGIN + CORNER_W]).reshape(-1)
        for views_ in clean.values() for p in views_]))
    aligner = Templates.of(templates)
    rng = np.random.default_rng(seed)
    whole_x, rank_x, suit_x, labels = [], [], [], []
    for code, card in sorted(cards.items()):
        for face in (card, np.ascontiguousarray(card[::-1, ::-1])):
            for _ in range(views):
                patch = corner_view(face, rng)
                if patch is None:
                    continue
                maps = ink_maps(patch)
                shift, _ = align(maps, aligner)
                whole_x.append(region(maps, WHOLE_BOX, shift))
                rank_x.append(region(maps, rank_box, shift))
                suit_x.append(region(maps, suit_box, shift))
                labels.append(code)
        if progress:
            progress(code)
    if len(set(labels)) != len(cards):
        raise TrainingError("some cards were never found in their simulated views")
    return CalibratedReader(
        whole_templates=templates,
        whole=Discriminant.train(np.stack(whole_x), labels),
        rank=Discriminant.train(np.stack(rank_x), [c[0] for c in labels]),
        suit=Discriminant.train(np.stack(suit_x), [c[1] for c in labels]),
        rank_box=rank_box, suit_box=suit_box,
        template_labels=[code for code, views_ in clean.items() for _ in views_], name=name,
    )
