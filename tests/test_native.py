"""The compiled engine (sim/native.py): built by mypyc from the engine's own
source, it must play every round bit for bit as the engine does."""

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller import rules
from sim import native
from sim.simulate import Chunk, log_digest, simulate

VARIANTS = {
    "resplit aces, original bets only": dict(
        resplit_aces=True, max_ace_hands=4, enhc_loses="original"
    ),
    "h17, no das, surrender": dict(
        dealer_hits_soft_17=True, double_after_split=False, surrender=True
    ),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    missing = native.buildable()
    if missing:
        pytest.skip(f"the compiled engine cannot be built here: {missing}")
    return native.build(tmp_path_factory.mktemp("cache"), quiet=True)


def test_the_build_is_compiled_and_keeps_its_version(built: Path) -> None:
    engine = built / "controller" / "engine"
    assert sorted(p.name.split(".")[0] for p in engine.glob("round*.so")) == [
        "round",
        "round_state",
    ]
    assert not list(engine.glob("edge*.so"))  # the edge stays numpy's
    assert native.built(built.parent.parent) == built
    assert native.build(built.parent.parent) == built  # built once, then found


# Every shipped profile with its fewest boxes, two with many, variants, and a
# continuous shuffler: (profile, hands, seed, boxes, shuffle), play()'s arguments.
CASES: dict[str, Chunk] = {
    **{name: (rules.shipped(name), 3000, f"native:{name}", None, "cut") for name in rules.SHIPPED},
    "be-casino, 7 boxes": (rules.shipped("be-casino"), 3000, "native:7", 7, "cut"),
    "pt, 5 boxes": (rules.shipped("pt"), 3000, "native:5", 5, "cut"),
    **{
        variant: (dataclasses.replace(rules.shipped("ref-enhc"), **changes), 3000, "v", None, "cut")
        for variant, changes in VARIANTS.items()
    },
    "be-casino, shuffled each round": (rules.shipped("be-casino"), 3000, "c", None, "round"),
    "us-holecard, shuffled each round": (rules.shipped("us-holecard"), 3000, "c", None, "round"),
}


@pytest.fixture(scope="module")
def compiled_digests(built: Path) -> dict[str, str]:
    """Each case's digest on the compiled engine (one pool for all: spawning costs)."""
    return dict(zip(CASES, native.digests_native(list(CASES.values()), built), strict=True))


@pytest.mark.parametrize("case", CASES)
def test_every_record_of_every_round_is_the_engines(
    compiled_digests: dict[str, str], case: str
) -> None:
    profile, hands, seed, boxes, shuffle = CASES[case]
    assert compiled_digests[case] == log_digest(profile, hands, seed, boxes, shuffle)


def test_the_same_sums_whatever_the_engine_and_the_jobs(built: Path) -> None:
    p = rules.shipped("fr-classic")
    a = simulate(p, 40_000, 7, jobs=1)
    b = simulate(p, 40_000, 7, runner=native.runner(2, built))
    fields = ("hands", "rounds", "net", "net_sq", "bets_sq", "net_bets")
    assert [getattr(a, f) for f in fields] == [getattr(b, f) for f in fields]


def test_a_new_build_removes_this_checkouts_older_ones_only(built: Path) -> None:
    root = built.parent
    older, elsewhere = root / "0123456789abcdef", root / "fedcba9876543210"
    older.mkdir()
    (older / native.SOURCE).write_text(str(native.ROOT))
    elsewhere.mkdir()
    (elsewhere / native.SOURCE).write_text("/another/checkout")
    native._prune(built)
    assert not older.exists() and elsewhere.is_dir() and built.is_dir()
    shutil.rmtree(elsewhere)


def test_an_edited_engine_is_built_afresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for rel in (*native.COMPILED, *native.COPIED, *(f"{p}/__init__.py" for p in native.PACKAGES)):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(native.ROOT / rel, tmp_path / rel)
    monkeypatch.setattr(native, "ROOT", tmp_path)
    before = native.build_key()
    with (tmp_path / "controller/engine/outcome.py").open("a") as f:
        f.write("\n# edited\n")
    assert native.build_key() != before


def croupier(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )


def test_the_command_line_runs_either_engine(built: Path) -> None:
    cache = {"CROUPIER_CACHE_DIR": str(built.parent.parent)}
    args = ("simulate", "--rules", "pt", "--hands", "30000", "--seed", "3", "--json")
    fast = croupier(*args, "--engine", "native", env=cache)
    slow = croupier(*args, "--engine", "python", env=cache)
    assert fast.returncode == 0 and slow.returncode == 0, fast.stderr + slow.stderr
    a, b = json.loads(fast.stdout), json.loads(slow.stdout)
    assert (a["engine"], b["engine"]) == ("native", "python")
    for key in ("hands", "rounds", "house_edge_pct", "stderr_pct"):
        assert a[key] == b[key]
    auto = croupier(*args, env=cache)  # built: auto takes it
    assert json.loads(auto.stdout)["engine"] == "native"


def test_without_a_compiler_native_is_refused_and_auto_plays_python(tmp_path: Path) -> None:
    env = {"CROUPIER_CACHE_DIR": str(tmp_path), "CC": "/nonexistent/cc"}
    args = ("simulate", "--rules", "ref-peek", "--hands", "2000", "--json")
    refused = croupier(*args, "--engine", "native", env=env)
    assert refused.returncode == 2 and refused.stdout == ""
    assert "no C compiler: '/nonexistent/cc' is not on PATH" in refused.stderr
    auto = croupier(*args, env=env)
    assert auto.returncode == 0 and json.loads(auto.stdout)["engine"] == "python"
    # A cache that cannot be written: refused, named, no traceback.
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    unwritable = croupier(*args, "--engine", "native", env={"CROUPIER_CACHE_DIR": str(blocked)})
    assert unwritable.returncode == 2 and "Traceback" not in unwritable.stderr
    assert f"its cache {blocked}/native cannot be written" in unwritable.stderr
    assert not (tmp_path / "native").exists() or not any((tmp_path / "native").iterdir())
