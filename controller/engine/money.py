"""Money is `Decimal`, never float. Amounts arrive as decimal strings ("12.50")."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from .errors import BadAmount

ZERO = Decimal(0)
CENT = Decimal("0.01")


def parse_amount(value: object, what: str = "amount", allow_zero: bool = False) -> Decimal:
    """Parse a money amount given as a decimal string (or an int).

    Floats are refused on purpose: 0.1 + 0.2 is not money.
    """
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise BadAmount(f'{what} must be a decimal string such as "12.50", not {value!r}')
    try:
        amount = Decimal(value)
    except InvalidOperation:
        raise BadAmount(f"{what} {value!r} is not a number") from None
    if not amount.is_finite():
        raise BadAmount(f"{what} {value!r} is not a finite amount")
    if amount < 0:
        raise BadAmount(f"{what} {value!r} is negative")
    if amount == 0 and not allow_zero:
        raise BadAmount(f"{what} must be more than 0")
    if amount != amount.quantize(CENT):
        raise BadAmount(f"{what} {value!r} has more than 2 decimal places")
    return amount


def fmt(amount: Decimal) -> str:
    """The contract's money string: no exponent, no trailing zeros past the cents."""
    if amount == amount.to_integral_value():
        return str(amount.quantize(Decimal(1)) + 0)  # "+ 0" turns -0 into 0
    exact = amount.normalize()
    if exact.as_tuple().exponent == -1:
        exact = exact.quantize(CENT)  # 12.5 -> "12.50", as chips are counted
    return format(exact, "f")
