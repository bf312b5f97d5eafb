"""Money is `Decimal`, never float. Amounts arrive as decimal strings ("12.50")."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Final

from .errors import BadAmount

ZERO: Final = Decimal(0)
CENT = Decimal("0.01")
# The most any amount at a table (a stake, a limit, a payout) may be: ten
# digits before the point, far above any table, far below the 28 significant
# digits of Decimal's default context in which every sum and payout is made.
MAX_AMOUNT = Decimal("9999999999.99")
MAX_TEXT = "9999999999.99"
MAX_CHARS = 24  # past this, no need to read it: more than any amount
PLAIN = re.compile(r"[0-9]+(\.[0-9]+)?")
# Exactly what parse_amount takes, as docs/schemas/defs.json publishes it ("amount").
AMOUNT_PATTERN = r"^[0-9]{1,10}(\.[0-9]{1,2})?$"
POSITIVE_AMOUNT_PATTERN = r"^(?=.*[1-9])[0-9]{1,10}(\.[0-9]{1,2})?$"  # allow_zero=False


def parse_amount(value: object, what: str = "amount", allow_zero: bool = False) -> Decimal:
    """Parse a money amount given as a decimal string (or an int).

    Floats are refused on purpose: 0.1 + 0.2 is not money. So are exponents
    ("1e30"), signs, spaces and underscores, which Decimal would take: an
    amount is written as chips are counted, and one past `MAX_AMOUNT` would
    overflow the 28 digits every later sum and payout is computed in
    (decimal.InvalidOperation, not a refusal). The text's length is bounded
    before Decimal sees it.
    """
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise BadAmount(f'{what} must be a decimal string such as "12.50", not {_shown(value)}')
    if isinstance(value, int):
        if abs(value) > MAX_AMOUNT:
            raise BadAmount(
                f"{what} {_shown(value)} is more than {MAX_TEXT}, the most any amount is"
            )
        value = str(value)
    if len(value) > MAX_CHARS:
        raise BadAmount(f"{what} is {len(value)} characters long: not an amount")
    try:
        amount = Decimal(value)
    except InvalidOperation:
        raise BadAmount(f"{what} {value!r} is not a number") from None
    if not amount.is_finite():
        raise BadAmount(f"{what} {value!r} is not a finite amount")
    if amount < 0 or value.lstrip().startswith("-"):
        raise BadAmount(f"{what} {value!r} is negative")
    if not PLAIN.fullmatch(value):
        raise BadAmount(
            f'{what} {value!r}: write plain digits such as "12.50" '
            "(no exponent, sign, spaces or underscores)"
        )
    whole, _, cents = value.partition(".")
    if len(cents) > 2:
        raise BadAmount(f"{what} {value!r} has more than 2 decimal places")
    if amount > MAX_AMOUNT or len(whole) > 10:
        raise BadAmount(f"{what} {value!r} is more than {MAX_TEXT}, the most any amount is")
    if amount == 0 and not allow_zero:
        raise BadAmount(f"{what} must be more than 0")
    return amount


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def fmt(amount: Decimal) -> str:
    """The contract's money string: no exponent, no trailing zeros past the cents."""
    if amount == amount.to_integral_value():
        return str(amount.quantize(Decimal(1)) + 0)  # "+ 0" turns -0 into 0
    exact = amount.normalize()
    if exact.as_tuple().exponent == -1:
        exact = exact.quantize(CENT)  # 12.5 -> "12.50", as chips are counted
    return format(exact, "f")
