"""`croupier audit software` on a real install of this tree (pip, from a wheel it
builds): intact as installed; one installed file edited, or one dropped in beside
the package, is named and the exit status is 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def audit(site: Path | None, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", **({"PYTHONPATH": str(site)} if site else {})}
    return subprocess.run(
        [sys.executable, "-m", "controller", "audit", "software"],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=120, check=False,
    )


@pytest.mark.slow
def test_a_fresh_install_is_intact_and_an_edited_file_is_named(tmp_path: Path) -> None:
    prefix = tmp_path / "prefix"
    done = subprocess.run(
        # --ignore-installed: without it pip first uninstalls the croupier this very
        # environment runs (the developer's editable install).
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--ignore-installed",
         "--prefix", str(prefix), str(REPO)],
        capture_output=True, text=True, timeout=600, check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot build and install the package here: {done.stderr[-300:]}")
    site = next(prefix.glob("lib/python3*/site-packages"))
    run_dir = tmp_path / "elsewhere"  # not the checkout: `python -m controller` imports site's
    run_dir.mkdir()

    fresh = audit(site, run_dir)
    assert fresh.returncode == 0, fresh.stdout[-2000:] + fresh.stderr
    assert fresh.stdout.rstrip().endswith("files match RECORD)")
    assert "  controller/engine/money.py\n" in fresh.stdout  # every file, with its SHA-256

    money = site / "controller" / "engine" / "money.py"
    money.write_text(money.read_text() + "\nMAX_AMOUNT = 10**30\n")
    (site / "controller" / "backdoor.py").write_text("print('hello')\n")
    edited = audit(site, run_dir)
    assert edited.returncode == 1
    assert "CHANGED controller/engine/money.py: differs from the release" in edited.stdout
    assert "CHANGED controller/backdoor.py: not in the release" in edited.stdout
    assert "NOT intact (2 of" in edited.stdout


def test_an_editable_checkout_cannot_pass_as_intact() -> None:
    done = audit(None, REPO)
    assert done.returncode == 2, done.stdout[-500:]
    assert "an editable install or a source tree" in done.stdout
