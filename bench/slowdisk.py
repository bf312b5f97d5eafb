"""An emulated slow disk for the service benchmark (`--slow-disk MS`).

This development VM's disk takes 0.2 ms per fsync most of the time and about
4 ms in some periods, which come and go on their own. To measure the slow case
on demand, the benchmark re-runs itself with bench/slowdisk.c preloaded: every
fsync and fdatasync of the process, SQLite's own included, returns MS ms
later than the real one did; `--serial-disk` makes the device take one flush
at a time. The figures it gives are labelled as emulated wherever they are
reported (docs/benchmarks.md).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SOURCE = Path(__file__).with_name("slowdisk.c")
FLAG = "CROUPIER_BENCH_SLOW_DISK"


def active() -> bool:
    return os.environ.get(FLAG) == "1"


def rerun(ms: float, serial: bool, argv: list[str]) -> int:
    """Build the shim, run `python -m bench ARGV` with it preloaded; its exit status."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        sys.exit("--slow-disk needs a C compiler (cc) to build bench/slowdisk.c")
    with tempfile.TemporaryDirectory() as tmp:
        lib = Path(tmp) / "slowdisk.so"
        subprocess.run(
            [cc, "-shared", "-fPIC", "-O2", "-o", str(lib), str(SOURCE), "-ldl", "-lpthread"],
            check=True,
        )
        env = {
            **os.environ,
            FLAG: "1",
            "LD_PRELOAD": str(lib),
            "SLOW_DISK_MS": str(ms),
            "SLOW_DISK_SERIAL": "1" if serial else "0",
        }
        return subprocess.run([sys.executable, "-m", "bench", *argv], env=env).returncode
