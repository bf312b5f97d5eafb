"""The fuzzing suite's long run: every input surface of the table, in turns, until
the time is up; cases per surface, crashes, tracebacks, wrong outcomes, hangs.

    python -m bench fuzz --minutes N [--surface NAME ...] [--seed S]

A case is one malformed input (bench/fuzz_gen.py) held to the documented outcome
(bench/fuzz_check.py). Counted:
- crash: an exception out of the code under test (in the product: a traceback
  from `croupier replay`, a table stopped by a pit request, a config check that
  dies instead of naming the problem);
- traceback: an exception the product logged with its traceback while taking the
  input (caught by a last-resort guard: survived, but a bug);
- wrong outcome: no crash, but not the documented answer (exit 2 without
  `line N: why`, a malformed request answered ok, a refusal that changed the table);
- hang: a case that took longer than --hang seconds (interrupted at 4 times that).
Exit status 1 when any of these is not 0. The pit surface runs against one table
for the whole run; at the end its journal is checked for malformed requests.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import platform
import signal
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from bench import fuzz_check as check
from bench import fuzz_gen as gen
from bench import fuzz_vision as vision

BATCH = 200  # cases per turn of one surface


@dataclass
class Tally:
    cases: int = 0
    accepted: int = 0
    refused: int = 0
    crashes: int = 0
    tracebacks: int = 0
    wrong: int = 0
    hangs: int = 0
    slowest_ms: float = 0.0
    harness: int = 0  # turns hypothesis itself ended early (not the product's doing)
    seconds: float = 0.0
    examples: list[str] = field(default_factory=list)

    def note(self, what: str, case: Any, detail: str) -> None:
        if len(self.examples) < 5:
            self.examples.append(f"{what}: {repr(case)[:300]}\n    {detail[-800:]}")


class Hang(BaseException):
    """Raised by the alarm in a case that would not end (BaseException: no check catches it)."""


class LoggedTracebacks(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.count += 1


@contextlib.contextmanager
def alarm(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: object) -> None:
        raise Hang()

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def surfaces(desk: check.PitDesk, display: check.Display) -> dict[
    str, tuple[st.SearchStrategy[Any], Callable[..., str]]
]:
    return {
        "round script (croupier replay)": (gen.round_scripts(), check.check_replay),
        "pit request (parse)": (gen.pit_requests(), check.check_request),
        "pit request (running table)": (gen.pit_requests(), desk.check),
        "config file": (st.just(gen.CONFIG).flatmap(gen.mutated_toml), check.check_config),
        "rule profile": (
            st.sampled_from(gen.profile_texts()).flatmap(gen.mutated_toml),
            check.check_profile,
        ),
        "scale calibration": (gen.calibration_files(), check.check_calibration),
        "vision calibration file": (
            vision.vision_calibration_files(),
            vision.check_vision_calibration,
        ),
        "serial lines (shoe, keypad, load cells)": (gen.device_streams(), check.check_device),
        "display server request": (gen.http_requests(), display.check),
    }


def turn(
    tally: Tally,
    strategy: st.SearchStrategy[Any],
    oracle: Callable[..., str],
    logged: LoggedTracebacks,
    run_seed: int,
    hang_s: float,
) -> None:
    @seed(run_seed)
    @settings(
        max_examples=BATCH,
        deadline=None,
        database=None,
        phases=[Phase.generate],  # count every case once; nothing to shrink (none raise)
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def one(case: Any) -> None:
        before = logged.count
        start = time.perf_counter()
        hung = False
        try:
            with alarm(hang_s * 4):
                outcome = oracle(*case) if isinstance(case, tuple) else oracle(case)
            setattr(tally, outcome, getattr(tally, outcome) + 1)
        except check.Violation as exc:
            tally.wrong += 1
            tally.note("wrong outcome", case, str(exc))
        except Hang:
            hung = True
            tally.hangs += 1
            tally.note("hang", case, "interrupted")
        except Exception:
            tally.crashes += 1
            tally.note("crash", case, traceback.format_exc())
        took = time.perf_counter() - start
        tally.cases += 1
        tally.seconds += took
        tally.slowest_ms = max(tally.slowest_ms, took * 1000)
        if took > hang_s and not hung:
            tally.hangs += 1
            tally.note("hang", case, f"{took:.1f} s")
        if logged.count > before:
            tally.tracebacks += logged.count - before
            tally.note("logged traceback", case, "")

    try:
        one()
    except Exception as exc:  # hypothesis's own complaint (e.g. about the generator): next turn
        tally.harness += 1
        tally.note("harness", type(exc).__name__, str(exc)[:300])


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bench fuzz", description=__doc__)
    p.add_argument("--minutes", type=float, default=1.0)
    p.add_argument("--surface", action="append", help="only these (a word of the name)")
    p.add_argument("--seed", type=int, default=37)
    p.add_argument("--hang", type=float, default=5.0, help="seconds that make a case a hang")
    args = p.parse_args(argv)

    logged = LoggedTracebacks()
    logging.getLogger().addHandler(logged)
    logging.getLogger("croupier").setLevel(logging.ERROR)  # refusals are logged: not news
    desk, display = check.PitDesk(), check.Display()
    try:
        chosen = {
            name: pair
            for name, pair in surfaces(desk, display).items()
            if not args.surface or any(word in name for word in args.surface)
        }
        tallies = {name: Tally() for name in chosen}
        end = time.monotonic() + args.minutes * 60
        n = 0
        while time.monotonic() < end:
            for name, (strategy, oracle) in chosen.items():
                if time.monotonic() >= end and n:
                    break
                turn(tallies[name], strategy, oracle, logged, args.seed + n, args.hang)
                n += 1
        journaled = desk.journal_is_clean() if "pit request (running table)" in chosen else 0
        alive = desk.service.halted is None
    finally:
        desk.close()
        display.close()

    started = datetime.now(UTC).strftime("%Y-%m-%d")
    print(f"fuzz: {args.minutes:g} min, seed {args.seed}, {started}, {platform.machine()} "
          f"{platform.python_version()}")
    print("| surface | cases | accepted | refused | crashes | tracebacks | wrong | hangs "
          "| slowest ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, t in tallies.items():
        print(f"| {name} | {t.cases:,} | {t.accepted:,} | {t.refused:,} | {t.crashes} | "
              f"{t.tracebacks} | {t.wrong} | {t.hangs} | {t.slowest_ms:.0f} |")
    total = sum(t.cases for t in tallies.values())
    bad = sum(t.crashes + t.tracebacks + t.wrong + t.hangs for t in tallies.values())
    print(f"total {total:,} cases; crashes, tracebacks, wrong outcomes, hangs: {bad}")
    print(f"the table after the run: {'running' if alive else 'halted'}; pit commands in its "
          f"journal: {journaled}, every one a well-formed request")
    harness = {name: t.harness for name, t in tallies.items() if t.harness}
    if harness:
        print(f"turns cut short by hypothesis itself (generator, not product): {harness}")
    for name, t in tallies.items():
        for example in t.examples:
            print(f"[{name}] {example}")
    return 1 if bad or not alive else 0
