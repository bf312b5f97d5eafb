"""Helpers for checking unit files with systemd's own tools (systemd is not PID 1 here)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SYSTEMD = REPO / "systemd"
UNITS = ("croupier.service", "croupier-retry.service", "croupier-retry.timer")
FAKE_BINARIES = ("opt/croupier/venv/bin/croupier", "usr/bin/systemctl")


def analyze() -> str:
    path = shutil.which("systemd-analyze")
    if path is None:
        pytest.skip(
            "systemd-analyze is not installed (Debian package systemd): unit checks skipped"
        )
    return path


def prepare_root(root: Path) -> None:
    """Make `root` a tree systemd-analyze can verify against: the distribution's
    unit files (for the targets ours name) and the programs ours run (stand-ins:
    only their existence is checked)."""
    system = root / "usr/lib/systemd/system"
    if not system.exists():
        shutil.copytree("/usr/lib/systemd/system", system, symlinks=True)
    for link, target in (("lib", "usr/lib"), ("bin", "usr/bin")):
        if not (root / link).exists():
            (root / link).symlink_to(target)
    for binary in FAKE_BINARIES:
        path = root / binary
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("#!/bin/sh\nexit 0\n")
            path.chmod(0o755)


def verify(root: Path, units: tuple[str, ...] = UNITS) -> subprocess.CompletedProcess[str]:
    """`systemd-analyze verify` on units installed in root/etc/systemd/system.
    It exits 0 even on unknown keys and bad values: its output must be empty too."""
    return subprocess.run(
        [analyze(), "verify", f"--root={root}", "--man=no", *units],
        capture_output=True,
        text=True,
        check=False,
    )


def install_units(root: Path, drop_ins: bool = False) -> Path:
    dest = root / "etc/systemd/system"
    dest.mkdir(parents=True, exist_ok=True)
    for unit in UNITS:
        shutil.copy(SYSTEMD / unit, dest / unit)
    if drop_ins:
        shutil.copytree(SYSTEMD / "croupier.service.d", dest / "croupier.service.d")
    return dest


def parse(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Sections of a unit file as (key, value) lists: keys may repeat (DeviceAllow=)."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current = None
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
            continue
        assert current is not None, f"{path}: {line!r} outside a section"
        key, _, value = line.partition("=")
        current.append((key.strip(), value.strip()))
    return sections
