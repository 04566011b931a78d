"""A seat's end of a deal in words on server-rendered pages: ``{{ p|deal_outcome }}`` reads
"Dropped (missed turns)", never the stored codes ("dropped (missed_turns)"). The table's page
says the same from ``static/js/outcomes.js``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template

register = template.Library()

STATUS_LABEL = {
    "won": "Won",
    "shown": "Shown",
    "dropped": "Dropped",
    "wrong_show": "Wrong show",
    "playing": "Playing",
    "timed_out": "Timed out",
    "left": "Left",
    "eliminated": "Eliminated",
}
REASON_LABEL = {
    "drop": "drop",
    "first_drop": "first drop",
    "middle_drop": "middle drop",
    "wrong_show": "wrong show",
    "missed_turns": "missed turns",
    "auto_drop": "auto drop",
    "left": "left the game",
    "invalid": "invalid show",
    "no_show": "did not show in time",
}


def _plain(code: str) -> str:
    """A code without a label, still in words: ``some_code`` reads "some code"."""
    return str(code).replace("_", " ")


@register.filter
def deal_outcome(player: Mapping[str, Any]) -> str:
    """A result row's status with its reason: "Dropped (missed turns)"."""
    status = str(player.get("status") or "")
    words = STATUS_LABEL.get(status, _plain(status))
    reason = player.get("reason")
    return f"{words} ({REASON_LABEL.get(reason, _plain(reason))})" if reason else words
