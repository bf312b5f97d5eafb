"""Cards as the two-character codes of the contract: rank then suit, `TH`."""

from __future__ import annotations

from typing import Final

from .errors import UnknownCard

RANKS = "A23456789TJQK"
SUITS = "SHDC"
CARD_CODES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)

# Point value with the ace as 1; an ace may add 10 when that does not bust.
VALUE: Final[dict[str, int]] = {code: min(RANKS.index(code[0]) + 1, 10) for code in CARD_CODES}
RANK_NAMES = {
    "A": "ace",
    "2": "two",
    "3": "three",
    "4": "four",
    "5": "five",
    "6": "six",
    "7": "seven",
    "8": "eight",
    "9": "nine",
    "T": "ten",
    "J": "jack",
    "Q": "queen",
    "K": "king",
}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def parse_card(code: object) -> str:
    """Return `code` if it names one of the 52 cards, else raise `UnknownCard`."""
    if isinstance(code, str) and code in VALUE:
        return code
    if isinstance(code, str) and len(code) == 2 and code.upper() in VALUE:
        raise UnknownCard(
            f"unknown card {code!r}: card codes are upper case, e.g. {code.upper()!r}"
        )
    shown = repr(code) if len(repr(code)) <= 40 else repr(code)[:37] + "..."
    raise UnknownCard(
        f"unknown card {shown}: expected a rank of {RANKS} then a suit of {SUITS}, e.g. 'TH'"
    )


def card_name(code: str) -> str:
    return f"{RANK_NAMES[code[0]]} of {SUIT_NAMES[code[1]]}"


def is_ten(code: str) -> bool:
    return VALUE[code] == 10


def is_ace(code: str) -> bool:
    return code[0] == "A"
