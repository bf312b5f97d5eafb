"""The card readers' matrix products run on one BLAS thread
(drivers/vision/__init__.py): on its default threads, numpy's BLAS held a
frame several times longer at p99 on a busy machine (docs/benchmarks.md,
Fourteenth pass)."""

from __future__ import annotations

import json
import subprocess
import sys

_CODE = """
import json, numpy
from threadpoolctl import threadpool_info
def blas():
    return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
before = blas()
import drivers.vision.learned
print(json.dumps([before, blas()]))
"""


def test_importing_the_camera_package_leaves_numpy_one_blas_thread() -> None:
    # A fresh interpreter: the suite's own process has imported the package.
    out = subprocess.run([sys.executable, "-c", _CODE], capture_output=True, text=True,
                         check=True).stdout
    before, after = json.loads(out)
    # numpy's OpenBLAS and OpenCV's own copy; numpy's ran a thread a core before.
    assert after and set(after) == {1}
    assert before
