"""A digest of source files, to name a cache of what they make: a cache
named by a revision raised by hand was once silently stale."""

from __future__ import annotations

import hashlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def code_digest(patterns: tuple[str, ...]) -> str:
    """12 hex digits of the SHA-256 of the files the glob patterns (from the
    project's root) match, in order."""
    h = hashlib.sha256()
    for pattern in patterns:
        for path in sorted(ROOT.glob(pattern)):
            h.update(path.read_bytes())
    return h.hexdigest()[:12]
