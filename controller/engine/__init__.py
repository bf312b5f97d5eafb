"""The rules engine: pure Python, no I/O. `state + event -> (state', operations)`
or a typed refusal that says why and changes nothing."""

from .cards import CARD_CODES, VALUE, parse_card
from .errors import (
    BadAmount,
    BadEvent,
    BetRefused,
    IllegalAction,
    OutOfTurn,
    ProfileError,
    ShoeError,
    TableError,
    UnknownCard,
)
from .events import Event, parse_event
from .outcome import Outcome, outcome_json
from .phase import Expect, Phase
from .profile import SETTINGS, RuleProfile, profile_from_mapping
from .round import Round
from .table import Table

__all__ = [
    "CARD_CODES",
    "SETTINGS",
    "VALUE",
    "BadAmount",
    "BadEvent",
    "BetRefused",
    "Event",
    "Expect",
    "IllegalAction",
    "OutOfTurn",
    "Outcome",
    "Phase",
    "ProfileError",
    "Round",
    "RuleProfile",
    "ShoeError",
    "Table",
    "TableError",
    "UnknownCard",
    "outcome_json",
    "parse_card",
    "parse_event",
    "profile_from_mapping",
]
