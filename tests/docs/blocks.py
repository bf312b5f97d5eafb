"""The fenced code blocks of README.md and docs/, and what each is for.

Every block has a language. A shell block (`sh`, `bash`, `console`) runs as
written unless the line just above it (an HTML comment, invisible on the
rendered page) says otherwise; a `toml` block is a table's configuration and
is checked with `croupier check-config`:

    <!-- doc-test: run -->                  (the default) the block as one bash
                                            script in the sandbox: exits 0
    <!-- doc-test: serve 8 -->              each command as in a terminal of its
                                            own (a pty): still running after 8 s,
                                            then Ctrl-C: stops cleanly
    <!-- doc-test: serve 20 beside -->      the same, while the previous serve
                                            block's commands still run
    ... url=http://127.0.0.1:8080/          (serve) answers 200 within the seconds
    ... expect="broker ok"                  (serve) its output shows this within
                                            them; with url or expect a server is
                                            stopped a second after it is ready
    ... needs=mosquitto_sub                 (run, serve) a program it needs: without
                                            it the block is skipped, saying which
    <!-- doc-test: parse: why not run -->   each command's arguments are checked
                                            by its own parser (croupier, python -m
                                            bench, ...), nothing runs
    <!-- doc-test: skip: why not run -->    not run (a Pi, root, a CA): bash -n only;
                                            the reason shows in pytest's summary

In a `console` block the commands are the lines after `$ `. `scripts/test`
(this suite itself) is never started from a block.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

SHELL = {"sh", "bash", "console"}
FENCE = re.compile(r"^( *)(`{3,}|~{3,})(.*)$")
MARKER = re.compile(r"^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
# The suite itself: run by CI's .ci/run, never from inside it.
SUITE = ("scripts/test", "make test")


class BlockError(Exception):
    """A block that is wrong as documentation: no language, a bad marker."""


@dataclass
class Marker:
    mode: str  # run | serve | parse | skip | config
    seconds: float = 0.0
    beside: bool = False
    url: str | None = None
    expect: str | None = None
    needs: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence, from 1
    lang: str
    body: str
    marker_text: str | None = None
    marker: Marker = field(init=False)

    def __post_init__(self) -> None:
        self.marker = parse_marker(self.marker_text, self.lang)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def commands(self) -> list[str]:
        """The block's commands, continuation lines joined, comments dropped."""
        lines = self.body.splitlines()
        if self.lang == "console":
            lines = [ln[2:] for ln in lines if ln.startswith("$ ")]
        out: list[str] = []
        pending = ""
        for raw in lines:
            if raw.rstrip().endswith("\\"):
                pending += raw.rstrip()[:-1] + " "
                continue
            line = (pending + raw).strip()
            pending = ""
            words = shlex.split(line, comments=True)
            if words:
                out.append(shlex.join(words))
        return out


def parse_marker(text: str | None, lang: str) -> Marker:
    if lang == "toml":
        if text is None or text == "config":
            return Marker("config")
        if text.startswith("skip:") and text[5:].strip():
            return Marker("skip", reason=text[5:].strip())
        raise BlockError(f"a toml block is 'config' or 'skip: <why>', not {text!r}")
    if lang not in SHELL:
        if text is not None:
            raise BlockError(f"a doc-test marker on a {lang} block: only shell and toml run")
        return Marker("none")
    if text is None or text == "run":
        return Marker("run")
    if text.startswith("run needs="):
        return Marker("run", needs=text[len("run needs="):].split(","))
    for mode in ("parse", "skip"):
        if text.startswith(mode + ":"):
            reason = text[len(mode) + 1:].strip()
            if not reason:
                raise BlockError(f"'{mode}:' needs the reason the block is not run")
            return Marker(mode, reason=reason)
    words = shlex.split(text)
    if words and words[0] == "serve":
        try:
            marker = Marker("serve", seconds=float(words[1]))
        except (IndexError, ValueError):
            raise BlockError(f"'serve' takes the seconds to run: {text!r}") from None
        for word in words[2:]:
            key, _, value = word.partition("=")
            if word == "beside":
                marker.beside = True
            elif key in ("url", "expect") and value:
                setattr(marker, key, value)
            elif key == "needs" and value:
                marker.needs = value.split(",")
            else:
                raise BlockError(f"unknown serve option {word!r} in {text!r}")
        return marker
    raise BlockError(f"unknown doc-test marker {text!r}: run, serve N, parse: why, skip: why")


def blocks(path: Path, shown: Path | None = None) -> list[Block]:
    """Every fenced block of a Markdown file, or BlockError naming each wrong one."""
    found, errors = scan(path, shown)
    if errors:
        raise BlockError("\n".join(errors))
    return found


def scan(path: Path, shown: Path | None = None) -> tuple[list[Block], list[str]]:
    """Every fenced block of a Markdown file, and what is wrong with the others.
    `shown`: the path to name the file by."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    errors: list[str] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3).strip()
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines):
            close = FENCE.match(lines[i])
            if close and close.group(2).startswith(fence) and not close.group(3).strip():
                break
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        else:
            errors.append(f"{shown or path}:{start + 1}: a fenced block that never closes")
        i += 1
        before = start - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        marker = MARKER.match(lines[before]) if before >= 0 else None
        lang = info.split()[0] if info else ""
        where = f"{shown or path}:{start + 1}"
        if not lang:
            errors.append(f"{where}: a fenced block without a language (sh, toml, text, ...)")
            continue
        try:
            found.append(Block(shown or path, start + 1, lang, "\n".join(body) + "\n",
                               marker.group(1) if marker else None))
        except BlockError as exc:
            errors.append(f"{where}: {exc}")
    return found, errors
