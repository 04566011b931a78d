"""The one place that hands out the row locks of the tables app, always in one order.

Lock order, everywhere: (for practice on demand, the player's own row first,) the table, then its game, then wallet accounts (which
``wallet.locks`` takes in primary-key order, in one query). A use case takes
only locks that come later in this order than those it holds, so two requests
can wait for each other but never in a circle (after Saleor's ``lock_objects``).
A player's action takes the game row lock alone (``lock_game_row``, the raw SQL of
``tables.game.gamerows``); a join or a leave takes the table and then the game.

Every lock here is ``FOR NO KEY UPDATE``: writers of a table's seats, or of a
game, still wait for one another, but PostgreSQL's foreign-key checks do not
wait for them. With ``FOR UPDATE`` they did, against the order: a move or a
timer holding the game row updates it twice in its transaction, and the second
update re-checks the game's foreign key to its table (``FOR KEY SHARE`` on the
table row), which waited for a join holding the table and waiting for the game:
``deadlock detected`` and a 500 for the player who joined.

What PostgreSQL may still refuse under concurrency, a deadlock it broke or a
serialization failure, is retried from the start of the transaction by
``retry_on_conflict`` instead of reaching the player as a 500.
"""

from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.db import DatabaseError, connection
from django.db.models import QuerySet

from accounts.models import User
from tables.game import gamerows
from tables.models import PoolGame, Table

logger = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])

#: SQLSTATEs worth running the whole transaction again for: deadlock_detected, serialization_failure.
RETRYABLE_SQLSTATES = frozenset({"40P01", "40001"})
#: Attempts in all, and the longest pause before the next (seconds, jittered).
ATTEMPTS = 4
_MAX_PAUSE = 0.2

_OPEN = (PoolGame.Status.WAITING, PoolGame.Status.RUNNING)


def practice_owner_for_update(user_id: int) -> None:
    """0. The player's own row, before any table: practice on demand opens one table per player at a time.

    Only ``seating.practice_table_start`` takes it, and before any other lock, so it
    comes first in the order; two clicks of one player wait for each other.
    """
    User.objects.select_for_update(no_key=True).filter(pk=user_id).values_list("pk").first()


def table_for_update(table_id: int) -> Table:
    """1. The table row (with its settings), locked."""
    return (
        Table.objects.select_for_update(of=("self",), no_key=True).select_related("settings").get(pk=table_id)
    )


def open_game_for_update(table: Table) -> PoolGame | None:
    """2. The table's waiting or running game, locked (the table must be locked first)."""
    return (
        PoolGame.objects.select_for_update(of=("self",), no_key=True)
        .filter(table=table, status__in=_OPEN)
        .first()
    )


def games_for_update() -> QuerySet[PoolGame]:
    return PoolGame.objects.select_for_update(of=("self",), no_key=True).select_related("table__settings")


def game_for_update(game_id: int) -> PoolGame:
    """2. A game row with its table and settings loaded (not locked), for the timers."""
    return games_for_update().get(pk=game_id)


def lock_game_row(game_id: int) -> PoolGame:
    """2. A game row alone, locked: a player's action (no joins, SQL built once)."""
    return gamerows.lock_game(game_id)


def lock_game_row_beside(game_id: int, sql: str, params: Sequence[Any]) -> tuple[PoolGame, tuple[Any, ...]]:
    """2. ``lock_game_row``, and the one row of ``sql`` in the same statement (PostgreSQL:
    ``gamerows.lock_game_beside``): a player's action and its may-this-user-play read."""
    return gamerows.lock_game_beside(game_id, sql, params)


def is_retryable(exc: BaseException) -> bool:
    """Whether ``exc`` is a deadlock PostgreSQL broke or a serialization failure."""
    cause: BaseException | None = exc  # Django's error, then the driver's it was raised from
    while cause is not None:
        if getattr(cause, "sqlstate", None) in RETRYABLE_SQLSTATES or getattr(cause, "pgcode", None) in (
            RETRYABLE_SQLSTATES
        ):
            return True
        cause = cause.__cause__
    return False


def retry_on_conflict(func: F) -> F:
    """Run ``func`` (one whole transaction) again when PostgreSQL breaks it for a conflict.

    Only when the call owns its transaction: inside an outer ``atomic`` block the
    outer transaction is broken too, so the error goes up to whoever owns it.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return func(*args, **kwargs)
            except DatabaseError as exc:
                if attempt == ATTEMPTS or connection.in_atomic_block or not is_retryable(exc):
                    raise
                logger.info("%s: %s; attempt %d of %d", func.__name__, exc, attempt + 1, ATTEMPTS)
                time.sleep(random.uniform(0, _MAX_PAUSE * attempt / ATTEMPTS))
        raise AssertionError("unreachable")

    return wrapper  # type: ignore[return-value]  # functools.wraps keeps the signature, which mypy cannot follow to F
