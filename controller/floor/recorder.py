"""`croupier recorder`: every table's stream into the floor's PostgreSQL.

Two threads. paho's network thread only puts each message (with its MQTT
message id) on a bounded queue. The writer (the caller's thread) takes what is
queued, writes it in one transaction (controller.floor.store), commits, and
only then acknowledges each message to the broker (paho's manual ack): a
message is never acknowledged before it is in the database. So

- a recorder killed with -9 loses nothing: what it had not committed was not
  acknowledged, and the broker sends it again to the recorder's persistent
  session (fixed client id, clean session off); what it had committed but not
  yet acknowledged comes again and is a duplicate, dropped by its id;
- a database that goes away stops the commits: the batch is kept and retried,
  nothing is acknowledged, the broker stops sending at its in-flight limit, and
  the queue in between stays bounded (a full queue holds paho's thread);
- a broker that restarts (or drops messages) leaves holes in a table's `seq`:
  controller.floor.gaps finds them and the writer asks the table with
  `cmd/republish` (the `recorder` role may publish exactly that).

After its commits the writer tells each table what it holds: a retained
`croupier/v1/<table>/recorded` {"seq": N}, N the seq below which every event
is committed (gaps.TableSeqs.contiguous). The table prunes its journal only
below it (controller.retention), so what the recorder will ask for is still
there. Sent when N moved forward, at most once every ANNOUNCE_EVERY per
table, and again after each (re)connect (a broker that lost its retained
messages hears it again).
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import socket
import ssl
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from controller.config import BrokerAddress
from controller.floor import parse, schema, store
from controller.floor.gaps import TableSeqs
from controller.floor.parse import Answer, Event, Info, Outcome, Refused, StateSeq
from controller.floor.store import Batch

log = logging.getLogger("croupier.recorder")

BATCH = 2000  # messages per transaction at most
QUEUE = 20000  # messages between paho's thread and the writer (a bound on memory)
RETRY_DB = (0.5, 10.0)  # s: first and longest wait before connecting to the database again
REPORT_EVERY = 10.0  # s between progress lines in the log
# s between two `recorded` messages of one table: a busy table moves its watermark
# every few milliseconds, and retention looks at it every ten minutes.
ANNOUNCE_EVERY = 1.0


@dataclass(frozen=True, slots=True)
class Inbound:
    topic: str
    payload: bytes
    mid: int
    qos: int
    link: int  # the connection it came on: an ack goes only to that one


@dataclass
class Settings:
    broker: BrokerAddress
    db: str
    client_id: str
    username: str | None = None
    password: str | None = None
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    keepalive: int = 30
    console: str = "croupier-recorder"


@dataclass
class Stats:
    received: int = 0
    events: int = 0
    outcomes: int = 0
    alerts: int = 0
    duplicates: int = 0
    refused: int = 0
    repairs: int = 0
    lost: int = 0
    commits: int = 0
    started: float = field(default_factory=time.monotonic)

    def line(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "started"}


class Recorder:
    def __init__(self, settings: Settings) -> None:
        self.s = settings
        self.inbox: queue.Queue[Inbound] = queue.Queue(QUEUE)
        self.link = 0  # counts connections; read by the writer
        self.connected = threading.Event()
        self.stopping = threading.Event()
        self.stats = Stats()
        self.seqs: dict[str, TableSeqs] = {}
        self.asked: dict[str, tuple[str, int]] = {}  # transaction -> (table, from_seq)
        # table -> (watermark sent, monotonic time) on the connection `announced_link`
        self.announced: dict[str, tuple[int, float]] = {}
        self.announced_link = 0
        self.conn: Any = None
        self.client = self._client()

    # ------------------------------------------------------------ MQTT side
    def _client(self) -> mqtt.Client:
        a = self.s.broker
        c = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.s.client_id,
            clean_session=False,  # the broker keeps what comes while the recorder is away
            transport="websockets" if a.websockets else "tcp",
            manual_ack=True,  # acknowledged once committed (`_ack`)
            reconnect_on_failure=True,
        )
        if a.websockets:
            c.ws_set_options(path=a.path)
        if self.s.username is not None:
            c.username_pw_set(self.s.username, self.s.password)
        if a.tls or self.s.ca_file:
            c.tls_set(
                ca_certs=self.s.ca_file,
                certfile=self.s.cert_file,
                keyfile=self.s.key_file,
                cert_reqs=ssl.CERT_REQUIRED,
            )
        c.reconnect_delay_set(min_delay=1, max_delay=10)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        return c

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any, p: Any) -> None:
        try:
            if rc.is_failure:
                log.error("the broker refused the recorder", extra={"reason": str(rc)})
                return
            sock = client.socket()
            if isinstance(sock, socket.socket):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.link += 1
            # Always subscribe: a broker that lost its persistence has no session for us.
            client.subscribe([(f"croupier/v1/+/{t}", 1) for t in parse.TOPICS])
            self.connected.set()
            log.info("connected to the broker", extra={"session_present": flags.session_present})
        except Exception:
            log.exception("on_connect failed")

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, f: Any, rc: Any, p: Any) -> None:
        try:
            self.connected.clear()
            if not self.stopping.is_set():
                log.warning("lost the broker", extra={"reason": str(rc)})
        except Exception:
            log.exception("on_disconnect failed")

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            # Blocks when the writer is QUEUE behind (the database is away): the broker
            # then holds the rest, up to its in-flight and queue limits.
            self.inbox.put(Inbound(msg.topic, bytes(msg.payload), msg.mid, msg.qos, self.link))
        except Exception:
            log.exception("on_message failed")

    # ------------------------------------------------------------ the writer
    def run(self) -> None:
        """Until `stop()`: connect, then write and acknowledge batch after batch."""
        self._open_db()
        a = self.s.broker
        self.client.connect_async(a.host, a.port, self.s.keepalive)
        self.client.loop_start()
        last_report = time.monotonic()
        try:
            while not self.stopping.is_set():
                items = self._take(timeout=0.2)
                if items:
                    self._write(items)
                self._announce(time.monotonic())
                self._repair()
                if time.monotonic() - last_report >= REPORT_EVERY:
                    last_report = time.monotonic()
                    log.info("recorded", extra=self.stats.line())
            # What is queued now is written before the recorder goes.
            while items := self._take(timeout=0.0):
                self._write(items)
            self._announce(time.monotonic(), final=True)
        finally:
            self.client.disconnect()
            self.client.loop_stop()
            if self.conn is not None:
                with contextlib.suppress(Exception):
                    self.conn.close()
            log.info("recorder stopped", extra=self.stats.line())

    def stop(self) -> None:
        self.stopping.set()

    def _take(self, timeout: float) -> list[Inbound]:
        try:
            first = self.inbox.get(timeout=timeout) if timeout else self.inbox.get_nowait()
        except queue.Empty:
            return []
        items = [first]
        while len(items) < BATCH:
            try:
                items.append(self.inbox.get_nowait())
            except queue.Empty:
                break
        return items

    def _open_db(self) -> None:
        """Connect (again), bring the schema up to date, read back the bookkeeping."""
        delay = RETRY_DB[0]
        while True:
            try:
                conn = schema.connect(self.s.db)
                schema.migrate(conn)
                with conn.cursor() as cur:
                    self.seqs = store.load(cur)
                conn.commit()
                self.conn = conn
                log.info("floor database open", extra={"tables": len(self.seqs)})
                return
            except schema.FloorDbError as exc:
                if "upgrade croupier" in str(exc) or self.stopping.is_set():
                    raise
                log.warning("the floor database is not available: %s", exc)
            except schema.psycopg_module().Error as exc:
                log.warning("the floor database is not available: %s", exc)
            if self.stopping.wait(delay):
                raise schema.FloorDbError("stopped while waiting for the floor database")
            delay = min(delay * 2, RETRY_DB[1])

    def _write(self, items: list[Inbound]) -> None:
        self.stats.received += len(items)
        batch, states = self._batch(items)
        now = time.monotonic()
        psycopg = schema.psycopg_module()
        while True:
            try:
                with self.conn.transaction(), self.conn.cursor() as cur:
                    self._apply(batch, states, now)
                    written = store.write(cur, batch, self.seqs)
                break
            except psycopg.OperationalError as exc:
                log.warning("the floor database failed a commit (kept, retried): %s", exc)
                with contextlib.suppress(Exception):
                    self.conn.close()
                self.conn = None
                self._reopen()
            except psycopg.DataError as exc:
                # A value the database will not take (a NUL in a text): rolled back. The
                # batch goes again one message at a time, and only that one is refused.
                self._reload()
                if len(items) == 1:
                    self.stats.refused += 1
                    log.error("message refused by the database (acknowledged, not kept): "
                              "%s: %s", items[0].topic, exc)
                    self._ack(items)
                    return
                self.stats.received -= len(items)
                for item in items:
                    self._write([item])
                return
        self.stats.commits += 1
        self.stats.events += len(written.events)
        self.stats.outcomes += written.outcomes
        self.stats.alerts += written.alerts
        self.stats.duplicates += written.duplicates
        for table, seq in written.unmatched:
            self.seqs[table].settled(seq, now)
        for o in batch.outcomes:
            self.seqs[o.table].outcome(o.seq)
        self._ack(items)

    def _reopen(self) -> None:
        """After a failed commit: connect again and read the bookkeeping back (the
        failed batch's effects on it are applied again, idempotently)."""
        tops = {t: s.top for t, s in self.seqs.items()}
        self._open_db()
        self._tops(tops)

    def _reload(self) -> None:
        """After a rolled-back batch: the bookkeeping as committed."""
        tops = {t: s.top for t, s in self.seqs.items()}
        with self.conn.transaction(), self.conn.cursor() as cur:
            self.seqs = store.load(cur)
        self._tops(tops)

    def _tops(self, tops: dict[str, int]) -> None:
        for table, top in tops.items():
            self.seqs.setdefault(table, TableSeqs(table)).seen_top(top)

    def _batch(self, items: list[Inbound]) -> tuple[Batch, list[StateSeq]]:
        batch = Batch()
        states: list[StateSeq] = []
        for item in items:
            try:
                row = parse.parse(item.topic, item.payload)
            except Refused as exc:
                self.stats.refused += 1
                log.error("message refused (acknowledged, not kept): %s", exc)
                continue
            if isinstance(row, Event):
                batch.events.append(row)
            elif isinstance(row, Outcome):
                batch.outcomes.append(row)
            elif isinstance(row, parse.Alert):
                batch.alerts.append(row)
            elif isinstance(row, Info):
                batch.infos[row.table] = row
            elif isinstance(row, StateSeq):
                states.append(row)
            elif isinstance(row, Answer):
                self._answered(row, batch)
        return batch, states

    def _apply(self, batch: Batch, states: list[StateSeq], now: float) -> None:
        """The batch into the bookkeeping (idempotent: a retried batch is applied again)."""
        for e in batch.events:
            seqs = self.seqs.setdefault(e.table, TableSeqs(e.table))
            seqs.hold(e.seq, now)
        for st in states:
            self.seqs.setdefault(st.table, TableSeqs(st.table)).seen_top(st.seq)
        for o in batch.outcomes:
            self.seqs.setdefault(o.table, TableSeqs(o.table))

    def _answered(self, answer: Answer, batch: Batch) -> None:
        mine = self.asked.pop(answer.transaction, None)
        if mine is None:
            return  # another console's republish
        table, _ = mine
        batch.answers.append((answer.transaction, answer.ok, answer.to_seq, answer.error))
        seqs = self.seqs.setdefault(table, TableSeqs(table))
        if answer.to_seq is not None:
            seqs.seen_top(answer.to_seq)
        if answer.ok or answer.oldest_kept is None:
            return
        # The table keeps nothing older than oldest_kept: what is missing below it is lost.
        upto = (answer.to_seq or seqs.top) if answer.oldest_kept == 0 else answer.oldest_kept - 1
        seqs.oldest_kept = max(seqs.oldest_kept, answer.oldest_kept)
        hole = seqs.missing()
        if hole is None:
            return
        for first, last in seqs.lose(min(upto, hole[1])):
            self.stats.lost += last - first + 1
            batch.lost.append((table, first, last, answer.error or "no longer kept"))
            log.error(
                "events lost: the table no longer keeps them",
                extra={"table": table, "from_seq": first, "to_seq": last},
            )

    def _ack(self, items: list[Inbound]) -> None:
        link = self.link
        for item in items:
            if item.qos and item.link == link:
                self.client.ack(item.mid, item.qos)

    # ------------------------------------------------------------ watermarks
    def _announce(self, now: float, final: bool = False) -> None:
        """Each table's committed watermark on its retained `recorded` topic, where it
        moved forward (see the module). `final`: the last word before stopping, due or
        not. Only ever after a commit: `seqs` is then what the database holds."""
        if not self.connected.is_set():
            return
        if self.announced_link != self.link:  # a new connection: say it all again
            self.announced, self.announced_link = {}, self.link
        for table, seqs in self.seqs.items():
            sent, at = self.announced.get(table, (0, -ANNOUNCE_EVERY))
            if seqs.contiguous <= sent or (now - at < ANNOUNCE_EVERY and not final):
                continue
            body = json.dumps({"seq": seqs.contiguous, "console": self.s.console})
            self.client.publish(f"croupier/v1/{table}/recorded", body, qos=1, retain=True)
            self.announced[table] = (seqs.contiguous, now)

    # ------------------------------------------------------------ gap repair
    def _repair(self) -> None:
        if not self.connected.is_set():
            return
        now = time.monotonic()
        psycopg = schema.psycopg_module()
        try:
            for table, seqs in self.seqs.items():
                if seqs.ask(now) is None:
                    continue
                # Another recorder may have filled it: read the holdings back first.
                with self.conn.transaction(), self.conn.cursor() as cur:
                    store.refresh(cur, seqs, seqs.contiguous)
                from_seq = seqs.wanted(now)
                if from_seq is not None:
                    self._republish(table, from_seq)
        except psycopg.OperationalError as exc:
            log.warning("the floor database failed (reconnecting): %s", exc)
            with contextlib.suppress(Exception):
                self.conn.close()
            self._reopen()

    def _republish(self, table: str, from_seq: int) -> None:
        transaction = f"rec-{uuid.uuid4().hex[:20]}"
        with self.conn.transaction():
            self.conn.execute(
                "INSERT INTO floor_repairs (transaction, table_id, from_seq) VALUES (%s, %s, %s)",
                (transaction, table, from_seq),
            )
        self.asked[transaction] = (table, from_seq)
        if len(self.asked) > 10000:  # answers that never came (a table gone): forget
            self.asked.pop(next(iter(self.asked)))
        self.stats.repairs += 1
        log.info("asking for a gap again", extra={"table": table, "from_seq": from_seq})
        body = json.dumps(
            {"transaction": transaction, "by": "recorder", "console": self.s.console,
             "from_seq": from_seq}
        )
        self.client.publish(f"croupier/v1/{table}/cmd/republish", body, qos=1)
