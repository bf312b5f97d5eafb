"""The layers are a contract (pyproject.toml, `lint-imports` in scripts/test): each
test adds one forbidden import to a copy of the packages and expects the contract
that forbids it to break, so a contract that no longer catches anything fails here."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("controller", "drivers", "sim", "calibration")
LINT = Path(sys.executable).with_name("lint-imports")


def lint(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT), "--config", str(tree / "pyproject.toml"), "--no-cache"],
        cwd=tree,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packages' Python files and the contracts, as the repository has them."""
    root = tmp_path_factory.mktemp("layers")
    shutil.copy(ROOT / "pyproject.toml", root)
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package,
            root / package,
            ignore=lambda folder, names: [
                n for n in names if not n.endswith(".py") and not (Path(folder) / n).is_dir()
            ],
        )
    return root


def test_the_packages_keep_every_contract(tree: Path) -> None:
    done = lint(tree)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("controller/engine/cards.py", "import sqlite3", "the engine is pure"),
        ("controller/engine/round.py", "import controller.journal", "the engine is pure"),
        ("drivers/interfaces.py", "import controller.service", "drivers import none"),
        ("drivers/serial/shoe.py", "import sim.shoe", "drivers import none"),
        ("drivers/vision/shoe.py", "import drivers.camera.capture", "the vision package is pure"),
        ("drivers/vision/frame.py", "import threading", "the vision package is pure"),
        ("controller/journal.py", "import controller.cli.run", "only the command line"),
        ("controller/wire.py", "import sim.bots", "the service never imports the simulator"),
        ("controller/service.py", "import calibration.adapt", "calibration tools are run"),
        ("controller/wire.py", "import controller.service", "no import cycles"),
    ],
)
def test_a_forbidden_import_breaks_its_contract(
    tree: Path, module: str, line: str, contract: str
) -> None:
    path = tree / module
    kept = path.read_text()
    path.write_text(kept + f"\n{line}  # forbidden\n")
    try:
        done = lint(tree)
    finally:
        path.write_text(kept)
    assert done.returncode != 0, done.stdout
    broken = [row for row in done.stdout.splitlines() if " BROKEN" in row]
    assert any(row.startswith(contract) for row in broken), done.stdout
