"""The dealer and the players of the simulated table.

`SimTable.step` looks at the table (read-only, in the service loop) and
makes the next thing happen at the table through the simulated drivers:
the dealer draws a card past the camera or presses a button, a player puts
chips on a spot. The service loop calls it as a timer; it returns the
delay before the next step, scaled by the speed.

Every choice is a pure function of the seed and the table's state (the
round number and how far its log has come), never of a running random
stream, so a simulator killed and restarted on its journal makes exactly
the choices the uninterrupted run would have made.

The players exercise the profile's rules: bets behind where allowed,
insurance (raised after a double or split where be-casino allows it),
surrender, doubles and splits by basic strategy with an occasional other
legal choice, pushes left on the layout (fr-classic), and the dealer's
card drawn by mistake now and then (be-casino) that the next boxes take or
refuse.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from decimal import Decimal

from controller.engine import TableError, ops
from controller.engine.cards import VALUE
from controller.engine.phase import Phase
from controller.engine.round import Round
from controller.intake import player_at
from controller.surveillance.payouts import dues
from controller.view import TableView
from drivers.fakes import FakeBetSensor
from sim import counters
from sim.keypad import SimKeypad
from sim.strategy import Strategy
from sim.twins import ShoeTwin

# Seconds each kind of step takes a real table at speed 1.
PACE = {"card": 0.7, "bet": 0.4, "press": 0.8, "decide": 1.5, "key": 3.0, "shoe": 5.0}
STUCK = 12  # steps without any new operation: the bots and the table disagree
# How often the dealer looks again while a card drawn past the camera is being read.
READING = 0.002


class SimStuck(Exception):
    pass


class SimTable:
    def __init__(
        self,
        view: TableView,
        cards: ShoeTwin,
        sensors: FakeBetSensor,
        panel: SimKeypad,
        seed: int,
        speed: float | None,  # None: as fast as the table takes it
        rounds: int = 0,
        mistake_rate: float = 0.03,
        on_done: Callable[[], None] | None = None,
        cheat_rate: float = 0.0,
        players: dict[int, str] | None = None,
        payouts: bool = False,
        payout_error_rate: float = 0.0,
    ) -> None:
        self.view = view
        self.cards = cards
        self.sensors = sensors
        self.panel = panel
        self.seed = seed
        self.speed = speed
        self.rounds = rounds
        self.mistake_rate = mistake_rate
        self.on_done = on_done
        self.profile = view.table.p
        self.strategy = Strategy(self.profile)
        self.cheat_rate = cheat_rate
        # Every chip move a cheating player made: (round, "late_bet"|"pinched_bet", box, amount).
        self.cheats: list[tuple[int, str, int, Decimal]] = []
        # Boxes whose holder bets by a rule (sim.counters): box -> kind.
        self.players = dict(players or {})
        # The dealer pays and collects on the sensors after each round (sim.counters'
        # neighbour: `_settle_spots`), wrong on this share of the spots.
        self.payouts = payouts or payout_error_rate > 0
        self.payout_error_rate = payout_error_rate
        # Every payout the dealer got wrong: (round, box, spot, what, difference).
        self.payout_errors: list[tuple[int, int, int, str, Decimal]] = []
        self._paid = -1  # the last round whose payouts the dealer made
        self._last: tuple[object, ...] = ()
        self._idle = 0

    # ------------------------------------------------------------ randomness
    def chance(self, *key: object) -> float:
        """A number in [0, 1) fixed by the seed and `key`."""
        return random.Random(":".join([str(self.seed), *map(str, key)])).random()

    def _pace(self, kind: str) -> float:
        return 0.0 if self.speed is None else PACE[kind] / self.speed

    # ------------------------------------------------------------------ step
    def step(self) -> float | None:
        v = self.view
        if v.halted is not None:
            return 0.5  # the table takes no input now (its journal cannot commit): wait
        if self.cards.busy():
            return READING  # the camera has not read the last card yet: not a stall
        # Chips the dealer moves after a round may change no bet: they are progress too.
        progress = (v.seq, v.awaiting_key, tuple(v.intake.bets.watch.sensed.items()))
        self._idle = self._idle + 1 if progress == self._last else 0
        self._last = progress
        if self._idle > STUCK:
            raise SimStuck(f"the simulated table made no progress for {STUCK} steps at seq {v.seq}")
        t = v.table
        r = t.round
        if v.awaiting_key or self.cards.to_key():
            # Asked to key the card in (unreadable), or the screen shows nothing for it.
            self.panel.press("key_card", card=self.cards.card_at(v.shoes, t.shoe.out))
            return self._pace("key")
        if r is None or r.over:
            return self._between_rounds()
        if self._mistake_to_call(r):
            self.panel.press("misdeal_card")
            return self._pace("press")
        what = t.expecting().what
        if what == "card":
            return self._deal(self._deal_run(r))
        if what == "insurance":
            return self._insurance(r)
        if what == "offer":
            return self._offer(r)
        return self._decide(r)

    def _deal(self, cards: int = 1) -> float:
        """Draw `cards` cards past the camera, stopping after one it cannot read."""
        shoes, out = self.view.shoes, self.view.table.shoe.out
        for position in range(out, out + cards):
            if not self.cards.deal(shoes, position):
                break
        return self._pace("card")

    def _deal_run(self, r: Round) -> int:
        """How many cards the dealer may draw in one go: at full speed, the rest of the
        initial deal (nothing can interrupt it); else one at a time, as a dealer does.
        A card read by the camera is known only when its read comes: one at a time."""
        if self.speed is None and r.phase is Phase.DEAL and self.cards.immediate:
            return r.deal_cards_left
        return 1

    # --------------------------------------------------------- between rounds
    def _between_rounds(self) -> float | None:
        t = self.view.table
        if self.rounds and t.rounds >= self.rounds:
            if self.on_done is not None:
                self.on_done()
            return None
        if self.payouts and self._paid != t.rounds:
            if self._settle_spots():
                return self._pace("bet")
            # The dealer's one memory: this round is settled, the players' chips are
            # theirs (after a restart the dealer looks once more, and finds it settled).
            self._paid = t.rounds
        if self.view.shoes == 0 or t.shoe.cut_reached:
            self.panel.press("new_shoe")
            return self._pace("shoe")
        if t.burns_due:
            return self._deal()
        moves = self._bet_moves()
        if not moves and self._tidy():
            return self._pace("bet")
        if not moves:
            self.panel.press("close_bets")
            return self._pace("press")
        if self.speed is not None:
            moves = moves[:1]  # one player at a time, at a watchable pace
        for box, spot, amount in moves:
            self.sensors.place(box, amount, spot)
        if self.speed is None:
            self._tidy(skip={(box, spot) for box, spot, _ in moves})
            self.panel.press("close_bets")
        return self._pace("bet")

    def _settle_spots(self) -> bool:
        """The round is settled: the dealer pays the winners and collects the losers on
        their spots (spots whose sensor shows the whole stake; split chips lie beside the
        spot and are settled there), before the players touch their chips. False when
        there is nothing (more) to do. The dealer's mistakes are fixed by the seed: a
        winner overpaid or underpaid, a loser's chips left on the spot, a surrendered
        hand's other half taken too."""
        r = self.view.table.round
        if r is None or r.outcome is None:
            return False
        shown = self.view.intake.bets.watch.sensed
        unit = self.profile.table_min
        moves: list[tuple[int, int, Decimal, str, Decimal]] = []
        for (box, spot), due in sorted(dues(r.outcome).items()):
            if shown.get((box, spot)) != due.stake or due.expected == due.stake:
                continue  # nothing to do, or not on the sensor, or done already
            amount, what = due.expected, ""
            if self.chance(r.number, "payout", box, spot) < self.payout_error_rate:
                how = self.chance(r.number, "payout how", box, spot)
                if due.net > 0:
                    amount += unit if how < 0.5 else -due.net / 2
                    what = "overpaid" if how < 0.5 else "underpaid"
                elif due.expected > 0 and how < 0.5:
                    amount, what = Decimal(0), "collected_wrong"
                else:
                    error = (r.number, box, spot, "not_collected", due.stake - due.expected)
                    if error not in self.payout_errors:
                        self.payout_errors.append(error)
                    continue  # the loser's chips stay where they are
            moves.append((box, spot, amount, what, due.expected))
        if self.speed is not None:
            moves = moves[:1]  # the dealer settles one spot at a time, at a watchable pace
        for box, spot, amount, what, expected in moves:
            if what:
                self.payout_errors.append((r.number, box, spot, what, amount - expected))
            self.sensors.place(box, amount, spot)
        return bool(moves)

    def _tidy(self, skip: set[tuple[int, int]] | None = None) -> bool:
        """Before the close, the spots show exactly the bets: players take their winnings
        and the doubled chips back (a spot the table holds no bet for is emptied). What
        the spots show is the service's record of the sensors (rebuilt from the journal
        after a restart), so this too is a function of the table's state."""
        target = self.bets_for(self.view.table.rounds + 1)
        moved = False
        for (box, spot), shown in sorted(self.view.intake.bets.watch.sensed.items()):
            if skip and (box, spot) in skip:
                continue
            bet = target.get((box, player_at(box, spot)), Decimal(0))
            if shown != bet:
                self.sensors.place(box, bet, spot)
                moved = True
        return moved

    def _bet_moves(self) -> list[tuple[int, int, Decimal]]:
        """The chip moves to this round's bets, in an order the table accepts:
        decreases first (bets behind before the holder's), then increases (holder first)."""
        t = self.view.table
        target = self.bets_for(t.rounds + 1)
        now = {(b, p): a for b, stakes in t.bets.items() for p, a in stakes.items()}
        moves = []
        for (box, player), amount in now.items():
            want = target.get((box, player), Decimal(0))
            if want < amount:
                moves.append((0, player == f"box{box}", box, player, want))
        for (box, player), want in target.items():
            if want > now.get((box, player), Decimal(0)):
                moves.append((1, player != f"box{box}", box, player, want))
        return [(box, _spot(player), amount) for _, _, box, player, amount in sorted(moves)]

    def bets_for(self, number: int) -> dict[tuple[int, str], Decimal]:
        """Round `number`'s bets: (box, player) -> stake, within every table limit."""
        t = self.view.table
        p = self.profile
        rng = random.Random(f"{self.seed}:round:{number}:bets")
        carried = self._carried()
        seated = {b: kind for b, kind in self.players.items() if b <= t.boxes}
        boxes = [b for b in range(1, t.boxes + 1) if rng.random() < 0.75 or b in seated]
        need = max(1, p.min_boxes)
        if len(boxes) < need:
            boxes = sorted(set(rng.sample(range(1, t.boxes + 1), need)) | set(seated))
        behind = max(1, p.max_players_per_box or 3) - 1 if p.bets_behind else 0
        target: dict[tuple[int, str], Decimal] = {}
        for box in boxes:
            total = Decimal(0)
            for spot in range(behind + 1):
                player = player_at(box, spot)
                if spot and rng.random() >= 0.35:
                    continue
                kept = carried.get((box, player))
                amount = kept if kept is not None and rng.random() < 0.8 else self._stake(rng)
                if spot == 0 and box in seated:
                    amount = counters.stake(seated[box], t, self.view.shoes > 0)
                if total + amount > t.table_max:
                    break
                target[box, player] = amount
                total += amount
        return target

    def _stake(self, rng: random.Random) -> Decimal:
        # The table's limits, not the profile's: the pit may have changed them (set_limits).
        t = self.view.table
        amount = t.table_min * rng.choice((1, 1, 2, 2, 3, 4, 5, 10))
        amount = min(amount, t.table_max)
        return amount - amount % self.profile.bet_multiple

    def _carried(self) -> dict[tuple[int, str], Decimal]:
        r = self.view.table.round
        if r is None or r.outcome is None:
            return {}
        return dict(r.outcome.carried)

    # -------------------------------------------------------------- insurance
    def _insurance(self, r: Round) -> float:
        moves = [
            (box.number, _spot(player), stake / 2)
            for box in r.boxes
            for player, stake in box.stakes.items()
            if self.chance(r.number, "insure", box.number, player) < 0.3
            and box.insurance.get(player) != stake / 2
        ]
        if self.speed is not None and moves:
            moves = moves[:1]
        for box_number, spot, amount in moves:
            self.sensors.place(box_number, amount, spot, "insurance")
        if self.speed is None or not moves:
            self.panel.press("close_insurance")
        return self._pace("bet")

    def _raise_insurance(self, r: Round) -> bool:
        """be-casino: after a double or split, an insured player may raise to half the new stake."""
        box = r.boxes[r.turn]
        if not (self.profile.insurance_raise and box.doubled_or_split):
            return False
        for player, held in box.insurance.items():
            want = box.player_total_stake(player) / 2
            if held < want and self.chance(r.number, "raise", box.number, player, want) < 0.6:
                self.sensors.place(box.number, want, _spot(player), "insurance")
                return True
        return False

    # -------------------------------------------------------------- decisions
    def _decide(self, r: Round) -> float:
        if self._raise_insurance(r):
            return self._pace("bet")
        if self._cheat(r):
            return self._pace("bet")
        box = r.boxes[r.turn]
        at = len(r.log)
        if self._may_mistake(r) and self.chance(r.number, "mistake", at) < self.mistake_rate:
            return self._deal()  # the dealer draws a card nobody asked for
        action = self.strategy.decide(r)
        if self.profile.insurance_raise and box.insurance and action in ("card", "stand"):
            # Insured against the ace, a player doubles or splits more boldly (and may then
            # raise the insurance): the rule be-casino adds.
            for bold in ("split", "double"):
                if r.can(bold) and self.chance(r.number, "bold", at) < 0.5:
                    action = bold
                    break
        legal = r.legal_actions()
        if legal and self.chance(r.number, "other", at) < 0.04:
            action = legal[int(self.chance(r.number, "which", at) * len(legal))]
        if action == "card":
            return self._deal()
        if action == "double" and len(box.hands) == 1:
            # The player puts the double beside the stake, on the sensor, before the
            # dealer confirms it with the button: not a late bet.
            for player, stake in box.stakes.items():
                self.sensors.place(box.number, 2 * stake, _spot(player))
        self.panel.press(action)  # type: ignore[arg-type]
        return self._pace("decide")

    def _cheat(self, r: Round) -> bool:
        """A cheating player, at most once a round, while another box plays: chips
        added to a stake (past-posting) or taken from it (pinching)."""
        if not self.cheat_rate or self.chance(r.number, "cheat") >= self.cheat_rate:
            return False
        # Once a round, at a point fixed by the round's state: the first decision of a box.
        if r.hand_i or len(r.boxes[r.turn].hands[0].cards) != 2:
            return False
        if r.turn != int(self.chance(r.number, "cheat turn") * len(r.boxes)):
            return False
        in_play = r.boxes[r.turn].number
        shown = self.view.intake.bets.watch.sensed
        if any(
            shown.get((b.number, 0)) != b.stakes.get(f"box{b.number}")
            for b in r.boxes
            if not b.doubled_or_split and f"box{b.number}" in b.stakes
        ):
            return False  # this round's cheat is done (a spot no longer shows its stake)
        boxes = [
            b
            for b in r.boxes
            if b.number != in_play
            and not b.doubled_or_split
            and not any(h.surrendered or h.paid or h.hard > 21 for h in b.hands)
            and f"box{b.number}" in b.stakes
            and shown.get((b.number, 0)) == b.stakes[f"box{b.number}"]  # not cheated yet
        ]
        if not boxes:
            return False
        box = boxes[int(self.chance(r.number, "cheat box") * len(boxes))]
        stake = box.stakes[f"box{box.number}"]
        if self.chance(r.number, "cheat how") < 0.5:
            self.sensors.place(box.number, stake + self.profile.table_min, 0)
            self.cheats.append((r.number, "late_bet", box.number, self.profile.table_min))
        else:
            self.sensors.place(box.number, Decimal(0), 0)
            self.cheats.append((r.number, "pinched_bet", box.number, stake))
        return True

    def _may_mistake(self, r: Round) -> bool:
        if not self.profile.misdeal_offer or r.offer is not None or not self.mistake_rate:
            return False
        _, hand = r.current()
        return len(hand.cards) >= 2 and r.can("card")

    def _mistake_to_call(self, r: Round) -> bool:
        """The last card was the dealer's mistake: call it (the panel's mistake button)."""
        if not self.profile.misdeal_offer or not self.mistake_rate:
            return False
        try:
            r.verify_misdeal_card()
        except TableError:
            return False
        for at in range(len(r.log) - 1, -1, -1):
            op = r.log[at]
            if isinstance(op, ops.CardDealt):
                return self.chance(r.number, "mistake", at) < self.mistake_rate
        return False

    def _offer(self, r: Round) -> float:
        _, hand = r.current()
        card = r.offer or ""
        # Take it when basic strategy would hit this hand anyway (decide() needs no offer open).
        code = self.strategy.code(hand.cards, hand.hard, hand.soft, r.dealer[0])
        wanted = hand.hard + VALUE[card] <= 21 and code in ("H", "D", "R")
        self.panel.press("take_card" if wanted else "refuse_card")
        return self._pace("decide")


def _spot(player: str) -> int:
    return int(player.rsplit("/", 1)[1]) if "/" in player else 0
