"""Card pictures for pages (the rules page): HTML and CSS card faces, no images.

``{% cards "10H JH QH" %}`` draws those cards in a row; ``wild="7"`` marks that
rank as the wild joker. Codes are the notation of docs/rules.md §1.
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

register = template.Library()

SUITS = {
    "S": ("♠", "black", "spades"),
    "H": ("♥", "red", "hearts"),
    "D": ("♦", "red", "diamonds"),
    "C": ("♣", "black", "clubs"),
}
RANK_NAMES = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}


def _face(code: str, wild: str) -> tuple[str, str, str, str]:
    if code == "PJ":
        return ("pcard joker", "JKR", "★", "printed joker")
    rank, suit = code[:-1], code[-1]
    symbol, colour, suit_name = SUITS[suit]
    classes = f"pcard {colour}" + (" wild" if rank == wild else "")
    name = f"{RANK_NAMES.get(rank, rank)} of {suit_name}" + (" (wild joker)" if rank == wild else "")
    return (classes, rank, symbol, name)


@register.simple_tag
def cards(codes: str, wild: str = "") -> SafeString:
    faces = [_face(code, wild) for code in codes.split()]
    row = format_html_join(
        "",
        '<span class="{}" role="img" aria-label="{}"><span class="pr">{}</span><span class="ps">{}</span></span>',
        ((cls, name, rank, symbol) for cls, rank, symbol, name in faces),
    )
    return format_html('<span class="pcards">{}</span>', row)
