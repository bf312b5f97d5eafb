"""The compiled engine for `croupier simulate`: the same source, built by mypyc.

A long simulation spends its time in the engine's Python: a card, a
decision, a settlement, a round object made and dropped, hundreds of
millions of times. mypyc (part of mypy) compiles the engine's own modules,
with their type hints, into a C extension; nothing is rewritten by hand, so
the compiled engine has the engine's interface and rules because it is the
engine. tests/test_native.py plays every profile through both and checks
that every operation record and every sum come out bit for bit the same.

The build goes to a cache (`$CROUPIER_CACHE_DIR`, else
`$XDG_CACHE_HOME/croupier`, else `~/.cache/croupier`), one folder per
version of the sources, of Python and of mypy: an edited engine is built
afresh, never run stale, and the project's own folder gets no compiled
files that would shadow its sources. It needs mypy (the `dev` or `native`
extra) and a C compiler; without them the refusal says which is missing.

Simulation runs in worker processes that load the compiled modules ahead
of the project's own: the process that asks keeps the engine it imported.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields
from multiprocessing import get_context
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any

from controller.engine.profile import RuleProfile
from sim.cache import cache_root
from sim.simulate import Chunk, Runner, Tally, log_digest, play

ROOT = Path(__file__).resolve().parent.parent
# Compiled: the engine but its house edge calculator (numpy does that one's
# work, and mypyc mis-builds its recursive inner function), and the loop
# that drives it.
COMPILED = (
    *(
        f"controller/engine/{p.name}"
        for p in sorted((ROOT / "controller/engine").glob("*.py"))
        if not p.name.startswith("edge")
    ),
    "sim/shoe.py",
    "sim/simulate.py",
    "sim/strategy.py",
)
# Copied beside them: what the workers import as plain Python.
COPIED = (
    *(f"controller/engine/{p.name}" for p in sorted((ROOT / "controller/engine").glob("edge*.py"))),
    "sim/native.py",
)
# The two packages' __init__ in the build: the project's, which then looks for
# modules not built here (the command line, the rest of the simulator) in the
# project, after this folder.
PACKAGES = ("controller", "sim")
SOURCE = "source.txt"  # in a build: the checkout it was built from
FIELDS = tuple(f.name for f in fields(RuleProfile))

# Run in the build folder by a fresh interpreter: setuptools builds the
# extensions in place, next to the copied sources.
_SETUP = """
import sys
from mypyc.build import mypycify
from setuptools import setup
setup(name="croupier-native", ext_modules=mypycify(sys.argv[1:], opt_level="3"),
      script_args=["build_ext", "--inplace", "--quiet"])
"""


class NativeUnavailable(Exception):
    """The compiled engine cannot be built here; the message says what is missing."""


def _mypy_version() -> str | None:
    try:
        from mypy.version import __version__
    except ImportError:
        return None
    return __version__


def build_key() -> str:
    """One folder per version of the sources, of Python and of mypy."""
    digest = hashlib.sha256()
    digest.update(f"{sys.version}|{_mypy_version()}|{sysconfig.get_platform()}|{ROOT}".encode())
    for rel in (*COMPILED, *COPIED, *(f"{p}/__init__.py" for p in PACKAGES)):
        digest.update(rel.encode() + b"\0" + (ROOT / rel).read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def built(root: Path | None = None) -> Path | None:
    """The compiled engine's folder if it is built for these sources, else None."""
    folder = (root or cache_root()) / "native" / build_key()
    return folder if folder.is_dir() else None


def _compiler() -> str:
    """The C compiler setuptools will call: $CC, else the one Python was built with."""
    words = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    return words[0] if words else "cc"


def buildable() -> str | None:
    """None when the engine can be compiled here, else what is missing."""
    if _mypy_version() is None:
        return "mypy is not installed (pip install 'croupier[native]')"
    if shutil.which(_compiler()) is None:
        return f"no C compiler: {_compiler()!r} is not on PATH"
    return None


def build(root: Path | None = None, quiet: bool = False) -> Path:
    """Compile the engine into the cache (once per version); return its folder."""
    folder = built(root)
    if folder is not None:
        return folder
    missing = buildable()
    if missing:
        raise NativeUnavailable(f"cannot build the compiled engine: {missing}")
    target = (root or cache_root()) / "native" / build_key()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".build-", dir=target.parent))
    except OSError as exc:
        raise NativeUnavailable(
            f"cannot build the compiled engine: its cache {target.parent} cannot be written "
            f"({exc.strerror or exc}); set CROUPIER_CACHE_DIR to a writable folder"
        ) from exc
    try:
        for rel in (*COMPILED, *COPIED):
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, work / rel)
        for package in PACKAGES:
            source = (ROOT / package / "__init__.py").read_text()
            (work / package / "__init__.py").write_text(
                f"{source}\n__path__.append({str(ROOT / package)!r})\n"
            )
            # The rest of the package (its other modules, its data: the rules
            # files) as links, for what finds its files beside the package's.
            for entry in (ROOT / package).iterdir():
                if entry.name != "__pycache__" and not (work / package / entry.name).exists():
                    (work / package / entry.name).symlink_to(entry)
        if not quiet:
            print(
                f"building the compiled engine in {target} (under a minute, once)", file=sys.stderr
            )
        done = subprocess.run(
            [sys.executable, "-c", _SETUP, *COMPILED],
            cwd=work,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            raise NativeUnavailable(f"cannot build the compiled engine: mypyc failed:\n{tail}")
        shutil.rmtree(work / "build", ignore_errors=True)
        (work / SOURCE).write_text(str(ROOT))
        try:
            work.rename(target)  # whole or not at all: a half-built folder is never used
        except OSError:
            if not target.is_dir():  # not another build that finished first
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    _prune(target)
    return target


def _prune(keep: Path) -> None:
    """Remove the builds of this checkout's earlier sources: each is some 15 MB,
    and an edited engine is never run from them. Other checkouts' builds stay."""
    for other in keep.parent.iterdir():
        mark = other / SOURCE
        if other != keep and mark.is_file() and mark.read_text() == str(ROOT):
            shutil.rmtree(other, ignore_errors=True)


@contextmanager
def native_pool(jobs: int, folder: Path) -> Iterator[Pool]:
    """Worker processes that import the compiled engine in `folder`.

    Spawned, not forked, so that they import afresh; they start with this
    process's import path, with `folder` put first while they start. One
    BLAS thread each: the strategy's numpy work is small, and idle BLAS
    threads spinning beside the workers would take their cores."""
    saved_path, saved_blas = list(sys.path), os.environ.get("OPENBLAS_NUM_THREADS")
    sys.path.insert(0, str(folder))
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        pool = get_context("spawn").Pool(jobs)
    finally:
        sys.path[:] = saved_path
        if saved_blas is None:
            del os.environ["OPENBLAS_NUM_THREADS"]
        else:
            os.environ["OPENBLAS_NUM_THREADS"] = saved_blas
    try:
        yield pool
    finally:
        pool.terminate()
        pool.join()


def _profile(values: dict[str, Any]) -> RuleProfile:
    return RuleProfile(**values)


def _check_compiled() -> None:
    from controller.engine import round as engine_round

    if not str(engine_round.__file__).endswith((".so", ".pyd")):
        raise RuntimeError(
            f"a worker of the compiled engine imported {engine_round.__file__} instead"
        )


def play_chunk(args: tuple[dict[str, Any], int, str, int | None, str]) -> tuple[float, ...]:
    _check_compiled()
    values, hands, seed, boxes, shuffle = args
    t = play(_profile(values), hands, seed, boxes, None, shuffle)
    return (t.hands, t.rounds, t.net, t.net_sq, t.bets_sq, t.net_bets, t.seconds)


def _digest(args: tuple[dict[str, Any], int, str, int | None, str]) -> str:
    _check_compiled()
    values, hands, seed, boxes, shuffle = args
    return log_digest(_profile(values), hands, seed, boxes, shuffle)


def profile_values(profile: RuleProfile) -> dict[str, Any]:
    # The settings cross to the workers as plain values, to be made a profile
    # there by the compiled class.
    return {name: getattr(profile, name) for name in FIELDS}


def runner(jobs: int, folder: Path | None = None) -> Runner:
    """A runner for `sim.simulate.simulate`: `jobs` workers on the compiled engine
    (built first if need be), so the same chunks give the same sums."""
    where = folder or build()

    def run(chunks: list[Chunk]) -> Iterator[Tally]:
        with native_pool(jobs, where) as pool:
            args = [(profile_values(p), n, s, b, shuffle) for p, n, s, b, shuffle in chunks]
            for got in pool.imap(play_chunk, args):
                hands, rounds, net, net_sq, bets_sq, net_bets, seconds = got
                yield Tally(int(hands), int(rounds), net, net_sq, bets_sq, net_bets, seconds)

    return run


def digests_native(chunks: list[Chunk], folder: Path, jobs: int = 2) -> list[str]:
    """`sim.simulate.log_digest` of each chunk (play()'s arguments), on the compiled engine."""
    with native_pool(jobs, folder) as pool:
        args = [(profile_values(p), n, s, b, shuffle) for p, n, s, b, shuffle in chunks]
        return pool.map(_digest, args)
