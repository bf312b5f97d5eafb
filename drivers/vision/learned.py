"""The learned reader: a small convolutional network reads an index corner.

The network was trained at development time (calibration.corner_train,
PyTorch) on corner patches of many deck designs, real and procedural, under
the camera conditions of calibration.corner_samples, and judged only on
designs it did not learn from (bench.vision_oof). It ships as ONNX
(`data/corner_net.onnx`, package data) and runs in OpenCV's dnn module:
no deep-learning library on the table.

Input: the corner patch (drivers.vision.corner.corner_patch, CORNER_WIDTH
canonical pixels wide where the other readers read 48, 96 x 116 BGR with its
margin) shrunk to half (48 x 58), each patch scaled to zero mean and unit spread
(exposure and white balance differ from camera to camera; the shapes do
not). Output: one distribution over the thirteen ranks and "not an index",
one over the four suits. A card is read only when the rank is an index
rank, both the rank and the suit are sure past their thresholds (set out of
fold so that no left-out design was misread), and the frame's other reads
do not disagree (drivers.vision.frame, drivers.vision.shoe): never a guess.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from drivers.vision.corner import CORNER_H, MARGIN
from drivers.vision.glyphs import Image

RANKS = "A23456789TJQK"
SUITS = "SHDC"
NOT_AN_INDEX = len(RANKS)  # the rank head's last class
# A rank printed beside its suit ("10" and a heart side by side, as in
# Spatz's horizontal decks) reaches 76 canonical pixels from the card's edge:
# the 48 the other readers read cut the suit off, and the network guessed it.
CORNER_WIDTH = 80
PATCH_W, PATCH_H = CORNER_WIDTH + 2 * MARGIN, CORNER_H + 2 * MARGIN
NET_W, NET_H = PATCH_W // 2, PATCH_H // 2  # the network's input, half the corner patch
MODEL_PATH = Path(__file__).resolve().parent / "data" / "corner_net.onnx"
FORMAT = "croupier-corner-net"
VERSION = 2  # 2: the corner 80 pixels wide (1: 48)

F32 = npt.NDArray[np.float32]


def net_input(patches: list[Image] | Image) -> F32:
    """Corner patches (each PATCH_H x PATCH_W x 3 BGR, or grey) as the network's
    input: N x 3 x 58 x 32 float32, each patch at zero mean, unit spread."""
    if isinstance(patches, np.ndarray) and patches.ndim in (2, 3):
        patches = [patches]
    out = np.empty((len(patches), 3, NET_H, NET_W), np.float32)
    for i, patch in enumerate(patches):
        out[i] = normalise(shrink(patch))
    return out


def shrink(patch: Image) -> Image:
    """A corner patch at the network's size (BGR, uint8)."""
    if patch.ndim == 2:
        patch = cv2.cvtColor(patch, cv2.COLOR_GRAY2BGR)
    small: Image = cv2.resize(patch, (NET_W, NET_H), interpolation=cv2.INTER_AREA)
    return small


def normalise(small: Image) -> F32:
    """3 x 58 x 32 float32 at zero mean and unit spread (a spread under 4
    grey levels, a blank patch, is not blown up into noise)."""
    x: F32 = small.astype(np.float32).transpose(2, 0, 1)
    x -= x.mean()
    x /= max(float(x.std()), 4.0)
    return x


# Patches read in one pass at most: the network's inner layers for a pass of
# thousands (a photo's every proposal) took hundreds of megabytes and ran
# at a sixteenth of the speed.
BATCH = 64


@dataclass(frozen=True)
class LearnedThresholds:
    """A read needs its rank's and its suit's probability at least these."""

    rank: float = 0.9
    suit: float = 0.9


@dataclass(frozen=True)
class CornerRead:
    """One corner's read. `card` is None when not sure; `best` is the network's
    card even then ("??" when it saw no index: a refusal keeps what it was
    not sure of, for the frame's conflict checks)."""

    card: str | None
    confidence: float
    best: str
    p: tuple[float, float, float]  # the network's probability of the card, its rank, its suit
    is_index: bool  # the network saw an index (its rank head's best is not "no index")


class ModelError(ValueError):
    """A corner network file that cannot be used, with the reason."""


class LearnedReader:
    """Reads corner patches with the corner network."""

    name = "learned"
    corner_width = CORNER_WIDTH  # of the corner patch it reads (drivers.vision.reader)

    def __init__(self, onnx: bytes, thresholds: LearnedThresholds | None = None,
                 meta: dict[str, object] | None = None,
                 frame_thresholds: LearnedThresholds | None = None,
                 ink_thresholds: LearnedThresholds | None = None) -> None:
        self.onnx = onnx
        self.net = cv2.dnn.readNetFromONNX(np.frombuffer(onnx, np.uint8))
        self.net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
        outputs = tuple(self.net.getUnconnectedOutLayersNames())
        if outputs != ("p", "embedding"):
            raise ValueError(f"its outputs are {outputs}, not ('p', 'embedding')")
        # The features both heads read (the second output): 128 for one
        # network, side by side for an ensemble (calibration.corner_ensemble).
        self.net.setInput(np.zeros((1, 3, NET_H, NET_W), np.float32))
        self.embedding = int(np.asarray(self.net.forward("embedding")).reshape(1, -1).shape[1])
        # A house deck's calibration is made with one network: it names it.
        self.digest = hashlib.sha256(onnx).hexdigest()
        # The shoe reads corners placed from a card's edges; frame mode reads
        # every corner it proposes on a table (hidden ones, where edges
        # meet), far more of them no index: each has its own thresholds.
        self.thresholds = thresholds or LearnedThresholds()
        self.frame_thresholds = frame_thresholds or self.thresholds
        # Frame mode's corners placed from an index's own ink (index_poses):
        # every rank-above-suit pair of blobs, thousands in a photo.
        self.ink_thresholds = ink_thresholds or self.frame_thresholds
        self.meta = meta or {}

    def _forward(self, patches: list[Image] | Image, outputs: list[str]) -> list[F32]:
        """The network's named outputs for the patches, in passes of at most
        BATCH patches (each output's rows in the patches' order)."""
        parts: list[list[Image] | Image] = [patches]
        if isinstance(patches, list) and len(patches) > BATCH:
            parts = [patches[i : i + BATCH] for i in range(0, len(patches), BATCH)]
        got = []
        for part in parts:
            self.net.setInput(net_input(part))
            got.append(self.net.forward(outputs))
        width = {"p": NOT_AN_INDEX + 1 + 4, "embedding": self.embedding}
        return [np.concatenate([np.asarray(g[k], np.float32).reshape(-1, width[name])
                                for g in got]) for k, name in enumerate(outputs)]

    def probabilities(self, patches: list[Image] | Image) -> F32:
        """N x 18: the rank distribution (13 ranks, then not an index) and
        the suit distribution (S H D C)."""
        return self._forward(patches, ["p"])[0]

    def features(self, patches: list[Image] | Image) -> tuple[F32, F32]:
        """The probabilities (N x 18) and the features both heads read
        (N x self.embedding, each row at unit length): what a house deck's
        calibration learns its cards from (drivers.vision.adapted)."""
        p, emb = self._forward(patches, ["p", "embedding"])
        emb /= np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-6)
        return p, emb

    def decide(self, p: F32, t: LearnedThresholds | None = None) -> CornerRead:
        """One corner's read from its 18 probabilities (at the shoe's
        thresholds unless others are given)."""
        ranks, suits = p[: NOT_AN_INDEX + 1], p[NOT_AN_INDEX + 1 :]
        r, s = int(np.argmax(ranks)), int(np.argmax(suits))
        p_rank, p_suit = float(ranks[r]), float(suits[s])
        if r == NOT_AN_INDEX:
            return CornerRead(None, 0.0, "??", (p_rank, 0.0, p_suit), False)
        best = RANKS[r] + SUITS[s]
        confidence = p_rank * p_suit
        t = t or self.thresholds
        card = best if p_rank >= t.rank and p_suit >= t.suit else None
        return CornerRead(card, confidence, best, (confidence, p_rank, p_suit), True)

    def read_corner(self, patch: Image) -> CornerRead:
        """One corner patch at the shoe's thresholds."""
        return self.decide(self.probabilities(patch)[0])

    def read_corners(self, patches: list[Image], ink: bool = False) -> list[CornerRead]:
        """Several patches of a still image in one pass of the network, at
        frame mode's thresholds (`ink`: those of corners placed from ink)."""
        if not patches:
            return []
        t = self.ink_thresholds if ink else self.frame_thresholds
        return [self.decide(p, t) for p in self.probabilities(patches)]


def save(path: Path, onnx: bytes, thresholds: LearnedThresholds,
         meta: dict[str, object], frame_thresholds: LearnedThresholds | None = None,
         ink_thresholds: LearnedThresholds | None = None) -> None:
    """The model file: the ONNX graph, and beside it (`.json`) the format,
    version, thresholds (the shoe's, frame mode's, and those of frame
    mode's corners placed from ink) and how it was built."""
    path.write_bytes(onnx)
    frame = frame_thresholds or thresholds
    ink = ink_thresholds or frame
    info = {"format": FORMAT, "version": VERSION,
            "thresholds": {"rank": thresholds.rank, "suit": thresholds.suit},
            "frame_thresholds": {"rank": frame.rank, "suit": frame.suit},
            "ink_thresholds": {"rank": ink.rank, "suit": ink.suit}, **meta}
    path.with_suffix(".json").write_text(json.dumps(info, indent=1, sort_keys=True) + "\n")


def load(path: Path = MODEL_PATH) -> LearnedReader:
    """A corner network file written by `save`."""
    info_path = path.with_suffix(".json")
    try:
        onnx = path.read_bytes()
        info = json.loads(info_path.read_text())
    except (OSError, ValueError) as exc:
        raise ModelError(f"{path}: cannot read the corner network ({exc})") from exc
    if info.get("format") != FORMAT or info.get("version") != VERSION:
        raise ModelError(f"{info_path}: not a {FORMAT} version {VERSION} file "
                         "(train it again: python -m calibration.corner_train)")
    try:
        t = info["thresholds"]
        f = info.get("frame_thresholds", t)
        i = info.get("ink_thresholds", f)
        return LearnedReader(onnx, LearnedThresholds(float(t["rank"]), float(t["suit"])),
                             {k: v for k, v in info.items()
                              if k not in ("thresholds", "frame_thresholds", "ink_thresholds")},
                             LearnedThresholds(float(f["rank"]), float(f["suit"])),
                             LearnedThresholds(float(i["rank"]), float(i["suit"])))
    except (KeyError, TypeError, ValueError, cv2.error) as exc:
        raise ModelError(f"{path}: not a usable corner network ({exc})") from exc


@functools.cache
def learned_model() -> LearnedReader:
    """The shipped corner network (loaded once per process)."""
    return load()
