"""Vision calibration files the fuzz surface (bench/fuzz_vision.py) found taking
`vision_file.load` down with an exception other than CalibrationError, or loading
into a model that cannot read: each is now refused with a message that names the
file and what is wrong. And the file the surface starts from is itself valid."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from bench.fuzz_vision import npy, pack, valid_file
from drivers.vision import vision_file
from drivers.vision.vision_file import CalibrationError


def members() -> dict[str, bytes]:
    return {key: npy(value) for key, value in valid_file()[1]}


def lying(shape: tuple[int, ...]) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        out, {"descr": "<f4", "fortran_order": False, "shape": shape}
    )
    return out.getvalue()


def meta_with(**changes: object) -> bytes:
    meta = json.loads(str(dict(valid_file()[1])["meta"]))
    meta.update(changes)
    return npy(np.array(json.dumps(meta)))


def test_the_surfaces_starting_file_loads_into_a_reading_model(tmp_path: Path) -> None:
    path = tmp_path / "valid.npz"
    path.write_bytes(valid_file()[0])
    cal = vision_file.load(path)
    assert cal.kind == "camera" and cal.geometry is not None
    assert cal.model().head.discriminant.labels == vision_file.LABELS


def _bad_crc() -> bytes:
    data = bytearray(pack(members(), compressed=False))
    at = data.index(b"head_weights.npy") + 400  # inside the stored weights
    data[at] ^= 0x10
    return bytes(data)


CASES = {
    "bad CRC": (_bad_crc(), "Bad CRC-32"),
    "cut in a compressed member": (valid_file()[0][:9000], "not a calibration file"),
    "a bare .npy, no archive": (npy(np.zeros(3, np.float32)), "not a calibration file"),
    "a header claiming 4 TB": (
        pack(members() | {"head_mean": lying((2**40,))}, compressed=True),
        "claims 4398046511104 bytes",
    ),
    "a pickled object": (
        pack(members() | {"head_bias": npy(np.array([{"x": 1}], object))}, compressed=False),
        "pickled",
    ),
    "version 4.5": (pack(members() | {"version": npy(np.array(4.5))}, True), "version -1"),
    "version 3": (pack(members() | {"version": npy(np.array(3))}, True), "calibrate again"),
    "llr NaN": (pack(members() | {"meta": meta_with(llr=float("nan"))}, True), "NaN"),
    "llr a string 'inf'": (pack(members() | {"meta": meta_with(frame_llr="inf")}, True), "inf"),
    "complex weights": (
        pack(members() | {"head_weights": npy(np.zeros((128, 53), np.complex64))}, True),
        "not floats",
    ),
    "weights missing": (
        pack({k: v for k, v in members().items() if k != "head_weights"}, True),
        "damaged",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_broken_file_is_refused_naming_it_and_why(tmp_path: Path, case: str) -> None:
    data, why = CASES[case]
    path = tmp_path / "cal.npz"
    path.write_bytes(data)
    with pytest.raises(CalibrationError) as refused:
        vision_file.load(path)
    assert str(refused.value).startswith(f"{path}: ") and why in str(refused.value), refused.value


def test_too_many_arrays_are_refused_before_any_is_read(tmp_path: Path) -> None:
    path = tmp_path / "cal.npz"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for n in range(vision_file.MAX_MEMBERS + 1):
            zf.writestr(f"a{n}.npy", npy(np.zeros(1)))
    path.write_bytes(out.getvalue())
    with pytest.raises(CalibrationError, match=r"17 arrays; a calibration has 7"):
        vision_file.load(path)
