"""What the shoe camera made of the cards the simulated dealer drew, and how
long each read card took from its first frame to its `events` message.

The camera thread says which card it rendered and what the reader read
(`count`) and when the first frame of each read card was shown (`seen`); the
service says which journal record a read became (`journaled`); a subscriber
says when the card's `events` message (whose `source` is that record's seq)
reached it (`published`). All times are `time.monotonic()` of one process.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from drivers.interfaces import CardRead


@dataclass
class CameraTally:
    # A read under the table's [cards] min_confidence is unreadable to the table (the
    # dealer is asked to key it in), whatever card the reader named: counted so here.
    min_confidence: float = 0.0
    dealt: int = 0
    read: int = 0  # read as the card it is
    unreadable: int = 0  # read as no card: the dealer was asked to key it in
    misread: int = 0  # read as another card, or a card that was not drawn
    missed: int = 0  # no read at all (the dealer keys it in unasked)
    latencies: list[float] = field(default_factory=list)  # seconds, read cards only
    _first: dict[int, float] = field(default_factory=dict)  # reader's frame -> first frame time
    _by_seq: dict[int, float] = field(default_factory=dict)  # journal seq -> first frame time
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def seen(self, frame: int, first_frame_at: float) -> None:
        with self._lock:
            self._first[frame] = first_frame_at

    def count(self, card: str, reads: list[tuple[str | None, float]]) -> None:
        """One drawn card and what the reader reported for its pass: (card, confidence)."""
        taken = [c if c is not None and conf >= self.min_confidence else None for c, conf in reads]
        with self._lock:
            if not taken:
                self.missed += 1
                return
            first, extra = taken[0], taken[1:]
            if first == card:
                self.read += 1
            elif first is None:
                self.unreadable += 1
            else:
                self.misread += 1
            # A second read in one pass: a card the shoe never gave, or a prompt for one.
            self.misread += sum(1 for c in extra if c is not None)
            self.unreadable += sum(1 for c in extra if c is None)

    def journaled(self, seq: int, record: object) -> None:
        """The service journaled `record` as `seq` (Service.on_record)."""
        if not isinstance(record, CardRead) or record.card is None or record.frame is None:
            return
        with self._lock:
            at = self._first.pop(record.frame, None)
            if at is not None:
                self._by_seq[seq] = at

    def published(self, source: int, at: float) -> None:
        """A card's `events` message made from journal record `source` arrived at `at`."""
        with self._lock:
            first = self._by_seq.pop(source, None)
            if first is not None:
                self.latencies.append(at - first)

    def percentiles(self) -> tuple[float, float] | None:
        with self._lock:
            if not self.latencies:
                return None
            p50, p99 = np.percentile(np.array(self.latencies), [50, 99])
        return float(p50), float(p99)

    def line(self) -> str:
        text = (
            f"camera: dealt {self.dealt} read {self.read} unreadable {self.unreadable} "
            f"misread {self.misread} missed {self.missed}"
        )
        p = self.percentiles()
        if p is None:
            return text + " latency -"
        return text + (
            f" latency p50 {p[0] * 1000:.0f} ms p99 {p[1] * 1000:.0f} ms"
            f" ({len(self.latencies)} cards, first frame to events message)"
        )
