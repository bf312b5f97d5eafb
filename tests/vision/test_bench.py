"""The vision benchmark's timing (bench/vision.py): its passes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from bench.vision import Tally, decks, run_deck, steal_ticks
from bench.vision_oof import Scene


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
        # The thread's CPU time of a read is within its wall time, give or take
        # the two clocks' disagreement: on a virtual machine a thread moved to
        # another vCPU can find its CPU clock a little ahead (CI saw over 0.1 ms
        # in one read; reads here take milliseconds).
        assert len(tally.cpu) == 3
        assert all(0.0 < c <= t + 2e-3 for c, t in zip(tally.cpu, tally.times, strict=True))
        assert tally.stolen is not None and tally.stolen >= 0.0  # Linux: /proc/stat says
    line = tallies["calibrated"].line("house / calibrated")
    assert line.count("|") == 12  # p50 and p99 of the least times after those of the first


def test_one_pass_keeps_no_least_time() -> None:
    tally = Tally()
    tally.add("AS", "AS", 0.002, 0.002)
    tally.add("KH", None, 0.003, 0.003)
    assert tally.least == [] and tally.line("a / b").count("|") == 10


def test_wall_and_cpu_times_are_reported_apart() -> None:
    """A read the host stalled is slow by the wall clock and not by its
    CPU time: the line gives each its own p50 and p99."""
    tally = Tally()
    for _ in range(98):
        tally.add("AS", "AS", 0.002, 0.002)
    for _ in range(2):  # the slowest 2 %: 6 ms of each read's time stolen by the host
        tally.add("AS", "AS", 0.009, 0.003)
    cells = [c.strip() for c in tally.line("a / b").split("|")]
    p50, p99, cpu50, cpu99 = (float(c) for c in cells[6:10])
    assert (p50, p99, cpu50, cpu99) == (2.0, 9.0, 2.0, 3.0)


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


def test_the_tail_groups_frames_by_the_corners_read() -> None:
    """bench.vision_tail: every frame is in one group, as many counted
    among the slowest as the share asks, and each group's corners are those
    read_still reads (a still of one card: at least its corner from the
    card's edges)."""
    from bench.vision_tail import corner_sources, tail
    from calibration.deck import calibrate_cards
    from drivers.vision.shoe import ShoeGeometry
    from sim.camera.shoe import ShoeCamera

    cv2.setNumThreads(1)
    (deck, faces), = decks(["house"]).values()
    model = calibrate_cards(faces, deck="house").model()
    cam = ShoeCamera(deck, seed=3)
    frames = [cam.still(code) for code in ("AS", "KH", "7D", "TC") * 15]
    geometry = ShoeGeometry()
    groups = tail(frames, model, geometry, share=0.1)
    assert sum(n for _, n, _, _, _ in groups) == 60
    assert sum(slow for _, _, slow, _, _ in groups) == 6
    assert all(0.0 < p50 <= p99 for _, _, _, p50, p99 in groups)
    assert all("edges" in corner_sources(f, model, geometry) for f in frames)


def test_the_slowest_frames_are_counted_by_card() -> None:
    """bench.vision_tail.slowest_cards: the cards of the slowest share of
    the frames, most first, each beside its count among all frames."""
    import numpy as np

    from bench.vision_tail import slowest_cards

    times = np.array([1.0, 9.0, 2.0, 8.0, 7.0, 3.0, 1.5, 2.5, 1.2, 6.5])
    cards = ["AS", "KS", "AS", "KS", "KC", "KS", "KC", "AS", "AS", "2D"]
    assert slowest_cards(times, cards, share=0.4) == [("KS", 2, 3), ("KC", 1, 2), ("2D", 1, 1)]
    assert slowest_cards(times, cards, share=0.01) == [("KS", 1, 3)]


def _scene(truth: str, corners: list[tuple[int, str, float, float, str]],
           whole: dict[int, float] | None = None) -> Scene:
    """A table scene of corners (outline, best card, rank and suit
    probability, how it was placed), each card's three card widths (of
    100 px) from the last's; `whole`: the outlines of one whole card, all
    in one place, and their widths."""
    from drivers.vision.corner import CornerPose
    from drivers.vision.frame import Seen
    from drivers.vision.outline import Corner
    from drivers.vision.reader import CornerRead

    codes = sorted({c[1] for c in corners})
    placed = []
    for k, (region, card, _, _, source) in enumerate(corners):
        x = 100.0 + 300.0 * codes.index(card) if region == -1 else 100.0
        pose = CornerPose((x, 100.0), (1.0, 0.0), (0.0, 1.0), source)
        placed.append((k, Corner((x, 100.0), (1.0, 0.0), (0.0, 1.0), (100.0, 140.0), region),
                       pose))
    box = np.array([[[80, 80]], [[200, 80]], [[200, 250]], [[80, 250]]], np.int32)
    regions = {r: box for r in (whole or {})}
    found = Seen(regions, dict(whole or {}), 100.0, placed, {})
    sure = [CornerRead(card, pr * ps, card, (pr * ps, pr, ps), True)
            for _, card, pr, ps, _ in corners]
    return Scene(truth, found, (60.0, 260.0), sure, [replace(r, card=None) for r in sure],
                 np.array([c[2] for c in corners]), np.array([c[3] for c in corners]),
                 np.array([c[4] == "ink" for c in corners]))


def test_the_shoe_thresholds_read_most_without_a_misread() -> None:
    """Of the points that read as much, the strictest is chosen."""
    from bench.vision_oof import outcome, tune

    records = {"a": [("AS", [("AS", 0.95, 0.95)]), ("4S", [("4S", 0.93, 0.95)]),
                     ("7H", [("7D", 0.90, 0.92)])]}
    assert outcome(records["a"], 0.5, 0.5) == (2, 1)
    assert tune(records, "shoe", outcome) == (0.93, 0.95)


def test_frame_mode_is_tuned_on_what_it_gathers() -> None:
    """The out-of-fold tune counts the cards frame mode itself gathers
    (drivers.vision.frame.gather) at each point: the corners of outlines
    and edges at theirs, those placed from ink at theirs, each tuned with
    the other held. A whole card whose corners disagree is no card (the
    count of corners alone took it for a misread)."""
    from bench.vision_oof import frame_outcome, tune_frame
    from drivers.vision.frame import INK_AGREE
    from drivers.vision.learned import LearnedThresholds

    lax = LearnedThresholds(0.5, 0.5)
    corners = [(-1, "4S", 0.93, 0.95, "edges")]
    corners += [(-1, "AS", 0.94, 0.95, "ink")] * INK_AGREE
    corners += [(-1, "7H", 0.90, 0.95, "ink")] * INK_AGREE
    scenes = {"a": [_scene("AS 4S", corners)]}
    assert frame_outcome(scenes["a"], lax, lax) == (2, 1)
    # (the inked 7 of hearts is refused only above its 0.90, the ace kept)
    assert tune_frame(scenes) == (LearnedThresholds(0.93, 0.95), LearnedThresholds(0.94, 0.95))
    disagree = _scene("AS", [(7, "AS", 0.95, 0.95, "outline"), (7, "4D", 0.93, 0.95, "outline")],
                      whole={7: 100.0})
    assert frame_outcome([disagree], lax, lax) == (0, 0)
    agree = _scene("AS", [(7, "AS", 0.95, 0.95, "outline"), (7, "AS", 0.93, 0.95, "outline")],
                   whole={7: 100.0})
    assert frame_outcome([agree], lax, lax) == (1, 0)


def test_the_photo_bench_accounts_for_every_card_of_a_photo() -> None:
    """bench.vision_photos on real photos (tests/data/photos): each card a
    photo holds is read or listed as missed, and the misses name it."""
    from bench.vision_photos import labels
    from bench.vision_photos import run as run_photos
    from drivers.vision.learned import learned_model

    folder = Path(__file__).resolve().parents[1] / "data" / "photos"
    truth = labels(folder)
    tally = run_photos(folder, learned_model(), limit=6, split="all")
    assert tally.photos == 6 and len(tally.times) == 6
    assert tally.right + len(tally.missed) == tally.cards
    for miss in tally.missed:
        name, card = miss.split(": ")
        assert card in truth[name]
