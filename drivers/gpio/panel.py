"""The dealer's panel on GPIO: buttons in, LEDs out.

Buttons are wired from a GPIO to ground with the internal pull-up on, so a
pressed button reads LOW (docs/hardware.md). A plain button counts when it
goes down (debounced). A costly button (void, new shoe, mistaken card by
default) counts only when held for `hold_s`, or when a short press is
followed by `confirm` within `confirm_window_s` (the confirm LED lights
while it waits): a brushed button never voids a round.

`show(what, actions)` lights the LEDs of what the engine expects next (the
service passes `table.expecting()`): `close_bets` while bets are open, the
legal decisions during a box's turn, `close_insurance` while insurance is
offered, `take_card` / `refuse_card` while a mistaken card is offered.
"""

from __future__ import annotations

import threading
from typing import cast

from drivers.gpio.inputs import GpioInputs, InputSettings
from drivers.interfaces import BUTTONS, Button, PanelPress
from drivers.settings import COSTLY, PanelSection

# What each `expecting().what` lights.
_LIT = {
    "bet": ("close_bets",),
    "insurance": ("close_insurance",),
    "offer": ("take_card", "refuse_card"),
}
_DECISIONS = ("stand", "double", "split", "surrender")


def lit_for(what: str, actions: tuple[str, ...] = (), awaiting_key: bool = False) -> set[str]:
    """The actions whose LEDs are on when the engine expects `what`."""
    if awaiting_key:
        return {"call_supervisor"}  # an unreadable card: key it in (keypad) or call for help
    if what == "action":
        return {a for a in actions if a in _DECISIONS}
    return set(_LIT.get(what, ()))


class GpioPanel(GpioInputs):
    def __init__(
        self,
        buttons: dict[str, int],
        leds: dict[str, int],
        s: InputSettings,
        hold_s: float = 1.5,
        costly: tuple[str, ...] = COSTLY,
        confirm_window_s: float = 3.0,
        name: str = "panel",
    ) -> None:
        super().__init__(
            name,
            {pin: f"{a} button" for a, pin in buttons.items()},
            s,
            outputs=tuple(leds.values()),
        )
        self.action_of = {pin: action for action, pin in buttons.items()}
        self.leds = dict(leds)
        self.hold_s = hold_s
        self.costly = costly
        self.confirm_window_s = confirm_window_s
        self._down: dict[int, float] = {}  # pin -> when it went down (this press)
        self._fired: set[int] = set()  # costly presses already fired by holding
        self._armed: tuple[str, float] | None = None  # a short costly press awaiting confirm
        self._lit: set[str] = set()
        self._expect: set[str] = set()
        self._led_lock = threading.Lock()

    @classmethod
    def from_config(cls, cfg: PanelSection) -> GpioPanel:
        s = InputSettings(True, cfg.debounce_s, cfg.flap_edges, cfg.flap_window_s)
        return cls(
            dict(cfg.buttons), dict(cfg.leds), s, cfg.hold_s, cfg.costly, cfg.confirm_window_s
        )

    # --------------------------------------------------------------- buttons
    def changed(self, pin: int, active: bool, t: float) -> None:
        action = self.action_of[pin]
        if active:
            self._pressed(pin, action, t)
        else:
            self._released(pin, action, t)

    def _pressed(self, pin: int, action: str, t: float) -> None:
        self._down[pin] = t
        self._fired.discard(pin)
        if action == "confirm":
            armed, self._armed = self._armed, None
            self._refresh()
            if armed is not None and t <= armed[1]:
                self._fire(armed[0])
            return
        if action in self.costly:
            self.at(t + self.hold_s, lambda now: self._held(pin, t, now))
            return
        self._fire(action)

    def _held(self, pin: int, since: float, now: float) -> None:
        """The hold timer: fire if this very press is still down."""
        if self._down.get(pin) == since and self.active.get(pin):
            self._fired.add(pin)
            self._fire(self.action_of[pin])

    def _released(self, pin: int, action: str, t: float) -> None:
        self._down.pop(pin, None)
        if action in self.costly and pin not in self._fired:
            self.log.info("%s released before %g s: press confirm to do it", action, self.hold_s)
            self._armed = (action, t + self.confirm_window_s)
            self.at(t + self.confirm_window_s, self._disarm)
            self._refresh()

    def _disarm(self, now: float) -> None:
        if self._armed is not None and self._armed[1] <= now:
            self._armed = None
            self._refresh()

    def _fire(self, action: str) -> None:
        if action not in BUTTONS:
            # call_supervisor becomes a table event once the service takes it.
            self.log.warning("%s pressed: not a table button here", action)
            return
        self.log.info("%s", action)
        self.send(PanelPress(cast(Button, action)))

    # ------------------------------------------------------------------ LEDs
    def on_ready(self) -> None:
        with self._led_lock:
            self._lit = set()  # setup() turned every LED off
        self._refresh()

    def show(self, what: str, actions: tuple[str, ...] = (), awaiting_key: bool = False) -> None:
        """Light what the engine expects (from any thread; cheap when nothing changes)."""
        self._expect = lit_for(what, actions, awaiting_key)
        self._refresh()

    def _refresh(self) -> None:
        with self._led_lock:
            want = set(self._expect)
            if self._armed is not None:
                want.add("confirm")
            want &= set(self.leds)
            for action in sorted(want ^ self._lit):
                self.write(self.leds[action], action in want)
            self._lit = want

    def lit(self) -> set[str]:
        with self._led_lock:
            return set(self._lit)
