"""The vision calibration file (drivers/vision/vision_file.py, an .npz) as a fuzz
surface: the strategy that breaks a valid file and the check of what `load` did.

A valid file is made once without running a calibration: a synthetic deck head
(random, finite) over the installed corner network, saved by `vision_file.save`.
It is then broken byte-wise (flips, inserts, cuts: mostly the zip's own checks)
and structurally, re-packed as a well-formed archive so that the damage reaches
`load`'s own checks: a key dropped, added or renamed; an array of the wrong
shape, dtype or with NaN; a version that is not 4; the meta's JSON broken; a
pickled object (which `allow_pickle=False` must refuse); an array whose header
claims far more than the file holds; or no archive at all.

The outcome allowed (bench/fuzz_check.py's rule for files): a calibration whose
model reads (a finite head the installed network accepts), or `CalibrationError`
naming the file. Anything else raised is a crash.
"""

from __future__ import annotations

import io
import json
import math
import pickle
import tempfile
import zipfile
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st

from bench.fuzz_check import _check_file, _need, _starts_with_path
from bench.fuzz_gen import Raw, bad_values, dumps, mutated_bytes, mutated_object


@cache
def valid_file() -> tuple[bytes, tuple[tuple[str, Any], ...]]:
    """A valid calibration file (camera kind, geometry and checks in its meta): its
    bytes and its arrays as saved."""
    from drivers.vision import vision_file as vf
    from drivers.vision.adapted import DeckHead
    from drivers.vision.lda import Discriminant
    from drivers.vision.learned import learned_model
    from drivers.vision.shoe import ShoeGeometry

    rng = np.random.default_rng(37)
    k = len(vf.LABELS)
    width = learned_model().embedding
    d = Discriminant(
        list(vf.LABELS),
        rng.normal(size=(width, k)).astype(np.float32),
        rng.normal(size=k).astype(np.float32),
        rng.normal(size=width).astype(np.float32),
    )
    head = DeckHead(d, 2.0, 3.0, learned_model().digest)
    cal = vf.VisionCalibration(
        "camera",
        "fuzz-deck",
        head,
        ShoeGeometry(),
        {"focus": 120.5, "exposure": 0.4},
        "2026-12-06T14:00:00+00:00",
    )
    with tempfile.TemporaryDirectory(prefix="croupier-fuzz-") as tmp:
        path = Path(tmp) / "valid.npz"
        vf.save(cal, path)
        vf.load(path)  # the starting point must be valid itself
        data = path.read_bytes()
        with np.load(path, allow_pickle=False) as z:
            arrays = tuple((key, z[key]) for key in z.files)
    return data, arrays


def npy(array: Any) -> bytes:
    out = io.BytesIO()
    np.save(out, array, allow_pickle=True)  # an object array is pickled: load must refuse it
    return out.getvalue()


def lying_npy(draw: st.DrawFn) -> bytes:
    """An .npy whose header claims far more data than follows it (numpy would allocate
    what the header says before it finds the data missing)."""
    shape = draw(st.sampled_from([(2**40,), (2**31, 2**20), (10**6, 10**6), (2**62,)]))
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        out, {"descr": "<f4", "fortran_order": False, "shape": shape}
    )
    return out.getvalue() + b"\0" * draw(st.integers(0, 64))


def pack(members: dict[str, bytes], compressed: bool) -> bytes:
    out = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED
    with zipfile.ZipFile(out, "w", method) as zf:
        for name, data in members.items():
            zf.writestr(name + ".npy", data)
    return out.getvalue()


def bad_arrays() -> st.SearchStrategy[Any]:
    """What a damaged or hand-made file may hold where an array goes."""
    shapes = st.lists(st.integers(0, 140), max_size=3).map(tuple)
    dtypes = st.sampled_from(
        [
            np.float32,
            np.float64,
            np.float16,
            np.int64,
            np.uint8,
            np.bool_,
            np.complex64,
            "U3",
            "S3",
            "V4",
            [("a", "<f4"), ("b", "<i2")],
        ]
    )
    return st.one_of(
        st.builds(lambda s, t: np.zeros(s, t), shapes, dtypes),
        st.builds(lambda s: np.full(s, np.nan, np.float32), shapes),
        st.builds(lambda s: np.full(s, np.inf, np.float32), shapes),
        st.sampled_from(
            [
                np.array(4),
                np.array("4"),
                np.array(4.0),
                np.array([4, 4]),
                np.array(True),
                np.array(""),
                np.array(2**63 - 1),
                np.array(b"\xff\xfe"),
                np.array("\ud800"),
            ]
        ),
        st.builds(lambda v: np.array([v], dtype=object), st.sampled_from([{"a": 1}, "x", 4])),
    )


@st.composite
def vision_calibration_files(draw: st.DrawFn) -> bytes:
    data, saved = valid_file()
    arrays = dict(saved)
    how = draw(
        st.sampled_from(
            [
                "bytes",
                "cut",
                "drop",
                "extra",
                "rename",
                "array",
                "array",
                "nan",
                "version",
                "meta",
                "meta",
                "geometry",
                "pickle",
                "lying",
                "other",
            ]
        )
    )
    if how == "bytes":
        return draw(mutated_bytes(data))
    if how == "cut":
        return data[: draw(st.integers(0, len(data) - 1))]
    if how == "other":
        return draw(
            st.sampled_from(
                [
                    b"",
                    npy(arrays["head_mean"]),
                    pickle.dumps({"version": 4}),
                    b"PK\x03\x04",
                    json.dumps({k: str(v) for k, v in arrays.items()}).encode(),
                ]
            )
        )
    members = {key: npy(value) for key, value in arrays.items()}
    key = draw(st.sampled_from(sorted(arrays)))
    if how == "drop":
        members.pop(key)
    elif how == "extra":
        name = draw(st.from_regex(r"[A-Za-z0-9_ é.-]{0,11}[A-Za-z0-9_é-]", fullmatch=True))
        members[name] = npy(draw(bad_arrays()))
    elif how == "rename":
        members[key + draw(st.sampled_from(["_", "2", " ", ".npy"]))] = members.pop(key)
    elif how == "array":
        members[key] = npy(draw(bad_arrays()))
    elif how == "nan":
        target = draw(st.sampled_from(["head_weights", "head_bias", "head_mean"]))
        values = arrays[target].copy()
        flat = values.reshape(-1)
        flat[draw(st.integers(0, flat.size - 1))] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
        members[target] = npy(values)
    elif how == "version":
        members["version"] = npy(
            np.array(draw(st.sampled_from([0, 1, 2, 3, 5, -1, 2**63 - 1, -(2**63), 4.5])))
        )
    elif how in ("meta", "geometry"):
        members["meta"] = npy(np.array(draw(broken_meta(str(arrays["meta"]), how))))
    elif how == "pickle":
        members[key] = npy(np.array([draw(st.sampled_from([{"x": 1}, [1, 2], "4"]))], object))
    elif how == "lying":
        members[key] = lying_npy(draw)
    return pack(members, draw(st.booleans()))


@st.composite
def broken_meta(draw: st.DrawFn, text: str, how: str) -> str:
    meta = json.loads(text)
    if how == "geometry":
        meta["geometry"] = Raw(draw(mutated_object(meta["geometry"])))
        return dumps(meta)
    choice = draw(st.sampled_from(["object", "value", "bytes"]))
    if choice == "object":
        return str(draw(mutated_object(meta)))
    if choice == "value":  # a field set to anything, NaN and 3,000-deep lists included
        meta[draw(st.sampled_from(sorted(meta)))] = draw(bad_values())
        return dumps(meta)
    return draw(mutated_bytes(text.encode())).decode("utf-8", "replace")


def check_vision_calibration(data: bytes) -> str:
    """`data` as a calibration file: loaded into a model that reads, or refused."""
    from drivers.vision import vision_file as vf

    def usable(path: Path) -> None:
        cal = vf.load(path)
        cal.model()  # the installed network takes this head
        head = cal.head
        d = head.discriminant
        _need(math.isfinite(head.llr) and math.isfinite(head.frame_llr), f"llr of {head}")
        _need(d.weights.dtype == np.float32 and d.labels == vf.LABELS, "an unusable head")
        decision = d.decide(d.mean + np.float32(0.5))
        _need(decision.label in vf.LABELS and math.isfinite(decision.llr), f"{decision}")
        _need(cal.kind in ("deck", "camera"), f"kind {cal.kind!r}")
        if cal.geometry is not None:
            cal.geometry.check()

    return _check_file(data, ".npz", usable, vf.CalibrationError, _starts_with_path)
