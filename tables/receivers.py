"""A player who may no longer play (deactivated, suspended, self-excluded) is dropped at their tables
and their sockets are closed: ``accounts.play.play_blocked`` → ``tables.services.drop_blocked_player``.

The tables enforce the block, so they connect to it: a player's own self-exclusion needs no staff app.
"""

from __future__ import annotations

import logging
from typing import Any

from django.dispatch import receiver

from accounts.play import play_blocked
from tables import services
from tables.realtime import sockets

logger = logging.getLogger(__name__)


@receiver(play_blocked)
def drop_at_tables(sender: Any, user_id: int, **kwargs: Any) -> None:
    try:
        services.drop_blocked_player(user_id=user_id)
    except Exception:  # the join checks still hold; the hook must not fail the action that blocked
        logger.exception("could not drop blocked user %s at their tables", user_id)
    sockets.close_user_sockets(user_id, reason="play_blocked")
