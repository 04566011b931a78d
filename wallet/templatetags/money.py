"""``{% load money %}{{ entry.amount|format_money }}``."""

from __future__ import annotations

from django import template

from core.money import format_money as _format_money

register = template.Library()


@register.filter(name="format_money")
def format_money(paise: int | None) -> str:
    """Template form of :func:`core.money.format_money`; blank for None."""
    return "" if paise is None else _format_money(paise)
