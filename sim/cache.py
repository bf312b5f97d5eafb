"""The project's cache folder on this machine: what is costly to make and
can be made again (the compiled engine's builds, the card reader's
training views and out-of-fold networks). `$CROUPIER_CACHE_DIR`, else
`$XDG_CACHE_HOME/croupier`, else `~/.cache/croupier`: not /tmp, which a
reboot empties."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    if os.environ.get("CROUPIER_CACHE_DIR"):
        return Path(os.environ["CROUPIER_CACHE_DIR"])
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "croupier"
