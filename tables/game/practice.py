"""Practice tables: the bot accounts and which bot seats must act (docs/rules.md §10.2).

What the services need to know about bots, and nothing that calls the services:
the bots' moves are made by ``tables.game.drivers``, which sits above the services.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable

from django.conf import settings

from accounts.models import User
from game_engine.game import GameState
from game_engine.views import legal_actions

logger = logging.getLogger(__name__)

BOT_NAMES = ("Arjun", "Priya", "Kabir", "Ananya", "Vikram", "Isha", "Rohan", "Diya", "Karan", "Meera")
#: Actions that never need a bot's attention: they are always allowed.
_PASSIVE = frozenset({"arrange", "auto_drop", "im_back", "leave"})


def bot_users(count: int, *, exclude: Iterable[int] = ()) -> list[User]:
    """``count`` bot accounts not in ``exclude``, created on first use (they cannot log in)."""
    skip = set(exclude)
    bots: list[User] = []
    n = 0
    while len(bots) < count:
        n += 1
        name = BOT_NAMES[(n - 1) % len(BOT_NAMES)]
        user, created = User.objects.get_or_create(
            username=f"bot-{n}", defaults={"display_name": f"{name} (bot)", "is_bot": True}
        )
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        if user.pk not in skip:
            bots.append(user)
    return bots


def seats_to_act(state: GameState, bot_seats: Iterable[int]) -> list[int]:
    """Bot seats that have a real decision to make now (draw, discard, show, rejoin, split)."""
    return [s for s in bot_seats if not _PASSIVE.issuperset(legal_actions(state, s))]


def think_seconds() -> float:
    low, high = settings.BOT_THINK_MS
    return random.uniform(low, max(low, high)) / 1000
