"""Runs a documented command as a reader would, and reports what happened.

`python -m tests.docs.runner < SPEC.json` prints one JSON result. The tests
start it under `unshare -rn` (a network namespace of its own, with only a
loopback), so the commands bind the ports the docs name (1883, 9001, 8080)
whatever else runs on the machine, and nothing they do leaves it.

SPEC: {"cwd", "env", "mode": "run", "script", "timeout"} or
{"cwd", "env", "mode": "serve", "groups": [{"commands", "seconds", "url",
"expect"}]}.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import signal
import socket
import struct
import subprocess
import sys
import termios
import threading
import time
import urllib.request
from typing import Any

STOPPED = (0, 130, -signal.SIGINT)  # what a Ctrl-C may end with
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def loopback_up() -> None:
    """A new network namespace's loopback is down: bring it up (SIOCSIFFLAGS)."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        asked = fcntl.ioctl(s, siocgifflags, struct.pack("16sh", b"lo", 0))
        flags = struct.unpack("16sh", asked)[1]
        if not flags & iff_up:
            fcntl.ioctl(s, siocsifflags, struct.pack("16sh", b"lo", flags | iff_up))


def run(spec: dict[str, Any]) -> dict[str, Any]:
    try:
        done = subprocess.run(
            ["bash", "-c", "set -euo pipefail\n" + spec["script"]], cwd=spec["cwd"],
            env=spec["env"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, timeout=spec["timeout"], check=False)
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode(errors="replace")
        return {"ok": False, "why": f"still running after {spec['timeout']} s", "output": out}
    out = done.stdout.decode(errors="replace")
    if done.returncode != 0:
        return {"ok": False, "why": f"exit status {done.returncode}", "output": out}
    if "Traceback (most recent call last)" in out:
        return {"ok": False, "why": "a traceback in its output", "output": out}
    return {"ok": True, "output": out}


class Terminal:
    """One command in a terminal of its own: a pty 120 x 40, read all along."""

    def __init__(self, command: str, cwd: str, env: dict[str, str]) -> None:
        self.command = command
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.proc = subprocess.Popen(["bash", "-c", command], cwd=cwd, env=env, stdin=slave,
                                     stdout=slave, stderr=slave, start_new_session=True)
        os.close(slave)
        self.master = master
        self.out = bytearray()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.out += chunk

    def text(self) -> str:
        return self.out.decode(errors="replace")

    def plain(self) -> str:
        """The text without the terminal's colours and cursor moves."""
        return ANSI.sub("", self.text())

    def ctrl_c(self) -> int | None:
        """Ctrl-C as a terminal sends it (to the foreground process group)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
        try:
            return self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            return None


def _fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:  # loopback only
            return None if r.status == 200 else f"{url} answered {r.status}"
    except OSError as exc:
        return f"{url}: {exc}"


def serve(spec: dict[str, Any]) -> dict[str, Any]:
    """Each block of the group in turn, beside the ones before; then Ctrl-C to
    all, the last started first. Problems and output per block."""
    started: list[list[Terminal]] = []
    problems: list[list[str]] = []
    for group in spec["groups"]:
        terms = [Terminal(c, spec["cwd"], spec["env"]) for c in group["commands"]]
        started.append(terms)
        problems.append([])
        # Ready: its page answers and its output says so, within the seconds
        # given; then a second more. Without either it simply runs that long.
        deadline = time.monotonic() + group["seconds"]
        waiting = [w for w in ("url", "expect") if group.get(w)]
        while waiting and time.monotonic() < deadline:
            if group.get("url") and _fetch(group["url"]) is None and "url" in waiting:
                waiting.remove("url")
            if "expect" in waiting and any(group["expect"] in t.plain() for t in terms):
                waiting.remove("expect")
            if any(t.proc.poll() not in (None, 0) for t in terms):
                break
            time.sleep(0.2)
        time.sleep(1.0 if group.get("url") or group.get("expect") else
                   max(0.0, deadline - time.monotonic()))
        for t in terms:
            status = t.proc.poll()
            if status is not None and status != 0:
                problems[-1].append(f"`{t.command}` ended with exit status {status} "
                                    "before it was stopped")
        if "url" in waiting:
            problems[-1].append(f"not answering in {group['seconds']} s: {_fetch(group['url'])}")
        if "expect" in waiting:
            problems[-1].append(f"nothing printed {group['expect']!r} in {group['seconds']} s")
    for n in reversed(range(len(started))):
        for t in reversed(started[n]):
            status = t.ctrl_c()
            if status is None:
                problems[n].append(f"`{t.command}` did not stop on Ctrl-C (killed after 20 s)")
            elif status not in STOPPED:
                problems[n].append(f"`{t.command}` stopped on Ctrl-C with exit status {status}")
    for n, terms in enumerate(started):
        for t in terms:
            t.reader.join(timeout=2)
            if "Traceback (most recent call last)" in t.text():
                problems[n].append(f"`{t.command}` printed a traceback")
    return {"groups": [
        {"ok": not p, "why": "; ".join(p),
         "output": "\n".join(f"$ {t.command}\n{t.text()[-3000:]}" for t in terms)}
        for p, terms in zip(problems, started, strict=True)]}


def main() -> None:
    spec = json.load(sys.stdin)
    if spec.get("netns"):
        loopback_up()
    result = run(spec) if spec["mode"] == "run" else serve(spec)
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
