"""Checks one documented block the way a reader would use it (see blocks.py),
in a sandbox: a fresh copy of the checkout's top level (symlinks; its own
./state) with the project's .venv, so the README can be followed top to
bottom without touching the work tree."""

from __future__ import annotations

import functools
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.docs.blocks import SUITE, Block

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# What a fresh clone has not: run state, caches, the venv (linked to this one).
NOT_COPIED = {".git", ".venv", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis",
              "build", "dist", "node_modules"}
PORTS = (1883, 9001, 8080)  # what the documented commands bind when run as written


# Where the programs the docs use come from (Debian), for the skip's reason.
PACKAGES = {"mosquitto_sub": "mosquitto-clients", "mosquitto": "mosquitto",
            "chromium": "chromium", "chromedriver": "chromium-driver"}


class DocFailed(AssertionError):
    pass


class CannotRun(Exception):
    """This machine cannot run the block as written (the reason is pytest's skip)."""


def sandbox(base: Path) -> Path:
    base.mkdir(parents=True, exist_ok=True)
    for entry in REPO.iterdir():
        name = entry.name
        if name in NOT_COPIED or name == "state" or name.startswith("state-") or \
                name.endswith(".egg-info"):
            continue
        (base / name).symlink_to(entry)
    # The venv's parts, not the venv: scripts/venv.sh reinstalls the project into
    # the venv it finds when pyproject.toml is newer than its stamp, and from the
    # sandbox that would point the developer's venv (its editable install, its
    # scripts' interpreter) at this throwaway tree. The sandbox's stamp is new.
    venv = base / ".venv"
    venv.mkdir()
    for part in Path(sys.prefix).iterdir():
        if part.name != ".installed":
            (venv / part.name).symlink_to(part)
    (venv / ".installed").touch()
    return base


def environment(block: Block | None = None) -> dict[str, str]:
    """A reader's shell. The README's reader has not activated the venv (its
    commands go through scripts/run); the docs' reader has `croupier` on PATH."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "CROUPIER_", "VIRTUAL_ENV"))
           and k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
    venv_bin = str(Path(sys.prefix) / "bin")
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != venv_bin]
    if block is None or block.path.name != "README.md":
        path.insert(0, venv_bin)
    env["PATH"] = os.pathsep.join(path)
    env["TERM"] = "xterm-256color"
    return env


@functools.cache
def netns() -> bool:
    """Whether a network namespace of our own can be had (unshare -rn)."""
    try:
        return subprocess.run(["unshare", "-rn", "true"], capture_output=True,
                              timeout=10, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _busy() -> list[int]:
    busy = []
    for port in PORTS:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                busy.append(port)
    return busy


def missing(block: Block) -> list[str]:
    return [p for p in block.marker.needs if shutil.which(p) is None]


def needs(block: Block) -> None:
    if gone := missing(block):
        raise CannotRun(", ".join(
            f"{p} is not installed (apt-get install {PACKAGES.get(p, p)})" for p in gone))


def venv_ready() -> None:
    """scripts/run sources scripts/venv.sh: with this venv installed it installs nothing."""
    if not (Path(sys.prefix) / ".installed").is_file():
        raise CannotRun(f"the tests do not run from the project's .venv ({sys.prefix}): "
                        "scripts/run would install one")


def runner(spec: dict[str, Any], timeout: float) -> dict[str, Any]:
    """tests.docs.runner in a network namespace of its own, else here if the
    documented ports are free."""
    command = [sys.executable, "-m", "tests.docs.runner"]
    if netns():
        command = ["unshare", "-rn", *command]
        spec["netns"] = True
    elif busy := _busy():
        raise CannotRun(f"ports {busy} are in use and no network namespace can be made "
                        "(unshare -rn): the block binds them as written")
    done = subprocess.run(command, input=json.dumps(spec).encode(), cwd=REPO,
                          capture_output=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise DocFailed(f"the runner failed: {done.stderr.decode(errors='replace')[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _suite_left_out(block: Block) -> list[str]:
    return [c for c in block.commands() if c not in SUITE]


def run_block(block: Block, cwd: Path) -> None:
    venv_ready()
    script = "\n".join(_suite_left_out(block)) + "\n"
    result = runner({"mode": "run", "cwd": str(cwd), "env": environment(block), "script": script,
                     "timeout": 300}, timeout=330)
    if not result["ok"]:
        raise DocFailed(f"{block.where}: {result['why']}\n{result['output'][-4000:]}")


def serve_blocks(group: list[Block], cwd: Path) -> dict[str, tuple[bool, str]]:
    """A serve block and the `beside` ones after it: {where: (ok, what went wrong)}."""
    venv_ready()
    spec = {"mode": "serve", "cwd": str(cwd), "env": environment(group[0]), "groups": [
        {"commands": _suite_left_out(b), "seconds": b.marker.seconds, "url": b.marker.url,
         "expect": b.marker.expect} for b in group]}
    logs = {p: p.read_text(errors="replace").count("\n") for p in cwd.glob("state*/croupier.log")}
    result = runner(spec, timeout=60 + sum(b.marker.seconds for b in group) + 30 * len(group))
    found = {b.where: (r["ok"], f"{r['why']}\n{r['output'][-4000:]}")
             for b, r in zip(group, result["groups"], strict=True)}
    # With its terminal view on, the table logs to <state>/croupier.log: no error there either.
    errors = [line for p in cwd.glob("state*/croupier.log")
              for line in p.read_text(errors="replace").splitlines()[logs.get(p, 0):]
              if '"level": "error"' in line or '"level": "critical"' in line]
    if errors:
        first = group[0].where
        found[first] = (False, found[first][1] + "\nerrors in the table's log:\n" +
                        "\n".join(errors[:10]))
    return found


def parse_block(block: Block, cwd: Path) -> None:
    for command in block.commands():
        done = subprocess.run([sys.executable, "-m", "tests.docs.parse_only",
                               *shlex.split(command)], cwd=cwd, capture_output=True, text=True,
                              env={**environment(), "PYTHONPATH": str(REPO)}, timeout=120,
                              check=False)
        if done.returncode != 0:
            raise DocFailed(f"{block.where}: `{command}`: its parser refuses it "
                            f"(exit {done.returncode}): {done.stderr[-2000:]}")


def syntax(block: Block) -> None:
    script = "\n".join(block.commands()) if block.lang == "console" else block.body
    done = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise DocFailed(f"{block.where}: not valid shell: {done.stderr}")


def check_config(block: Block, tmp: Path) -> None:
    """A config example as the reader uses it: `croupier check-config` on it."""
    path = tmp / f"{block.path.name}-{block.line}.toml"
    path.write_text(block.body, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "controller", "check-config", str(path)],
                          capture_output=True, text=True, env=environment(), timeout=60,
                          check=False)
    if done.returncode != 0:
        raise DocFailed(f"{block.where}: croupier check-config refuses it: "
                        f"{done.stdout}{done.stderr}")


def check_python(block: Block) -> None:
    try:
        compile(block.body, block.where, "exec")
    except SyntaxError as exc:
        raise DocFailed(f"{block.where}: not valid Python: {exc}") from None
