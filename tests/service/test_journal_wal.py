"""The journal's WAL stays bounded under a steady stream of commits: a PASSIVE
checkpoint alone never gets the WAL started again while commits keep coming
(`sim --speed max` grew it to gigabytes), so past a size the table's own
connection truncates it between two commits."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.journal import Store


def test_wal_is_truncated_while_commits_keep_coming(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Store, "WAL_LIMIT", 512 * 1024)
    store = Store(tmp_path, fsync=False)
    wal = tmp_path / "table.db-wal"
    record = {"type": "bet_seen", "box": 1, "amount": "10", "pad": "x" * 2000}
    largest = 0
    try:
        for _ in range(6000):  # about 12 MB of records, one commit each, back to back
            store.append([record])
            largest = max(largest, wal.stat().st_size)
    finally:
        store.close()
    assert store.last_seq == 6000
    # Bounded by the limit plus one commit, far under the 12 MB (over 100 MB in
    # frames) that a WAL never started again holds after these commits.
    assert largest < 1024 * 1024, largest
