"""The recorder's per-table seq bookkeeping, alone (controller.floor.gaps)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from controller.floor.gaps import JUMP_GRACE, RETRY_FIRST, TAIL_GRACE, TableSeqs


def test_in_order_seqs_leave_no_hole_and_ask_nothing() -> None:
    s = TableSeqs("T")
    for seq in range(1, 50):
        s.hold(seq, now=1.0)
    s.seen_top(49)
    assert (s.contiguous, s.held, s.missing()) == (49, [], None)
    assert s.ask(100.0) is None


def test_a_jump_is_asked_for_from_the_last_seq_held_after_its_grace() -> None:
    s = TableSeqs("T")
    for seq in (1, 2, 3, 7, 8):
        s.hold(seq, now=10.0)
    assert s.missing() == (4, 6)
    assert s.ask(10.0) is None  # it may still be reordering
    # From 3, not 4: the table sends again from that event on, so an outcome or alert
    # that sat between event 3 and the first missing one comes back too.
    assert s.ask(10.0 + JUMP_GRACE) == 3
    assert s.ask(10.0 + JUMP_GRACE + 1) is None  # asked: wait for it


def test_a_tail_hole_is_asked_for_only_once_the_table_is_quiet() -> None:
    s = TableSeqs("T")
    s.hold(1, now=0.0)
    s.seen_top(5)  # the table's state says 5: 2-5 may be behind a backlog
    assert s.ask(TAIL_GRACE / 2) is None
    assert s.ask(TAIL_GRACE) == 1


def test_progress_postpones_a_new_request_and_no_progress_backs_off() -> None:
    s = TableSeqs("T")
    s.hold(1, 0.0)
    s.hold(10, 0.0)
    assert s.ask(1.0) == 1
    s.hold(2, 1.5)  # the resend is coming
    assert s.ask(1.0 + RETRY_FIRST + 1) is None
    t = 1.0 + RETRY_FIRST + 1
    assert s.ask(t + RETRY_FIRST) == 2  # stalled: asked again from where it stands
    assert s.ask(t + 2 * RETRY_FIRST) is None  # and then less often
    assert s.ask(t + 3 * RETRY_FIRST) == 2


def test_an_outcome_that_never_came_is_asked_for_from_its_event() -> None:
    s = TableSeqs("T")
    for seq in range(1, 21):
        s.hold(seq, 0.0)
    s.settled(12, 0.0)
    s.settled(20, 0.0)
    s.outcome(20)
    assert s.ask(TAIL_GRACE) == 12


def test_a_loss_closes_the_hole_and_names_only_what_was_missing() -> None:
    s = TableSeqs("T")
    for seq in (1, 2, 5, 6, 9, 12):
        s.hold(seq, 0.0)
    assert s.lose(10) == [(3, 4), (7, 8), (10, 10)]
    assert (s.contiguous, s.held) == (10, [[12, 12]])
    s.oldest_kept = 11
    assert s.wanted(100.0) == 11  # never below what the table keeps


@given(st.lists(st.integers(1, 60), max_size=200))
def test_holdings_are_exactly_the_seqs_held(seqs: list[int]) -> None:
    s = TableSeqs("T")
    for seq in seqs:
        s.hold(seq, 0.0)
    held = set(range(1, s.contiguous + 1))
    for first, last in s.held:
        held |= set(range(first, last + 1))
    assert held == set(seqs)
    assert all(a[1] + 1 < b[0] for a, b in zip(s.held, s.held[1:], strict=False))
    assert not s.held or s.held[0][0] > s.contiguous + 1
