"""`croupier audit software`: is the installed software the released software?

Gaming regulators ask a table system to show that the code that runs is the
code that was approved. The installed distribution's RECORD (written by the
installer from the wheel) lists every file with its SHA-256; this module
hashes each installed file again and compares. A file that differs, is
missing, or sits in the package's directories without being in RECORD (a
file dropped in beside the code) is named.

An editable install (a developer's checkout) records no package files: it is
reported as such and never passes as intact.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "croupier"
PACKAGES = ("controller", "drivers", "calibration", "sim")
_SKIP_SUFFIXES = (".pyc",)  # compiled on the table; RECORD lists them without a hash


@dataclass
class Finding:
    path: str  # as RECORD names it (relative to site-packages)
    sha256: str  # hex of the file now ("" when missing)
    problem: str | None  # None: as recorded


@dataclass
class Verdict:
    distribution: str
    version: str
    location: Path
    files: list[Finding] = field(default_factory=list)
    editable: bool = False

    @property
    def problems(self) -> list[Finding]:
        return [f for f in self.files if f.problem]

    @property
    def intact(self) -> bool:
        return not self.editable and bool(self.files) and not self.problems


def _digest(path: Path) -> bytes:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.digest()


def _recorded(text: str) -> bytes | None:
    """RECORD's "sha256=<urlsafe base64, no padding>" as bytes; None for another algorithm."""
    algorithm, _, value = text.partition("=")
    if algorithm != "sha256":
        return None
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def check(name: str = DISTRIBUTION) -> Verdict:
    dist = metadata.distribution(name)
    base = Path(str(dist.locate_file("")))
    verdict = Verdict(name, dist.version, base)
    listed: set[Path] = set()
    for entry in dist.files or []:
        path = Path(str(dist.locate_file(entry)))
        listed.add(path.resolve())
        if entry.hash is None:
            continue  # RECORD itself, and .pyc files the installer compiled
        try:
            now = _digest(path)
        except OSError as exc:
            verdict.files.append(Finding(str(entry), "", f"missing ({exc.strerror})"))
            continue
        want = _recorded(f"{entry.hash.mode}={entry.hash.value}")
        problem = None
        if want is None:
            problem = f"recorded with {entry.hash.mode}, not sha256"
        elif now != want:
            problem = "differs from the release (SHA-256 does not match RECORD)"
        verdict.files.append(Finding(str(entry), now.hex(), problem))
    # No RECORD (an egg-info of a source tree), or a RECORD without the package's own
    # files (an editable install): nothing here says what the release was.
    verdict.editable = dist.read_text("RECORD") is None or not any(
        Path(str(f)).parts[:1] == ("controller",) and f.hash is not None
        for f in dist.files or []
    )
    if not verdict.editable:
        for package in PACKAGES:
            root = base / package
            if not root.is_dir():
                continue
            for path in sorted(root.rglob("*")):
                if (
                    path.is_file()
                    and path.suffix not in _SKIP_SUFFIXES
                    and path.resolve() not in listed
                ):
                    rel = str(path.relative_to(base))
                    verdict.files.append(
                        Finding(rel, _digest(path).hex(), "not in the release (not in RECORD)")
                    )
    return verdict


def report(verdict: Verdict) -> str:
    lines = [f"{f.sha256 or '-' * 64}  {f.path}" for f in verdict.files]
    head = f"{verdict.distribution} {verdict.version} in {verdict.location}"
    if verdict.editable:
        lines.append(
            f"{head}: an editable install or a source tree: no RECORD of the package's "
            "files, so nothing can be verified: install the release (a wheel) to audit it"
        )
    elif verdict.intact:
        lines.append(f"{head}: intact ({len(verdict.files)} files match RECORD)")
    else:
        for f in verdict.problems:
            lines.append(f"CHANGED {f.path}: {f.problem}")
        lines.append(f"{head}: NOT intact ({len(verdict.problems)} of {len(verdict.files)} files)")
    return "\n".join(lines)
