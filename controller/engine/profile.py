"""Rule profiles: every rule of a rule book as data.

A profile is a frozen value; the engine reads it and never changes it. Each
setting has a stated default (the table below) so a rule book that is silent
on a point still gives a definite game; the shipped profiles say where each
value comes from. Files are read elsewhere (controller.rules); this module
only validates a mapping, so the engine stays free of I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from decimal import Decimal, InvalidOperation
from typing import Any

from .errors import ProfileError
from .money import MAX_AMOUNT, PLAIN

MAX_INT = 10**9  # no whole-number setting comes near; bounds a 5,000-digit value


@dataclass(frozen=True, slots=True)
class Setting:
    kind: type
    default: Any
    doc: str
    choices: tuple[str, ...] = ()
    low: int | Decimal | None = None
    high: int | Decimal | None = None


# name -> Setting. The order is the order `croupier rules` prints them in.
SETTINGS: dict[str, Setting] = {
    # The shoe
    "decks": Setting(int, 6, "decks of 52 cards in the shoe", low=1, high=8),
    "burn": Setting(int, 0, "cards burned after the shuffle and cut", low=0, high=52),
    "penetration": Setting(
        Decimal,
        Decimal("0.75"),
        "share of the shoe dealt before the cut card comes out",
        low=Decimal("0.25"),
        high=Decimal("0.95"),
    ),
    # The layout
    "boxes": Setting(int, 7, "betting boxes on the layout", low=1, high=9),
    "min_boxes": Setting(int, 1, "boxes that must hold a stake before the deal", low=1, high=9),
    "table_min": Setting(
        Decimal, Decimal(5), "smallest stake a player may place", low=Decimal("0.01")
    ),
    "table_max": Setting(
        Decimal, Decimal(500), "largest total stake on one box", low=Decimal("0.01")
    ),
    "bet_multiple": Setting(
        Decimal, Decimal(1), "every stake is a whole multiple of this", low=Decimal("0.01")
    ),
    "bets_behind": Setting(bool, False, "other players may bet on a box; the box holder decides"),
    "max_players_per_box": Setting(
        int, 1, "players on one box, the holder included (0: no limit)", low=0, high=20
    ),
    # The deal
    "hole_card": Setting(
        bool, False, "the dealer's second card is dealt face down with the players'"
    ),
    "peek": Setting(
        bool, False, "with a hole card, the dealer checks for blackjack under an ace or ten"
    ),
    "player_closed_card": Setting(
        bool, False, "each player's second card stays face down until their turn"
    ),
    "dealer_hits_soft_17": Setting(
        bool, False, "the dealer draws on soft 17 (H17); else stands (S17)"
    ),
    # Doubling
    "double_totals": Setting(
        tuple, (), "two-card totals that may double (empty: any two cards)", low=2, high=21
    ),
    "double_after_split": Setting(bool, True, "a hand made by a split may double"),
    "double_face_down": Setting(
        bool, False, "the double's card stays face down until the dealer finishes"
    ),
    # Splitting
    "max_hands": Setting(int, 4, "hands a box may hold after splits", low=1, high=8),
    "split_match": Setting(
        str,
        "value",
        "a pair is two cards of the same value, or the same rank",
        choices=("value", "rank"),
    ),
    "resplit_aces": Setting(bool, False, "split aces may be split again"),
    "max_ace_hands": Setting(int, 2, "hands a box may hold after splitting aces", low=2, high=8),
    # Surrender
    "surrender": Setting(bool, False, "a hand of two cards may be given up for half its stake"),
    "surrender_min_total": Setting(
        int, 0, "smallest hard total that may surrender", low=0, high=21
    ),
    "surrender_with_ace": Setting(bool, True, "a hand holding an ace may surrender"),
    "surrender_vs_ace": Setting(bool, True, "surrender is allowed when the dealer shows an ace"),
    # Insurance
    "insurance": Setting(bool, True, "insurance is offered when the dealer's up card is an ace"),
    "insurance_pays": Setting(
        Decimal,
        Decimal(2),
        "insurance pays this many times its stake",
        low=Decimal(1),
        high=Decimal(10),
    ),
    "insurance_raise": Setting(
        bool, False, "insurance may be raised after that box doubles or splits"
    ),
    # Blackjack
    "blackjack_pays": Setting(
        Decimal,
        Decimal("1.5"),
        "a player blackjack pays this many times the stake",
        low=Decimal(1),
        high=Decimal(3),
    ),
    "blackjack_paid_at_once": Setting(
        str,
        "never",
        "when a player blackjack is paid before the dealer plays",
        choices=("never", "unless_dealer_ace", "always"),
    ),
    "blackjack_vs_dealer_blackjack": Setting(
        str,
        "push",
        "a player blackjack against a dealer blackjack",
        choices=("push", "lose"),
    ),
    "enhc_loses": Setting(
        str,
        "all",
        "a dealer blackjack found after play takes all stakes, or the original only",
        choices=("all", "original"),
    ),
    "push_stays": Setting(bool, False, "a pushed stake stays on the box as the next round's bet"),
    # Specials
    "forced_draw_to": Setting(
        int, 0, "the box holder must draw until the hand reaches this (0: off)", low=0, high=21
    ),
    "forced_draw_total": Setting(
        str, "hard", "the total the forced draw looks at", choices=("hard", "best")
    ),
    "misdeal_offer": Setting(
        bool, False, "a card drawn by mistake is offered to the following boxes"
    ),
}

PAYS_TEXT = {Decimal("1.5"): "3:2", Decimal("1.2"): "6:5", Decimal(1): "1:1", Decimal(2): "2:1"}


@dataclass(frozen=True, slots=True)
class RuleProfile:
    name: str
    title: str = ""
    source: str = ""
    notes: tuple[str, ...] = ()
    decks: int = 6
    burn: int = 0
    penetration: Decimal = Decimal("0.75")
    boxes: int = 7
    min_boxes: int = 1
    table_min: Decimal = Decimal(5)
    table_max: Decimal = Decimal(500)
    bet_multiple: Decimal = Decimal(1)
    bets_behind: bool = False
    max_players_per_box: int = 1
    hole_card: bool = False
    peek: bool = False
    player_closed_card: bool = False
    dealer_hits_soft_17: bool = False
    double_totals: tuple[int, ...] = ()
    double_after_split: bool = True
    double_face_down: bool = False
    max_hands: int = 4
    split_match: str = "value"
    resplit_aces: bool = False
    max_ace_hands: int = 2
    surrender: bool = False
    surrender_min_total: int = 0
    surrender_with_ace: bool = True
    surrender_vs_ace: bool = True
    insurance: bool = True
    insurance_pays: Decimal = Decimal(2)
    insurance_raise: bool = False
    blackjack_pays: Decimal = Decimal("1.5")
    blackjack_paid_at_once: str = "never"
    blackjack_vs_dealer_blackjack: str = "push"
    enhc_loses: str = "all"
    push_stays: bool = False
    forced_draw_to: int = 0
    forced_draw_total: str = "hard"
    misdeal_offer: bool = False

    @property
    def dealer_blackjack_after_play(self) -> bool:
        """True when a dealer blackjack can appear after the players have acted."""
        return not (self.hole_card and self.peek)

    def settings(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in SETTINGS}

    def describe_double(self) -> str:
        if not self.double_totals:
            return "any two cards"
        return _or_list([str(t) for t in self.double_totals])


def _or_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _check(where: str, name: str, value: Any) -> Any:
    spec = SETTINGS[name]
    at = f"{where}: {name}"
    if spec.kind is bool:
        if not isinstance(value, bool):
            raise ProfileError(f"{at}: expected true or false, got {value!r}")
        return value
    if spec.kind is int:
        if isinstance(value, bool) or not isinstance(value, int) or abs(value) > MAX_INT:
            raise ProfileError(f"{at}: expected a whole number, got {_shown(value)}")
        _bounds(at, spec, value)
        return value
    if spec.kind is Decimal:
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise ProfileError(f'{at}: expected a decimal string such as "1.5", got {value!r}')
        if isinstance(value, int) and abs(value) > MAX_INT:
            raise ProfileError(f"{at}: {_shown(value)} is out of range")
        if isinstance(value, str) and len(value) > 24:
            raise ProfileError(f"{at}: {_shown(value)} is not a number a profile uses")
        try:
            number = Decimal(value)
        except InvalidOperation:
            raise ProfileError(f"{at}: {value!r} is not a number") from None
        if not number.is_finite():
            raise ProfileError(f"{at}: {value!r} is not a finite number")
        if isinstance(value, str) and not PLAIN.fullmatch(value.lstrip("-")):
            # "1e30" is a number, but one that overflows every later sum (InvalidOperation)
            raise ProfileError(f'{at}: {value!r}: write plain digits such as "1.5" (no exponent)')
        if abs(number) > MAX_AMOUNT:
            raise ProfileError(f"{at}: {value!r} is more than {MAX_AMOUNT}, the most any amount is")
        _bounds(at, spec, number)
        return number
    if spec.kind is str:
        if value not in spec.choices:
            raise ProfileError(f"{at}: expected one of {', '.join(spec.choices)}, got {value!r}")
        return value
    # tuple of totals
    if not isinstance(value, list | tuple) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise ProfileError(f"{at}: expected a list of whole numbers, got {value!r}")
    for v in value:
        _bounds(at, spec, v)
    return tuple(sorted(set(value)))


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _bounds(at: str, spec: Setting, value: int | Decimal) -> None:
    if spec.low is not None and value < spec.low:
        raise ProfileError(f"{at}: {value} is below the smallest allowed value, {spec.low}")
    if spec.high is not None and value > spec.high:
        raise ProfileError(f"{at}: {value} is above the largest allowed value, {spec.high}")


def profile_from_mapping(
    data: Mapping[str, Any], where: str, base: RuleProfile | None = None
) -> RuleProfile:
    """Build a profile from a mapping (a parsed TOML file), on top of `base`.

    `where` names the source (a file name) in every error message. An unknown
    key is an error, not a silent default: a typo in a rule must not go
    unnoticed on a casino floor.
    """
    known = {f.name for f in fields(RuleProfile)} | {"extends"}
    for key in data:
        if key not in known:
            raise ProfileError(f"{where}: unknown setting {key!r}")
    values: dict[str, Any] = (
        {} if base is None else {f.name: getattr(base, f.name) for f in fields(RuleProfile)}
    )
    name = data.get("name", values.get("name"))
    if not isinstance(name, str) or not name:
        raise ProfileError(f"{where}: name: expected the profile's name")
    values["name"] = name
    for key in ("title", "source"):
        if key in data:
            if not isinstance(data[key], str):
                raise ProfileError(f"{where}: {key}: expected text")
            values[key] = data[key]
    if "notes" in data:
        notes = data["notes"]
        if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
            raise ProfileError(f"{where}: notes: expected a list of texts")
        values["notes"] = tuple(notes)
    for key in SETTINGS:
        if key in data:
            values[key] = _check(where, key, data[key])
    profile = RuleProfile(**values)
    _check_consistency(where, profile)
    return profile


def _check_consistency(where: str, p: RuleProfile) -> None:
    if p.peek and not p.hole_card:
        raise ProfileError(
            f"{where}: peek: the dealer can only peek with a hole card (hole_card = true)"
        )
    if p.min_boxes > p.boxes:
        raise ProfileError(f"{where}: min_boxes: {p.min_boxes} is more than the {p.boxes} boxes")
    if p.table_min > p.table_max:
        raise ProfileError(f"{where}: table_min: {p.table_min} is above table_max {p.table_max}")
    if p.max_players_per_box != 1 and not p.bets_behind:
        raise ProfileError(
            f"{where}: max_players_per_box: more than one player per box needs bets_behind = true"
        )
    if p.table_min % p.bet_multiple or p.table_max % p.bet_multiple:
        raise ProfileError(
            f"{where}: bet_multiple: table_min and table_max must be multiples of it"
        )
    if p.misdeal_offer and (p.hole_card or p.player_closed_card):
        raise ProfileError(
            f"{where}: misdeal_offer: the offered mistaken card (003) needs a game with every card "
            "face up (hole_card and player_closed_card false)"
        )
    if p.max_ace_hands > p.max_hands:
        raise ProfileError(f"{where}: max_ace_hands: {p.max_ace_hands} is more than max_hands")
