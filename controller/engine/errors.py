"""One exception hierarchy for everything the table refuses.

Every refusal is a `TableError`; its message is written for a dealer or a
pit supervisor ("box 3 cannot double: fr-classic allows it only on 9, 10 or
11"), and raising one never changes the state it was raised from.
"""

from __future__ import annotations


class TableError(Exception):
    """Base of every refusal by the table."""


class BadEvent(TableError, ValueError):
    """The event itself is malformed: unknown type, missing or ill-typed field."""


class UnknownCard(BadEvent):
    """A card code that is not one of the 52 (rank A23456789TJQK, suit SHDC)."""


class BadAmount(BadEvent):
    """A money amount that is not a positive decimal string with at most 2 places."""


class IllegalAction(TableError, ValueError):
    """The event is well formed but the rules or the moment do not allow it."""


class OutOfTurn(IllegalAction):
    """An event for a box, hand or phase that is not the one in play."""


class BetRefused(IllegalAction):
    """A bet outside the table's limits, multiple, or box rules."""


class ShoeError(IllegalAction):
    """A card the shoe cannot hold (more copies than the decks have) or a burn out of place."""


class ProfileError(TableError, ValueError):
    """A rule profile with an unknown, missing or out-of-range setting."""
