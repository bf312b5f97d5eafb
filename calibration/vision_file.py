"""The vision calibration file (`.npz`), format version 3.

One NumPy archive, no pickled objects (loaded with allow_pickle=False):

| key            | type                  | content                                        |
|----------------|-----------------------|------------------------------------------------|
| `format`       | str                   | always `croupier-vision-calibration`           |
| `version`      | int                   | format version; this code reads version 3 only |
| `meta`         | str (JSON)            | see below                                      |
| `rank_vectors` | float32 (n, d_rank)   | rank glyph features (drivers.camera.features)  |
| `rank_labels`  | str (n,)              | rank code of each row: A 2..9 T J Q K          |
| `suit_vectors` | float32 (m, d_suit)   | suit glyph features                            |
| `suit_labels`  | str (m,)              | suit code of each row: S H D C                 |
| `corner_templates` | float16 (104, d)  | unit rows of the coarse corner ink maps (align) |
| `corner_labels` | str (104,)           | card code of each corner template              |
| `reader_<part>_weights` | float32 (d, k) | discriminant of part whole, rank or suit       |
| `reader_<part>_bias`, `_mean`, `_labels` | float32 (k), (d); str (k) | the rest of it |

The glyph templates (rank_/suit_ rows) are what the calibration checks read
the deck with; the corner templates and discriminants are the reader.

Version 3 has the layout of version 2; its reader was trained on ink maps
whose paper level keeps a dark strip at a patch's edge dark
(drivers.camera.match.ink_maps). A version 2 reader, trained on maps where
that strip was read as ink, is refused: calibrate again.

`meta` holds: `kind` ("deck" or "camera"), `deck` (a name), `created` (UTC,
ISO 8601), `feature_dims` ([d_rank, d_suit], checked against the running
code), `thresholds` (the acceptance rule), and for a camera calibration
`geometry` (`frame_size`, `band`, `rank_height`, `card_width`) plus `checks`
(the focus, exposure and region figures measured while calibrating), and
`reader` (`rank_box`, `suit_box` as [x, y, w, h] in canonical corner pixels,
and the acceptance thresholds).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from controller.inputs import load_json
from drivers.camera import kernels
from drivers.camera.features import RANK_SIZE, SUIT_SIZE, rank_features, suit_features
from drivers.camera.glyphs import Box
from drivers.camera.lda import Discriminant
from drivers.camera.match import CalibratedReader, MatchThresholds
from drivers.camera.model import RANKS, SUITS, GlyphModel, TemplateSet, Thresholds
from drivers.camera.shoe import ShoeGeometry

FORMAT = "croupier-vision-calibration"
VERSION = 3
PARTS = ("whole", "rank", "suit")


class CalibrationError(ValueError):
    """A calibration that cannot be made or used, with the reason."""


@dataclass
class VisionCalibration:
    kind: str
    deck: str
    rank_vectors: npt.NDArray[np.float32]
    rank_labels: list[str]
    suit_vectors: npt.NDArray[np.float32]
    suit_labels: list[str]
    thresholds: Thresholds = field(default_factory=Thresholds)
    geometry: ShoeGeometry | None = None
    checks: dict[str, Any] = field(default_factory=dict)
    created: str = ""
    reader: CalibratedReader | None = None

    def glyph_model(self) -> GlyphModel:
        """The deck's glyph templates (what the calibration checks use)."""
        return GlyphModel(TemplateSet(self.rank_vectors, self.rank_labels),
                          TemplateSet(self.suit_vectors, self.suit_labels),
                          self.thresholds, name=self.deck)

    def model(self) -> CalibratedReader:
        """The reader for this deck."""
        if self.reader is None:
            raise CalibrationError("this calibration holds no reader")
        kernels.warm()  # (the reader's compiled loops ready before its first frame)
        return self.reader


def feature_dims() -> list[int]:
    blank_r = np.zeros((RANK_SIZE[1], RANK_SIZE[0]), np.float32)
    blank_s = np.zeros((SUIT_SIZE[1], SUIT_SIZE[0]), np.float32)
    return [len(rank_features(blank_r)), len(suit_features(blank_s))]


def save(cal: VisionCalibration, path: Path) -> None:
    meta = {
        "kind": cal.kind,
        "deck": cal.deck,
        "created": cal.created or dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "feature_dims": feature_dims(),
        "thresholds": asdict(cal.thresholds),
        "geometry": asdict(cal.geometry) if cal.geometry else None,
        "checks": cal.checks,
        "reader": _reader_meta(cal.model()),
    }
    reader = cal.model()
    arrays: dict[str, Any] = {"corner_templates": reader.whole_templates.astype(np.float16),
                              "corner_labels": np.array(reader.template_labels)}
    for part in PARTS:
        d: Discriminant = getattr(reader, part)
        arrays[f"reader_{part}_weights"] = d.weights
        arrays[f"reader_{part}_bias"] = d.bias
        arrays[f"reader_{part}_mean"] = d.mean
        arrays[f"reader_{part}_labels"] = np.array(d.labels)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        np.savez_compressed(
            fh, format=np.array(FORMAT), version=np.array(VERSION), meta=np.array(json.dumps(meta)),
            rank_vectors=cal.rank_vectors.astype(np.float32),
            rank_labels=np.array(cal.rank_labels, dtype="<U1"),
            suit_vectors=cal.suit_vectors.astype(np.float32),
            suit_labels=np.array(cal.suit_labels, dtype="<U1"), **arrays,
        )


def _reader_meta(reader: CalibratedReader) -> dict[str, Any]:
    def box(b: Box) -> list[int]:
        return [b.x, b.y, b.w, b.h]

    return {"rank_box": box(reader.rank_box), "suit_box": box(reader.suit_box),
            "thresholds": asdict(reader.thresholds)}


def _reader_from(meta: dict[str, Any], data: dict[str, Any], name: str) -> CalibratedReader:
    parts = {}
    for part in PARTS:
        labels = [str(x) for x in data[f"reader_{part}_labels"]]
        parts[part] = Discriminant(labels, np.asarray(data[f"reader_{part}_weights"], np.float32),
                                   np.asarray(data[f"reader_{part}_bias"], np.float32),
                                   np.asarray(data[f"reader_{part}_mean"], np.float32))
        if not all(np.isfinite(getattr(parts[part], k)).all()
                   for k in ("weights", "bias", "mean")):
            raise ValueError(f"the {part} discriminant contains non-finite numbers")
    if len(parts["whole"].labels) != 52 or parts["rank"].labels != sorted(RANKS) \
            or parts["suit"].labels != sorted(SUITS):
        raise ValueError("the reader must know every card, rank and suit")
    templates = np.asarray(data["corner_templates"], np.float32)
    rb, sb = (Box(*(int(v) for v in meta[k])) for k in ("rank_box", "suit_box"))
    labels = [str(x) for x in data["corner_labels"]]
    if len(labels) != templates.shape[0] or set(labels) != set(parts["whole"].labels):
        raise ValueError("corner templates and their labels do not match")
    return CalibratedReader(templates, parts["whole"], parts["rank"], parts["suit"], rb, sb,
                            labels, MatchThresholds(**meta["thresholds"]), name=name)


def load(path: Path) -> VisionCalibration:
    """Read and check a calibration file; CalibrationError says what is wrong."""
    try:
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise CalibrationError(f"{path}: no such file") from None
    except (OSError, ValueError) as exc:
        raise CalibrationError(f"{path}: not a calibration file ({exc})") from None
    if str(data.get("format", "")) != FORMAT:
        raise CalibrationError(f"{path}: not a croupier vision calibration file")
    try:
        version = int(data.get("version", -1))
    except (TypeError, ValueError, OverflowError):
        version = -1
    if version != VERSION:
        raise CalibrationError(
            f"{path}: calibration format version {version} is not supported "
            f"(this croupier reads version {VERSION}); calibrate again")
    try:
        # Bounded like every JSON the table reads (controller.inputs); the arrays'
        # checks below may meet anything a damaged or hostile file holds.
        meta = load_json(str(data["meta"]), "meta", max_bytes=1 << 20)
        if not isinstance(meta, dict):
            raise TypeError("meta is not an object")
        cal = _from_arrays(meta, data)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError) as exc:
        raise CalibrationError(f"{path}: damaged calibration file ({str(exc)[:200]})") from None
    return cal


def _from_arrays(meta: dict[str, Any], data: dict[str, Any]) -> VisionCalibration:
    dims = feature_dims()
    if list(meta["feature_dims"]) != dims:
        raise ValueError(f"features of size {meta['feature_dims']}, this code uses {dims}")
    rv = np.asarray(data["rank_vectors"], np.float32)
    sv = np.asarray(data["suit_vectors"], np.float32)
    rl = [str(x) for x in data["rank_labels"]]
    sl = [str(x) for x in data["suit_labels"]]
    if rv.shape != (len(rl), dims[0]) or sv.shape != (len(sl), dims[1]):
        raise ValueError("template arrays and labels do not match")
    if set(rl) != set(RANKS) or set(sl) != set(SUITS):
        raise ValueError("templates must cover every rank and suit")
    if not (np.isfinite(rv).all() and np.isfinite(sv).all()):
        raise ValueError("templates contain non-finite numbers")
    geometry = ShoeGeometry(
        frame_size=_pair(meta["geometry"]["frame_size"]),
        band=_pair(meta["geometry"]["band"]),
        rank_height=int(meta["geometry"]["rank_height"]),
        card_width=float(meta["geometry"]["card_width"]),
    ) if meta.get("geometry") else None
    if geometry is not None:
        geometry.check()
    if meta["kind"] not in ("deck", "camera"):
        raise ValueError(f"unknown kind {meta['kind']!r}")
    return VisionCalibration(
        kind=str(meta["kind"]), deck=str(meta["deck"]), rank_vectors=rv, rank_labels=rl,
        suit_vectors=sv, suit_labels=sl, thresholds=Thresholds(**meta["thresholds"]),
        geometry=geometry, checks=dict(meta.get("checks") or {}), created=str(meta["created"]),
        reader=_reader_from(meta["reader"], data, str(meta["deck"])),
    )


def _pair(value: Any) -> tuple[int, int]:
    a, b = value
    return int(a), int(b)
