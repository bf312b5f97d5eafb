"""Publishing from the outbox: in order, a window at a time, acknowledged by id.

Stream rows (events, outcome, alerts, command responses) are read from the
outbox and handed to paho at most `window` at a time, so paho's memory
queue holds only what is in flight: it is a buffer, the outbox is the
record. A row is marked sent when its PUBACK arrives. After a reconnect
(or a restart) publishing starts again from the oldest unacknowledged row:
a consumer may see a message twice, always with the same id, never out of
order once de-duplicated.

Retained snapshots (status, info, state, outcome/last, surveillance/state)
are slots: only the newest value of each matters, it is rebuilt from the
journal at any time, and every slot is published again on each connect.
"""

from __future__ import annotations

from controller.journal import Store
from controller.mqtt_link import MqttLink

# Published before the stream on connect, and after it.
FIRST_SLOTS = ("status", "info")


class Pump:
    def __init__(self, store: Store, link: MqttLink | None, window: int) -> None:
        self.store = store
        self.link = link
        self.window = window
        self.cursor = store.first_unsent() or store.last_id() + 1
        self.inflight: dict[int, int] = {}  # mid -> outbox id
        self.slot_inflight: dict[int, str] = {}  # mid -> slot topic
        self.acked: list[int] = []  # outbox ids to mark sent at the next commit
        self.acks = 0  # acknowledgements seen (the watchdog: is the outbox draining?)
        self.slots: dict[str, str] = {}
        self.dirty: set[str] = set()

    def set_slot(self, topic: str, payload: str) -> None:
        if self.slots.get(topic) != payload:
            self.slots[topic] = payload
            self.dirty.add(topic)

    @property
    def connected(self) -> bool:
        return self.link is not None and self.link.connected

    def on_connect(self) -> None:
        assert self.link is not None
        self.link.connected = True
        self.flush_acks()
        self.inflight.clear()
        self.slot_inflight.clear()
        self.cursor = self.store.first_unsent() or self.store.last_id() + 1
        self.dirty = set(self.slots)

    def on_disconnect(self) -> None:
        if self.link is not None:
            self.link.connected = False

    def on_ack(self, mid: int) -> None:
        self.acks += 1
        row = self.inflight.pop(mid, None)
        if row is not None:
            self.acked.append(row)
        else:
            self.slot_inflight.pop(mid, None)

    def flush_acks(self) -> None:
        if self.acked:
            self.store.mark_sent(self.acked)
            self.acked = []

    def resend_from(self, row_id: int) -> None:
        self.cursor = min(self.cursor, row_id)
        self.dirty = set(self.slots)

    def pump(self) -> None:
        """Hand paho what the window allows: first slots, the stream, then the other slots."""
        link = self.link
        if link is None or not link.connected:
            return
        self._slots(FIRST_SLOTS)
        room = self.window - len(self.inflight)
        if room > 0:
            for row in self.store.rows_from(self.cursor, room):
                self.inflight[link.publish(row.topic, row.payload)] = row.id
                self.cursor = row.id + 1
        if self.cursor > self.store.last_id():
            self._slots(tuple(self.dirty))

    def _slots(self, topics: tuple[str, ...]) -> None:
        assert self.link is not None
        for topic in topics:
            if topic in self.dirty:
                self.dirty.discard(topic)
                mid = self.link.publish(topic, self.slots[topic], retain=True)
                self.slot_inflight[mid] = topic

    def idle(self) -> bool:
        """Everything stored is published and acknowledged (always, with no broker)."""
        if self.link is None:
            return True
        return (
            not self.inflight
            and not self.slot_inflight
            and not self.dirty
            and self.cursor > self.store.last_id()
        )

    def backlog(self) -> int:
        return max(0, self.store.last_id() - self.cursor + 1) + len(self.inflight)
