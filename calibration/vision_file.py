"""The vision calibration file (`.npz`), format version 1.

One NumPy archive, no pickled objects (loaded with allow_pickle=False):

| key            | type                  | content                                        |
|----------------|-----------------------|------------------------------------------------|
| `format`       | str                   | always `croupier-vision-calibration`           |
| `version`      | int                   | format version; this code reads version 1 only |
| `meta`         | str (JSON)            | see below                                      |
| `rank_vectors` | float32 (n, d_rank)   | rank glyph features (drivers.camera.features)  |
| `rank_labels`  | str (n,)              | rank code of each row: A 2..9 T J Q K          |
| `suit_vectors` | float32 (m, d_suit)   | suit glyph features                            |
| `suit_labels`  | str (m,)              | suit code of each row: S H D C                 |

`meta` holds: `kind` ("deck" or "camera"), `deck` (a name), `created` (UTC,
ISO 8601), `feature_dims` ([d_rank, d_suit], checked against the running
code), `thresholds` (the acceptance rule), and for a camera calibration
`geometry` (`frame_size`, `band`, `rank_height`) plus `checks` (the focus,
exposure and region figures measured while calibrating).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from drivers.camera.features import RANK_SIZE, SUIT_SIZE, rank_features, suit_features
from drivers.camera.model import RANKS, SUITS, GlyphModel, TemplateSet, Thresholds
from drivers.camera.shoe import ShoeGeometry

FORMAT = "croupier-vision-calibration"
VERSION = 1


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

    def model(self) -> GlyphModel:
        return GlyphModel(
            TemplateSet(self.rank_vectors, self.rank_labels),
            TemplateSet(self.suit_vectors, self.suit_labels),
            self.thresholds,
            name=self.deck,
        )


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
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        np.savez_compressed(
            fh,
            format=np.array(FORMAT),
            version=np.array(VERSION),
            meta=np.array(json.dumps(meta)),
            rank_vectors=cal.rank_vectors.astype(np.float32),
            rank_labels=np.array(cal.rank_labels, dtype="<U1"),
            suit_vectors=cal.suit_vectors.astype(np.float32),
            suit_labels=np.array(cal.suit_labels, dtype="<U1"),
        )


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
    version = int(data.get("version", -1))
    if version != VERSION:
        raise CalibrationError(
            f"{path}: calibration format version {version} is not supported "
            f"(this croupier reads version {VERSION}); calibrate again"
        )
    try:
        meta = json.loads(str(data["meta"]))
        cal = _from_arrays(meta, data)
    except (KeyError, TypeError, ValueError, json.JSONDecodeError) as exc:
        raise CalibrationError(f"{path}: damaged calibration file ({exc})") from None
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
    geometry = (
        ShoeGeometry(
            frame_size=_pair(meta["geometry"]["frame_size"]),
            band=_pair(meta["geometry"]["band"]),
            rank_height=int(meta["geometry"]["rank_height"]),
        )
        if meta.get("geometry")
        else None
    )
    if geometry is not None:
        geometry.check()
    if meta["kind"] not in ("deck", "camera"):
        raise ValueError(f"unknown kind {meta['kind']!r}")
    return VisionCalibration(
        kind=str(meta["kind"]),
        deck=str(meta["deck"]),
        rank_vectors=rv,
        rank_labels=rl,
        suit_vectors=sv,
        suit_labels=sl,
        thresholds=Thresholds(**meta["thresholds"]),
        geometry=geometry,
        checks=dict(meta.get("checks") or {}),
        created=str(meta["created"]),
    )


def _pair(value: Any) -> tuple[int, int]:
    a, b = value
    return int(a), int(b)
