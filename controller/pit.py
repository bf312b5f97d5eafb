"""The pit's commands at the table: the service's side of controller.commands.

`PitDesk.receive` takes a request off the broker, in the service's loop. A
refused request (malformed, too big, unknown) or a repeated transaction is
answered at once: nothing is journaled, nothing changes. Anything else
becomes a `PitCommand` record, journaled with the driver records and
applied in the same order (`process`), so a command acts on exactly the
table the records before it made.

Every command taken leaves its audit record twice: the journal row (who,
what, when; hash-chained with everything else) and an `audit` message on
`events` with the table before and after, which a replay of the journal
makes again, identically (it depends on the journal only).
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol

from controller import commands, wire
from controller.commands import (
    CorrectCard,
    NewShoe,
    Refusal,
    Republish,
    Request,
    SetLimits,
    VoidRound,
)
from controller.correction import Correction, Refused, RoundStart, copy_of
from controller.engine import Table, TableError
from controller.engine import events as ev
from controller.engine.money import ZERO, fmt
from controller.engine.phase import Phase
from controller.intake import Intake
from controller.journal import Message
from controller.records import PitCommand, Record

log = logging.getLogger("croupier.pit")

# While the journal is replayed at start, a round that began this many records before
# its end may still be in play: only those rounds keep a copy of their start (a copy
# costs a third of a millisecond; a journal of months holds a hundred thousand rounds).
REPLAY_WINDOW = 200_000


@dataclass
class Done:
    """What a command did: its answer, the stream messages it made, before and after."""

    ok: bool
    round: int
    error: str | None = None
    answer: dict[str, Any] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    # The answer alone says no (the table took the command, but could not serve it).
    unserved: str | None = None
    # Request fields shown as null in the audit on `events` (a display reads it): a card
    # named for a place that is still face down would give that card away.
    withheld: tuple[str, ...] = ()


class TableSide(Protocol):
    """What the desk sees of the service (controller.service.Service): the table, and
    the few acts a command needs."""

    @property
    def table(self) -> Table: ...
    @property
    def intake(self) -> Intake: ...
    @property
    def table_id(self) -> str: ...
    @property
    def stream(self) -> wire.Stream: ...
    @property
    def shoes(self) -> int: ...  # shoes started since the state began
    @property
    def halted(self) -> str | None: ...  # why the table takes no input now

    def apply_event(self, seq: int, event: dict[str, Any]) -> list[Message]: ...
    def replace_table(self, table: Table, intake: Intake) -> None: ...
    def answer_now(self, message: Message) -> None: ...
    def refresh_info(self) -> None: ...
    def journal(self, first: int, last: int) -> list[tuple[int, Record]]: ...
    def oldest_kept(self) -> int | None: ...
    def resend(self, first: int) -> bool: ...


class PitDesk:
    def __init__(self, side: TableSide) -> None:
        self.s = side
        # transaction -> (the request, canonical, and its answer): a repeat is answered again.
        self.answered: OrderedDict[str, tuple[str, Message]] = OrderedDict()
        self.start: RoundStart | None = None  # the round in play, as it began
        self.live = False  # False while the journal is replayed: no effects outside the table
        self.replay_end = 0  # the journal's last seq when the replay began

    # ------------------------------------------------------- from the broker
    def receive(self, name: str, payload: bytes, at: str, stopping: bool = False
                ) -> PitCommand | None:
        """A request in the loop: a record to journal, or None when it is answered now.
        `stopping`: the table is going offline (its last input is journaled): a request is
        refused, changing nothing, not left unanswered."""
        parsed = commands.parse(name, payload)
        if isinstance(parsed, Refusal):
            log.warning("pit command refused", extra={"command": name, "why": parsed.error})
            self._now(self._response(name, parsed.transaction, False, error=parsed.error))
            return None
        again = self._again(name, parsed)
        if again is not None:
            self._now(again)
            return None
        if stopping:
            self._now(
                self._response(
                    name,
                    parsed.transaction,
                    False,
                    error="the table is stopping: send it again once it is online",
                )
            )
            return None
        if self.s.halted is not None:
            # Held input is applied once the journal works again; a command held that long
            # would act on a table its sender no longer sees: refuse it, changing nothing.
            self._now(
                self._response(
                    name,
                    parsed.transaction,
                    False,
                    error=f"the table is stopped ({self.s.halted}): send it again once it runs",
                )
            )
            return None
        return PitCommand(name, commands.fields(parsed), at)

    def _now(self, message: Message) -> None:
        self.s.answer_now(message)

    def _response(self, name: str, transaction: Any, ok: bool, **fields: Any) -> Message:
        body = wire.response(
            transaction,
            ok,
            command=name,
            table=self.s.table_id,
            **{k: v for k, v in fields.items() if v is not None},
        )
        return Message(f"cmd/{name}/response", wire.dumps(body))

    def _again(self, name: str, request: Request) -> Message | None:
        seen = self.answered.get(request.transaction)
        if seen is None:
            return None
        if seen[0] == _key(name, request):
            answer = seen[1]
            topic = f"cmd/{name}/response"
            if answer.topic != topic:
                # Asked again under the command's other name (void / void_round): the
                # answer goes where this request's sender listens, naming what it sent.
                body = json.loads(answer.payload)
                body["command"] = name
                answer = Message(topic, wire.dumps(body))
            return answer
        return self._response(
            name,
            request.transaction,
            False,
            error=f"transaction {request.transaction!r} was already used for another request: "
            "use a new transaction id",
        )

    def _remember(self, name: str, request: Request, answer: Message) -> None:
        self.answered[request.transaction] = (_key(name, request), answer)
        while len(self.answered) > commands.HISTORY:
            self.answered.popitem(last=False)

    # ------------------------------------------------------ from the journal
    def process(self, seq: int, record: PitCommand) -> list[Message]:
        """A journaled command: applied (or refused by the table's rules), then audited."""
        name = record.name
        data = dict(record.request)
        if record.at is None and "by" not in data:
            data["by"] = "(not recorded)"  # a journal from before the audit trail
        parsed = commands.validate(name, data, data.get("transaction"))
        if isinstance(parsed, Refusal):  # only journals from before validation can hold one
            return [self._response(name, parsed.transaction, False, error=parsed.error)]
        again = self._again(name, parsed)
        if again is not None:
            return [again]  # the same request twice in one batch: applied once
        command = commands.canonical(name)
        done = HANDLERS[command](self, seq, parsed)
        if not done.ok:
            log.warning(
                "pit command refused by the table", extra={"command": command, "why": done.error}
            )
        audit = self.s.stream.event(
            wire.audit(
                command,
                parsed,
                record.at,
                done.ok,
                done.error,
                done.before,
                done.after,
                done.round,
                done.withheld,
            ),
            seq,
        )
        answer = self._response(
            name,
            parsed.transaction,
            done.ok and done.unserved is None,
            error=done.error or done.unserved,
            audit_seq=audit.eseq,
            **done.answer,
        )
        self._remember(name, parsed, answer)
        return [*done.messages, audit, answer]

    def note(self, seq: int, messages: list[Message]) -> None:
        """After every journaled record: keep the round's start and which events each
        record made (a correction names the ones that no longer hold)."""
        table = self.s.table
        r = table.round
        start = self.start
        if r is not None and not r.over and (start is None or start.round is not r):
            if self.live or self.replay_end - seq < REPLAY_WINDOW:
                t, i = copy_of(table, self.s.intake)
                self.start = start = RoundStart(seq, t, i, r)
            else:
                self.start = start = None
        elif start is not None and seq > start.seq and r is start.round:
            made = [m.eseq for m in messages if m.eseq is not None]
            if made:
                start.trace[seq] = made

    # --------------------------------------------------------------- helpers
    def round_number(self) -> int:
        t = self.s.table
        r = t.round
        return r.number if r is not None and not r.over else t.rounds + 1

    def shoe(self) -> dict[str, Any]:
        t = self.s.table
        return {
            "shoe": self.s.shoes,
            "cards_out": t.shoe.out,
            "size": t.shoe.size,
            "cut_card_reached": t.shoe.cut_reached,
            "burns_due": t.burns_due,
        }


def _key(name: str, request: Request) -> str:
    return json.dumps([commands.canonical(name), commands.fields(request)], sort_keys=True)


# ------------------------------------------------------------------ handlers
def void_round(desk: PitDesk, seq: int, req: Request) -> Done:
    assert isinstance(req, VoidRound)
    s, number = desk.s, desk.round_number()
    try:
        s.table.verify(ev.Void(req.reason))
    except TableError as exc:
        return Done(False, number, str(exc))
    r = s.table.round
    assert r is not None
    before = {"round": r.number, "phase": r.phase.value}
    messages = s.apply_event(seq, {"type": "void", "reason": req.reason})
    return Done(
        True,
        number,
        answer={"round": r.number},
        messages=messages,
        before=before,
        after={"round": r.number, "phase": r.phase.value},
    )


def new_shoe(desk: PitDesk, seq: int, req: Request) -> Done:
    assert isinstance(req, NewShoe)
    s, number = desk.s, desk.round_number()
    try:
        s.table.verify(ev.NewShoe(None, None))
    except TableError as exc:
        return Done(False, number, str(exc))
    before = desk.shoe()
    messages = s.apply_event(seq, {"type": "shoe"})
    after = desk.shoe()
    return Done(
        True, number, answer={"shoe": after["shoe"]}, messages=messages, before=before, after=after
    )


def set_limits(desk: PitDesk, seq: int, req: Request) -> Done:
    assert isinstance(req, SetLimits)
    s, number = desk.s, desk.round_number()
    t = s.table
    low, high = req.low, req.high
    error = _limits_refusal(desk, low, high)
    if error:
        return Done(False, number, error)
    before = {"min": fmt(t.table_min), "max": fmt(t.table_max)}
    t.table_min, t.table_max = low, high
    after = {"min": fmt(low), "max": fmt(high)}
    event = s.stream.event({"type": "limits_set", "round": number, **after, "was": before}, seq)
    if desk.live:
        s.refresh_info()  # `info` carries the limits too
    return Done(
        True, number, answer={"limits": after}, messages=[event], before=before, after=after
    )


def _limits_refusal(desk: PitDesk, low: Decimal, high: Decimal) -> str | None:
    t = desk.s.table
    if t.phase is not Phase.BETTING:
        return (
            f"cannot change the limits now: round {t.rounds} is in {t.phase.value}; "
            "the limits change between rounds"
        )
    if low > high:
        return f"min {fmt(low)} is above max {fmt(high)}"
    step = t.p.bet_multiple
    if low % step or high % step:
        return (
            f"the limits must be multiples of {fmt(step)} ({t.p.name} takes bets in "
            f"multiples of it): min {fmt(low)}, max {fmt(high)}"
        )
    outside = []
    for box, stakes in sorted(t.bets.items()):
        for player, amount in stakes.items():
            if amount < low:
                outside.append(f"{player} on box {box} bets {fmt(amount)}, below {fmt(low)}")
        total = sum(stakes.values(), ZERO)
        if total > high:
            outside.append(f"box {box} holds {fmt(total)}, over {fmt(high)}")
    if outside:
        return (
            "bets on the layout are outside the new limits ("
            + "; ".join(outside)
            + "): they change first"
        )
    return None


def correct_card(desk: PitDesk, seq: int, req: Request) -> Done:
    assert isinstance(req, CorrectCard)
    s, number = desk.s, desk.round_number()
    start = desk.start
    r = s.table.round
    if r is None or r.over:
        over = f"round {s.table.rounds} is over" if s.table.rounds else "no round yet"
        return Done(
            False, number, f"no round is in play ({over}): only the round in play is corrected"
        )
    if start is None or start.round is not r:
        return Done(
            False,
            number,
            "the round in play began too long before the last restart "
            "to be derived again: void it instead",
        )
    records = s.journal(start.seq + 1, seq - 1)
    correction = Correction(s.table, start, records)
    withheld = ("was", "card") if correction.face_down(req.box, req.hand, req.position) else ()
    try:
        fixed = correction.run(req.round, req.box, req.hand, req.position, req.was, req.card)
    except Refused as exc:
        return Done(False, number, str(exc), withheld=withheld)
    s.replace_table(fixed.table, fixed.intake)
    start.round = fixed.table.round  # type: ignore[assignment]
    start.overrides = fixed.overrides
    superseded: list[int] = []
    if fixed.last is not None:
        made = start.trace.get(fixed.last, [])
        superseded = made[fixed.common :]
    event = s.stream.event(
        {
            "type": "card_corrected",
            "round": req.round,
            "box": req.box,
            "hand": req.hand,
            "position": req.position,
            "was": req.was,
            "card": req.card,
            "record": fixed.origin,
            "superseded": superseded,
        },
        seq,
    )
    follow = s.stream.messages(fixed.new_ops, s.table, seq)
    if fixed.last is not None:
        start.trace[fixed.last] = [
            *start.trace.get(fixed.last, [])[: fixed.common],
            *(m.eseq for m in follow if m.eseq is not None),
        ]
    return Done(
        True,
        number,
        answer={"round": req.round, "superseded": superseded},
        messages=[event, *follow],
        before=fixed.before,
        after=fixed.after,
    )


def republish(desk: PitDesk, seq: int, req: Request) -> Done:
    """Changes nothing at the table: sends stored messages again. Its audit record says
    what was asked (`ok`: taken); only the answer says whether the messages were still
    kept, which depends on the outbox's pruning, not on the journal."""
    assert isinstance(req, Republish)
    s, number = desk.s, desk.round_number()
    first = req.from_seq if req.from_seq is not None else s.stream.seq + 1
    answer = {"from_seq": first, "to_seq": s.stream.seq}
    if not desk.live:
        return Done(True, number, answer=answer)
    if first <= s.stream.seq:
        oldest = s.oldest_kept()
        if oldest is None or first < oldest or not s.resend(first):
            return Done(
                True,
                number,
                answer=answer,
                unserved=(
                    f"from_seq {first} is no longer kept (the oldest is {oldest}): read `state`"
                ),
            )
    else:
        s.resend(first)  # from the next event on
    return Done(True, number, answer=answer)


HANDLERS: dict[str, Callable[[PitDesk, int, Request], Done]] = {
    "void_round": void_round,
    "new_shoe": new_shoe,
    "set_limits": set_limits,
    "correct_card": correct_card,
    "republish": republish,
}
