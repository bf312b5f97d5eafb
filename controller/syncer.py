"""Journal syncs off the table's loop.

The loop journals a batch of input records (a WAL commit without fsync), asks
for a sync and goes on: it takes, journals and publishes while the disk
flushes. It applies a batch only when a sync that began after the batch's
commit has returned (`Synced`). What comes while a sync runs is covered by the
next one (group commit), so a slow disk costs a record at most the sync in
progress and its own, and the loop's own work (applying the batch before,
publishing) is no longer added on top.

One thread: two would halve the wait on a disk that flushes requests in
parallel, but on one that flushes them in turn (an SD card) they queue behind
each other and the tail grows (docs/benchmarks.md, "Service").
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import NamedTuple

log = logging.getLogger("croupier.syncer")


class Synced(NamedTuple):
    upto: int  # every journal seq up to this one is durable


class SyncFailed(NamedTuple):
    upto: int  # the commits up to here may be lost (those before the last Synced are not)
    error: Exception  # the disk's OSError; anything else a fault of ours, not to go unsaid


class Syncer:
    """`request(seq)` after a commit; `sync` runs on the sync thread; `done` gets the
    answer (the loop's queue: it is called from that thread)."""

    def __init__(
        self, sync: Callable[[], None], done: Callable[[Synced | SyncFailed], None]
    ) -> None:
        self._sync = sync
        self._done = done
        self._wanted = 0  # the highest seq asked for
        self._claimed = 0  # the highest seq a sync has been started for
        self._closed = False
        self._lock = threading.Condition(threading.Lock())
        self._thread = threading.Thread(target=self._work, name="journal-sync", daemon=True)
        self._thread.start()

    def request(self, upto: int) -> None:
        with self._lock:
            if upto > self._wanted:
                self._wanted = upto
                self._lock.notify()

    def close(self) -> None:
        """Stop the thread once the syncs asked for are done. No time limit: the store
        closes after this, and a sync still running would flush a descriptor closed, or
        already another file's (a sync that never returns: systemd's stop timeout)."""
        with self._lock:
            self._closed = True
            self._lock.notify_all()
        self._thread.join()

    def _work(self) -> None:
        while True:
            with self._lock:
                while self._wanted <= self._claimed and not self._closed:
                    self._lock.wait()
                if self._wanted <= self._claimed:
                    return  # closed, nothing left to sync
                # Everything asked for so far is covered by this one sync: requests
                # that come while it runs share the next one.
                upto = self._claimed = self._wanted
            try:
                self._sync()
            except Exception as exc:  # a dead thread would leave the loop waiting for ever
                log.critical("the journal's sync failed: %s", exc)
                self._done(SyncFailed(upto, exc))
            else:
                self._done(Synced(upto))
