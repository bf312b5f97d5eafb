"""Journal retention: whole shoes older than `[journal] keep_days` leave the journal.

A table's journal would otherwise grow for ever (about 6.6 KB a round,
docs/benchmarks.md). Pruning keeps the two things the journal is for:

- the table rebuilds itself at start by replaying its journal. It can no
  longer replay from the first record, so the cut is always just after a
  shoe began, between rounds, where what carries over to the rest of the
  journal is small and known (`carry`): the round count, the limits, stakes
  left on the layout, the events numbering, the last outcome, the chips on
  the spots. The checkpoint record holds it, and the start restores it
  (`restore`) before it replays what follows.
- `croupier audit verify` checks the hash chain. The checkpoint record
  carries the hash of the last record pruned and what was pruned; the chain
  is verified from that hash, and the checkpoint is itself a chained record,
  so editing it, or any record after it, still shows.

A shoe is pruned once the messages made from it were all acknowledged by the
broker and, with `[journal] wait_for_recorder` (the default), once the floor's
recorder says it holds every event of it: its retained `recorded` message
carries the events seq up to which it holds them all (`Recorded`). The
broker's acknowledgement alone is not enough: a recorder down for days must
still find in the journal what it will ask for with `cmd/republish`. Past
`hard_cap_days` a shoe goes unconditionally. The service prunes at a quiet
moment (no round in play, nothing waiting for the journal), in one synced
commit (controller.journal.Store.prune_journal); a crash leaves the journal
before or after it, and the next run picks the same cut again.

What the checkpoint does not carry: the surveillance analytics (a table
with `[mqtt] surveillance` starts them afresh at the checkpoint after a
restart), the pit's record of answered transactions (a request sent again
after 90 days runs again) and the last round's cards on `state` until the
next round begins.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from controller import wire
from controller.commands import MAX_SEQ
from controller.config import JournalSection
from controller.inputs import InputError, load_json
from controller.intake import Read
from controller.journal import Store
from controller.view import TableView

log = logging.getLogger("croupier.retention")

DAY = 86400.0
# Records one prune forgets at most (whole shoes, at least one): the loop waits for
# the prune's commit between two rounds (50-100 ms for 10,000 on the dev VM, fsync on:
# docs/benchmarks.md, "Storage"), and a year of journal meeting retention for the
# first time goes in such steps (Service._retain), not in one long pause.
MOST = 10_000
FORMAT = 1  # of the checkpoint's `state`


RECORDED_BYTES = 1024  # a `recorded` message is a few dozen bytes


class Watermark(BaseModel):
    """A `recorded` message (docs/schemas/recorded.json): `seq` is the events seq up to
    which the recorder holds every event of this table. Extra fields are the
    recorder's own (who, when): allowed, as on every topic of the contract."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)
    seq: Annotated[int, Field(ge=0, le=MAX_SEQ)]


class Recorded:
    """The newest watermark the floor's recorder published for this table (retained, so
    a restarted table hears it again on connect). Written by the loop only."""

    def __init__(self) -> None:
        self.seq: int | None = None  # None: no recorder heard (or a message not taken)

    def take(self, payload: bytes) -> None:
        """A message on `recorded`. Its value is taken as it is, even when lower than the
        last one (a floor database restored from a backup holds less): the table then
        waits longer, never prunes early. One not well formed is no watermark at all."""
        if not payload:  # the retained message cleared: no recorder for this table
            self.seq = None
            return
        try:
            data = load_json(payload, "the recorded message", RECORDED_BYTES, max_depth=4)
            self.seq = Watermark.model_validate(data).seq
        except (InputError, ValidationError) as exc:
            self.seq = None
            log.warning(
                "a `recorded` message the table cannot use (retention waits for a good "
                "one or the hard cap): %s",
                str(exc).replace("\n", "; ")[:300],
            )


@dataclass(frozen=True)
class ShoeStart:
    """A shoe began with journal record `seq`; `state` is the table's just after it."""

    seq: int
    state: dict[str, Any]


def carry(view: TableView, stream: wire.Stream) -> dict[str, Any]:
    """What the table carries from the records before a cut to those after it."""
    table = view.table
    watch = view.intake.bets.watch
    return {
        "format": FORMAT,
        "rounds": table.rounds,
        "table_min": str(table.table_min),
        "table_max": str(table.table_max),
        "bets": {
            str(box): {player: str(amount) for player, amount in stakes.items()}
            for box, stakes in table.bets.items()
        },
        "shoes": view.shoes,
        "events": stream.seq,
        "last_outcome": stream.last_outcome,
        "sensed": [[box, spot, str(amount)] for (box, spot), amount in watch.sensed.items()],
        "reads": [[r.card, r.confidence, r.how] for r in view.intake.reads],
        "read_count": view.intake.read_count,
    }


def restore(view: TableView, stream: wire.Stream, state: dict[str, Any]) -> None:
    """A fresh table (just built, nothing replayed) as it stood after the cut's shoe
    began: the shoe record itself is pruned, so it is started here again."""
    if state.get("format") != FORMAT:
        raise ValueError(
            f"checkpoint state format {state.get('format')!r}: this croupier reads "
            f"format {FORMAT} (written by a newer version?)"
        )
    table = view.table
    table.new_shoe()
    table.rounds = int(state["rounds"])
    table.table_min = Decimal(state["table_min"])
    table.table_max = Decimal(state["table_max"])
    table.bets = {
        int(box): {player: Decimal(amount) for player, amount in stakes.items()}
        for box, stakes in state["bets"].items()
    }
    view.shoes = int(state["shoes"])
    stream.seq = int(state["events"])
    stream.last_outcome = state["last_outcome"]
    intake = view.intake
    intake.bets.watch.sensed = {
        (int(box), int(spot)): Decimal(amount) for box, spot, amount in state["sensed"]
    }
    intake.reads.extend(Read(card, confidence, how) for card, confidence, how in state["reads"])
    intake.read_count = int(state["read_count"])


def cut(
    store: Store,
    starts: list[ShoeStart],
    now: float,
    settings: JournalSection,
    recorded: int | None = None,
) -> tuple[ShoeStart, bool] | None:
    """The newest shoe start the journal may be pruned up to now, and whether only the
    hard cap allows it (messages unacknowledged, or not yet recorded on the floor: the
    recorder's watermark `recorded`, None when none was heard); None: nothing to prune."""
    first = store.first_seq()
    if first is None:
        return None
    keep = now - settings.keep_days * DAY
    cap = now - settings.hard_cap_days * DAY
    chosen: tuple[ShoeStart, bool] | None = None
    for start in starts:
        if start.seq < first or start.seq >= store.last_seq:
            continue  # pruned already; or nothing after it yet
        if chosen is not None and start.seq - first >= MOST:
            break
        at = store.at_of(start.seq)
        if at is None or at >= keep:
            break  # starts are in journal order: the later ones are newer
        if not store.unsent_through(start.seq) and _recorded(start, settings, recorded):
            chosen = (start, False)
        elif at < cap:
            chosen = (start, True)
        else:
            break  # the floor may not have it yet
    return chosen


def _recorded(start: ShoeStart, settings: JournalSection, recorded: int | None) -> bool:
    """Whether the floor's recorder holds every event made from the records up to this
    shoe start: the table's `events` numbering just after it is at or below the
    recorder's watermark (or the table does not wait for a recorder)."""
    if not settings.wait_for_recorder:
        return True
    return recorded is not None and int(start.state["events"]) <= recorded


def prune(
    store: Store,
    starts: list[ShoeStart],
    now: float,
    settings: JournalSection,
    recorded: int | None = None,
) -> int:
    """Prune whole shoes as `cut` allows; returns the checkpoint's seq (0: none). Call at
    a quiet moment: no round in play, nothing journaled and not yet applied."""
    found = cut(store, starts, now, settings, recorded)
    if found is None:
        return 0
    start, forced = found
    shoes = sum(1 for s in starts if s.seq <= start.seq)  # shoe starts among the pruned
    body = {"shoe_starts": shoes, "forced": forced, "recorded": recorded, "state": start.state}
    seq = store.prune_journal(start.seq, body, at=now)
    if seq:
        del starts[:shoes]
        log.info(
            "journal pruned",
            extra={"through": start.seq, "shoes": shoes, "checkpoint": seq, "forced": forced},
        )
        if forced:
            log.warning(
                "journal pruned past the hard cap with messages the broker never "
                "acknowledged or the floor's recorder does not hold: the floor may not "
                "have them",
                extra={
                    "through": start.seq,
                    "hard_cap_days": settings.hard_cap_days,
                    "recorded": recorded,
                },
            )
    return seq
