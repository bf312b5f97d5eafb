"""What the table says over MQTT: the outbox of stream messages and the retained slots.

Stream messages (events, alerts, answers to the pit) are committed to the
outbox (`store`) before anything is published; the retained topics
(`status`, `info`, `state`, the last outcome, surveillance snapshots) are
slots the pump always publishes at their newest. `publish` refreshes the
slots and hands everything to the pump (controller.outbox).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from typing import Any

from controller import wire
from controller.applier import Applier
from controller.config import Config
from controller.faults import CameraWatch
from controller.journal import Message, Store
from controller.outbox import Pump
from controller.view import TableView

log = logging.getLogger("croupier.service")

# A change is shown at once after a quiet spell; changes that follow within this time
# share one snapshot, published when it has passed (at most this late).
STATE_EVERY = 0.05  # seconds
ACKS_EVERY = 1.0  # seconds between commits of acknowledgements that came with no new message


class Publisher:
    def __init__(
        self,
        config: Config,
        store: Store,
        pump: Pump,
        applier: Applier,
        view: TableView,
        session: str,
        since: str,
    ) -> None:
        self.config = config
        self.store = store
        self.pump = pump
        self.applier = applier
        self.view = view  # its `halted` says whether the table takes input
        self.table_id = config.table.id
        self.session = session
        self.since = since  # when this run began (in `status`)
        self.disk_free_mb = store.free_bytes() >> 20  # in `status`; checked every minute
        self.disk_mb = store.disk_bytes() >> 20
        self.pending: list[tuple[int, Message]] = []  # (journal seq, message) to commit
        self.devices: list[dict[str, Any]] | None = None  # the drivers' health, for `status`
        self.camera: CameraWatch | None = None  # `state` says when cards are keyed in
        self.changed = True  # the table changed since the last `state` snapshot
        self.state_at = 0.0

    def status(self, state: str = "online") -> str:
        alarms = []
        halted = self.view.halted
        if halted is not None and state == "online":
            alarms = [{"kind": "journal", "message": f"the table takes no input: {halted}"}]
        # A tenth of the disk at most: a small disk (a test's tmpfs) is not low from the start.
        low = min(self.config.state.min_free_mb, self.disk_mb // 10)
        if state == "online" and self.disk_free_mb < low:
            alarms.append({"kind": "disk_low", "message": (
                f"{self.disk_free_mb} MB free on the state dir's disk (alarm below {low} MB): "
                "when it is full the table stops taking input"
            )})
        body = wire.status(state, self.session, self.table_id, self.since, self.devices, alarms)
        body["disk"] = {"free_mb": self.disk_free_mb, "alarm_below_mb": low}
        return wire.dumps(body)

    def check_disk(self) -> None:
        """Free space into `status` (rounded, so that it changes the topic now and then,
        not every minute), and the reserve held again when there is room."""
        try:
            free = self.store.free_bytes() >> 20
        except OSError:
            return
        shown = free if free < 1024 else free // 100 * 100
        if shown != self.disk_free_mb:
            self.disk_free_mb = shown
            self.pump.set_slot(wire.STATUS, self.status())
        if self.view.halted is None:
            self.store.keep_reserve()

    def store_pending(self, applied: int) -> str | None:
        """Commit the new stream messages, with the acks that came since the last commit,
        to the outbox (`applied`: the last journal seq they cover); why it cannot, else
        None (they stay in memory). Acks alone wait for `commit_acks`: an ack not yet
        marked costs a message sent again after a crash (the same id, as the contract
        allows), while a commit per PUBACK cost the loop a third of its time at 1,000
        records/s."""
        if not self.pending:
            return None
        try:
            self.store.add(self.pending, applied, self.pump.acked)
        except sqlite3.Error as exc:
            return f"the outbox cannot commit ({exc})"
        for _, m in self.pending:
            if m.topic == wire.ALERTS:
                alert = json.loads(m.payload)
                self.view.alerts.append(alert)
                log.warning("alert", extra={"kind": alert["kind"], "alert": alert["message"]})
        self.pending = []
        self.pump.acked = []
        return None

    def publish(self, snapshot: bool = False) -> None:
        """Refresh the snapshots and publish (the stream messages committed before).
        `snapshot`: now, not held back (tests and tools look at it right after)."""
        # The snapshot follows every change, but at most once per STATE_EVERY: building
        # and publishing it costs more than applying a card, and at a burst's pace one
        # per batch was half of what the loop and the broker did. The loop wakes up for
        # one held back (`Loop.iteration`).
        now = time.monotonic()
        if self.changed and (snapshot or now - self.state_at >= STATE_EVERY):
            self.changed = False
            self.state_at = now
            self._set_slots()
        self.pump.pump()
        self.view.seq = self.applier.stream.seq  # the bots see their progress at once
        self.view.connected = self.pump.connected
        self.view.backlog = self.pump.backlog()

    def set_devices(self, devices: list[dict[str, Any]]) -> None:
        """The drivers' health changed (from a timer in the loop): republish `status`."""
        if devices == self.devices:
            return
        self.devices = devices
        self.pump.set_slot(wire.STATUS, self.status())
        self.pump.pump()

    def refresh_info(self) -> None:
        table = self.view.table
        self.pump.set_slot(wire.INFO, wire.dumps(wire.info(table, self.table_id, self.session)))

    def set_first_slots(self) -> None:
        """On (re)connecting: the status and the table's set-up."""
        self.pump.set_slot(wire.STATUS, self.status())
        self.refresh_info()

    def _set_slots(self) -> None:
        table, stream = self.view.table, self.applier.stream
        seq = stream.seq
        extra: dict[str, Any] = {"awaiting_key": self.view.awaiting_key}
        if self.view.halted is not None:
            extra["halted"] = self.view.halted  # displays show the table stopped, and why
        if self.camera is not None and self.camera.stale:
            extra["camera_stale"] = True  # cards are keyed in on the panel meanwhile
        self.pump.set_slot(wire.STATE, wire.dumps(wire.state(table, self.table_id, seq, extra)))
        if stream.last_outcome is not None:
            self.pump.set_slot(wire.OUTCOME_LAST, wire.dumps(stream.last_outcome))
        if self.config.mqtt.surveillance:
            full = wire.surveillance_state(table, self.table_id, seq)
            self.pump.set_slot(wire.SURVEILLANCE_STATE, wire.dumps(full))
        surveillance = self.applier.surveillance
        if surveillance is not None:
            for topic, payload in surveillance.snapshots():
                self.pump.set_slot(topic, wire.dumps(payload))

    # --------------------------------------------------------------- timers
    def metrics(self) -> None:
        """The surveillance desk's metrics, as a stream message (a timer's)."""
        surveillance = self.applier.surveillance
        assert surveillance is not None
        at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        topic, payload = surveillance.metrics(time.monotonic(), at)
        self.pending.append((0, Message(topic, wire.dumps(payload))))

    def commit_acks(self) -> float:
        try:
            self.pump.flush_acks()
        except sqlite3.Error as exc:  # a full disk: they go with the next commit that works
            log.warning("could not mark acknowledgements: %s", exc)
        return ACKS_EVERY

    def prune(self) -> float:
        self.check_disk()
        try:
            self.pump.flush_acks()
            self.store.prune(self.config.state.keep_sent)
        except sqlite3.Error as exc:  # a full disk: the next turn halts and retries
            log.warning("outbox upkeep failed: %s", exc)
        return 60.0
