"""Quick messages at a table (issue 25): a fixed set of phrases, one a player every
``QUICK_MESSAGE_SECONDS``.

No free text: nothing for staff to moderate and no side channel for two players to collude
through (a phrase says nothing about a hand that the table does not already see). The limit is
kept in the cache (Redis when ``REDIS_URL`` is set, so it holds across every Daphne).
"""

from __future__ import annotations

from typing import Final

from django.conf import settings
from django.core.cache import cache

from tables.protocol import QuickPhrase

#: The phrases, by the key the page sends. The page shows ``text``; a muted page shows none.
PHRASES: Final[dict[QuickPhrase, str]] = {
    "good_game": "Good game",
    "well_played": "Well played",
    "please_hurry": "Please hurry",
    "sorry_connection": "Sorry, connection",
}


async def may_send(*, user_id: int, table_id: int) -> bool:
    """Whether this player may send a phrase at this table now; taking the turn if so."""
    return bool(await cache.aadd(f"quick:{table_id}:{user_id}", 1, timeout=settings.QUICK_MESSAGE_SECONDS))
