"""Where a round stands: its phase, and what it waits for next."""

from __future__ import annotations

from enum import StrEnum
from typing import Final, NamedTuple


class Phase(StrEnum):
    BETTING = "betting"
    DEAL = "deal"
    INSURANCE = "insurance"
    PLAYERS = "player_turns"
    DEALER = "dealer"
    SETTLED = "settled"
    VOIDED = "voided"


# Module-level names for the phases: the hot paths compare against these
# (a global lookup is several times cheaper than an enum attribute; Final
# ones the compiled engine, sim/native.py, reads without a lookup at all).
DEAL: Final = Phase.DEAL
INSURANCE: Final = Phase.INSURANCE
PLAYERS: Final = Phase.PLAYERS
DEALER: Final = Phase.DEALER
SETTLED: Final = Phase.SETTLED
VOIDED: Final = Phase.VOIDED


class Expect(NamedTuple):
    """What the round waits for next (the dealer screen shows this)."""

    what: str  # bet | card | action | insurance | offer | nothing
    box: int = 0
    hand: int = 0
    actions: tuple[str, ...] = ()
