"""The journal's WAL stays bounded under a steady stream of commits: a PASSIVE
checkpoint alone never gets the WAL started again while commits keep coming
(`sim --speed max` grew it to gigabytes), so past a size the table's own
connection checkpoints it between two commits and has the next commit write it
from its start again, over the blocks the file already has (a sync then carries
no metadata), rather than truncating it."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.journal import Store


def test_wal_is_bounded_while_commits_keep_coming(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Store, "WAL_LIMIT", 512 * 1024)
    store = Store(tmp_path, fsync=False)
    wal = tmp_path / "table.db-wal"
    record = {"type": "bet_seen", "box": 1, "amount": "10", "pad": "x" * 2000}
    largest = 0
    after_limit: list[int] = []  # the file's size at each commit once it passed the limit
    try:
        for _ in range(6000):  # about 12 MB of records, one commit each, back to back
            store.append([record])
            size = wal.stat().st_size
            largest = max(largest, size)
            if largest > Store.WAL_LIMIT:
                after_limit.append(size)
    finally:
        store.close()
    assert store.last_seq == 6000
    # Bounded by the limit plus one commit, far under the 12 MB (over 100 MB in
    # frames) that a WAL never started again holds after these commits.
    assert largest < 1024 * 1024, largest
    # Started again over itself: once past the limit the file is cut back to the limit
    # at most, never truncated (its blocks stay allocated for the commits after).
    assert len(after_limit) > 5000
    assert min(after_limit) >= Store.WAL_LIMIT, min(after_limit)
