"""Money is integers of minor units (paise) everywhere; floats never touch it."""

from __future__ import annotations

from django.conf import settings

PAISE_PER_CHIP = 100


def chips(n: int) -> int:
    """Whole chips to paise, for settings such as ``SIGNUP_BONUS_CHIPS``."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"chips must be an int, got {type(n).__name__}")
    return n * PAISE_PER_CHIP


def format_money(paise: int) -> str:
    """``1250 -> "₹12.50"``, ``-5 -> "-₹0.05"``; the symbol is ``settings.CURRENCY_SYMBOL``."""
    if isinstance(paise, bool) or not isinstance(paise, int):
        raise TypeError(f"money is an int of paise, got {type(paise).__name__}")
    sign = "-" if paise < 0 else ""
    whole, part = divmod(abs(paise), PAISE_PER_CHIP)
    return f"{sign}{settings.CURRENCY_SYMBOL}{whole}.{part:02d}"
