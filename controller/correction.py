"""Correcting a card of the round in play (cmd/correct_card), by re-deriving the round.

The engine cannot change a card already dealt, and should not: a round is
what its inputs made it. So a correction replaces the *input*: the card
read (or keyed in) that put the card there is replaced by the corrected
one, and the round is derived again from its journaled inputs, in order,
into a copy of the table as it stood when the round began. The copy is
taken when the bets close (`RoundStart`); after a restart the journal's
replay takes it again at the same record, so it is the journal replayed
into a fresh table, without replaying months of journal per correction.

The correction is accepted only when the corrected round is the same round
played with another card, from its start up to now:

- every later input means what it meant (a decision by the same box, a card
  to the same hand) and the table accepts (or refuses) it as it did;
- nothing but totals changes before the last input; at the last one the
  correction may change what follows (a hand now at 21 ends, the dealer's
  turn comes, the round settles): those operations are published, and the
  ones that no longer hold are named as superseded.

Otherwise it is refused with the first place the round would go
differently, in words ("after the correction box 2 hand 1 would have
busted before the stand that followed (seq 57)"). A refusal never names a
card that is still face down, and changes nothing.
"""

from __future__ import annotations

import copy
import dataclasses
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from controller.engine import Table, TableError, ops, parse_event
from controller.engine.cards import card_name
from controller.engine.round import Round
from controller.engine.view import table_state
from controller.intake import Intake, Raise
from controller.records import PitCommand, Record
from drivers.interfaces import CardRead, PanelPress


class Refused(Exception):
    """The correction is refused; the message says why (and names no hidden card)."""


@dataclass
class RoundStart:
    """The table and intake right after the record that began the round (bets closed)."""

    seq: int
    table: Table
    intake: Intake
    round: Round  # the live table's round object, to see when the next one begins
    overrides: dict[int, str] = field(default_factory=dict)  # journal seq -> corrected card
    trace: dict[int, list[int]] = field(default_factory=dict)  # journal seq -> events seqs


def copy_of(table: Table, intake: Intake) -> tuple[Table, Intake]:
    """A deep copy of the pair (the intake refers to the table); the profile is shared:
    it is frozen."""
    return copy.deepcopy((table, intake), {id(table.p): table.p})


@dataclass
class Step:
    """One record of the round, re-applied: what it asked and what came of it."""

    seq: int
    event: dict[str, Any] | None  # the engine event the intake made of it (None: none)
    alert: str | None  # ... or the alert kind it raised instead
    refused: str | None  # the engine's refusal
    ops: list[ops.Operation]


def step(table: Table, intake: Intake, seq: int, record: Record) -> Step:
    """A driver record through the intake and the engine, as the service's loop does
    (Applier.process and apply_event): its deterministic part, without messages."""
    intent = intake.translate(record)  # type: ignore[arg-type]
    if isinstance(intent, Raise):
        return Step(seq, None, intent.kind, None, [])
    if intent is None:
        return Step(seq, None, None, None, [])
    try:
        operations = table.apply(parse_event(intent.event))
    except TableError as exc:
        return Step(seq, intent.event, None, str(exc), [])
    intake.observe(operations)
    return Step(seq, intent.event, None, None, operations)


def with_card(record: Record, card: str) -> Record:
    if isinstance(record, CardRead):
        return dataclasses.replace(record, card=card)
    if isinstance(record, PanelPress) and record.button == "key_card":
        return dataclasses.replace(record, card=card)
    raise Refused(f"the record that dealt this card is not a card ({type(record).__name__})")


def rerun(
    start: RoundStart, records: Iterable[tuple[int, Record]], overrides: dict[int, str]
) -> tuple[Table, Intake, list[Step]]:
    table, intake = copy_of(start.table, start.intake)
    steps = []
    for seq, record in records:
        if isinstance(record, PitCommand):
            continue  # in a round: refused ones changed nothing, corrections are overrides
        if seq in overrides:
            record = with_card(record, overrides[seq])
        steps.append(step(table, intake, seq, record))
    return table, intake, steps


def origins(steps: list[Step]) -> dict[tuple[int, int], list[int]]:
    """For every hand, the journal seq of the record behind each of its cards, in the
    order the hand holds them (splits move a card, a mistaken card moves on)."""
    hands: dict[tuple[int, int], list[int]] = defaultdict(list)
    offered: int | None = None
    for st in steps:
        for op in st.ops:
            if isinstance(op, ops.CardDealt):
                hands[op.box, op.hand].append(st.seq)
            elif isinstance(op, ops.Split):
                hands[op.box, op.new_hand].append(hands[op.box, op.hand].pop())
            elif isinstance(op, ops.MistakenCard):
                offered = hands[op.box, op.hand].pop()
            elif isinstance(op, ops.CardTaken) and offered is not None:
                hands[op.box, op.hand].append(offered)
                offered = None
            elif isinstance(op, ops.CardDiscarded):
                offered = None
    return hands


@dataclass
class Corrected:
    table: Table
    intake: Intake
    origin: int  # the journal seq whose card was replaced
    overrides: dict[int, str]
    last: int | None  # the journal seq of the round's last record with operations
    common: int  # its operations that still hold (a prefix)
    new_ops: list[ops.Operation]  # its operations after the correction, past `common`
    before: dict[str, Any]
    after: dict[str, Any]


def _shape(op: ops.Operation) -> tuple[str, int, int]:
    return (ops.kind(op), getattr(op, "box", -1), getattr(op, "hand", -1))


def _dealt(st: Step) -> list[tuple[int, int]]:
    return [(op.box, op.hand) for op in st.ops if isinstance(op, ops.CardDealt)]


def hand_view(table: Table, box: int, hand: int) -> dict[str, Any]:
    """What a display shows of one hand (`state`, public): hidden cards are null."""
    state = table_state(table, public=True)
    if box == 0:
        return {"box": 0, "hand": 0, **state["dealer"]}
    for b in state.get("in_play", []):
        if b["box"] == box:
            for h in b["hands"]:
                if h["hand"] == hand:
                    shown = {k: h[k] for k in ("cards", "total", "bust", "done") if k in h}
                    return {"box": box, "hand": hand, **shown}
    return {"box": box, "hand": hand}


class Correction:
    """One request checked and, when it holds, re-derived. `records` are the round's
    journal records after its start, up to the correction's own."""

    def __init__(self, table: Table, start: RoundStart, records: list[tuple[int, Record]]):
        self.table = table
        self.start = start
        self.records = records

    def run(self, rnd: int, box: int, hand: int, position: int, was: str, card: str) -> Corrected:
        r = self.table.round
        if r is None or r.over:
            over = f"round {self.table.rounds} is over" if self.table.rounds else "no round yet"
            raise Refused(f"no round is in play ({over}): only the round in play is corrected")
        if rnd != r.number:
            raise Refused(f"round {rnd} is not the round in play (round {r.number})")
        cards, down = self._hand(r, box, hand)
        where = "the dealer's" if box == 0 else f"box {box} hand {hand}'s"
        if position >= len(cards):
            raise Refused(f"{where} hand has {len(cards)} card(s): positions 0 to {len(cards) - 1}")
        if down[position]:
            raise Refused(
                f"{where} card at position {position} is still face down: it can be "
                "corrected once it is turned over"
            )
        if cards[position] != was:
            raise Refused(
                f"{where} card at position {position} is the {card_name(cards[position])}, not "
                f"the {card_name(was)}: the request was made on an out-of-date view"
            )
        if card == was:
            raise Refused(f"that card is already the {card_name(card)}")
        base_table, _, base = rerun(self.start, self.records, self.start.overrides)
        if table_state(base_table, public=False) != table_state(self.table, public=False):
            raise Refused(  # a bug, not a supervisor's mistake: say so plainly
                "the round could not be derived again from its journal (it does not come "
                "out as the table has it): nothing was changed; void the round instead"
            )
        held = origins(base)
        origin = held[box, hand][position]
        overrides = {**self.start.overrides, origin: card}
        table, intake, new = rerun(self.start, self.records, overrides)
        hidden = self._hidden_origins(r, held)
        last = max(
            (i for i, (b, n) in enumerate(zip(base, new, strict=True)) if b.ops or n.ops),
            default=None,
        )
        pairs = list(zip(base, new, strict=True))
        for i, (b, n) in enumerate(pairs):
            self._compare(b, n, origin, self._first_change(base, new, i), hidden)
        for i, (b, n) in enumerate(pairs):  # what did not make a later input go wrong
            if i != last and list(map(_shape, b.ops)) != list(map(_shape, n.ops)):
                raise Refused(
                    f"after the correction the round would have gone differently at "
                    f"{self._describe(b, hidden)} (seq {b.seq})"
                )
        common = 0
        if last is not None:
            shapes = zip(map(_shape, base[last].ops), map(_shape, new[last].ops), strict=False)
            differ = next((k for k, (x, y) in enumerate(shapes) if x != y), None)
            common = differ if differ is not None else min(len(base[last].ops), len(new[last].ops))
        return Corrected(
            table,
            intake,
            origin,
            overrides,
            base[last].seq if last is not None else None,
            common,
            new[last].ops[common:] if last is not None else [],
            hand_view(self.table, box, hand),
            hand_view(table, box, hand),
        )

    def face_down(self, box: int, hand: int, position: int) -> bool:
        """Whether that place holds a card nobody may see yet."""
        r = self.table.round
        if r is None or r.over:
            return False
        try:
            _, down = self._hand(r, box, hand)
        except Refused:
            return False
        return position < len(down) and down[position]

    def _hand(self, r: Round, box: int, hand: int) -> tuple[list[str], list[bool]]:
        if box == 0:
            if hand != 0:
                raise Refused("the dealer's hand is box 0 hand 0")
            hole = r.p.hole_card and not r.hole_shown
            return list(r.dealer), [hole and i == 1 for i in range(len(r.dealer))]
        for b in r.boxes:
            if b.number == box:
                for h in b.hands:
                    if h.number == hand:
                        return list(h.cards), list(h.face_down)
                raise Refused(f"box {box} has no hand {hand} in round {r.number}")
        raise Refused(f"box {box} has no stake in round {r.number}")

    def _hidden_origins(self, r: Round, held: dict[tuple[int, int], list[int]]) -> set[int]:
        """Journal seqs of the cards still face down now: never named in a refusal."""
        hidden = set()
        if r.p.hole_card and not r.hole_shown and len(held[0, 0]) > 1:
            hidden.add(held[0, 0][1])
        for b in r.boxes:
            for h in b.hands:
                for i, down in enumerate(h.face_down):
                    if down:
                        hidden.add(held[b.number, h.number][i])
        return hidden

    def _compare(self, b: Step, n: Step, origin: int, change: str, hidden: set[int]) -> None:
        """Does record `b` (before) still mean and do the same as `n` (corrected)?"""
        asked = b.event if b.seq != origin or b.event is None else {**b.event, "card": None}
        now = n.event if n.seq != origin or n.event is None else {**n.event, "card": None}
        what = f"{self._describe(b, hidden)} that followed (seq {b.seq})"
        why = f": {change}" if change else ""
        if (asked, b.alert) != (now, n.alert):
            if b.event and n.event and b.event.get("type") == "action":
                raise Refused(
                    f"after the correction {what} would have been box {n.event.get('box')}'s, "
                    f"not box {b.event.get('box')}'s{why}"
                )
            raise Refused(f"after the correction {what} would have meant something else{why}")
        if b.refused is None and n.refused is not None:
            reason = "" if b.seq in hidden else f" ({n.refused})"
            if change:
                raise Refused(
                    f"after the correction {change} before {what}, which the table would then "
                    f"refuse{reason}"
                )
            raise Refused(f"after the correction the table would refuse {what}{reason}")
        if b.refused is not None and n.refused is None:
            raise Refused(
                f"after the correction the table would have accepted {what}, which it refused: "
                "the round would have gone differently"
            )
        if _dealt(b) != _dealt(n):
            (bx, bh), (nx, nh) = (_dealt(b) or [(-1, -1)])[0], (_dealt(n) or [(-1, -1)])[0]
            raise Refused(
                f"after the correction {what} would have gone to {_hand_name(nx, nh)}, not "
                f"{_hand_name(bx, bh)} where it was dealt{why}"
            )

    def _describe(self, st: Step, hidden: set[int]) -> str:
        e = st.event
        if e is None:
            return "the record"
        kind = e.get("type")
        if kind == "card":
            if st.seq in hidden:
                return "the card dealt face down"
            return f"the {card_name(e['card'])}" if e.get("card") else "the card"
        if kind == "action":
            return f"box {e.get('box')}'s {str(e.get('action')).replace('_', ' ')}"
        return f"the {str(kind).replace('_', ' ')}"

    def _first_change(self, base: list[Step], new: list[Step], upto: int) -> str:
        """What the correction changed before record `upto`, in words (or "")."""
        for b, n in zip(base[:upto], new[:upto], strict=True):
            was, now = list(map(_shape, b.ops)), list(map(_shape, n.ops))
            for op in n.ops:
                if _shape(op) in was:
                    continue
                if isinstance(op, ops.HandBust):
                    return f"{_hand_name(op.box, op.hand)} would have busted"
                if isinstance(op, ops.HandComplete):
                    return f"{_hand_name(op.box, op.hand)} would have ended ({op.reason})"
                if isinstance(op, ops.HandBlackjack):
                    return f"{_hand_name(op.box, op.hand)} would have had a blackjack"
            for op in b.ops:
                if _shape(op) not in now and isinstance(op, ops.HandBust | ops.HandComplete):
                    return f"{_hand_name(op.box, op.hand)} would still have been in play"
        return ""


def _hand_name(box: int, hand: int) -> str:
    return "the dealer" if box == 0 else f"box {box} hand {hand}"
