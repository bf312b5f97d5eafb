"""Vision benchmark: accuracy and speed of the card reader on perturbed
shoe-camera frames, against the classic baseline on the same frames.

    python -m bench.vision --frames 10000

For each deck (the two test decks and the project's own), frames are drawn
by the simulated shoe camera (seeded), each with one random card at a random
place on the ramp under random camera conditions (sim.camera.optics
OpticsRange defaults). Each frame is read on its own (no multi-frame
tracking, which only helps) by: the calibrated reader (deck calibration),
the calibrated reader (the corner network adapted to the deck by its
calibration), the uncalibrated reader (the corner network alone: these
decks are among those it learnt from; bench.vision_oof judges it out of
fold), and the baseline. Times are per
640x480 frame, one thread (cv2.setNumThreads(1)), rendering excluded: the
wall time of each read, and beside it the CPU time the read's thread was
given (time.thread_time), which on a virtual machine leaves out the time its
host ran something else (steal).
"""

from __future__ import annotations

import argparse
import difflib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from bench import vision_baseline
from calibration.deck import calibrate_cards, load_faces
from drivers.camera.source import CardSource
from drivers.vision.frame import CARD_H, CARD_W, read_frame
from drivers.vision.learned import learned_model
from drivers.vision.shoe import ShoeGeometry, read_still
from sim.camera.decks import Deck, house_deck, load_deck
from sim.camera.shoe import ShoeCamera

DECKS_DIR = Path(__file__).resolve().parent.parent / "tests" / "data" / "decks"


@dataclass
class Tally:
    correct: int = 0
    wrong: int = 0
    rejected: int = 0
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # the first read's thread CPU time
    least: list[float] = field(default_factory=list)  # each frame's least of its passes
    wrong_examples: list[str] = field(default_factory=list)
    stolen: float | None = 0.0  # CPU seconds the host took from this reader's reads

    def add(self, truth: str, got: str | None, seconds: float, cpu: float,
            least: float | None = None) -> None:
        self.times.append(seconds)
        self.cpu.append(cpu)
        if least is not None:
            self.least.append(least)
        if got is None:
            self.rejected += 1
        elif got == truth:
            self.correct += 1
        else:
            self.wrong += 1
            if len(self.wrong_examples) < 5:
                self.wrong_examples.append(f"{truth}->{got}")

    def line(self, name: str) -> str:
        n = self.correct + self.wrong + self.rejected
        t, c = np.array(self.times) * 1000.0, np.array(self.cpu) * 1000.0
        return (
            f"| {name} | {n} | {100 * self.correct / n:.2f}% | {self.wrong} "
            f"({1e4 * self.wrong / n:.1f} per 10k) | {100 * self.rejected / n:.2f}% | "
            f"{np.percentile(t, 50):.2f} | {np.percentile(t, 99):.2f} | "
            f"{np.percentile(c, 50):.2f} | {np.percentile(c, 99):.2f} |"
            + (f" {np.percentile(np.array(self.least) * 1000.0, 50):.2f} | "
               f"{np.percentile(np.array(self.least) * 1000.0, 99):.2f} |" if self.least else "")
        )


def steal_ticks(stat: str, cpus: set[int]) -> int:
    """The steal time in /proc/stat's text (clock ticks) of the listed CPUs:
    the time a virtual machine's CPU was ready to run but its host ran
    something else. On a shared machine that is what makes some reads of
    one frame slow and others not (see run_deck)."""
    ticks = 0
    for line in stat.splitlines():
        fields = line.split()
        name = fields[0] if fields else ""
        if name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in cpus:
            ticks += int(fields[8]) if len(fields) > 8 else 0
    return ticks


def stolen_seconds() -> float | None:
    """Steal time so far of the CPUs this process may run on (seconds), or
    None where the system does not say (no /proc/stat)."""
    try:
        stat = Path("/proc/stat").read_text()
    except OSError:
        return None
    return steal_ticks(stat, set(os.sched_getaffinity(0))) / os.sysconf("SC_CLK_TCK")


def canonical(deck: Deck) -> dict[str, Any]:
    out = {}
    for code, face in deck.items():
        alpha = face[:, :, 3:4].astype(np.float32) / 255.0
        bgr = (face[:, :, :3] * alpha + 40.0 * (1.0 - alpha)).astype(np.uint8)
        out[code] = cv2.resize(bgr, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA)
    return out


def decks(names: list[str]) -> dict[str, tuple[Deck, dict[str, Any]]]:
    out = {}
    for name in names:
        if name == "house":
            deck = house_deck()
            out[name] = (deck, canonical(deck))
        else:
            out[name] = (load_deck(DECKS_DIR / name), load_faces(DECKS_DIR / name))
    return out


# Frames rendered at a time: each reader then reads them all in turn (see
# run_deck); 200 frames of 640x480 are 184 MB, far more than any cache.
CHUNK = 200


def run_deck(
    name: str,
    deck: Deck,
    faces: dict[str, Any],
    frames: int,
    seed: int,
    frame_mode: bool,
    interleaved: bool = False,
    passes: int = 1,
) -> dict[str, Tally]:
    """Read `frames` frames of the deck by each reader, timing each read.

    A shoe runs one reader, frame after frame, and each frame comes new
    from the camera. So the frames are rendered a chunk at a time (CHUNK,
    more than the caches hold, so each frame is read from memory as a new
    one is), and each reader reads the whole chunk in turn. `interleaved`:
    every reader reads each frame in turn, right after it is rendered (the
    method of the passes before the sixteenth): each read then follows the
    renderer's and the other readers' work, which evicts its model.

    `passes`: each reader reads the chunk this many times, pass after pass
    (each frame still comes from memory, after the rest of the chunk); a
    frame's first read is timed as always, and its least time over the
    passes is kept beside it: what the read itself costs, without the
    stalls a shared machine adds to some reads and not to others. Every
    pass must read the same card.

    Each first read's thread CPU time is kept too: a virtual machine's
    kernel does not count the time its host took the CPU (steal) as the
    thread's, so that is the read's cost on one core even where the host
    stalls it; its wall time is the one a shoe would wait."""
    cal = calibrate_cards(faces, deck=name).model()
    base = vision_baseline.train(faces)
    geo = ShoeGeometry()
    cam = ShoeCamera(deck, seed=seed)
    rng = np.random.default_rng(seed + 1)
    codes = sorted(deck)
    learned = learned_model()
    tallies = {k: Tally() for k in ("calibrated", "uncalibrated", "baseline", "frame mode")}
    readers: dict[str, Callable[[Any], str | None]] = {
        "calibrated": lambda f: read_still(f, cal, geo)[0],
        "uncalibrated": lambda f: read_still(f, learned, geo)[0],
        "baseline": base.read,
    }
    if frame_mode:
        readers["frame mode"] = lambda f: _one_card(read_frame(f, cal))
    else:
        del tallies["frame mode"]
    done = 0
    while done < frames:
        size = 1 if interleaved else min(CHUNK, frames - done)
        truths = [codes[int(rng.integers(len(codes)))] for _ in range(size)]
        chunk = [cam.still(truth) for truth in truths]
        for reader, read in readers.items():
            cards: list[str | None] = []
            times = np.full((passes, size), np.inf)
            cpu = np.zeros(size)
            stolen = stolen_seconds()
            for k in range(passes):
                for i, frame in enumerate(chunk):
                    c0, t0 = time.thread_time(), time.perf_counter()
                    card = read(frame)
                    times[k, i] = time.perf_counter() - t0
                    if k == 0:
                        cpu[i] = time.thread_time() - c0
                        cards.append(card)
                    elif card != cards[i]:
                        raise RuntimeError(f"{reader} read {cards[i]} then {card} in one frame")
            after, tally = stolen_seconds(), tallies[reader]
            tally.stolen = (None if stolen is None or after is None or tally.stolen is None
                            else tally.stolen + after - stolen)
            for i, truth in enumerate(truths):
                tally.add(truth, cards[i], float(times[0, i]), float(cpu[i]),
                          float(times[:, i].min()) if passes > 1 else None)
        done += size
    return tallies


def _one_card(found: list[Any]) -> str | None:
    card: str | None = found[0].card if len(found) == 1 else None
    return card


def run_shoe(name: str, deck: Deck, faces: dict[str, Any], seed: int, reader: str) -> str:
    """Deal a shuffled 6-deck shoe at 30 fps through CardSource; compare the
    reads with the dealt sequence (aligned, so one slip is not counted 300
    times). reader: calibrated (adapted to the deck) or uncalibrated."""
    model: Any = (calibrate_cards(faces, deck=name).model() if reader == "calibrated"
                  else learned_model())
    rng = np.random.default_rng(seed)
    shoe = [c for _ in range(6) for c in sorted(deck)]
    rng.shuffle(shoe)
    cam = ShoeCamera(deck, seed=seed, fps=30.0)
    frames = [f.image for f in cam.deal(shoe)]
    c0, t0 = time.thread_time(), time.perf_counter()
    got = [r.card for r in CardSource(model).reads(frames)]
    seconds, cpu = time.perf_counter() - t0, time.thread_time() - c0
    counts = {"right": 0, "unreadable": 0, "misread": 0, "extra": 0, "missed": 0}
    # One read per card: compare position by position. Otherwise align first
    # (an unreadable card never "matches", so only equal cards anchor it).
    ops = (
        [("replace", 0, len(shoe), 0, len(got))]
        if len(got) == len(shoe)
        else difflib.SequenceMatcher(a=shoe, b=got, autojunk=False).get_opcodes()
    )
    for op, a0, a1, b0, b1 in ops:
        if op == "equal":
            counts["right"] += a1 - a0
            continue
        pairs = min(a1 - a0, b1 - b0)
        for k in range(pairs):
            if got[b0 + k] == shoe[a0 + k]:
                counts["right"] += 1
            else:
                counts["unreadable" if got[b0 + k] is None else "misread"] += 1
        counts["missed"] += (a1 - a0) - pairs
        counts["extra"] += (b1 - b0) - pairs
    return (
        f"| {name} / {reader} | {len(shoe)} | {len(frames)} | {counts['right']} | "
        f"{counts['unreadable']} | {counts['misread']} | {counts['missed']} | "
        f"{counts['extra']} | {'yes' if got == shoe else 'no'} | "
        f"{1000 * seconds / len(frames):.2f} | {1000 * cpu / len(frames):.2f} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.vision", description=__doc__)
    parser.add_argument("--frames", type=int, default=10000, help="frames per deck")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--decks", nargs="+", default=["npm-svg-cards", "npm-cardsjs", "house"])
    parser.add_argument(
        "--frame-mode",
        action="store_true",
        help="also time frame mode (find the card anywhere, calibrated)",
    )
    parser.add_argument(
        "--shoe",
        action="store_true",
        help="also deal a whole 6-deck shoe per deck through CardSource",
    )
    parser.add_argument(
        "--interleaved",
        action="store_true",
        help="every reader reads each frame in turn as it is rendered (the method before "
        "the sixteenth pass; see run_deck)",
    )
    parser.add_argument(
        "--passes",
        type=int,
        default=1,
        help="each reader reads every chunk this many times; p50 and p99 of each frame's "
        "least time are reported beside those of its first read (see run_deck)",
    )
    args = parser.parse_args(argv)
    if args.passes < 1:
        parser.error("--passes must be at least 1")
    cv2.setNumThreads(1)
    loaded = decks(args.decks)
    if args.shoe:
        print(
            "| deck / reader | cards | frames | right | unreadable | misread | missed | extra "
            "| exact | ms/frame | CPU ms/frame |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for name, (deck, faces) in loaded.items():
            for reader in ("calibrated", "uncalibrated"):
                print(run_shoe(name, deck, faces, args.seed, reader), flush=True)
        print()
    if args.frames <= 0:
        return 0
    least = f" p50 ms, least of {args.passes} | p99 ms, least of {args.passes} |"
    print("| deck / reader | frames | correct | misread | rejected | p50 ms | p99 ms "
          "| p50 CPU ms | p99 CPU ms |" + (least if args.passes > 1 else ""))
    print("|---|---|---|---|---|---|---|---|---|" + ("---|---|" if args.passes > 1 else ""))
    for name, (deck, faces) in loaded.items():
        tallies = run_deck(
            name, deck, faces, args.frames, args.seed, args.frame_mode, args.interleaved,
            args.passes,
        )
        for reader, tally in tallies.items():
            print(tally.line(f"{name} / {reader}"), flush=True)
        for reader, tally in tallies.items():
            if tally.wrong_examples:
                print(f"<!-- {name} / {reader} misreads: {' '.join(tally.wrong_examples)} -->")
        stolen = [f"{reader} {t.stolen:.2f} s" for reader, t in tallies.items()
                  if t.stolen is not None]
        if stolen:
            print(f"<!-- {name}: CPU time the host stole during the reads: "
                  f"{', '.join(stolen)} -->", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
