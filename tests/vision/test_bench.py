"""The vision benchmark's timing (bench/vision.py): its passes."""

from __future__ import annotations

import cv2

from bench.vision import Tally, decks, run_deck


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
    line = tallies["calibrated"].line("house / calibrated")
    assert line.count("|") == 10  # p50 and p99 of the least times after those of the first


def test_one_pass_keeps_no_least_time() -> None:
    tally = Tally()
    tally.add("AS", "AS", 0.002)
    tally.add("KH", None, 0.003)
    assert tally.least == [] and tally.line("a / b").count("|") == 8
