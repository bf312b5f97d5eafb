"""The vision calibration file (`.npz`), format version 4.

One NumPy archive, no pickled objects (loaded with allow_pickle=False):

| key            | type               | content                                          |
|----------------|--------------------|--------------------------------------------------|
| `format`       | str                | always `croupier-vision-calibration`             |
| `version`      | int                | format version; this code reads version 4 only   |
| `meta`         | str (JSON)         | see below                                        |
| `head_weights` | float32 (d, k)     | the house deck's discriminant over the corner    |
| `head_bias`    | float32 (k)        | network's features (drivers.vision.adapted): d   |
| `head_mean`    | float32 (d)        | features, k classes (the 52 cards and `??`, no   |
| `head_labels`  | str (k)            | index)                                           |

Version 4 adapts the learned reader (drivers.vision.learned) to the house
deck. Versions 1 to 3 held glyph templates and discriminants of the
calibrated reader of hand-made rules, which the learned reader replaced:
they are refused (calibrate again), and so is a version 4 file made with
another corner network than the one installed (its digest is in `meta`).

`meta` holds: `kind` ("deck" or "camera"), `deck` (a name), `created` (UTC,
ISO 8601), `network` (the SHA-256 of the corner network the head was fitted
with), `llr` and `frame_llr` (the head's acceptance ratios: shoe, frame
mode), and for a camera calibration `geometry` (`frame_size`, `band`,
`rank_height`, `card_width`) plus `checks` (the focus, exposure and region
figures measured while calibrating).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import struct
import tokenize
import zipfile
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from drivers.vision.adapted import NO_INDEX, AdaptedReader, DeckHead
from drivers.vision.lda import Discriminant
from drivers.vision.learned import RANKS, SUITS, learned_model
from drivers.vision.shoe import ShoeGeometry

FORMAT = "croupier-vision-calibration"
VERSION = 4
LABELS = sorted([r + s for s in SUITS for r in RANKS] + [NO_INDEX])
MAX_META = 1 << 20  # characters of the meta's JSON
KEYS = ("format", "version", "meta", "head_weights", "head_bias", "head_mean", "head_labels")


class CalibrationError(ValueError):
    """A calibration that cannot be made or used, with the reason."""


@dataclass
class VisionCalibration:
    kind: str
    deck: str
    head: DeckHead
    geometry: ShoeGeometry | None = None
    checks: dict[str, Any] = field(default_factory=dict)
    created: str = ""

    def model(self) -> AdaptedReader:
        """The reader for this deck: the installed corner network with the
        deck's head."""
        try:
            return AdaptedReader(learned_model(), self.head)
        except ValueError as exc:
            raise CalibrationError(str(exc)) from None


def save(cal: VisionCalibration, path: Path) -> None:
    meta = {
        "kind": cal.kind,
        "deck": cal.deck,
        "created": cal.created or dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "network": cal.head.network,
        "llr": cal.head.llr,
        "frame_llr": cal.head.frame_llr,
        "geometry": asdict(cal.geometry) if cal.geometry else None,
        "checks": cal.checks,
    }
    d = cal.head.discriminant
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        np.savez_compressed(
            fh, format=np.array(FORMAT), version=np.array(VERSION), meta=np.array(json.dumps(meta)),
            head_weights=d.weights, head_bias=d.bias, head_mean=d.mean,
            head_labels=np.array(d.labels),
        )


def load(path: Path) -> VisionCalibration:
    """Read and check a calibration file; CalibrationError says what is wrong."""
    try:
        data = _arrays(path)
    except FileNotFoundError:
        raise CalibrationError(f"{path}: no such file") from None
    except UNREADABLE as exc:
        raise CalibrationError(f"{path}: not a calibration file ({str(exc)[:200]})") from None
    if str(data.get("format", "")) != FORMAT:
        raise CalibrationError(f"{path}: not a croupier vision calibration file")
    version = _version(data.get("version"))
    if version != VERSION:
        raise CalibrationError(
            f"{path}: calibration format version {version} is not supported "
            f"(this croupier reads version {VERSION}); calibrate again")
    try:
        raw = str(data["meta"])
        if len(raw) > MAX_META:
            raise ValueError(f"meta of {len(raw)} characters (at most {MAX_META})")
        meta = json.loads(raw, parse_constant=_no_constant)
        if not isinstance(meta, dict):
            raise TypeError("meta is not an object")
        cal = _from_arrays(meta, data)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError,
            RecursionError) as exc:
        # (a damaged or hostile file may hold anything where the arrays and
        # the meta should be)
        raise CalibrationError(f"{path}: damaged calibration file ({str(exc)[:200]})") from None
    if cal.head.network != learned_model().digest:
        raise CalibrationError(f"{path}: made with another corner network than the one "
                               "installed; calibrate again")
    return cal


# What a damaged or hostile archive can raise from zipfile, zlib and numpy's reader:
# a bad CRC or header, a cut stream, an unknown compression method (NotImplementedError)
# or an encrypted member (RuntimeError), an .npy header numpy's tokenizer cannot read.
UNREADABLE = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error, RuntimeError,
              struct.error, tokenize.TokenError, SyntaxError)  # fmt: skip
MAX_MEMBERS = 16  # arrays in a file: it has 7
MAX_UNPACKED = 8 << 20  # bytes of all its arrays together: a calibration holds about 30 KB


def _arrays(path: Path) -> dict[str, Any]:
    """Every array of the archive (np.load's .npz, read member by member). Each one's
    header is checked before its data is read: numpy allocates what a header claims
    first, so a header claiming terabytes would otherwise be a MemoryError, not a
    refusal. Pickled objects are refused (allow_pickle=False)."""
    arrays: dict[str, Any] = {}
    with zipfile.ZipFile(path) as zf:
        members = zf.infolist()
        if len(members) > MAX_MEMBERS:
            raise ValueError(f"{len(members)} arrays; a calibration has {len(KEYS)}")
        unpacked = sum(m.file_size for m in members)
        if unpacked > MAX_UNPACKED:
            raise ValueError(f"{unpacked} bytes of arrays; at most {MAX_UNPACKED}")
        for member in members:
            with zf.open(member) as fh:
                _check_header(fh, member)
            with zf.open(member) as fh:
                arrays[member.filename.removesuffix(".npy")] = np.lib.format.read_array(
                    fh, allow_pickle=False)
    return arrays


def _check_header(fh: Any, member: zipfile.ZipInfo) -> None:
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(fh)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(fh)
    else:
        raise ValueError(f"{member.filename}: .npy format version {version}")
    if dtype.hasobject:
        raise ValueError(f"{member.filename} holds Python objects (pickled): refused")
    claimed = math.prod(shape) * dtype.itemsize
    if claimed > member.file_size:
        raise ValueError(f"{member.filename} claims {claimed} bytes of data and holds "
                         f"{member.file_size}")


def _version(value: Any) -> int:
    """The file's format version: an integer (4.5 or "4" is none), -1 when it is not."""
    if not isinstance(value, np.ndarray) or value.shape != () or value.dtype.kind not in "iu":
        return -1
    return int(value)


def _no_constant(name: str) -> Any:
    raise ValueError(f"the meta holds {name}, which is no number")


def _floats(data: dict[str, Any], key: str) -> Any:
    value = data[key]
    if not isinstance(value, np.ndarray) or value.dtype.kind != "f":
        raise ValueError(f"{key} holds {getattr(value, 'dtype', type(value))}, not floats")
    return value.astype(np.float32)


def _finite(meta: dict[str, Any], key: str) -> float:
    value = float(meta[key])
    if not math.isfinite(value):
        raise ValueError(f"{key} is {value}, not a finite number")
    return value


def _from_arrays(meta: dict[str, Any], data: dict[str, Any]) -> VisionCalibration:
    labels = [str(x) for x in data["head_labels"]]
    if labels != LABELS:
        raise ValueError("the head must know every card and no index")
    d = Discriminant(labels, _floats(data, "head_weights"), _floats(data, "head_bias"),
                     _floats(data, "head_mean"))
    width = learned_model().embedding
    if d.mean.shape != (width,):
        raise ValueError(f"features of size {d.mean.shape[0]}, this network gives {width}")
    if not all(np.isfinite(a).all() for a in (d.weights, d.bias, d.mean)):
        raise ValueError("the head contains non-finite numbers")
    head = DeckHead(d, _finite(meta, "llr"), _finite(meta, "frame_llr"), str(meta["network"]))
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
        kind=str(meta["kind"]), deck=str(meta["deck"]), head=head, geometry=geometry,
        checks=dict(meta.get("checks") or {}), created=str(meta["created"]),
    )


def _pair(value: Any) -> tuple[int, int]:
    a, b = value
    return int(a), int(b)
