"""``{% load player_stats %}{% player_stats user as stats %}``: a player's statistics on their profile.

The profile page belongs to ``accounts``, which sits below the tables and imports none of
them: the page asks the tables for the statistics itself (``tables.game.stats``).
"""

from __future__ import annotations

from django import template

from accounts.models import User
from tables.game.stats import PlayerStats
from tables.game.stats import player_stats as _player_stats

register = template.Library()


@register.simple_tag
def player_stats(user: User) -> PlayerStats:
    return _player_stats(user)
