"""The state dir's disk: free space in `status` with a disk_low alarm before it is
full, and a reserve that a full disk gets back so the WAL can be emptied and the
table resume (issue 37: the WAL took the last free byte and the checkpoint that
would free it needed space itself). On a real tmpfs, as root can mount one."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from controller.journal import Store
from tests.pit.harness import PitTable
from tests.pit.test_faults import fill, small_disk


def status(table: PitTable) -> dict[str, object]:
    payload: dict[str, object] = json.loads(table.service.publisher.status())
    return payload


def test_status_shows_the_free_space_and_warns_before_the_disk_is_full(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as (disk, how):
        if how != "tmpfs":
            pytest.skip("needs a real small file system (tmpfs; root)")
        table = PitTable(disk / "state", state_options={"reserve_mb": 0, "min_free_mb": 256})
        try:
            first = status(table)
            disk_info = first["disk"]
            assert isinstance(disk_info, dict)
            assert disk_info["free_mb"] >= 2 and disk_info["alarm_below_mb"] == 0  # 4 MB / 10
            assert "alarms" not in first
            fill(disk / "filler", leave=100_000)
            table.service.publisher.disk_mb = 100  # as on a 100 MB disk: the alarm is below 10 MB
            table.service.publisher.check_disk()
            low = status(table)
            assert low["alarms"] == [
                {"kind": "disk_low", "message": "0 MB free on the state dir's disk (alarm below "
                 "10 MB): when it is full the table stops taking input"}
            ]
        finally:
            table.stop()


def test_a_full_disk_gives_back_the_reserve_and_the_table_resumes(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as (disk, how):
        if how != "tmpfs":
            pytest.skip("needs a real small file system (tmpfs; root)")
        table = PitTable(disk / "state", state_options={"reserve_mb": 1}).run()
        try:
            reserve = disk / "state" / "reserve"
            assert not reserve.exists()  # taken a minute in, not at the start
            table.service.publisher.check_disk()  # (the minute's check, now)
            assert reserve.stat().st_size == 1 << 20
            fill(disk / "filler")  # everything but the reserve is taken
            table.fill_journal()
            assert not reserve.exists(), "the full disk did not get the reserve back"
            wal = disk / "state" / "table.db-wal"
            assert not wal.exists() or wal.stat().st_size < 1 << 20
            before = table.snapshot()
            table.bets.place(2, "20")  # held while the journal cannot commit
            (disk / "filler").unlink()
            deadline = time.monotonic() + 15
            while table.service.halted is not None:
                assert time.monotonic() < deadline, "the table did not resume"
                time.sleep(0.1)
            table.settle()
            assert table.snapshot() != before  # the held bet is journaled and applied
            table.service.publisher.check_disk()
            assert reserve.stat().st_size == 1 << 20  # held again, now there is room
        finally:
            table.stop()


def test_the_wal_restarts_well_before_it_could_take_the_disk(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as (disk, how):
        if how != "tmpfs":
            pytest.skip("needs a real small file system (tmpfs; root)")
        store = Store(disk / "state", fsync=False)
        try:
            for i in range(3000):
                store.append([{"kind": "note", "text": "x" * 200, "i": i}])
                wal = (disk / "state" / "table.db-wal").stat().st_size
                assert wal <= max(1 << 20, store.free_bytes() // 4) + 64 * 1024, (i, wal)
        finally:
            store.close()
