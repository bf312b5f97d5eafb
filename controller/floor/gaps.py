"""Per-table seq bookkeeping of the recorder: which events it holds, which are
missing, and when to ask the table for them again (`cmd/republish`).

Pure (no I/O, the caller passes the monotonic time), so the rules are tested
alone. Memory is a few numbers per table plus one pair per stretch held above
the first hole: a function of the gaps, not of the messages.

When to ask, by what shows the hole:
- a jump in `seq` (held 40, then 47): messages from one table arrive in
  order, so 41-46 were dropped; asked after `JUMP_GRACE`;
- the table's `state` (or an answer's `to_seq`) names a seq above the last
  one held: those may still be on their way behind a backlog, so asked only
  once the table's events have been quiet for `TAIL_GRACE`;
- a settled round whose outcome never came (a broker can drop one message
  and not its neighbours): asked after `TAIL_GRACE`.
A request names `from_seq` = the last seq held before the hole: the table sends
again every stream message from that event on, so an outcome or alert that sat
between it and the first missing event comes back too. While the hole shrinks
the recorder waits; when it does not, it asks again, less and less often.
"""

from __future__ import annotations

from dataclasses import dataclass, field

JUMP_GRACE = 0.5  # s
TAIL_GRACE = 2.0  # s
RETRY_FIRST = 5.0  # s after a request that made no progress
RETRY_MAX = 60.0  # s


@dataclass
class TableSeqs:
    table: str
    contiguous: int = 0  # every seq 1..contiguous is held (or recorded lost)
    held: list[list[int]] = field(default_factory=list)  # [first, last] above, sorted
    top: int = 0  # the highest seq the table has said it has (events, state, answers)
    last_event_at: float = 0.0
    hole_since: float | None = None
    outcome_due: dict[int, float] = field(default_factory=dict)  # event seq -> since
    oldest_kept: int = 0  # the table said it keeps nothing older (a refused request)
    asked_at: float | None = None
    asked_contiguous: int = -1
    retry: float = RETRY_FIRST

    @property
    def highest(self) -> int:
        return self.held[-1][1] if self.held else self.contiguous

    def hold(self, seq: int, now: float) -> None:
        """An events seq now committed to the database."""
        self.last_event_at = now
        self.top = max(self.top, seq)
        if seq <= self.contiguous:
            return
        held = self.held
        i = 0
        while i < len(held) and held[i][1] < seq - 1:
            i += 1
        if i < len(held) and held[i][0] <= seq + 1:
            first, last = held[i]
            if first <= seq <= last:
                return
            held[i] = [min(first, seq), max(last, seq)]
            if i + 1 < len(held) and held[i + 1][0] <= held[i][1] + 1:  # bridged two
                held[i][1] = held.pop(i + 1)[1]
        else:
            held.insert(i, [seq, seq])
        self.advance()
        if self.held and self.hole_since is None:
            self.hole_since = now  # a jump: the grace runs from its first sight

    def lose(self, last: int) -> list[tuple[int, int]]:
        """Everything up to `last` that is not held is gone (the table no longer keeps
        it): those holes are closed as losses, returned as [first, last] ranges."""
        closed: list[tuple[int, int]] = []
        if last <= self.contiguous:
            return closed
        start = self.contiguous + 1
        for a, b in self.held:
            if a > last:
                break
            if a > start:
                closed.append((start, a - 1))
            start = b + 1
        if start <= last:
            closed.append((start, last))
        self.contiguous = last
        self.held = [[max(a, last + 1), b] for a, b in self.held if b > last]
        self.advance()
        return closed

    def advance(self) -> None:
        while self.held and self.held[0][0] <= self.contiguous + 1:
            self.contiguous = max(self.contiguous, self.held.pop(0)[1])

    def seen_top(self, seq: int) -> None:
        """The table says its stream reached `seq` (its `state`, an answer's to_seq)."""
        self.top = max(self.top, seq)

    def settled(self, seq: int, now: float) -> None:
        """A round_settled or round_voided event at `seq`: its outcome is due."""
        self.outcome_due.setdefault(seq, now)

    def outcome(self, seq: int) -> None:
        self.outcome_due.pop(seq, None)

    def missing(self) -> tuple[int, int] | None:
        """The first hole, [first, last], if any."""
        end = self.held[0][0] - 1 if self.held else self.top
        return (self.contiguous + 1, end) if end > self.contiguous else None

    def ask(self, now: float) -> int | None:
        """The from_seq to request now, or None."""
        if self.missing() is None and not self.outcome_due:
            self.hole_since = self.asked_at = None
            self.retry = RETRY_FIRST
            return None
        from_seq = self.wanted(now)
        if from_seq is None:
            return None
        if self.asked_at is not None:
            if self.contiguous > self.asked_contiguous:  # it is coming: wait
                self.asked_at, self.asked_contiguous = now, self.contiguous
                self.retry = RETRY_FIRST
                return None
            if now - self.asked_at < self.retry:
                return None
            self.retry = min(self.retry * 2, RETRY_MAX)
        self.asked_at, self.asked_contiguous = now, self.contiguous
        return from_seq

    def wanted(self, now: float) -> int | None:
        """The from_seq the holes call for now (the timing rules above), or None."""
        hole = self.missing()
        wanted: list[int] = []
        if hole is not None:
            if self.hole_since is None:
                self.hole_since = now
            jump = bool(self.held)
            quiet = now - self.last_event_at >= TAIL_GRACE
            if (jump and now - self.hole_since >= JUMP_GRACE) or (not jump and quiet):
                wanted.append(max(1, hole[0] - 1, self.oldest_kept))
        else:
            self.hole_since = None
        late = [seq for seq, since in self.outcome_due.items() if now - since >= TAIL_GRACE]
        if late:
            wanted.append(min(late))
        return min(wanted) if wanted else None
