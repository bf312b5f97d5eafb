"""The vision benchmark's timing (bench/vision.py): its passes."""

from __future__ import annotations

import cv2

from bench.vision import Tally, decks, run_deck, steal_ticks


def test_each_frame_is_read_in_every_pass_and_keeps_its_least_time() -> None:
    """With passes, every reader reads each frame once a pass: its first
    read's time is kept, and beside it the least of its passes, which is no
    more than the first. The reads themselves are counted once."""
    cv2.setNumThreads(1)
    (deck, faces), = decks(["house"]).values()
    tallies = run_deck("house", deck, faces, frames=3, seed=5, frame_mode=False, passes=2)
    for tally in tallies.values():
        assert tally.correct + tally.wrong + tally.rejected == 3
        assert len(tally.times) == len(tally.least) == 3
        assert all(0.0 < low <= first for low, first in zip(tally.least, tally.times, strict=True))
        assert tally.stolen is not None and tally.stolen >= 0.0  # Linux: /proc/stat says
    line = tallies["calibrated"].line("house / calibrated")
    assert line.count("|") == 10  # p50 and p99 of the least times after those of the first


def test_one_pass_keeps_no_least_time() -> None:
    tally = Tally()
    tally.add("AS", "AS", 0.002)
    tally.add("KH", None, 0.003)
    assert tally.least == [] and tally.line("a / b").count("|") == 8


STAT = """cpu  501950 73 13140 637651 608 0 549 3240 0 0
cpu0 44197 55 7788 523535 109 0 271 1811 0 0
cpu1 457752 18 5351 114116 499 0 278 1428 0 0
cpu12 10 0 0 10 0 0 0 7 0 0
intr 1234 5 6 7 8 9 10 11 12
ctxt 99
"""


def test_steal_is_counted_on_the_cpus_the_benchmark_runs_on() -> None:
    """The steal column (the eighth number) of each listed CPU, not the
    machine's total line nor other counters."""
    assert steal_ticks(STAT, {1}) == 1428
    assert steal_ticks(STAT, {0, 1}) == 1811 + 1428
    assert steal_ticks(STAT, {12}) == 7  # cpu12 is not cpu1
    assert steal_ticks(STAT, {2}) == 0
    # A kernel older than steal accounting has fewer columns: none counted.
    assert steal_ticks("cpu0 1 2 3 4 5 6 7\n", {0}) == 0
