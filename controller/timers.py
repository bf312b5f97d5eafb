"""The service loop's timers, Klipper-reactor style: each returns the delay to its
next run, or None to stop."""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Callable

Timer = Callable[[], float | None]


class Timers:
    def __init__(self, busy: Callable[[], bool]) -> None:
        """`busy`: records wait on the loop's queue (they are taken before more timers)."""
        self.busy = busy
        self._heap: list[tuple[float, int, Timer, bool]] = []  # due, order, timer, settled
        self._order = itertools.count()

    def every(self, delay: float, timer: Timer, settled: bool = False) -> None:
        """Run `timer` in the loop after `delay` s, then again after the delay it returns.

        `settled`: it acts on the table (a bot), so it waits until every journaled
        batch is applied, and its runs are a function of the input alone."""
        heapq.heappush(self._heap, (time.monotonic() + delay, next(self._order), timer, settled))

    def run(self, waiting: bool = False) -> float:
        """Run the timers that are due; the seconds until the next one. `waiting`: a
        journaled batch waits for its sync, so settled timers wait too."""
        now = time.monotonic()
        later = []
        while self._heap and self._heap[0][0] <= now:
            entry = heapq.heappop(self._heap)
            _, _, timer, settled = entry
            if settled and waiting:
                later.append(entry)
                continue
            delay = timer()
            if delay is not None:
                heapq.heappush(self._heap, (now + delay, next(self._order), timer, settled))
            if self.busy():
                break  # a timer's records are taken before the next timer runs
        for entry in later:
            heapq.heappush(self._heap, entry)
        if self.busy():
            return 0.0
        due = [t[0] for t in self._heap if not (t[3] and waiting)]
        if not due:
            return 0.5
        return max(0.0, min(0.5, min(due) - time.monotonic()))
